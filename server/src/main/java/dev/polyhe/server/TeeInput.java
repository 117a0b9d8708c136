package dev.polyhe.server;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.function.LongConsumer;

/**
 * A body read by a parser and kept as it is read: every byte taken from it is written to {@code out}, and it is
 * refused (413) as soon as it passes its limit, so that a reader that parses the bytes as they arrive stops the
 * upload at its first malformed record with nothing beyond it written.
 */
final class TeeInput extends FilterInputStream {
    private final OutputStream out;
    private final long limit;
    private final String what;
    private final long shownLimit;
    private final LongConsumer progress;
    private long count;

    /**
     * @param what names the body in the refusal
     * @param shownLimit the limit the refusal names
     * @param progress called with the bytes read so far after each read; it may refuse by throwing
     */
    TeeInput(InputStream in, OutputStream out, long limit, String what, long shownLimit, LongConsumer progress) {
        super(in);
        this.out = out;
        this.limit = limit;
        this.what = what;
        this.shownLimit = shownLimit;
        this.progress = progress;
    }

    /** The bytes read (and kept) so far. */
    long count() {
        return count;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = in.read(b, off, len);
        if (n > 0) {
            count += n;
            if (count > limit) {
                throw new HttpError(413, what + " is larger than this server's limit of " + shownLimit + " bytes");
            }
            progress.accept(count);
            out.write(b, off, n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        // every byte is kept: skipping reads through
        byte[] buf = new byte[(int) Math.min(n, 1 << 16)];
        int r = read(buf, 0, buf.length);
        return Math.max(r, 0);
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    @Override
    public void close() {
        // the zip entry and the file belong to the caller
    }
}

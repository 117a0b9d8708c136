package dev.polyhe.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** Copies a request body to a file, refusing it (413) as soon as it passes the server's limit. */
final class BoundedCopy {
    private BoundedCopy() {}

    /**
     * @param what names the body in the refusal ("the upload", "the query")
     * @param shownLimit the limit the refusal names (the whole body's, when {@code limit} is what remains of it)
     * @return the bytes copied
     */
    static long copy(InputStream in, OutputStream out, long limit, String what, long shownLimit) throws IOException {
        return copy(in, out, limit, what, shownLimit, n -> {});
    }

    /** @param progress called with the bytes copied so far after each read; it may refuse by throwing */
    static long copy(
            InputStream in,
            OutputStream out,
            long limit,
            String what,
            long shownLimit,
            java.util.function.LongConsumer progress)
            throws IOException {
        byte[] buf = new byte[1 << 16];
        long n = 0;
        for (int r; (r = in.read(buf)) > 0; ) {
            n += r;
            if (n > limit) {
                throw new HttpError(413, what + " is larger than this server's limit of " + shownLimit + " bytes");
            }
            progress.accept(n);
            out.write(buf, 0, r);
        }
        return n;
    }
}

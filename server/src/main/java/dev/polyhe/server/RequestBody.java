package dev.polyhe.server;

import java.io.IOException;
import java.io.InputStream;
import org.eclipse.jetty.io.Content;

/**
 * A request's body as a stream, for the checks that read it as it arrives (uploads, queries): first what was gathered
 * before a thread took it, then chunk by chunk from the engine, each wait bounded by the body's pace.
 */
final class RequestBody extends InputStream {
    private final Exchange exchange;
    private final byte[] head;
    private final Throwable failure;
    private int headAt;
    private Content.Chunk chunk;
    private boolean ended;

    /**
     * @param head the bytes gathered before a thread read the body
     * @param failure why the body stopped before a thread took it (the peer went away), or null
     */
    RequestBody(Exchange exchange, byte[] head, Throwable failure) {
        this.exchange = exchange;
        this.head = head;
        this.failure = failure;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (headAt < head.length) {
            int n = Math.min(len, head.length - headAt);
            System.arraycopy(head, headAt, b, off, n);
            headAt += n;
            return n;
        }
        if (failure != null) {
            throw failure instanceof IOException io ? io : new IOException(failure);
        }
        while (!ended) {
            if (chunk != null && chunk.hasRemaining()) {
                int n = Math.min(len, chunk.remaining());
                chunk.get(b, off, n);
                return n;
            }
            if (chunk != null) {
                ended = chunk.isLast();
                chunk.release();
                chunk = null;
                continue;
            }
            chunk = exchange.next();
        }
        return -1;
    }

    @Override
    public void close() {
        if (chunk != null) {
            chunk.release();
            chunk = null;
        }
    }
}

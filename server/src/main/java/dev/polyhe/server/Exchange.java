package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLSession;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;

/**
 * One request and its answer on the HTTP engine. Answers are written without blocking (a peer that reads slowly
 * holds no thread); a body is read on a thread only once its first {@value #PREFETCH} bytes (or all of it) have
 * come, so a body that trickles in holds none; the rest of a body is read, or dropped, before the answer goes.
 */
final class Exchange {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Bytes of a body gathered without a thread before one reads it. */
    static final int PREFETCH = 64 << 10;

    /** What is left of a body is read, up to this many bytes, so that the client gets the answer (not a reset). */
    static final long DRAIN_LIMIT = 64L << 20;

    /** Reads a request's body on a thread of the engine. */
    interface BodyReader {
        void read(InputStream body);
    }

    final Request request;
    final Response response;
    final Callback callback;
    private final BodyPace pace;
    private final Executor threads;
    private final long startNanos;
    private final AtomicBoolean answered = new AtomicBoolean();
    /** Bytes of the body that came so far. */
    private volatile long received;

    private volatile boolean bodyEnded;
    private volatile boolean demandPending;
    /** The body is not read any further (failed, too slow): the answer closes the connection. */
    private volatile boolean abandoned;

    Exchange(Request request, Response response, Callback callback, BodyPace pace, Executor threads) {
        this.request = request;
        this.response = response;
        this.callback = callback;
        this.pace = pace;
        this.threads = threads;
        this.startNanos = request.getHeadersNanoTime();
    }

    String method() {
        return request.getMethod();
    }

    String path() {
        return request.getHttpURI().getDecodedPath();
    }

    /** The query string as sent (percent-encoded), or null. */
    String rawQuery() {
        return request.getHttpURI().getQuery();
    }

    String header(String name) {
        return request.getHeaders().get(name);
    }

    void setHeader(String name, String value) {
        response.getHeaders().put(name, value);
    }

    /** The TLS session, or null over plain HTTP. */
    SSLSession sslSession() {
        EndPoint.SslSessionData data =
                request.getConnectionMetaData().getConnection().getEndPoint().getSslSessionData();
        return data == null ? null : data.sslSession();
    }

    /** The body's declared length, or -1 (chunked, or none). */
    long declaredLength() {
        String declared = header("Content-Length");
        return declared != null && declared.matches("\\d{1,18}") ? Long.parseLong(declared) : -1;
    }

    /** Whether an answer has begun. */
    boolean answered() {
        return answered.get();
    }

    // answers

    void json(int status, ObjectNode body) {
        try {
            reply(status, "application/json", JSON.writeValueAsBytes(body));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code {"error": message, "status": status}}. */
    void error(int status, String message) {
        json(status, JSON.createObjectNode().put("error", message).put("status", status));
    }

    void text(int status, String body) {
        reply(status, "text/plain; version=0.0.4", body.getBytes(StandardCharsets.UTF_8));
    }

    void reply(int status, String type, byte[] body) {
        answer(() -> {
            response.setStatus(status);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
            response.write(true, ByteBuffer.wrap(body), callback);
        });
    }

    /** A file, read as the peer takes it. */
    void file(String type, Path file) throws IOException {
        long size = Files.size(file);
        answer(() -> {
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, size);
            Content.copy(Content.Source.from(file), response, callback);
        });
    }

    /** The head of a stream that goes on ({@link EventStream}): the status and headers, then nothing. */
    void beginStream(int status, String type, Callback written) {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("answered twice");
        }
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache");
        response.write(false, ByteBuffer.allocate(0), written);
    }

    /** Once the body is read or dropped (or given up on: then the connection closes after the answer). */
    private void answer(Runnable write) {
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("answered twice");
        }
        finishBody(() -> {
            if (!bodyEnded) {
                response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
            }
            write.run();
        });
    }

    private void finishBody(Runnable then) {
        if (bodyEnded || abandoned || demandPending || declaredLength() > DRAIN_LIMIT) {
            then.run();
            return;
        }
        drain(then, received + DRAIN_LIMIT);
    }

    private void drain(Runnable then, long limit) {
        while (true) {
            Content.Chunk c = request.read();
            if (c == null) {
                demand(() -> drain(then, limit));
                return;
            }
            if (Content.Chunk.isFailure(c)) {
                abandoned = true;
                then.run();
                return;
            }
            received += c.remaining();
            boolean last = c.isLast();
            c.release();
            if (last) {
                bodyEnded = true;
            }
            if (last || received >= limit || late()) {
                then.run();
                return;
            }
        }
    }

    private boolean late() {
        return System.nanoTime() - pace.deadline(startNanos, received) > 0;
    }

    private void demand(Runnable then) {
        demandPending = true;
        request.demand(Invocable.from(Invocable.InvocationType.NON_BLOCKING, () -> {
            demandPending = false;
            then.run();
        }));
    }

    // the body

    /**
     * Gathers the body's first {@value #PREFETCH} bytes without a thread, then reads it on one of the engine's
     * threads; a body that comes too slowly is answered 408 before it takes one.
     */
    void body(BodyReader reader, java.util.function.Consumer<HttpError> refuse) {
        prefetch(new ByteArrayOutputStream(), reader, refuse);
    }

    private void prefetch(
            ByteArrayOutputStream head, BodyReader reader, java.util.function.Consumer<HttpError> refuse) {
        while (true) {
            Content.Chunk c = request.read();
            if (c == null) {
                demand(() -> prefetch(head, reader, refuse));
                return;
            }
            if (Content.Chunk.isFailure(c)) {
                abandoned = true;
                Throwable failure = c.getFailure();
                threads.execute(() -> reader.read(new RequestBody(this, head.toByteArray(), failure)));
                return;
            }
            long before = received;
            try {
                pace.check(startNanos, before, System.nanoTime());
            } catch (HttpError e) {
                c.release();
                abandoned = true;
                refuse.accept(e);
                return;
            }
            received += c.remaining();
            byte[] b = new byte[c.remaining()];
            c.get(b, 0, b.length);
            head.writeBytes(b);
            boolean last = c.isLast();
            c.release();
            if (last || head.size() >= PREFETCH) {
                if (last) {
                    bodyEnded = true;
                }
                threads.execute(() -> reader.read(new RequestBody(this, head.toByteArray(), null)));
                return;
            }
        }
    }

    /** The next chunk of the body for {@link RequestBody}, waiting for one no longer than the pace allows. */
    Content.Chunk next() throws IOException {
        while (true) {
            if (bodyEnded) {
                return Content.Chunk.EOF;
            }
            Content.Chunk c = request.read();
            if (c != null) {
                if (Content.Chunk.isFailure(c)) {
                    abandoned = true;
                    Throwable f = c.getFailure();
                    if (f instanceof java.util.concurrent.TimeoutException) {
                        throw new HttpError(408, "the request's body stopped coming (the connection's idle timeout)");
                    }
                    throw f instanceof IOException io ? io : new IOException(f);
                }
                try {
                    pace.check(startNanos, received, System.nanoTime());
                } catch (HttpError late) {
                    c.release();
                    abandoned = true;
                    throw late;
                }
                received += c.remaining();
                if (c.isLast()) {
                    bodyEnded = true;
                }
                return c;
            }
            java.util.concurrent.CountDownLatch arrived = new java.util.concurrent.CountDownLatch(1);
            demand(arrived::countDown);
            long wait = pace.deadline(startNanos, received) - System.nanoTime();
            try {
                if (!arrived.await(Math.max(0, wait), java.util.concurrent.TimeUnit.NANOSECONDS)) {
                    abandoned = true;
                    throw pace.late(startNanos, received, System.nanoTime());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                abandoned = true;
                throw new java.io.InterruptedIOException("the server is stopping");
            }
        }
    }

    /** Ends the exchange without an answer (the peer is gone). */
    void abort(Throwable why) {
        answered.set(true);
        callback.failed(why);
    }
}

package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLContext;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.ArrayByteBufferPool;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP engine under {@code polyhe serve}: Jetty's core server, which reads and writes with non-blocking I/O, so
 * that a peer that is idle, stalled or slow holds no thread. Threads are taken only to answer a request whose
 * headers have all come, and to read a body whose data flows ({@link Exchange}).
 */
final class HttpEngine implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Largest request head (request line and headers); beyond, 431. */
    static final int MAX_HEADER_BYTES = 16 << 10;

    /** Fewest request threads: health, status and a few uploads side by side. */
    static final int MIN_THREADS = 8;

    /** Threads that route requests and answer all but bodies (which flow on the pool). */
    static final int ROUTE_THREADS = 8;

    /** Bytes of buffers the engine keeps for reuse, on the heap and off it. */
    private static final long POOLED_BYTES = 64L << 20;

    /** The engine's own threads: its acceptor, selector, reserve, and short tasks (a completed write). */
    private static final int ENGINE_THREADS = 16;

    private final Server server;
    private final ServerConnector connector;
    private final ConnectionGuard guard;
    private final java.util.concurrent.ExecutorService routes;
    private final java.util.concurrent.ExecutorService bodies;

    /**
     * @param threads request bodies read at once (each on a thread while it flows)
     * @param tls the server's TLS context, or null for plain HTTP
     * @param wantClientCertificates ask TLS clients for a certificate (not require: a token may do instead)
     * @param limits connections per address, timeouts
     * @param acceptors threads accepting connections (0: the selector accepts them)
     * @param name the threads' name
     * @param serve answers each request whose headers have come
     */
    HttpEngine(
            InetSocketAddress address,
            int threads,
            SSLContext tls,
            boolean wantClientCertificates,
            Connections limits,
            int acceptors,
            String name,
            java.util.function.Consumer<Exchange> serve) {
        // the engine's own pool runs only short, non-blocking tasks (a completed write, a connection to read on), so
        // it stays small; bodies flow on threads of their own, up to the given number
        QueuedThreadPool pool = new QueuedThreadPool(ENGINE_THREADS, 4, 30_000);
        pool.setName(name);
        pool.setDaemon(true);
        pool.setStopTimeout(500);
        // buffers kept for reuse are bounded, not a share of the heap: thousands of peers come and go
        this.server = new Server(pool, null, new ArrayByteBufferPool(0, -1, -1, -1, POOLED_BYTES, POOLED_BYTES));
        server.setStopAtShutdown(false);
        server.setStopTimeout(0);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        http.setRequestHeaderSize(MAX_HEADER_BYTES);
        HttpConnectionFactory h1 = new HttpConnectionFactory(http);
        ConnectionFactory[] factories;
        if (tls != null) {
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setSslContext(tls);
            ssl.setWantClientAuth(wantClientCertificates);
            factories = new ConnectionFactory[] {new SslConnectionFactory(ssl, h1.getProtocol()), h1};
        } else {
            factories = new ConnectionFactory[] {h1};
        }
        this.connector = new ServerConnector(server, acceptors, 1, factories);
        connector.setHost(address.getAddress().getHostAddress());
        connector.setPort(address.getPort());
        connector.setIdleTimeout(limits.idleTimeout().toMillis());
        connector.setAcceptQueueSize(1024);
        this.guard = new ConnectionGuard(
                limits.maxPerAddress(), limits.headerTimeout().toMillis());
        connector.addBean(guard);
        server.addConnector(connector);
        server.setErrorHandler(HttpEngine::jsonError);
        BodyPace pace = limits.pace();
        this.routes = pool(name + "-route", ROUTE_THREADS);
        this.bodies = pool(name + "-body", threads);
        // the engine parses a readable connection on its selector, without a thread of its own, because answering is
        // handed on here: to a few threads that route and answer (quick work: the store's files and folders, a
        // token, a status), and from them a body that flows to threads of its own, up to --max-connections. Bursts of
        // short requests (a thousand peers reconnecting at once) queue on the routing threads for milliseconds
        // rather than growing the pool.
        server.setHandler(new Handler.Abstract(Invocable.InvocationType.NON_BLOCKING) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                Exchange ex = new Exchange(request, response, callback, pace, bodies);
                routes.execute(() -> {
                    try {
                        serve.accept(ex);
                    } catch (RuntimeException e) {
                        callback.failed(e);
                    }
                });
                return true;
            }
        });
    }

    /** Up to {@code n} threads, made as tasks come and gone after 30 s idle; beyond, tasks wait. */
    private static java.util.concurrent.ThreadPoolExecutor pool(String name, int n) {
        var pool = new java.util.concurrent.ThreadPoolExecutor(
                n,
                n,
                30,
                java.util.concurrent.TimeUnit.SECONDS,
                new java.util.concurrent.LinkedBlockingQueue<>(),
                r -> {
                    Thread t = new Thread(r, name);
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** Jetty's own refusals (a malformed request, headers too large) in the server's format. */
    private static boolean jsonError(Request request, Response response, Callback callback) throws IOException {
        int status = response.getStatus();
        Object message = request.getAttribute(org.eclipse.jetty.server.handler.ErrorHandler.ERROR_MESSAGE);
        byte[] body = JSON.writeValueAsBytes(JSON.createObjectNode()
                .put("error", message == null ? "the request could not be read" : message.toString())
                .put("status", status));
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        if (status >= 400 && status != 404) {
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE);
        }
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }

    void start() throws IOException {
        try {
            server.start();
        } catch (IOException e) {
            close();
            throw e;
        } catch (Exception e) {
            close();
            throw new IOException(e.getMessage(), e);
        }
        guard.start(server.getScheduler());
    }

    InetSocketAddress address() {
        return new InetSocketAddress(connector.getHost(), connector.getLocalPort());
    }

    Server server() {
        return server;
    }

    ConnectionGuard guard() {
        return guard;
    }

    @Override
    public void close() {
        guard.stop();
        routes.shutdownNow();
        bodies.shutdownNow();
        try {
            server.stop();
        } catch (Exception e) {
            // stopping: nothing more to do
        }
    }
}

package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's port ({@code --admin-port}): {@code GET /metrics} and {@code GET /admin} without a token, on the
 * loopback interface only, so that whoever may log in to the machine may read them and nobody else. Two threads
 * of its own: a busy public port never delays a scrape.
 */
final class AdminPort implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminPort.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer http;
    private final ExecutorService threads;

    AdminPort(int port, Supplier<String> metrics, Supplier<ObjectNode> view) throws IOException {
        this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 16);
        this.threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "polyhe-admin");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(threads);
        http.createContext("/", ex -> answer(ex, metrics, view));
        http.start();
        LOG.info("admin port on {}: /metrics and /admin without a token", http.getAddress());
    }

    InetSocketAddress address() {
        return http.getAddress();
    }

    private static void answer(HttpExchange ex, Supplier<String> metrics, Supplier<ObjectNode> view) {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            int status;
            String type;
            byte[] body;
            if (!ex.getRequestMethod().equals("GET")) {
                status = 405;
                type = "application/json";
                body = error(
                        405,
                        ex.getRequestMethod() + " " + path + " is not an endpoint of the admin port (GET "
                                + "/metrics, GET /admin)");
            } else if (path.equals("/metrics") || path.equals("/admin")) {
                boolean text = path.equals("/metrics");
                type = text ? "text/plain; version=0.0.4" : "application/json";
                byte[] b;
                int st = 200;
                try {
                    b = text ? metrics.get().getBytes(StandardCharsets.UTF_8) : JSON.writeValueAsBytes(view.get());
                } catch (RuntimeException e) {
                    LOG.warn("admin {} failed", path, e);
                    st = 500;
                    b = error(
                            500,
                            "the server could not build " + path + ": "
                                    + e.getClass().getSimpleName());
                }
                status = st;
                body = b;
                if (st == 500) {
                    type = "application/json";
                }
            } else {
                status = 404;
                type = "application/json";
                body = error(404, "no such endpoint on the admin port: " + path + "; expected /metrics or /admin");
            }
            ex.getResponseHeaders().set("Content-Type", type);
            ex.sendResponseHeaders(status, body.length);
            ex.getResponseBody().write(body);
        } catch (IOException e) {
            LOG.debug("admin request {} ended: {}", ex.getRequestURI(), e.toString());
        }
    }

    private static byte[] error(int status, String message) throws IOException {
        return JSON.writeValueAsBytes(
                JSON.createObjectNode().put("error", message).put("status", status));
    }

    @Override
    public void close() {
        http.stop(0);
        threads.shutdownNow();
    }
}

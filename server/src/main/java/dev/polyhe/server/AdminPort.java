package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's port ({@code --admin-port}): {@code GET /metrics} and {@code GET /admin} without a token, on the
 * loopback interface only, so that whoever may log in to the machine may read them and nobody else. An engine and
 * threads of its own: a busy public port never delays a scrape.
 */
final class AdminPort implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminPort.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpEngine http;

    AdminPort(int port, Supplier<String> metrics, Supplier<ObjectNode> view) throws IOException {
        this.http = new HttpEngine(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
                2,
                null,
                false,
                Connections.defaults(),
                0,
                "polyhe-admin",
                ex -> answer(ex, metrics, view));
        http.start();
        LOG.info("admin port on {}: /metrics and /admin without a token", http.address());
    }

    InetSocketAddress address() {
        return http.address();
    }

    private static void answer(Exchange ex, Supplier<String> metrics, Supplier<ObjectNode> view) {
        String path = ex.path();
        if (!ex.method().equals("GET")) {
            ex.error(
                    405, ex.method() + " " + path + " is not an endpoint of the admin port (GET /metrics, GET /admin)");
        } else if (path.equals("/metrics") || path.equals("/admin")) {
            byte[] b;
            try {
                b = path.equals("/metrics")
                        ? metrics.get().getBytes(StandardCharsets.UTF_8)
                        : JSON.writeValueAsBytes(view.get());
            } catch (RuntimeException | IOException e) {
                LOG.warn("admin {} failed", path, e);
                ex.error(
                        500,
                        "the server could not build " + path + ": "
                                + e.getClass().getSimpleName());
                return;
            }
            ex.reply(200, path.equals("/metrics") ? "text/plain; version=0.0.4" : "application/json", b);
        } else {
            ex.error(404, "no such endpoint on the admin port: " + path + "; expected /metrics or /admin");
        }
    }

    @Override
    public void close() {
        http.close();
    }
}

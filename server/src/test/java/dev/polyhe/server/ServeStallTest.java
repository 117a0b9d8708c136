package dev.polyhe.server;

import static dev.polyhe.server.ServedModel.JSON;
import static dev.polyhe.server.ServedModel.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.core.PolyHe;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 52, on loopback ports only: peers that stall hold no thread. More connections that never finish their
 * headers than the server has request threads (the JDK server of before held a thread for each, and 320 of them
 * kept every health check out), and the bounds on each peer: connections per address, the time headers may take, the
 * pace of a body.
 */
class ServeStallTest {
    private static final byte[] PARTIAL = "GET /v1/health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    static Path dir;

    static Path model;
    static PolyHe polyhe;

    @BeforeAll
    static void prepare() throws Exception {
        model = ServedModel.shared().model();
        polyhe = PolyHe.builder().threads(1).build();
    }

    @AfterAll
    static void close() {
        polyhe.close();
    }

    private static PolyHeServer.Settings settings(String store) {
        return new PolyHeServer.Settings(
                0, List.of(model), dir.resolve(store), 1, 1, 1L << 30, 256L << 20, 64L << 20, true, 0);
    }

    private static long httpThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("polyhe-http"))
                .count();
    }

    /** Whether the server still holds the socket open: a read waits rather than seeing the end or a reset. */
    private static boolean heldOpen(Socket s) throws IOException {
        s.setSoTimeout(50);
        try {
            return s.getInputStream().read() >= 0;
        } catch (SocketTimeoutException waiting) {
            return true;
        } catch (IOException reset) {
            return false;
        }
    }

    @Test
    void threeHundredStalledConnectionsLeaveHealthAnswering() throws Exception {
        // the old server's 256 request threads, and room for every stalled peer from this one address; headers may
        // take a minute, so that only the engine, not a timeout, keeps health answering
        var bounds =
                new Connections(1000, Duration.ofSeconds(60), Duration.ofSeconds(60), 1024, Duration.ofMinutes(10));
        var network = PolyHeServer.Network.loopbackDemo().withConnections(bounds);
        List<Socket> stalled = new ArrayList<>();
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings("stall-store"), network)) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(200, get(url + "/v1/health", null).statusCode());
            try {
                for (int i = 0; i < 320; i++) {
                    Socket c = new Socket("127.0.0.1", s.port());
                    stalled.add(c);
                    c.getOutputStream().write(PARTIAL);
                    c.getOutputStream().flush();
                }
                for (int round = 0; round < 3; round++) {
                    // bounded: the JDK server of before left it unanswered for its request timeout (600 s)
                    var health = ServedModel.HTTP.send(
                            HttpRequest.newBuilder(URI.create(url + "/v1/health"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    assertEquals(200, health.statusCode(), health.body());
                    assertEquals(
                            "ok", JSON.readTree(health.body()).get("status").asText());
                }
                int open = 0;
                for (Socket c : stalled) {
                    open += heldOpen(c) ? 1 : 0;
                }
                assertEquals(320, open, "every stalled peer is still connected: none was refused or dropped");
                assertTrue(httpThreads() < 64, httpThreads() + " request threads for 320 stalled peers");
            } finally {
                for (Socket c : stalled) {
                    c.close();
                }
            }
        }
    }

    @Test
    void connectionsPerAddressHeadersAndSlowBodiesAreBounded() throws Exception {
        var bounds = new Connections(6, Duration.ofSeconds(3), Duration.ofSeconds(1), 1024, Duration.ofMinutes(10));
        var network = PolyHeServer.Network.loopbackDemo().withConnections(bounds);
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings("bounds-store"), network)) {
            String url = "http://127.0.0.1:" + s.port();
            // six connections from this address: a seventh is refused at once, and so is a health check
            List<Socket> six = new ArrayList<>();
            try {
                for (int i = 0; i < 6; i++) {
                    six.add(new Socket("127.0.0.1", s.port()));
                }
                for (int i = 0; i < 20 && s.connectionsRefused() == 0; i++) {
                    try (Socket seventh = new Socket("127.0.0.1", s.port())) {
                        seventh.setSoTimeout(5_000);
                        assertTrue(readsEnd(seventh.getInputStream()), "the seventh connection is closed at once");
                    }
                }
                assertTrue(s.connectionsRefused() > 0);
                assertThrows(IOException.class, () -> get(url + "/v1/health", null));
            } finally {
                for (Socket c : six) {
                    c.close();
                }
            }
            assertEquals(200, awaitHealth(url), "room again once they closed");

            // a header line every 300 ms: never idle for the 3 s idle timeout, closed by the 1 s header timeout
            try (Socket trickle = new Socket("127.0.0.1", s.port())) {
                OutputStream out = trickle.getOutputStream();
                out.write(PARTIAL);
                boolean closed = false;
                for (int i = 0; i < 30 && !closed; i++) {
                    Thread.sleep(300);
                    try {
                        out.write(("X-Slow-" + i + ": 1\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                        closed = !heldOpen(trickle);
                    } catch (IOException reset) {
                        closed = true;
                    }
                }
                assertTrue(closed, "a request whose headers trickle in is closed");
            }

            // a body at 2 bytes a second: 408 once its first 5 s are past, naming the option
            try (Socket slow = new Socket("127.0.0.1", s.port())) {
                slow.setSoTimeout(30_000);
                OutputStream out = slow.getOutputStream();
                out.write(("PUT /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = slow.getInputStream();
                String answer = null;
                for (int i = 0; i < 40 && answer == null; i++) {
                    try {
                        out.write('x');
                        out.flush();
                    } catch (IOException closedMeanwhile) {
                        // the answer is already on its way
                    }
                    slow.setSoTimeout(500);
                    try {
                        byte[] b = in.readNBytes(12);
                        answer = new String(b, StandardCharsets.US_ASCII);
                    } catch (SocketTimeoutException notYet) {
                        // no answer yet
                    }
                }
                assertEquals("HTTP/1.1 408", answer);
                slow.setSoTimeout(10_000);
                String rest = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(rest.contains("--min-body-rate") && rest.contains("\"status\":408"), rest);
            }
            assertEquals(200, get(url + "/v1/health", null).statusCode());
        }
    }

    private static boolean readsEnd(InputStream in) {
        try {
            return in.read() < 0;
        } catch (IOException reset) {
            return true;
        }
    }

    private static int awaitHealth(String url) throws Exception {
        for (int i = 0; i < 50; i++) {
            try {
                return get(url + "/v1/health", null).statusCode();
            } catch (IOException stillFull) {
                Thread.sleep(100);
            }
        }
        return get(url + "/v1/health", null).statusCode();
    }
}

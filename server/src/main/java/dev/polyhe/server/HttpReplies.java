package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The server's answers on an exchange (JSON, errors, text, files) and what it reads of a request's query. */
final class HttpReplies {
    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpReplies() {}

    static String require(Map<String, String> q, String name) {
        String v = q.get(name);
        if (v == null || v.isBlank()) {
            throw new HttpError(400, "missing query parameter '" + name + "'");
        }
        return v;
    }

    static Map<String, String> query(HttpExchange ex) {
        Map<String, String> m = new HashMap<>();
        String raw = ex.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String kv : raw.split("&")) {
                int i = kv.indexOf('=');
                if (i > 0) {
                    m.put(
                            URLDecoder.decode(kv.substring(0, i), StandardCharsets.UTF_8),
                            URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return m;
    }

    static HttpError notAllowed(String method, HttpExchange ex) {
        return new HttpError(405, method + " " + ex.getRequestURI().getPath() + " is not an endpoint of this server");
    }

    static void json(HttpExchange ex, int status, ObjectNode body) throws IOException {
        byte[] b = JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    /** What is left of a refused request's body is read, up to this many bytes, so that the client gets the answer. */
    private static final long DRAIN_LIMIT = 64L << 20;

    static void error(HttpExchange ex, int status, String message) throws IOException {
        // A client still sending its body when the answer comes sees a reset connection, not the answer: read (and
        // drop) the rest of a body of reasonable size first. Beyond the limit the connection is closed instead, and
        // a body declared beyond it is not waited for at all: the answer goes now.
        String declared = ex.getRequestHeaders().getFirst("Content-Length");
        boolean huge = declared != null && declared.matches("\\d{1,18}") && Long.parseLong(declared) > DRAIN_LIMIT;
        try {
            InputStream in = ex.getRequestBody();
            byte[] buf = new byte[1 << 16];
            for (long n = 0; !huge && n < DRAIN_LIMIT; ) {
                int r = in.read(buf);
                if (r < 0) {
                    break;
                }
                n += r;
            }
        } catch (IOException e) {
            // the client is gone
        }
        json(ex, status, JSON.createObjectNode().put("error", message).put("status", status));
    }

    static void text(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    /** The routes as an OpenAPI 3 description, from the jar. */
    static void openApi(HttpExchange ex) throws IOException {
        byte[] b;
        try (InputStream in = PolyHeServer.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new HttpError(500, "this build carries no openapi.json");
            }
            b = in.readAllBytes();
        }
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, b.length);
        ex.getResponseBody().write(b);
    }

    static void bytes(HttpExchange ex, String type, Path file) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(200, Files.size(file));
        try (InputStream in = Files.newInputStream(file)) {
            in.transferTo(ex.getResponseBody());
        }
    }
}

package dev.polyhe.server;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/** What the server reads of a request's query, its refusals of a route, and its OpenAPI description. */
final class HttpReplies {
    private HttpReplies() {}

    static String require(Map<String, String> q, String name) {
        String v = q.get(name);
        if (v == null || v.isBlank()) {
            throw new HttpError(400, "missing query parameter '" + name + "'");
        }
        return v;
    }

    static Map<String, String> query(Exchange ex) {
        Map<String, String> m = new HashMap<>();
        String raw = ex.rawQuery();
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

    static HttpError notAllowed(String method, Exchange ex) {
        return new HttpError(405, method + " " + ex.path() + " is not an endpoint of this server");
    }

    /** The routes as an OpenAPI 3 description, from the jar. */
    static void openApi(Exchange ex) throws IOException {
        byte[] b;
        try (InputStream in = PolyHeServer.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new HttpError(500, "this build carries no openapi.json");
            }
            b = in.readAllBytes();
        }
        ex.reply(200, "application/json", b);
    }
}

package dev.polyhe.server;

import com.sun.net.httpserver.HttpExchange;

/**
 * Who sent a request: the tenant of its {@code Authorization: Bearer} token, or {@link Tenant#ANONYMOUS} on a
 * server without authentication. A missing, malformed or unknown token is 401, one message for all three, so a
 * probe learns nothing about which tokens exist.
 */
final class BearerAuth {
    private final TokenFile tokens;

    /** @param tokens null: no authentication ({@code --no-auth}) */
    BearerAuth(TokenFile tokens) {
        this.tokens = tokens;
    }

    boolean enabled() {
        return tokens != null;
    }

    Tenant tenant(HttpExchange ex) {
        if (tokens == null) {
            return Tenant.ANONYMOUS;
        }
        String h = ex.getRequestHeaders().getFirst("Authorization");
        if (h != null && h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            var t = tokens.authenticate(h.substring(7).trim());
            if (t.isPresent()) {
                return t.get();
            }
        }
        ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"polyhe\"");
        throw new HttpError(401, "this server needs 'Authorization: Bearer TOKEN' with a token its operator issued "
                + "('polyhe serve token add'); the request had none or an unknown one");
    }

    /** {@code /metrics} and other operator views. */
    Tenant admin(HttpExchange ex) {
        Tenant t = tenant(ex);
        if (!t.admin()) {
            throw new HttpError(403, "tenant " + t.name() + " is not an admin; /metrics needs an admin token "
                    + "('polyhe serve token add --admin')");
        }
        return t;
    }
}

package dev.polyhe.server;

import javax.net.ssl.SSLSession;

/**
 * Who sent a request: the tenant of its client certificate (mutual TLS, {@link ClientCertificate}), else of its
 * {@code Authorization: Bearer} token, or {@link Tenant#ANONYMOUS} on a server without authentication. A missing,
 * malformed or unknown token is 401, one message for all three, so a probe learns nothing about which tokens exist.
 */
final class BearerAuth {
    private final TokenFile tokens;
    private final boolean certificates;

    /**
     * @param tokens the tenants' tokens, or null for none
     * @param certificates tenants by client certificate (the TLS context verifies them against the client CA)
     */
    BearerAuth(TokenFile tokens, boolean certificates) {
        this.tokens = tokens;
        this.certificates = certificates;
    }

    /** Without authentication ({@code --no-auth}) when neither tokens nor certificates. */
    boolean enabled() {
        return tokens != null || certificates;
    }

    Tenant tenant(Exchange ex) {
        if (!enabled()) {
            return Tenant.ANONYMOUS;
        }
        SSLSession tls = certificates ? ex.sslSession() : null;
        if (tls != null) {
            Tenant t = ClientCertificate.tenant(tls);
            if (t != null) {
                return t;
            }
        }
        String h = ex.header("Authorization");
        if (tokens != null && h != null && h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            var t = tokens.authenticate(h.substring(7).trim());
            if (t.isPresent()) {
                return t.get();
            }
        }
        ex.setHeader("WWW-Authenticate", "Bearer realm=\"polyhe\"");
        throw new HttpError(
                401,
                "this server needs "
                        + (tokens != null
                                ? "'Authorization: Bearer TOKEN' with a "
                                        + "token its operator issued ('polyhe serve token add')"
                                : "")
                        + (tokens != null && certificates ? " or " : "")
                        + (certificates ? "a client certificate from its operator's client CA" : "")
                        + "; the request had none or an unknown one");
    }

    /** {@code /metrics} and other operator views. */
    Tenant admin(Exchange ex) {
        Tenant t = tenant(ex);
        if (!t.admin()) {
            throw new HttpError(
                    403,
                    "tenant " + t.name() + " is not an admin; /metrics needs an admin token "
                            + "('polyhe serve token add --admin')");
        }
        return t;
    }
}

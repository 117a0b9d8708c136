package dev.polyhe.server;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/**
 * The tenant of a client certificate under mutual TLS: the common name (CN) of its subject. The TLS handshake has
 * already verified the certificate against the operator's client CA ({@code --tls-client-ca}); a certificate
 * without a CN that is a tenant name is refused (401).
 */
final class ClientCertificate {
    private static final Pattern CN = Pattern.compile("(?:^|,)CN=([^,+]*)(?:[,+]|$)");

    private ClientCertificate() {}

    /** @return the tenant the session's client certificate names, or null when the client sent none */
    static Tenant tenant(SSLSession session) {
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException none) {
            return null;
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate cert)) {
            return null;
        }
        String subject = cert.getSubjectX500Principal().getName(X500Principal.RFC2253);
        Matcher m = CN.matcher(subject);
        String cn = m.find() ? m.group(1) : null;
        try {
            return new Tenant(Tenant.checkName(cn), false, false);
        } catch (IllegalArgumentException e) {
            throw new HttpError(
                    401,
                    "the client certificate's subject (" + subject + ") names no tenant: expected "
                            + "CN=NAME, NAME 1 to 64 letters, digits, '.', '_' or '-'");
        }
    }
}

package dev.polyhe.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** SSL contexts from PKCS12 files: the server's key and certificate, or the certificates a client trusts. */
public final class Tls {
    private Tls() {}

    /** The server side: a PKCS12 keystore holding the server's private key and certificate chain. */
    public static SSLContext server(Path keystore, char[] password) throws IOException {
        return server(keystore, password, null, null);
    }

    /**
     * The server side, verifying client certificates (mutual TLS) against the certificate authorities of a PKCS12
     * truststore.
     *
     * @param clientCa the client CA's truststore, or null: no client certificates
     */
    public static SSLContext server(Path keystore, char[] password, Path clientCa, char[] clientCaPassword)
            throws IOException {
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(keystore, password), password);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), clientCa == null ? null : trust(clientCa, clientCaPassword), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use " + keystore + " as the server's TLS keystore: " + e.getMessage(), e);
        }
    }

    /** The client side: trust the certificates of a PKCS12 truststore (a self-signed server's certificate). */
    public static SSLContext client(Path truststore, char[] password) throws IOException {
        return client(truststore, password, null, null);
    }

    /**
     * The client side: trust a truststore's certificates (null: the JDK's authorities), and present the key and
     * certificate of a PKCS12 keystore to a server that asks for one (mutual TLS).
     */
    public static SSLContext client(Path truststore, char[] password, Path keystore, char[] keystorePassword)
            throws IOException {
        try {
            KeyManagerFactory kmf = null;
            if (keystore != null) {
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(load(keystore, keystorePassword), keystorePassword);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(
                    kmf == null ? null : kmf.getKeyManagers(),
                    truststore == null ? null : trust(truststore, password),
                    null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException(
                    "cannot use " + (keystore != null ? keystore + " as a client keystore or " : "") + truststore
                            + " as a TLS truststore: " + e.getMessage(),
                    e);
        }
    }

    private static javax.net.ssl.TrustManager[] trust(Path truststore, char[] password)
            throws IOException, GeneralSecurityException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(load(truststore, password));
        return tmf.getTrustManagers();
    }

    private static KeyStore load(Path file, char[] password) throws IOException, GeneralSecurityException {
        if (!Files.isRegularFile(file)) {
            throw new java.nio.file.NoSuchFileException(file + " (expected a PKCS12 file)");
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password);
        } catch (IOException e) {
            throw new IOException(
                    "cannot read " + file + " as PKCS12 (wrong password or not a PKCS12 file): " + e.getMessage(), e);
        }
        return ks;
    }
}

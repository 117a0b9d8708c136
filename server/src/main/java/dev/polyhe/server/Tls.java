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
        try {
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(keystore, password), password);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use " + keystore + " as the server's TLS keystore: " + e.getMessage(), e);
        }
    }

    /** The client side: trust the certificates of a PKCS12 truststore (a self-signed server's certificate). */
    public static SSLContext client(Path truststore, char[] password) throws IOException {
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load(truststore, password));
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot use " + truststore + " as a TLS truststore: " + e.getMessage(), e);
        }
    }

    private static KeyStore load(Path file, char[] password) throws IOException, GeneralSecurityException {
        if (!Files.isRegularFile(file)) {
            throw new java.nio.file.NoSuchFileException(file + " (expected a PKCS12 file)");
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            ks.load(in, password);
        } catch (IOException e) {
            throw new IOException("cannot read " + file + " as PKCS12 (wrong password or not a PKCS12 file): "
                    + e.getMessage(), e);
        }
        return ks;
    }
}

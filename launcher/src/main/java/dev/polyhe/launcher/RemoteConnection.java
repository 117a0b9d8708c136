package dev.polyhe.launcher;

import dev.polyhe.server.RemoteClient;
import dev.polyhe.server.Tls;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** How {@code polyhe remote} reaches a server: its URL, the tenant's token, and the trust for its certificate. */
final class RemoteConnection {
    @Option(names = "--server", required = true, paramLabel = "URL", description = "http://HOST:PORT or https://...")
    String server;

    @Option(
            names = "--token",
            paramLabel = "TOKEN",
            description = "The tenant's bearer token (default: the environment variable POLYHE_TOKEN).")
    String token;

    @Option(
            names = "--truststore",
            paramLabel = "FILE.p12",
            description = "Trust the certificates of this PKCS12 file (a self-signed server's); its password from "
                    + "the environment variable POLYHE_TRUSTSTORE_PASSWORD, or none.")
    Path truststore;

    @Option(
            names = "--tls-client-keystore",
            paramLabel = "FILE.p12",
            description = "Present this PKCS12 keystore's key and certificate to a server that asks for one (mutual "
                    + "TLS; the certificate names the tenant); its password from the environment variable "
                    + "POLYHE_TLS_CLIENT_PASSWORD, or none.")
    Path clientKeystore;

    RemoteClient client() throws IOException {
        URI uri;
        try {
            uri = URI.create(server);
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException("--server " + server + " is not a URL: " + e.getMessage());
        }
        if (uri.getScheme() == null
                || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))) {
            throw new ErrorReport.InputException(
                    "--server " + server + ": expected http://HOST:PORT or " + "https://HOST:PORT");
        }
        String t = token != null ? token : System.getenv("POLYHE_TOKEN");
        String pw = System.getenv("POLYHE_TRUSTSTORE_PASSWORD");
        if (clientKeystore != null) {
            String kpw = System.getenv("POLYHE_TLS_CLIENT_PASSWORD");
            return new RemoteClient(
                    uri,
                    t,
                    Tls.client(
                            truststore,
                            pw == null ? new char[0] : pw.toCharArray(),
                            clientKeystore,
                            kpw == null ? new char[0] : kpw.toCharArray()));
        }
        return new RemoteClient(
                uri,
                t,
                truststore == null ? null : Tls.client(truststore, pw == null ? new char[0] : pw.toCharArray()));
    }
}

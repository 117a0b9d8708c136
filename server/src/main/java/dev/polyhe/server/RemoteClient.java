package dev.polyhe.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.net.ssl.SSLContext;

/** The client side of {@link PolyHeServer}: upload a key set's server half, submit a query, follow it, fetch it. */
public final class RemoteClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final URI base;
    private final String token;
    private final HttpClient http;

    /** Without a token, trusting the JDK's certificate authorities. */
    public RemoteClient(URI server) {
        this(server, null, null);
    }

    /**
     * @param token the tenant's bearer token, or null for a server without authentication
     * @param tls trust for an HTTPS server ({@link Tls#client}, a self-signed server's certificate), or null for the
     *     JDK's certificate authorities
     */
    public RemoteClient(URI server, String token, SSLContext tls) {
        String s = server.toString();
        this.base = URI.create(s.endsWith("/") ? s : s + "/");
        this.token = token == null || token.isBlank() ? null : token.trim();
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        if (tls != null) {
            b.sslContext(tls);
        }
        this.http = b.build();
    }

    /** A request to a path under the server's URL, with the tenant's token. */
    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    /** A server's refusal: its status and the message of its JSON body. */
    public static final class RemoteException extends IOException {
        private static final long serialVersionUID = 1L;
        private final int status;

        RemoteException(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    /**
     * Streams a zip of the server half (never the client half) to the server, unless the tenant has it stored
     * already. Asking first also brings a refusal (no token, a wrong one) as an answer rather than as a connection
     * the server closed under a multi-gigabyte upload.
     *
     * @return the server's answer: key_set, bytes, created
     */
    public JsonNode uploadKeys(Path serverHalf) throws IOException, InterruptedException {
        String id = PolyHeServer.keySetId(serverHalf);
        HttpResponse<InputStream> stored =
                http.send(request("v1/keys/" + id).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (stored.statusCode() == 200) {
            stored.body().close();
            long bytes = 0;
            for (String f : KeyStore.SERVER_FILES) {
                bytes += Files.size(serverHalf.resolve(f));
            }
            return JSON.createObjectNode()
                    .put("key_set", id)
                    .put("bytes", bytes)
                    .put("created", false);
        }
        if (stored.statusCode() != 404) {
            json(stored);
        }
        stored.body().close();
        HttpRequest req = request("v1/keys")
                .header("X-Key-Set-Id", id)
                .PUT(zipOf(serverHalf, KeyStore.SERVER_FILES))
                .build();
        return json(http.send(req, HttpResponse.BodyHandlers.ofInputStream()));
    }

    /**
     * Streams a zip of an encrypted model folder ({@code polyhe encrypt-model}'s) to the server for the key set
     * {@code keySet} (uploaded before), unless the tenant has it stored already.
     *
     * @return the server's answer: model (its id), key_set, bytes, created
     */
    public JsonNode uploadModel(Path encryptedModel, String keySet) throws IOException, InterruptedException {
        String id = KeyStore.contentId(encryptedModel, ModelStore.FILES);
        HttpResponse<InputStream> stored =
                http.send(request("v1/models/" + id).GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (stored.statusCode() == 200) {
            stored.body().close();
            long bytes = 0;
            for (String f : ModelStore.FILES) {
                bytes += Files.size(encryptedModel.resolve(f));
            }
            return JSON.createObjectNode()
                    .put("model", id)
                    .put("key_set", keySet)
                    .put("bytes", bytes)
                    .put("created", false);
        }
        if (stored.statusCode() != 404) {
            json(stored);
        }
        stored.body().close();
        HttpRequest req = request("v1/models?key_set=" + URLEncoder.encode(keySet, StandardCharsets.UTF_8))
                .header("X-Model-Id", id)
                .PUT(zipOf(encryptedModel, ModelStore.FILES))
                .build();
        return json(http.send(req, HttpResponse.BodyHandlers.ofInputStream()));
    }

    /** Deletes one of the tenant's encrypted models. */
    public JsonNode deleteModel(String id) throws IOException, InterruptedException {
        return json(http.send(
                request("v1/models/" + URLEncoder.encode(id, StandardCharsets.UTF_8))
                        .DELETE()
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream()));
    }

    /** The served models and the tenant's encrypted models. */
    public JsonNode models() throws IOException, InterruptedException {
        return json(http.send(request("v1/models").GET().build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    /**
     * A zip of {@code files} of {@code dir}, written by a thread of its own as the request reads it, the small files
     * first (the server checks them before the large ones arrive).
     */
    private static HttpRequest.BodyPublisher zipOf(Path dir, java.util.List<String> files) throws IOException {
        PipedInputStream in = new PipedInputStream(1 << 16);
        PipedOutputStream pipe = new PipedOutputStream(in);
        Thread zipper = new Thread(
                () -> {
                    try (ZipOutputStream zip = new ZipOutputStream(pipe)) {
                        // key material and ciphertexts are uniform modulo their primes: deflate saves ~4 % at
                        // ~30 MB/s of a core, minutes for gigabytes; and the server refuses entries that expand far
                        // beyond what carried them, which a magnitude checkpoint's repeated values would
                        zip.setLevel(Deflater.NO_COMPRESSION);
                        for (String f : files) {
                            zip.putNextEntry(new ZipEntry(f));
                            Files.copy(dir.resolve(f), zip);
                            zip.closeEntry();
                        }
                    } catch (IOException e) {
                        // the request ends with what was sent; the server refuses a truncated zip
                    }
                },
                "polyhe-upload");
        zipper.setDaemon(true);
        zipper.start();
        return HttpRequest.BodyPublishers.ofInputStream(() -> in);
    }

    /** Submits an encrypted query file; the answer holds job_id. */
    public JsonNode submit(String model, String keySet, Path query) throws IOException, InterruptedException {
        String path = "v1/jobs?model=" + URLEncoder.encode(model, StandardCharsets.UTF_8) + "&key_set="
                + URLEncoder.encode(keySet, StandardCharsets.UTF_8);
        return json(http.send(
                request(path).POST(HttpRequest.BodyPublishers.ofFile(query)).build(),
                HttpResponse.BodyHandlers.ofInputStream()));
    }

    public JsonNode status(String job) throws IOException, InterruptedException {
        return json(http.send(request("v1/jobs/" + job).GET().build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    public JsonNode cancel(String job) throws IOException, InterruptedException {
        return json(http.send(request("v1/jobs/" + job).DELETE().build(), HttpResponse.BodyHandlers.ofInputStream()));
    }

    /** Follows the job's server-sent events until it ends; returns its last status. */
    public JsonNode follow(String job, Consumer<JsonNode> onStatus) throws IOException, InterruptedException {
        HttpResponse<InputStream> r = http.send(
                request("v1/jobs/" + job + "/events").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            json(r);
        }
        JsonNode last = null;
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.startsWith("data: ")) {
                    last = JSON.readTree(line.substring(6));
                    onStatus.accept(last);
                }
            }
        }
        return last != null ? last : status(job);
    }

    /** Writes a finished job's encrypted result to a file. */
    public void result(String job, Path file) throws IOException, InterruptedException {
        HttpResponse<InputStream> r = http.send(
                request("v1/jobs/" + job + "/result").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            json(r);
        }
        try (InputStream in = r.body();
                OutputStream out = Files.newOutputStream(file)) {
            in.transferTo(out);
        }
    }

    /** A served model's calibration file, written to {@code file}. */
    public void calibration(String model, Path file) throws IOException, InterruptedException {
        HttpResponse<InputStream> r = http.send(
                request(("v1/models/" + URLEncoder.encode(model, StandardCharsets.UTF_8) + "/calibration"))
                        .GET()
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
        if (r.statusCode() != 200) {
            json(r);
        }
        try (InputStream in = r.body()) {
            Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static JsonNode json(HttpResponse<InputStream> r) throws IOException {
        JsonNode n;
        try (InputStream in = r.body()) {
            n = JSON.readTree(in);
        } catch (IOException | UncheckedIOException e) {
            throw new RemoteException(r.statusCode(), "the server answered " + r.statusCode() + " without JSON");
        }
        if (r.statusCode() >= 400) {
            throw new RemoteException(
                    r.statusCode(),
                    n != null && n.has("error") ? n.get("error").asText() : "the server answered " + r.statusCode());
        }
        return n;
    }
}

package dev.polyhe.launcher;

import static dev.polyhe.launcher.LauncherTest.polyhe;
import static dev.polyhe.launcher.ServedModel.JSON;
import static dev.polyhe.launcher.ServedModel.error;
import static dev.polyhe.launcher.ServedModel.get;
import static dev.polyhe.launcher.ServedModel.send;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.polyhe.core.PolyHe;
import dev.polyhe.server.PolyHeServer;
import dev.polyhe.server.RemoteClient;
import dev.polyhe.server.Tls;
import dev.polyhe.server.TokenFile;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code polyhe serve} and {@code polyhe remote} on a network (issue 44), on loopback ports only: the refusal to serve
 * a network unprotected, at the server and on the command line; the token commands; tenants, each blind to the
 * others' key sets and jobs, through the client; TLS and mutual TLS; errors in words; the storage options checked
 * before serving. (What the server does against slow clients, bad uploads and over quota, and its audit log, is the
 * server's ServeSecurityTest.)
 */
class ServeCommandTest {
    private static final String KEYSET = "keyset.properties";

    @TempDir
    static Path dir;

    static Path model;
    static Path keys;
    static Path tokens;
    static String alice;
    static String bob;
    static String ops;
    static PolyHe polyhe;

    @BeforeAll
    static void prepare() throws Exception {
        ServedModel served = ServedModel.shared();
        model = served.model();
        keys = served.keys();
        Files.writeString(dir.resolve("in.json"), "{\"input_ids\": [[3, 8, 1]]}");
        tokens = dir.resolve("tokens");
        var add = polyhe("serve", "token", "add", "--tokens", tokens.toString(), "--tenant", "alice");
        assertEquals(0, add.code(), add.err());
        alice = add.out().strip();
        bob = TokenFile.add(tokens, "bob", false);
        ops = TokenFile.add(tokens, "ops", true);
        polyhe = PolyHe.builder().threads(1).build();
    }

    @AfterAll
    static void close() {
        polyhe.close();
    }

    private static PolyHeServer.Settings settings(Path store, int workers, int queue) {
        return new PolyHeServer.Settings(
                0, List.of(model), store, workers, queue, 1L << 30, 256L << 20, 64L << 20, true, 0);
    }

    private static PolyHeServer.Network tenants(int maxKeySets) {
        return new PolyHeServer.Network("127.0.0.1", tokens, false, null, false, 256, 64, 16, maxKeySets, 8);
    }

    /** A zip of the server half with some files replaced ({@code name -> bytes}). */
    private static byte[] zip(Map<String, byte[]> replaced) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(b)) {
            z.setLevel(Deflater.NO_COMPRESSION); // as RemoteClient uploads them
            for (String f : List.of(KEYSET, "parameters.json", "evaluation.keys")) {
                z.putNextEntry(new ZipEntry(f));
                if (replaced.containsKey(f)) {
                    z.write(replaced.get(f));
                } else {
                    Files.copy(keys.resolve("server").resolve(f), z);
                }
            }
        }
        return b.toByteArray();
    }

    private static HttpResponse<String> upload(String url, String token, byte[] zip) throws Exception {
        return send(url + "/v1/keys", token, HttpRequest.newBuilder().PUT(HttpRequest.BodyPublishers.ofByteArray(zip)));
    }

    private static byte[] query() throws Exception {
        Path ct = dir.resolve("q.ct");
        if (!Files.exists(ct)) {
            new DeployedCommands(model, model.resolve("calibration.json"), keys).encrypt(dir.resolve("in.json"), ct);
        }
        return Files.readAllBytes(ct);
    }

    private static HttpResponse<String> submit(String url, String token, String keySet) throws Exception {
        return send(
                url + "/v1/jobs?model=tiny&key_set=" + keySet,
                token,
                HttpRequest.newBuilder().POST(HttpRequest.BodyPublishers.ofByteArray(query())));
    }

    private static String keySetId() throws Exception {
        return PolyHeServer.keySetId(keys.resolve("server"));
    }

    private static java.security.cert.X509Certificate pem(Path file) throws Exception {
        try (var in = Files.newInputStream(file)) {
            return (java.security.cert.X509Certificate)
                    java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    private static void keytool(String... args) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool ran too long");
        assertEquals(0, p.exitValue(), out);
    }

    // 1. binding and refusal

    @Test
    void aServerOnANetworkAddressWithoutTlsAndTokensRefusesToStart() throws Exception {
        var open = new PolyHeServer.Network("0.0.0.0", null, true, null, false, 256, 64, 16, 16, 8);
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> PolyHeServer.start(polyhe, settings(dir.resolve("open-store"), 1, 1), open));
        assertTrue(
                e.getMessage().contains("refusing to serve on 0.0.0.0 without TLS and authentication")
                        && e.getMessage().contains("--insecure-network"),
                e.getMessage());
        var tokensOnly = new PolyHeServer.Network("0.0.0.0", tokens, false, null, false, 256, 64, 16, 16, 8);
        e = assertThrows(
                IllegalArgumentException.class,
                () -> PolyHeServer.start(polyhe, settings(dir.resolve("open-store"), 1, 1), tokensOnly));
        assertTrue(e.getMessage().contains("without TLS:"), e.getMessage());

        // the command line: one line, exit 2, before anything is served
        var cli = polyhe(
                "serve",
                "--bind",
                "0.0.0.0",
                "--no-auth",
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, cli.code(), cli.err());
        assertTrue(cli.err().contains("refusing to serve on 0.0.0.0"), cli.err());
        assertEquals(1, cli.err().strip().lines().count(), cli.err());

        // neither --tokens nor --no-auth: the error names both
        var neither = polyhe(
                "serve",
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, neither.code(), neither.err());
        assertTrue(neither.err().contains("--tokens FILE") && neither.err().contains("--no-auth"), neither.err());

        // a TLS keystore without its password: named, never asked on the command line
        var noPassword = polyhe(
                "serve",
                "--no-auth",
                "--tls-keystore",
                dir.resolve("none.p12").toString(),
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, noPassword.code(), noPassword.err());
        assertTrue(noPassword.err().contains("POLYHE_TLS_PASSWORD"), noPassword.err());

        // the server's choice of backend: one that does not exist, or cannot run here, is refused before serving
        var unknown = polyhe(
                "serve",
                "--no-auth",
                "--backend",
                "no-such-backend",
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, unknown.code(), unknown.err());
        assertTrue(unknown.err().contains("no-such-backend"), unknown.err());
        boolean cudaHere;
        try {
            polyhe.backend("ckks-cuda");
            cudaHere = true;
        } catch (RuntimeException unavailable) {
            cudaHere = false; // no GPU, driver or binding here: the registry says which
        }
        if (!cudaHere) {
            var cuda = polyhe(
                    "serve",
                    "--no-auth",
                    "--backend",
                    "ckks-cuda",
                    "--models",
                    model.toString(),
                    "--store",
                    dir.resolve("cli-store").toString());
            assertEquals(2, cuda.code(), cuda.err());
            assertTrue(cuda.err().contains("'ckks-cuda' is not available here"), cuda.err());
        }
    }

    // 2. tenants

    @Test
    void tokenCommandsKeepHashesOnlyAndRevokeStopsATokenAtOnce() throws Exception {
        Path file = dir.resolve("own-tokens");
        var add = polyhe("serve", "token", "add", "--tokens", file.toString(), "--tenant", "carol", "--admin");
        assertEquals(0, add.code(), add.err());
        String token = add.out().strip();
        assertTrue(token.length() > 30, token);
        assertFalse(Files.readString(file).contains(token), "the file keeps the token's hash, never the token");
        var list = polyhe("serve", "token", "list", "--tokens", file.toString());
        assertTrue(
                list.out().contains("carol")
                        && list.out().contains("admin")
                        && !list.out().contains(token),
                list.out());
        var bad = polyhe("serve", "token", "add", "--tokens", file.toString(), "--tenant", "../etc");
        assertEquals(2, bad.code(), bad.err());

        try (PolyHeServer s = PolyHeServer.start(
                polyhe, settings(dir.resolve("revoke-store"), 1, 1), PolyHeServer.Network.loopbackTenants(file))) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(200, get(url + "/v1/models", token).statusCode());
            var revoke = polyhe("serve", "token", "revoke", "--tokens", file.toString(), "--tenant", "carol");
            assertEquals(0, revoke.code(), revoke.err());
            error(get(url + "/v1/models", token), 401);
        }
    }

    @Test
    void tenantsSeeOnlyTheirOwnKeySetsAndJobs() throws Exception {
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(dir.resolve("tenant-store"), 1, 4), tenants(16))) {
            String url = "http://127.0.0.1:" + s.port();
            String id = keySetId();
            // no token, a wrong token: 401; health needs none
            assertEquals(200, get(url + "/v1/health", null).statusCode());
            var none = get(url + "/v1/models", null);
            error(none, 401);
            assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
            error(get(url + "/v1/models", "phe_not-a-token"), 401);
            error(get(url + "/v1/keys/" + id, null), 401);

            // alice uploads through the client with her token
            var up = polyhe("remote", "keys", "upload", "--server", url, "--token", alice, "--keys", keys.toString());
            assertEquals(0, up.code(), up.err());
            var anonymous = polyhe("remote", "keys", "upload", "--server", url, "--keys", keys.toString());
            assertEquals(2, anonymous.code());
            assertTrue(anonymous.err().contains("401") && anonymous.err().contains("--token"), anonymous.err());
            var again =
                    polyhe("remote", "keys", "upload", "--server", url, "--token", alice, "--keys", keys.toString());
            assertTrue(again.out().contains("already stored"), "asked before sending it again: " + again.out());

            // bob cannot learn that alice's key set exists, nor use it
            assertEquals(200, get(url + "/v1/keys/" + id, alice).statusCode());
            var probe = get(url + "/v1/keys/" + id, bob);
            var unknown = get(url + "/v1/keys/" + "e".repeat(64), bob);
            assertEquals(
                    error(unknown, 404).get("error").asText().replace("e".repeat(64), id),
                    error(probe, 404).get("error").asText(),
                    "a stored key set and a missing one answer alike");
            error(submit(url, bob, id), 404);
            error(send(url + "/v1/keys/" + id, bob, HttpRequest.newBuilder().DELETE()), 404);
            assertEquals(200, get(url + "/v1/keys/" + id, alice).statusCode(), "bob's delete left alice's key set");

            // alice's job: bob gets 404 for its status, events, result and cancel, and it is not cancelled
            var submitted = submit(url, alice, id);
            assertEquals(202, submitted.statusCode(), submitted.body());
            String job = JSON.readTree(submitted.body()).get("job_id").asText();
            for (String path : List.of("", "/events", "/result")) {
                error(get(url + "/v1/jobs/" + job + path, bob), 404);
            }
            error(send(url + "/v1/jobs/" + job, bob, HttpRequest.newBuilder().DELETE()), 404);
            String state = JSON.readTree(get(url + "/v1/jobs/" + job, alice).body())
                    .get("state")
                    .asText();
            assertFalse(state.equals("cancelled"), "bob's cancel did nothing: " + state);

            // the same key set uploaded by bob is his too (created, from his view); his delete leaves alice's
            var bobs = upload(url, bob, zip(Map.of()));
            assertEquals(201, bobs.statusCode(), bobs.body());
            assertTrue(JSON.readTree(bobs.body()).get("created").asBoolean());
            assertEquals(200, get(url + "/v1/keys/" + id, bob).statusCode());
            assertEquals(
                    200,
                    send(url + "/v1/keys/" + id, bob, HttpRequest.newBuilder().DELETE())
                            .statusCode());
            error(get(url + "/v1/keys/" + id, bob), 404);
            assertEquals(200, get(url + "/v1/keys/" + id, alice).statusCode());

            // /metrics: an admin's
            error(get(url + "/metrics", null), 401);
            error(get(url + "/metrics", alice), 403);
            var metrics = get(url + "/metrics", ops);
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("polyhe_jobs_running"), metrics.body());

            assertEquals(
                    200,
                    send(
                                    url + "/v1/jobs/" + job,
                                    alice,
                                    HttpRequest.newBuilder().DELETE())
                            .statusCode());
        }
    }

    // 3. TLS

    @Test
    void overTlsRemoteInferChecksOutWithASelfSignedCertificate() throws Exception {
        Path serverStore = dir.resolve("server.p12");
        keytool(
                "-genkeypair",
                "-alias",
                "polyhe",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=localhost",
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1",
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                serverStore.toString(),
                "-storepass",
                "server-secret",
                "-keypass",
                "server-secret");
        // the client's truststore: the server's certificate, no password (POLYHE_TRUSTSTORE_PASSWORD unset)
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(serverStore)) {
            server.load(in, "server-secret".toCharArray());
        }
        Certificate cert = server.getCertificate("polyhe");
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("polyhe", cert);
        Path trustStore = dir.resolve("trust.p12");
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            trust.store(out, new char[0]);
        }
        Path password = dir.resolve("tls-password");
        Files.writeString(password, "server-secret\n");
        var tls = Tls.server(serverStore, Files.readString(password).strip().toCharArray());
        var network = new PolyHeServer.Network("127.0.0.1", tokens, false, tls, false, 256, 64, 16, 16, 8);
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(dir.resolve("tls-store"), 1, 2), network)) {
            String url = "https://localhost:" + s.port();
            var client = new RemoteClient(URI.create(url), alice, Tls.client(trustStore, new char[0]));
            var answer = client.uploadKeys(keys.resolve("server"));
            assertEquals(keySetId(), answer.get("key_set").asText());

            // a client that does not trust the certificate, and one speaking plain HTTP, get nothing
            var untrusting = new RemoteClient(URI.create(url), alice, null);
            assertThrows(java.io.IOException.class, () -> untrusting.status("x"));
            var plain = new RemoteClient(URI.create("http://localhost:" + s.port()), alice, null);
            assertThrows(java.io.IOException.class, () -> plain.status("x"));

            var infer = polyhe(
                    "remote",
                    "infer",
                    "--server",
                    url,
                    "--token",
                    alice,
                    "--truststore",
                    trustStore.toString(),
                    "--model",
                    "tiny",
                    "--checkpoint",
                    model.toString(),
                    "--keys",
                    keys.toString(),
                    "--input",
                    dir.resolve("in.json").toString(),
                    "--output",
                    dir.resolve("tls-out.json").toString(),
                    "--check");
            assertEquals(0, infer.code(), infer.err());
            JsonNode out = JSON.readTree(dir.resolve("tls-out.json").toFile());
            assertTrue(out.get("error_vs_poly").get("same_prediction").asBoolean(), out.toString());
        }
    }

    @Test
    void underMutualTlsAClientCertificateIsItsTenantAndATokenStillWorks() throws Exception {
        Path d = Files.createDirectories(dir.resolve("mtls"));
        String ec = "-keyalg EC -groupname secp256r1 -validity 2 -storetype PKCS12";
        // the operator's client CA, and carol's key with a certificate it signed (her keystore: key and chain, no
        // password, as 'polyhe remote --tls-client-keystore' reads it without POLYHE_TLS_CLIENT_PASSWORD)
        keytool((("-genkeypair -alias ca -dname CN=polyhe-test-ca -ext bc:c " + ec + " -keystore " + d.resolve("ca.p12")
                        + " -storepass ca-secret -keypass ca-secret"))
                .split(" "));
        keytool(("-genkeypair -alias carol -dname CN=carol " + ec + " -keystore " + d.resolve("carol-key.p12")
                        + " -storepass carol-secret -keypass carol-secret")
                .split(" "));
        keytool(("-certreq -alias carol -keystore " + d.resolve("carol-key.p12") + " -storepass carol-secret -file "
                        + d.resolve("carol.csr"))
                .split(" "));
        keytool(("-gencert -alias ca -keystore " + d.resolve("ca.p12") + " -storepass ca-secret -infile "
                        + d.resolve("carol.csr") + " -outfile " + d.resolve("carol.pem") + " -rfc")
                .split(" "));
        keytool(("-genkeypair -alias polyhe -dname CN=localhost -ext SAN=dns:localhost,ip:127.0.0.1 " + ec
                        + " -keystore " + d.resolve("server.p12") + " -storepass server-secret -keypass server-secret")
                .split(" "));
        KeyStore ca = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(d.resolve("ca.p12"))) {
            ca.load(in, "ca-secret".toCharArray());
        }
        Certificate caCert = ca.getCertificate("ca");
        KeyStore carolKey = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(d.resolve("carol-key.p12"))) {
            carolKey.load(in, "carol-secret".toCharArray());
        }
        KeyStore carol = KeyStore.getInstance("PKCS12");
        carol.load(null, null);
        carol.setKeyEntry(
                "carol", carolKey.getKey("carol", "carol-secret".toCharArray()), new char[0], new Certificate[] {
                    pem(d.resolve("carol.pem")), caCert
                });
        Path carolStore = d.resolve("carol.p12");
        try (OutputStream out = Files.newOutputStream(carolStore)) {
            carol.store(out, new char[0]);
        }
        KeyStore clientCa = KeyStore.getInstance("PKCS12");
        clientCa.load(null, null);
        clientCa.setCertificateEntry("ca", caCert);
        Path clientCaStore = d.resolve("client-ca.p12");
        try (OutputStream out = Files.newOutputStream(clientCaStore)) {
            clientCa.store(out, new char[0]);
        }
        KeyStore server = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(d.resolve("server.p12"))) {
            server.load(in, "server-secret".toCharArray());
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("polyhe", server.getCertificate("polyhe"));
        Path trustStore = d.resolve("trust.p12");
        try (OutputStream out = Files.newOutputStream(trustStore)) {
            trust.store(out, new char[0]);
        }

        var tls = Tls.server(d.resolve("server.p12"), "server-secret".toCharArray(), clientCaStore, new char[0]);
        var network = new PolyHeServer.Network("127.0.0.1", tokens, false, tls, false, 256, 64, 16, 16, 8)
                .withClientCertificates();
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(dir.resolve("mtls-store"), 1, 2), network)) {
            String url = "https://localhost:" + s.port();
            // carol: her certificate, no token; through the command line, then the client
            var up = polyhe(
                    "remote",
                    "keys",
                    "upload",
                    "--server",
                    url,
                    "--truststore",
                    trustStore.toString(),
                    "--tls-client-keystore",
                    carolStore.toString(),
                    "--keys",
                    keys.toString());
            assertEquals(0, up.code(), up.err());
            var asCarol = new RemoteClient(
                    URI.create(url), null, Tls.client(trustStore, new char[0], carolStore, new char[0]));
            assertEquals(
                    keySetId(),
                    asCarol.uploadKeys(keys.resolve("server")).get("key_set").asText());
            assertTrue(
                    Files.exists(dir.resolve("mtls-store/owners/carol").resolve(keySetId())), "the key set is carol's");
            // alice, with her token and no certificate: still alice, and carol's key set is not hers
            var asAlice = new RemoteClient(URI.create(url), alice, Tls.client(trustStore, new char[0]));
            var e = assertThrows(RemoteClient.RemoteException.class, () -> asAlice.status("no-such-job"));
            assertEquals(404, e.status());
            assertFalse(Files.exists(dir.resolve("mtls-store/owners/alice")), "nothing of alice's");
            // neither a certificate nor a token: 401 naming both ways in
            var nobody = new RemoteClient(URI.create(url), null, Tls.client(trustStore, new char[0]));
            var none = assertThrows(RemoteClient.RemoteException.class, () -> nobody.status("no-such-job"));
            assertEquals(401, none.status());
            assertTrue(
                    none.getMessage().contains("a client certificate from its operator's client CA")
                            && none.getMessage().contains("Bearer"),
                    none.getMessage());
            // carol's key with its own self-signed certificate, not the CA's: it names no one (the JDK's client
            // does not even offer it, the server having named the CAs it takes)
            var forged = new RemoteClient(
                    URI.create(url),
                    null,
                    Tls.client(trustStore, new char[0], d.resolve("carol-key.p12"), "carol-secret".toCharArray()));
            var refused = assertThrows(java.io.IOException.class, () -> forged.uploadKeys(keys.resolve("server")));
            if (refused instanceof RemoteClient.RemoteException r) {
                assertEquals(401, r.status(), r.getMessage());
            }
        }
        // a client CA without TLS, or beside --no-auth: refused before serving
        var cli = polyhe(
                "serve",
                "--tokens",
                tokens.toString(),
                "--tls-client-ca",
                clientCaStore.toString(),
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, cli.code(), cli.err());
        assertTrue(cli.err().contains("--tls-client-ca needs --tls-keystore"), cli.err());
    }

    // 4. errors, and options checked before serving

    @Test
    void errorsNameWhatIsWrongInWordsAndNeverTheStoresPath() throws Exception {
        int closed;
        try (ServerSocket free = new ServerSocket(0)) {
            closed = free.getLocalPort();
        }
        var refused =
                polyhe("remote", "keys", "upload", "--server", "http://127.0.0.1:" + closed, "--keys", keys.toString());
        assertEquals(2, refused.code(), refused.err());
        assertTrue(
                refused.err().contains("connection refused") && !refused.err().contains("null"), refused.err());

        var missing = polyhe(
                "remote",
                "keys",
                "upload",
                "--server",
                "http://127.0.0.1:" + closed,
                "--keys",
                dir.resolve("no-such-keys").toString());
        assertEquals(2, missing.code(), missing.err());
        assertTrue(missing.err().contains("does not exist"), missing.err());
        Path partial = Files.createDirectories(dir.resolve("partial-keys/server"));
        Files.copy(keys.resolve("server").resolve(KEYSET), partial.resolve(KEYSET));
        Files.copy(keys.resolve("server").resolve("parameters.json"), partial.resolve("parameters.json"));
        var incomplete = polyhe(
                "remote",
                "keys",
                "upload",
                "--server",
                "http://127.0.0.1:" + closed,
                "--keys",
                dir.resolve("partial-keys").toString());
        assertTrue(incomplete.err().contains("has no evaluation.keys"), incomplete.err());

        // a stored key set broken on the server's disk: the query's refusal does not show where the store is
        Path store = dir.resolve("paths-store");
        try (PolyHeServer s = PolyHeServer.start(polyhe, settings(store, 1, 1))) {
            String url = "http://127.0.0.1:" + s.port();
            assertEquals(201, upload(url, null, zip(Map.of())).statusCode());
            Path stored = store.resolve("keys").resolve(keySetId());
            // parameters.json gone: the query is accepted (its header fits keyset.properties), the job fails in
            // the worker with the missing file's path, which its status does not show
            Files.delete(stored.resolve("parameters.json"));
            var accepted = submit(url, null, keySetId());
            assertEquals(202, accepted.statusCode(), accepted.body());
            String job = JSON.readTree(accepted.body()).get("job_id").asText();
            JsonNode status = JSON.readTree(get(url + "/v1/jobs/" + job, null).body());
            for (int i = 0; i < 300 && !status.get("state").asText().equals("failed"); i++) {
                Thread.sleep(100);
                status = JSON.readTree(get(url + "/v1/jobs/" + job, null).body());
            }
            assertEquals("failed", status.get("state").asText(), status.toString());
            assertTrue(status.get("error").asText().contains("STORE"), status.toString());
            assertFalse(status.toString().contains(store.toAbsolutePath().toString()), status.toString());

            Files.delete(stored.resolve(KEYSET));
            var r = submit(url, null, keySetId());
            assertTrue(r.statusCode() >= 400, r.body());
            assertFalse(r.body().contains(store.toAbsolutePath().toString()), r.body());
        }
    }

    /** The storage options of {@code polyhe serve} (issue 44; the storage itself is the server's ServeStorageTest). */
    @Test
    void jobTtlAndDiskHighWaterOnTheCommandLineAreCheckedBeforeServing() throws Exception {
        var bad = polyhe(
                "serve",
                "--no-auth",
                "--job-ttl",
                "tomorrow",
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, bad.code(), bad.err());
        assertTrue(
                bad.err().contains("'tomorrow' is not a span of time")
                        && bad.err().contains("24h"),
                bad.err());
        var zero = polyhe(
                "serve",
                "--no-auth",
                "--job-ttl",
                "0s",
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, zero.code(), zero.err());
        assertTrue(zero.err().contains("--job-ttl needs at least 1 ms"), zero.err());
        var help = polyhe("serve", "--help");
        assertTrue(help.out().contains("--job-ttl") && help.out().contains("default: 24h"), help.out());
        var water = polyhe(
                "serve",
                "--no-auth",
                "--disk-high-water",
                "2.5",
                "--models",
                model.toString(),
                "--store",
                dir.resolve("cli-store").toString());
        assertEquals(2, water.code(), water.err());
        assertTrue(water.err().contains("--disk-high-water '2.5' is neither a fraction"), water.err());
        assertTrue(
                help.out().contains("--max-tenant-bytes")
                        && help.out().contains("--max-results-per-tenant")
                        && help.out().contains("--admin-port"),
                help.out());
        assertFalse(Files.exists(dir.resolve("cli-store").resolve("jobs")), "nothing served");
    }
}

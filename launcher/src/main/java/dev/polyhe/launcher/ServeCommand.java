package dev.polyhe.launcher;

import dev.polyhe.core.PolyHe;
import dev.polyhe.server.DiskHighWater;
import dev.polyhe.server.PolyHeServer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code polyhe serve}: private inference over HTTP until stopped (Ctrl-C or SIGTERM). */
@Command(
        name = "serve",
        mixinStandardHelpOptions = true,
        subcommands = TokenCommand.class,
        description = {
            "Serve private inference over HTTP: clients upload their key set's server half once "
                    + "('polyhe remote keys upload') and submit encrypted queries ('polyhe remote infer'). Each model "
                    + "folder holds a checkpoint (its attention: the one config.json declares as polyhe_attention, "
                    + "else softmax, approximated) and calibration.json. "
                    + "Choose --tokens FILE (tenants, 'polyhe serve token add'), --tls-client-ca FILE.p12 (tenants by "
                    + "client certificate) or --no-auth (a loopback demo). "
                    + "Endpoints and security: see docs/serving.md."
        })
final class ServeCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--port", defaultValue = "8080", description = "Port (default: ${DEFAULT-VALUE}; 0: any free).")
    int port;

    // --models and --store are checked in call(), not by picocli: 'serve token ...' needs neither
    @Option(
            names = "--models",
            arity = "1..*",
            paramLabel = "DIR",
            description = "Checkpoint folders to serve; a model's name is its folder's name (required).")
    List<Path> models;

    @Option(
            names = "--store",
            paramLabel = "DIR",
            description = "Where key sets, queries and results are kept (they survive a restart).")
    Path store;

    @Option(
            names = "--workers",
            defaultValue = "1",
            description = "Jobs evaluated at once (default: ${DEFAULT-VALUE}; each uses every core of the backend).")
    int workers;

    @Option(
            names = "--max-queue",
            defaultValue = "16",
            description = "Jobs waiting at most; beyond, 503 with Retry-After (default: ${DEFAULT-VALUE}).")
    int maxQueue;

    @Option(
            names = "--memory-budget",
            paramLabel = "BYTES",
            description =
                    "Bytes of evaluation keys held at once, least recently used out (default: 60 %% of the " + "heap).")
    Long memoryBudget;

    @Option(
            names = "--weight-cache",
            paramLabel = "BYTES",
            description = "Bytes of encoded weight diagonals each served model keeps per key set, so that warm queries "
                    + "skip encoding them; 0: none (default: 10 %% of the heap, or a quarter of the GPU's memory on "
                    + "ckks-cuda, where they live on the device).")
    Long weightCache;

    @Option(
            names = "--max-upload",
            defaultValue = "17179869184",
            paramLabel = "BYTES",
            description = "Largest key upload (default: 16 GiB).")
    long maxUpload;

    @Option(names = "--insecure-test", description = "Accept key sets below 128-bit security (tests only).")
    boolean insecure;

    @Option(
            names = "--backend",
            paramLabel = "NAME",
            description = "HE backend every job evaluates on, e.g. "
                    + "ckks-cuda (default: the one each key set names; any backend of its data format reads it).")
    String backend;

    @Option(
            names = "--bind",
            defaultValue = "127.0.0.1",
            paramLabel = "ADDRESS",
            description = "Address to listen on (default: ${DEFAULT-VALUE}, this machine only; 0.0.0.0: every "
                    + "interface, which needs --tls-keystore and --tokens or --insecure-network).")
    String bind;

    @Option(
            names = "--tokens",
            paramLabel = "FILE",
            description = "Tenants' bearer tokens, hashed ('polyhe serve token add'); every request but "
                    + "/v1/health needs one.")
    Path tokens;

    @Option(
            names = "--no-auth",
            description = "No authentication: one party that may use everything (a loopback " + "demo).")
    boolean noAuth;

    @Option(
            names = "--tls-keystore",
            paramLabel = "FILE.p12",
            description = "Serve HTTPS with this PKCS12 keystore (the server's key and certificate); its password "
                    + "from --tls-password-file or the environment variable POLYHE_TLS_PASSWORD.")
    Path tlsKeystore;

    @Option(
            names = "--tls-password-file",
            paramLabel = "FILE",
            description = "A file holding the keystore's password (its first line).")
    Path tlsPasswordFile;

    @Option(
            names = "--tls-client-ca",
            paramLabel = "FILE.p12",
            description = "Mutual TLS: ask clients for a certificate and verify it against the certificate "
                    + "authorities of this PKCS12 truststore; the certificate's CN is the tenant (a client without "
                    + "one may use a token). Its password from POLYHE_TLS_CLIENT_CA_PASSWORD, or none.")
    Path tlsClientCa;

    @Option(
            names = "--insecure-network",
            description = "Serve a non-loopback address without TLS or "
                    + "authentication all the same (anyone on the network can read and alter queries and results).")
    boolean insecureNetwork;

    @Option(
            names = "--admin-port",
            paramLabel = "PORT",
            description = "Also serve /metrics and /admin (tenants, key sets, jobs, bytes) on this port of the "
                    + "loopback interface, without a token (default: none; the public port asks an admin token).")
    Integer adminPort;

    @Option(
            names = "--max-connections",
            defaultValue = "256",
            description = "Request bodies read at once (threads: one is held while a body flows, never by an idle or "
                    + "stalled peer); beyond, they wait (default: ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(
            names = "--max-connections-per-address",
            defaultValue = "64",
            description = "Connections open at once from one client address; beyond, a new one is refused at once "
                    + "(default: ${DEFAULT-VALUE}).")
    int maxConnectionsPerAddress;

    @Option(
            names = "--idle-timeout",
            defaultValue = "30s",
            paramLabel = "SPAN",
            converter = TimeSpan.class,
            description = "A connection with nothing to read or write for this long is closed (default: "
                    + "${DEFAULT-VALUE}; units ms, s, m, h, d).")
    java.time.Duration idleTimeout;

    @Option(
            names = "--header-timeout",
            defaultValue = "10s",
            paramLabel = "SPAN",
            converter = TimeSpan.class,
            description = "A request's line and headers must come within this once they begin, or the connection is "
                    + "closed (default: ${DEFAULT-VALUE}).")
    java.time.Duration headerTimeout;

    @Option(
            names = "--min-body-rate",
            defaultValue = "1024",
            paramLabel = "BYTES",
            description = "Bytes a second a request's body must keep on average after its first 5 s; slower, 408 and "
                    + "the connection closed (default: ${DEFAULT-VALUE}).")
    long minBodyRate;

    @Option(
            names = "--max-event-streams",
            defaultValue = "64",
            description = "Event streams open at once in all; beyond, 429 (default: ${DEFAULT-VALUE}).")
    int maxEventStreams;

    @Option(
            names = "--max-event-streams-per-tenant",
            defaultValue = "16",
            description = "Event streams open at once per tenant; beyond, 429 (default: ${DEFAULT-VALUE}).")
    int maxEventStreamsPerTenant;

    @Option(
            names = "--max-key-sets-per-tenant",
            defaultValue = "16",
            description = "Key sets a tenant may keep; beyond, 507 before the upload is read (default: "
                    + "${DEFAULT-VALUE}).")
    int maxKeySetsPerTenant;

    @Option(
            names = "--max-jobs-per-tenant",
            defaultValue = "8",
            description = "Jobs a tenant may have queued or running; beyond, 429 with Retry-After (default: "
                    + "${DEFAULT-VALUE}; not applied under --no-auth).")
    int maxJobsPerTenant;

    @Option(
            names = "--job-ttl",
            defaultValue = "24h",
            paramLabel = "SPAN",
            converter = TimeSpan.class,
            description = "How long a job is kept once it has ended: its status, query and result; then 404 and "
                    + "removed from the store (default: ${DEFAULT-VALUE}; units ms, s, m, h, d).")
    java.time.Duration jobTtl;

    @Option(
            names = "--max-tenant-bytes",
            defaultValue = "68719476736",
            paramLabel = "BYTES",
            description = "Bytes a tenant may keep in the store: its key sets, queries and results; beyond, 507 "
                    + "before anything is written (default: 64 GiB; not applied under --no-auth).")
    long maxTenantBytes;

    @Option(
            names = "--max-results-per-tenant",
            defaultValue = "64",
            description = "Jobs a tenant may keep in the store, each with its query and result, until they expire "
                    + "or are deleted; beyond, 507 before the query is read (default: ${DEFAULT-VALUE}; not applied "
                    + "under --no-auth).")
    int maxResultsPerTenant;

    @Option(
            names = "--max-models-per-tenant",
            defaultValue = "4",
            description = "Encrypted models a tenant may keep ('polyhe remote models upload'; 0: none accepted); "
                    + "beyond, 507 before the upload is read (default: ${DEFAULT-VALUE}; not applied under "
                    + "--no-auth). Their bytes count in --max-tenant-bytes.")
    int maxModelsPerTenant;

    @Option(
            names = "--disk-high-water",
            defaultValue = "0.95",
            paramLabel = "FRACTION|BYTES",
            description = "How full the store's disk may get: a fraction of it in use (0.95), or a whole number of "
                    + "bytes to keep free; a write that would pass it is refused (507) before it starts (default: "
                    + "${DEFAULT-VALUE}).")
    String diskHighWater;

    @Option(
            names = "--request-timeout",
            paramLabel = "SECONDS",
            description = "A request's body must have come within it, or 408 and its connection is closed (default: "
                    + "600; raise it for multi-gigabyte key uploads on slow links).")
    Long requestTimeout;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (models == null || models.isEmpty() || store == null) {
            throw new picocli.CommandLine.ParameterException(
                    spec.commandLine(),
                    "Missing required options: "
                            + (models == null || models.isEmpty() ? "--models DIR... " : "")
                            + (store == null ? "--store DIR" : "")
                            + " (or a subcommand: 'polyhe serve token add|list|revoke')");
        }
        long budget = memoryBudget != null
                ? memoryBudget
                : (long) (0.6 * Runtime.getRuntime().maxMemory());
        PolyHeServer.Settings settings;
        try {
            if (weightCache != null && weightCache < 0) {
                throw new IllegalArgumentException("--weight-cache " + weightCache + ": give 0 or more bytes");
            }
            long weights = weightCache != null ? weightCache : PolyHeServer.Settings.WEIGHT_CACHE_BY_MEMORY;
            settings = new PolyHeServer.Settings(
                    port, models, store, workers, maxQueue, budget, maxUpload, 1L << 32, insecure, weights, backend);
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException(e.getMessage());
        }
        PolyHeServer.Network network = network();
        PolyHeServer.Storage storage;
        try {
            storage = new PolyHeServer.Storage(
                    jobTtl,
                    maxTenantBytes,
                    DiskHighWater.parse(diskHighWater),
                    maxResultsPerTenant,
                    maxModelsPerTenant);
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException(e.getMessage());
        }
        CountDownLatch stopped = new CountDownLatch(1);
        try (PolyHe polyhe = PolyHe.builder().pluginsDir(common.pluginsDir).build();
                PolyHeServer server = start(requireBackend(polyhe), settings, network, storage)) {
            var out = spec.commandLine().getOut();
            String host = bind.contains(":") ? "[" + bind + "]" : bind;
            out.printf(
                    "polyhe serve: %s://%s:%d/v1/ serving %s, %d worker(s), queue %d, keys budget %.1f GiB, "
                            + "store %s, %s%n",
                    tlsKeystore != null ? "https" : "http",
                    host,
                    server.port(),
                    models,
                    workers,
                    maxQueue,
                    budget / (double) (1L << 30),
                    store,
                    noAuth
                            ? "NO AUTHENTICATION (--no-auth)"
                            : tokens == null
                                    ? "tenants by client certificate"
                                    : "tenants from " + tokens
                                            + (tlsClientCa != null ? " and by client certificate" : ""));
            for (Path dir : models) {
                out.printf(
                        "polyhe serve: %s runs attention %s%n",
                        dir.getFileName(),
                        polyhe.inference().withAttentionOf(dir).describeAttention(true));
            }
            if (server.adminAddress() != null) {
                out.printf(
                        "polyhe serve: admin port http://%s:%d/ (/metrics, /admin; this machine only, no token)%n",
                        server.adminAddress().getAddress().getHostAddress(),
                        server.adminAddress().getPort());
            }
            out.flush();
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
            stopped.await();
        }
        return PolyHeCommand.OK;
    }

    /**
     * The chosen backend exists and can run here, before the server listens: else the registry's one line (unknown,
     * or not available and why), exit 2.
     */
    private PolyHe requireBackend(PolyHe polyhe) {
        if (backend != null) {
            polyhe.backend(backend);
        }
        return polyhe;
    }

    private static PolyHeServer start(
            PolyHe polyhe, PolyHeServer.Settings settings, PolyHeServer.Network network, PolyHeServer.Storage storage)
            throws java.io.IOException {
        try {
            return PolyHeServer.start(polyhe, settings, network, storage);
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException(e.getMessage());
        }
    }

    /** Where and how to listen; refused (one line, exit 2) when the choice is missing or unsafe. */
    private PolyHeServer.Network network() throws java.io.IOException {
        javax.net.ssl.SSLContext tls = null;
        if (tlsKeystore != null) {
            String caPassword = System.getenv("POLYHE_TLS_CLIENT_CA_PASSWORD");
            tls = dev.polyhe.server.Tls.server(
                    tlsKeystore,
                    tlsPassword(),
                    tlsClientCa,
                    caPassword == null ? new char[0] : caPassword.toCharArray());
        } else if (tlsClientCa != null) {
            throw new ErrorReport.InputException(
                    "--tls-client-ca needs --tls-keystore: client certificates are a " + "part of TLS");
        } else if (tlsPasswordFile != null) {
            throw new ErrorReport.InputException("--tls-password-file without --tls-keystore: name the keystore too");
        }
        if (requestTimeout != null && requestTimeout < 1) {
            throw new ErrorReport.InputException("--request-timeout needs at least 1 second, got " + requestTimeout);
        }
        try {
            var bounds = new dev.polyhe.server.Connections(
                    maxConnectionsPerAddress,
                    idleTimeout,
                    headerTimeout,
                    minBodyRate,
                    requestTimeout == null
                            ? dev.polyhe.server.Connections.REQUEST_TIMEOUT
                            : java.time.Duration.ofSeconds(requestTimeout));
            return new PolyHeServer.Network(
                    bind,
                    tokens,
                    noAuth,
                    tls,
                    insecureNetwork,
                    maxConnections,
                    maxEventStreams,
                    maxEventStreamsPerTenant,
                    maxKeySetsPerTenant,
                    maxJobsPerTenant,
                    adminPort,
                    tlsClientCa != null,
                    bounds);
        } catch (IllegalArgumentException e) {
            throw new ErrorReport.InputException(e.getMessage());
        }
    }

    /** From a file or the environment, never the command line (where every user of the machine can read it). */
    private char[] tlsPassword() throws java.io.IOException {
        if (tlsPasswordFile != null) {
            return java.nio.file.Files.readString(tlsPasswordFile)
                    .lines()
                    .findFirst()
                    .orElse("")
                    .toCharArray();
        }
        String env = System.getenv("POLYHE_TLS_PASSWORD");
        if (env == null) {
            throw new ErrorReport.InputException("--tls-keystore " + tlsKeystore + " needs its password: "
                    + "--tls-password-file FILE or the environment variable POLYHE_TLS_PASSWORD");
        }
        return env.toCharArray();
    }
}

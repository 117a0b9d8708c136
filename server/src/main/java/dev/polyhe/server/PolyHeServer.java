package dev.polyhe.server;

import static dev.polyhe.server.HttpReplies.notAllowed;
import static dev.polyhe.server.HttpReplies.openApi;
import static dev.polyhe.server.HttpReplies.query;
import static dev.polyhe.server.HttpReplies.require;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.inference.InferenceService;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Private inference over HTTP: clients upload the server half of their key set once, then submit encrypted
 * queries; workers evaluate them with the cached evaluation keys. Endpoints (JSON bodies, errors as {@code
 * {"error": ..., "status": ...}}):
 *
 * <pre>
 * PUT    /v1/keys                       a zip of KEYS/server/ (streamed) → {"key_set": id, "bytes": n, "created": b}
 * GET    /v1/keys/{id}                  200 when stored, 404 otherwise
 * GET    /v1/models                     the served models, and the tenant's encrypted models
 * PUT    /v1/models?key_set=K           a zip of an encrypted model folder (polyhe encrypt-model's) for key set K
 *                                       → {"model": id, "key_set": K, "bytes": n, "created": b}
 * GET    /v1/models/{name or id}        what it is; DELETE an encrypted model
 * GET    /v1/models/{name}/calibration  the model's approximation domains (for a client's --check)
 * POST   /v1/jobs?model=M&amp;key_set=K      an encrypted query (polyhe encrypt's file) → 202 {"job_id": ...}; M a
 *                                       served model's name or an encrypted model's id
 * GET    /v1/jobs/{id}                  state, blocks done of all, bootstraps, elapsed, ETA
 * GET    /v1/jobs/{id}/events           the same as server-sent events until the job ends
 * GET    /v1/jobs/{id}/result           the encrypted result (polyhe decrypt's input); 409 before it is done
 *                                       (a job is kept for --job-ttl once it has ended, then 404 and removed)
 * DELETE /v1/jobs/{id}                  cancel: a queued job at once, a running one at its next operator; an ended
 *                                       job is removed with its query and result
 * GET    /v1/health                     {"status": "ok", queue, running, workers, keys cached}
 * GET    /v1/openapi.json               these routes as an OpenAPI 3 description
 * GET    /metrics                       Prometheus text format (an admin token)
 * GET    /admin                         tenants: key sets, jobs by state, bytes kept (an admin token)
 * </pre>
 *
 * With an admin port ({@link Network#adminPort()}), {@code /metrics} and {@code /admin} are served there too, on
 * the loopback interface, without a token.
 *
 * Built on Jetty's core server ({@link HttpEngine}): non-blocking I/O, so that a peer that is idle, stalled or slow
 * holds no thread; request bodies stream (multi-gigabyte key uploads never sit in memory), and the few routes above
 * need no framework.
 */
public final class PolyHeServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PolyHeServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param memoryBudget bytes of evaluation keys held at once (least recently used out)
     * @param acceptInsecure accept key sets below 128 bits (tests)
     * @param weightCacheBytes encoded weight diagonals each served model keeps per key set across queries (0: none;
     *     {@link #WEIGHT_CACHE_BY_MEMORY}: a tenth of the heap, or a quarter of a device's memory holding them)
     * @param backend the HE backend jobs evaluate on; null: the one each key set names (any backend of the key set's
     *     data format reads it)
     */
    public record Settings(
            int port,
            List<Path> models,
            Path store,
            int workers,
            int maxQueue,
            long memoryBudget,
            long maxUploadBytes,
            long maxQueryBytes,
            boolean acceptInsecure,
            long weightCacheBytes,
            String backend) {
        /** Each key set evaluated on the backend it names. */
        public Settings(
                int port,
                List<Path> models,
                Path store,
                int workers,
                int maxQueue,
                long memoryBudget,
                long maxUploadBytes,
                long maxQueryBytes,
                boolean acceptInsecure,
                long weightCacheBytes) {
            this(
                    port,
                    models,
                    store,
                    workers,
                    maxQueue,
                    memoryBudget,
                    maxUploadBytes,
                    maxQueryBytes,
                    acceptInsecure,
                    weightCacheBytes,
                    null);
        }

        /** Without a weight cache. */
        public Settings(
                int port,
                List<Path> models,
                Path store,
                int workers,
                int maxQueue,
                long memoryBudget,
                long maxUploadBytes,
                long maxQueryBytes,
                boolean acceptInsecure) {
            this(
                    port,
                    models,
                    store,
                    workers,
                    maxQueue,
                    memoryBudget,
                    maxUploadBytes,
                    maxQueryBytes,
                    acceptInsecure,
                    0);
        }

        /** {@code weightCacheBytes} that sizes the cache by the memory holding it (see the record). */
        public static final long WEIGHT_CACHE_BY_MEMORY = -1;

        public Settings {
            if (weightCacheBytes < 0 && weightCacheBytes != WEIGHT_CACHE_BY_MEMORY) {
                throw new IllegalArgumentException("weight cache of " + weightCacheBytes + " bytes: give 0 or more");
            }
            if (workers < 1 || maxQueue < 1) {
                throw new IllegalArgumentException(
                        "workers and queue need at least 1, got " + workers + " and " + maxQueue);
            }
        }
    }

    /**
     * Who may reach the server and how: the address, TLS, authentication, and the limits that keep one client from
     * taking it over.
     *
     * @param bind the address to listen on (127.0.0.1: this machine only)
     * @param tokens the operator's tokens file (tenants by bearer token), or null with {@code noAuth}
     * @param noAuth one unauthenticated party (a loopback demo)
     * @param tls the server's TLS context (HTTPS), or null for plain HTTP
     * @param insecureNetwork serve a non-loopback address without TLS or authentication all the same
     * @param maxConnections request bodies read at once (threads: a body holds one while it flows, never while its
     *     peer is idle or sends nothing; other requests are answered on a few routing threads); beyond, they wait
     * @param maxEventStreams event streams open at once, in all; beyond, 429
     * @param maxEventStreamsPerTenant event streams open at once per tenant; beyond, 429
     * @param maxKeySetsPerTenant key sets a tenant may keep; beyond, 507 before anything is read
     * @param maxJobsPerTenant jobs a tenant may have queued or running; beyond, 429 before the query is read, so that
     *     one tenant cannot fill the queue
     * @param adminPort a port on the loopback interface serving {@code /metrics} and {@code /admin} without a token
     *     (0: any free one), or null for none
     * @param clientCertificates tenants by client certificate, the CN of its subject (mutual TLS: {@code tls} verifies
     *     them against the client CA, {@link Tls#server(Path, char[], Path, char[])}); a client without one may use a
     *     token
     * @param connections the bounds on each peer: connections per address, idle, header and body timeouts
     */
    public record Network(
            String bind,
            Path tokens,
            boolean noAuth,
            SSLContext tls,
            boolean insecureNetwork,
            int maxConnections,
            int maxEventStreams,
            int maxEventStreamsPerTenant,
            int maxKeySetsPerTenant,
            int maxJobsPerTenant,
            Integer adminPort,
            boolean clientCertificates,
            Connections connections) {
        public static final int MAX_CONNECTIONS = 256;
        public static final int MAX_EVENT_STREAMS = 64;
        public static final int MAX_EVENT_STREAMS_PER_TENANT = 16;
        public static final int MAX_KEY_SETS_PER_TENANT = 16;
        public static final int MAX_JOBS_PER_TENANT = 8;

        /** This machine only, no authentication, the default limits: a demo, and the tests of the engine. */
        public static Network loopbackDemo() {
            return new Network(
                    "127.0.0.1",
                    null,
                    true,
                    null,
                    false,
                    MAX_CONNECTIONS,
                    MAX_EVENT_STREAMS,
                    MAX_EVENT_STREAMS_PER_TENANT,
                    MAX_KEY_SETS_PER_TENANT,
                    MAX_JOBS_PER_TENANT);
        }

        /** Tenants from a tokens file on this machine, plain HTTP, the default limits. */
        public static Network loopbackTenants(Path tokens) {
            return new Network(
                    "127.0.0.1",
                    tokens,
                    false,
                    null,
                    false,
                    MAX_CONNECTIONS,
                    MAX_EVENT_STREAMS,
                    MAX_EVENT_STREAMS_PER_TENANT,
                    MAX_KEY_SETS_PER_TENANT,
                    MAX_JOBS_PER_TENANT);
        }

        /** Without an admin port. */
        public Network(
                String bind,
                Path tokens,
                boolean noAuth,
                SSLContext tls,
                boolean insecureNetwork,
                int maxConnections,
                int maxEventStreams,
                int maxEventStreamsPerTenant,
                int maxKeySetsPerTenant,
                int maxJobsPerTenant) {
            this(
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
                    null,
                    false);
        }

        /** With the default bounds on each peer ({@link Connections#defaults()}). */
        public Network(
                String bind,
                Path tokens,
                boolean noAuth,
                SSLContext tls,
                boolean insecureNetwork,
                int maxConnections,
                int maxEventStreams,
                int maxEventStreamsPerTenant,
                int maxKeySetsPerTenant,
                int maxJobsPerTenant,
                Integer adminPort,
                boolean clientCertificates) {
            this(
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
                    clientCertificates,
                    Connections.defaults());
        }

        /** The same with other bounds on each peer. */
        public Network withConnections(Connections bounds) {
            return new Network(
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
                    clientCertificates,
                    bounds);
        }

        /** The same with an admin port on the loopback interface (0: any free one). */
        public Network withAdminPort(int port) {
            return new Network(
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
                    port,
                    clientCertificates,
                    connections);
        }

        /** The same with tenants by client certificate ({@code tls} must verify them against a client CA). */
        public Network withClientCertificates() {
            return new Network(
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
                    true,
                    connections);
        }

        public Network {
            if (clientCertificates && (tls == null || noAuth)) {
                throw new IllegalArgumentException(
                        tls == null
                                ? "--tls-client-ca needs --tls-keystore: client " + "certificates are a part of TLS"
                                : "--tls-client-ca and --no-auth exclude each other; " + "choose one");
            }
            if (adminPort != null && (adminPort < 0 || adminPort > 65535)) {
                throw new IllegalArgumentException("--admin-port needs a port from 0 to 65535, got " + adminPort);
            }
            if (tokens == null && !noAuth && !clientCertificates) {
                throw new IllegalArgumentException("choose how clients authenticate: --tokens FILE (tenants with "
                        + "bearer tokens, 'polyhe serve token add'), --tls-client-ca FILE.p12 (tenants by client "
                        + "certificate) or --no-auth (one unauthenticated party, for a loopback demo)");
            }
            if (tokens != null && noAuth) {
                throw new IllegalArgumentException("--tokens and --no-auth exclude each other; choose one");
            }
            if (maxKeySetsPerTenant < 1
                    || maxJobsPerTenant < 1
                    || maxEventStreams < 1
                    || maxEventStreamsPerTenant < 1) {
                throw new IllegalArgumentException("--max-key-sets-per-tenant, --max-jobs-per-tenant, "
                        + "--max-event-streams and --max-event-streams-per-tenant need at least 1, got "
                        + maxKeySetsPerTenant + ", " + maxJobsPerTenant + ", " + maxEventStreams + " and "
                        + maxEventStreamsPerTenant);
            }
            if (maxConnections < HttpEngine.MIN_THREADS) {
                throw new IllegalArgumentException(
                        "--max-connections needs at least " + HttpEngine.MIN_THREADS + ", got " + maxConnections);
            }
            if (connections == null) {
                throw new IllegalArgumentException("the bounds on each peer are missing (Connections.defaults())");
            }
        }

        /** The address to listen on, refused when it is open to a network without TLS and authentication. */
        InetSocketAddress address(int port) throws IOException {
            InetAddress a;
            try {
                a = InetAddress.getByName(bind);
            } catch (java.net.UnknownHostException e) {
                throw new IllegalArgumentException("--bind " + bind + ": no such address on this machine");
            }
            if (!a.isLoopbackAddress() && (tls == null || noAuth) && !insecureNetwork) {
                throw new IllegalArgumentException("refusing to serve on " + bind + " without "
                        + (tls == null && noAuth ? "TLS and authentication" : tls == null ? "TLS" : "authentication")
                        + ": anyone on the network could read or alter queries and results; add --tls-keystore and "
                        + "--tokens, bind 127.0.0.1, or accept it with --insecure-network");
            }
            return new InetSocketAddress(a, port);
        }
    }

    /**
     * What the store keeps and for how long.
     *
     * @param jobTtl how long a job is kept once it has ended (its status, query and result); then 404, removed
     * @param maxTenantBytes bytes a tenant may keep in the store: its key sets, queries and results; beyond, 507
     *     before anything is written (not applied under --no-auth)
     * @param diskHighWater how full the store's disk may get; beyond, 507 before anything is written
     * @param maxResultsPerTenant jobs a tenant may keep in the store (queued, running, or ended and not yet expired
     *     or deleted), each with its query and result; beyond, 507 before the query is read (not under --no-auth)
     * @param maxModelsPerTenant encrypted models a tenant may keep (0: none accepted); beyond, 507 before the upload
     *     is read (not under --no-auth)
     */
    public record Storage(
            java.time.Duration jobTtl,
            long maxTenantBytes,
            DiskHighWater diskHighWater,
            int maxResultsPerTenant,
            int maxModelsPerTenant) {
        public static final java.time.Duration JOB_TTL = java.time.Duration.ofHours(24);
        public static final long MAX_TENANT_BYTES = 64L << 30;
        public static final int MAX_RESULTS_PER_TENANT = 64;
        public static final int MAX_MODELS_PER_TENANT = 4;

        /** With at most {@value #MAX_MODELS_PER_TENANT} encrypted models per tenant. */
        public Storage(
                java.time.Duration jobTtl, long maxTenantBytes, DiskHighWater diskHighWater, int maxResultsPerTenant) {
            this(jobTtl, maxTenantBytes, diskHighWater, maxResultsPerTenant, MAX_MODELS_PER_TENANT);
        }

        /** The defaults: jobs kept 24 hours, 64 GiB and 64 jobs per tenant, the disk filled to 95 % at most. */
        public static Storage defaults() {
            return new Storage(JOB_TTL);
        }

        /** Jobs kept for {@code jobTtl}, the other limits at their defaults. */
        public Storage(java.time.Duration jobTtl) {
            this(jobTtl, MAX_TENANT_BYTES, DiskHighWater.DEFAULT, MAX_RESULTS_PER_TENANT);
        }

        public Storage {
            if (jobTtl == null || jobTtl.toMillis() < 1) {
                throw new IllegalArgumentException("--job-ttl needs at least 1 ms, got " + jobTtl);
            }
            if (maxTenantBytes < 1 || maxResultsPerTenant < 1 || maxModelsPerTenant < 0) {
                throw new IllegalArgumentException("--max-tenant-bytes and --max-results-per-tenant need at least 1, "
                        + "--max-models-per-tenant 0 or more; got " + maxTenantBytes + ", " + maxResultsPerTenant
                        + " and " + maxModelsPerTenant);
            }
            if (diskHighWater == null) {
                throw new IllegalArgumentException("--disk-high-water needs a value, such as 0.95");
            }
        }
    }

    private final HttpEngine http;
    /** Answers and refusals, errors as JSON without the server's paths. */
    private final Responder answers = new Responder(this::redact);

    /** An event stream's keep-alive comment comes this often, well within the idle timeout. */
    private final long keepAliveMillis;

    private final BearerAuth auth;
    private final Owners owners;
    private final Owners modelOwners;
    private final int maxModelsPerTenant;
    private final StreamLimits streams;
    private final int maxKeySetsPerTenant;
    private final int maxJobsPerTenant;
    private final int maxResultsPerTenant;
    private final StoreQuota quota;
    /** The server's own folders, as a client may read them in a message: the store and each model's folder. */
    private final PathRedaction shownPaths = new PathRedaction();

    private final KeyStore keys;
    private final ModelStore modelStore;
    private final ModelStore.Check modelCheck;
    private final KeyCache cache;
    private final ServedModels models;
    private final Jobs jobs;
    private final JobSweeper sweeper;
    private final AdminView adminView;
    /** The operator's loopback port, or null. */
    private final AdminPort adminPort;

    private final long started = System.nanoTime();

    private PolyHeServer(PolyHe polyhe, Settings s, Network n, Storage st) throws IOException {
        InetSocketAddress address = n.address(s.port());
        this.auth = new BearerAuth(n.tokens() == null ? null : new TokenFile(n.tokens()), n.clientCertificates());
        this.streams = new StreamLimits(n.maxEventStreams(), n.maxEventStreamsPerTenant());
        this.maxKeySetsPerTenant = n.maxKeySetsPerTenant();
        this.maxJobsPerTenant = n.maxJobsPerTenant();
        this.owners = new Owners(s.store(), "owners");
        this.modelOwners = new Owners(s.store(), "model-owners");
        this.maxModelsPerTenant = st.maxModelsPerTenant();
        KeySetBackends backends = new KeySetBackends(polyhe, s.backend());
        this.keys = new KeyStore(s.store(), s.maxUploadBytes(), s.acceptInsecure(), new EvaluationKeyCheck(backends));
        this.modelStore = new ModelStore(s.store(), s.maxUploadBytes());
        this.modelCheck = new EncryptedModelCheck(backends);
        this.models = new ServedModels(polyhe, s.models(), s.weightCacheBytes(), modelStore);
        this.cache = new KeyCache(polyhe, keys, s.memoryBudget(), s.acceptInsecure(), s.backend());
        shownPaths.put(s.store().toAbsolutePath().normalize().toString(), "STORE");
        for (String name : models.names()) {
            shownPaths.put(models.get(name).dir().toAbsolutePath().normalize().toString(), "MODEL(" + name + ")");
        }
        this.jobs = new Jobs(s.store(), s.workers(), s.maxQueue(), s.maxQueryBytes(), st.jobTtl(), keys, cache, models);
        this.sweeper = new JobSweeper(jobs, st.jobTtl());
        this.maxResultsPerTenant = st.maxResultsPerTenant();
        this.quota = new StoreQuota(s.store(), st.maxTenantBytes(), st.diskHighWater(), this::storedBytes);
        this.adminView = new AdminView(owners, modelOwners, keys, modelStore, jobs, this::storedBytes);
        this.keepAliveMillis = Math.min(15_000, n.connections().idleTimeout().toMillis() / 2);
        this.http = new HttpEngine(
                address,
                n.maxConnections(),
                n.tls(),
                n.clientCertificates(),
                n.connections(),
                1,
                "polyhe-http",
                this::serve);
        this.adminPort = n.adminPort() == null ? null : adminPort(n.adminPort());
    }

    /** The routes: {@code /v1/...}, and an admin token's {@code /metrics} and {@code /admin}. */
    private void serve(Exchange ex) {
        String path = ex.path() == null ? "/" : ex.path();
        answers.respond(ex, () -> {
            if (path.startsWith("/v1/")) {
                route(ex);
            } else if (path.startsWith("/metrics") || path.startsWith("/admin")) {
                auth.admin(ex);
                if (path.startsWith("/metrics")) {
                    ex.text(200, metrics());
                } else {
                    ex.json(200, adminView.toJson());
                }
            } else {
                throw new HttpError(404, "no such endpoint: " + path);
            }
        });
    }

    /** The operator's port, or the threads started so far stopped and why it cannot listen said. */
    private AdminPort adminPort(int port) {
        try {
            return new AdminPort(port, this::metrics, adminView::toJson);
        } catch (IOException | RuntimeException e) {
            sweeper.close();
            jobs.close();
            cache.close();
            throw new IllegalArgumentException(
                    "--admin-port " + port + ": cannot listen on the loopback interface: " + e.getMessage());
        }
    }

    /** Starts serving on this machine only, without authentication ({@link Network#loopbackDemo()}). */
    public static PolyHeServer start(PolyHe polyhe, Settings settings) throws IOException {
        return start(polyhe, settings, Network.loopbackDemo());
    }

    /**
     * Starts serving; {@link #port()} is the port bound (useful with port 0).
     *
     * @throws IllegalArgumentException for an address open to a network without TLS and authentication
     */
    public static PolyHeServer start(PolyHe polyhe, Settings settings, Network network) throws IOException {
        return start(polyhe, settings, network, Storage.defaults());
    }

    /** Starts serving, keeping jobs and bytes as {@code storage} says. */
    public static PolyHeServer start(PolyHe polyhe, Settings settings, Network network, Storage storage)
            throws IOException {
        PolyHeServer s = new PolyHeServer(polyhe, settings, network, storage);
        try {
            s.http.start();
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        LOG.info(
                "serving {} on {}:{} over {}",
                s.models.names(),
                network.bind(),
                s.port(),
                network.tls() != null ? "HTTPS" : "HTTP");
        if (!s.auth.enabled()) {
            LOG.warn("no authentication (--no-auth): every client is the same party and may use every key set and "
                    + "job; for a loopback demo only");
        }
        return s;
    }

    public int port() {
        return http.address().getPort();
    }

    /** The address and port bound. */
    public InetSocketAddress address() {
        return http.address();
    }

    /** Connections refused so far because their address had --max-connections-per-address open. */
    public long connectionsRefused() {
        return http.guard().refused();
    }

    /** The admin port's address and port (always on the loopback interface), or null without one. */
    public InetSocketAddress adminAddress() {
        return adminPort == null ? null : adminPort.address();
    }

    /** A message for a client: where the server keeps its store and models is none of its business. */
    private String redact(String message) {
        return shownPaths.apply(message);
    }

    /** A job's status for its client: a failed job's reason (an exception's message) without the server's paths. */
    private ObjectNode status(Job job) {
        ObjectNode n = job.toJson(JSON);
        if (n.has("error")) {
            n.put("error", redact(n.get("error").asText()));
        }
        return n;
    }

    private void route(Exchange ex) throws IOException {
        String method = ex.method();
        String[] p = ex.path().substring("/v1/".length()).split("/");
        Map<String, String> q = query(ex);
        if (p[0].equals("health")) {
            ex.json(200, health());
            return;
        }
        Tenant tenant = auth.tenant(ex);
        switch (p[0]) {
            case "openapi.json" -> openApi(ex);
            case "keys" -> keys(ex, method, p, tenant);
            case "models" -> models(ex, method, p, q, tenant);
            case "jobs" -> jobs(ex, method, p, q, tenant);
            default -> throw new HttpError(404, "no such endpoint: " + ex.path());
        }
    }

    private void keys(Exchange ex, String method, String[] p, Tenant tenant) throws IOException {
        if (p.length == 1 && (method.equals("PUT") || method.equals("POST"))) {
            // the quota answers before a byte of the upload is read
            long held = owners.count(tenant);
            if (!tenant.seesAll() && held >= maxKeySetsPerTenant) {
                throw new HttpError(
                        507,
                        "tenant " + tenant.name() + " keeps " + held + " key sets, this server's "
                                + "limit (--max-key-sets-per-tenant " + maxKeySetsPerTenant + "); delete one first "
                                + "(DELETE /v1/keys/{id})");
            }
            var written = quota.admit(tenant, ex.declaredLength(), "the upload");
            answers.withBody(ex, body -> {
                KeyStore.Stored stored = keys.upload(body, ex.header("X-Key-Set-Id"), written);
                // "created" is the tenant's view: whether another tenant stored the same key set stays unknown
                boolean created = owners.add(tenant, stored.id()) || stored.created();
                Audit.log(
                        tenant,
                        "upload",
                        "key_set=" + stored.id() + " bytes=" + stored.bytes() + " created=" + created);
                ObjectNode n = JSON.createObjectNode()
                        .put("key_set", stored.id())
                        .put("bytes", stored.bytes())
                        .put("created", created);
                ex.json(created ? 201 : 200, n);
            });
        } else if (p.length == 2 && method.equals("GET")) {
            ownedKeySet(tenant, p[1]);
            ex.json(200, JSON.createObjectNode().put("key_set", p[1]).put("stored", true));
        } else if (p.length == 2 && method.equals("DELETE")) {
            ownedKeySet(tenant, p[1]);
            requireNoModelUses(tenant, p[1]);
            if (owners.remove(tenant, p[1])) {
                keys.delete(p[1]);
            }
            Audit.log(tenant, "delete", "key_set=" + p[1]);
            ex.json(200, JSON.createObjectNode().put("key_set", p[1]).put("deleted", true));
        } else {
            throw notAllowed(method, ex);
        }
    }

    /** The bytes a tenant keeps in the store: each key set and encrypted model it owns in full, and its jobs. */
    private long storedBytes(Tenant tenant) {
        return owners.ids(tenant).stream().mapToLong(keys::bytes).sum()
                + modelOwners.ids(tenant).stream().mapToLong(modelStore::bytes).sum()
                + jobs.bytes(tenant);
    }

    /**
     * Served models by name (the operator's folders) and the tenant's encrypted models by id: listed, described,
     * uploaded for one of its key sets, deleted; their calibration.
     */
    private void models(Exchange ex, String method, String[] p, Map<String, String> q, Tenant tenant)
            throws IOException {
        if (p.length == 1 && method.equals("GET")) {
            ObjectNode n = JSON.createObjectNode();
            models.names().forEach(n.putArray("models")::add);
            var mine = n.putArray("encrypted_models");
            modelOwners.ids(tenant).stream()
                    .filter(modelStore::contains)
                    .sorted()
                    .forEach(mine::add);
            ex.json(200, n);
        } else if (p.length == 1 && (method.equals("PUT") || method.equals("POST"))) {
            String keySet = require(q, "key_set");
            ownedKeySet(tenant, keySet);
            long held = modelOwners.count(tenant);
            if (!tenant.seesAll() && held >= maxModelsPerTenant) {
                throw new HttpError(
                        507,
                        "tenant " + tenant.name() + " keeps " + held + " encrypted models, this server's limit "
                                + "(--max-models-per-tenant " + maxModelsPerTenant + "); delete one first (DELETE "
                                + "/v1/models/{id})");
            }
            var written = quota.admit(tenant, ex.declaredLength(), "the upload");
            answers.withBody(ex, body -> {
                ModelStore.Stored stored =
                        modelStore.upload(body, keys.folder(keySet), ex.header("X-Model-Id"), written, modelCheck);
                boolean created = modelOwners.add(tenant, stored.id()) || stored.created();
                Audit.log(
                        tenant,
                        "upload",
                        "model=" + stored.id() + " key_set=" + keySet + " bytes=" + stored.bytes() + " created="
                                + created);
                ex.json(
                        created ? 201 : 200,
                        JSON.createObjectNode()
                                .put("model", stored.id())
                                .put("key_set", keySet)
                                .put("bytes", stored.bytes())
                                .put("created", created));
            });
        } else if (p.length == 2 && method.equals("GET")) {
            Path dir = visibleFolder(tenant, p[1]);
            boolean encrypted = EncryptedModelFolder.isEncrypted(dir);
            ObjectNode n = JSON.createObjectNode().put("model", p[1]).put("encrypted_weights", encrypted);
            if (encrypted) {
                n.put("model_type", InferenceService.modelType(dir))
                        .put("sites", EncryptedModelFolder.manifest(dir).sites().size())
                        .put("bytes", modelStore.bytes(p[1]));
            }
            ex.json(200, n);
        } else if (p.length == 2 && method.equals("DELETE")) {
            if (!ModelStore.isId(p[1]) || !modelOwners.owns(tenant, p[1]) || !modelStore.contains(p[1])) {
                throw models.names().contains(p[1])
                        ? new HttpError(
                                405,
                                "model " + p[1] + " is served from the operator's folder (--models); "
                                        + "only uploaded encrypted models are deleted")
                        : ModelStore.notStored(p[1]);
            }
            if (modelOwners.remove(tenant, p[1])) {
                modelStore.delete(p[1]);
                models.forget(p[1]);
            }
            Audit.log(tenant, "delete", "model=" + p[1]);
            ex.json(200, JSON.createObjectNode().put("model", p[1]).put("deleted", true));
        } else if (p.length == 3 && p[2].equals("calibration") && method.equals("GET")) {
            ex.file("application/json", visibleFolder(tenant, p[1]).resolve(ServedModels.CALIBRATION));
        } else {
            throw notAllowed(method, ex);
        }
    }

    /**
     * The folder of a served model by name, or of one of the tenant's encrypted models by id (nothing is loaded).
     *
     * @throws HttpError 404 alike for a model not stored and one of another tenant
     */
    private Path visibleFolder(Tenant tenant, String name) {
        if (ModelStore.isId(name) && !models.names().contains(name) && !modelOwners.owns(tenant, name)) {
            throw ModelStore.notStored(name);
        }
        return models.folder(name);
    }

    /** @throws HttpError 409 when the tenant keeps an encrypted model that runs only with this key set */
    private void requireNoModelUses(Tenant tenant, String keySet) throws IOException {
        for (String model : modelOwners.ids(tenant)) {
            if (modelStore.contains(model)
                    && ModelStore.encryptedUnder(modelStore.folder(model), keys.folder(keySet))) {
                throw new HttpError(
                        409,
                        "key set " + keySet + " runs encrypted model " + model + ", which was encrypted under it; "
                                + "delete the model first (DELETE /v1/models/" + model + ")");
            }
        }
    }

    /** @throws HttpError 404 alike for a key set not stored and one of another tenant */
    private void ownedKeySet(Tenant tenant, String id) {
        if (!owners.owns(tenant, id)) {
            throw KeyStore.notStored(id);
        }
        keys.folder(id);
    }

    private void jobs(Exchange ex, String method, String[] p, Map<String, String> q, Tenant tenant) throws IOException {
        if (p.length == 1 && method.equals("POST")) {
            String keySet = require(q, "key_set");
            ownedKeySet(tenant, keySet);
            long pending = jobs.pending(tenant);
            if (!tenant.seesAll() && pending >= maxJobsPerTenant) {
                throw new HttpError(
                        429,
                        "tenant " + tenant.name() + " has " + pending + " jobs queued or running, "
                                + "this server's limit (--max-jobs-per-tenant " + maxJobsPerTenant
                                + "); submit again when "
                                + "one has ended",
                        30);
            }
            long kept = jobs.stored(tenant);
            if (!tenant.seesAll() && kept >= maxResultsPerTenant) {
                throw new HttpError(
                        507,
                        "tenant " + tenant.name() + " keeps " + kept + " jobs with their queries and "
                                + "results, this server's limit (--max-results-per-tenant " + maxResultsPerTenant
                                + "); "
                                + "delete ended ones (DELETE /v1/jobs/{id}) or wait for them to expire (--job-ttl)");
            }
            var written = quota.admit(tenant, ex.declaredLength(), "the query");
            String model = require(q, "model");
            visibleFolder(tenant, model);
            jobs.admit(model, keySet);
            answers.withBody(ex, body -> {
                Job job = jobs.submit(model, keySet, tenant, body, written);
                Audit.log(tenant, "submit", "job=" + job.id + " model=" + job.model + " key_set=" + keySet);
                ex.json(202, status(job));
            });
        } else if (p.length == 2 && method.equals("GET")) {
            ex.json(200, status(jobs.get(p[1], tenant)));
        } else if (p.length == 2 && method.equals("DELETE")) {
            Job job = jobs.get(p[1], tenant);
            if (job.state().finished()) {
                // an ended job: removed now, its query and result with it, as its time to live would
                jobs.remove(job);
                Audit.log(tenant, "delete", "job=" + job.id);
                ex.json(200, status(job).put("deleted", true));
                return;
            }
            jobs.cancel(p[1], tenant);
            Audit.log(
                    tenant,
                    "cancel",
                    "job=" + job.id + " state=" + job.state().name().toLowerCase(Locale.ROOT));
            ex.json(200, status(job));
        } else if (p.length == 3 && p[2].equals("result") && method.equals("GET")) {
            ex.file("application/octet-stream", jobs.result(p[1], tenant));
        } else if (p.length == 3 && p[2].equals("events") && method.equals("GET")) {
            Job job = jobs.get(p[1], tenant);
            StreamLimits.Permit permit = streams.open(tenant);
            try {
                new EventStream(
                                ex,
                                job,
                                j -> status(j).toString(),
                                permit::close,
                                ex.request.getComponents().getScheduler(),
                                keepAliveMillis)
                        .start();
            } catch (RuntimeException e) {
                permit.close();
                throw e;
            }
        } else {
            throw notAllowed(method, ex);
        }
    }

    private ObjectNode health() {
        return JSON.createObjectNode()
                .put("status", "ok")
                .put("queue", jobs.queueLength())
                .put("running", jobs.running())
                .put("workers", jobs.workers())
                .put("keys_cached", cache.size())
                .put("uptime_seconds", (System.nanoTime() - started) / 1e9);
    }

    /** The Prometheus text exposition format. */
    private String metrics() {
        PrometheusText sb = new PrometheusText();
        sb.gauge("polyhe_queue_length", "Jobs waiting for a worker.", jobs.queueLength());
        sb.gauge("polyhe_jobs_running", "Jobs being evaluated.", jobs.running());
        sb.gauge("polyhe_workers", "Workers.", jobs.workers());
        sb.gauge("polyhe_keys_cached", "Key sets held in memory.", cache.size());
        sb.gauge("polyhe_keys_cached_bytes", "Bytes of evaluation keys held in memory.", cache.bytes());
        sb.gauge("polyhe_keys_stored", "Key sets in the store.", keys.count());
        sb.gauge("polyhe_encrypted_models_stored", "Encrypted models in the store.", modelStore.count());
        sb.counter("polyhe_key_cache_hits_total", "Jobs that found their keys loaded.", cache.hits());
        sb.counter("polyhe_key_cache_misses_total", "Jobs that loaded their keys.", cache.misses());
        sb.counter("polyhe_jobs_done_total", "Jobs evaluated.", jobs.finishedJobs.get());
        sb.counter("polyhe_jobs_failed_total", "Jobs that failed.", jobs.failedJobs.get());
        sb.counter(
                "polyhe_evaluation_seconds_total",
                "Seconds finished jobs took on their workers (keys, "
                        + "reading the query, evaluation, writing the answer).",
                jobs.evaluationSeconds());
        sb.counter(
                "polyhe_engine_seconds_total",
                "Seconds of the engine's own evaluation in finished jobs.",
                jobs.engineSeconds());
        return sb.toString();
    }

    /** The id a key folder's server half gets on any server: clients know it without asking. */
    public static String keySetId(Path serverHalf) throws IOException {
        return KeyStore.keySetId(serverHalf);
    }

    /** Stops accepting, stops the workers (a running job is reported failed at the next start) and frees the keys. */
    @Override
    public void close() {
        if (adminPort != null) {
            adminPort.close();
        }
        http.close();
        sweeper.close();
        jobs.close();
        cache.close();
    }
}

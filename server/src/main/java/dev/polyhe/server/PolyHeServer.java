package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.polyhe.core.PolyHe;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
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
 * GET    /v1/models                     the served models
 * GET    /v1/models/{name}/calibration  the model's approximation domains (for a client's --check)
 * POST   /v1/jobs?model=M&amp;key_set=K      an encrypted query (polyhe encrypt's file) → 202 {"job_id": ...}
 * GET    /v1/jobs/{id}                  state, blocks done of all, bootstraps, elapsed, ETA
 * GET    /v1/jobs/{id}/events           the same as server-sent events until the job ends
 * GET    /v1/jobs/{id}/result           the encrypted result (polyhe decrypt's input); 409 before it is done
 * DELETE /v1/jobs/{id}                  cancel: a queued job at once, a running one at its next block
 * GET    /v1/health                     {"status": "ok", queue, running, workers, keys cached}
 * GET    /v1/openapi.json               these routes as an OpenAPI 3 description
 * GET    /metrics                       Prometheus text format
 * </pre>
 *
 * Built on the JDK's own HTTP server: nothing to add to a runtime that has to be carried (a GPU machine's jlink
 * image), streamed request bodies for multi-gigabyte key uploads, and the few routes above need no framework.
 */
public final class PolyHeServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PolyHeServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param memoryBudget bytes of evaluation keys held at once (least recently used out)
     * @param acceptInsecure accept key sets below 128 bits (tests)
     */
    public record Settings(int port, List<Path> models, Path store, int workers, int maxQueue, long memoryBudget,
            long maxUploadBytes, long maxQueryBytes, boolean acceptInsecure, long weightCacheBytes) {
        /** Without a weight cache. */
        public Settings(int port, List<Path> models, Path store, int workers, int maxQueue, long memoryBudget,
                long maxUploadBytes, long maxQueryBytes, boolean acceptInsecure) {
            this(port, models, store, workers, maxQueue, memoryBudget, maxUploadBytes, maxQueryBytes, acceptInsecure,
                    0);
        }

        public Settings {
            if (workers < 1 || maxQueue < 1) {
                throw new IllegalArgumentException("workers and queue need at least 1, got " + workers + " and "
                        + maxQueue);
            }
        }
    }

    private final HttpServer http;
    private final ExecutorService handlers;
    private final KeyStore keys;
    private final KeyCache cache;
    private final ServedModels models;
    private final Jobs jobs;
    private final long started = System.nanoTime();

    private PolyHeServer(PolyHe polyhe, Settings s) throws IOException {
        this.models = new ServedModels(polyhe, s.models(), s.weightCacheBytes());
        this.keys = new KeyStore(s.store(), s.maxUploadBytes(), s.acceptInsecure());
        this.cache = new KeyCache(polyhe, keys, s.memoryBudget(), s.acceptInsecure());
        this.jobs = new Jobs(s.store(), s.workers(), s.maxQueue(), s.maxQueryBytes(), keys, cache, models);
        this.http = HttpServer.create(new InetSocketAddress(s.port()), 64);
        // request handling apart from the workers, so that status and health answer while every worker computes
        this.handlers = Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, "polyhe-http");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(handlers);
        http.createContext("/v1/", this::handle);
        http.createContext("/metrics", ex -> respond(ex, () -> text(ex, 200, metrics())));
    }

    /** Starts serving; {@link #port()} is the port bound (useful with port 0). */
    public static PolyHeServer start(PolyHe polyhe, Settings settings) throws IOException {
        PolyHeServer s = new PolyHeServer(polyhe, settings);
        s.http.start();
        LOG.info("serving {} on port {}", s.models.names(), s.port());
        return s;
    }

    public int port() {
        return http.getAddress().getPort();
    }

    private interface Action {
        void run() throws IOException;
    }

    private void handle(HttpExchange ex) {
        respond(ex, () -> route(ex));
    }

    private void respond(HttpExchange ex, Action action) {
        try (ex) {
            try {
                action.run();
            } catch (HttpError e) {
                if (e.retryAfterSeconds() != null) {
                    ex.getResponseHeaders().set("Retry-After", Integer.toString(e.retryAfterSeconds()));
                }
                error(ex, e.status(), e.getMessage());
            } catch (IOException e) {
                // the client went away mid-request: nothing half-written stays (uploads and queries clean up)
                LOG.debug("request {} {} ended: {}", ex.getRequestMethod(), ex.getRequestURI(), e.toString());
            } catch (RuntimeException e) {
                LOG.warn("request {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
                error(ex, 500, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            }
        } catch (IOException e) {
            LOG.debug("cannot answer {}: {}", ex.getRequestURI(), e.toString());
        }
    }

    private void route(HttpExchange ex) throws IOException {
        String method = ex.getRequestMethod();
        String[] p = ex.getRequestURI().getPath().substring("/v1/".length()).split("/");
        Map<String, String> q = query(ex);
        switch (p[0]) {
            case "health" -> json(ex, 200, health());
            case "openapi.json" -> openApi(ex);
            case "keys" -> {
                if (p.length == 1 && (method.equals("PUT") || method.equals("POST"))) {
                    KeyStore.Stored stored = keys.upload(ex.getRequestBody());
                    String expected = ex.getRequestHeaders().getFirst("X-Key-Set-Id");
                    if (expected != null && !expected.equals(stored.id())) {
                        throw new HttpError(400, "the upload arrived as key set " + stored.id() + " but the client "
                                + "sent " + expected + ": corrupted in transit; upload again");
                    }
                    ObjectNode n = JSON.createObjectNode().put("key_set", stored.id()).put("bytes", stored.bytes())
                            .put("created", stored.created());
                    json(ex, stored.created() ? 201 : 200, n);
                } else if (p.length == 2 && method.equals("GET")) {
                    keys.folder(p[1]);
                    json(ex, 200, JSON.createObjectNode().put("key_set", p[1]).put("stored", true));
                } else {
                    throw notAllowed(method, ex);
                }
            }
            case "models" -> {
                if (p.length == 1) {
                    ObjectNode n = JSON.createObjectNode();
                    models.names().forEach(n.putArray("models")::add);
                    json(ex, 200, n);
                } else if (p.length == 3 && p[2].equals("calibration")) {
                    bytes(ex, "application/json", models.get(p[1]).dir().resolve(ServedModels.CALIBRATION));
                } else {
                    throw notAllowed(method, ex);
                }
            }
            case "jobs" -> jobs(ex, method, p, q);
            default -> throw new HttpError(404, "no such endpoint: " + ex.getRequestURI().getPath());
        }
    }

    private void jobs(HttpExchange ex, String method, String[] p, Map<String, String> q) throws IOException {
        if (p.length == 1 && method.equals("POST")) {
            Job job = jobs.submit(require(q, "model"), require(q, "key_set"), ex.getRequestBody());
            json(ex, 202, job.toJson(JSON));
        } else if (p.length == 2 && method.equals("GET")) {
            json(ex, 200, jobs.get(p[1]).toJson(JSON));
        } else if (p.length == 2 && method.equals("DELETE")) {
            json(ex, 200, jobs.cancel(p[1]).toJson(JSON));
        } else if (p.length == 3 && p[2].equals("result") && method.equals("GET")) {
            bytes(ex, "application/octet-stream", jobs.result(p[1]));
        } else if (p.length == 3 && p[2].equals("events") && method.equals("GET")) {
            events(ex, jobs.get(p[1]));
        } else {
            throw notAllowed(method, ex);
        }
    }

    /** Server-sent events: the job's status now and at every change, until it ends. */
    private void events(HttpExchange ex, Job job) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/event-stream");
        ex.getResponseHeaders().set("Cache-Control", "no-cache");
        ex.sendResponseHeaders(200, 0);
        LinkedBlockingQueue<String> updates = new LinkedBlockingQueue<>();
        Consumer<Job> watcher = j -> updates.add(j.toJson(JSON).toString());
        job.watch(watcher);
        try {
            OutputStream out = ex.getResponseBody();
            String last = null;
            for (String event = job.toJson(JSON).toString(); ; ) {
                if (!event.equals(last)) {
                    out.write(("event: status\ndata: " + event + "\n\n").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    last = event;
                }
                if (job.state().finished()) {
                    return;
                }
                String next = updates.poll(15, TimeUnit.SECONDS);
                if (next == null) {
                    out.write(": keep-alive\n\n".getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    next = job.toJson(JSON).toString();
                }
                event = job.state().finished() ? job.toJson(JSON).toString() : next;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            job.unwatch(watcher);
        }
    }

    private ObjectNode health() {
        return JSON.createObjectNode().put("status", "ok").put("queue", jobs.queueLength())
                .put("running", jobs.running()).put("workers", jobs.workers()).put("keys_cached", cache.size())
                .put("uptime_seconds", (System.nanoTime() - started) / 1e9);
    }

    /** The Prometheus text exposition format. */
    private String metrics() {
        StringBuilder sb = new StringBuilder();
        gauge(sb, "polyhe_queue_length", "Jobs waiting for a worker.", jobs.queueLength());
        gauge(sb, "polyhe_jobs_running", "Jobs being evaluated.", jobs.running());
        gauge(sb, "polyhe_workers", "Workers.", jobs.workers());
        gauge(sb, "polyhe_keys_cached", "Key sets held in memory.", cache.size());
        gauge(sb, "polyhe_keys_cached_bytes", "Bytes of evaluation keys held in memory.", cache.bytes());
        gauge(sb, "polyhe_keys_stored", "Key sets in the store.", keys.count());
        counter(sb, "polyhe_key_cache_hits_total", "Jobs that found their keys loaded.", cache.hits());
        counter(sb, "polyhe_key_cache_misses_total", "Jobs that loaded their keys.", cache.misses());
        counter(sb, "polyhe_jobs_done_total", "Jobs evaluated.", jobs.finishedJobs.get());
        counter(sb, "polyhe_jobs_failed_total", "Jobs that failed.", jobs.failedJobs.get());
        counter(sb, "polyhe_evaluation_seconds_total", "Seconds finished jobs took on their workers (keys, "
                + "reading the query, evaluation, writing the answer).", jobs.evaluationSeconds());
        counter(sb, "polyhe_engine_seconds_total", "Seconds of the engine's own evaluation in finished jobs.",
                jobs.engineSeconds());
        return sb.toString();
    }

    private static void gauge(StringBuilder sb, String name, String help, double v) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name)
                .append(" gauge\n").append(name).append(' ').append(format(v)).append('\n');
    }

    private static void counter(StringBuilder sb, String name, String help, double v) {
        sb.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name)
                .append(" counter\n").append(name).append(' ').append(format(v)).append('\n');
    }

    private static String format(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.6g", v);
    }

    private static String require(Map<String, String> q, String name) {
        String v = q.get(name);
        if (v == null || v.isBlank()) {
            throw new HttpError(400, "missing query parameter '" + name + "'");
        }
        return v;
    }

    private static Map<String, String> query(HttpExchange ex) {
        Map<String, String> m = new HashMap<>();
        String raw = ex.getRequestURI().getRawQuery();
        if (raw != null) {
            for (String kv : raw.split("&")) {
                int i = kv.indexOf('=');
                if (i > 0) {
                    m.put(URLDecoder.decode(kv.substring(0, i), StandardCharsets.UTF_8),
                            URLDecoder.decode(kv.substring(i + 1), StandardCharsets.UTF_8));
                }
            }
        }
        return m;
    }

    private static HttpError notAllowed(String method, HttpExchange ex) {
        return new HttpError(405, method + " " + ex.getRequestURI().getPath() + " is not an endpoint of this server");
    }

    private static void json(HttpExchange ex, int status, ObjectNode body) throws IOException {
        byte[] b = JSON.writeValueAsBytes(body);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    /** What is left of a refused request's body is read, up to this many bytes, so that the client gets the answer. */
    private static final long DRAIN_LIMIT = 64L << 20;

    private static void error(HttpExchange ex, int status, String message) throws IOException {
        // A client still sending its body when the answer comes sees a reset connection, not the answer: read (and
        // drop) the rest of a body of reasonable size first. Beyond the limit the connection is closed instead.
        try {
            InputStream in = ex.getRequestBody();
            byte[] buf = new byte[1 << 16];
            for (long n = 0; n < DRAIN_LIMIT; ) {
                int r = in.read(buf);
                if (r < 0) {
                    break;
                }
                n += r;
            }
        } catch (IOException e) {
            // the client is gone
        }
        json(ex, status, JSON.createObjectNode().put("error", message).put("status", status));
    }

    /** The id a key folder's server half gets on any server: clients know it without asking. */
    public static String keySetId(Path serverHalf) throws IOException {
        return KeyStore.keySetId(serverHalf);
    }

    private static void text(HttpExchange ex, int status, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    /** The routes as an OpenAPI 3 description, from the jar. */
    private static void openApi(HttpExchange ex) throws IOException {
        byte[] b;
        try (InputStream in = PolyHeServer.class.getResourceAsStream("openapi.json")) {
            if (in == null) {
                throw new HttpError(500, "this build carries no openapi.json");
            }
            b = in.readAllBytes();
        }
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, b.length);
        ex.getResponseBody().write(b);
    }

    private static void bytes(HttpExchange ex, String type, Path file) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(200, Files.size(file));
        try (InputStream in = Files.newInputStream(file)) {
            in.transferTo(ex.getResponseBody());
        }
    }

    /** Stops accepting, stops the workers (a running job is reported failed at the next start) and frees the keys. */
    @Override
    public void close() {
        http.stop(0);
        handlers.shutdownNow();
        jobs.close();
        cache.close();
    }
}

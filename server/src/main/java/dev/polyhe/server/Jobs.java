package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.he.HeException;
import dev.polyhe.core.KeySetIdentity;
import dev.polyhe.core.encrypted.EncryptedInference;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import dev.polyhe.core.engine.encrypted.EncryptedTensor;
import dev.polyhe.core.engine.encrypted.EncryptedTensorFormat;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Jobs on a bounded queue and a fixed set of workers. A query is checked against its key set (backend, parameters,
 * packing) from its header before it is queued; a full queue is refused (503 with Retry-After) rather than
 * buffered. Every job lives in {@code STORE/jobs/<id>/}: the query, then the result and a status file written by
 * rename, so a restart loses no finished result (a job the restart interrupted is reported failed). A job ended
 * longer ago than the time to live is gone: 404 like one never submitted, its folder removed by {@link #expire}.
 */
final class Jobs implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Jobs.class);
    static final String QUERY = "query.ct";
    static final String RESULT = "result.ct";
    static final String STATUS = "status.json";
    /** The error of a job the server's stop ended, at the stop or at the next start. */
    static final String STOPPED = "the server stopped before the job finished; submit it again";

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The bytes of a query read before anything is written: its header, and more (headers are a few hundred). */
    private static final int HEADER_PEEK = 1 << 20;

    private final Path dir;
    private final KeyStore keys;
    private final KeyCache cache;
    private final ServedModels models;
    private final long maxQueryBytes;
    private final long ttlMillis;
    private final ThreadPoolExecutor workers;
    /** Set by {@link #close}: a job that ends now was stopped, not failed by its query or keys. */
    private volatile boolean stopping;

    private final Map<String, Job> jobs = new ConcurrentHashMap<>();
    private final Map<String, Runnable> queued = new ConcurrentHashMap<>();
    final AtomicLong finishedJobs = new AtomicLong();
    final AtomicLong failedJobs = new AtomicLong();
    private final AtomicLong evaluationNanos = new AtomicLong();
    private final AtomicLong engineNanos = new AtomicLong();

    /** @param ttl how long a job is kept once it has ended: its status, query and result */
    Jobs(
            Path store,
            int workerCount,
            int maxQueue,
            long maxQueryBytes,
            java.time.Duration ttl,
            KeyStore keys,
            KeyCache cache,
            ServedModels models)
            throws IOException {
        this.dir = Files.createDirectories(store.resolve("jobs"));
        this.keys = keys;
        this.cache = cache;
        this.models = models;
        this.maxQueryBytes = maxQueryBytes;
        this.ttlMillis = ttl.toMillis();
        this.workers = new ThreadPoolExecutor(
                workerCount, workerCount, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(maxQueue), r -> {
                    Thread t = new Thread(r, "polyhe-worker");
                    t.setDaemon(true);
                    return t;
                });
        recover();
    }

    /** Finished jobs come back from their status files; a job the stop interrupted is failed, its query kept. */
    private void recover() throws IOException {
        try (Stream<Path> all = Files.list(dir)) {
            for (Path d : (Iterable<Path>) all::iterator) {
                Path status = d.resolve(STATUS);
                String id = d.getFileName().toString();
                if (Files.isRegularFile(status)) {
                    Job j = Job.fromJson(JSON.readTree(status.toFile()));
                    if (j.endedAt() == 0) {
                        // a status file of a server before --job-ttl: the job ended when it was written
                        j.endedAt(Files.getLastModifiedTime(status).toMillis());
                    }
                    jobs.put(id, j);
                } else if (Files.isRegularFile(d.resolve(QUERY + ".meta"))) {
                    Properties meta = new Properties();
                    try (InputStream in = Files.newInputStream(d.resolve(QUERY + ".meta"))) {
                        meta.load(in);
                    }
                    Job j = new Job(
                            id, meta.getProperty("model"), meta.getProperty("key_set"), meta.getProperty("tenant"));
                    j.finish(Job.State.FAILED, STOPPED, 0);
                    writeStatus(j);
                    jobs.put(id, j);
                } else {
                    // a submission the stop cut short before its query was recorded: never a job
                    KeyStore.deleteTree(d);
                }
            }
        }
    }

    /**
     * Removes the jobs that ended longer ago than the time to live: their status, query and result.
     *
     * @return how many were removed
     */
    int expire(long nowMillis) {
        int removed = 0;
        for (Job j : jobs.values()) {
            if (expired(j, nowMillis) && jobs.remove(j.id, j)) {
                Path d = dir.resolve(j.id);
                try {
                    if (Files.exists(d)) {
                        KeyStore.deleteTree(d);
                    }
                } catch (UncheckedIOException e) {
                    // its worker was still writing the final status (a time to live shorter than that write): the
                    // job goes back, and the next sweep removes what it left
                    jobs.putIfAbsent(j.id, j);
                    throw e;
                }
                removed++;
            }
        }
        if (removed > 0) {
            LOG.info("{} job(s) ended more than {} s ago removed", removed, ttlMillis / 1000);
        }
        return removed;
    }

    private boolean expired(Job j, long nowMillis) {
        long ended = j.endedAt();
        return j.state().finished() && ended > 0 && nowMillis - ended >= ttlMillis;
    }

    /**
     * What a query is refused for before a byte of it is read: an unknown model or key set, a key set larger than
     * the memory budget.
     *
     * @return the key set's folder
     */
    Path admit(String model, String keySet) throws IOException {
        var served = models.get(model);
        Path keyDir = keys.folder(keySet);
        if (served.encryptedWeights()) {
            if (!ModelStore.encryptedUnder(served.dir(), keyDir)) {
                throw new HttpError(
                        409,
                        "the encrypted model " + model + " was encrypted under another key set than " + keySet
                                + ": it runs only with the key set it was uploaded for");
            }
        }
        cache.requireFits(keySet);
        return keyDir;
    }

    /**
     * Checks the query against its key set and the model, stores it and queues it.
     *
     * @param written called with the query's bytes written so far; it may refuse them by throwing (a quota)
     */
    Job submit(String model, String keySet, Tenant tenant, InputStream body, java.util.function.LongConsumer written)
            throws IOException {
        var served = models.get(model);
        Path keyDir = admit(model, keySet);
        // the header is checked before a byte is written: a junk body is refused at its first bytes
        byte[] head = body.readNBytes(HEADER_PEEK);
        checkAgainstKeySet(head, keyDir);
        String id = UUID.randomUUID().toString();
        Path jobDir = Files.createDirectory(dir.resolve(id));
        try {
            Path query = jobDir.resolve(QUERY);
            long n;
            try (OutputStream out = Files.newOutputStream(query)) {
                n = BoundedCopy.copy(
                        new SequenceInputStream(new ByteArrayInputStream(head), body),
                        out,
                        maxQueryBytes,
                        "the query",
                        maxQueryBytes,
                        written);
            }
            Properties meta = new Properties();
            meta.setProperty("model", served.name());
            meta.setProperty("key_set", keySet);
            meta.setProperty("tenant", tenant.name());
            try (OutputStream out = Files.newOutputStream(jobDir.resolve(QUERY + ".meta"))) {
                meta.store(out, null);
            }
            Job job = new Job(id, served.name(), keySet, tenant.name());
            Runnable run = () -> run(job);
            jobs.put(id, job);
            queued.put(id, run);
            try {
                workers.execute(run);
            } catch (RejectedExecutionException e) {
                jobs.remove(id);
                queued.remove(id);
                throw new HttpError(
                        503,
                        "the queue is full (" + workers.getQueue().size() + " jobs waiting for "
                                + workers.getMaximumPoolSize() + " workers); try again later",
                        30);
            }
            LOG.debug("job {} queued: model {}, key set {}, {} bytes", id, model, keySet, n);
            return job;
        } catch (RuntimeException | IOException e) {
            if (!jobs.containsKey(id)) {
                KeyStore.deleteTree(jobDir);
            }
            throw e;
        }
    }

    /**
     * The header names the key set's backend, parameters, packing and (files of format 3) the key set itself, or the
     * query is refused now rather than failing in a worker.
     */
    private static void checkAgainstKeySet(byte[] head, Path keyDir) throws IOException {
        KeySetIdentity id;
        try {
            var file = EncryptedTensorFormat.identify(new ByteArrayInputStream(head));
            id = new KeySetIdentity(file.backend(), file.parameterHash(), file.packingSlots(), file.keySetId());
        } catch (java.io.EOFException e) {
            throw new HttpError(
                    400,
                    "the query is not a valid encrypted tensor file: it ends inside its header"
                            + (head.length == HEADER_PEEK
                                    ? " (or its header is longer than " + HEADER_PEEK + " bytes)"
                                    : ""));
        } catch (HeException e) {
            throw new HttpError(400, "the query is not a valid encrypted tensor file: " + e.getMessage());
        }
        String mismatch = KeySetIdentity.ofKeyFolder(keyDir).mismatch(id);
        if (mismatch != null) {
            throw new HttpError(
                    409,
                    "the query cannot run with the key set named: " + mismatch + "; encrypt it "
                            + "with the keys whose server half was uploaded");
        }
    }

    private void run(Job job) {
        queued.remove(job.id);
        if (job.cancelRequested) {
            job.finish(Job.State.CANCELLED, null, 0);
            writeStatus(job);
            return;
        }
        var served = models.get(job.model);
        long t0 = System.nanoTime();
        job.started(served.model().model().info().layers());
        try (var lease = cache.acquire(job.keySet)) {
            Path jobDir = dir.resolve(job.id);
            var contents = EncryptedInference.read(lease.keys(), jobDir.resolve(QUERY));
            EncryptedTensor embeddings = contents.tensors().get("embeddings");
            if (embeddings == null) {
                throw new HttpError(400, "the query holds no 'embeddings' tensor (make it with 'polyhe encrypt')");
            }
            // a cancel or the server's stop (which interrupts the workers) ends the job at its next operator
            // an encrypted model's parameters: read for each job, so that only running jobs hold them
            var parameters = served.encryptedWeights() ? EncryptedModelFolder.read(served.dir(), lease.keys()) : null;
            var result = served.encrypted()
                    .evaluate(
                            lease.keys(),
                            served.model(),
                            embeddings,
                            served.calibration(),
                            parameters,
                            step -> job.progress(step.block(), step.bootstraps(), step.elapsedSeconds()),
                            accounting -> accounting.stopWhen(() -> job.cancelRequested
                                    || Thread.currentThread().isInterrupted()));
            Map<String, EncryptedTensor> tensors = new LinkedHashMap<>();
            tensors.put("last_hidden_state", result.output().lastHiddenState());
            if (result.output().logits() != null) {
                tensors.put("logits", result.output().logits());
            }
            Path tmp = jobDir.resolve(RESULT + ".tmp");
            EncryptedInference.write(
                    lease.keys(), Map.of("model_type", served.model().modelType()), tensors, tmp);
            Files.move(tmp, jobDir.resolve(RESULT), StandardCopyOption.ATOMIC_MOVE);
            evaluationNanos.addAndGet(System.nanoTime() - t0);
            engineNanos.addAndGet(Math.round(result.seconds() * 1e9));
            finishedJobs.incrementAndGet();
            job.engineSeconds(result.seconds());
            var weights = result.accounting().weightCache();
            if (weights != null) {
                job.weightCache(weights.hits(), weights.misses());
            }
            job.finish(Job.State.DONE, null, (System.nanoTime() - t0) / 1e9);
        } catch (CancellationException e) {
            boolean cancelled = job.cancelRequested;
            job.finish(
                    cancelled ? Job.State.CANCELLED : Job.State.FAILED,
                    cancelled ? null : STOPPED,
                    (System.nanoTime() - t0) / 1e9);
        } catch (OutOfMemoryError e) {
            failedJobs.incrementAndGet();
            job.finish(Job.State.FAILED, "the server ran out of memory on this job", (System.nanoTime() - t0) / 1e9);
        } catch (Exception e) {
            if (stopping) {
                // the stop interrupted a wait on the evaluator's threads or a file: not the job's fault
                job.finish(Job.State.FAILED, STOPPED, (System.nanoTime() - t0) / 1e9);
            } else {
                failedJobs.incrementAndGet();
                LOG.warn("job {} failed: {}", job.id, e.toString());
                job.finish(
                        Job.State.FAILED,
                        e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(),
                        (System.nanoTime() - t0) / 1e9);
            }
        } catch (Error e) {
            // a plugin's StackOverflowError or AssertionError ends the job, not the worker, and never leaves it
            // "running" forever; a broken JVM (InternalError, ...) is still rethrown once the job is marked failed
            failedJobs.incrementAndGet();
            LOG.error("job {} died: {}", job.id, e.toString());
            job.finish(Job.State.FAILED, "the worker died on this job: " + e, (System.nanoTime() - t0) / 1e9);
            writeStatus(job);
            if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) {
                throw e;
            }
            return;
        }
        writeStatus(job);
    }

    private void writeStatus(Job job) {
        Path d = dir.resolve(job.id);
        try {
            Path tmp = d.resolve(STATUS + ".tmp");
            JSON.writeValue(
                    tmp.toFile(), job.toJson(JSON).put("tenant", job.tenant).put("ended_at", job.endedAt()));
            Files.move(tmp, d.resolve(STATUS), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOG.warn("cannot record the status of job {}: {}", job.id, e.toString());
        }
    }

    /** @throws HttpError 404 alike for an unknown job, another tenant's, and one past its time to live */
    Job get(String id, Tenant tenant) {
        Job j = id == null ? null : jobs.get(id);
        if (j == null
                || !(tenant.seesAll() || tenant.name().equals(j.tenant))
                || expired(j, System.currentTimeMillis())) {
            throw new HttpError(404, "no job '" + id + "' on this server");
        }
        return j;
    }

    /** Removes an ended job now, as its time to live would: its status, query and result. */
    void remove(Job job) {
        if (job.state().finished() && jobs.remove(job.id, job)) {
            Path d = dir.resolve(job.id);
            if (Files.exists(d)) {
                KeyStore.deleteTree(d);
            }
        }
    }

    /** Every job kept, whatever its state and tenant. */
    java.util.Collection<Job> all() {
        return java.util.Collections.unmodifiableCollection(jobs.values());
    }

    /** The tenant's jobs in the store, whatever their state: each keeps its query, and once done its result. */
    long stored(Tenant tenant) {
        return jobs.values().stream()
                .filter(j -> tenant.name().equals(j.tenant))
                .count();
    }

    /** The bytes the tenant's jobs keep in the store: queries, results, status files. */
    long bytes(Tenant tenant) {
        return jobs.values().stream()
                .filter(j -> tenant.name().equals(j.tenant))
                .mapToLong(j -> KeyStore.treeBytes(dir.resolve(j.id)))
                .sum();
    }

    /** The tenant's jobs queued or running. */
    long pending(Tenant tenant) {
        return jobs.values().stream()
                .filter(j -> tenant.name().equals(j.tenant) && !j.state().finished())
                .count();
    }

    /** A queued job is dropped now; a running one stops at its next operator. */
    Job cancel(String id, Tenant tenant) {
        Job j = get(id, tenant);
        if (!j.state().finished()) {
            j.cancelRequested = true;
            Runnable r = queued.remove(id);
            if (r != null && workers.remove(r)) {
                j.finish(Job.State.CANCELLED, null, 0);
                writeStatus(j);
            }
        }
        return j;
    }

    /** The result file of a finished job. */
    Path result(String id, Tenant tenant) {
        Job j = get(id, tenant);
        if (j.state() != Job.State.DONE) {
            throw new HttpError(
                    409,
                    "job " + id + " is " + j.state().name().toLowerCase() + (j.error() != null ? ": " + j.error() : "")
                            + "; its result exists once it is done");
        }
        return dir.resolve(id).resolve(RESULT);
    }

    int queueLength() {
        return workers.getQueue().size();
    }

    int running() {
        return workers.getActiveCount();
    }

    int workers() {
        return workers.getMaximumPoolSize();
    }

    double evaluationSeconds() {
        return evaluationNanos.get() / 1e9;
    }

    /** The engine's own evaluation time of finished jobs: their server time less keys, reading and writing. */
    double engineSeconds() {
        return engineNanos.get() / 1e9;
    }

    @Override
    public void close() {
        stopping = true;
        workers.shutdownNow();
        try {
            workers.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.polyhe.batch;

import dev.polyhe.api.he.HeException;
import dev.polyhe.core.KeySetIdentity;
import dev.polyhe.core.encrypted.EncryptedModelFolder;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaFutureAction;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * The driver's side of a batch: every {@code *.ct} of the queries folder is routed to its key set from its header
 * (a query no key set fits, or that is not an encrypted file, is refused here and reported), then the others run as
 * one Spark job of one task per query, and the outcomes come back in the queries' order.
 */
final class BatchJob {
    static final String RESULT_SUFFIX = ".result.ct";
    private static final long STOPPED_GRACE_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** The whole batch: one outcome per query file, in name order. */
    record Result(List<QueryOutcome> outcomes, double wallSeconds, String master, int keySets) {
        long done() {
            return outcomes.stream().filter(QueryOutcome::done).count();
        }
    }

    private BatchJob() {}

    static Result run(
            SparkConf conf, Path queries, Path keyStore, Path output, BatchSettings settings, PrintWriter progress)
            throws IOException {
        long t0 = System.nanoTime();
        List<Path> files = queryFiles(queries);
        KeyStoreIndex index = KeyStoreIndex.scan(keyStore);
        Files.createDirectories(output);
        Map<String, QueryOutcome> outcomes = new LinkedHashMap<>();
        List<QuerySpec> specs = new ArrayList<>();
        // an encrypted model runs with the one key set it was encrypted under: other queries are refused here
        Path model = Path.of(settings.model());
        String modelKeySet = EncryptedModelFolder.isEncrypted(model)
                ? EncryptedModelFolder.manifest(model).keySetId()
                : null;
        for (Path f : files) {
            String name = f.getFileName().toString();
            outcomes.put(name, null);
            try {
                KeySetIdentity identity = KeySetIdentity.ofEncryptedFile(f);
                if (modelKeySet != null && !modelKeySet.equals(identity.keySetId())) {
                    throw new BatchInputException("encrypted under key set '" + identity.keySetId() + "', but the "
                            + "encrypted model " + model.getFileName() + " runs only with key set '" + modelKeySet
                            + "', which it was encrypted under");
                }
                Path keys = index.folderFor(identity);
                String stem = name.substring(0, name.length() - ".ct".length());
                specs.add(new QuerySpec(
                        name,
                        f.toAbsolutePath().toString(),
                        keys.toAbsolutePath().toString(),
                        identity.backend(),
                        output.resolve(stem + RESULT_SUFFIX).toAbsolutePath().toString()));
            } catch (HeException e) {
                outcomes.put(name, QueryOutcome.refused(name, "not a valid encrypted tensor file: " + e.getMessage()));
            } catch (BatchInputException | IOException e) {
                outcomes.put(name, QueryOutcome.refused(name, e.getMessage()));
            }
        }
        progress.printf(
                "batch: %d queries, %d refused before running, %d key set(s) in %s%n",
                files.size(), files.size() - specs.size(), index.size(), keyStore);
        progress.flush();
        String master = conf.get("spark.master", "?");
        if (!specs.isEmpty()) {
            try (JavaSparkContext sc = new JavaSparkContext(conf)) {
                master = sc.master();
                sc.sc().addSparkListener(new Progress(progress, specs.size(), t0));
                var job = sc.parallelize(specs, specs.size())
                        .map(new QueryTask(settings))
                        .collectAsync();
                for (QueryOutcome o : awaitUnlessStopped(sc, job)) {
                    outcomes.put(o.name(), o);
                }
            } catch (Exception e) { // SparkException is checked, though Java does not see it thrown
                // Spark itself failed (no context, the master gone, the job aborted): the report still says so
                String reason = sparkReason(e);
                long lost = specs.stream()
                        .filter(q -> outcomes.get(q.name()) == null)
                        .count();
                for (QuerySpec q : specs) {
                    outcomes.computeIfAbsent(q.name(), n -> QueryOutcome.lostToSpark(n, reason));
                }
                progress.printf(
                        "polyhe batch: Spark failed, %d queries not answered (see batch.json): %s%n", lost, reason);
                progress.flush();
            }
        }
        return new Result(List.copyOf(outcomes.values()), (System.nanoTime() - t0) / 1e9, master, index.size());
    }

    /**
     * The job's results. Spark stops the context under a running job when the master gives the application up; the
     * job should then fail, but a driver was once seen waiting on it for minutes, so a stopped context ends the wait.
     */
    private static <T> T awaitUnlessStopped(JavaSparkContext sc, JavaFutureAction<T> job) throws Exception {
        long stoppedAt = 0;
        while (true) {
            try {
                return job.get(1, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                if (!sc.sc().isStopped()) {
                    continue;
                }
                if (stoppedAt == 0) {
                    stoppedAt = System.nanoTime();
                } else if (System.nanoTime() - stoppedAt > STOPPED_GRACE_NANOS) {
                    job.cancel(true);
                    throw new IllegalStateException("Spark stopped its context while the job ran (Spark's log says "
                            + "why: an unreachable master, the application removed)");
                }
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
    }

    /** Spark's own first line: its job-abort message holds the task's failure, then a driver stack trace. */
    static String sparkReason(Throwable e) {
        String m = e.getMessage() == null ? e.toString() : e.getMessage();
        m = m.strip().lines().findFirst().orElse(e.toString());
        return m.length() > 600 ? m.substring(0, 600) + "..." : m;
    }

    private static List<Path> queryFiles(Path queries) throws IOException {
        if (!Files.isDirectory(queries)) {
            throw new BatchInputException("the queries folder " + queries + " is not a folder");
        }
        try (Stream<Path> s = Files.list(queries)) {
            List<Path> files = s.filter(p -> p.getFileName().toString().endsWith(".ct")
                            && !p.getFileName().toString().endsWith(RESULT_SUFFIX)
                            && Files.isRegularFile(p))
                    .sorted()
                    .toList();
            if (files.isEmpty()) {
                throw new BatchInputException("no query in " + queries + ": expected encrypted inputs named *.ct "
                        + "(from 'polyhe encrypt')");
            }
            return files;
        }
    }

    /** A line on the driver as each query's task ends. */
    private static final class Progress extends SparkListener {
        private final PrintWriter out;
        private final int total;
        private final long t0;
        private final AtomicInteger ended = new AtomicInteger();

        Progress(PrintWriter out, int total, long t0) {
            this.out = out;
            this.total = total;
            this.t0 = t0;
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            synchronized (out) {
                out.printf(
                        "batch: %d of %d queries finished, %.1f s%n",
                        ended.incrementAndGet(), total, (System.nanoTime() - t0) / 1e9);
                out.flush();
            }
        }
    }
}

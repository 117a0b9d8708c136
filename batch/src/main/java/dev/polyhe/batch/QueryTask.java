package dev.polyhe.batch;

import dev.polyhe.core.PrivateInference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Spark task: one query evaluated on an executor with the keys it caches, its answer written beside the others
 * by rename (never half a file). A failure is tried again up to {@link BatchSettings#retries()} times and then
 * reported in the query's row; it never fails the Spark job, so the other queries finish.
 */
final class QueryTask implements Function<QuerySpec, QueryOutcome> {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(QueryTask.class);

    private final BatchSettings settings;

    QueryTask(BatchSettings settings) {
        this.settings = settings;
    }

    @Override
    public QueryOutcome call(QuerySpec q) {
        List<String> errors = new ArrayList<>();
        for (int attempt = 1; ; attempt++) {
            try {
                return run(q, attempt);
            } catch (Exception | StackOverflowError | OutOfMemoryError e) {
                String why = e.getMessage() == null ? e.toString() : e.getMessage();
                errors.add("attempt " + attempt + ": " + why);
                LOG.warn("{}: attempt {} of {} failed: {}", q.name(), attempt, settings.retries() + 1, why);
                if (attempt > settings.retries()) {
                    return new QueryOutcome(
                            q.name(),
                            false,
                            attempt,
                            executor(),
                            false,
                            0,
                            0,
                            0,
                            0,
                            0,
                            -1,
                            null,
                            String.join("; ", errors));
                }
            }
        }
    }

    private QueryOutcome run(QuerySpec q, int attempt) throws Exception {
        long t0 = System.nanoTime();
        String backend = settings.evaluating(q.backend());
        var keys = ExecutorCache.keys(settings, q.keyFolder(), backend);
        PrivateInference model = ExecutorCache.model(settings, backend);
        long t1 = System.nanoTime();
        var query = model.readQuery(keys.keys(), Path.of(q.query()));
        long t2 = System.nanoTime();
        var answer = model.evaluate(keys.keys(), query, ExecutorCache.calibration(settings), event -> {
            if (event instanceof PrivateInference.BlockDone b) {
                LOG.info(
                        "{}: block {}/{} done, {} bootstraps, {} s",
                        q.name(),
                        b.block(),
                        b.blocks(),
                        b.bootstraps(),
                        String.format("%.1f", b.elapsedSeconds()));
            }
        });
        long t3 = System.nanoTime();
        Path out = Path.of(q.output());
        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
        try {
            model.write(keys.keys(), answer, tmp);
            Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        long t4 = System.nanoTime();
        return new QueryOutcome(
                q.name(),
                true,
                attempt,
                executor(),
                keys.cached(),
                seconds(t1 - t0),
                seconds(t2 - t1),
                answer.seconds(),
                seconds(t4 - t3),
                seconds(t4 - t0),
                answer.bootstraps(),
                out.getFileName().toString(),
                null);
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }

    private static String executor() {
        SparkEnv env = SparkEnv.get();
        return env == null ? "none" : env.executorId();
    }
}

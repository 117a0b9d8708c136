package dev.polyhe.batch;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The batch's report: {@value #FILE} beside the answers (per-query timings), and the same as a table. */
final class BatchReport {
    static final String FILE = "batch.json";
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BatchReport() {}

    /** @param attention which attention the model ran and why ({@code PrivateInference#attention()}) */
    static ObjectNode json(BatchJob.Result r, String model, String attention) {
        ObjectNode root = JSON.createObjectNode();
        root.put("model", model);
        root.put("attention", attention);
        root.put("master", r.master());
        root.put("queries", r.outcomes().size());
        root.put("done", r.done());
        root.put("failed", r.outcomes().size() - r.done());
        root.put("key_sets", r.keySets());
        root.put("wall_seconds", r.wallSeconds());
        root.put(
                "query_seconds_sum",
                r.outcomes().stream().mapToDouble(QueryOutcome::totalSeconds).sum());
        var rows = root.putArray("results");
        for (QueryOutcome o : r.outcomes()) {
            ObjectNode row = rows.addObject();
            row.put("query", o.name());
            row.put("status", o.done() ? "done" : "failed");
            row.put("attempts", o.attempts());
            row.put("executor", o.executor());
            if (o.done()) {
                row.put("output", o.output());
                row.put("keys_cached", o.keysCached());
                row.put("bootstraps", o.bootstraps());
                ObjectNode s = row.putObject("seconds");
                s.put("load", o.loadSeconds());
                s.put("read", o.readSeconds());
                s.put("evaluate", o.evaluateSeconds());
                s.put("write", o.writeSeconds());
                s.put("total", o.totalSeconds());
            } else {
                row.put("error", o.error());
            }
        }
        return root;
    }

    /** Written by rename: a reader never sees half a report. */
    static Path write(BatchJob.Result r, String model, String attention, Path output) throws IOException {
        Path file = output.resolve(FILE);
        Path tmp = output.resolve(FILE + ".tmp");
        JSON.writeValue(tmp.toFile(), json(r, model, attention));
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return file;
    }

    static String text(BatchJob.Result r) {
        StringBuilder b = new StringBuilder();
        int width = Math.max(
                8, r.outcomes().stream().mapToInt(o -> o.name().length()).max().orElse(0));
        b.append(String.format(
                "%-" + width + "s  %-6s  %8s  %-8s  %-6s  %8s  %8s  %8s  %10s%n",
                "query",
                "status",
                "attempts",
                "executor",
                "keys",
                "load s",
                "eval s",
                "total s",
                "bootstraps"));
        for (QueryOutcome o : r.outcomes()) {
            if (o.done()) {
                b.append(String.format(
                        "%-" + width + "s  %-6s  %8d  %-8s  %-6s  %8.1f  %8.1f  %8.1f  %10d%n",
                        o.name(),
                        "done",
                        o.attempts(),
                        o.executor(),
                        o.keysCached() ? "cached" : "loaded",
                        o.loadSeconds(),
                        o.evaluateSeconds(),
                        o.totalSeconds(),
                        o.bootstraps()));
            } else {
                b.append(String.format(
                        "%-" + width + "s  %-6s  %8d  %s%n", o.name(), "failed", o.attempts(), o.error()));
            }
        }
        b.append(String.format(
                "%d queries: %d done, %d failed, in %.1f s on %s (sum of query times %.1f s)%n",
                r.outcomes().size(),
                r.done(),
                r.outcomes().size() - r.done(),
                r.wallSeconds(),
                r.master(),
                r.outcomes().stream().mapToDouble(QueryOutcome::totalSeconds).sum()));
        return b.toString();
    }
}

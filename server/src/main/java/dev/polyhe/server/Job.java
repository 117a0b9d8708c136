package dev.polyhe.server;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** One encrypted query: its state, its progress, and who is watching it (server-sent events). */
final class Job {
    enum State {
        QUEUED,
        RUNNING,
        DONE,
        FAILED,
        CANCELLED;

        boolean finished() {
            return this == DONE || this == FAILED || this == CANCELLED;
        }
    }

    final String id;
    final String model;
    final String keySet;
    /** The tenant that submitted it (null: a job of a server before tenants, which only --no-auth sees). */
    final String tenant;

    private volatile State state = State.QUEUED;
    private volatile int blocksDone;
    private volatile int blocks;
    private volatile long bootstraps;
    private volatile double elapsedSeconds;
    private volatile double engineSeconds = Double.NaN;
    /** {hits, misses} of the job's weight products in the model's weight cache; null without one. */
    private volatile long[] weightCache;

    private volatile String error;
    /** When the job ended, in milliseconds since the epoch; 0 while it is queued or running. */
    private volatile long endedAt;

    volatile boolean cancelRequested;
    private final List<Consumer<Job>> watchers = new CopyOnWriteArrayList<>();

    Job(String id, String model, String keySet, String tenant) {
        this.id = id;
        this.model = model;
        this.keySet = keySet;
        this.tenant = tenant;
    }

    State state() {
        return state;
    }

    String error() {
        return error;
    }

    double elapsedSeconds() {
        return elapsedSeconds;
    }

    void started(int blocks) {
        this.blocks = blocks;
        this.state = State.RUNNING;
        changed();
    }

    void progress(int blocksDone, long bootstraps, double elapsedSeconds) {
        this.blocksDone = blocksDone;
        this.bootstraps = bootstraps;
        this.elapsedSeconds = elapsedSeconds;
        changed();
    }

    void finish(State end, String error, double elapsedSeconds) {
        this.error = error;
        this.elapsedSeconds = elapsedSeconds;
        this.endedAt = System.currentTimeMillis();
        this.state = end;
        changed();
    }

    /** When the job ended (milliseconds since the epoch), or 0 while it has not. */
    long endedAt() {
        return endedAt;
    }

    /** A job read back from its status file ends when the file says, or when the file was written. */
    void endedAt(long millis) {
        this.endedAt = millis;
    }

    /** The engine's own evaluation time, of a job done: its elapsed time less keys, reading and writing. */
    void engineSeconds(double seconds) {
        this.engineSeconds = seconds;
    }

    /** How many of the job's weight products found their weights encoded, and how many encoded them. */
    void weightCache(long hits, long misses) {
        this.weightCache = new long[] {hits, misses};
    }

    void watch(Consumer<Job> w) {
        watchers.add(w);
    }

    void unwatch(Consumer<Job> w) {
        watchers.remove(w);
    }

    private void changed() {
        watchers.forEach(w -> w.accept(this));
    }

    ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode n = mapper.createObjectNode();
        n.put("job_id", id)
                .put("model", model)
                .put("key_set", keySet)
                .put("state", state.name().toLowerCase());
        n.put("blocks_done", blocksDone).put("blocks", blocks).put("bootstraps", bootstraps);
        n.put("elapsed_seconds", elapsedSeconds);
        if (!Double.isNaN(engineSeconds)) {
            n.put("engine_seconds", engineSeconds);
        }
        long[] w = weightCache;
        if (w != null) {
            n.putObject("weight_cache").put("hits", w[0]).put("misses", w[1]);
        }
        if (state == State.RUNNING && blocksDone > 0) {
            n.put("eta_seconds", elapsedSeconds / blocksDone * (blocks - blocksDone));
        }
        if (error != null) {
            n.put("error", error);
        }
        return n;
    }

    /** A job as its status file recorded it (a finished one, after a restart). */
    static Job fromJson(com.fasterxml.jackson.databind.JsonNode n) {
        Job j = new Job(
                n.get("job_id").asText(),
                n.get("model").asText(),
                n.get("key_set").asText(),
                n.hasNonNull("tenant") ? n.get("tenant").asText() : null);
        j.blocks = n.path("blocks").asInt();
        j.blocksDone = n.path("blocks_done").asInt();
        j.bootstraps = n.path("bootstraps").asLong();
        j.elapsedSeconds = n.path("elapsed_seconds").asDouble();
        j.engineSeconds = n.path("engine_seconds").asDouble(Double.NaN);
        if (n.has("weight_cache")) {
            j.weightCache = new long[] {
                n.get("weight_cache").path("hits").asLong(),
                n.get("weight_cache").path("misses").asLong()
            };
        }
        j.error = n.hasNonNull("error") ? n.get("error").asText() : null;
        j.endedAt = n.path("ended_at").asLong(0);
        j.state = State.valueOf(n.get("state").asText().toUpperCase());
        return j;
    }
}

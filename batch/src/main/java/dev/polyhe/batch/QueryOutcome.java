package dev.polyhe.batch;

import java.io.Serializable;

/**
 * What became of one query: its row of the batch report.
 *
 * @param attempts how many times a task ran it (0: refused by the driver before any task, or lost to a Spark failure)
 * @param executor the Spark executor that ran its last attempt ("driver" in local mode)
 * @param keysCached whether the executor already held the query's evaluation keys
 * @param loadSeconds loading the evaluation keys and the model (about 0 when the executor held them)
 * @param evaluateSeconds the engine's evaluation
 * @param totalSeconds the last attempt, reading the query to writing the answer
 * @param error why it failed, each attempt's reason; null when done
 */
record QueryOutcome(
        String name,
        boolean done,
        int attempts,
        String executor,
        boolean keysCached,
        double loadSeconds,
        double readSeconds,
        double evaluateSeconds,
        double writeSeconds,
        double totalSeconds,
        long bootstraps,
        String output,
        String error)
        implements Serializable {

    static QueryOutcome refused(String name, String error) {
        return new QueryOutcome(name, false, 0, null, false, 0, 0, 0, 0, 0, -1, null, error);
    }

    /** A query whose answer never reached the driver because Spark failed (its task may not have run). */
    static QueryOutcome lostToSpark(String name, String sparkReason) {
        return new QueryOutcome(name, false, 0, null, false, 0, 0, 0, 0, 0, -1, null, "Spark failed: " + sparkReason);
    }
}

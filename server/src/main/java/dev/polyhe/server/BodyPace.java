package dev.polyhe.server;

import java.util.concurrent.TimeUnit;

/**
 * How fast a request's body must arrive: after a grace period, at least {@code minBytesPerSecond} on average since
 * its headers, and all of it within the request timeout. A body at one byte a second is answered 408 a few seconds
 * in, whether it waits for a thread or holds one.
 *
 * @param minBytesPerSecond the slowest average rate a body may keep past the grace period
 * @param graceMillis how long a body may take to start (a client opening its file, a TLS record filling)
 * @param requestTimeoutMillis the whole body must have arrived within it
 */
record BodyPace(long minBytesPerSecond, long graceMillis, long requestTimeoutMillis) {
    /** The grace before the rate counts. */
    static final long GRACE_MILLIS = 5_000;

    BodyPace {
        if (minBytesPerSecond < 1 || requestTimeoutMillis < 1) {
            throw new IllegalArgumentException("--min-body-rate and --request-timeout need at least 1, got "
                    + minBytesPerSecond + " bytes a second and " + requestTimeoutMillis + " ms");
        }
    }

    /** The time ({@link System#nanoTime()}) by which more than {@code bytes} bytes must have come. */
    long deadline(long startNanos, long bytes) {
        long byRate =
                startNanos + TimeUnit.MILLISECONDS.toNanos(graceMillis) + (long) (bytes * (1e9 / minBytesPerSecond));
        return Math.min(byRate, startNanos + TimeUnit.MILLISECONDS.toNanos(requestTimeoutMillis));
    }

    /** @throws HttpError 408 when {@code bytes} is all that came by {@code now} and that is too little */
    void check(long startNanos, long bytes, long now) {
        if (now - deadline(startNanos, bytes) > 0) {
            throw late(startNanos, bytes, now);
        }
    }

    HttpError late(long startNanos, long bytes, long now) {
        long seconds = TimeUnit.NANOSECONDS.toSeconds(now - startNanos);
        if (now - startNanos >= TimeUnit.MILLISECONDS.toNanos(requestTimeoutMillis)) {
            return new HttpError(
                    408,
                    "the request's body did not arrive within " + requestTimeoutMillis / 1000
                            + " s (--request-timeout); " + bytes + " bytes came");
        }
        return new HttpError(
                408,
                "the request's body came too slowly: " + bytes + " bytes in " + seconds + " s, below this server's "
                        + minBytesPerSecond + " bytes a second (--min-body-rate)");
    }
}

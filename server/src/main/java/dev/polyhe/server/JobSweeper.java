package dev.polyhe.server;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes expired jobs from the store on a daemon thread of its own, a few times per time to live (at most every 10
 * minutes): a request never waits for it, and a job past its time to live already answers 404 before it is swept.
 */
final class JobSweeper implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(JobSweeper.class);
    private static final long MIN_PERIOD_MILLIS = 50;
    private static final long MAX_PERIOD_MILLIS = TimeUnit.MINUTES.toMillis(10);

    private final ScheduledExecutorService thread;

    JobSweeper(Jobs jobs, Duration ttl) {
        long period = period(ttl);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "polyhe-job-sweeper");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(
                () -> {
                    try {
                        jobs.expire(System.currentTimeMillis());
                    } catch (RuntimeException e) {
                        // a folder that cannot be removed now is tried again at the next sweep
                        LOG.warn("cannot remove expired jobs: {}", e.toString());
                    }
                },
                0,
                period,
                TimeUnit.MILLISECONDS);
    }

    /** A quarter of the time to live, within 50 ms and 10 minutes. */
    static long period(Duration ttl) {
        return Math.max(MIN_PERIOD_MILLIS, Math.min(MAX_PERIOD_MILLIS, ttl.toMillis() / 4));
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}

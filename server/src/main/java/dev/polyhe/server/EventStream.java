package dev.polyhe.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's server-sent events ({@code event: status}), written without a thread: the job's changes and a timer
 * schedule each write, one at a time, and a peer that reads slowly gets the latest status when it is ready for
 * more (each event is the whole status, so one it missed is told by the next). What a stream holds is this object
 * and its connection's buffers, so the cap on streams is a memory figure.
 */
final class EventStream {
    private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);
    private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

    private final Exchange exchange;
    private final Job job;
    private final Function<Job, String> status;
    private final Runnable closed;
    private final Consumer<Job> watcher = j -> pump(false);
    private final Scheduler scheduler;
    private final long keepAliveMillis;

    private String last;
    private boolean writing;
    private boolean again;
    private boolean keepAliveDue;
    private boolean ended;
    private Scheduler.Task timer;

    /**
     * @param status the job's status as the event's data (one line of JSON)
     * @param closed called once when the stream ends, however it ends
     */
    EventStream(
            Exchange exchange,
            Job job,
            Function<Job, String> status,
            Runnable closed,
            Scheduler scheduler,
            long keepAliveMillis) {
        this.exchange = exchange;
        this.job = job;
        this.status = status;
        this.closed = closed;
        this.scheduler = scheduler;
        this.keepAliveMillis = keepAliveMillis;
    }

    /** Sends the head, then the status now and at every change until the job ends. */
    void start() {
        // the stream's own keep-alive writes find a peer that went away; a quiet stream is not idle
        exchange.request.addIdleTimeoutListener(t -> false);
        job.watch(watcher);
        synchronized (this) {
            writing = true;
        }
        exchange.beginStream(200, "text/event-stream", Callback.from(this::written, this::failed));
    }

    private void schedule() {
        timer = scheduler.schedule(
                () -> {
                    synchronized (this) {
                        keepAliveDue = true;
                    }
                    pump(false);
                },
                keepAliveMillis,
                TimeUnit.MILLISECONDS);
    }

    /** Writes what is due unless a write is under way (then its completion does). */
    private void pump(boolean completing) {
        byte[] data;
        boolean end;
        synchronized (this) {
            if (ended) {
                return;
            }
            if (writing && !completing) {
                again = true;
                return;
            }
            again = false;
            boolean finished = job.state().finished();
            String event = status.apply(job);
            if (!event.equals(last)) {
                last = event;
                data = ("event: status\ndata: " + event + "\n\n").getBytes(StandardCharsets.UTF_8);
            } else if (keepAliveDue) {
                data = KEEP_ALIVE;
            } else {
                data = null;
            }
            keepAliveDue = false;
            end = finished;
            if (data == null && !end) {
                writing = false;
                return;
            }
            writing = true;
            if (end) {
                ended = true;
            }
            if (timer != null) {
                timer.cancel();
            }
            if (!end) {
                schedule();
            }
        }
        if (end) {
            stop();
            exchange.response.write(true, ByteBuffer.wrap(data == null ? new byte[0] : data), exchange.callback);
        } else {
            exchange.response.write(false, ByteBuffer.wrap(data), Callback.from(this::written, this::failed));
        }
    }

    private void written() {
        boolean more;
        synchronized (this) {
            more = !ended;
        }
        if (more) {
            pump(true);
        }
    }

    private void failed(Throwable why) {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            if (timer != null) {
                timer.cancel();
            }
        }
        LOG.debug("event stream of job {} ended: {}", job.id, why.toString());
        stop();
        exchange.callback.failed(why);
    }

    private void stop() {
        job.unwatch(watcher);
        closed.run();
    }
}

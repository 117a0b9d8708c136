package dev.polyhe.launcher;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress of a long run on stderr, apart from the results on stdout: on a terminal one line rewritten in place
 * (steps done of all, bootstraps, elapsed, ETA), elsewhere (a log file, CI) one plain line per step.
 */
final class ProgressReport {
    private final PrintWriter err;
    private final String label;
    private final int total;
    private final boolean terminal;
    private final long start = System.nanoTime();
    private int done;

    ProgressReport(PrintWriter err, String label, int total) {
        this(err, label, total, onTerminal());
    }

    ProgressReport(PrintWriter err, String label, int total, boolean terminal) {
        this.err = err;
        this.label = label;
        this.total = total;
        this.terminal = terminal;
    }

    /** Whether stderr is an interactive terminal that can rewrite a line. */
    static boolean onTerminal() {
        String term = System.getenv("TERM");
        return System.console() != null && term != null && !term.equals("dumb");
    }

    private volatile Thread ticker;

    /**
     * On a terminal, rewrites the line every second with the operator being evaluated and the bootstraps so far
     * (read from the evaluating thread's accounting), until {@link #stop()}; elsewhere nothing: logs get a line per
     * step only.
     */
    void follow(java.util.function.Supplier<String> operator, java.util.function.LongSupplier bootstraps) {
        if (!terminal) {
            return;
        }
        Thread t = new Thread(
                () -> {
                    try {
                        while (!Thread.currentThread().isInterrupted()) {
                            Thread.sleep(1000);
                            tick(operator.get(), bootstraps.getAsLong());
                        }
                    } catch (InterruptedException e) {
                        // stopped
                    }
                },
                "polyhe-progress");
        t.setDaemon(true);
        ticker = t;
        t.start();
    }

    void stop() {
        Thread t = ticker;
        if (t != null) {
            t.interrupt();
        }
    }

    /** The live line: steps done of all, the current operator, bootstraps, elapsed, ETA. */
    synchronized void tick(String operator, long bootstraps) {
        double elapsed = (System.nanoTime() - start) / 1e9;
        String eta = done == 0 ? "ETA after the first block" : "ETA " + duration(elapsed / done * (total - done));
        err.print(String.format(
                Locale.ROOT,
                "\r\033[K%s: [%d/%d] %s, %d bootstraps, %s elapsed, %s",
                label,
                done,
                total,
                operator,
                bootstraps,
                duration(elapsed),
                eta));
        err.flush();
    }

    /** One more step done; {@code what} says which, {@code bootstraps} how many so far. */
    synchronized void step(String what, long bootstraps) {
        done++;
        double elapsed = (System.nanoTime() - start) / 1e9;
        String eta = done >= total ? "done" : "ETA " + duration(elapsed / done * (total - done));
        String line = String.format(
                Locale.ROOT,
                "%s: %s [%d/%d] %d bootstraps, %s elapsed, %s",
                label,
                what,
                done,
                total,
                bootstraps,
                duration(elapsed),
                eta);
        if (terminal) {
            err.print("\r\033[K" + line);
            if (done >= total) {
                err.println();
            }
        } else {
            err.println(line);
        }
        err.flush();
    }

    static String duration(double seconds) {
        long s = Math.round(seconds);
        return s < 60
                ? s + " s"
                : s < 3600
                        ? String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60)
                        : String.format(Locale.ROOT, "%d h %02d min", s / 3600, s % 3600 / 60);
    }
}

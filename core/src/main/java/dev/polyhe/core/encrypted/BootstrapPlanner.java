package dev.polyhe.core.encrypted;

import dev.polyhe.core.engine.ckks.Accounting;
import dev.polyhe.core.engine.ckks.RefreshPlan;
import java.util.function.Function;

/**
 * Plans bootstraps over a whole model before it runs: starting from greedy placement, it tries a planned refresh at
 * each site a symbolic run offers ({@link Accounting#refreshSites}) and keeps each one that lowers the count of
 * bootstrap calls, on symbolic runs ({@link dev.polyhe.core.engine.symbolic.SymbolicContext}: levels and scales
 * only, seconds for a Pythia-70M layer at 128 bits). It keeps a site only for a strict gain, so the plan never
 * bootstraps more than greedy placement does; and the symbolic run takes every decision the real one takes, so
 * the count planned is the count run.
 */
public final class BootstrapPlanner {
    /**
     * What planning found: the plan, its bootstrap calls, greedy placement's, how long planning took, and each site
     * tried with the calls the plan would have taken with it added (its last try).
     */
    public record Planned(RefreshPlan plan, long bootstraps, long greedyBootstraps, int symbolicRuns,
            double seconds, Accounting accounting, java.util.Map<String, Long> trials) {
        public String describe() {
            if (symbolicRuns == 0) {
                return String.format(java.util.Locale.ROOT, "bootstrap plan: %s; %d bootstrap calls (greedy "
                        + "placement: %d), planned before for the same model, key set and input shape", plan,
                        bootstraps, greedyBootstraps);
            }
            return String.format(java.util.Locale.ROOT, "bootstrap plan: %s; %d bootstrap calls (greedy placement: "
                    + "%d), planned on %d symbolic run(s) in %.1f s", plan, bootstraps, greedyBootstraps,
                    symbolicRuns, seconds);
        }

        /** The same plan, taken from a cache: no symbolic run, no planning time. */
        public Planned reused() {
            return new Planned(plan, bootstraps, greedyBootstraps, 0, 0, accounting, trials);
        }
    }

    private static final int MAX_PASSES = 3;

    private final Function<RefreshPlan, Accounting> symbolicRun;

    /** @param symbolicRun the model on a symbolic context, following the plan given; its accounting */
    public BootstrapPlanner(Function<RefreshPlan, Accounting> symbolicRun) {
        this.symbolicRun = symbolicRun;
    }

    /** @param search whether to look for planned refreshes; without, the plan is greedy placement's */
    public Planned plan(boolean search) {
        long t0 = System.nanoTime();
        Accounting greedy = symbolicRun.apply(RefreshPlan.GREEDY);
        long greedyCount = greedy.bootstrapsSoFar();
        RefreshPlan best = RefreshPlan.GREEDY;
        Accounting bestRun = greedy;
        long bestCount = greedyCount;
        int runs = 1;
        java.util.Map<String, Long> trials = new java.util.LinkedHashMap<>();
        // passes over the sites until one keeps nothing: a site can pay only once another has been kept
        boolean improved = search;
        for (int pass = 0; improved && pass < MAX_PASSES; pass++) {
            improved = false;
            for (String site : bestRun.refreshSites()) {
                if (best.refreshesBefore(site)) {
                    continue;
                }
                RefreshPlan tried = best.with(site);
                Accounting run = symbolicRun.apply(tried);
                runs++;
                long count = run.bootstrapsSoFar();
                trials.put(site, count);
                if (count < bestCount) {
                    best = tried;
                    bestCount = count;
                    bestRun = run;
                    improved = true;
                }
            }
        }
        return new Planned(best, bestCount, greedyCount, runs, (System.nanoTime() - t0) / 1e9, bestRun,
                java.util.Collections.unmodifiableMap(trials));
    }
}

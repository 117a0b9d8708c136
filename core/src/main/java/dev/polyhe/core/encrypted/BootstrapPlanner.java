package dev.polyhe.core.encrypted;

import dev.polyhe.core.engine.encrypted.Accounting;
import dev.polyhe.core.engine.encrypted.RefreshPlan;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Plans bootstraps over a whole model before it runs: starting from greedy placement, it tries a planned refresh at
 * each site a symbolic run offers ({@link Accounting#refreshSites}) and keeps each one that lowers the count of
 * bootstrap calls, or keeps it and lowers the estimated seconds ({@link Accounting#estimatedSeconds}), on symbolic
 * runs ({@link dev.polyhe.core.engine.symbolic.SymbolicContext}: levels and scales only, seconds for a Pythia-70M
 * layer at 128 bits). It keeps a site only for a strict gain, so the plan never
 * bootstraps more than greedy placement does; and the symbolic run takes every decision the real one takes, so
 * the count planned is the count run. Then it lowers the linear maps of the layers: each (one decision for every
 * layer) runs at the lowest level, found by bisection, at which a symbolic run shows no more bootstrap calls, kept if
 * that lowers the estimated seconds (at Pythia-70M's shape the attention's projections run at level 5, not 7: 21 %
 * fewer encoded limbs in the attention, and its rotations and products on two limbs fewer). Last it lowers the tail:
 * the first linear map after the last bootstrap runs at the lowest level that leaves the result decryptable
 * ({@link RefreshPlan#lowered}), kept if a symbolic run shows no more bootstraps and no output sent lower than its
 * decryption allows.
 */
public final class BootstrapPlanner {
    /**
     * What planning found: the plan, its bootstrap calls, greedy placement's, how long planning took, and each change
     * tried (its last try).
     */
    public record Planned(
            RefreshPlan plan,
            long bootstraps,
            long greedyBootstraps,
            int symbolicRuns,
            double seconds,
            Accounting accounting,
            List<Trial> trials) {
        public Planned {
            trials = List.copyOf(trials);
        }

        public String describe() {
            if (symbolicRuns == 0) {
                return String.format(
                        Locale.ROOT,
                        "bootstrap plan: %s; %d bootstrap calls (greedy "
                                + "placement: %d), planned before for the same model, key set and input shape",
                        plan,
                        bootstraps,
                        greedyBootstraps);
            }
            return String.format(
                    Locale.ROOT,
                    "bootstrap plan: %s; %d bootstrap calls (greedy placement: "
                            + "%d), planned on %d symbolic run(s) in %.1f s",
                    plan,
                    bootstraps,
                    greedyBootstraps,
                    symbolicRuns,
                    seconds);
        }

        /** One line per change tried, in the order first tried: what it changed, its calls, whether it was kept. */
        public List<String> describeTrials() {
            return trials.stream().map(Trial::describe).toList();
        }

        /** The same plan, taken from a cache: no symbolic run, no planning time. */
        public Planned reused() {
            return new Planned(plan, bootstraps, greedyBootstraps, 0, 0, accounting, trials);
        }
    }

    /**
     * One change tried on the plan: what it changed ("refresh before S", "run S at level L"), the bootstrap calls of
     * the plan with it ({@link #FAILED} where its symbolic run failed) and its estimated seconds, and whether the plan
     * kept it. A change kept stays kept: plans only grow.
     */
    public record Trial(String change, long calls, double estimatedSeconds, boolean kept) {
        public static final long FAILED = -1;

        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%s: %s%s",
                    change,
                    calls == FAILED
                            ? "failed"
                            : String.format(Locale.ROOT, "%d calls, %.1f s estimated", calls, estimatedSeconds),
                    kept ? " (kept)" : "");
        }
    }

    /**
     * Whether every tensor sent to the client is, after a lowering, at a level its decryption allows or no lower than
     * before it (greedy placement may leave one below its floor; a lowering must not push it further).
     */
    private static boolean stillDecryptable(List<Accounting.Output> before, List<Accounting.Output> after) {
        if (before.size() != after.size()) {
            return false;
        }
        for (int i = 0; i < before.size(); i++) {
            Accounting.Output b = before.get(i);
            Accounting.Output a = after.get(i);
            // a's own floor as well: at level 0 it says whether the values fit the scale they were landed on
            if (a.level() < Math.min(b.level(), Math.max(b.floor(), a.floor()))) {
                return false;
            }
        }
        return true;
    }

    /**
     * The linear maps of the layers that a bootstrap still follows, by {@link RefreshPlan#site} (every layer's), in
     * the order they first ran; the tail's are lowered on their own.
     */
    private static List<String> middleSites(Accounting run, long calls) {
        return run.linearMaps().stream()
                .filter(m -> m.bootstrapsBefore() < calls)
                .map(m -> RefreshPlan.everyLayer(m.site()))
                .filter(site -> site.contains("*"))
                .distinct()
                .toList();
    }

    /** The symbolic run of {@code plan}; null where it fails (a lowering the model cannot run at). */
    private Accounting tryRun(RefreshPlan plan) {
        try {
            return symbolicRun.apply(plan);
        } catch (RuntimeException e) {
            LOG.debug("planning: {} failed: {}", plan, e.toString());
            return null;
        }
    }

    /**
     * Whether {@code run} is estimated to take clearly less time than {@code best} (by more than {@link
     * #SECONDS_MARGIN} of {@link Accounting#estimatedSeconds}): between plans of as many bootstrap calls, the one whose
     * rotations and products run on fewer limbs.
     */
    private static boolean cheaper(Accounting run, Accounting best) {
        return run.estimatedSeconds() < best.estimatedSeconds() * (1 - SECONDS_MARGIN);
    }

    /** A plan of as many calls is kept for at least this share of estimated seconds less, not for noise. */
    private static final double SECONDS_MARGIN = 0.005;

    private static final int MAX_PASSES = 3;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BootstrapPlanner.class);

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
        Map<String, Trial> trials = new LinkedHashMap<>(); // by change: a site tried again replaces its last try
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
                boolean keep = count < bestCount || count == bestCount && cheaper(run, bestRun);
                trials.put(
                        "refresh before " + site,
                        new Trial("refresh before " + site, count, run.estimatedSeconds(), keep));
                if (keep) {
                    best = tried;
                    bestCount = count;
                    bestRun = run;
                    improved = true;
                }
            }
        }
        // the middle: each linear map of the layers (one decision for every layer) runs at the lowest level that
        // adds no bootstrap call: the levels it keeps beyond what comes before the next bootstrap are limbs its
        // encodes, products and rotations pay for, and everything after it up to that bootstrap
        if (search) {
            for (String site : middleSites(bestRun, bestCount)) {
                if (best.refreshesBefore(site)) {
                    continue; // its input was bootstrapped for it: its levels are what the refresh was kept for
                }
                int from = bestRun.linearMaps().stream()
                        .filter(m -> RefreshPlan.everyLayer(m.site()).equals(site))
                        .mapToInt(Accounting.LinearMap::level)
                        .max()
                        .orElse(0);
                Accounting lowest = null;
                int lowestLevel = from;
                // one level first (most maps have none to spare: one run says so), then bisection, as one more
                // bootstrap at some level means more at every level below it
                int ok = from;
                int bad = 0;
                for (int level = from - 1; ok - bad > 1; level = (ok + bad) / 2) {
                    runs++;
                    Accounting run = tryRun(best.lowering(site, level));
                    if (run != null
                            && run.bootstrapsSoFar() <= bestCount
                            && stillDecryptable(bestRun.outputs(), run.outputs())) {
                        ok = level;
                        lowest = run;
                        lowestLevel = level;
                    } else {
                        bad = level;
                    }
                }
                if (lowest == null) {
                    continue;
                }
                String trial = "run " + site + " at level " + lowestLevel;
                boolean keep = cheaper(lowest, bestRun);
                trials.put(trial, new Trial(trial, lowest.bootstrapsSoFar(), lowest.estimatedSeconds(), keep));
                if (keep) {
                    best = best.lowering(site, lowestLevel);
                    bestCount = lowest.bootstrapsSoFar();
                    bestRun = lowest;
                }
            }
        }
        // the tail: the first linear map after the last bootstrap runs as low as the output allows, and with it
        // everything after it (levels nothing will use are limbs every product and rotation still pays for)
        var sent = bestRun.outputs();
        int spare = sent.isEmpty() ? 0 : sent.get(sent.size() - 1).spare();
        if (search && spare > 0) {
            for (Accounting.LinearMap map : bestRun.linearMaps()) {
                if (map.bootstrapsBefore() < bestCount) {
                    continue;
                }
                int level = Math.max(1, map.level() - spare);
                if (level < map.level()) {
                    RefreshPlan tried = best.lowering(map.site(), level);
                    String trial = "run " + map.site() + " at level " + level;
                    runs++;
                    try {
                        Accounting run = symbolicRun.apply(tried);
                        boolean keep = run.bootstrapsSoFar() <= bestCount && stillDecryptable(sent, run.outputs());
                        trials.put(trial, new Trial(trial, run.bootstrapsSoFar(), run.estimatedSeconds(), keep));
                        if (keep) {
                            best = tried;
                            bestCount = run.bootstrapsSoFar();
                            bestRun = run;
                        }
                    } catch (RuntimeException e) {
                        trials.put(trial, new Trial(trial, Trial.FAILED, 0, false));
                        LOG.warn("planning: {} failed, kept at level {}: {}", trial, map.level(), e.toString());
                    }
                }
                break;
            }
        }
        return new Planned(
                best,
                bestCount,
                greedyCount,
                runs,
                (System.nanoTime() - t0) / 1e9,
                bestRun,
                List.copyOf(trials.values()));
    }
}

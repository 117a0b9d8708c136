package dev.polyhe.core.engine.encrypted;

import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Where, beyond what greedy placement does, an engine refreshes a tensor ahead of need: before the linear maps at
 * these sites, every ciphertext of the input is bootstrapped to the top level (two by two). Refreshing the few
 * narrow inputs of a widening map (hidden → feed-forward) costs less than refreshing its many outputs later, which
 * greedy placement cannot see; a planner ({@code dev.polyhe.core.encrypted.BootstrapPlanner}) finds such sites on
 * symbolic runs. A site is an operator path with its layer numbers as {@code *} (one decision serves every layer)
 * and the ordinal of the linear map in it, e.g. {@code layers.*.mlp#0}.
 *
 * <p>{@code lowered} is the other half of a plan: linear maps that run at a lower level than their input arrives at,
 * each level dropped an RNS limb fewer in every weight encode, product and rotation of the map and of everything after
 * it until the next bootstrap. Two kinds: a map of one layer ({@link #exactSite}, with its layer numbers) after the
 * last bootstrap, whose output goes to the client and may land below Δ at level 0 (the LM head, most of the tail's
 * work, runs on two limbs, not eight); and a map of every layer ({@link #site}, layer numbers as {@code *}) that has
 * levels to spare before the next bootstrap, which lands on Δ as usual.
 */
public record RefreshPlan(Set<String> sites, Map<String, Integer> lowered) {
    /** Greedy placement alone: a ciphertext is bootstrapped when an operation finds it out of levels. */
    public static final RefreshPlan GREEDY = new RefreshPlan(Set.of());

    private static final Pattern LAYER_NUMBER = Pattern.compile("\\.\\d+(?=[./]|$)");

    public RefreshPlan {
        sites = java.util.Collections.unmodifiableSet(new TreeSet<>(sites));
        lowered = java.util.Collections.unmodifiableMap(new TreeMap<>(lowered));
    }

    public RefreshPlan(Set<String> sites) {
        this(sites, Map.of());
    }

    /** The {@code ordinal}-th linear map under {@code operatorPath}, layer numbers kept: one map of one layer. */
    public static String exactSite(String operatorPath, int ordinal) {
        return operatorPath + "#" + ordinal;
    }

    /**
     * The level the linear map at {@code exactSite} runs at, where the plan lowers its input: for that map alone, else
     * for that map of every layer.
     */
    public OptionalInt loweredTo(String exactSite) {
        Integer level = lowered.get(exactSite);
        if (level == null) {
            level = lowered.get(everyLayer(exactSite));
        }
        return level == null ? OptionalInt.empty() : OptionalInt.of(level);
    }

    /** Whether the plan lowers the map at {@code exactSite} alone: a map of the tail, which may land below Δ. */
    public boolean lowersTail(String exactSite) {
        return lowered.containsKey(exactSite);
    }

    /**
     * This plan, with the linear map at {@code site} run at {@code level}: an {@link #exactSite} (one map) or a
     * {@link #site} (that map of every layer).
     */
    public RefreshPlan lowering(String site, int level) {
        Map<String, Integer> l = new TreeMap<>(lowered);
        l.put(site, level);
        return new RefreshPlan(sites, l);
    }

    /** The {@link #site} of an {@link #exactSite}: its layer numbers as {@code *}. */
    public static String everyLayer(String exactSite) {
        int hash = exactSite.lastIndexOf('#');
        return hash < 0
                ? exactSite
                : site(exactSite.substring(0, hash), Integer.parseInt(exactSite.substring(hash + 1)));
    }

    /** The site of the {@code ordinal}-th linear map under {@code operatorPath}. */
    public static String site(String operatorPath, int ordinal) {
        return LAYER_NUMBER.matcher(operatorPath).replaceAll(".*") + "#" + ordinal;
    }

    public boolean refreshesBefore(String site) {
        return sites.contains(site);
    }

    public RefreshPlan with(String site) {
        Set<String> s = new TreeSet<>(sites);
        s.add(site);
        return new RefreshPlan(s, lowered);
    }

    @Override
    public String toString() {
        String refresh = sites.isEmpty() ? "greedy" : "refresh before " + String.join(", ", sites);
        StringBuilder sb = new StringBuilder(refresh);
        lowered.forEach((site, level) ->
                sb.append("; ").append(site).append(" at level ").append(level));
        return sb.toString();
    }
}

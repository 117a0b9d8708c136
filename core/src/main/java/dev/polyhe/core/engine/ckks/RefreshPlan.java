package dev.polyhe.core.engine.ckks;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Where, beyond what greedy placement does, an engine refreshes a tensor ahead of need: before the linear maps at
 * these sites, every ciphertext of the input is bootstrapped to the top level (two by two). Refreshing the few
 * narrow inputs of a widening map (hidden → feed-forward) costs less than refreshing its many outputs later, which
 * greedy placement cannot see; a planner ({@code dev.polyhe.core.encrypted.BootstrapPlanner}) finds such sites on
 * symbolic runs. A site is an operator path with its layer numbers as {@code *} (one decision serves every layer)
 * and the ordinal of the linear map in it, e.g. {@code layers.*.mlp#0}.
 */
public record RefreshPlan(Set<String> sites) {
    /** Greedy placement alone: a ciphertext is bootstrapped when an operation finds it out of levels. */
    public static final RefreshPlan GREEDY = new RefreshPlan(Set.of());

    private static final Pattern LAYER_NUMBER = Pattern.compile("\\.\\d+(?=[./]|$)");

    public RefreshPlan {
        sites = java.util.Collections.unmodifiableSet(new TreeSet<>(sites));
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
        return new RefreshPlan(s);
    }

    @Override
    public String toString() {
        return sites.isEmpty() ? "greedy" : "refresh before " + String.join(", ", sites);
    }
}

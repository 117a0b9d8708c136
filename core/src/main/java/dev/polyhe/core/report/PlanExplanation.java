package dev.polyhe.core.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.core.engine.encrypted.Accounting;
import dev.polyhe.core.engine.encrypted.OperatorStats;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The bootstrap plan of a run, for {@code --explain-plan}: per operator, the level its operands entered at and the
 * lowest it reached, the levels it consumed, how many bootstraps
 * it took and why (the level each ciphertext was at and the levels the next step needed, whether it shared a
 * bootstrap, whether precision asked for two), from the {@link Accounting} of a planning run or a real one.
 */
public final class PlanExplanation {
    private final Accounting accounting;

    public PlanExplanation(Accounting accounting) {
        this.accounting = accounting;
    }

    public String toText() {
        Map<String, Map<String, Integer>> reasons = new LinkedHashMap<>();
        for (Accounting.Placement p : accounting.placements()) {
            reasons.computeIfAbsent(p.operator(), k -> new LinkedHashMap<>()).merge(p.reason(), 1, Integer::sum);
        }
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "%-50s %7s %7s %7s %6s %6s %7s %6s %7s  %s%n",
                "operator",
                "in→low",
                "levels",
                "boots",
                "b.cts",
                "rots",
                "ct*ct",
                "encode",
                "est.s",
                "why"));
        for (var e : accounting.operators().entrySet()) {
            OperatorStats s = e.getValue();
            Map<String, Integer> why = reasons.getOrDefault(e.getKey(), Map.of());
            String inOut = s.entryLevel() < 0 ? "" : s.entryLevel() + "→" + s.lowestLevel();
            sb.append(String.format(
                    Locale.ROOT,
                    "%-50s %7s %7d %7d %6d %6d %7d %6d %7.1f  %s%n",
                    e.getKey(),
                    inOut,
                    s.levelsUsed(),
                    s.bootstraps(),
                    s.bootstrappedCiphertexts(),
                    s.rotations(),
                    s.ciphertextMultiplications(),
                    s.encodes(),
                    s.estimatedSeconds(),
                    why.isEmpty() ? "" : describe(why.entrySet().iterator().next())));
            why.entrySet().stream()
                    .skip(1)
                    .forEach(w -> sb.append(String.format(Locale.ROOT, "%-111s  %s%n", "", describe(w))));
        }
        sb.append(String.format(
                Locale.ROOT,
                "%d bootstrap calls in all (a pair of ciphertexts is one call; a precise " + "bootstrap is two)%n",
                accounting.bootstrapsSoFar()));
        sb.append(String.format(
                Locale.ROOT,
                "%.1f s of evaluation estimated (est.s: CostModel, the calls' and encodes' seconds at 2 threads on "
                        + "the 2-core machine)%n",
                accounting.estimatedSeconds()));
        if (accounting.workSpan() != null && accounting.workSpan().calls() > 0) {
            sb.append(LatencyBreakdown.workSpanLine(accounting.workSpan())).append(String.format("%n"));
        }
        return sb.toString();
    }

    /**
     * Per operator, the work the run did: rotations, key switches (rotations and relinearizations), ciphertext
     * products, encodes and their limbs, bootstrap calls, the ciphertexts they refreshed and their slots, levels used.
     * A planning run counts what a real one would do.
     */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode ops = mapper.createObjectNode();
        accounting
                .operators()
                .forEach((name, s) -> ops.putObject(name)
                        .put("rotations", s.rotations())
                        .put("key_switches", s.keySwitches())
                        .put("ct_ct_multiplications", s.ciphertextMultiplications())
                        .put("ct_pt_multiplications", s.plaintextMultiplications())
                        .put("encodes", s.encodes())
                        .put("encoded_limbs", s.encodedLimbs())
                        .put("bootstraps", s.bootstraps())
                        .put("bootstrapped_ciphertexts", s.bootstrappedCiphertexts())
                        .put("bootstrapped_slots", s.bootstrappedSlots())
                        .put("levels_used", s.levelsUsed())
                        .put("estimated_seconds", s.estimatedSeconds()));
        return ops;
    }

    private static String describe(Map.Entry<String, Integer> reason) {
        return reason.getValue() + " × " + reason.getKey();
    }
}

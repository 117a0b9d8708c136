package dev.polyhe.core.engine.trace;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What an error trace found: every step (one engine operation) with its error against the reference, every
 * bootstrap with the magnitude it was handed and the error it added, and a summary per operator (layer and
 * operator scope, e.g. {@code layers.1.attention/attention-normalization}), as a table and as JSON.
 *
 * <p>Precision is in bits: −log2 of the error relative to the largest reference value of the step. A step's
 * <em>loss</em> is how many bits it has fewer than the worst of its operands: where the loss is large, that step
 * created or amplified the error, which is what the trace is for.
 */
public final class ErrorTrace {
    /** Steps that lose at least this many bits are flagged as jumps. */
    public static final double JUMP_BITS = 4;
    /** How far a value may exceed its bound before the trace flags it (see {@link #boundsBelowTheValues}). */
    public static final double BOUND_SLACK = 0.1;

    /** Precision is reported up to this (an exact step has no finite number of bits). */
    static final double MAX_BITS = 60;

    /**
     * One engine operation: its error, relative to the larger of its result and its operands (a product by a tiny
     * coefficient keeps its operand's absolute error); {@code bound}: the magnitude the engine assumed (NaN: none);
     * {@code slotMagnitude}: the largest |value| in any slot, padding included, which is what a bootstrap sees (NaN:
     * not known); {@code boundSource}: where the bound came from (see {@link Probe#boundSource}; null: no bound).
     */
    public record Step(
            int index,
            String operator,
            String op,
            int rows,
            int cols,
            int level,
            double logScale,
            double maxReference,
            double maxError,
            double bits,
            double inputBits,
            double bound,
            double imaginary,
            double slotMagnitude,
            String boundSource) {
        /** Bits fewer than the worst operand had. */
        public double loss() {
            return Math.max(0, inputBits - bits);
        }
    }

    /**
     * One bootstrap: the slots, level and scale it was handed, the largest |value| going in, real and imaginary parts
     * (after any scaling the engine applied for it: {@code inputFactor} is that scaling), the bound the engine assumed
     * for the values before
     * scaling (NaN: none), and the error it added (relative to the largest value, in bits, but no finer than the
     * scale resolves: values below 2^10/Δ are rescaling noise whatever a bootstrap does with them).
     */
    public record Bootstrap(
            int index,
            int afterStep,
            String operator,
            int slots,
            int levelIn,
            double logScaleIn,
            double maxIn,
            double imaginaryIn,
            double inputFactor,
            double bound,
            double maxError,
            double bits) {}

    /** Per operator path: its steps and bootstraps summarised. */
    public record OperatorSummary(
            String operator,
            int steps,
            double outputBits,
            double worstBits,
            double worstLoss,
            int minLevel,
            int bootstraps,
            double maxBootstrapIn,
            double worstBootstrapBits) {}

    private final List<Step> steps = new ArrayList<>();
    private final List<Bootstrap> bootstraps = new ArrayList<>();

    void add(Step s) {
        steps.add(s);
    }

    void add(Bootstrap b) {
        bootstraps.add(b);
    }

    int stepCount() {
        return steps.size();
    }

    int bootstrapCount() {
        return bootstraps.size();
    }

    public List<Step> steps() {
        return List.copyOf(steps);
    }

    public List<Bootstrap> bootstraps() {
        return List.copyOf(bootstraps);
    }

    /** The first step that lost at least {@link #JUMP_BITS} bits, or null. */
    public Step firstJump() {
        return steps.stream().filter(s -> s.loss() >= JUMP_BITS).findFirst().orElse(null);
    }

    /** Per operator path, in the order operators first ran. */
    public List<OperatorSummary> operators() {
        Map<String, List<Step>> byOp = new LinkedHashMap<>();
        for (Step s : steps) {
            byOp.computeIfAbsent(s.operator(), k -> new ArrayList<>()).add(s);
        }
        Map<String, List<Bootstrap>> boots = new LinkedHashMap<>();
        for (Bootstrap b : bootstraps) {
            boots.computeIfAbsent(b.operator(), k -> new ArrayList<>()).add(b);
            byOp.computeIfAbsent(b.operator(), k -> new ArrayList<>());
        }
        List<OperatorSummary> out = new ArrayList<>();
        byOp.forEach((op, list) -> {
            List<Bootstrap> bs = boots.getOrDefault(op, List.of());
            out.add(new OperatorSummary(
                    op,
                    list.size(),
                    list.isEmpty() ? MAX_BITS : list.get(list.size() - 1).bits(),
                    list.stream().mapToDouble(Step::bits).min().orElse(MAX_BITS),
                    list.stream().mapToDouble(Step::loss).max().orElse(0),
                    list.stream().mapToInt(Step::level).min().orElse(-1),
                    bs.size(),
                    bs.stream().mapToDouble(Bootstrap::maxIn).max().orElse(0),
                    bs.stream().mapToDouble(Bootstrap::bits).min().orElse(MAX_BITS)));
        });
        return out;
    }

    /** The steps that lost most, worst first (at most {@code n}). */
    public List<Step> worstSteps(int n) {
        return steps.stream()
                .filter(s -> s.loss() > 0)
                .sorted(Comparator.comparingDouble(Step::loss).reversed())
                .limit(n)
                .toList();
    }

    /** The report for a terminal: per operator, the first jump, the steps that lost most, the bootstraps' worst. */
    public String toTable() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(
                Locale.ROOT,
                "error trace: %d steps, %d bootstraps (precision in bits relative to "
                        + "the largest reference value; loss: bits fewer than the operands had)%n",
                steps.size(),
                bootstraps.size()));
        sb.append(String.format(
                Locale.ROOT,
                "%-58s %6s %8s %8s %8s %6s %6s %11s %9s%n",
                "operator",
                "steps",
                "out bits",
                "worst",
                "max loss",
                "level",
                "boots",
                "max|boot in|",
                "boot bits"));
        for (OperatorSummary o : operators()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "%-58s %6d %8.1f %8.1f %8.1f %6d %6d %11s %9s%n",
                    abbreviate(o.operator(), 58),
                    o.steps(),
                    o.outputBits(),
                    o.worstBits(),
                    o.worstLoss(),
                    o.minLevel(),
                    o.bootstraps(),
                    o.bootstraps() == 0 ? "-" : String.format(Locale.ROOT, "%.3g", o.maxBootstrapIn()),
                    o.bootstraps() == 0 ? "-" : String.format(Locale.ROOT, "%.1f", o.worstBootstrapBits())));
        }
        Step jump = firstJump();
        sb.append(
                jump == null
                        ? String.format(Locale.ROOT, "no step lost %.0f bits or more%n", JUMP_BITS)
                        : String.format(
                                Locale.ROOT,
                                "first jump: step %d, %s %s: %.1f -> %.1f bits (level %d, scale 2^%.2f, "
                                        + "max|ref| %.3g)%n",
                                jump.index(),
                                jump.operator(),
                                jump.op(),
                                jump.inputBits(),
                                jump.bits(),
                                jump.level(),
                                jump.logScale(),
                                jump.maxReference()));
        List<Step> worst = worstSteps(8);
        if (!worst.isEmpty()) {
            sb.append("steps that lost most:\n");
            for (Step s : worst) {
                sb.append(String.format(
                        Locale.ROOT,
                        "  #%-6d %-50s %-18s %5.1f -> %5.1f bits, level %d, max|ref| %.3g%s%n",
                        s.index(),
                        abbreviate(s.operator(), 50),
                        s.op(),
                        s.inputBits(),
                        s.bits(),
                        s.level(),
                        s.maxReference(),
                        Double.isNaN(s.bound()) ? "" : String.format(Locale.ROOT, ", bound %.3g", s.bound())));
            }
        }
        if (!bootstraps.isEmpty()) {
            Bootstrap worstBoot = bootstraps.stream()
                    .min(Comparator.comparingDouble(Bootstrap::bits))
                    .orElseThrow();
            Bootstrap largest = bootstraps.stream()
                    .max(Comparator.comparingDouble(Bootstrap::maxIn))
                    .orElseThrow();
            Bootstrap smallest = bootstraps.stream()
                    .min(Comparator.comparingDouble(Bootstrap::maxIn))
                    .orElseThrow();
            sb.append(String.format(
                    Locale.ROOT,
                    "bootstraps: worst %.1f bits (max|in| %.3g, %s); inputs from %.3g " + "(%s) to %.3g (%s)%n",
                    worstBoot.bits(),
                    worstBoot.maxIn(),
                    worstBoot.operator(),
                    smallest.maxIn(),
                    smallest.operator(),
                    largest.maxIn(),
                    largest.operator()));
        }
        List<Step> under = boundsBelowTheValues();
        sb.append(
                under.isEmpty()
                        ? "bounds: none below the values"
                        : String.format(
                                Locale.ROOT,
                                "bounds: %d below the values, first at step %d (%s %s: bound "
                                        + "%.3g from %s, max|ref| %.3g)",
                                under.size(),
                                under.get(0).index(),
                                under.get(0).operator(),
                                under.get(0).op(),
                                under.get(0).bound(),
                                under.get(0).boundSource(),
                                under.get(0).maxReference()));
        Map<String, Long> sources = boundSources();
        if (!sources.isEmpty()) {
            StringBuilder from = new StringBuilder();
            sources.forEach((src, n) -> from.append(from.length() == 0 ? "" : ", ")
                    .append(n)
                    .append(" from ")
                    .append(src));
            sb.append("; steps' bounds: ").append(from);
        }
        sb.append('\n');
        List<Step> padding = paddingAboveTheBounds();
        if (!padding.isEmpty()) {
            sb.append(String.format(
                    Locale.ROOT,
                    "padding: %d steps hold more in some slot than their bound, first at "
                            + "step %d (%s %s: %.3g in a slot, bound %.3g)%n",
                    padding.size(),
                    padding.get(0).index(),
                    padding.get(0).operator(),
                    padding.get(0).op(),
                    padding.get(0).slotMagnitude(),
                    padding.get(0).bound()));
        }
        return sb.toString();
    }

    /**
     * Steps whose assumed bound is more than {@link #BOUND_SLACK} below the true values: a bound the engine scales a
     * bootstrap's input by must hold, or the values wrap around q_0. The engine's ranges follow programs at sample
     * points (a polynomial may peak a few per cent above its samples), calibration runs the exact model and the trace
     * the polynomial one: within the slack is what a prescaling's factor-of-two target absorbs.
     */
    public List<Step> boundsBelowTheValues() {
        return steps.stream()
                .filter(s -> !Double.isNaN(s.bound()) && s.maxReference() > s.bound() * (1 + BOUND_SLACK) + 1e-9)
                .toList();
    }

    /** How many steps had their bound from each source, in the order sources first appear. */
    public Map<String, Long> boundSources() {
        Map<String, Long> n = new LinkedHashMap<>();
        for (Step s : steps) {
            if (s.boundSource() != null) {
                n.merge(s.boundSource(), 1L, Long::sum);
            }
        }
        return n;
    }

    /** Steps holding more in some slot (padding included) than their bound: a bootstrap of them would see that. */
    public List<Step> paddingAboveTheBounds() {
        return steps.stream()
                .filter(s -> !Double.isNaN(s.bound())
                        && !Double.isNaN(s.slotMagnitude())
                        && s.slotMagnitude() > s.bound() * (1 + BOUND_SLACK) + 1e-6)
                .toList();
    }

    private static String abbreviate(String s, int width) {
        return s.length() <= width ? s : "…" + s.substring(s.length() - width + 1);
    }

    /** The whole trace as JSON: summary per operator, every step, every bootstrap. */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        root.put("steps_total", steps.size());
        root.put("bootstraps_total", bootstraps.size());
        root.put("jump_bits", JUMP_BITS);
        Step jump = firstJump();
        if (jump == null) {
            root.putNull("first_jump");
        } else {
            root.set("first_jump", step(mapper, jump));
        }
        ArrayNode ops = root.putArray("operators");
        for (OperatorSummary o : operators()) {
            ObjectNode n = ops.addObject();
            n.put("operator", o.operator());
            n.put("steps", o.steps());
            n.put("output_bits", o.outputBits());
            n.put("worst_bits", o.worstBits());
            n.put("worst_loss_bits", o.worstLoss());
            n.put("min_level", o.minLevel());
            n.put("bootstraps", o.bootstraps());
            n.put("max_bootstrap_input", o.maxBootstrapIn());
            n.put("worst_bootstrap_bits", o.worstBootstrapBits());
        }
        ArrayNode st = root.putArray("steps");
        steps.forEach(s -> st.add(step(mapper, s)));
        ArrayNode bs = root.putArray("bootstraps");
        for (Bootstrap b : bootstraps) {
            ObjectNode n = bs.addObject();
            n.put("index", b.index());
            n.put("after_step", b.afterStep());
            n.put("operator", b.operator());
            n.put("slots", b.slots());
            n.put("level_in", b.levelIn());
            n.put("log2_scale_in", b.logScaleIn());
            n.put("max_abs_in", b.maxIn());
            n.put("input_factor", b.inputFactor());
            putOrNull(n, "bound", b.bound());
            n.put("max_abs_imaginary_in", b.imaginaryIn());
            n.put("max_abs_error", b.maxError());
            n.put("bits", b.bits());
        }
        return root;
    }

    private static ObjectNode step(ObjectMapper mapper, Step s) {
        ObjectNode n = mapper.createObjectNode();
        n.put("index", s.index());
        n.put("operator", s.operator());
        n.put("op", s.op());
        n.put("rows", s.rows());
        n.put("cols", s.cols());
        n.put("level", s.level());
        n.put("log2_scale", s.logScale());
        n.put("max_abs_reference", s.maxReference());
        n.put("max_abs_error", s.maxError());
        n.put("relative_error", s.maxReference() > 0 ? s.maxError() / s.maxReference() : s.maxError());
        n.put("bits", s.bits());
        n.put("input_bits", s.inputBits());
        n.put("loss_bits", s.loss());
        putOrNull(n, "bound", s.bound());
        if (s.boundSource() == null) {
            n.putNull("bound_source");
        } else {
            n.put("bound_source", s.boundSource());
        }
        putOrNull(n, "max_abs_imaginary", s.imaginary());
        putOrNull(n, "max_abs_all_slots", s.slotMagnitude());
        return n;
    }

    private static void putOrNull(ObjectNode n, String key, double v) {
        if (Double.isNaN(v)) {
            n.putNull(key);
        } else {
            n.put(key, v);
        }
    }

    /** −log2 of the error relative to the largest reference value, within [0, {@link #MAX_BITS}]. */
    static double bits(double maxError, double maxReference) {
        if (Double.isNaN(maxError) || Double.isInfinite(maxError)) {
            return 0;
        }
        if (maxError == 0) {
            return MAX_BITS;
        }
        double rel = maxReference > 0 ? maxError / maxReference : maxError;
        return Math.max(0, Math.min(MAX_BITS, -Math.log(rel) / Math.log(2)));
    }
}

package dev.polyhe.core.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.polyhe.core.engine.encrypted.Accounting;
import dev.polyhe.core.engine.encrypted.OperatorKind;
import dev.polyhe.core.engine.encrypted.OperatorStats;
import dev.polyhe.core.engine.encrypted.PrimitiveKind;
import dev.polyhe.core.engine.encrypted.WorkSpan;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The latency breakdown of an encrypted run in the form of the paper's Appendix G: time and share per operator
 * kind and per HE primitive, and the per-operator table (time, multiplications, rotations, key switches,
 * bootstraps, levels), as text and as an SVG bar chart.
 */
public final class LatencyBreakdown {
    private final double totalSeconds;
    private final Map<OperatorKind, Double> byKind;
    private final Map<PrimitiveKind, Double> byPrimitive;
    private final Map<PrimitiveKind, Long> primitiveCounts;
    private final Map<String, OperatorStats> operators;
    private final Map<String, Accounting.PrecisionRaise> precisionRaises;
    private final dev.polyhe.core.engine.encrypted.WeightCache.Stats weightCache;
    private final WorkSpan workSpan;

    /** @param totalSeconds the wall time of the whole run (what the shares are shares of) */
    public LatencyBreakdown(Accounting accounting, double totalSeconds) {
        this.totalSeconds = totalSeconds;
        this.byKind = new EnumMap<>(OperatorKind.class);
        accounting.nanosByOperatorKind().forEach((k, v) -> byKind.put(k, v / 1e9));
        this.byPrimitive = new EnumMap<>(PrimitiveKind.class);
        accounting.nanosByPrimitive().forEach((k, v) -> byPrimitive.put(k, v / 1e9));
        // EnumMap's copy constructor refuses an empty map that is not an EnumMap: a run with no calls
        this.primitiveCounts = new EnumMap<>(PrimitiveKind.class);
        this.primitiveCounts.putAll(accounting.countsByPrimitive());
        this.operators = new LinkedHashMap<>(accounting.operators());
        this.precisionRaises = new LinkedHashMap<>(accounting.precisionRaises());
        this.weightCache = accounting.weightCache();
        this.workSpan = accounting.workSpan();
    }

    /** Where the engine bootstrapped twice for precision (see {@link Accounting#precisionRaises}). */
    public Map<String, Accounting.PrecisionRaise> precisionRaises() {
        return java.util.Collections.unmodifiableMap(precisionRaises);
    }

    public double totalSeconds() {
        return totalSeconds;
    }

    /** Seconds per operator kind; time outside any HE primitive (packing, bookkeeping) is left out. */
    public Map<OperatorKind, Double> secondsByOperatorKind() {
        return byKind;
    }

    public Map<PrimitiveKind, Double> secondsByPrimitive() {
        return byPrimitive;
    }

    private double share(double seconds) {
        return totalSeconds <= 0 ? 0 : 100 * seconds / totalSeconds;
    }

    /**
     * The run's work, its critical path and their ratio, e.g. {@code Work 812.4 s, critical path 40.1 s (the
     * longest chain of dependent calls): parallelism 20.3 (measured)}.
     */
    public static String workSpanLine(WorkSpan ws) {
        return String.format(
                Locale.ROOT,
                "Work %.1f s in %d evaluator calls, critical path %.1f s (the longest chain of dependent calls): "
                        + "parallelism %.1f (%s)",
                ws.workSeconds(),
                ws.calls(),
                ws.spanSeconds(),
                ws.parallelism(),
                ws.measured() ? "measured" : "estimated, CostModel");
    }

    public String toText() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "Latency breakdown: %.3f s in total%n", totalSeconds));
        sb.append("By operator kind:\n");
        for (OperatorKind k : OperatorKind.values()) {
            double s = byKind.getOrDefault(k, 0.0);
            sb.append(String.format(Locale.ROOT, "  %-26s %10.3f s %6.1f %%%n", k.label(), s, share(s)));
        }
        sb.append("By HE primitive:\n");
        for (PrimitiveKind p : PrimitiveKind.values()) {
            double s = byPrimitive.getOrDefault(p, 0.0);
            sb.append(String.format(
                    Locale.ROOT,
                    "  %-26s %10.3f s %6.1f %%  (%d calls)%n",
                    p.label(),
                    s,
                    share(s),
                    primitiveCounts.getOrDefault(p, 0L)));
        }
        if (weightCache != null) {
            sb.append(String.format(
                    Locale.ROOT,
                    "Weight cache: %d of %d weight products found their weights encoded "
                            + "(%d encoded now); the key set's cache holds %d plaintexts, %.1f of %.1f MiB%n",
                    weightCache.hits(),
                    weightCache.hits() + weightCache.misses(),
                    weightCache.misses(),
                    weightCache.entries(),
                    weightCache.bytes() / 1048576.0,
                    weightCache.budgetBytes() / 1048576.0));
        }
        if (workSpan != null && workSpan.calls() > 0) {
            sb.append(workSpanLine(workSpan)).append('\n');
        }
        sb.append("By operator (seconds and est.s include the ones nested in it, name/...; counts are its own):\n");
        sb.append(String.format(
                Locale.ROOT,
                "  %-40s %9s %7s %6s %7s %7s %7s %6s %7s %5s %6s %6s%n",
                "operator",
                "seconds",
                "est.s",
                "calls",
                "ct*ct",
                "ct*pt",
                "ct*c",
                "rots",
                "encodes",
                "boot",
                "b.cts",
                "levels"));
        for (var e : operators.entrySet()) {
            OperatorStats o = e.getValue();
            sb.append(String.format(
                    Locale.ROOT,
                    "  %-40s %9.3f %7.1f %6d %7d %7d %7d %6d %7d %5d %6d %6d%n",
                    e.getKey(),
                    o.nanos() / 1e9,
                    estimatedWithNested(e.getKey()),
                    o.calls(),
                    o.ciphertextMultiplications(),
                    o.plaintextMultiplications(),
                    o.constantMultiplications(),
                    o.rotations(),
                    o.encodes(),
                    o.bootstraps(),
                    o.bootstrappedCiphertexts(),
                    o.levelsUsed()));
        }
        if (!precisionRaises.isEmpty()) {
            sb.append(
                    "Precision raised (two bootstraps for one, where a program asked for more bits than one keeps):\n");
            precisionRaises.forEach((path, r) -> sb.append(String.format(
                    Locale.ROOT,
                    "  %-40s %6d ciphertexts, %.1f bits asked, one bootstrap keeps %.0f%n",
                    path,
                    r.ciphertexts(),
                    r.askedBits(),
                    r.singleBits())));
        }
        return sb.toString();
    }

    /**
     * The estimated seconds of an operator and of those nested in it ({@code name/…}), as its measured seconds are:
     * the accounting estimates each call for the innermost operator only.
     */
    private double estimatedWithNested(String name) {
        double sum = 0;
        for (var e : operators.entrySet()) {
            if (e.getKey().equals(name) || e.getKey().startsWith(name + "/")) {
                sum += e.getValue().estimatedSeconds();
            }
        }
        return sum;
    }

    /** {@code {work_seconds, span_seconds, parallelism, calls, measured}}. */
    public static ObjectNode workSpanJson(ObjectMapper mapper, WorkSpan ws) {
        return mapper.createObjectNode()
                .put("work_seconds", ws.workSeconds())
                .put("span_seconds", ws.spanSeconds())
                .put("parallelism", ws.parallelism())
                .put("calls", ws.calls())
                .put("measured", ws.measured());
    }

    /** The same figures as {@link #toText()}, as JSON: seconds and shares per kind and primitive, the operators. */
    public ObjectNode toJson(ObjectMapper mapper) {
        ObjectNode root = mapper.createObjectNode();
        root.put("total_seconds", totalSeconds);
        ObjectNode kinds = root.putObject("by_operator_kind");
        for (OperatorKind k : OperatorKind.values()) {
            double s = byKind.getOrDefault(k, 0.0);
            kinds.putObject(k.label()).put("seconds", s).put("share_percent", share(s));
        }
        ObjectNode prims = root.putObject("by_primitive");
        for (PrimitiveKind p : PrimitiveKind.values()) {
            double s = byPrimitive.getOrDefault(p, 0.0);
            prims.putObject(p.label())
                    .put("seconds", s)
                    .put("share_percent", share(s))
                    .put("calls", primitiveCounts.getOrDefault(p, 0L));
        }
        if (workSpan != null && workSpan.calls() > 0) {
            root.set("work_span", workSpanJson(mapper, workSpan));
        }
        ObjectNode ops = root.putObject("by_operator");
        operators.forEach((name, o) -> ops.putObject(name)
                .put("seconds", o.nanos() / 1e9)
                .put("estimated_seconds", estimatedWithNested(name))
                .put("calls", o.calls())
                .put("ct_ct_multiplications", o.ciphertextMultiplications())
                .put("ct_pt_multiplications", o.plaintextMultiplications())
                .put("ct_constant_multiplications", o.constantMultiplications())
                .put("rotations", o.rotations())
                .put("key_switches", o.keySwitches())
                .put("bootstraps", o.bootstraps())
                .put("bootstrapped_ciphertexts", o.bootstrappedCiphertexts())
                .put("bootstrapped_slots", o.bootstrappedSlots())
                .put("encodes", o.encodes())
                .put("encoded_limbs", o.encodedLimbs())
                .put("rescales", o.rescales())
                .put("levels_used", o.levelsUsed()));
        ObjectNode raised = root.putObject("precision_raised");
        precisionRaises.forEach((path, r) -> raised.putObject(path)
                .put("ciphertexts", r.ciphertexts())
                .put("asked_bits", r.askedBits())
                .put("single_bootstrap_bits", r.singleBits()));
        if (weightCache != null) {
            root.putObject("weight_cache")
                    .put("hits", weightCache.hits())
                    .put("misses", weightCache.misses())
                    .put("entries", weightCache.entries())
                    .put("bytes", weightCache.bytes())
                    .put("budget_bytes", weightCache.budgetBytes());
        }
        return root;
    }

    /** Two horizontal bar charts (operator kinds, primitives), shares of the total time. */
    public String toSvg() {
        List<String[]> kinds = new ArrayList<>();
        for (OperatorKind k : OperatorKind.values()) {
            kinds.add(new String[] {k.label(), Double.toString(byKind.getOrDefault(k, 0.0))});
        }
        List<String[]> prims = new ArrayList<>();
        for (PrimitiveKind p : PrimitiveKind.values()) {
            prims.add(new String[] {p.label(), Double.toString(byPrimitive.getOrDefault(p, 0.0))});
        }
        int rowH = 22;
        int width = 760;
        int height = 90 + (kinds.size() + prims.size()) * rowH + 60;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                        + "font-family=\"sans-serif\" font-size=\"13\">%n",
                width,
                height));
        svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(
                Locale.ROOT,
                "<text x=\"20\" y=\"28\" font-size=\"17\" font-weight=\"bold\">"
                        + "Encrypted inference latency: %.2f s</text>%n",
                totalSeconds));
        int y = 60;
        y = bars(svg, "Share of time by operator kind", kinds, y, rowH, "#3b6ea8");
        bars(svg, "Share of time by HE primitive", prims, y + 20, rowH, "#c0504d");
        svg.append("</svg>\n");
        return svg.toString();
    }

    private int bars(StringBuilder svg, String title, List<String[]> rows, int y, int rowH, String color) {
        svg.append(String.format(Locale.ROOT, "<text x=\"20\" y=\"%d\" font-weight=\"bold\">%s</text>%n", y, title));
        y += 10;
        int barX = 220;
        int barMax = 420;
        for (String[] r : rows) {
            double seconds = Double.parseDouble(r[1]);
            double pct = share(seconds);
            int w = (int) Math.round(barMax * Math.min(100, pct) / 100);
            svg.append(String.format(Locale.ROOT, "<text x=\"20\" y=\"%d\">%s</text>%n", y + 15, escape(r[0])));
            svg.append(String.format(
                    Locale.ROOT,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>%n",
                    barX,
                    y + 3,
                    Math.max(w, 1),
                    rowH - 6,
                    color));
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%d\">%.1f%% (%.3f s)</text>%n",
                    barX + Math.max(w, 1) + 6,
                    y + 15,
                    pct,
                    seconds));
            y += rowH;
        }
        return y;
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}

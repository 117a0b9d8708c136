package dev.polyhe.core.inference;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.ApproximationSpec;
import dev.polyhe.api.approx.Approximations;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.approx.TargetFunctions;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.api.attention.AttentionKernel;
import dev.polyhe.api.model.Nonlinearities;
import dev.polyhe.core.config.PluginChoice;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.DoubleUnaryOperator;

/**
 * The polynomial model's non-polynomial steps (the paper's Algorithm 1, step 3): 1/√x of LayerNorm, GELU and
 * tanh each replaced by a configured approximator on the domain calibrated for its site (widened by a
 * margin), and attention by a polynomial kernel built per site from the calibrated denominators. The same
 * object serves plaintext and encrypted engines: every step is an {@link Approximation} program.
 *
 * <p>With {@code checkDomains}, plaintext runs also count inputs that fall outside a site's domain (a
 * polynomial is unguarded there), the attention kernels' denominators included (under the site and the function, e.g.
 * "layers.0.attention 1/x"); encrypted runs must not read values back, so they leave it off.
 */
public final class PolynomialNonlinearities implements Nonlinearities {
    private final Calibration calibration;
    private final Approximations approximations;
    private final PluginChoice invSqrt;
    private final PluginChoice gelu;
    private final PluginChoice tanh;
    private final SiteDomains domains;
    private final BiFunction<SiteCalibration, Approximations, AttentionKernel> attentionKernels;
    private final boolean checkDomains;
    private final Map<String, Approximation> approximationsBySite = new ConcurrentHashMap<>();
    private final Map<String, AttentionKernel> kernelsBySite = new ConcurrentHashMap<>();
    private final Map<String, Long> outOfDomain = new ConcurrentHashMap<>();
    /** Each approximation's depth, announced to the engine before it runs ({@code TensorOps#reserve}). */
    private final Map<Approximation, Integer> depths = new ConcurrentHashMap<>();

    public PolynomialNonlinearities(
            Calibration calibration,
            Approximations approximations,
            PluginChoice invSqrt,
            PluginChoice gelu,
            PluginChoice tanh,
            SiteDomains domains,
            BiFunction<SiteCalibration, Approximations, AttentionKernel> attentionKernels,
            boolean checkDomains) {
        this.calibration = calibration;
        this.approximations = approximations;
        this.invSqrt = invSqrt;
        this.gelu = gelu;
        this.tanh = tanh;
        this.domains = domains;
        this.attentionKernels = attentionKernels;
        this.checkDomains = checkDomains;
    }

    /** Sites whose inputs left the approximation domain, with the number of such values (checkDomains only). */
    public Map<String, Long> outOfDomain() {
        return new TreeMap<>(outOfDomain);
    }

    /** The approximation chosen for every site used so far, e.g. for reports. */
    public Map<String, String> describeSites() {
        Map<String, String> m = new TreeMap<>();
        approximationsBySite.forEach((k, v) -> m.put(
                k, v.describe().contains(v.domain().toString()) ? v.describe() : v.describe() + " on " + v.domain()));
        kernelsBySite.forEach((k, v) -> m.put(k, v.describe()));
        return m;
    }

    private Approximation approximation(
            String site, String function, PluginChoice choice, DoubleUnaryOperator target, boolean positive) {
        return approximationsBySite.computeIfAbsent(site + " " + function, key -> {
            SiteCalibration s = calibration.site(site, function);
            Domain d = positive ? domains.positive(s.min(), s.max()) : domains.real(s.min(), s.max());
            try {
                return approximations.approximate(
                        choice.name(), new ApproximationSpec(function, target, d, choice.toOptions("approximation")));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "site '" + site + "' (" + function + " on " + d + "): " + e.getMessage(), e);
            }
        });
    }

    private <M> M evaluate(TensorOps<M> ops, M x, String site, Approximation a) {
        if (checkDomains) {
            long outside = DomainCheckedApproximations.countOutside(ops, x, a.domain());
            if (outside > 0) {
                outOfDomain.merge(site, outside, Long::sum);
            }
        }
        double maxAbs = Math.max(Math.abs(a.domain().lo()), Math.abs(a.domain().hi()));
        // announced before reserve, which may bootstrap it: the engine scales it by its range first
        M inDomain = ops.bound(x, a.domain().lo(), a.domain().hi());
        return a.evaluateOnDomain(ops, ops.reserve(inDomain, depths.computeIfAbsent(a, Approximation::depth), maxAbs));
    }

    // Each step runs in an operator scope whose name marks its kind for the latency breakdown.

    @Override
    public <M> M invSqrt(TensorOps<M> ops, M x, String site) {
        try (var scope = ops.operator("layernorm.inv-sqrt")) {
            return evaluate(
                    ops, x, site, approximation(site, "inv-sqrt", invSqrt, TargetFunctions.named("inv-sqrt"), true));
        }
    }

    @Override
    public <M> M gelu(TensorOps<M> ops, M x, String site) {
        try (var scope = ops.operator("gelu")) {
            return evaluate(ops, x, site, approximation(site, "gelu", gelu, TargetFunctions::gelu, false));
        }
    }

    @Override
    public <M> M tanh(TensorOps<M> ops, M x, String site) {
        try (var scope = ops.operator("tanh")) {
            return evaluate(ops, x, site, approximation(site, "tanh", tanh, Math::tanh, false));
        }
    }

    @Override
    public <M> M attention(TensorOps<M> ops, M scores, Matrix mask, String site) {
        // the kernel's division runs inside the plugin: its approximations count their own inputs outside the domain
        AttentionKernel k = kernelsBySite.computeIfAbsent(
                site,
                s -> attentionKernels.apply(
                        calibration.site(s, "attention"),
                        checkDomains
                                ? new DomainCheckedApproximations(
                                        approximations, s, (where, n) -> outOfDomain.merge(where, n, Long::sum))
                                : approximations));
        SiteCalibration c = calibration.site(site, "attention");
        Domain range = domains.real(c.min(), c.max());
        try (var scope = ops.operator("attention-normalization")) {
            return k.normalize(ops, ops.bound(scores, range.lo(), range.hi()), mask);
        }
    }
}

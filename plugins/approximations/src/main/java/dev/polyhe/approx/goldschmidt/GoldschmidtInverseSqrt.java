package dev.polyhe.approx.goldschmidt;

import dev.polyhe.api.approx.Approximation;
import dev.polyhe.api.approx.Domain;
import dev.polyhe.api.arith.Arith;

/**
 * Goldschmidt's inverse square root: 1/√x on [a, b] (0 < a < b), the normalizer of LayerNorm.
 *
 * <p>Classic form on b' = s·x with s = 2/(a+b): start X₀ = b', Y₀ = 1/2 and repeat
 * r = ½ − X·Y, X ← X(1+r), Y ← Y(1+r); then X → √b' and Y → 1/(2√b'). Here both are pre-multiplied by
 * public constants (X by 1/(2√s), Y by 2√s) so that Y converges to 1/√x directly and no final constant
 * product is needed. With d = 1 − 4·b'·Y² (d₀ = 1 − s·x, |d₀| ≤ ρ = (b−a)/(b+a)), one iteration maps
 * d ↦ d²(3+d)/4: quadratic convergence, and the relative error after n iterations is 1 − √(1 − d_n).
 * Each iteration is two dependent products (X·Y, then Y·(1+r)), so depth = 2n for n ≥ 2 (the first
 * iteration is linear in x and costs one level); degree = (3^n − 1)/2.
 *
 * <p>{@code iterations} is an upper bound: once d_n < 2^-19 (a relative error below 2^-20) the program stops there
 * ({@link #effectiveIterations()}), counting d₀ as at least 1/2 so that inputs a good way outside a narrow domain
 * converge as far. 2^-20 is what a bootstrap leaves a ciphertext (20.6 bits on average over the slots at 128 bits,
 * 17.5 in the worst slot), and on a bootstrap's ten levels LayerNorm's normalizer arrives with eight and leaves with
 * none, so its result is refreshed before LayerNorm's last product either way. Iterating on to 2^-40 took a fifth
 * iteration, two levels more than those eight: a refresh of the input as well (a Pythia-70M layer: 15 bootstrap
 * calls, 12 with four iterations).
 */
public record GoldschmidtInverseSqrt(Domain domain, int iterations) implements Approximation {
    public static final String NAME = "goldschmidt-inv-sqrt";

    @Override
    public String describe() {
        int n = effectiveIterations();
        return NAME + "(iterations=" + (n == iterations ? n : n + " of " + iterations) + ") on " + domain;
    }

    /** The contraction d_n below which no further iteration is run (see above). */
    static final double CONVERGED = 0x1p-19;

    /**
     * The iterations until d_n < {@link #CONVERGED} on the domain (d₀ ≥ 1/2, see above): at most {@code iterations}.
     */
    public int effectiveIterations() {
        double d = Math.max(PositiveDomain.contraction(domain), PositiveDomain.ROBUST_CONTRACTION);
        int n = 0;
        while (n < iterations && (n == 0 || d >= CONVERGED)) {
            d = d * d * (3 + d) / 4;
            n++;
        }
        return n;
    }

    @Override
    public String function() {
        return "1/sqrt(x)";
    }

    @Override
    public int degree() {
        long y = 1;
        long x = 2;
        for (int i = 1; i < effectiveIterations(); i++) {
            long p = x + y;
            y += p;
            x += p;
        }
        return Math.toIntExact(y);
    }

    @Override
    public double exact(double x) {
        return 1 / Math.sqrt(x);
    }

    @Override
    public <T> T evaluate(Arith<T> arith, T x) {
        double s = PositiveDomain.scale(domain);
        double rootS = Math.sqrt(s);
        // First iteration in closed form (X₀ = (√s/2)·x, Y₀ = √s, 1 + r₀ = 3/2 − (s/2)·x): all linear in x.
        T y = arith.addConstant(arith.mulConstant(x, -s * rootS / 2), 1.5 * rootS);
        int iterations = effectiveIterations();
        if (iterations == 1) {
            return y;
        }
        T onePlusR = arith.addConstant(arith.mulConstant(x, -s / 2), 1.5);
        T xs = arith.mul(arith.mulConstant(x, rootS / 2), onePlusR);
        for (int i = 1; i < iterations; i++) {
            onePlusR = arith.addConstant(arith.negate(arith.mul(xs, y)), 1.5);
            y = arith.mul(y, onePlusR);
            if (i + 1 < iterations) {
                xs = arith.mul(xs, onePlusR);
            }
        }
        return y;
    }

    /** The relative error bound 1 − √(1 − d_n) with d₀ = ρ, the worst start (x = a). */
    public double relativeErrorBound() {
        double d = PositiveDomain.contraction(domain);
        for (int i = 0; i < effectiveIterations(); i++) {
            d = d * d * (3 + d) / 4;
        }
        return 1 - Math.sqrt(1 - d);
    }
}

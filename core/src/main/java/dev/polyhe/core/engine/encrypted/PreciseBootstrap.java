package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;

/**
 * Bootstrapping twice for the precision of about two bootstraps, alone or as a pair: where a program asks for more
 * bits than one bootstrap keeps ({@link EncryptedEngine#precision}), or values too large to scale down reached level 0.
 * Evaluator calls only, no bookkeeping: the {@link Refresher} decides and accounts.
 */
final class PreciseBootstrap {
    private final Evaluator evaluator;
    private final HeContext context;

    PreciseBootstrap(Evaluator evaluator, HeContext context) {
        this.evaluator = evaluator;
        this.context = context;
    }

    /**
     * The bits of precision, relative to values of about 1, one bootstrap keeps: log2(q_0/Δ) + 8, as measured on
     * the presets (about 20 at N16-boot-128, 23 on the test rings): the sine's approximation and the key switching
     * of its linear maps add an error about 2^-8 of Δ/q_0.
     */
    double singleBootstrapBits() {
        var p = context.parameters();
        return p.logQ().get(0) - p.logScale() + 8;
    }
    /**
     * Two bootstraps for the precision of about two (meta-bootstrapping, as OpenFHE's EvalBootstrap(ct, 2)): the
     * first refreshes x; what it got wrong, x minus the first read back at level 0, is small, so it is scaled up by
     * 2^t, refreshed by the second and scaled back, and the sum errs by the second's error times 2^-t. The precision
     * is then that of x itself at level 0 (its rescaling noise), about 30 bits. {@code factor} is applied as a
     * single bootstrap would; {@code scaledBound} bounds |x|.
     */
    Ciphertext bootstrapTwice(Ciphertext in, double factor, double scaledBound) {
        Ciphertext x = bottom(in);
        Ciphertext first = evaluator.bootstrap(x, factor);
        Residual r = residual(x, first, factor, scaledBound, 1);
        Ciphertext correction = evaluator.bootstrap(scaledUp(r, r.bits()), r.factor() * Math.scalb(1.0, -r.bits()));
        return evaluator.add(first, correction);
    }
    /**
     * {@link #bootstrapTwice} for two ciphertexts with one factor, as two pair bootstraps instead of four
     * bootstraps: the first refreshes both, the second both residuals, scaled up by the same 2^t (one bit less than
     * either alone would take: a pair bootstrap errs up to a bit more). Equal factors keep every result's scale label
     * its input's, so the corrections add onto the first results exactly.
     */
    Ciphertext[] bootstrapTwicePair(Ciphertext inA, Ciphertext inB, double factor, double boundA, double boundB) {
        Ciphertext xa = bottom(inA);
        Ciphertext xb = bottom(inB);
        Ciphertext[] first = evaluator.bootstrapPair(xa, xb, factor, factor);
        Residual ra = residual(xa, first[0], factor, boundA, 2);
        Residual rb = residual(xb, first[1], factor, boundB, 2);
        int t = Math.min(ra.bits(), rb.bits());
        double correctionFactor = ra.factor() * Math.scalb(1.0, -t);
        Ciphertext[] corrections =
                evaluator.bootstrapPair(scaledUp(ra, t), scaledUp(rb, t), correctionFactor, correctionFactor);
        return new Ciphertext[] {evaluator.add(first[0], corrections[0]), evaluator.add(first[1], corrections[1])};
    }
    /** c at level 0, by the evaluator alone (no bookkeeping: a refresh's intermediates are its own). */
    private Ciphertext bottom(Ciphertext c) {
        return c.level() == 0 ? c : evaluator.dropToLevel(c, 0);
    }
    /**
     * What a first bootstrap got wrong: x minus the first result read back at level 0, in x's units (factor ≤ 1,
     * 1/factor an integer) or the result's (factor an integer), with the factor its own bootstrap then applies and
     * the bits t it can be scaled up by (its bound about 2^-t of the target, {@code margin} bits to spare).
     */
    private Residual residual(Ciphertext x, Ciphertext first, double factor, double scaledBound, int margin) {
        Ciphertext back = bottom(first);
        Ciphertext residual;
        double residualFactor;
        if (factor <= 1) {
            residual = evaluator.sub(x, evaluator.multiplyInteger(back, Math.round(1 / factor)));
            residualFactor = factor;
        } else {
            residual = evaluator.sub(evaluator.multiplyInteger(x, Math.round(factor)), back);
            residualFactor = 1;
        }
        // what the first got wrong: its usual error, plus the sine's on values it could not scale down, (2π·b/h)²/6
        // of them at headroom h = q_0/Δ (the worst case, a constant vector)
        double b = Math.max(scaledBound, Refresher.BOOTSTRAP_TARGET);
        double sine = 2
                * Math.PI
                * b
                * x.scale()
                / Math.pow(2, context.parameters().logQ().get(0));
        double residualBound = b
                * (factor > 1 ? factor : 1)
                * (Math.scalb(1.0, -(int) Math.floor(singleBootstrapBits())) + sine * sine / 6);
        int t = Math.max(
                0,
                Math.min(
                        30,
                        (int) Math.floor(Math.log(Refresher.BOOTSTRAP_TARGET / residualBound) / Math.log(2)) - margin));
        return new Residual(residual, residualFactor, t);
    }
    /** A first bootstrap's error, the factor its own bootstrap applies, and how far it can be scaled up. */
    private record Residual(Ciphertext error, double factor, int bits) {}
    /** A residual times 2^by (an integer product: no level). */
    private Ciphertext scaledUp(Residual r, int by) {
        return by == 0 ? r.error() : evaluator.multiplyInteger(r.error(), 1L << by);
    }
}

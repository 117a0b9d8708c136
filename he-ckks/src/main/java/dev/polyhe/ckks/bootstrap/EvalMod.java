package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.ckks.scheme.SchemeParameters;

/**
 * Approximate reduction modulo 1 of real slots u = y / B (B the sine's {@link ChebyshevSine#inputBound()}):
 * sin(2π·y) by the {@link ChebyshevSine} series ({@link ChebyshevSeries}, baby-step giant-step; in its even
 * form after the shift and T_2) and its double angles. Scales are kept exact: wherever two
 * terms of different scale meet, the constant that multiplies one of them is encoded at the scale that makes
 * the product's scale equal the other's, so no term is ever added under a wrong scale (a relative scale error
 * of 2^-30 on a term of size 1 would otherwise swamp a message of size 2^-15). The output has the input's
 * scale.
 */
final class EvalMod {
    private final ChebyshevSine sine;
    private final SchemeParameters params;

    EvalMod(ChebyshevSine sine, SchemeParameters params) {
        this.sine = sine;
        this.params = params;
    }

    int depth() {
        return sine.depth();
    }

    Ciphertext apply(Evaluator ev, Ciphertext u) {
        Ciphertext x = u;
        if (sine.even()) {
            // w = T_2(u − 1/(4B)) = 2v² − 1: the constant needs no level, the square one
            Ciphertext v = ev.addConstant(u, sine.shift());
            x = ev.addConstant(ev.multiplyAndRescale(ev.multiplyInteger(v, 2), v), -1);
        }
        Ciphertext c = sine.series().evaluate(ev, params, x, u.scale());
        for (int i = 0; i < sine.doubleAngles(); i++) {
            // cos 2θ = 2·cos²θ − 1: one product, exact scales, the 2 taken before the rescale (not to double its
            // rounding)
            c = ev.addConstant(ev.multiplyAndRescale(ev.multiplyInteger(c, 2), c), -1);
        }
        return c;
    }
}

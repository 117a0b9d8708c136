package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.Arrays;

/**
 * Σ c_k·T_k(u) evaluated baby-step giant-step: baby steps T_1..T_{m−1}, giant steps T_m, T_2m, T_4m, ...,
 * and the series split recursively as p = q·T_g + r (Chebyshev division, T_g·T_j = (T_{g+j} + T_{|g−j|})/2).
 * About 2·sqrt(d) + log d ciphertext products instead of d, and about ceil(log2(d+1)) levels, one less than
 * computing every T_k and then the coefficients: here the constants ride on the leaves, which sit higher.
 *
 * <p>Scales are exact: every node is asked for a result scale; a leaf's constants are taken at the scale that
 * makes each term land on it, and the quotient of a split is asked for the scale that makes q·T_g land on
 * the node's scale after the rescale. Levels are planned before anything is evaluated (the same recursion).
 */
final class ChebyshevSeries {
    private final double[] coefficients;
    private final int baby;

    ChebyshevSeries(double[] coefficients) {
        this.coefficients = coefficients.clone();
        int m = 2;
        while (m * m < coefficients.length) {
            m <<= 1;
        }
        this.baby = m;
    }

    /** Levels consumed from the input's level to the result's. */
    int depth() {
        return -level(coefficients);
    }

    /**
     * Ciphertext products of one evaluation: the basis T_k it computes (each one product, T_1 given) and one per
     * split; the leaves' constants are scalar products, not counted.
     */
    int products() {
        boolean[] computed = new boolean[Math.max(2 * baby, giant(degree(coefficients)) + 1)];
        return products(coefficients, computed);
    }

    private int products(double[] p, boolean[] computed) {
        if (degree(p) < baby) {
            int n = 0;
            for (int k = 2; k <= Math.max(1, degree(p)); k++) {
                n += basisProducts(k, computed);
            }
            return n;
        }
        int g = giant(degree(p));
        double[][] qr = divide(p, g);
        return products(qr[0], computed) + basisProducts(g, computed) + 1 + products(qr[1], computed);
    }

    /** The products {@link Run#basis} spends on T_k and what it needs, none for those already computed. */
    private static int basisProducts(int k, boolean[] computed) {
        if (k <= 1 || computed[k]) {
            return 0;
        }
        computed[k] = true;
        return 1
                + ((k & 1) == 0
                        ? basisProducts(k / 2, computed)
                        : basisProducts(k / 2 + 1, computed) + basisProducts(k / 2, computed));
    }

    /** Relative level of T_k (the input T_1 is at 0). */
    private static int basisLevel(int k) {
        return -ChebyshevSine.ceilLog2(k);
    }

    private static int degree(double[] p) {
        return p.length - 1;
    }

    /** The relative level a (sub)series comes out at. */
    private int level(double[] p) {
        if (degree(p) < baby) {
            return basisLevel(Math.max(1, degree(p))) - 1;
        }
        int g = giant(degree(p));
        double[][] qr = divide(p, g);
        int lm = Math.min(level(qr[0]), basisLevel(g));
        return Math.min(lm - 1, level(qr[1]));
    }

    private int giant(int degree) {
        int g = baby;
        while (2 * g <= degree) {
            g <<= 1;
        }
        return g;
    }

    /** p = q·T_g + r with deg r &lt; g, for deg p &lt; 2g. */
    private static double[][] divide(double[] p, int g) {
        int d = degree(p);
        double[] q = new double[d - g + 1];
        double[] r = Arrays.copyOf(p, g);
        q[0] = p[g];
        for (int k = g + 1; k <= d; k++) {
            q[k - g] = 2 * p[k];
            r[2 * g - k] -= p[k];
        }
        return new double[][] {q, r};
    }

    /** The series at u in plain arithmetic, through the same splits (for tests). */
    double evaluate(double u) {
        return plain(coefficients, u);
    }

    private double plain(double[] p, double u) {
        if (degree(p) < baby) {
            double sum = p[0];
            double t0 = 1;
            double t1 = u;
            for (int k = 1; k < p.length; k++) {
                sum += p[k] * t1;
                double t2 = 2 * u * t1 - t0;
                t0 = t1;
                t1 = t2;
            }
            return sum;
        }
        int g = giant(degree(p));
        double[][] qr = divide(p, g);
        return plain(qr[0], u) * Math.cos(g * Math.acos(u)) + plain(qr[1], u);
    }

    /** The series at u, with scale {@code scale}; u's scale should be close to the primes'. */
    Ciphertext evaluate(Evaluator ev, SchemeParameters params, Ciphertext u, double scale) {
        return new Run(ev, params, u).series(coefficients, scale);
    }

    /** One evaluation: the basis T_k computed on demand. */
    private final class Run {
        final Evaluator ev;
        final SchemeParameters params;
        final Ciphertext[] t;
        final int inputLevel;

        Run(Evaluator ev, SchemeParameters params, Ciphertext u) {
            this.ev = ev;
            this.params = params;
            this.t = new Ciphertext[Math.max(2 * baby, giant(degree(coefficients)) + 1)];
            this.t[1] = u;
            this.inputLevel = u.level();
        }

        Ciphertext basis(int k) {
            if (t[k] == null) {
                if ((k & 1) == 0) {
                    // T_2j = 2·T_j² − 1, the 2 taken before the rescale, so that it does not double its rounding
                    Ciphertext h = basis(k / 2);
                    t[k] = ev.addConstant(ev.multiplyAndRescale(ev.multiplyInteger(h, 2), h), -1);
                } else {
                    // T_2j+1 = 2·T_j+1·T_j − T_1, with T_1 brought to the product's scale by a constant 1/2
                    Ciphertext p = ev.multiply(basis(k / 2 + 1), basis(k / 2));
                    Ciphertext u = t[1];
                    Ciphertext half = ev.multiplyConstant(ev.dropToLevel(u, p.level()), 0.5, p.scale() / u.scale());
                    t[k] = ev.rescale(ev.multiplyInteger(ev.sub(p, half), 2));
                }
            }
            return t[k];
        }

        Ciphertext series(double[] p, double scale) {
            if (degree(p) < baby) {
                return leaf(p, scale);
            }
            int g = giant(degree(p));
            double[][] qr = divide(p, g);
            Ciphertext tg = basis(g);
            int lm = Math.min(inputLevel + level(qr[0]), tg.level());
            Ciphertext q = series(qr[0], scale * params.q(lm) / tg.scale());
            Ciphertext product = ev.multiplyAndRescale(ev.dropToLevel(q, lm), tg);
            return ev.add(product, series(qr[1], scale));
        }

        /**
         * Σ c_k·T_k over the baby steps, each constant taken at the scale that makes its term land on
         * {@code scale}: a constant polynomial, multiplied limb by limb as scalars (no encoding, no NTT).
         */
        Ciphertext leaf(double[] p, double scale) {
            int top = Math.max(1, degree(p));
            int level = inputLevel + basisLevel(top);
            Ciphertext sum = null;
            for (int k = 1; k <= top; k++) {
                double c = k < p.length ? p[k] : 0;
                Ciphertext tk = ev.dropToLevel(basis(k), level);
                Ciphertext term = ev.multiplyConstant(tk, c, scale * params.q(level) / tk.scale());
                sum = sum == null ? term : ev.add(sum, term);
            }
            return ev.addConstant(ev.rescale(sum), p[0]);
        }
    }
}

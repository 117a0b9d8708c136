package dev.polyhe.core.engine.symbolic;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.Plaintext;

/**
 * The level and scale bookkeeping of RNS-CKKS without the arithmetic: products multiply scales, a rescale divides
 * by the chain's prime at the ciphertext's level, bootstrapping returns at the level the model starts at with the
 * scale label it was given. It refuses what a real evaluator refuses (scales that do not match, a rescale at level
 * 0, a product that overflows the modulus), so an engine that would fail fails here too, in a fraction of the time.
 */
final class SymbolicEvaluator implements Evaluator {
    /** Bootstrapping needs q_0/scale of at least this much (the CPU backend's bound). */
    private static final double MIN_HEADROOM = 0x1p10;
    /** As the CPU backend: scales this close (relatively) add as rounding. */
    private static final double SCALE_MATCH = 0x1p-16;

    private final double[] primes;
    private final double[] logModulus;
    private final int bootstrappedLevel;

    /**
     * @param primes q_0 .. q_L
     * @param bootstrappedLevel the level bootstrapping returns ciphertexts at
     */
    SymbolicEvaluator(double[] primes, int bootstrappedLevel) {
        this.primes = primes.clone();
        this.logModulus = new double[primes.length];
        double sum = 0;
        for (int i = 0; i < primes.length; i++) {
            sum += Math.log(primes[i]) / Math.log(2);
            logModulus[i] = sum;
        }
        this.bootstrappedLevel = bootstrappedLevel;
    }

    private static SymbolicCiphertext ct(Ciphertext c) {
        if (c instanceof SymbolicCiphertext s) {
            return s;
        }
        throw new HeException("a symbolic evaluator was given a ciphertext of another backend: "
                + c.getClass().getName());
    }

    private static void sameScale(double a, double b, String op) {
        if (Math.abs(a - b) > SCALE_MATCH * Math.max(a, b)) {
            throw new HeException(String.format(
                    "%s: scales 2^%.4f and 2^%.4f differ; align them first",
                    op, Math.log(a) / Math.log(2), Math.log(b) / Math.log(2)));
        }
    }

    private double productScale(double a, double b, int level, String op) {
        double s = a * b;
        if (Math.log(s) / Math.log(2) + 1 >= logModulus[level]) {
            throw new HeException(String.format(
                    "%s: out of levels: the product's scale 2^%.1f does not fit the "
                            + "modulus 2^%.1f left at level %d",
                    op, Math.log(s) / Math.log(2), logModulus[level], level));
        }
        return s;
    }

    /** A sum or difference with an operand at {@code level} and {@code scale}: the lower level, a shared scale. */
    private static Ciphertext combined(Ciphertext a, int level, double scale, String op) {
        SymbolicCiphertext x = ct(a);
        sameScale(x.scale(), scale, op);
        return x.with(Math.min(x.level(), level), x.scale());
    }

    @Override
    public Ciphertext add(Ciphertext a, Ciphertext b) {
        return combined(a, b.level(), b.scale(), "add");
    }

    @Override
    public Ciphertext sub(Ciphertext a, Ciphertext b) {
        return combined(a, b.level(), b.scale(), "sub");
    }

    @Override
    public Ciphertext negate(Ciphertext a) {
        return ct(a).copy();
    }

    @Override
    public Ciphertext addPlain(Ciphertext a, Plaintext b) {
        return combined(a, b.level(), b.scale(), "addPlain");
    }

    @Override
    public Ciphertext addConstant(Ciphertext a, double c) {
        return ct(a).copy();
    }

    @Override
    public Ciphertext multiply(Ciphertext a, Ciphertext b) {
        SymbolicCiphertext x = ct(a);
        int level = Math.min(x.level(), ct(b).level());
        return x.with(level, productScale(x.scale(), b.scale(), level, "multiply"));
    }

    @Override
    public Ciphertext multiplyPlain(Ciphertext a, Plaintext b) {
        SymbolicCiphertext x = ct(a);
        int level = Math.min(x.level(), b.level());
        return x.with(level, productScale(x.scale(), b.scale(), level, "multiplyPlain"));
    }

    /** The constant is encoded at the prime the next rescale divides by, as the CPU backend does. */
    @Override
    public Ciphertext multiplyConstant(Ciphertext a, double c) {
        return multiplyConstant(a, c, primes[ct(a).level()]);
    }

    @Override
    public Ciphertext multiplyConstant(Ciphertext a, double c, double scale) {
        SymbolicCiphertext x = ct(a);
        if (!Double.isFinite(c)) {
            throw new IllegalArgumentException("constant " + c + " is not a finite number");
        }
        if (!(scale >= 1) || Double.isInfinite(scale)) {
            throw new IllegalArgumentException(
                    "the scale " + scale + " to encode a constant at must be a finite number " + "of at least 1");
        }
        return x.with(x.level(), productScale(x.scale(), scale, x.level(), "multiplyConstant"));
    }

    @Override
    public Ciphertext multiplyInteger(Ciphertext a, long k) {
        return ct(a).copy();
    }

    @Override
    public Ciphertext rescale(Ciphertext a) {
        SymbolicCiphertext x = ct(a);
        if (x.level() == 0) {
            throw new HeException("out of levels: the ciphertext is at level 0 and has no prime left to rescale by");
        }
        double s = x.scale() / primes[x.level()];
        if (s < 1) {
            throw new HeException("rescale: the scale is smaller than the prime it would divide by");
        }
        return x.with(x.level() - 1, s);
    }

    @Override
    public Ciphertext dropToLevel(Ciphertext a, int level) {
        SymbolicCiphertext x = ct(a);
        if (level < 0 || level > x.level()) {
            throw new HeException("dropToLevel: target level " + level + " must be in 0 .. " + x.level());
        }
        return level == x.level() ? x : x.with(level, x.scale());
    }

    @Override
    public Ciphertext rotate(Ciphertext a, int step) {
        return ct(a).copy();
    }

    @Override
    public Ciphertext[] rotateHoisted(Ciphertext a, int[] steps) {
        SymbolicCiphertext x = ct(a);
        Ciphertext[] r = new Ciphertext[steps.length];
        for (int i = 0; i < r.length; i++) {
            // a step of 0 is the ciphertext itself, as on the CPU backend
            r[i] = Math.floorMod(steps[i], x.slots()) == 0 ? x : x.copy();
        }
        return r;
    }

    @Override
    public Ciphertext conjugate(Ciphertext a) {
        return ct(a).copy();
    }

    @Override
    public Ciphertext bootstrap(Ciphertext a) {
        return bootstrap(a, 1.0);
    }

    /** The factor rides on SlotsToCoeffs' constant: the label stays, the level is the model's top again. */
    @Override
    public Ciphertext bootstrap(Ciphertext a, double factor) {
        SymbolicCiphertext x = ct(a);
        if (x.slots() < 2) {
            throw new HeException("bootstrap: a ciphertext of " + x.slots() + " slot cannot be bootstrapped");
        }
        if (primes[0] / x.scale() < MIN_HEADROOM) {
            throw new HeException(String.format(
                    "bootstrap: the scale 2^%.1f is too close to q_0 = 2^%.1f",
                    Math.log(x.scale()) / Math.log(2), Math.log(primes[0]) / Math.log(2)));
        }
        return x.with(bootstrappedLevel, x.scale());
    }

    /** One bootstrap for two: the second leaves with its label times factorA/factorB, as on the CPU backend. */
    @Override
    public Ciphertext[] bootstrapPair(Ciphertext a, Ciphertext b, double factorA, double factorB) {
        SymbolicCiphertext x = ct(a);
        SymbolicCiphertext y = ct(b);
        double ratio = y.scale() / x.scale();
        if (x.slots() != y.slots() || ratio > 2 || ratio < 0.5) {
            return new Ciphertext[] {bootstrap(x, factorA), bootstrap(y, factorB)};
        }
        SymbolicCiphertext first = (SymbolicCiphertext) bootstrap(x, factorA);
        return new Ciphertext[] {first, y.with(bootstrappedLevel, y.scale() * factorA / factorB)};
    }

    @Override
    public Ciphertext[] bootstrapPair(Ciphertext a, Ciphertext b) {
        return bootstrapPair(a, b, 1.0, 1.0);
    }
}

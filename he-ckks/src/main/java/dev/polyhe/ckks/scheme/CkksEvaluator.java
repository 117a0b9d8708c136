package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.bootstrap.BootstrapParameters;
import dev.polyhe.ckks.bootstrap.Bootstrapper;
import dev.polyhe.ckks.bootstrap.EncodedDiagonal;
import dev.polyhe.ckks.bootstrap.SecretEncapsulation;
import dev.polyhe.ckks.executor.KeySwitchDigits;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.executor.RnsPoly;
import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The homomorphic operations over one key set: the scheme's logic (operand checks, levels, scales, which keys),
 * with the ring arithmetic left to the context's {@link RingExecutor}. Holds evaluation keys and, only for
 * on-demand rotation keys, the client's secret; every operand is checked (parameters, key set) before any
 * arithmetic.
 */
final class CkksEvaluator implements Evaluator {
    private final SchemeParameters params;
    private final RnsRing ring;
    private final RingExecutor exec;
    private final CanonicalEncoder encoder;
    private final CkksKeyGenerator keygen;
    private final CkksEvaluationKeys keys;
    private final CkksSecretKey onDemand;
    private final Map<Integer, SwitchingKey> generated = new ConcurrentHashMap<>();
    private volatile SwitchingKey generatedConjugation;
    private volatile Bootstrapper bootstrapper;
    /** The context's bootstrapping circuits, shared with its other evaluators. */
    private final Bootstrapper.Circuits circuits;

    private volatile EncapsulationKeys generatedEncapsulation;

    CkksEvaluator(
            SchemeParameters params,
            RingExecutor executor,
            CanonicalEncoder encoder,
            CkksKeyGenerator keygen,
            CkksEvaluationKeys keys,
            CkksSecretKey onDemand,
            Bootstrapper.Circuits circuits) {
        this.params = params;
        this.circuits = circuits;
        this.ring = params.ring();
        this.exec = executor;
        this.encoder = encoder;
        this.keygen = keygen;
        this.keys = keys;
        this.onDemand = onDemand;
    }

    private CkksCiphertext ct(Ciphertext c) {
        return OperandCheck.ciphertext(c, params.hash(), keys.keySetId());
    }

    private CkksCiphertext atLevel(CkksCiphertext c, int level) {
        if (c.level() == level) {
            return c;
        }
        return c.with(exec.prefix(c.c0, level), exec.prefix(c.c1, level), level, c.scale());
    }

    @Override
    public Ciphertext add(Ciphertext a, Ciphertext b) {
        CkksCiphertext x = ct(a);
        CkksCiphertext y = ct(b);
        OperandCheck.sameScale(x.scale(), y.scale(), "add");
        int level = Math.min(x.level(), y.level());
        return x.with(exec.add(x.c0, y.c0, level), exec.add(x.c1, y.c1, level), level, x.scale());
    }

    @Override
    public Ciphertext sub(Ciphertext a, Ciphertext b) {
        CkksCiphertext x = ct(a);
        CkksCiphertext y = ct(b);
        OperandCheck.sameScale(x.scale(), y.scale(), "sub");
        int level = Math.min(x.level(), y.level());
        return x.with(exec.sub(x.c0, y.c0, level), exec.sub(x.c1, y.c1, level), level, x.scale());
    }

    @Override
    public Ciphertext negate(Ciphertext a) {
        CkksCiphertext x = ct(a);
        return x.with(exec.negate(x.c0, x.level()), exec.negate(x.c1, x.level()), x.level(), x.scale());
    }

    @Override
    public Ciphertext addPlain(Ciphertext a, Plaintext b) {
        CkksCiphertext x = ct(a);
        CkksPlaintext p = OperandCheck.plaintext(b, params.hash());
        OperandCheck.sameScale(x.scale(), p.scale(), "addPlain");
        int level = Math.min(x.level(), p.level());
        return x.with(exec.add(x.c0, p.poly, level), exec.prefix(x.c1, level), level, x.scale());
    }

    @Override
    public Ciphertext addConstant(Ciphertext a, double c) {
        CkksCiphertext x = ct(a);
        long[] k = residues(c * x.scale(), x.level());
        return x.with(exec.addScalars(x.c0, k, x.level()), x.c1, x.level(), x.scale());
    }

    @Override
    public Ciphertext multiply(Ciphertext a, Ciphertext b) {
        Tensored t = tensored(a, b, false);
        RnsPoly[] ks = exec.applyKey(exec.decompose(t.d[2], t.level), keys.relinearization, t.level);
        return t.x.with(exec.addInto(t.d[0], ks[0], t.level), exec.addInto(t.d[1], ks[1], t.level), t.level, t.scale);
    }

    /** The tensor products summed over the lowest level among them, then one relinearization. */
    @Override
    public Ciphertext multiplySum(Ciphertext[] as, Ciphertext[] bs) {
        if (as.length == 0 || as.length != bs.length) {
            throw new IllegalArgumentException(
                    "multiplySum: " + as.length + " left and " + bs.length + " right operands; expected as many, > 0");
        }
        Tensored first = tensored(as[0], bs[0], false);
        RnsPoly[] d = first.d;
        int level = first.level;
        for (int i = 1; i < as.length; i++) {
            Tensored t = tensored(as[i], bs[i], false);
            OperandCheck.sameScale(first.scale, t.scale, "multiplySum");
            level = Math.min(level, t.level);
            for (int k = 0; k < 3; k++) {
                d[k] = exec.add(d[k], t.d[k], level);
            }
        }
        RnsPoly[] ks = exec.applyKey(exec.decompose(d[2], level), keys.relinearization, level);
        return first.x.with(exec.addInto(ks[0], d[0], level), exec.addInto(ks[1], d[1], level), level, first.scale);
    }

    /** One division by P·q_level for the key switch and the rescale ({@link RingExecutor#relinearizeRescale}). */
    @Override
    public Ciphertext multiplyAndRescale(Ciphertext a, Ciphertext b) {
        Tensored t = tensored(a, b, true);
        RnsPoly[] out = exec.relinearizeRescale(t.d, keys.relinearization, t.level);
        return t.x.with(out[0], out[1], t.level - 1, t.scale / params.q(t.level));
    }

    /** The tensor product of two ciphertexts at their common level, and its scale. */
    private record Tensored(CkksCiphertext x, int level, double scale, RnsPoly[] d) {}

    /** Checks the operands (and, for a product to be rescaled, that a prime is left to divide by), then tensors. */
    private Tensored tensored(Ciphertext a, Ciphertext b, boolean rescaled) {
        CkksCiphertext x = ct(a);
        CkksCiphertext y = ct(b);
        int level = Math.min(x.level(), y.level());
        double scale = productScale(x.scale(), y.scale(), level, "multiply");
        if (rescaled && level == 0) {
            throw new HeException("out of levels: the ciphertexts are at level 0 and have no prime left to rescale "
                    + "their product by; bootstrap them or use parameters with more levels");
        }
        if (rescaled && scale / params.q(level) < 1) {
            throw new HeException(String.format(
                    "multiplyAndRescale: the product's scale 2^%.1f is smaller than the "
                            + "prime q_%d = 2^%.1f it would divide by",
                    OperandCheck.log2(scale), level, OperandCheck.log2(params.q(level))));
        }
        if (keys.relinearization == null) {
            throw new HeException("multiply needs a relinearization key; these evaluation keys have none");
        }
        return new Tensored(x, level, scale, exec.tensor(x.c0, x.c1, y.c0, y.c1, level));
    }

    @Override
    public Ciphertext multiplyPlain(Ciphertext a, Plaintext b) {
        CkksCiphertext x = ct(a);
        CkksPlaintext p = OperandCheck.plaintext(b, params.hash());
        int level = Math.min(x.level(), p.level());
        double scale = productScale(x.scale(), p.scale(), level, "multiplyPlain");
        RnsPoly[] product = exec.multiplyPair(x.c0, x.c1, p.poly, level);
        return x.with(product[0], product[1], level, scale);
    }

    @Override
    public Ciphertext multiplyPlainAndAdd(Ciphertext sum, Ciphertext a, Plaintext b) {
        CkksCiphertext s = ct(sum);
        CkksCiphertext x = ct(a);
        CkksPlaintext p = OperandCheck.plaintext(b, params.hash());
        int level = Math.min(s.level(), Math.min(x.level(), p.level()));
        double scale = productScale(x.scale(), p.scale(), Math.min(x.level(), p.level()), "multiplyPlainAndAdd");
        OperandCheck.sameScale(s.scale(), scale, "multiplyPlainAndAdd");
        RnsPoly[] r = exec.multiplyPairAdd(s.c0, s.c1, x.c0, x.c1, p.poly, level);
        return s.with(r[0], r[1], level, s.scale());
    }

    @Override
    public Ciphertext multiplyPlainSum(Ciphertext sum, Ciphertext[] as, Plaintext[] bs) {
        if (as.length == 0 || as.length != bs.length) {
            throw new IllegalArgumentException("multiplyPlainSum: " + as.length + " ciphertexts and " + bs.length
                    + " plaintexts; expected as many, > 0");
        }
        CkksCiphertext s = sum == null ? null : ct(sum);
        CkksCiphertext[] xs = new CkksCiphertext[as.length];
        RnsPoly[] x0 = new RnsPoly[as.length];
        RnsPoly[] x1 = new RnsPoly[as.length];
        RnsPoly[] ws = new RnsPoly[as.length];
        CkksPlaintext[] ps = new CkksPlaintext[as.length];
        int level = s == null ? Integer.MAX_VALUE : s.level();
        for (int t = 0; t < as.length; t++) {
            xs[t] = ct(as[t]);
            ps[t] = OperandCheck.plaintext(bs[t], params.hash());
            level = Math.min(level, Math.min(xs[t].level(), ps[t].level()));
            x0[t] = xs[t].c0;
            x1[t] = xs[t].c1;
            ws[t] = ps[t].poly;
        }
        // every product must fit the modulus of the level the sum lands at, the lowest among the operands
        double scale = productScale(xs[0].scale(), ps[0].scale(), level, "multiplyPlainSum");
        for (int t = 1; t < as.length; t++) {
            OperandCheck.sameScale(scale, xs[t].scale() * ps[t].scale(), "multiplyPlainSum");
        }
        if (s != null) {
            OperandCheck.sameScale(s.scale(), scale, "multiplyPlainSum");
        }
        RnsPoly[] r = exec.multiplyPairSum(s == null ? null : s.c0, s == null ? null : s.c1, x0, x1, ws, level);
        return s == null ? xs[0].with(r[0], r[1], level, scale) : s.with(r[0], r[1], level, s.scale());
    }

    @Override
    public Ciphertext multiplyConstant(Ciphertext a, double c) {
        return multiplyConstant(a, c, params.q(ct(a).level()));
    }

    @Override
    public Ciphertext multiplyConstant(Ciphertext a, double c, double at) {
        CkksCiphertext x = ct(a);
        if (!Double.isFinite(c)) {
            throw new IllegalArgumentException("constant " + c + " is not a finite number");
        }
        if (!(at >= 1) || Double.isInfinite(at)) {
            throw new IllegalArgumentException(
                    "the scale " + at + " to encode a constant at must be a finite number " + "of at least 1");
        }
        double scale = productScale(x.scale(), at, x.level(), "multiplyConstant");
        long[] k = residues(c * at, x.level());
        return x.with(
                exec.multiplyScalars(x.c0, k, x.level()), exec.multiplyScalars(x.c1, k, x.level()), x.level(), scale);
    }

    @Override
    public Ciphertext multiplyInteger(Ciphertext a, long k) {
        CkksCiphertext x = ct(a);
        long[] r = new long[x.level() + 1];
        for (int i = 0; i <= x.level(); i++) {
            r[i] = ring.modulus(i).reduceSigned(k);
        }
        return x.with(
                exec.multiplyScalars(x.c0, r, x.level()),
                exec.multiplyScalars(x.c1, r, x.level()),
                x.level(),
                x.scale());
    }

    @Override
    public Ciphertext rescale(Ciphertext a) {
        CkksCiphertext x = ct(a);
        int level = x.level();
        double newScale = rescaledScale(x.scale(), level);
        RnsPoly[] out = exec.rescale(new RnsPoly[] {x.c0, x.c1}, level);
        return x.with(out[0], out[1], level - 1, newScale);
    }

    /** A scale divided by q_level; refused at level 0 or where the message would be lost. */
    private double rescaledScale(double scale, int level) {
        if (level == 0) {
            throw new HeException("out of levels: the ciphertext is at level 0 and has no prime left to rescale by; "
                    + "bootstrap it or use parameters with more levels");
        }
        double newScale = scale / params.q(level);
        if (newScale < 1) {
            throw new HeException(String.format(
                    "rescale: the scale 2^%.1f is smaller than the prime q_%d = 2^%.1f it "
                            + "would divide by; the message would be lost (multiply first, rescale after)",
                    OperandCheck.log2(scale), level, OperandCheck.log2(params.q(level))));
        }
        return newScale;
    }

    @Override
    public Ciphertext dropToLevel(Ciphertext a, int level) {
        CkksCiphertext x = ct(a);
        if (level < 0 || level > x.level()) {
            throw new HeException("dropToLevel: target level " + level + " must be in 0 .. " + x.level()
                    + " (the ciphertext's level)");
        }
        return atLevel(x, level);
    }

    @Override
    public Ciphertext rotate(Ciphertext a, int step) {
        return rotateHoisted(a, new int[] {step})[0];
    }

    /**
     * Decomposes c1 once; per step, the inner product with the (pre-permuted) Galois key, ModDown, and one
     * automorphism of the result: sigma(c0 + ks0), sigma(ks1). The steps are independent ciphertexts and run at
     * once where the pool has threads (each one's limb loops fill fewer cores than a many-core server has).
     */
    @Override
    public Ciphertext[] rotateHoisted(Ciphertext a, int[] steps) {
        CkksCiphertext x = ct(a);
        Ciphertext[] out = new Ciphertext[steps.length];
        SwitchingKey[] keyFor = new SwitchingKey[steps.length];
        int[] keyStep = new int[steps.length];
        boolean any = false;
        for (int k = 0; k < steps.length; k++) {
            int s = Math.floorMod(steps[k], x.slots());
            if (s == 0) {
                out[k] = x;
                continue;
            }
            keyStep[k] = rotationKeyStep(s, x.slots());
            keyFor[k] = rotationKey(keyStep[k]); // a missing key fails before any work
            any = true;
        }
        if (!any) {
            return out;
        }
        KeySwitchDigits digits = exec.decompose(x.c1, x.level());
        params.ring().pool().forEachCiphertext(steps.length, k -> {
            if (keyFor[k] != null) {
                out[k] = applyGalois(x, digits, keygen.automorphism(keygen.rotationElement(keyStep[k])), keyFor[k]);
            }
        });
        return out;
    }

    /**
     * The key switches of all rotations summed over Q ∪ P and divided by P once ({@link RingExecutor#keySwitchSum}):
     * one ModDown instead of one per rotation. Operands share slots and scale; the sum is at their lowest level.
     */
    @Override
    public Ciphertext rotateSum(Ciphertext[] xs, int[] steps) {
        GiantSteps g = giantSteps(xs, steps, "rotateSum");
        if (g.switched.length == 0) {
            return g.first.with(g.d0, g.d1, g.level, g.first.scale());
        }
        RnsPoly[] ks = exec.keySwitchSum(g.switched, g.keys, g.autos, g.level);
        RnsPoly c0 = exec.addInto(ks[0], g.d0, g.level);
        RnsPoly c1 = g.d1 == null ? ks[1] : exec.addInto(ks[1], g.d1, g.level);
        return g.first.with(c0, c1, g.level, g.first.scale());
    }

    /**
     * The sum's key switches, its permuted and unmoved parts and the rescale as one division by P·q_level
     * ({@link RingExecutor#keySwitchSumRescale}): a rescale's transforms fewer than {@link #rotateSum} then
     * {@link #rescale}.
     */
    @Override
    public Ciphertext rotateSumAndRescale(Ciphertext[] xs, int[] steps) {
        GiantSteps g = giantSteps(xs, steps, "rotateSumAndRescale");
        if (g.switched.length == 0) {
            return rescale(g.first.with(g.d0, g.d1, g.level, g.first.scale()));
        }
        double newScale = rescaledScale(g.first.scale(), g.level);
        RnsPoly[] out = exec.keySwitchSumRescale(g.switched, g.keys, g.autos, g.d0, g.d1, g.level);
        return g.first.with(out[0], out[1], g.level - 1, newScale);
    }

    /**
     * Σ_g rot(Σ_b diagonals[g][b] ⊙ rot(a, babySteps[b]), giantSteps[g]), rescaled: a baby-step giant-step product
     * by encoded diagonals (null where the matrix has none), all of a's level and one scale, from
     * {@link #encodeDiagonal}. The executor may double-hoist it ({@link RingExecutor#diagonalsRescale}).
     */
    Ciphertext multiplyDiagonalsAndRescale(
            Ciphertext a, int[] babySteps, int[] giantSteps, EncodedDiagonal[][] diagonals) {
        CkksCiphertext x = ct(a);
        int level = x.level();
        Double ptScale = null;
        RnsPoly[][] polys = new RnsPoly[giantSteps.length][babySteps.length];
        for (int g = 0; g < giantSteps.length; g++) {
            if (diagonals[g].length != babySteps.length) {
                throw new IllegalArgumentException("multiplyDiagonals: giant step " + g + " has " + diagonals[g].length
                        + " diagonals for " + babySteps.length + " baby steps");
            }
            for (int b = 0; b < babySteps.length; b++) {
                if (diagonals[g][b] == null) {
                    continue;
                }
                if (!(diagonals[g][b] instanceof CkksDiagonal p)) {
                    throw new HeException("multiplyDiagonals: diagonal " + diagonals[g][b] + " was not encoded by this "
                            + "evaluator's encodeDiagonal");
                }
                OperandCheck.sameParameters(p.parameterHash(), params.hash(), "diagonal");
                if (p.level() != level) {
                    throw new HeException(
                            "multiplyDiagonals: a diagonal at level " + p.level() + " for a ciphertext at level "
                                    + level + "; encode the diagonals at the ciphertext's level");
                }
                if (ptScale == null) {
                    ptScale = p.scale();
                }
                OperandCheck.sameScale(ptScale, p.scale(), "multiplyDiagonals");
                polys[g][b] = p.poly();
            }
        }
        if (ptScale == null) {
            throw new IllegalArgumentException("multiplyDiagonals: no diagonal given");
        }
        double newScale = rescaledScale(productScale(x.scale(), ptScale, level, "multiplyDiagonals"), level);
        SwitchingKey[] babyKeys = new SwitchingKey[babySteps.length];
        Automorphism[] babyAutos = new Automorphism[babySteps.length];
        galois(babySteps, x.slots(), babyKeys, babyAutos);
        SwitchingKey[] giantKeys = new SwitchingKey[giantSteps.length];
        Automorphism[] giantAutos = new Automorphism[giantSteps.length];
        galois(giantSteps, x.slots(), giantKeys, giantAutos);
        RnsPoly[] out = exec.diagonalsRescale(x.c0, x.c1, babyKeys, babyAutos, polys, giantKeys, giantAutos, level);
        return x.with(out[0], out[1], level - 1, newScale);
    }

    /** The key and automorphism of each left rotation (null, null for a step of 0 modulo the slots). */
    private void galois(int[] steps, int slots, SwitchingKey[] keys, Automorphism[] autos) {
        for (int k = 0; k < steps.length; k++) {
            int s = Math.floorMod(steps[k], slots);
            if (s != 0) {
                int keyStep = rotationKeyStep(s, slots);
                keys[k] = rotationKey(keyStep); // a missing key fails before any work
                autos[k] = keygen.automorphism(keygen.rotationElement(keyStep));
            }
        }
    }

    /** A diagonal for {@link #multiplyDiagonalsAndRescale} ({@link CanonicalEncoder#encodeDiagonal}). */
    CkksDiagonal encodeDiagonal(double[] real, double[] imag, int slots, int level, double scale) {
        return encoder.encodeDiagonal(real, imag, slots, level, scale);
    }

    /**
     * A rotate-sum's operands at their common level: the c1 of each moved one with its key and automorphism, and
     * d0, d1 the parts added after the key switches (the moved c0 permuted, the unmoved summed; d1 null where
     * nothing is unmoved). Without a moved operand, (d0, d1) is the sum itself.
     */
    private record GiantSteps(
            CkksCiphertext first,
            int level,
            RnsPoly[] switched,
            SwitchingKey[] keys,
            Automorphism[] autos,
            RnsPoly d0,
            RnsPoly d1) {}

    private GiantSteps giantSteps(Ciphertext[] xs, int[] steps, String op) {
        if (xs.length == 0 || xs.length != steps.length) {
            throw new IllegalArgumentException(op + ": " + xs.length + " ciphertexts and " + steps.length
                    + " steps; give one step per ciphertext, at least one");
        }
        CkksCiphertext[] x = new CkksCiphertext[xs.length];
        int level = Integer.MAX_VALUE;
        for (int t = 0; t < xs.length; t++) {
            x[t] = ct(xs[t]);
            if (x[t].slots() != x[0].slots()) {
                throw new HeException(op + ": operand " + t + " has " + x[t].slots() + " slots, operand 0 has "
                        + x[0].slots() + "; rotate ciphertexts of one slot count together");
            }
            OperandCheck.sameScale(x[0].scale(), x[t].scale(), op);
            level = Math.min(level, x[t].level());
        }
        List<RnsPoly> switched = new ArrayList<>();
        List<SwitchingKey> keyFor = new ArrayList<>();
        List<Automorphism> autos = new ArrayList<>();
        List<CkksCiphertext> unmoved = new ArrayList<>();
        RnsPoly d0 = null;
        for (int t = 0; t < x.length; t++) {
            CkksCiphertext c = atLevel(x[t], level);
            int s = Math.floorMod(steps[t], c.slots());
            if (s == 0) {
                unmoved.add(c);
                continue;
            }
            int keyStep = rotationKeyStep(s, c.slots());
            keyFor.add(rotationKey(keyStep)); // a missing key fails before any work
            Automorphism g = keygen.automorphism(keygen.rotationElement(keyStep));
            autos.add(g);
            switched.add(c.c1);
            // each permuted c0 is new: summed in place (a sum per giant step would be a polynomial's worth of garbage)
            RnsPoly moved = exec.automorphism(c.c0, g, level);
            d0 = d0 == null ? moved : exec.addInto(d0, moved, level);
        }
        // the unmoved parts are the operands' own: copied on the first add, summed in place after it
        boolean fresh0 = d0 != null;
        RnsPoly d1 = null;
        boolean fresh1 = false;
        for (CkksCiphertext c : unmoved) {
            d0 = d0 == null ? c.c0 : fresh0 ? exec.addInto(d0, c.c0, level) : exec.add(d0, c.c0, level);
            fresh0 = d0 != c.c0;
            d1 = d1 == null ? c.c1 : fresh1 ? exec.addInto(d1, c.c1, level) : exec.add(d1, c.c1, level);
            fresh1 = d1 != c.c1;
        }
        return new GiantSteps(
                x[0],
                level,
                switched.toArray(RnsPoly[]::new),
                keyFor.toArray(SwitchingKey[]::new),
                autos.toArray(Automorphism[]::new),
                d0,
                d1);
    }

    @Override
    public int concurrency() {
        return exec.concurrency();
    }

    @Override
    public Ciphertext conjugate(Ciphertext a) {
        CkksCiphertext x = ct(a);
        SwitchingKey key = keys.conjugation != null ? keys.conjugation : generatedConjugation;
        if (key == null) {
            if (onDemand == null) {
                throw new HeException("conjugate needs the conjugation key; these evaluation keys have none");
            }
            key = keygen.galoisKey(onDemand, keygen.conjugationElement());
            generatedConjugation = key;
        }
        KeySwitchDigits digits = exec.decompose(x.c1, x.level());
        return applyGalois(x, digits, keygen.automorphism(keygen.conjugationElement()), key);
    }

    @Override
    public Ciphertext bootstrap(Ciphertext a) {
        return bootstrap(a, 1.0);
    }

    /** The factor joins the constant SlotsToCoeffs multiplies by anyway: no level. */
    @Override
    public Ciphertext bootstrap(Ciphertext a, double factor) {
        CkksCiphertext x = ct(a);
        return bootstrapper().bootstrap(this, x, keys, onDemand != null, encapsulation(), factor);
    }

    /**
     * One bootstrap for two ciphertexts of real slots: Re a + i·Re b is refreshed (times 1/2, folded into
     * SlotsToCoeffs), then a = w + w̄ and b = −i·(w − w̄). Multiplying by ±i is the monomial ±X^(N/2): no level.
     * The real parts are taken first (2·Re a = a + ā, at level 0 where a conjugation is cheapest, the 2 folded into
     * the same constant): the imaginary parts real computations accumulate as error would otherwise land in the
     * other ciphertext's values. b joins at a's scale label (its values read times s_b/s_a) and leaves with its
     * scale label times s_b/s_a, which reads them back exactly. Operands of other slot counts, or scales more than
     * 2× apart, are bootstrapped one by one.
     */
    @Override
    public Ciphertext[] bootstrapPair(Ciphertext a, Ciphertext b) {
        return bootstrapPair(a, b, 1.0, 1.0);
    }

    /**
     * a's factor joins SlotsToCoeffs' constant; b's, where it differs, its scale label (b leaves with values
     * factorB·b read at a scale factorA/factorB times its own: exact, no level, and the engine aligns scales where
     * b meets others).
     */
    @Override
    public Ciphertext[] bootstrapPair(Ciphertext a, Ciphertext b, double factorA, double factorB) {
        CkksCiphertext x = ct(a);
        CkksCiphertext y = ct(b);
        double ratio = y.scale() / x.scale();
        if (x.slots() != y.slots() || ratio > 2 || ratio < 0.5) {
            return new Ciphertext[] {bootstrap(x, factorA), bootstrap(y, factorB)};
        }
        Bootstrapper boot = bootstrapper();
        CkksCiphertext x0 = ct(twiceRealPart(dropToLevel(x, 0)));
        CkksCiphertext iy = ct(multiplyPlain(twiceRealPart(dropToLevel(y, 0)), boot.imaginaryUnit(1, 0)));
        Ciphertext joined = add(x0, iy.with(iy.c0, iy.c1, 0, x0.scale()));
        Ciphertext w = boot.bootstrap(this, joined, keys, onDemand != null, encapsulation(), 0.25 * factorA);
        Ciphertext conj = conjugate(w);
        Ciphertext re = add(w, conj);
        CkksCiphertext im = ct(multiplyPlain(sub(w, conj), boot.imaginaryUnit(-1, w.level())));
        return new Ciphertext[] {re, im.with(im.c0, im.c1, im.level(), im.scale() * ratio * factorA / factorB)};
    }

    /** c + c̄: twice the real part of every slot. */
    private Ciphertext twiceRealPart(Ciphertext c) {
        return add(c, conjugate(c));
    }

    private Bootstrapper bootstrapper() {
        Bootstrapper b = bootstrapper;
        if (b == null) {
            b = new Bootstrapper(
                    params, encoder, new CkksCiphertextLimbs(exec, this), BootstrapParameters.of(params), circuits);
            bootstrapper = b;
        }
        return b;
    }

    /** Null for a sparse secret or keys without encapsulation; generated once when keys come on demand. */
    private SecretEncapsulation encapsulation() {
        if (!BootstrapParameters.encapsulates(params)) {
            return null;
        }
        EncapsulationKeys k = keys.encapsulation != null ? keys.encapsulation : generatedEncapsulation;
        if (k == null && onDemand != null) {
            k = keygen.encapsulationKeys(onDemand);
            generatedEncapsulation = k;
        }
        if (k == null) {
            return null;
        }
        EncapsulationKeys held = k;
        return new SecretEncapsulation() {
            @Override
            public Ciphertext toEphemeral(Ciphertext levelZero) {
                CkksCiphertext x = ct(levelZero);
                if (x.level() != 0) {
                    throw new HeException(
                            "sparse-secret encapsulation takes a level-0 ciphertext, got level " + x.level());
                }
                RnsPoly[] ks = exec.switchAtLevelZero(x.c1, held.toEphemeral());
                return x.with(exec.addInto(ks[0], x.c0, 0), ks[1], 0, x.scale());
            }

            @Override
            public Ciphertext toMain(Ciphertext underEphemeral) {
                return switchSecret(ct(underEphemeral), held.toMain());
            }
        };
    }

    /** (c0, c1) → (c0 + ks0, ks1), where ks0 + ks1·s_to ≈ c1·s_from. */
    private CkksCiphertext switchSecret(CkksCiphertext x, SwitchingKey key) {
        int level = x.level();
        RnsPoly[] ks = exec.applyKey(exec.decompose(x.c1, level), key, level);
        return x.with(exec.addInto(ks[0], x.c0, level), ks[1], level, x.scale());
    }

    private CkksCiphertext applyGalois(CkksCiphertext x, KeySwitchDigits digits, Automorphism g, SwitchingKey key) {
        int level = x.level();
        RnsPoly[] ks = exec.applyKey(digits, key, level);
        RnsPoly c0 = exec.automorphism(exec.addInto(ks[0], x.c0, level), g, level);
        RnsPoly c1 = exec.automorphism(ks[1], g, level);
        return x.with(c0, c1, level, x.scale());
    }

    /**
     * The key step to use for a left rotation by s of a ciphertext with this many slots: s itself, or, for
     * sparse packing (the vector repeats every {@code slots}), any held step congruent to s modulo slots.
     */
    private int rotationKeyStep(int s, int slots) {
        if (keys.rotations.containsKey(s) || generated.containsKey(s)) {
            return s;
        }
        if (slots < params.slots()) {
            for (int k : keys.rotations.keySet()) {
                if (Math.floorMod(k, slots) == s) {
                    return k;
                }
            }
        }
        return s;
    }

    private SwitchingKey rotationKey(int step) {
        SwitchingKey key = keys.rotations.get(step);
        if (key != null) {
            return key;
        }
        if (onDemand == null) {
            throw new HeException("rotate by " + step + " needs a rotation key for step " + step
                    + "; these evaluation keys have steps " + keys.rotationSteps());
        }
        return generated.computeIfAbsent(step, s -> keygen.galoisKey(onDemand, keygen.rotationElement(s)));
    }

    private double productScale(double a, double b, int level, String op) {
        double scale = a * b;
        double logScale = OperandCheck.log2(scale);
        if (logScale + 1 >= params.logQ(level)) {
            throw new HeException(String.format(
                    "%s: out of levels: the product's scale 2^%.1f does not fit the modulus "
                            + "2^%.1f left at level %d; rescale first, or bootstrap",
                    op, logScale, params.logQ(level), level));
        }
        return scale;
    }

    /** round(v) modulo q_0..q_level, exact for any magnitude. */
    private long[] residues(double v, int level) {
        long[] r = new long[level + 1];
        if (ScaledInteger.fitsLong(v)) {
            long k = Math.round(v);
            for (int i = 0; i <= level; i++) {
                r[i] = ring.modulus(i).reduceSigned(k);
            }
        } else {
            BigInteger k = new BigDecimal(v).setScale(0, RoundingMode.HALF_EVEN).toBigIntegerExact();
            for (int i = 0; i <= level; i++) {
                r[i] = k.mod(BigInteger.valueOf(ring.modulus(i).value())).longValueExact();
            }
        }
        return r;
    }
}

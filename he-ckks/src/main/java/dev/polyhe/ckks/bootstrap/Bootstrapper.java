package dev.polyhe.ckks.bootstrap;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * CKKS bootstrapping (Cheon–Han–Kim–Kim–Song, with the sparse-secret and double-angle refinements): a level-0
 * ciphertext of n slots at scale Δ comes back at {@link #outputLevel()} and scale Δ.
 *
 * <ol>
 *   <li>ModRaise: read mod q_0 at the top level; the plaintext is t = Δ·m + e + q_0·I, |I| ≤ K. A dense
 *       key-set secret is swapped for an ephemeral sparse one around this step ({@link SecretEncapsulation}).</li>
 *   <li>Sparse slots only (n &lt; N/2): the trace to Z[X^(N/2n)] (log2(N/2n) rotations by n·2^j in the
 *       full view) clears the coefficients off the grid the message lives on and multiplies the rest by N/2n.</li>
 *   <li>CoeffsToSlots ({@code c} levels): slots hold bitrev(t_lo + i·t_hi) / (2·B·q_0), B the sine's
 *       {@link ChebyshevSine#inputBound()} (K + 1/2, or K + 3/4 for its even form); one
 *       conjugation splits real and imaginary parts into two ciphertexts of real slots u = t/(B·q_0) (full
 *       slots), or, for n ≤ N/4, into the two halves of one ciphertext read with 2n slots.</li>
 *   <li>EvalMod on each ({@link ChebyshevSine#depth()} levels): sin(2π·t/q_0) ≈ 2π·Δ·m/q_0, as a cosine even
 *       in the shifted input where that takes fewer products.</li>
 *   <li>SlotsToCoeffs ({@code s} levels): the two parts recombined (·i is the exact monomial X^(N/2), no
 *       level; packed: the first group joins the halves) and mapped back to slots, times q_0/(2π·Δ), at
 *       scale Δ.</li>
 * </ol>
 * Levels consumed: c + depth(EvalMod) + s, counted down from the top. The raised ciphertext is read at the
 * scale of the top prime, every transform keeps that scale exactly (diagonals encoded at the prime they are
 * rescaled by), and only the last SlotsToCoeffs group sets the output scale, to the input's Δ.
 */
public final class Bootstrapper {
    /**
     * The least q_0/Δ accepted: below it the sine's cubic loss (see {@link #sineRelativeError}) exceeds 2^-17
     * relative on inputs in [−1, 1].
     */
    static final double MIN_HEADROOM = 0x1p10;

    /**
     * The documented loss outside [−1, 1]: EvalMod computes q_0/(2πΔ)·sin(2π·c·Δ/q_0) on every coefficient c of
     * the plaintext polynomial, so c loses c·(2π·c·Δ/q_0)²/6, the value this returns for c = m, times m. The
     * coefficients' cubes sum to at most M³ in any slot (Parseval: Σc² ≤ M², |c| ≤ M for slots bounded by M),
     * so no slot loses more than M·sineRelativeError(M, Δ, q_0); a constant vector loses exactly that. At
     * the presets' q_0/Δ = 2^15 this is 2^-27 at M = 1, 2^-9 at M = 100; inputs with M ≥ q_0/(4Δ) are
     * garbage (the sine turns over), which no check on ciphertexts can catch.
     */
    public static double sineRelativeError(double m, double delta, double q0) {
        double a = 2 * Math.PI * m * delta / q0;
        return a * a / 6;
    }

    private final SchemeParameters params;
    private final Encoder encoder;
    private final CiphertextLimbs limbs;
    private final BootstrapParameters shape;
    private final ChebyshevSine sine;
    private final Circuits circuits;

    /**
     * The encoded circuits of one parameter set (the transforms' diagonals, about 3.9 GiB for full slots at
     * N = 2^16), built on first use and shared by the bootstrappers of every evaluator that holds it: an engine per
     * query (a server's) then builds them once, not once a query. They hold no keys; each bootstrap applies them with
     * its own evaluator's.
     */
    public static final class Circuits {
        private final Map<Key, Circuit> byShape = new ConcurrentHashMap<>();

        private record Key(BootstrapParameters shape, int slots) {}

        /** The circuits built so far (one per slot count bootstrapped). */
        public int size() {
            return byShape.size();
        }
    }

    public Bootstrapper(SchemeParameters params, Encoder encoder, CiphertextLimbs limbs) {
        this(params, encoder, limbs, BootstrapParameters.of(params));
    }

    public Bootstrapper(SchemeParameters params, Encoder encoder, CiphertextLimbs limbs, BootstrapParameters shape) {
        this(params, encoder, limbs, shape, new Circuits());
    }

    /** A bootstrapper that takes its circuits from {@code circuits}, shared with others of these parameters. */
    public Bootstrapper(
            SchemeParameters params,
            Encoder encoder,
            CiphertextLimbs limbs,
            BootstrapParameters shape,
            Circuits circuits) {
        this.params = params;
        this.encoder = encoder;
        this.limbs = limbs;
        this.shape = shape;
        this.sine = ChebyshevSine.cheapest(shape.sineBound());
        this.circuits = circuits;
        requireLevels(params, shape, sine);
    }

    private static void requireLevels(SchemeParameters params, BootstrapParameters shape, ChebyshevSine sine) {
        int consumed = levelsConsumed(shape, sine);
        if (consumed > params.maxLevel()) {
            throw new HeException("bootstrapping consumes " + consumed + " levels (CoeffsToSlots "
                    + shape.coeffsToSlotsLevels() + ", EvalMod " + sine.depth() + ", SlotsToCoeffs "
                    + shape.slotsToCoeffsLevels() + ") but these parameters have " + params.maxLevel()
                    + "; use a bootstrapping preset such as insecure-test-boot-N12");
        }
    }

    private static int levelsConsumed(BootstrapParameters shape, ChebyshevSine sine) {
        return shape.coeffsToSlotsLevels() + sine.depth() + shape.slotsToCoeffsLevels();
    }

    /** Levels the circuit uses, from the top level down. */
    public int levelsConsumed() {
        return levelsConsumed(shape, sine);
    }

    /** The level a bootstrapped ciphertext comes back at. */
    public int outputLevel() {
        return params.maxLevel() - levelsConsumed();
    }

    /** A description of the circuit for reports: K, degree, double angles, levels per stage. */
    public String describe() {
        return String.format(
                "K=%d, sine degree %d%s with %d double angles, levels: CoeffsToSlots %d, EvalMod %d, "
                        + "SlotsToCoeffs %d, left %d",
                shape.modulusRange(),
                sine.degree(),
                sine.even() ? " (even form, in T_2)" : "",
                sine.doubleAngles(),
                shape.coeffsToSlotsLevels(),
                sine.depth(),
                shape.slotsToCoeffsLevels(),
                outputLevel());
    }

    /**
     * The rotation steps (modulo N/2) of the full-slot circuit and of every sparse slot count: 41 keys at
     * N = 2^10, 66 at 2^12. At N = 2^16 that would be 133 keys of about 200 MB, so large rings choose their
     * counts with {@link #rotationSteps(SchemeParameters, Set)}.
     */
    public static Set<Integer> rotationSteps(SchemeParameters params) {
        return rotationSteps(params, everySlotCount(params));
    }

    /** Every slot count a ciphertext can have: N/2, N/4, .., 2. */
    public static Set<Integer> everySlotCount(SchemeParameters params) {
        Set<Integer> counts = new TreeSet<>();
        for (int n = params.slots(); n >= 2; n >>= 1) {
            counts.add(n);
        }
        return counts;
    }

    /** The rotation steps (modulo N/2) that bootstrap ciphertexts of these slot counts. */
    public static Set<Integer> rotationSteps(SchemeParameters params, Set<Integer> slotCounts) {
        BootstrapParameters shape = BootstrapParameters.of(params);
        requireLevels(params, shape, ChebyshevSine.cheapest(shape.sineBound()));
        Set<Integer> steps = new TreeSet<>();
        for (int n : slotCounts) {
            requireSlotCount(params, n);
            steps.addAll(rotationSteps(params, shape, n));
        }
        return steps;
    }

    /** @throws HeException unless n is a power of two in 2 .. N/2 */
    public static void requireSlotCount(SchemeParameters params, int n) {
        if (n < 2 || n > params.slots() || Integer.bitCount(n) != 1) {
            throw new HeException("bootstrapping slot count " + n + " is not a power of two in 2 .. " + params.slots());
        }
    }

    static Set<Integer> rotationSteps(SchemeParameters params, BootstrapParameters shape, int slots) {
        Set<Integer> steps = new TreeSet<>();
        for (int s = slots; s < params.slots(); s <<= 1) {
            steps.add(s);
        }
        boolean packed = packed(params, slots);
        steps.addAll(CoeffsToSlots.rotations(slots, shape.coeffsToSlotsLevels(), packed));
        steps.addAll(SlotsToCoeffs.rotations(slots, shape.slotsToCoeffsLevels(), packed));
        return steps;
    }

    /** n ≤ N/4: the real and imaginary parts fit side by side in 2n slots, so EvalMod runs once, not twice. */
    private static boolean packed(SchemeParameters params, int slots) {
        return 2 * slots <= params.slots();
    }

    /**
     * Bootstraps {@code in} with {@code ev}, whose keys are {@code keys}; unless {@code keysOnDemand}, they must
     * bootstrap this slot count, or hold the conjugation key and its rotations. {@code encapsulation} is null
     * for a sparse key-set secret and required for a dense one ({@link BootstrapParameters#encapsulates}).
     */
    public Ciphertext bootstrap(
            Evaluator ev, Ciphertext in, EvaluationKeys keys, boolean keysOnDemand, SecretEncapsulation encapsulation) {
        return bootstrap(ev, in, keys, keysOnDemand, encapsulation, 1.0);
    }

    /**
     * Bootstraps {@code in} and multiplies it by {@code factor} on the way, free: the factor joins the constant
     * SlotsToCoeffs multiplies by anyway.
     */
    public Ciphertext bootstrap(
            Evaluator ev,
            Ciphertext in,
            EvaluationKeys keys,
            boolean keysOnDemand,
            SecretEncapsulation encapsulation,
            double factor) {
        int n = in.slots();
        if (n < 2) {
            throw new HeException("bootstrap: a ciphertext of " + n + " slot cannot be bootstrapped; use 2 or more");
        }
        Circuit c = circuits.byShape.computeIfAbsent(
                new Circuits.Key(shape, n), k -> new Circuit(params, shape, sine, encoder, limbs, n));
        if (!keysOnDemand
                && !keys.bootstraps(n)
                && !(keys.hasConjugation() && keys.rotationSteps().containsAll(c.rotations))) {
            throw new HeException("bootstrap: these keys do not bootstrap " + n + " slots (they bootstrap "
                    + (keys.hasBootstrapping() ? keys.bootstrapSlots() + " slots" : "none") + "); generate them with "
                    + "bootstrapSlots containing " + n + ", or hold the conjugation key and rotations " + c.rotations);
        }
        if (BootstrapParameters.encapsulates(params) && encapsulation == null) {
            throw new HeException("bootstrap: a dense secret bootstraps through its ephemeral sparse secret, and "
                    + "these keys lack the encapsulation keys; generate them with bootstrapping");
        }
        Ciphertext x = ev.dropToLevel(in, 0);
        double delta = x.scale();
        if (params.q(0) / delta < MIN_HEADROOM) {
            throw new HeException(String.format(
                    "bootstrap: the scale 2^%.1f is too close to q_0 = 2^%.1f; "
                            + "bootstrapping needs q_0/scale >= 2^10 (sin's cubic term costs (2π·m·scale/q_0)^2/6 of "
                            + "each value)",
                    Math.log(delta) / Math.log(2), Math.log(params.q(0)) / Math.log(2)));
        }
        if (encapsulation != null) {
            x = encapsulation.toEphemeral(x);
        }
        Ciphertext ct = limbs.modRaise(x, params.maxLevel(), c.raisedScale, params.slots());
        if (encapsulation != null) {
            ct = encapsulation.toMain(ct);
        }
        for (int s = n; s < params.slots(); s <<= 1) {
            ct = ev.add(ct, ev.rotate(ct, s));
        }
        ct = view(ct, c.packed ? 2 * n : n);
        ct = c.coeffsToSlots.apply(limbs, ct);
        Ciphertext conj = ev.conjugate(ct);
        if (c.packed) {
            // [w, −i·w] + conjugate = [2·Re w, 2·Im w]: one EvalMod for both halves
            ct = c.evalMod.apply(ev, ev.add(ct, conj));
        } else {
            // the real and imaginary halves are independent: their EvalMods run at once where threads allow
            Ciphertext[] halves = {ev.add(ct, conj), ev.multiplyPlain(ev.sub(ct, conj), c.unit(-1, ct.level()))};
            params.ring()
                    .pool()
                    .both(
                            () -> halves[0] = c.evalMod.apply(ev, halves[0]),
                            () -> halves[1] = c.evalMod.apply(ev, halves[1]));
            ct = ev.add(halves[0], ev.multiplyPlain(halves[1], c.unit(1, halves[1].level())));
        }
        ct = c.slotsToCoeffs.apply(ev, limbs, ct, factor * params.q(0) / (2 * Math.PI * delta), delta);
        ct = view(ct, n);
        // few slots have fewer butterfly stages than levels set aside: the promise is the same level for all
        return ct.level() > outputLevel() ? ev.dropToLevel(ct, outputLevel()) : ct;
    }

    /** The same ciphertext read with another slot count (its vector repeats with the smaller one). */
    private Ciphertext view(Ciphertext ct, int slots) {
        if (ct.slots() == slots) {
            return ct;
        }
        return limbs.view(ct, slots);
    }

    /**
     * The circuit's encoded constants for one slot count, built on first use with the first evaluator's {@code limbs}
     * (which only encode here: nothing keeps them).
     */
    private static final class Circuit {
        final Encoder encoder;
        final int slots;
        final boolean packed;
        /**
         * The scale the raised ciphertext is read at, and EvalMod's: the top prime, not q_0, so that the sine's
         * noise is relative to the larger bootstrapping primes (2^60 against q_0 = 2^55: 5 bits more precision).
         */
        final double raisedScale;

        final CoeffsToSlots coeffsToSlots;
        final Set<Integer> rotations;
        final EvalMod evalMod;
        final SlotsToCoeffs slotsToCoeffs;

        Circuit(
                SchemeParameters params,
                BootstrapParameters shape,
                ChebyshevSine sine,
                Encoder encoder,
                CiphertextLimbs limbs,
                int slots) {
            this.encoder = encoder;
            this.raisedScale = params.q(params.maxLevel());
            this.slots = slots;
            this.packed = packed(params, slots);
            int top = params.maxLevel();
            double gap = params.slots() / (double) slots;
            coeffsToSlots = new CoeffsToSlots(
                    params,
                    limbs,
                    slots,
                    shape.coeffsToSlotsLevels(),
                    packed,
                    top,
                    raisedScale / ((double) params.q(0) * 2 * slots * gap * sine.inputBound()));
            rotations = rotationSteps(params, shape, slots);
            evalMod = new EvalMod(sine, params);
            slotsToCoeffs = new SlotsToCoeffs(
                    params,
                    limbs,
                    slots,
                    shape.slotsToCoeffsLevels(),
                    packed,
                    top - coeffsToSlots.levels() - evalMod.depth());
        }

        /** ±i at each level, encoded once: a device backend then uploads nothing inside a bootstrap. */
        private final Map<Integer, Plaintext> units = new ConcurrentHashMap<>();

        /** ±i in every slot at scale 1: the monomial ±X^(N/2), an exact multiplication that uses no level. */
        Plaintext unit(int sign, int level) {
            return units.computeIfAbsent(2 * level + (sign > 0 ? 1 : 0), k -> imaginaryUnit(encoder, sign, level));
        }
    }

    /** ±i at scale 1: the exact monomial ±X^(N/2), so a product by it costs no level. */
    public Plaintext imaginaryUnit(int sign, int level) {
        return imaginaryUnit(encoder, sign, level);
    }

    private static Plaintext imaginaryUnit(Encoder encoder, int sign, int level) {
        return encoder.encodeComplex(new double[] {0}, new double[] {sign}, 1, level, 1.0);
    }
}

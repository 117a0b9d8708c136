package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.HeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's refresh policy: when a ciphertext is bootstrapped, with which partner, scaled by how much first, and
 * whether twice for precision. Bootstrapping's error is absolute and its sine wraps large values around q_0, so
 * every decision here is about the magnitude of the values going in ({@link CiphertextBounds}). Refreshed copies are
 * kept for as long as their originals live and served to every later use. Runs on the engine's thread; only the
 * bootstraps of a group run at once.
 */
final class Refresher {
    // under the engine's name: docs/fidelity.md turns the bootstrap trace on by it
    private static final Logger LOG = LoggerFactory.getLogger(EncryptedEngine.class);

    /**
     * Two ciphertexts share a bootstrap only when their prescaling exponents differ by at most this: the second leaves
     * with its scale label 2^-gap below Δ (see {@link Evaluator#bootstrapPair(Ciphertext, Ciphertext, double,
     * double)}),
     * which the engine's scale alignment absorbs when it is small.
     */
    static final int MAX_PAIR_PRESCALE_GAP = 4;

    /**
     * Two precise refreshes share their bootstraps when their prescaling exponents differ by at most this (see
     * preciseShare): the smaller keeps about 30 − 6 bits relative to its own magnitude, the 16 of the attention's
     * working precision and its spread's amplification taken against the larger.
     */
    static final int PRECISE_PAIR_PRESCALE_GAP = 6;

    /** Bootstrapping is most precise on values of about this magnitude (its error is absolute; see prescale). */
    static final double BOOTSTRAP_TARGET = 1.0;
    /**
     * Values known to be smaller than this are scaled as if they were this large: below it the noise they carry, not
     * their bound, sets their magnitude, and scaling noise up to the target would let it wrap around q_0.
     */
    static final double NOISE_FLOOR = 0x1p-20;

    /**
     * Values scaled up by 2^k with k at least this come back from their bootstrap at the larger magnitude and are
     * scaled down by a constant product after it, spending one of the fresh levels: folded into SlotsToCoeffs, the
     * factor would leave them SlotsToCoeffs' own noise (about 3 × 2^10 units of Δ) unscaled, so that values below
     * 2^-11 kept less than 16 bits (GELU's smallest terms, 6e-5: 14.4); scaled down after, they keep what a rescale
     * leaves at Δ. Smaller k keep 17 bits or more either way, and are not worth the level.
     */
    static final int SCALED_DOWN_AFTER = 11;
    /** The level bootstrapping returns ciphertexts at (as the planner's symbolic runs take it). */
    private final int bootstrappedLevel;

    private final LevelsAndScales scales;
    private final HeContext context;
    private final Evaluator evaluator;
    private final EvaluationKeys keys;
    private final PreciseBootstrap twice;
    private final Accounting accounting;
    private final CiphertextBounds bounds;
    private final double scale;
    private final BootstrapPartners partners = new BootstrapPartners();
    /**
     * Refreshed copies of bootstrapped ciphertexts, for as long as the originals live: an operand used many times
     * (a query column against every key shift, a score diagonal against every value column) is bootstrapped once.
     */
    private final Map<Ciphertext, Ciphertext> refreshedCopies = Collections.synchronizedMap(
            new WeakHashMap<>()); // read by forked tasks; a WeakHashMap's get expunges, so even reads lock
    /** The copies in {@link #refreshedCopies} that two bootstraps made precise ({@link PreciseBootstrap}). */
    private final Set<Ciphertext> preciseCopies =
            Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));

    private EncryptedEngine.BootstrapObserver bootstrapObserver;
    /** Set while a planned refresh runs, so that its bootstraps are explained as planned. */
    private boolean plannedRefresh;
    /** The precision asked for by the programs running now ({@link #precision}); 0: none. */
    private double requiredBits;
    /** The largest |value| the element-wise operation under way yields, from its operands' ranges (NaN: unknown). */
    private double expectedMagnitude = Double.NaN;

    Refresher(
            LevelsAndScales scales,
            HeContext context,
            Evaluator evaluator,
            EvaluationKeys keys,
            Accounting accounting,
            CiphertextBounds bounds,
            double scale) {
        this.scales = scales;
        this.context = context;
        this.bootstrappedLevel = EncryptedEngine.topLevel(context.parameters());
        this.evaluator = evaluator;
        this.keys = keys;
        this.twice = new PreciseBootstrap(evaluator, context);
        this.accounting = accounting;
        this.bounds = bounds;
        this.scale = scale;
    }

    /** Sets (or, with null, removes) the observer of bootstraps. */
    void observe(EncryptedEngine.BootstrapObserver observer) {
        this.bootstrapObserver = observer;
    }

    /** See {@link EncryptedEngine#precision}. */
    OperatorScope precision(double bits) {
        double before = requiredBits;
        requiredBits = Math.max(requiredBits, bits);
        return () -> requiredBits = before;
    }

    /** Runs {@code work}, an element-wise operation yielding values up to {@code magnitude} (NaN: unknown). */
    <T> T expecting(double magnitude, Supplier<T> work) {
        double before = expectedMagnitude;
        expectedMagnitude = magnitude;
        try {
            return work.get();
        } finally {
            expectedMagnitude = before;
        }
    }

    /** Runs {@code work}, a refresh the plan asked for: its bootstraps are accounted as planned. */
    <T> T planned(Supplier<T> work) {
        plannedRefresh = true;
        try {
            return work.get();
        } finally {
            plannedRefresh = false;
        }
    }

    /** Notes r, just rescaled, as a bootstrap partner for whatever runs out of levels next. */
    void spent(Ciphertext r) {
        if (bootstraps(r)) {
            ForkedTasks.effect(share -> partners.nearlySpent(r));
        }
    }

    /** a and b, both at one level and spent, refreshed together: one pair bootstrap where they allow it. */
    Ciphertext[] refreshedPair(Ciphertext a, Ciphertext b, OperatorKind op) {
        ForkedTasks.requireEngineThread("refreshing two operands to align them");
        partners.group(List.of(a, b));
        try {
            return new Ciphertext[] {withLevels(a, 1, op), withLevels(b, 1, op)};
        } finally {
            partners.endGroup();
        }
    }

    /**
     * A ciphertext with at least {@code levels} levels left, bootstrapping it if it has fewer. A bootstrap takes a
     * partner along when one is at hand (a ciphertext just rescaled to level 0 or 1, with the same slots): one
     * bootstrap of both as real and imaginary parts costs about as much as one alone, and the partner is served
     * refreshed when its own turn comes (Goldschmidt's two sequences run out of levels together).
     */
    Ciphertext withLevels(Ciphertext c, int levels, OperatorKind op) {
        Ciphertext ready = ready(c, levels);
        if (ready != null) {
            return ready;
        }
        Refresh r = refresh(c, levels, op, Set.of());
        r.run();
        r.finish(1.0);
        return refreshedCopies.get(c);
    }

    /**
     * {@link #withLevels} for ciphertexts that go on together (the score blocks an attention product reads): those
     * short of levels are refreshed as one group, two by two, rather than each as the product reaches it, when the
     * partners at hand are ciphertexts already spent.
     */
    Ciphertext[] withLevels(Ciphertext[] cts, int levels, OperatorKind op) {
        refreshTogether(Arrays.asList(cts), c -> levels, op);
        Ciphertext[] out = new Ciphertext[cts.length];
        for (int i = 0; i < out.length; i++) {
            out[i] = withLevels(cts[i], levels, op);
        }
        return out;
    }

    /** c itself or its refreshed copy where either has the levels, else null. */
    private Ciphertext ready(Ciphertext c, int levels) {
        if (c.level() >= levels) {
            return c;
        }
        Ciphertext copy = servedCopy(c);
        return copy != null && copy.level() >= levels ? copy : null;
    }

    /**
     * c's refreshed copy, where it is precise enough for the program running now: a copy refreshed once, for a step
     * that needed no more (Goldschmidt's first guess reads its denominator so), is not served to one that asks for
     * more precision than one bootstrap keeps, which refreshes c again, precisely.
     */
    private Ciphertext servedCopy(Ciphertext c) {
        Ciphertext copy = refreshedCopies.get(c);
        return copy == null || preciseCopies.contains(copy) || !wantsPrecise(c) ? copy : null;
    }

    /** Whether a refresh of c now would be precise for the program's sake ({@link #precision}). */
    private boolean wantsPrecise(Ciphertext c) {
        return requiredBits > twice.singleBootstrapBits() && !Double.isNaN(bounds.of(c));
    }

    /**
     * Decides how c is refreshed (its partner, prescaling and precision) and does the cheap preparation; the
     * bootstraps themselves are left to {@link Refresh#run}, so that a group's can run at once. {@code claimed}:
     * ciphertexts already taken by refreshes decided but not yet finished, which cannot be partners.
     */
    private Refresh refresh(Ciphertext c, int levels, OperatorKind op, Set<Ciphertext> claimed) {
        ForkedTasks.requireEngineThread("a refresh");
        if (!bootstraps(c)) {
            throw new HeException("out of levels: an operator needs " + levels + " level(s) but the ciphertext is at "
                    + "level " + c.level() + " and the evaluation keys have no bootstrapping keys for its "
                    + c.slots() + " slots; use a deeper modulus chain or generate bootstrapping keys for them");
        }
        if (c.scale() > scale * Math.sqrt(2) && c.level() >= 1 && prescale(c) >= 0) {
            // a scale label above Δ leaves bootstrapping less than q_0/Δ of headroom: back onto Δ first (values
            // scaled down before their bootstrap land on Δ in the same product, see prescaled)
            Ciphertext onDelta = bounds.same(scales.adjust(c, c.level() - 1, scale, op), c);
            Refresh r = onDelta.level() >= levels
                    ? new Refresh(onDelta, levels, op)
                    : refresh(onDelta, levels, op, claimed);
            r.aliases.add(c);
            return r;
        }
        int alone = prescale(c);
        // Two bootstraps for one where a program asks for more precision than one keeps, and where values known to be
        // large reached level 0 with no level left to scale them down (a LayerNorm's sum of squares after a row sum's
        // masks): the second refreshes what the sine got wrong on them.
        boolean stuckLarge = bounds.tight(c) && !wellScaled(c, alone);
        boolean precise = wantsPrecise(c) || stuckLarge && !Double.isNaN(bounds.of(c));
        // A partner leaves with its scale label off Δ by the ratio of the two factors: only near ones share. And the
        // two share the bootstrap's precision, so a large value (that cannot be scaled down) spoils its partner.
        // Two precise bootstraps pair as two pair bootstraps when both have known bounds and factors near enough to
        // take the larger value's for both (see preciseShare).
        // Values large only by interval arithmetic (a residual stream at level 0, its bound loose) pair with another
        // ciphertext of their tensor in the same state: neither can be scaled down, and whatever they really are, each
        // spoils the other no more than itself.
        Ciphertext found = wellScaled(c, alone)
                ? partners.partnerFor(
                        c,
                        p -> precise
                                ? preciseShare(c, alone, p, prescale(p))
                                        && wellScaled(p, Math.min(alone, prescale(p)))
                                        && !Double.isNaN(bounds.of(p))
                                : Math.abs(prescale(p) - alone) <= MAX_PAIR_PRESCALE_GAP && wellScaled(p, prescale(p)))
                : precise || bounds.tight(c)
                        ? null
                        : partners.groupPartnerFor(c, p -> looselyLarge(p) && prescale(p) == alone && !wantsPrecise(p));
        Ciphertext partner =
                found == null || refreshedCopies.containsKey(found) || claimed.contains(found) ? null : found;
        int k = partner == null ? alone : pairPrescale(precise ? Math.min(alone, prescale(partner)) : alone);
        accounting.placed(c.level(), levels, partner != null, precise, plannedRefresh);
        if (LOG.isDebugEnabled()) {
            LOG.debug(
                    "bootstrap in {} ({}): level {}, bound {}, input factor {}, {}{}",
                    accounting.currentPath(),
                    op.label(),
                    c.level(),
                    bounds.of(c),
                    Math.scalb(1.0, -k),
                    partner == null
                            ? "alone"
                            : "paired with level " + partner.level() + ", bound " + bounds.of(partner),
                    precise ? ", twice for precision" : "");
        }
        Ciphertext in = prescaled(c, k, op);
        if (partner == null) {
            return new Refresh(c, in, k, null, null, 0, precise, levels, op);
        }
        // Precise pairs share one factor, the larger value's; otherwise the second of a pair leaves with its scale
        // label times (its factor's ratio to the first's) = 2^(k2 − k1): the one scaled up more goes first, so that no
        // label ends above Δ, where bootstrapping it again would have less than q_0/Δ of headroom.
        int kp = precise ? k : pairPrescale(prescale(partner));
        return new Refresh(c, in, k, partner, prescaled(partner, kp, op), kp, precise, levels, op);
    }

    /**
     * One refresh, decided by {@link #refresh}: {@link #run} does the bootstraps (evaluator calls only, so that
     * the refreshes of a group can run at once), {@link #finish} the engine's bookkeeping, on the engine's thread and
     * in the order the refreshes were decided.
     */
    private final class Refresh {
        final Ciphertext c;
        final Ciphertext in;
        final int k;
        final Ciphertext partner;
        final Ciphertext inPartner;
        final int kp;
        final boolean precise;
        final int levels;
        final OperatorKind op;
        final double boundC;
        final double boundP;
        final double askedBits;
        /** Ciphertexts that stand for c (c before its scale was brought back onto Δ): served c's refreshed copy. */
        final List<Ciphertext> aliases = new ArrayList<>();

        Ciphertext out;
        Ciphertext partnerOut;
        /** Decided by run (see scaledDownAfter), done by finish. */
        boolean scaledDown;

        boolean partnerScaledDown;
        int bootstrapCalls;
        long nanos;

        Refresh(
                Ciphertext c,
                Ciphertext in,
                int k,
                Ciphertext partner,
                Ciphertext inPartner,
                int kp,
                boolean precise,
                int levels,
                OperatorKind op) {
            this.c = c;
            this.in = in;
            this.k = k;
            this.partner = partner;
            this.inPartner = inPartner;
            this.kp = kp;
            this.precise = precise;
            this.levels = levels;
            this.op = op;
            this.boundC = bounds.of(c);
            this.boundP = partner == null ? Double.NaN : bounds.of(partner);
            this.askedBits = Math.max(requiredBits, twice.singleBootstrapBits());
        }

        /** Nothing to bootstrap: c already has the levels (a scale correction was enough). */
        Refresh(Ciphertext c, int levels, OperatorKind op) {
            this(c, c, 0, null, null, 0, false, levels, op);
            this.out = c;
        }

        /**
         * Whether c (partner: c's partner) comes back scaled up and is scaled down after (see finish): where the level
         * that costs is to spare.
         */
        boolean scaledDownAfter(boolean ofPartner) {
            return !precise
                    && bootstrappedLevel > levels
                    && (partner == null
                            ? !ofPartner && k >= SCALED_DOWN_AFTER
                            : k >= SCALED_DOWN_AFTER && kp >= SCALED_DOWN_AFTER);
        }

        void run() {
            if (out != null) {
                return;
            }
            long t0 = System.nanoTime();
            scaledDown = scaledDownAfter(false);
            partnerScaledDown = scaledDownAfter(true);
            double factor = scaledDown ? 1 : Math.scalb(1.0, -k);
            double partnerFactor = partnerScaledDown ? 1 : Math.scalb(1.0, -kp);
            if (precise && partner != null) {
                Ciphertext[] both =
                        twice.bootstrapTwicePair(in, inPartner, factor, Math.scalb(boundC, k), Math.scalb(boundP, k));
                out = both[0];
                partnerOut = both[1];
                bootstrapCalls = 2;
            } else if (precise) {
                out = twice.bootstrapTwice(in, factor, Math.scalb(boundC, k));
                bootstrapCalls = 2;
            } else if (partner == null) {
                out = evaluator.bootstrap(in, factor);
                bootstrapCalls = 1;
            } else {
                boolean partnerFirst = kp > k;
                Ciphertext[] both = partnerFirst
                        ? evaluator.bootstrapPair(inPartner, in, partnerFactor, factor)
                        : evaluator.bootstrapPair(in, inPartner, factor, partnerFactor);
                out = both[partnerFirst ? 1 : 0];
                partnerOut = both[partnerFirst ? 0 : 1];
                bootstrapCalls = 1;
            }
            nanos = System.nanoTime() - t0;
        }

        /**
         * Records the bootstraps ({@code share} of their time: where refreshes ran at once, each is charged its part
         * of the wall-clock time) and serves the refreshed copies.
         */
        void finish(double share) {
            for (int i = 0; i < bootstrapCalls; i++) {
                accounting.record(op, PrimitiveKind.BOOTSTRAP, Math.round(nanos * share / bootstrapCalls));
            }
            accounting.bootstrapped(partner == null ? 1 : 2, in.slots());
            if (scaledDown) {
                out = scales.adjust(out, out.level() - 1, scale, Math.scalb(1.0, -k), op);
            }
            if (partnerScaledDown) {
                partnerOut = scales.adjust(partnerOut, partnerOut.level() - 1, scale, Math.scalb(1.0, -kp), op);
            }
            if (precise) {
                for (int i = partner == null ? 1 : 2; i > 0; i--) {
                    accounting.preciseBootstrap(askedBits, twice.singleBootstrapBits());
                }
            }
            if (precise) {
                preciseCopies.add(out);
                if (partnerOut != null) {
                    preciseCopies.add(partnerOut);
                }
            }
            if (partner != null) {
                refreshedCopies.put(partner, bounds.same(partnerOut, partner));
                observed(inPartner, partnerOut, Math.scalb(1.0, kp), bounds.of(partner));
            }
            if (out != c) {
                bounds.same(out, c);
                observed(in, out, Math.scalb(1.0, k), bounds.of(c));
            }
            if (out != c) { // a copy of itself would keep c alive in the weak map
                refreshedCopies.put(c, out);
            }
            for (Ciphertext alias : aliases) {
                refreshedCopies.put(alias, out);
            }
            if (out.level() < levels) {
                throw new HeException(
                        "bootstrapping left " + out.level() + " level(s) but the operator needs " + levels);
            }
        }
    }

    /**
     * Refreshes the ciphertexts of one group that need it, partners for each other first ({@link
     * BootstrapPartners#group}), in order, as {@link #withLevels} would one by one, but with their bootstraps run at
     * once, up to the evaluator's {@link Evaluator#concurrency}: the decisions (partners, prescaling) and the
     * bookkeeping stay on this thread, in order, so the result and the bootstraps placed do not depend on the threads.
     */
    void refreshAtOnce(List<Ciphertext> cts, int levels, OperatorKind op) {
        ForkedTasks.requireEngineThread("refreshing a group");
        partners.group(cts);
        try {
            refreshGroup(cts, levels, op);
        } finally {
            partners.endGroup();
        }
    }

    private void refreshGroup(List<Ciphertext> cts, int levels, OperatorKind op) {
        List<Refresh> jobs = new ArrayList<>();
        Set<Ciphertext> claimed = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Ciphertext c : cts) {
            if (claimed.contains(c) || ready(c, levels) != null) {
                continue;
            }
            Refresh r = refresh(c, levels, op, claimed);
            claimed.add(c);
            if (r.partner != null) {
                claimed.add(r.partner);
            }
            jobs.add(r);
        }
        long t0 = System.nanoTime();
        ConcurrentWork.runAll(
                jobs.stream().<Runnable>map(r -> r::run).toList(), evaluator.concurrency(), "polyhe-refresh");
        long wall = System.nanoTime() - t0;
        long sum = jobs.stream().mapToLong(r -> r.nanos).sum();
        double share = sum == 0 ? 1.0 : Math.min(1.0, (double) wall / sum);
        for (Refresh r : jobs) {
            r.finish(share);
        }
    }

    /**
     * One bit less scaling up for the two of a pair: they share one complex slot (the CPU backend packs 2·Re a +
     * 2i·Re b), so each gets half the magnitude that one alone would.
     */
    private static int pairPrescale(int k) {
        return k >= 1 ? k - 1 : k;
    }

    private void observed(Ciphertext in, Ciphertext out, double inputFactor, double bound) {
        if (bootstrapObserver != null) {
            bootstrapObserver.bootstrapped(in, out, inputFactor, bound);
        }
    }

    /**
     * Whether two ciphertexts whose prescaling exponents are {@code k} and {@code kp} can share precise (twice)
     * bootstraps: those use one factor for both, the larger value's, so that the corrections add onto the first
     * results exactly ({@link PreciseBootstrap#bootstrapTwicePair}). The smaller is then scaled up less than alone,
     * by at most {@link #PRECISE_PAIR_PRESCALE_GAP} bits: its error stays that of the larger in absolute terms, 2^gap
     * of its own magnitude worse than alone. Goldschmidt's e and its running product share so, e a tenth of the
     * product on the way in and a thirtieth of it on the way out, where an error in e counts against 1 (the factor
     * 1 + e), not against e. A factor below 1 costs both a level.
     */
    private static boolean preciseShare(Ciphertext c, int k, Ciphertext p, int kp) {
        return k == kp
                || Math.abs(k - kp) <= PRECISE_PAIR_PRESCALE_GAP
                        && (Math.min(k, kp) >= 0 || c.level() >= 1 && p.level() >= 1);
    }

    /**
     * The power of two 2^k that brings c's values into (target/2, target] before a bootstrap (see
     * {@link #prescaled}), from the bound the engine tracks. Bootstrapping's error is about the same whatever the
     * values (the sine's approximation and the key switches of its linear maps), so small values lose bits in
     * proportion (x⁴ of attention scores, 1e-5, came back with 7 bits), and values beyond (q_0/Δ)/256 are reduced
     * wrongly modulo q_0 by the sine (Goldschmidt's 1/x near 1/ε = 1 000 came back with 7 bits). Up is free (an
     * integer product) and undone for free by the bootstrap's output factor; down costs a level, so it is done only
     * where it pays ({@link #largeMagnitude}) and a level is left. 0 when the bound is unknown.
     */
    private int prescale(Ciphertext c) {
        double b = Math.max(bounds.of(c), NOISE_FLOOR);
        if (Double.isNaN(b) || Double.isInfinite(b)) {
            return 0;
        }
        int k = (int) Math.floor(Math.log(BOOTSTRAP_TARGET / b) / Math.log(2));
        if (k >= 0) {
            return k;
        }
        return b > largeMagnitude(c) && c.level() >= 1 && bounds.tight(c) ? k : 0;
    }

    /** Whether c's values times 2^k are known to be small enough to bootstrap at full precision (or unknown). */
    private boolean wellScaled(Ciphertext c, int k) {
        double b = bounds.of(c);
        return Double.isNaN(b) || Math.scalb(b, k) <= largeMagnitude(c);
    }

    /** Whether c's values are too large to bootstrap well by its bound, a loose one (interval arithmetic's). */
    boolean looselyLarge(Ciphertext c) {
        return !bounds.tight(c) && !wellScaled(c, prescale(c));
    }

    /** c times 2^k: an integer product when k ≥ 0 (no level), a constant product and a rescale when k < 0. */
    private Ciphertext prescaled(Ciphertext c, int k, OperatorKind op) {
        if (k == 0) {
            return c;
        }
        if (k > 0) {
            return bounds.scaled(
                    accounting.timed(op, PrimitiveKind.MULTIPLY, () -> evaluator.multiplyInteger(c, 1L << k)),
                    c,
                    Math.scalb(1.0, k));
        }
        // down: the level it costs also puts the label back onto Δ, which a drifted label would otherwise take a level
        // of its own for (see refresh)
        return scales.adjust(c, c.level() - 1, scale, Math.scalb(1.0, k), op);
    }

    /**
     * Values above this lose more than 2^-20 of themselves to the sine's cubic term when bootstrapped ((2π·m·Δ/q_0)²/6,
     * see the backend's bootstrapping), so they are worth a level to scale down: 2 at N16-boot-128 (q_0/Δ = 2^12),
     * 12 on the test rings (2^15).
     */
    private double largeMagnitude(Ciphertext c) {
        double headroom = Math.pow(2, context.parameters().logQ().get(0)) / scale;
        return Math.max(2 * BOOTSTRAP_TARGET, headroom * Math.sqrt(6 * 0x1p-20) / (2 * Math.PI));
    }

    /**
     * The levels an operand needs for a product: one, or two when the element-wise operation under way will give
     * large values ({@link #expecting}) and could be bootstrapped, so that they do not land at level 0, where they
     * could not be scaled down before their own bootstrap.
     */
    int levelsFor(Ciphertext operand) {
        return bootstraps(operand) && expectedMagnitude > largeMagnitude(operand) ? 2 : 1;
    }

    /** Whether the keys can bootstrap ciphertexts of c's slot count. */
    boolean bootstraps(Ciphertext c) {
        return keys != null && keys.bootstraps(c.slots());
    }

    /**
     * Whether r's last level was kept so that its large values can be scaled down before their bootstrap
     * ({@link #levelsFor}): a scale correction would spend it, and the values would reach level 0 too large for one
     * bootstrap. Scaling them down lands them on Δ anyway ({@link #prescaled}).
     */
    boolean keptToScaleDown(Ciphertext r) {
        return r.level() == 1 && bootstraps(r) && expectedMagnitude > largeMagnitude(r);
    }

    /**
     * c's refreshed copy where c is below {@code level} and the copy is above c, else c: a sum is as low as its lower
     * operand, and a value refreshed for one of its uses (a LayerNorm's mean of x) would otherwise pull the next (x
     * minus that mean) back down to the level it was refreshed from, to be refreshed a second time.
     */
    Ciphertext refreshedBelow(Ciphertext c, int level) {
        if (c.level() >= level) {
            return c;
        }
        Ciphertext copy = servedCopy(c);
        return copy != null && copy.level() > c.level() ? copy : c;
    }

    /**
     * Refreshes, as one group, the ciphertexts of an element-wise product's operands that lack the levels it needs
     * (paired two by two, the bootstraps at once where the evaluator gains from it). A tensor's ciphertexts reach
     * each step of a program together; refreshed one at a time as the product meets them, each would look for a
     * partner among ciphertexts not yet computed and go alone (the two head blocks' Goldschmidt denominators did).
     */
    void refreshOperands(EncryptedTensor... operands) {
        List<Ciphertext> cts = new ArrayList<>();
        for (EncryptedTensor t : operands) {
            cts.addAll(Arrays.asList(t.cts));
        }
        refreshTogether(cts, this::levelsFor, OperatorKind.OTHER);
    }

    /**
     * Refreshes as one group the distinct ciphertexts of {@code cts} that bootstrap and lack the levels
     * {@code needed} gives each (the group gets the most any needs).
     */
    void refreshTogether(List<Ciphertext> cts, ToIntFunction<Ciphertext> needed, OperatorKind op) {
        Set<Ciphertext> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Ciphertext> due = new ArrayList<>();
        int levels = 0;
        for (Ciphertext c : cts) {
            if (!seen.add(c) || !bootstraps(c)) {
                continue;
            }
            int n = needed.applyAsInt(c);
            if (ready(c, n) == null) {
                due.add(c);
                levels = Math.max(levels, n);
            }
        }
        if (due.size() >= 2) { // one alone keeps the greedy path's partner search among the ciphertexts just spent
            refreshAtOnce(due, levels, op);
        }
    }

    /**
     * Whether c can be bootstrapped accurately now: the keys allow it, and its values (its tracked bound, else
     * {@code maxAbs}) are within {@link #safeBootstrapMagnitude} or can still be scaled down (a level left).
     */
    boolean refreshable(Ciphertext c, double maxAbs) {
        double b = bounds.of(c);
        return bootstraps(c)
                && ((Double.isNaN(b) ? maxAbs : b) <= safeBootstrapMagnitude() || c.level() >= 1 && !Double.isNaN(b));
    }

    /**
     * The largest |value| bootstrapping refreshes without real loss: (q_0/Δ)/256. Bootstrapping reduces Δ·m
     * modulo q_0 with a sine, whose relative error grows as (2π·m·Δ/q_0)²/6; at m = (q_0/Δ)/256 it is 1e-4. At
     * N16-boot-128 (q_0/Δ = 2^12) that is 16: a LayerNorm variance of 1 000 would come back wrong unless scaled
     * down first.
     */
    double safeBootstrapMagnitude() {
        var p = context.parameters();
        return Math.pow(2, p.logQ().get(0) - p.logScale()) / 256;
    }
}

package dev.polyhe.ckks.rlwe;

import static dev.polyhe.ckks.ring.LimbProducts.accumulate1;
import static dev.polyhe.ckks.ring.LimbProducts.accumulate2;
import static dev.polyhe.ckks.ring.LimbProducts.accumulate4;
import static dev.polyhe.ckks.ring.LimbProducts.addInPlace;
import static dev.polyhe.ckks.ring.LimbProducts.productSum1;
import static dev.polyhe.ckks.ring.LimbProducts.productSum4;
import static dev.polyhe.ckks.ring.LimbProducts.scatter1;
import static dev.polyhe.ckks.ring.LimbProducts.scatter2;
import static dev.polyhe.ckks.ring.LimbProducts.scatter4;
import static dev.polyhe.ckks.ring.LimbProducts.scatterAdd;

import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.BasisConverter;
import dev.polyhe.ckks.ring.Modulus;
import dev.polyhe.ckks.ring.NttTables;
import dev.polyhe.ckks.ring.RnsRing;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hybrid key switching (Han–Ki): decompose d into digits, raise each digit to Q_l ∪ P by fast basis
 * conversion (ModUp), take the inner product with the key's digits, and divide by P (ModDown). The
 * decomposition can be shared by several keys: that is a hoisted rotation.
 */
public final class KeySwitcher {
    private final RnsRing ring;
    private final GadgetDecomposition gadget;
    private final ConcurrentHashMap<Long, ModUpPlan> modUpPlans = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, RescalePlan> rescalePlans = new ConcurrentHashMap<>();
    private final BasisConverter pToQ;
    private final long[] pInvModQ;
    private final long[] pInvModQShoup;
    private final long[] pModQ;
    private final long[] pModQShoup;
    private final long p0InvModQ0;
    private final long p0InvModQ0Shoup;
    /** A thread's four baby-step limbs, both components ({@link #innerSums}). */
    private final ThreadLocal<long[][]> babyScratch;

    public KeySwitcher(RnsRing ring, GadgetDecomposition gadget) {
        this.ring = ring;
        this.gadget = gadget;
        this.babyScratch = ThreadLocal.withInitial(() -> new long[8][ring.n()]);
        int k = ring.pCount();
        Modulus[] p = new Modulus[k];
        for (int t = 0; t < k; t++) {
            p[t] = ring.modulus(ring.pIndex(t));
        }
        Modulus[] q = new Modulus[ring.qCount()];
        pInvModQ = new long[ring.qCount()];
        pInvModQShoup = new long[ring.qCount()];
        pModQ = new long[ring.qCount()];
        pModQShoup = new long[ring.qCount()];
        for (int i = 0; i < q.length; i++) {
            q[i] = ring.modulus(i);
            long prod = 1;
            for (Modulus pt : p) {
                prod = q[i].mul(prod, q[i].reduce(pt.value()));
            }
            pModQ[i] = prod;
            pModQShoup[i] = q[i].shoup(prod);
            pInvModQ[i] = q[i].inv(prod);
            pInvModQShoup[i] = q[i].shoup(pInvModQ[i]);
        }
        pToQ = new BasisConverter(p, q);
        p0InvModQ0 = k == 0 ? 0 : q[0].inv(q[0].reduce(p[0].value()));
        p0InvModQ0Shoup = k == 0 ? 0 : q[0].shoup(p0InvModQ0);
    }

    public GadgetDecomposition gadget() {
        return gadget;
    }

    /**
     * The digits of d (NTT form, limbs 0..level), each raised to Q_level ∪ P, in NTT form. The raised limbs are
     * produced prime by prime (all digits of one prime in a row), so each prime's NTT tables are fetched once.
     */
    public long[][][] decompose(long[][] d, int level) {
        int n = ring.n();
        int digits = gadget.digitCount(level);
        int width = level + 1 + ring.pCount();
        ModUpPlan[] plans = new ModUpPlan[digits];
        for (int j = 0; j < digits; j++) {
            plans[j] =
                    modUpPlans.computeIfAbsent(((long) level << 32) | j, key -> plan(level, (int) (key & 0xffffffffL)));
        }
        // y_i = [d_i · (Q_j/q_i)^-1]_{q_i} in coefficient form, for every limb i of its digit j
        long[][] scaled = new long[level + 1][];
        ring.pool().forEach(level + 1, i -> {
            long[] coef = d[i].clone();
            ring.ntt(i).inverse(coef);
            int j = i / gadget.alpha();
            plans[j].converter.scaleSource(i - gadget.firstPrime(j), coef, coef);
            scaled[i] = coef;
        });
        long[][][] perDigit = new long[digits][][];
        for (int j = 0; j < digits; j++) {
            int first = gadget.firstPrime(j);
            int end = gadget.endPrime(j, level);
            perDigit[j] = java.util.Arrays.copyOfRange(scaled, first, end);
        }
        long[][][] out = new long[digits][width][];
        ring.pool().forEach(width, pos -> {
            NttTables ntt = ring.ntt(ring.extendedIndex(level, pos));
            for (int j = 0; j < digits; j++) {
                int t = plans[j].targetOf[pos];
                if (t < 0) {
                    out[j][pos] = d[pos]; // the digit's own prime: already in NTT form; shared, never written
                    continue;
                }
                long[] limb = new long[n];
                plans[j].converter.accumulateTarget(t, perDigit[j], limb);
                ntt.forward(limb);
                out[j][pos] = limb;
            }
        });
        return out;
    }

    private ModUpPlan plan(int level, int digit) {
        int first = gadget.firstPrime(digit);
        int end = gadget.endPrime(digit, level);
        Modulus[] source = new Modulus[end - first];
        for (int i = first; i < end; i++) {
            source[i - first] = ring.modulus(i);
        }
        int width = level + 1 + ring.pCount();
        int[] targets = new int[width - source.length];
        Modulus[] target = new Modulus[targets.length];
        int t = 0;
        for (int pos = 0; pos < width; pos++) {
            if (pos < first || pos >= end) {
                targets[t] = pos;
                target[t] = ring.modulus(ring.extendedIndex(level, pos));
                t++;
            }
        }
        int[] targetOf = new int[width];
        java.util.Arrays.fill(targetOf, -1);
        for (int i = 0; i < targets.length; i++) {
            targetOf[targets[i]] = i;
        }
        return new ModUpPlan(digit, new BasisConverter(source, target), targetOf);
    }

    /** (sum_j D_j · key_j) / P: the two key-switched components over Q_level, NTT form. */
    public long[][][] apply(long[][][] digits, SwitchingKey key, int level) {
        return modDown(innerProduct(digits, key, level), level);
    }

    /**
     * (d0 + KS(D)_0, d1 + KS(D)_1) / q_level, rounded, over Q_(level−1): a relinearized product rescaled, with one
     * division by P·q_level instead of a ModDown by P and a rescale by q_level (the rescale's forward NTTs, one per
     * limb and component, are saved). The sum is P·d + Σ_j D_j·key_j over Q_level ∪ P; its limbs on q_level and P
     * are converted to Q_(level−1) at once. The fast conversion is off by u·P·q_level with |u| up to (k + 1)/2,
     * an error of u after the division: six times the variance of a rescale's rounding, 1.3 bits lost per product
     * at N = 2^16. So u is computed (the rounded Σ_t y_t/s_t of the centred scaled residues, in doubles) and taken
     * off, which makes the division the exact rounding a rescale does.
     */
    public long[][][] applyRescaled(long[][][] digits, SwitchingKey key, int level, long[][] d0, long[][] d1) {
        return modDownRescale(innerProduct(digits, key, level), new long[][][] {d0, d1}, level);
    }

    /**
     * round((P·d_v + x_v) / (P·q_level)) over Q_(level−1) (NTT) for the two x_v over Q_level ∪ P and d_v over
     * Q_level (NTT; null: zero): {@link #applyRescaled}'s division. Overwrites the q_level and P limbs of the x_v.
     */
    public long[][][] modDownRescale(long[][][] acc, long[][][] d, int level) {
        if (level < 1) {
            throw new IllegalArgumentException("a rescale needs level >= 1, got " + level);
        }
        RescalePlan plan = rescalePlans.computeIfAbsent(level, this::rescalePlan);
        int n = ring.n();
        int k = ring.pCount();
        // the limbs divided out, q_level then P, in coefficient form and scaled for the conversion
        long[][][] scaled = new long[2][k + 1][n];
        ring.pool().forEach(k + 1, t -> {
            int pos = level + t;
            NttTables ntt = ring.ntt(ring.extendedIndex(level, pos));
            Modulus m = ntt.modulus();
            for (int v = 0; v < 2; v++) {
                long[] limb = acc[v][pos];
                if (t == 0 && d[v] != null) {
                    // on q_level the sum also holds P·d (P·d vanishes modulo the special primes)
                    long[] dl = d[v][level];
                    for (int c = 0; c < n; c++) {
                        limb[c] = m.add(limb[c], m.mulShoup(dl[c], plan.pModQl, plan.pModQlShoup));
                    }
                }
                ntt.inverse(limb);
                plan.converter.scaleSource(t, limb, scaled[v][t]);
            }
        });
        // the conversion's excess, per coefficient: round(Σ_t y_t / s_t), |u| ≤ (k + 1)/2
        int[][] excess = new int[2][n];
        ring.pool().forEach(2, v -> {
            double[] inv = plan.sourceInverse;
            int[] u = excess[v];
            for (int c = 0; c < n; c++) {
                double f = 0;
                for (int t = 0; t <= k; t++) {
                    f += scaled[v][t][c] * inv[t];
                }
                u[c] = (int) Math.rint(f);
            }
        });
        int offset = plan.excessOffset;
        long[][][] out = new long[2][level][];
        ring.pool().forEach(level, i -> {
            NttTables ntt = ring.ntt(i);
            Modulus m = ntt.modulus();
            long q = m.value();
            long w = plan.pqInv[i];
            long ws = plan.pqInvShoup[i];
            long wq = plan.qlInv[i];
            long wqs = plan.qlInvShoup[i];
            long[] minusUS = plan.minusExcess[i];
            for (int v = 0; v < 2; v++) {
                long[] conv = new long[n];
                plan.converter.accumulateTarget(i, scaled[v], conv);
                int[] u = excess[v];
                for (int c = 0; c < n; c++) {
                    long r = conv[c] + minusUS[u[c] + offset] - q;
                    conv[c] = r + ((r >> 63) & q);
                }
                ntt.forward(conv);
                long[] xi = acc[v][i];
                if (d[v] == null) {
                    for (int c = 0; c < n; c++) {
                        long diff = xi[c] - conv[c];
                        diff += (diff >> 63) & q;
                        conv[c] = m.mulShoup(diff, w, ws);
                    }
                } else {
                    long[] di = d[v][i];
                    for (int c = 0; c < n; c++) {
                        // (acc + P·d − conv) / (P·q_l) = (acc − conv)·(P·q_l)^-1 + d·q_l^-1
                        long diff = xi[c] - conv[c];
                        diff += (diff >> 63) & q;
                        long r = m.mulShoup(diff, w, ws) + m.mulShoup(di[c], wq, wqs) - q;
                        conv[c] = r + ((r >> 63) & q);
                    }
                }
                out[v][i] = conv;
            }
        });
        return out;
    }

    /**
     * The constants {@link #modDownRescale} divides with at {@code level}, for an executor that keeps its own copy
     * (a GPU's): the conversion from {q_level} ∪ P to Q_(level−1) as {@link BasisConverter#tables()}, the sources'
     * 1/s_t as the bits of their doubles, −u·P·q_l modulo q_i for u in [−offset, offset] (row i, 2·offset + 1
     * entries), (P·q_l)^-1 and q_l^-1 modulo each q_i with their Shoup companions, and P modulo q_l with its own.
     */
    public record RescaleTables(
            long[][] converter,
            long[] sourceInverseBits,
            long[] minusExcess,
            int excessOffset,
            long[] pqInv,
            long[] pqInvShoup,
            long[] qlInv,
            long[] qlInvShoup,
            long[] pModQl) {}

    public RescaleTables rescaleTables(int level) {
        RescalePlan p = rescalePlans.computeIfAbsent(level, this::rescalePlan);
        long[] bits = new long[p.sourceInverse.length];
        for (int t = 0; t < bits.length; t++) {
            bits[t] = Double.doubleToRawLongBits(p.sourceInverse[t]);
        }
        int row = 2 * p.excessOffset + 1;
        long[] minus = new long[level * row];
        for (int i = 0; i < level; i++) {
            System.arraycopy(p.minusExcess[i], 0, minus, i * row, row);
        }
        return new RescaleTables(
                p.converter.tables(),
                bits,
                minus,
                p.excessOffset,
                p.pqInv.clone(),
                p.pqInvShoup.clone(),
                p.qlInv.clone(),
                p.qlInvShoup.clone(),
                new long[] {p.pModQl, p.pModQlShoup});
    }

    /** Σ_j D_j·key_j over Q_level ∪ P, both components (the key switch before its division by P). */
    private long[][][] innerProduct(long[][][] digits, SwitchingKey key, int level) {
        int n = ring.n();
        int width = level + 1 + ring.pCount();
        long[][] acc0 = new long[width][n];
        long[][] acc1 = new long[width][n];
        long[][][][] keyDigits = key.digits();
        ring.pool().forEach(width, pos -> {
            int prime = ring.extendedIndex(level, pos);
            Modulus m = ring.modulus(prime);
            int j = 0;
            // Four digits at a time: unreduced products (each in (−q, q), q < 2^61) are summed before one reduction.
            for (; j + 4 <= digits.length; j += 4) {
                accumulate4(m, digits, keyDigits, j, pos, prime, acc0[pos], acc1[pos]);
            }
            if (digits.length - j >= 2) {
                accumulate2(m, digits, keyDigits, j, pos, prime, acc0[pos], acc1[pos]);
                j += 2;
            }
            if (j < digits.length) {
                accumulate1(m, digits[j][pos], keyDigits[j][0][prime], keyDigits[j][1][prime], acc0[pos], acc1[pos]);
            }
        });
        return new long[][][] {acc0, acc1};
    }

    /** The conversion from {q_level} ∪ P to Q_(level−1) and the constants of the division by P·q_level. */
    private RescalePlan rescalePlan(int level) {
        int k = ring.pCount();
        Modulus[] source = new Modulus[k + 1];
        source[0] = ring.modulus(level);
        for (int t = 0; t < k; t++) {
            source[t + 1] = ring.modulus(ring.pIndex(t));
        }
        Modulus[] target = new Modulus[level];
        long[] pqInv = new long[level];
        long[] pqInvShoup = new long[level];
        long[] qlInv = new long[level];
        long[] qlInvShoup = new long[level];
        long ql = ring.modulus(level).value();
        for (int i = 0; i < level; i++) {
            Modulus m = ring.modulus(i);
            target[i] = m;
            qlInv[i] = m.inv(m.reduce(ql));
            qlInvShoup[i] = m.shoup(qlInv[i]);
            pqInv[i] = m.mul(pInvModQ[i], qlInv[i]);
            pqInvShoup[i] = m.shoup(pqInv[i]);
        }
        Modulus mql = ring.modulus(level);
        long pModQl = 1;
        for (int t = 0; t < k; t++) {
            pModQl = mql.mul(pModQl, mql.reduce(ring.modulus(ring.pIndex(t)).value()));
        }
        double[] sourceInverse = new double[k + 1];
        for (int t = 0; t <= k; t++) {
            sourceInverse[t] = 1.0 / source[t].value();
        }
        // −u·(P·q_l) mod q_i for each excess u in [−offset, offset]
        int offset = (k + 2) / 2 + 1;
        long[][] minusExcess = new long[level][2 * offset + 1];
        for (int i = 0; i < level; i++) {
            Modulus m = ring.modulus(i);
            long pq = 1;
            for (Modulus sm : source) {
                pq = m.mul(pq, m.reduce(sm.value()));
            }
            for (int u = -offset; u <= offset; u++) {
                long uPq = m.mul(m.reduce(Math.abs(u)), pq);
                minusExcess[i][u + offset] = u > 0 ? m.neg(uPq) : uPq;
            }
        }
        return new RescalePlan(
                new BasisConverter(source, target),
                pqInv,
                pqInvShoup,
                qlInv,
                qlInvShoup,
                pModQl,
                mql.shoup(pModQl),
                sourceInverse,
                minusExcess,
                offset);
    }

    /**
     * Σ_t σ_t(Σ_j D_tj·key_tj) / P over Q_level: the key switches of several terms, each permuted by its
     * automorphism while still over Q_level ∪ P, summed, and divided by P once. σ commutes with the division up to
     * its rounding (both act coefficient-wise), so the sum matches the terms switched one by one to within one
     * ModDown's rounding instead of one per term. Consecutive terms of one polynomial share their decomposition:
     * Σ_j rot(x, s_j) is hoisted twice, one decomposition and one ModDown for all. A pool that runs ciphertexts at
     * once decomposes the terms at once; a smaller one, one at a time (the working set then is one term's digits
     * and the two extended sums).
     */
    public long[][][] switchSum(long[][][] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        return modDown(switchedSum(ds, keys, autos, level), level);
    }

    /**
     * (Σ_t σ_t(Σ_j D_tj·key_tj) + P·(d0, d1)) / (P·q_level) over Q_(level−1), rounded as a rescale rounds
     * ({@link #modDownRescale}): {@link #switchSum} plus (d0, d1) over Q_level, rescaled, with one division instead
     * of a ModDown and a rescale. {@code d1} null: zero.
     */
    public long[][][] switchSumRescaled(
            long[][][] ds, SwitchingKey[] keys, Automorphism[] autos, int level, long[][] d0, long[][] d1) {
        return modDownRescale(switchedSum(ds, keys, autos, level), new long[][][] {d0, d1}, level);
    }

    /** {@link #switchSum} before its division by P: the two sums over Q_level ∪ P. */
    private long[][][] switchedSum(long[][][] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        int n = ring.n();
        int width = level + 1 + ring.pCount();
        long[][] acc0 = new long[width][n];
        long[][] acc1 = new long[width][n];
        // a many-core pool decomposes the terms at once (one decomposition's limb loops leave cores idle)
        long[][][][] early = new long[ds.length][][][];
        if (ring.pool().acrossCiphertexts()) {
            ring.pool().forEachCiphertext(ds.length, t -> {
                if (t == 0 || ds[t] != ds[t - 1]) {
                    early[t] = decompose(ds[t], level);
                }
            });
        }
        long[][][] digits = null;
        for (int t = 0; t < ds.length; t++) {
            if (t == 0 || ds[t] != ds[t - 1]) { // rotations of one polynomial in a row share its decomposition
                digits = early[t] != null ? early[t] : decompose(ds[t], level);
                early[t] = null;
            }
            long[][][] termDigits = digits;
            long[][][][] keyDigits = keys[t].digits();
            int[] target = targets(autos[t]);
            ring.pool()
                    .forEach(
                            width,
                            pos -> scatterProduct(termDigits, keyDigits, level, pos, target, acc0[pos], acc1[pos]));
        }
        return new long[][][] {acc0, acc1};
    }

    /** o_v[target[c]] += Σ_j D_j[c]·key_jv[c] on limb position pos: one term's inner product, permuted by σ. */
    private void scatterProduct(
            long[][][] digits, long[][][][] keyDigits, int level, int pos, int[] target, long[] o0, long[] o1) {
        int prime = ring.extendedIndex(level, pos);
        Modulus m = ring.modulus(prime);
        int j = 0;
        for (; j + 4 <= digits.length; j += 4) {
            scatter4(m, digits, keyDigits, j, pos, prime, target, o0, o1);
        }
        if (digits.length - j >= 2) {
            scatter2(m, digits, keyDigits, j, pos, prime, target, o0, o1);
            j += 2;
        }
        if (j < digits.length) {
            scatter1(m, digits[j][pos], keyDigits[j][0][prime], keyDigits[j][1][prime], target, o0, o1);
        }
    }

    /**
     * Σ_g σ_g(Σ_b diag_gb ⊙ σ_b(c)) / (P·q_level) over Q_(level−1), rounded as a rescale rounds: a baby-step
     * giant-step product by a matrix's diagonals, double-hoisted (Bossuat, Mouchet, Troncoso-Pastoriza, Hubaux,
     * EUROCRYPT 2021). The baby steps share one decomposition of c1 and stay over Q_level ∪ P, undivided by P
     * (σ_b(P·c0 + Σ_j D_j·key_j), σ_b(Σ_j D_j·key_j)); the diagonals, encoded over Q_level ∪ P too, multiply them
     * there, so a baby step costs an inner product and no ModDown. Each giant step's sum needs c1 over Q_level for
     * its own decomposition: one ModDown of that one polynomial; its c0 joins the extended sum as it is (it already
     * carries the factor P). All giant steps are summed over Q_level ∪ P and divided by P·q_level once.
     *
     * @param babyKeys the Galois key of each baby step, null for the identity
     * @param diagonals [giant][baby], limbs over Q_level ∪ P in {@link RnsRing#extendedIndex} order and in Montgomery
     *     form ({@link Modulus#toMont}); null where the matrix has no diagonal
     * @param giantKeys the Galois key of each giant step, null for the identity
     */
    public long[][][] diagonalsRescaled(
            long[][] c0,
            long[][] c1,
            SwitchingKey[] babyKeys,
            Automorphism[] babyAutos,
            long[][][][] diagonals,
            SwitchingKey[] giantKeys,
            Automorphism[] giantAutos,
            int level) {
        if (level < 1) {
            throw new IllegalArgumentException("a rescale needs level >= 1, got " + level);
        }
        int n = ring.n();
        int width = level + 1 + ring.pCount();
        boolean anyBaby = false;
        for (SwitchingKey key : babyKeys) {
            anyBaby |= key != null;
        }
        long[][][] digits = anyBaby ? decompose(c1, level) : null;
        int[][] babyTargets = new int[babyKeys.length][];
        for (int b = 0; b < babyKeys.length; b++) {
            babyTargets[b] = babyKeys[b] == null ? null : targets(babyAutos[b]);
        }
        long[][][][] sums = new long[giantKeys.length][2][width][];
        ring.pool()
                .forEach(width, pos -> innerSums(c0, c1, digits, babyKeys, babyTargets, diagonals, level, pos, sums));
        // the identity giant step's sum, where there is one, starts the accumulator
        int identity = -1;
        for (int g = 0; g < giantKeys.length; g++) {
            identity = giantKeys[g] == null ? g : identity;
        }
        long[][] acc0 = identity >= 0 ? sums[identity][0] : new long[width][n];
        long[][] acc1 = identity >= 0 ? sums[identity][1] : new long[width][n];
        // a many-core pool takes the giant steps' ModDowns and decompositions at once, as switchedSum does
        long[][][][] early = new long[sums.length][][][];
        if (ring.pool().acrossCiphertexts()) {
            ring.pool().forEachCiphertext(sums.length, g -> {
                if (giantKeys[g] != null) {
                    early[g] = decompose(modDown(new long[][][] {sums[g][1]}, level)[0], level);
                }
            });
        }
        for (int g = 0; g < sums.length; g++) {
            long[][] s0 = sums[g][0];
            long[][] s1 = sums[g][1];
            if (g == identity) {
                continue; // the accumulator's start
            }
            if (giantKeys[g] == null) { // another unrotated sum
                ring.pool().forEach(width, pos -> {
                    Modulus m = ring.modulus(ring.extendedIndex(level, pos));
                    addInPlace(m, acc0[pos], s0[pos]);
                    addInPlace(m, acc1[pos], s1[pos]);
                });
                continue;
            }
            long[][][] giantDigits =
                    early[g] != null ? early[g] : decompose(modDown(new long[][][] {s1}, level)[0], level);
            early[g] = null;
            long[][][][] keyDigits = giantKeys[g].digits();
            int[] target = targets(giantAutos[g]);
            ring.pool().forEach(width, pos -> {
                scatterProduct(giantDigits, keyDigits, level, pos, target, acc0[pos], acc1[pos]);
                scatterAdd(ring.modulus(ring.extendedIndex(level, pos)), s0[pos], target, acc0[pos]);
            });
        }
        return modDownRescale(new long[][][] {acc0, acc1}, new long[][][] {null, null}, level);
    }

    /**
     * Limb position pos of every giant step's Σ_b diagonals[g][b] ⊙ baby_b, the baby steps over Q_level ∪ P and not
     * divided by P: baby_b = (σ_b(P·c0 + Σ_j D_j·key_j0), σ_b(Σ_j D_j·key_j1)), or (P·c0, P·c1) for the identity
     * (zero on the special primes). The baby steps are made limb by limb, four at a time in a thread's scratch, and
     * used at once by every giant step: no baby step is ever held whole, and its limb is multiplied while in cache.
     * Four products are summed unreduced (each in (−q, q)) before one reduction; the diagonals are in Montgomery
     * form.
     */
    private void innerSums(
            long[][] c0,
            long[][] c1,
            long[][][] digits,
            SwitchingKey[] babyKeys,
            int[][] targets,
            long[][][][] diagonals,
            int level,
            int pos,
            long[][][][] sums) {
        int n = ring.n();
        boolean special = pos > level;
        Modulus m = ring.modulus(ring.extendedIndex(level, pos));
        for (long[][][] sum : sums) {
            sum[0][pos] = new long[n];
            sum[1][pos] = new long[n];
        }
        long[][] scratch = babyScratch.get();
        // the identity is zero on the special primes (P·c), so it takes no part there
        int[] active = new int[babyKeys.length];
        int actives = 0;
        for (int b = 0; b < babyKeys.length; b++) {
            if (babyKeys[b] != null || !special) {
                active[actives++] = b;
            }
        }
        int[] group = new int[4];
        for (int first = 0; first < actives; first += 4) {
            int count = Math.min(4, actives - first);
            for (int i = 0; i < count; i++) {
                int b = active[first + i];
                group[i] = b;
                long[] x0 = scratch[2 * i];
                long[] x1 = scratch[2 * i + 1];
                if (babyKeys[b] == null) {
                    timesP(pos, c0[pos], x0);
                    timesP(pos, c1[pos], x1);
                    continue;
                }
                Arrays.fill(x0, 0);
                Arrays.fill(x1, 0);
                scatterProduct(digits, babyKeys[b].digits(), level, pos, targets[b], x0, x1);
                if (!special) {
                    scatterAddTimesP(pos, c0[pos], targets[b], x0);
                }
            }
            for (int g = 0; g < sums.length; g++) {
                long[][][] d = diagonals[g];
                long[] r0 = sums[g][0][pos];
                long[] r1 = sums[g][1][pos];
                boolean all = count == 4;
                for (int i = 0; i < count && all; i++) {
                    all = d[group[i]] != null;
                }
                if (all) {
                    productSum4(
                            m, scratch, d[group[0]][pos], d[group[1]][pos], d[group[2]][pos], d[group[3]][pos], r0, r1);
                    continue;
                }
                for (int i = 0; i < count; i++) {
                    if (d[group[i]] != null) {
                        productSum1(m, scratch[2 * i], scratch[2 * i + 1], d[group[i]][pos], r0, r1);
                    }
                }
            }
        }
    }

    /** out = P·x modulo q_i. */
    private void timesP(int i, long[] x, long[] out) {
        Modulus m = ring.modulus(i);
        long w = pModQ[i];
        long ws = pModQShoup[i];
        for (int c = 0; c < x.length; c++) {
            out[c] = m.mulShoup(x[c], w, ws);
        }
    }

    /** acc[target[c]] += P·x[c] modulo q_i: σ(P·x) added. */
    private void scatterAddTimesP(int i, long[] x, int[] target, long[] acc) {
        Modulus m = ring.modulus(i);
        long q = m.value();
        long w = pModQ[i];
        long ws = pModQShoup[i];
        for (int c = 0; c < x.length; c++) {
            int at = target[c];
            long r = acc[at] + m.mulShoup(x[c], w, ws) - q;
            acc[at] = r + ((r >> 63) & q);
        }
    }

    /** Where σ sends each slot: σ(x)[i] = x[source[i]], so x[c] lands at target[c]. */
    private static int[] targets(Automorphism g) {
        int[] source = g.permutation();
        int[] target = new int[source.length];
        for (int i = 0; i < source.length; i++) {
            target[source[i]] = i;
        }
        return target;
    }

    /**
     * Key-switches d (NTT, level 0) with a key on q_0 and p_0 alone ({@link
     * SwitchingKeyGenerator#generateForLevelZero}):
     * d raised to p_0 (exact: with one source prime the centred lift is the integer itself), the inner product
     * on both primes, and a division by p_0. The error added is about d·e/p_0, below 2^-8·q_0·e at p_0 ≥ 2^8·q_0.
     */
    public long[][][] switchAtLevelZero(long[][] d, SwitchingKey key) {
        int n = ring.n();
        Modulus q0 = ring.modulus(0);
        int p0Index = ring.pIndex(0);
        Modulus p0 = ring.modulus(p0Index);
        long[] raised = d[0].clone();
        ring.ntt(0).inverse(raised);
        centredLift(raised, q0, p0);
        ring.ntt(p0Index).forward(raised);
        long[][][] keyDigit = key.digits()[0];
        long[][] out = new long[2][];
        for (int part = 0; part < 2; part++) {
            long[] onQ = new long[n];
            long[] onP = new long[n];
            long[] kq = keyDigit[part][0];
            long[] kp = keyDigit[part][p0Index];
            for (int c = 0; c < n; c++) {
                onQ[c] = q0.mulMont(d[0][c], kq[c]);
                onP[c] = p0.mulMont(raised[c], kp[c]);
            }
            // (x_q - [x_p]_q) / p_0 on q_0, the exact rounding-free division of hybrid key switching
            ring.ntt(p0Index).inverse(onP);
            centredLift(onP, p0, q0);
            ring.ntt(0).forward(onP);
            for (int c = 0; c < n; c++) {
                onQ[c] = q0.mulShoup(q0.sub(onQ[c], onP[c]), p0InvModQ0, p0InvModQ0Shoup);
            }
            out[part] = onQ;
        }
        return new long[][][] {{out[0]}, {out[1]}};
    }

    /** Coefficients modulo {@code from}, in place, to the same centred integers modulo {@code to}. */
    private static void centredLift(long[] x, Modulus from, Modulus to) {
        long f = from.value();
        long half = f >>> 1;
        for (int c = 0; c < x.length; c++) {
            long v = x[c];
            x[c] = v > half ? to.neg(to.reduce(f - v)) : to.reduce(v);
        }
    }

    /**
     * Each x over Q_level ∪ P (NTT) to x / P over Q_level (NTT), limb by limb for all of them together (one
     * fetch of each prime's tables). Overwrites the P limbs of the inputs.
     */
    public long[][][] modDown(long[][][] xs, int level) {
        int n = ring.n();
        int k = ring.pCount();
        int count = xs.length;
        long[][][] scaled = new long[count][k][n];
        ring.pool().forEach(k, t -> {
            for (int v = 0; v < count; v++) {
                long[] limb = xs[v][level + 1 + t];
                ring.ntt(ring.pIndex(t)).inverse(limb);
                pToQ.scaleSource(t, limb, scaled[v][t]);
            }
        });
        long[][][] out = new long[count][level + 1][];
        ring.pool().forEach(level + 1, i -> {
            NttTables ntt = ring.ntt(i);
            Modulus m = ntt.modulus();
            long q = m.value();
            long w = pInvModQ[i];
            long ws = pInvModQShoup[i];
            for (int v = 0; v < count; v++) {
                long[] conv = new long[n];
                pToQ.accumulateTarget(i, scaled[v], conv);
                ntt.forward(conv);
                long[] xi = xs[v][i];
                for (int c = 0; c < n; c++) {
                    long diff = xi[c] - conv[c];
                    diff += (diff >> 63) & q;
                    conv[c] = m.mulShoup(diff, w, ws);
                }
                out[v][i] = conv;
            }
        });
        return out;
    }

    /**
     * Division by P·q_level ({@link #applyRescaled}): (P·q_l)^-1 and q_l^-1 modulo each q_i, P modulo q_l, the
     * sources' 1/s_t, and −u·P·q_l modulo each q_i for the conversion's possible excesses u.
     */
    private record RescalePlan(
            BasisConverter converter,
            long[] pqInv,
            long[] pqInvShoup,
            long[] qlInv,
            long[] qlInvShoup,
            long pModQl,
            long pModQlShoup,
            double[] sourceInverse,
            long[][] minusExcess,
            int excessOffset) {}

    /** targetOf[pos]: index among the converter's targets of limb position pos, or -1 inside the digit. */
    private record ModUpPlan(int digit, BasisConverter converter, int[] targetOf) {}
}

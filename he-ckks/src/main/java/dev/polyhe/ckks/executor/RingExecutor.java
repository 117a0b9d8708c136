package dev.polyhe.ckks.executor;

import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.rlwe.SwitchingKey;

/**
 * The ring arithmetic the CKKS scheme runs on, over polynomials that live wherever the executor keeps them. Every
 * operation reads limbs 0..level of its operands (which may hold more) and returns fresh handles of level + 1
 * limbs; operands are never written. Implementations are safe for concurrent use.
 */
public interface RingExecutor extends AutoCloseable {
    /** What and where, for reports: "JVM arrays, 2 threads", "NVIDIA H200 (driver 13.0)". */
    String describe();

    /**
     * Independent operations worth running at once from as many threads: the host's threads for an executor that
     * computes on them; 1 for one that serializes its operations (a device stream), where overlapping calls gain
     * nothing.
     */
    default int concurrency() {
        return 1;
    }

    /** Host limbs (NTT form, one {@code long[N]} per prime from q_0) to a handle; the executor may keep the arrays. */
    RnsPoly upload(long[][] limbs);

    /** Limbs 0..limbs-1 of p as host arrays (NTT form), to be read, never written. */
    long[][] download(RnsPoly p, int limbs);

    /** Limbs 0..level of p, shared, not copied. */
    RnsPoly prefix(RnsPoly p, int level);

    RnsPoly add(RnsPoly a, RnsPoly b, int level);

    /**
     * fresh + b, possibly in place: {@code fresh} must be a result of this executor that no other handle shares
     * (a key switch's output, say), and is not to be used after.
     */
    RnsPoly addInto(RnsPoly fresh, RnsPoly b, int level);

    RnsPoly sub(RnsPoly a, RnsPoly b, int level);

    RnsPoly negate(RnsPoly a, int level);

    /** Coefficient-wise product (NTT form). */
    RnsPoly multiply(RnsPoly a, RnsPoly b, int level);

    /** {a0·b, a1·b}: a ciphertext times a plaintext; an executor may share the work on b between the two. */
    default RnsPoly[] multiplyPair(RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        return new RnsPoly[] {multiply(a0, b, level), multiply(a1, b, level)};
    }

    /** {s0 + a0·b, s1 + a1·b}: a ciphertext times a plaintext, added to a sum of such products. */
    default RnsPoly[] multiplyPairAdd(RnsPoly s0, RnsPoly s1, RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        RnsPoly[] product = multiplyPair(a0, a1, b, level);
        return new RnsPoly[] {add(s0, product[0], level), add(s1, product[1], level)};
    }

    /** Limb i times scalars[i] (reduced mod q_i). */
    RnsPoly multiplyScalars(RnsPoly a, long[] scalars, int level);

    /** Limb i plus scalars[i] in every coefficient (a constant polynomial, NTT form). */
    RnsPoly addScalars(RnsPoly a, long[] scalars, int level);

    /** (x0, x1) ⊗ (y0, y1) = {x0·y0, x0·y1 + x1·y0, x1·y1}. */
    RnsPoly[] tensor(RnsPoly x0, RnsPoly x1, RnsPoly y0, RnsPoly y1, int level);

    /** a(X^g) in NTT form. */
    RnsPoly automorphism(RnsPoly a, Automorphism g, int level);

    /** Each polynomial divided by q_level with rounding, on limbs 0..level-1. */
    RnsPoly[] rescale(RnsPoly[] polys, int level);

    /** The gadget digits of d raised to Q_level ∪ P (ModUp), to share among keys. */
    KeySwitchDigits decompose(RnsPoly d, int level);

    /** (Σ_j D_j·key_j) / P: the two key-switched components over Q_level. */
    RnsPoly[] applyKey(KeySwitchDigits digits, SwitchingKey key, int level);

    /**
     * (d[0], d[1]) + KS(d[2]) divided by q_level with rounding, on limbs 0..level-1: a tensor product relinearized
     * and rescaled. An executor may divide by P·q_level at once, one ModDown instead of a ModDown and a rescale; the
     * default relinearizes, then rescales.
     */
    default RnsPoly[] relinearizeRescale(RnsPoly[] d, SwitchingKey key, int level) {
        RnsPoly[] ks = applyKey(decompose(d[2], level), key, level);
        return rescale(new RnsPoly[] {addInto(ks[0], d[0], level), addInto(ks[1], d[1], level)}, level);
    }

    /**
     * Σ_t σ_t(KS(ds[t], keys[t])): several key switches, each followed by its automorphism, summed. An executor
     * may sum them over Q_level ∪ P and divide by P once (the ModDowns are a third of a rotation); the default
     * switches and permutes each on its own. Consecutive terms of one polynomial (the same handle) share its
     * decomposition.
     */
    default RnsPoly[] keySwitchSum(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        RnsPoly[] sum = null;
        KeySwitchDigits digits = null;
        for (int t = 0; t < ds.length; t++) {
            if (t == 0 || ds[t] != ds[t - 1]) {
                digits = decompose(ds[t], level);
            }
            RnsPoly[] ks = applyKey(digits, keys[t], level);
            RnsPoly c0 = automorphism(ks[0], autos[t], level);
            RnsPoly c1 = automorphism(ks[1], autos[t], level);
            sum = sum == null ? new RnsPoly[] {c0, c1}
                    : new RnsPoly[] {addInto(sum[0], c0, level), addInto(sum[1], c1, level)};
        }
        return sum;
    }

    /**
     * ({@link #keySwitchSum} + (d0, d1)) divided by q_level with rounding, on limbs 0..level-1 ({@code d1} may be
     * null: zero): giant steps summed and rescaled. An executor may divide by P·q_level at once, as
     * {@link #relinearizeRescale} does; the default switches, adds, then rescales.
     */
    default RnsPoly[] keySwitchSumRescale(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, RnsPoly d0,
            RnsPoly d1, int level) {
        RnsPoly[] ks = keySwitchSum(ds, keys, autos, level);
        return rescale(new RnsPoly[] {addInto(ks[0], d0, level), d1 == null ? ks[1] : addInto(ks[1], d1, level)},
                level);
    }

    /** Key switching at level 0 with a key on q_0 and p_0 alone (the sparse-secret encapsulation). */
    RnsPoly[] switchAtLevelZero(RnsPoly d, SwitchingKey key);

    /** A level-0 polynomial's centred coefficients read as integers modulo q_0..q_top (bootstrapping's ModRaise). */
    RnsPoly modRaise(RnsPoly levelZero, int top);

    /** One forward NTT of one limb modulo q_0, in place on a limb the executor holds: the bench's "ntt" figure. */
    Runnable nttOfOneLimb();

    /** Releases what the executor holds (threads, device memory); handles are unusable after. */
    @Override
    void close();
}

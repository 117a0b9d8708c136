package dev.polyhe.backend.cuda;

import dev.polyhe.backend.cuda.CudaRingExecutor.DeviceDigits;
import dev.polyhe.backend.cuda.CudaRingExecutor.DevicePoly;
import dev.polyhe.backend.cuda.DeviceApi.Ptr;
import dev.polyhe.backend.cuda.DeviceMemory.Allocation;
import dev.polyhe.ckks.executor.KeySwitchDigits;
import dev.polyhe.ckks.executor.RnsPoly;
import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.GadgetDecomposition;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import dev.polyhe.ckks.scheme.SchemeParameters;

/**
 * Key switching on the device, as the host's KeySwitcher does it and limb for limb the same: ModUp of every digit,
 * the inner product with a key, ModDown, the ModDown fused with the rescale, sums of switches with one ModDown, the
 * double-hoisted linear transforms and the level-0 switch. Every method runs in an operation of
 * {@link CudaRingExecutor} and queues its launches on the calling thread's stream; the executor owns memory, tables,
 * keys and the transforms.
 */
final class DeviceKeySwitcher {
    private final CudaRingExecutor exec;
    private final DeviceMemory memory;
    private final DeviceTables tables;
    private final RnsRing ring;
    private final GadgetDecomposition gadget;
    private final int n;
    private final long limbBytes;

    DeviceKeySwitcher(
            CudaRingExecutor exec,
            DeviceApi device,
            DeviceMemory memory,
            DeviceTables tables,
            SchemeParameters params) {
        this.exec = exec;
        this.memory = memory;
        this.tables = tables;
        this.ring = params.ring();
        this.gadget = params.gadget();
        this.n = ring.n();
        this.limbBytes = (long) n * Long.BYTES;
    }

    // the executor's primitives, by the names the steps below read best with

    private DevicePoly d(RnsPoly p) {
        return exec.d(p);
    }

    private DevicePoly poly(int limbs) {
        return exec.poly(limbs);
    }

    private Ptr limb(Allocation a, int k) {
        return exec.limb(a, k);
    }

    private Ptr limb(DevicePoly p, int k) {
        return exec.limb(p, k);
    }

    private void copy(Ptr to, Ptr from, int limbs) {
        exec.copy(to, from, limbs);
    }

    private void forward(Ptr a, int limbs, Ptr primes) {
        exec.ntt.forward(a, limbs, primes);
    }

    private void inverse(Ptr a, int limbs, Ptr primes) {
        exec.ntt.inverse(a, limbs, primes);
    }

    private Allocation key(SwitchingKey key) {
        return exec.key(key);
    }

    private Allocation permutation(Automorphism g) {
        return exec.permutation(g);
    }

    /**
     * ModUp as KeySwitcher.decompose, every digit at once: d to coefficients, y_i = [d_i·(Q_j/q_i)^-1]_{q_i} centred,
     * one modup_convert launch over every (digit, position) of Q_level ∪ P (the digit's own limbs taken from d's
     * coefficients, the others by basis conversion), one forward NTT over all of them: a copy and five launches.
     */
    KeySwitchDigits decompose(RnsPoly d, int level) {
        DevicePoly x = d(d);
        int digits = gadget.digitCount(level);
        int width = level + 1 + ring.pCount();
        DeviceTables.LevelTables lt = tables.level(level);
        Allocation coeffs = memory.allocate((level + 1) * limbBytes);
        Allocation scaled = memory.allocate((level + 1) * limbBytes);
        copy(coeffs.ptr, x.memory().ptr, level + 1);
        inverse(coeffs.ptr, level + 1, tables.identity.ptr);
        exec.launch(
                "bconv_scale",
                n,
                level + 1,
                scaled.ptr,
                coeffs.ptr,
                lt.modUpInverse().ptr,
                lt.modUpInverseShoup().ptr,
                tables.identity.ptr,
                tables.pc,
                n);
        Allocation out = memory.allocate((long) digits * width * limbBytes);
        exec.launch(
                "modup_convert",
                n,
                digits * width,
                out.ptr,
                coeffs.ptr,
                scaled.ptr,
                lt.modUpPlan().ptr,
                lt.modUpQHat().ptr,
                lt.modUpQHatShoup().ptr,
                lt.extended().ptr,
                width,
                tables.pc,
                n);
        forward(out.ptr, digits * width, lt.extendedDigits().ptr);
        coeffs.release();
        scaled.release();
        return new DeviceDigits(out, level, digits, width);
    }

    RnsPoly[] applyKey(KeySwitchDigits digits, SwitchingKey key, int level) {
        DeviceDigits dd = (DeviceDigits) digits;
        exec.read(dd.memory()); // hoisted: decomposed once, perhaps on another stream, switched by several
        DeviceTables.LevelTables lt = tables.level(level);
        Allocation k = key(key);
        int width = dd.width();
        Allocation acc0 = memory.allocate(width * limbBytes);
        Allocation acc1 = memory.allocate(width * limbBytes);
        exec.launch(
                "keyswitch_inner_product",
                n,
                width,
                acc0.ptr,
                acc1.ptr,
                dd.memory().ptr,
                dd.digitCount(),
                width,
                k.ptr,
                tables.primeCount,
                lt.extended().ptr,
                tables.pc,
                n);
        RnsPoly[] out = {modDown(acc0, level), modDown(acc1, level)};
        acc0.release();
        acc1.release();
        return out;
    }

    /** One division by P·q_level for the ModDown and the rescale, as HostRingExecutor (KeySwitcher.applyRescaled). */
    RnsPoly[] relinearizeRescale(RnsPoly[] d, SwitchingKey key, int level) {
        DeviceDigits digits = (DeviceDigits) decompose(d[2], level);
        DeviceTables.LevelTables lt = tables.level(level);
        int width = digits.width();
        Allocation acc0 = memory.allocate(width * limbBytes);
        Allocation acc1 = memory.allocate(width * limbBytes);
        exec.launch(
                "keyswitch_inner_product",
                n,
                width,
                acc0.ptr,
                acc1.ptr,
                digits.memory().ptr,
                digits.digitCount(),
                width,
                key(key).ptr,
                tables.primeCount,
                lt.extended().ptr,
                tables.pc,
                n);
        digits.memory().release();
        RnsPoly[] out = {modDownRescale(acc0, d(d[0]), level), modDownRescale(acc1, d(d[1]), level)};
        acc0.release();
        acc1.release();
        return out;
    }

    /**
     * Summed over Q_level ∪ P with one ModDown for all terms (KeySwitcher.switchSum): each term's inner product is
     * permuted by its automorphism and added in one launch; rotations of one polynomial in a row share its ModUp.
     */
    RnsPoly[] keySwitchSum(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        Allocation[] acc = switchedSum(ds, keys, autos, level);
        RnsPoly[] out = {modDown(acc[0], level), modDown(acc[1], level)};
        acc[0].release();
        acc[1].release();
        return out;
    }

    /** The sum above plus (d0, d1), divided by P·q_level once (KeySwitcher.switchSumRescaled); d1 null: zero. */
    RnsPoly[] keySwitchSumRescale(
            RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, RnsPoly d0, RnsPoly d1, int level) {
        Allocation[] acc = switchedSum(ds, keys, autos, level);
        RnsPoly[] out = {modDownRescale(acc[0], d(d0), level), modDownRescale(acc[1], d1 == null ? null : d(d1), level)
        };
        acc[0].release();
        acc[1].release();
        return out;
    }

    /**
     * Double-hoisted, as KeySwitcher.diagonalsRescaled: one ModUp of c1 for every baby step, each baby step made
     * once over Q_level ∪ P (not divided by P) and multiplied into the sum of every giant step that has a diagonal
     * for it; each rotated giant step's c1 divided by P, decomposed, switched and permuted into one accumulator with
     * its c0; one division of the accumulator by P·q_level.
     */
    RnsPoly[] diagonalsRescale(
            RnsPoly c0,
            RnsPoly c1,
            SwitchingKey[] babyKeys,
            Automorphism[] babyAutos,
            RnsPoly[][] diagonals,
            SwitchingKey[] giantKeys,
            Automorphism[] giantAutos,
            int level) {
        int width = level + 1 + ring.pCount();
        long bytes = width * limbBytes;
        Ptr ext = tables.level(level).extended().ptr;
        DeviceDigits digits = null;
        for (SwitchingKey key : babyKeys) {
            if (key != null && digits == null) {
                digits = (DeviceDigits) decompose(c1, level);
            }
        }
        Allocation[][] sums = new Allocation[giantKeys.length][];
        Allocation x0 = memory.allocate(bytes);
        Allocation x1 = memory.allocate(bytes);
        for (int b = 0; b < babyKeys.length; b++) {
            boolean used = false;
            for (RnsPoly[] row : diagonals) {
                used |= row[b] != null;
            }
            if (!used) {
                continue;
            }
            if (babyKeys[b] == null) {
                exec.launch(
                        "baby_identity",
                        n,
                        width,
                        x0.ptr,
                        x1.ptr,
                        d(c0).memory().ptr,
                        d(c1).memory().ptr,
                        tables.pModQ.ptr,
                        tables.pModQShoup.ptr,
                        level,
                        ext,
                        tables.pc,
                        n);
            } else {
                exec.launch(
                        "baby_step",
                        n,
                        width,
                        x0.ptr,
                        x1.ptr,
                        digits.memory().ptr,
                        digits.digitCount(),
                        width,
                        key(babyKeys[b]).ptr,
                        tables.primeCount,
                        ext,
                        permutation(babyAutos[b]).ptr,
                        d(c0).memory().ptr,
                        tables.pModQ.ptr,
                        tables.pModQShoup.ptr,
                        level,
                        tables.pc,
                        n);
            }
            for (int g = 0; g < giantKeys.length; g++) {
                RnsPoly diagonal = diagonals[g][b];
                if (diagonal == null) {
                    continue;
                }
                boolean first = sums[g] == null;
                if (first) {
                    sums[g] = new Allocation[] {memory.allocate(bytes), memory.allocate(bytes)};
                }
                exec.launch(
                        "diagonal_accumulate",
                        n,
                        width,
                        sums[g][0].ptr,
                        sums[g][1].ptr,
                        x0.ptr,
                        x1.ptr,
                        d(diagonal).memory().ptr,
                        first ? 1 : 0,
                        ext,
                        tables.pc,
                        n);
            }
        }
        x0.release();
        x1.release();
        if (digits != null) {
            digits.memory().release();
        }
        Allocation[] acc = giantSteps(sums, giantKeys, giantAutos, level);
        RnsPoly[] out = {modDownRescale(acc[0], null, level), modDownRescale(acc[1], null, level)};
        acc[0].release();
        acc[1].release();
        return out;
    }

    /** As KeySwitcher.switchAtLevelZero: d raised to p_0, the inner product on q_0 and p_0, then ÷ p_0. */
    RnsPoly[] switchAtLevelZero(RnsPoly d, SwitchingKey key) {
        int p0 = ring.pIndex(0);
        Allocation k = key(key);
        Allocation pair = memory.allocate(2 * limbBytes); // {d mod q_0, d raised to p_0}, NTT
        Allocation tmp = memory.allocate(limbBytes);
        copy(pair.ptr, d(d).memory().ptr, 1);
        copy(tmp.ptr, d(d).memory().ptr, 1);
        inverse(tmp.ptr, 1, tables.prime(0));
        exec.launch("centred_lift", n, 1, limb(pair, 1), tmp.ptr, 0, tables.prime(p0), tables.pc, n);
        forward(limb(pair, 1), 1, tables.prime(p0));
        Allocation acc0 = memory.allocate(2 * limbBytes);
        Allocation acc1 = memory.allocate(2 * limbBytes);
        exec.launch(
                "keyswitch_inner_product",
                n,
                2,
                acc0.ptr,
                acc1.ptr,
                pair.ptr,
                1,
                2,
                k.ptr,
                tables.primeCount,
                tables.levelZeroPair.ptr,
                tables.pc,
                n);
        RnsPoly[] out = new RnsPoly[2];
        Allocation[] accs = {acc0, acc1};
        for (int part = 0; part < 2; part++) {
            Ptr onP = limb(accs[part], 1);
            inverse(onP, 1, tables.prime(p0));
            exec.launch("centred_lift", n, 1, tmp.ptr, onP, p0, tables.prime(0), tables.pc, n);
            forward(tmp.ptr, 1, tables.prime(0));
            DevicePoly r = poly(1);
            exec.launch(
                    "poly_sub_mul_scalar",
                    n,
                    1,
                    r.memory().ptr,
                    accs[part].ptr,
                    tmp.ptr,
                    tables.p0Inverse.ptr,
                    tables.p0Inverse.ptr.plus(Long.BYTES),
                    tables.prime(0),
                    tables.pc,
                    n);
            out[part] = r;
        }
        pair.release();
        tmp.release();
        acc0.release();
        acc1.release();
        return out;
    }

    /** Σ_t σ_t(Σ_j D_tj·key_tj) over Q_level ∪ P, both components (in the caller's operation). */
    private Allocation[] switchedSum(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        DeviceTables.LevelTables lt = tables.level(level);
        int width = level + 1 + ring.pCount();
        Allocation acc0 = memory.allocate(width * limbBytes);
        Allocation acc1 = memory.allocate(width * limbBytes);
        DeviceDigits digits = null;
        for (int t = 0; t < ds.length; t++) {
            if (t == 0 || ds[t] != ds[t - 1]) {
                if (digits != null) {
                    digits.memory().release();
                }
                digits = (DeviceDigits) decompose(ds[t], level);
            }
            exec.launch(
                    "keyswitch_permuted_sum",
                    n,
                    width,
                    acc0.ptr,
                    acc1.ptr,
                    digits.memory().ptr,
                    digits.digitCount(),
                    width,
                    key(keys[t]).ptr,
                    tables.primeCount,
                    lt.extended().ptr,
                    permutation(autos[t]).ptr,
                    t == 0 ? 1 : 0,
                    Ptr.NULL,
                    tables.pc,
                    n);
        }
        if (digits != null) {
            digits.memory().release();
        }
        return new Allocation[] {acc0, acc1};
    }
    /**
     * The giant steps of {@link #diagonalsRescale} summed over Q_level ∪ P: the unrotated sums added, each rotated
     * one's c1 divided by P and switched, permuted with its c0 into the accumulator (in the caller's operation; takes
     * the sums).
     */
    private Allocation[] giantSteps(
            Allocation[][] sums, SwitchingKey[] giantKeys, Automorphism[] giantAutos, int level) {
        int width = level + 1 + ring.pCount();
        Ptr ext = tables.level(level).extended().ptr;
        Allocation[] acc = null;
        for (int g = 0; g < sums.length; g++) {
            if (sums[g] != null && giantKeys[g] == null) {
                if (acc == null) {
                    acc = sums[g];
                    continue;
                }
                for (int v = 0; v < 2; v++) {
                    exec.launch("poly_add_into", n, width, acc[v].ptr, sums[g][v].ptr, ext, tables.pc, n);
                    sums[g][v].release();
                }
            }
        }
        for (int g = 0; g < sums.length; g++) {
            if (sums[g] == null || giantKeys[g] == null) {
                continue;
            }
            DevicePoly divided = modDown(sums[g][1], level);
            DeviceDigits digits = (DeviceDigits) decompose(divided, level);
            boolean first = acc == null;
            if (first) {
                acc = new Allocation[] {memory.allocate(width * limbBytes), memory.allocate(width * limbBytes)};
            }
            exec.launch(
                    "keyswitch_permuted_sum",
                    n,
                    width,
                    acc[0].ptr,
                    acc[1].ptr,
                    digits.memory().ptr,
                    digits.digitCount(),
                    width,
                    key(giantKeys[g]).ptr,
                    tables.primeCount,
                    ext,
                    permutation(giantAutos[g]).ptr,
                    first ? 1 : 0,
                    sums[g][0].ptr,
                    tables.pc,
                    n);
            digits.memory().release();
            sums[g][0].release();
            sums[g][1].release();
        }
        if (acc == null) { // a matrix with no diagonal: zero
            acc = new Allocation[] {memory.allocate(width * limbBytes), memory.allocate(width * limbBytes)};
            exec.zero(acc[0].ptr, acc[0].bytes);
            exec.zero(acc[1].ptr, acc[1].bytes);
        }
        return acc;
    }
    /**
     * round((P·d + x) / (P·q_level)) over Q_(level−1) for x over Q_level ∪ P (NTT) and d over Q_level (NTT; null:
     * zero), as KeySwitcher.modDownRescale: the fast conversion of x's q_level and P limbs with its excess computed
     * and taken off, so the division rounds as a rescale does. Overwrites x's q_level and P limbs.
     */
    private DevicePoly modDownRescale(Allocation x, DevicePoly d, int level) {
        int k = ring.pCount();
        DeviceTables.RescaleTables rt = tables.rescale(level);
        Ptr ext = tables.level(level).extended().ptr;
        Ptr divided = limb(x, level); // q_level, then p_0..p_{k-1}: contiguous
        Ptr dividedPrimes = ext.plus((long) level * Integer.BYTES);
        if (d != null) {
            exec.launch("moddown_rescale_add_pd", n, 1, divided, limb(d, level), rt.pModQl().ptr, level, tables.pc, n);
        }
        inverse(divided, k + 1, dividedPrimes);
        Allocation scaled = memory.allocate((k + 1) * limbBytes);
        exec.launch(
                "bconv_scale",
                n,
                k + 1,
                scaled.ptr,
                divided,
                rt.qHatInv().ptr,
                rt.qHatInvShoup().ptr,
                dividedPrimes,
                tables.pc,
                n);
        Allocation excess = memory.allocate((long) n * Integer.BYTES);
        exec.launch("moddown_rescale_excess", n, 1, excess.ptr, scaled.ptr, k + 1, rt.sourceInverse().ptr, n);
        DevicePoly out = poly(level);
        exec.launch(
                "bconv_accumulate_excess",
                n,
                level,
                out.memory().ptr,
                scaled.ptr,
                k + 1,
                rt.qHat().ptr,
                rt.qHatShoup().ptr,
                tables.identity.ptr,
                excess.ptr,
                rt.minusExcess().ptr,
                rt.excessOffset(),
                tables.pc,
                n);
        forward(out.memory().ptr, level, tables.identity.ptr);
        exec.launch(
                "moddown_rescale_combine",
                n,
                level,
                out.memory().ptr,
                x.ptr,
                out.memory().ptr,
                d == null ? Ptr.NULL : d.memory().ptr,
                rt.pqInv().ptr,
                rt.pqInvShoup().ptr,
                rt.qlInv().ptr,
                rt.qlInvShoup().ptr,
                tables.identity.ptr,
                tables.pc,
                n);
        scaled.release();
        excess.release();
        return out;
    }
    /** x over Q_level ∪ P (NTT) to x / P over Q_level, as KeySwitcher.modDown; overwrites x's P limbs. */
    private DevicePoly modDown(Allocation x, int level) {
        int k = ring.pCount();
        Ptr special = limb(x, level + 1);
        Ptr pPrimes = tables.prime(ring.qCount());
        inverse(special, k, pPrimes);
        Allocation scaled = memory.allocate(k * limbBytes);
        exec.launch(
                "bconv_scale",
                n,
                k,
                scaled.ptr,
                special,
                tables.pToQInverse.ptr,
                tables.pToQInverseShoup.ptr,
                pPrimes,
                tables.pc,
                n);
        DevicePoly out = poly(level + 1);
        exec.launch(
                "bconv_accumulate",
                n,
                level + 1,
                out.memory().ptr,
                scaled.ptr,
                k,
                tables.pToQ.ptr,
                tables.pToQShoup.ptr,
                tables.identity.ptr,
                tables.pc,
                n);
        forward(out.memory().ptr, level + 1, tables.identity.ptr);
        exec.launch(
                "poly_sub_mul_scalar",
                n,
                level + 1,
                out.memory().ptr,
                x.ptr,
                out.memory().ptr,
                tables.pInverse.ptr,
                tables.pInverseShoup.ptr,
                tables.identity.ptr,
                tables.pc,
                n);
        scaled.release();
        return out;
    }
}

package dev.polyhe.backend.cuda;

import dev.polyhe.backend.cuda.DeviceApi.Ptr;
import dev.polyhe.backend.cuda.DeviceMemory.Allocation;
import dev.polyhe.ckks.ring.BasisConverter;
import dev.polyhe.ckks.ring.Modulus;
import dev.polyhe.ckks.ring.NttTables;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.GadgetDecomposition;
import dev.polyhe.ckks.rlwe.KeySwitcher;
import dev.polyhe.ckks.scheme.SpecialFft;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The constants the kernels read, taken from the same Java ring classes ckks-cpu uses and uploaded once
 * per context (the layouts are documented at the top of ring_kernels.cu): per prime the reduction and NTT
 * constants and twiddles; per level the ModUp converters of each digit; the ModDown, rescale and level-0 constants.
 * Every allocation is held here for the context's lifetime.
 */
final class DeviceTables {
    private static final int PC_STRIDE = 8;

    private final CudaRingExecutor exec;
    private final RnsRing ring;
    private final GadgetDecomposition gadget;
    /** Streams build levels at once (each level once): the list is shared. */
    private final List<Allocation> held = java.util.Collections.synchronizedList(new ArrayList<>());

    private final Map<Integer, LevelTables> levels = new ConcurrentHashMap<>();
    private final Map<Integer, RescaleTables> rescales = new ConcurrentHashMap<>();
    /** The host's key switcher: the reference the division by P·q_l takes its constants from. */
    private final KeySwitcher switcher;

    final int primeCount;
    final Ptr pc;
    final Ptr psiRev;
    final Ptr psiRevShoup;
    final Ptr psiInvRev;
    final Ptr psiInvRevShoup;
    /** ints 0..P-1: limb k is prime k; offset by p for the primes from p on. */
    final Allocation identity;
    /** ints {0, index of p_0}: the level-0 key switch's two limbs. */
    final Allocation levelZeroPair;

    final Allocation pToQInverse;
    final Allocation pToQInverseShoup;
    final Allocation pToQ;
    final Allocation pToQShoup;
    final Allocation pInverse;
    final Allocation pInverseShoup;
    /** P mod q_i and its Shoup companion: the baby steps of double-hoisted transforms are not divided by P. */
    final Allocation pModQ;

    final Allocation pModQShoup;
    final Allocation rescaleInverse;
    final Allocation rescaleInverseShoup;
    /** {p_0^-1 mod q_0, its Shoup companion}. */
    final Allocation p0Inverse;
    /** The special FFT's twiddles (SpecialFft.twiddles), doubles as their bits: encoding on the device. */
    final Allocation fftRe;

    final Allocation fftIm;

    DeviceTables(CudaRingExecutor exec, RnsRing ring, GadgetDecomposition gadget) {
        this.exec = exec;
        this.ring = ring;
        this.gadget = gadget;
        this.primeCount = ring.qCount() + ring.pCount();
        this.switcher = new KeySwitcher(ring, gadget);
        int n = ring.n();
        long[] constants = new long[primeCount * PC_STRIDE];
        long[][] twiddles = new long[4][primeCount * n];
        for (int p = 0; p < primeCount; p++) {
            NttTables ntt = ring.ntt(p);
            System.arraycopy(primeConstants(ntt), 0, constants, p * PC_STRIDE, PC_STRIDE);
            long[][] t = ntt.twiddles();
            for (int k = 0; k < 4; k++) {
                System.arraycopy(t[k], 0, twiddles[k], p * n, n);
            }
        }
        pc = hold(constants).ptr;
        psiRev = hold(twiddles[0]).ptr;
        psiRevShoup = hold(twiddles[1]).ptr;
        psiInvRev = hold(twiddles[2]).ptr;
        psiInvRevShoup = hold(twiddles[3]).ptr;
        int[] ids = new int[primeCount];
        for (int p = 0; p < primeCount; p++) {
            ids[p] = p;
        }
        identity = hold(ids);
        levelZeroPair = hold(new int[] {0, ring.pIndex(0)});

        int qCount = ring.qCount();
        int k = ring.pCount();
        Modulus[] special = new Modulus[k];
        for (int t = 0; t < k; t++) {
            special[t] = ring.modulus(ring.pIndex(t));
        }
        Modulus[] chain = new Modulus[qCount];
        for (int i = 0; i < qCount; i++) {
            chain[i] = ring.modulus(i);
        }
        long[][] down = new BasisConverter(special, chain).tables();
        pToQInverse = hold(down[0]);
        pToQInverseShoup = hold(down[1]);
        pToQ = hold(down[2]);
        pToQShoup = hold(down[3]);
        long[] pInv = new long[qCount];
        long[] pInvShoup = new long[qCount];
        long[] pMod = new long[qCount];
        long[] pModShoup = new long[qCount];
        for (int i = 0; i < qCount; i++) {
            long prod = 1;
            for (Modulus pt : special) {
                prod = chain[i].mul(prod, chain[i].reduce(pt.value()));
            }
            pInv[i] = chain[i].inv(prod);
            pInvShoup[i] = chain[i].shoup(pInv[i]);
            pMod[i] = prod;
            pModShoup[i] = chain[i].shoup(prod);
        }
        pInverse = hold(pInv);
        pInverseShoup = hold(pInvShoup);
        pModQ = hold(pMod);
        pModQShoup = hold(pModShoup);
        long[] rInv = new long[qCount * qCount];
        long[] rInvShoup = new long[qCount * qCount];
        for (int l = 1; l < qCount; l++) {
            for (int i = 0; i < l; i++) {
                rInv[l * qCount + i] = chain[i].inv(chain[i].reduce(chain[l].value()));
                rInvShoup[l * qCount + i] = chain[i].shoup(rInv[l * qCount + i]);
            }
        }
        rescaleInverse = hold(rInv);
        rescaleInverseShoup = hold(rInvShoup);
        long p0Inv = k == 0 ? 0 : chain[0].inv(chain[0].reduce(special[0].value()));
        p0Inverse = hold(new long[] {p0Inv, k == 0 ? 0 : chain[0].shoup(p0Inv)});
        double[][] fft = new SpecialFft(ring.logN()).twiddles();
        fftRe = hold(bits(fft[0]));
        fftIm = hold(bits(fft[1]));
    }

    /**
     * One prime's row of the constants table (modarith.cuh's PC_ fields): {q, q^-1 mod 2^64, 2^128 mod q,
     * floor(2^64/q), N^-1, its Shoup companion, the inverse NTT's last twiddle with N^-1, its Shoup companion}.
     */
    static long[] primeConstants(NttTables ntt) {
        Modulus m = ntt.modulus();
        return new long[] {
            m.value(),
            m.montgomeryInverse(),
            m.montgomerySquare(),
            m.barrettFactor(),
            ntt.nInverse(),
            m.shoup(ntt.nInverse()),
            ntt.lastInverse(),
            m.shoup(ntt.lastInverse())
        };
    }

    private Allocation hold(long[] words) {
        Allocation a = exec.upload(words);
        held.add(a);
        return a;
    }

    private Allocation hold(int[] words) {
        Allocation a = exec.upload(words);
        held.add(a);
        return a;
    }

    /** The limbs from prime index p on (a one-prime launch reads only the first). */
    Ptr prime(int p) {
        return identity.ptr.plus((long) p * Integer.BYTES);
    }

    /**
     * What key switching at one level reads: the prime index of each position of Q_level ∪ P ({@code extended}),
     * each limb's (Q_j/q_i)^-1 within its digit, and for the one ModUp launch over every (digit, position): the
     * prime of each ({@code extendedDigits}: extended, once per digit), the plan {start, count, row} of each (see
     * modup_convert in ring_kernels.cu) and every digit's conversion table, concatenated.
     */
    record LevelTables(
            Allocation extended,
            Allocation modUpInverse,
            Allocation modUpInverseShoup,
            Allocation extendedDigits,
            Allocation modUpPlan,
            Allocation modUpQHat,
            Allocation modUpQHatShoup) {}

    /** Uploaded by the first stream that needs them and published: every other stream waits for them once. */
    LevelTables level(int level) {
        LevelTables t = levels.computeIfAbsent(level, l -> {
            LevelTables built = buildLevel(l);
            exec.publish();
            return built;
        });
        exec.catchUp();
        return t;
    }

    private LevelTables buildLevel(int level) {
        int width = level + 1 + ring.pCount();
        int digits = gadget.digitCount(level);
        int[] ext = ring.extendedIndices(level);
        long[] inv = new long[level + 1];
        long[] invShoup = new long[level + 1];
        int[] extDigits = new int[digits * width];
        int[] plan = new int[3 * digits * width];
        List<long[]> rows = new ArrayList<>();
        List<long[]> rowsShoup = new ArrayList<>();
        int words = 0;
        for (int j = 0; j < digits; j++) {
            int first = gadget.firstPrime(j);
            int end = gadget.endPrime(j, level);
            int sources = end - first;
            Modulus[] source = new Modulus[sources];
            for (int i = first; i < end; i++) {
                source[i - first] = ring.modulus(i);
            }
            Modulus[] target = new Modulus[width - sources];
            int t = 0;
            for (int pos = 0; pos < width; pos++) {
                int slot = j * width + pos;
                extDigits[slot] = ext[pos];
                if (pos >= first && pos < end) {
                    plan[3 * slot] = pos; // the digit's own limb: d itself, from its coefficient form
                } else {
                    plan[3 * slot] = first;
                    plan[3 * slot + 1] = sources;
                    plan[3 * slot + 2] = words + t * sources;
                    target[t++] = ring.modulus(ext[pos]);
                }
            }
            long[][] h = new BasisConverter(source, target).tables();
            System.arraycopy(h[0], 0, inv, first, sources);
            System.arraycopy(h[1], 0, invShoup, first, sources);
            rows.add(h[2]);
            rowsShoup.add(h[3]);
            words += h[2].length;
        }
        return new LevelTables(
                hold(ext),
                hold(inv),
                hold(invShoup),
                hold(extDigits),
                hold(plan),
                hold(concat(rows, words)),
                hold(concat(rowsShoup, words)));
    }

    /**
     * The division by P·q_l at one level (KeySwitcher.modDownRescale; layouts at moddown_rescale in
     * ring_kernels.cu): the conversion {q_l} ∪ P → Q_(l−1), the sources' 1/s_t, the excess corrections, the
     * per-limb inverses, and P mod q_l.
     */
    record RescaleTables(
            Allocation qHatInv,
            Allocation qHatInvShoup,
            Allocation qHat,
            Allocation qHatShoup,
            Allocation sourceInverse,
            Allocation minusExcess,
            int excessOffset,
            Allocation pqInv,
            Allocation pqInvShoup,
            Allocation qlInv,
            Allocation qlInvShoup,
            Allocation pModQl) {}

    RescaleTables rescale(int level) {
        RescaleTables r = rescales.computeIfAbsent(level, l -> {
            KeySwitcher.RescaleTables t = switcher.rescaleTables(l);
            RescaleTables built = new RescaleTables(
                    hold(t.converter()[0]),
                    hold(t.converter()[1]),
                    hold(t.converter()[2]),
                    hold(t.converter()[3]),
                    hold(t.sourceInverseBits()),
                    hold(t.minusExcess()),
                    t.excessOffset(),
                    hold(t.pqInv()),
                    hold(t.pqInvShoup()),
                    hold(t.qlInv()),
                    hold(t.qlInvShoup()),
                    hold(t.pModQl()));
            exec.publish();
            return built;
        });
        exec.catchUp();
        return r;
    }

    /** Doubles as the bits the kernels read them by. */
    static long[] bits(double[] values) {
        long[] b = new long[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = Double.doubleToRawLongBits(values[i]);
        }
        return b;
    }

    private static long[] concat(List<long[]> parts, int words) {
        long[] all = new long[words];
        int at = 0;
        for (long[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }
}

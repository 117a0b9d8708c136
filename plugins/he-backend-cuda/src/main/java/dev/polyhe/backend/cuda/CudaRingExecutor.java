package dev.polyhe.backend.cuda;

import dev.polyhe.backend.cuda.DeviceApi.Ptr;
import dev.polyhe.backend.cuda.DeviceMemory.Allocation;
import dev.polyhe.ckks.executor.ForeignPolynomialException;
import dev.polyhe.ckks.executor.KeySwitchDigits;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.executor.RnsPoly;
import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.GadgetDecomposition;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import dev.polyhe.ckks.scheme.SchemeParameters;
import java.util.Arrays;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ring arithmetic in GPU memory: polynomials are device buffers (limb-major, limb k at k·N words), evaluation
 * keys are uploaded once (on first use, kept while the key object lives), and every operation is a few kernel
 * launches of ring_kernels.cu queued on one stream. The host waits only where it reads (a download, which the
 * driver orders after the queued work) or where a caller asks ({@link #synchronize()}, for timings): an operation
 * returns as soon as its launches are queued, so a device error surfaces at the next read. Per-limb scalars travel
 * as kernel parameters, so no operation uploads; temporaries come from the pool, so none allocates from the driver
 * once the pool is warm (budgets in LaunchBudgetTest). Operations hold one lock: the stream is the device's order
 * anyway, and the tables are shared. The steps mirror the Java ring classes (KeySwitcher, RnsRescaler, ModRaise) so
 * that the limbs agree exactly with {@code ckks-cpu}'s.
 */
final class CudaRingExecutor implements RingExecutor {
    private final DeviceApi device;
    private final DeviceMemory memory;
    private final DeviceTables tables;
    private final RnsRing ring;
    private final GadgetDecomposition gadget;
    private final int n;
    private final long limbBytes;
    private final Map<SwitchingKey, Allocation> keys = new WeakHashMap<>();
    private final Map<Long, Allocation> permutations = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    private boolean closed;

    CudaRingExecutor(DeviceApi device, SchemeParameters params) {
        this.device = device;
        this.memory = new DeviceMemory(device);
        this.ring = params.ring();
        this.gadget = params.gadget();
        this.n = ring.n();
        this.limbBytes = (long) n * Long.BYTES;
        this.tables = new DeviceTables(this, ring, gadget);
    }

    /** Opens GPU 0 for these parameters: kernels loaded, NTT tables uploaded. */
    static CudaRingExecutor open(SchemeParameters params) {
        return open(CudaDevice.open(), params);
    }

    /** On {@code device} (closed with the executor, or now if the tables cannot be uploaded). */
    static CudaRingExecutor open(DeviceApi device, SchemeParameters params) {
        try {
            return new CudaRingExecutor(device, params);
        } catch (RuntimeException | Error e) {
            device.close();
            throw e;
        }
    }

    /** A polynomial in device memory: limbs 0..limbs-1 from the allocation's start (prefixes share it). */
    private record DevicePoly(CudaRingExecutor owner, Allocation memory, int limbs) implements RnsPoly {
        @Override
        public int limbCount() {
            return limbs;
        }
    }

    /** digitCount × width limbs: digit j's raised limbs at j·width·N words. */
    private record DeviceDigits(Allocation memory, int level, int digitCount, int width) implements KeySwitchDigits {}

    private DevicePoly d(RnsPoly p) {
        if (p instanceof DevicePoly dp && dp.owner() == this) {
            return dp;
        }
        throw new ForeignPolynomialException(p);
    }

    // ---- memory --------------------------------------------------------------------------------------------

    Allocation allocate(long bytes) {
        return memory.allocate(bytes);
    }

    private DevicePoly poly(int limbs) {
        return new DevicePoly(this, memory.allocate(limbs * limbBytes), limbs);
    }

    private Ptr limb(Allocation a, int k) {
        return k == 0 ? a.ptr : a.ptr.plus(k * limbBytes);
    }

    private Ptr limb(DevicePoly p, int k) {
        return limb(p.memory(), k);
    }

    Allocation upload(long[] words) {
        Allocation a = memory.allocate((long) words.length * Long.BYTES);
        device.upload(a.ptr, words);
        return a;
    }

    Allocation upload(int[] words) {
        Allocation a = memory.allocate((long) words.length * Integer.BYTES);
        device.upload(a.ptr, words);
        return a;
    }

    private void copy(Ptr to, Ptr from, int limbs) {
        device.copy(to, from, limbs * limbBytes);
    }

    /** Limbs a by-value scalar structure holds (PHE_SCALAR_LIMBS of ring_kernels.cu). */
    static final int SCALAR_LIMBS = 64;

    /**
     * The kernels' PheScalars for limbs [from, from + SCALAR_LIMBS) of w: the values, then their Shoup companions,
     * passed by value (no upload).
     */
    private long[] scalars(long[] w, int from, int level, boolean shoup) {
        long[] s = new long[2 * SCALAR_LIMBS];
        for (int i = from; i <= level && i < from + SCALAR_LIMBS; i++) {
            s[i - from] = w[i];
            s[SCALAR_LIMBS + i - from] = shoup ? ring.modulus(i).shoup(w[i]) : 0;
        }
        return s;
    }

    /** out = a ∘ w per limb by {@code kernel} (poly_mul_scalar_v, poly_add_scalar_v), SCALAR_LIMBS limbs a launch. */
    private DevicePoly scalarKernel(String kernel, RnsPoly a, long[] w, int level, boolean shoup) {
        DevicePoly out = poly(level + 1);
        for (int from = 0; from <= level; from += SCALAR_LIMBS) {
            int limbs = Math.min(SCALAR_LIMBS, level + 1 - from);
            device.launch(kernel, n, limbs, limb(out, from), limb(d(a), from), scalars(w, from, level, shoup),
                    tables.prime(from), tables.pc, n);
        }
        return out;
    }

    // ---- transforms ----------------------------------------------------------------------------------------

    /** Forward NTT in place on {@code limbs} limbs from {@code a}, limb k modulo prime primes[k]: one or two launches. */
    private void forward(Ptr a, int limbs, Ptr primes) {
        transform("ntt_fwd_phase", a, limbs, primes, tables.psiRev, tables.psiRevShoup);
    }

    private void inverse(Ptr a, int limbs, Ptr primes) {
        transform("ntt_inv_phase", a, limbs, primes, tables.psiInvRev, tables.psiInvRevShoup);
    }

    private void transform(String kernel, Ptr a, int limbs, Ptr primes, Ptr twiddles, Ptr twiddlesShoup) {
        int logN = ring.logN();
        for (NttPhases.Phase ph : NttPhases.plan(logN)) {
            device.launchBlocks(kernel, ph.blocks(logN), limbs, ph.threads(), ph.sharedBytes(), a, primes, tables.pc,
                    twiddles, twiddlesShoup, logN, ph.s0(), ph.k(), ph.logTiles());
        }
    }

    /** Under the lock: refuses a closed executor, binds the context to this thread. */
    private void begin() {
        if (closed) {
            throw new IllegalStateException("this ckks-cuda context is closed");
        }
        device.bind();
    }

    // ---- RingExecutor --------------------------------------------------------------------------------------

    @Override
    public String describe() {
        return device.name() + " (compute " + device.computeCapability() + ", driver " + device.driverVersion()
                + ", " + (device.totalMemory() >> 20) + " MiB)";
    }

    /** Device memory this executor holds now and at most so far, in bytes. */
    long bytesInUse() {
        return memory.bytesInUse();
    }

    long peakBytes() {
        return memory.peakBytes();
    }

    /** One copy for the whole polynomial (a driver call per limb costs more than the copy at small N). */
    @Override
    public RnsPoly upload(long[][] limbs) {
        long[] flat = new long[limbs.length * n];
        for (int k = 0; k < limbs.length; k++) {
            System.arraycopy(limbs[k], 0, flat, k * n, n);
        }
        synchronized (lock) {
            begin();
            DevicePoly p = poly(limbs.length);
            device.upload(p.memory().ptr, flat);
            return p;
        }
    }

    /**
     * The encoder's coefficients uploaded once (N words, not a limb each), reduced into every limb and transformed
     * on the device: one copy and three launches a plaintext.
     */
    @Override
    public RnsPoly fromCoefficients(long[] coefficients, int level) {
        synchronized (lock) {
            begin();
            Allocation staged = memory.allocate(limbBytes);
            device.upload(staged.ptr, coefficients);
            DevicePoly out = poly(level + 1);
            device.launch("encode_coefficients", n, level + 1, out.memory().ptr, staged.ptr, tables.identity.ptr,
                    tables.pc, n);
            forward(out.memory().ptr, level + 1, tables.identity.ptr);
            staged.release();
            return out;
        }
    }

    /**
     * The whole encoding on the device, as CanonicalEncoder does it on the host: the slots' values uploaded once (2 ×
     * slots doubles), the inverse special FFT in one or two shared-memory launches, the scaling, rounding and
     * reduction into every limb in one, the NTT in one or two.
     */
    @Override
    public RnsPoly fromSlots(double[] re, double[] im, int slots, int level, double scale) {
        int logSlots = Integer.numberOfTrailingZeros(slots);
        long[] staged = new long[2 * slots];
        for (int i = 0; i < slots; i++) {
            staged[i] = Double.doubleToRawLongBits(re[i]);
            staged[slots + i] = Double.doubleToRawLongBits(im[i]);
        }
        long factor = Double.doubleToRawLongBits(scale / slots); // the FFT's 1/slots folded in, as the host does
        synchronized (lock) {
            begin();
            Allocation values = memory.allocate(2L * slots * Double.BYTES);
            device.upload(values.ptr, staged);
            if (logSlots > 0) {
                for (NttPhases.Phase ph : NttPhases.plan(logSlots)) {
                    device.launchBlocks("fft_inv_phase", ph.blocks(logSlots), 1, ph.threads(), 2 * ph.sharedBytes(),
                            values.ptr, tables.fftRe.ptr, tables.fftIm.ptr, logSlots, ph.s0(), ph.k(), ph.logTiles());
                }
            }
            DevicePoly out = poly(level + 1);
            device.launch("encode_slots", n, level + 1, out.memory().ptr, values.ptr, logSlots, new long[] {factor},
                    tables.identity.ptr, tables.pc, n);
            forward(out.memory().ptr, level + 1, tables.identity.ptr);
            values.release();
            return out;
        }
    }

    /** Waits for the device to finish what is queued (timings); reads wait by themselves. */
    @Override
    public void synchronize() {
        synchronized (lock) {
            begin();
            device.synchronize();
        }
    }

    /** What the device has been asked to do so far (launches, synchronizations, uploads, allocations). */
    DeviceCounts.Snapshot counts() {
        return device.counts().snapshot();
    }

    /** One copy, which the driver runs after everything queued before it. */
    @Override
    public long[][] download(RnsPoly p, int limbs) {
        long[] flat = new long[limbs * n];
        synchronized (lock) {
            begin();
            device.download(flat, d(p).memory().ptr);
        }
        long[][] out = new long[limbs][];
        for (int k = 0; k < limbs; k++) {
            out[k] = Arrays.copyOfRange(flat, k * n, (k + 1) * n);
        }
        return out;
    }

    @Override
    public RnsPoly prefix(RnsPoly p, int level) {
        DevicePoly x = d(p);
        return level + 1 == x.limbs() ? x : new DevicePoly(this, x.memory(), level + 1);
    }

    private RnsPoly binary(String kernel, RnsPoly a, RnsPoly b, int level) {
        synchronized (lock) {
            begin();
            DevicePoly out = poly(level + 1);
            device.launch(kernel, n, level + 1, out.memory().ptr, d(a).memory().ptr,
                    d(b).memory().ptr, tables.identity.ptr, tables.pc, n);
            return out;
        }
    }

    @Override
    public RnsPoly add(RnsPoly a, RnsPoly b, int level) {
        return binary("poly_add", a, b, level);
    }

    @Override
    public RnsPoly addInto(RnsPoly fresh, RnsPoly b, int level) {
        synchronized (lock) {
            begin();
            device.launch("poly_add_into", n, level + 1, d(fresh).memory().ptr, d(b).memory().ptr,
                    tables.identity.ptr, tables.pc, n);
            return prefix(fresh, level);
        }
    }

    @Override
    public RnsPoly sub(RnsPoly a, RnsPoly b, int level) {
        return binary("poly_sub", a, b, level);
    }

    @Override
    public RnsPoly multiply(RnsPoly a, RnsPoly b, int level) {
        return binary("poly_mul", a, b, level);
    }

    @Override
    public RnsPoly negate(RnsPoly a, int level) {
        synchronized (lock) {
            begin();
            DevicePoly out = poly(level + 1);
            device.launch("poly_neg", n, level + 1, out.memory().ptr, d(a).memory().ptr,
                    tables.identity.ptr, tables.pc, n);
            return out;
        }
    }

    @Override
    public RnsPoly multiplyScalars(RnsPoly a, long[] scalars, int level) {
        synchronized (lock) {
            begin();
            return scalarKernel("poly_mul_scalar_v", a, scalars, level, true);
        }
    }

    @Override
    public RnsPoly addScalars(RnsPoly a, long[] scalars, int level) {
        synchronized (lock) {
            begin();
            return scalarKernel("poly_add_scalar_v", a, scalars, level, false);
        }
    }

    @Override
    public RnsPoly[] tensor(RnsPoly x0, RnsPoly x1, RnsPoly y0, RnsPoly y1, int level) {
        synchronized (lock) {
            begin();
            DevicePoly d0 = poly(level + 1);
            DevicePoly d1 = poly(level + 1);
            DevicePoly d2 = poly(level + 1);
            device.launch("poly_tensor", n, level + 1, d0.memory().ptr, d1.memory().ptr,
                    d2.memory().ptr, d(x0).memory().ptr, d(x1).memory().ptr, d(y0).memory().ptr,
                    d(y1).memory().ptr, tables.identity.ptr, tables.pc, n);
            return new RnsPoly[] {d0, d1, d2};
        }
    }

    @Override
    public RnsPoly automorphism(RnsPoly a, Automorphism g, int level) {
        synchronized (lock) {
            begin();
            Allocation perm = permutation(g);
            DevicePoly out = poly(level + 1);
            device.launch("automorphism_ntt", n, level + 1, out.memory().ptr, d(a).memory().ptr,
                    perm.ptr, n);
            return out;
        }
    }

    /** As RnsRescaler: t = [x_l + h]_{q_l} − h on limbs 0..l−1, then (x − t)·q_l^-1. */
    @Override
    public RnsPoly[] rescale(RnsPoly[] polys, int level) {
        if (level < 1) {
            throw new IllegalArgumentException("rescale needs level >= 1, got " + level);
        }
        synchronized (lock) {
            begin();
            RnsPoly[] out = new RnsPoly[polys.length];
            Allocation last = memory.allocate(limbBytes);
            Ptr inv = tables.rescaleInverse.ptr.plus((long) level * ring.qCount() * Long.BYTES);
            Ptr invShoup = tables.rescaleInverseShoup.ptr
                    .plus((long) level * ring.qCount() * Long.BYTES);
            for (int k = 0; k < polys.length; k++) {
                DevicePoly x = d(polys[k]);
                copy(last.ptr, limb(x, level), 1);
                inverse(last.ptr, 1, tables.prime(level));
                DevicePoly t = poly(level);
                device.launch("rescale_lift", n, level, t.memory().ptr, last.ptr, level,
                        tables.identity.ptr, tables.pc, n);
                forward(t.memory().ptr, level, tables.identity.ptr);
                device.launch("poly_sub_mul_scalar", n, level, t.memory().ptr, x.memory().ptr,
                        t.memory().ptr, inv, invShoup, tables.identity.ptr, tables.pc, n);
                out[k] = t;
            }
            last.release();
            return out;
        }
    }

    /**
     * ModUp as KeySwitcher.decompose, every digit at once: d to coefficients, y_i = [d_i·(Q_j/q_i)^-1]_{q_i} centred,
     * one modup_convert launch over every (digit, position) of Q_level ∪ P (the digit's own limbs taken from d's
     * coefficients, the others by basis conversion), one forward NTT over all of them: a copy and five launches.
     */
    @Override
    public KeySwitchDigits decompose(RnsPoly d, int level) {
        synchronized (lock) {
            begin();
            DevicePoly x = d(d);
            int digits = gadget.digitCount(level);
            int width = level + 1 + ring.pCount();
            DeviceTables.LevelTables lt = tables.level(level);
            Allocation coeffs = memory.allocate((level + 1) * limbBytes);
            Allocation scaled = memory.allocate((level + 1) * limbBytes);
            copy(coeffs.ptr, x.memory().ptr, level + 1);
            inverse(coeffs.ptr, level + 1, tables.identity.ptr);
            device.launch("bconv_scale", n, level + 1, scaled.ptr, coeffs.ptr, lt.modUpInverse().ptr,
                    lt.modUpInverseShoup().ptr, tables.identity.ptr, tables.pc, n);
            Allocation out = memory.allocate((long) digits * width * limbBytes);
            device.launch("modup_convert", n, digits * width, out.ptr, coeffs.ptr, scaled.ptr, lt.modUpPlan().ptr,
                    lt.modUpQHat().ptr, lt.modUpQHatShoup().ptr, lt.extended().ptr, width, tables.pc, n);
            forward(out.ptr, digits * width, lt.extendedDigits().ptr);
            coeffs.release();
            scaled.release();
            return new DeviceDigits(out, level, digits, width);
        }
    }

    @Override
    public RnsPoly[] applyKey(KeySwitchDigits digits, SwitchingKey key, int level) {
        synchronized (lock) {
            begin();
            DeviceDigits dd = (DeviceDigits) digits;
            DeviceTables.LevelTables lt = tables.level(level);
            Allocation k = key(key);
            int width = dd.width();
            Allocation acc0 = memory.allocate(width * limbBytes);
            Allocation acc1 = memory.allocate(width * limbBytes);
            device.launch("keyswitch_inner_product", n, width, acc0.ptr, acc1.ptr, dd.memory().ptr,
                    dd.digitCount(), width, k.ptr, tables.primeCount, lt.extended().ptr,
                    tables.pc, n);
            RnsPoly[] out = {modDown(acc0, level), modDown(acc1, level)};
            acc0.release();
            acc1.release();
            return out;
        }
    }

    /** Two products sharing b in one launch (CpuEvaluator's products of a ciphertext by a plaintext). */
    @Override
    public RnsPoly[] multiplyPair(RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        return pair(null, null, a0, a1, b, level);
    }

    /** s + a·b for both components in one launch. */
    @Override
    public RnsPoly[] multiplyPairAdd(RnsPoly s0, RnsPoly s1, RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        return pair(s0, s1, a0, a1, b, level);
    }

    private RnsPoly[] pair(RnsPoly s0, RnsPoly s1, RnsPoly a0, RnsPoly a1, RnsPoly b, int level) {
        synchronized (lock) {
            begin();
            DevicePoly o0 = poly(level + 1);
            DevicePoly o1 = poly(level + 1);
            device.launch("poly_mul_pair", n, level + 1, o0.memory().ptr, o1.memory().ptr, d(a0).memory().ptr,
                    d(a1).memory().ptr, d(b).memory().ptr, s0 == null ? Ptr.NULL : d(s0).memory().ptr,
                    s1 == null ? Ptr.NULL : d(s1).memory().ptr, tables.identity.ptr, tables.pc, n);
            return new RnsPoly[] {o0, o1};
        }
    }

    /** One division by P·q_level for the ModDown and the rescale, as HostRingExecutor (KeySwitcher.applyRescaled). */
    @Override
    public RnsPoly[] relinearizeRescale(RnsPoly[] d, SwitchingKey key, int level) {
        if (ring.pCount() == 0 || level < 1) {
            return RingExecutor.super.relinearizeRescale(d, key, level);
        }
        synchronized (lock) {
            begin();
            DeviceDigits digits = (DeviceDigits) decompose(d[2], level);
            DeviceTables.LevelTables lt = tables.level(level);
            int width = digits.width();
            Allocation acc0 = memory.allocate(width * limbBytes);
            Allocation acc1 = memory.allocate(width * limbBytes);
            device.launch("keyswitch_inner_product", n, width, acc0.ptr, acc1.ptr, digits.memory().ptr,
                    digits.digitCount(), width, key(key).ptr, tables.primeCount, lt.extended().ptr, tables.pc, n);
            digits.memory().release();
            RnsPoly[] out = {modDownRescale(acc0, d(d[0]), level), modDownRescale(acc1, d(d[1]), level)};
            acc0.release();
            acc1.release();
            return out;
        }
    }

    /**
     * Summed over Q_level ∪ P with one ModDown for all terms (KeySwitcher.switchSum): each term's inner product is
     * permuted by its automorphism and added in one launch; rotations of one polynomial in a row share its ModUp.
     */
    @Override
    public RnsPoly[] keySwitchSum(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, int level) {
        if (ring.pCount() == 0) {
            return RingExecutor.super.keySwitchSum(ds, keys, autos, level);
        }
        synchronized (lock) {
            begin();
            Allocation[] acc = switchedSum(ds, keys, autos, level);
            RnsPoly[] out = {modDown(acc[0], level), modDown(acc[1], level)};
            acc[0].release();
            acc[1].release();
            return out;
        }
    }

    /** The sum above plus (d0, d1), divided by P·q_level once (KeySwitcher.switchSumRescaled); d1 null: zero. */
    @Override
    public RnsPoly[] keySwitchSumRescale(RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, RnsPoly d0,
            RnsPoly d1, int level) {
        if (ring.pCount() == 0 || level < 1) {
            return RingExecutor.super.keySwitchSumRescale(ds, keys, autos, d0, d1, level);
        }
        synchronized (lock) {
            begin();
            Allocation[] acc = switchedSum(ds, keys, autos, level);
            RnsPoly[] out = {modDownRescale(acc[0], d(d0), level),
                modDownRescale(acc[1], d1 == null ? null : d(d1), level)};
            acc[0].release();
            acc[1].release();
            return out;
        }
    }

    /** Σ_t σ_t(Σ_j D_tj·key_tj) over Q_level ∪ P, both components (under the lock). */
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
            device.launch("keyswitch_permuted_sum", n, width, acc0.ptr, acc1.ptr, digits.memory().ptr,
                    digits.digitCount(), width, key(keys[t]).ptr, tables.primeCount, lt.extended().ptr,
                    permutation(autos[t]).ptr, t == 0 ? 1 : 0, Ptr.NULL, tables.pc, n);
        }
        if (digits != null) {
            digits.memory().release();
        }
        return new Allocation[] {acc0, acc1};
    }

    private Allocation permutation(Automorphism g) {
        return permutations.computeIfAbsent(g.galoisElement(), e -> upload(g.permutation()));
    }

    /** With special primes, the baby steps stay over Q_level ∪ P (KeySwitcher.diagonalsRescaled). */
    @Override
    public boolean hoistsDiagonals() {
        return ring.pCount() > 0;
    }

    /** Over Q_level ∪ P in Montgomery form (in place: the encoder's fresh limbs), converted once on the host. */
    @Override
    public RnsPoly uploadDiagonal(long[][] limbs) {
        if (!hoistsDiagonals()) {
            return upload(limbs);
        }
        ring.toMontgomery(limbs, limbs.length - 1 - ring.pCount());
        return upload(limbs);
    }

    /**
     * Double-hoisted, as KeySwitcher.diagonalsRescaled: one ModUp of c1 for every baby step, each baby step made
     * once over Q_level ∪ P (not divided by P) and multiplied into the sum of every giant step that has a diagonal
     * for it; each rotated giant step's c1 divided by P, decomposed, switched and permuted into one accumulator with
     * its c0; one division of the accumulator by P·q_level.
     */
    @Override
    public RnsPoly[] diagonalsRescale(RnsPoly c0, RnsPoly c1, SwitchingKey[] babyKeys, Automorphism[] babyAutos,
            RnsPoly[][] diagonals, SwitchingKey[] giantKeys, Automorphism[] giantAutos, int level) {
        if (!hoistsDiagonals()) {
            return RingExecutor.super.diagonalsRescale(c0, c1, babyKeys, babyAutos, diagonals, giantKeys, giantAutos,
                    level);
        }
        if (level < 1) {
            throw new IllegalArgumentException("a rescale needs level >= 1, got " + level);
        }
        synchronized (lock) {
            begin();
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
                    device.launch("baby_identity", n, width, x0.ptr, x1.ptr, d(c0).memory().ptr, d(c1).memory().ptr,
                            tables.pModQ.ptr, tables.pModQShoup.ptr, level, ext, tables.pc, n);
                } else {
                    device.launch("baby_step", n, width, x0.ptr, x1.ptr, digits.memory().ptr, digits.digitCount(),
                            width, key(babyKeys[b]).ptr, tables.primeCount, ext, permutation(babyAutos[b]).ptr,
                            d(c0).memory().ptr, tables.pModQ.ptr, tables.pModQShoup.ptr, level, tables.pc, n);
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
                    device.launch("diagonal_accumulate", n, width, sums[g][0].ptr, sums[g][1].ptr, x0.ptr, x1.ptr,
                            d(diagonal).memory().ptr, first ? 1 : 0, ext, tables.pc, n);
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
    }

    /**
     * The giant steps of {@link #diagonalsRescale} summed over Q_level ∪ P: the unrotated sums added, each rotated
     * one's c1 divided by P and switched, permuted with its c0 into the accumulator (under the lock; takes the sums).
     */
    private Allocation[] giantSteps(Allocation[][] sums, SwitchingKey[] giantKeys, Automorphism[] giantAutos,
            int level) {
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
                    device.launch("poly_add_into", n, width, acc[v].ptr, sums[g][v].ptr, ext, tables.pc, n);
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
            device.launch("keyswitch_permuted_sum", n, width, acc[0].ptr, acc[1].ptr, digits.memory().ptr,
                    digits.digitCount(), width, key(giantKeys[g]).ptr, tables.primeCount, ext,
                    permutation(giantAutos[g]).ptr, first ? 1 : 0, sums[g][0].ptr, tables.pc, n);
            digits.memory().release();
            sums[g][0].release();
            sums[g][1].release();
        }
        if (acc == null) { // a matrix with no diagonal: zero
            acc = new Allocation[] {memory.allocate(width * limbBytes), memory.allocate(width * limbBytes)};
            device.zero(acc[0].ptr, acc[0].bytes);
            device.zero(acc[1].ptr, acc[1].bytes);
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
            device.launch("moddown_rescale_add_pd", n, 1, divided, limb(d, level), rt.pModQl().ptr, level,
                    tables.pc, n);
        }
        inverse(divided, k + 1, dividedPrimes);
        Allocation scaled = memory.allocate((k + 1) * limbBytes);
        device.launch("bconv_scale", n, k + 1, scaled.ptr, divided, rt.qHatInv().ptr, rt.qHatInvShoup().ptr,
                dividedPrimes, tables.pc, n);
        Allocation excess = memory.allocate((long) n * Integer.BYTES);
        device.launch("moddown_rescale_excess", n, 1, excess.ptr, scaled.ptr, k + 1, rt.sourceInverse().ptr, n);
        DevicePoly out = poly(level);
        device.launch("bconv_accumulate_excess", n, level, out.memory().ptr, scaled.ptr, k + 1, rt.qHat().ptr,
                rt.qHatShoup().ptr, tables.identity.ptr, excess.ptr, rt.minusExcess().ptr, rt.excessOffset(),
                tables.pc, n);
        forward(out.memory().ptr, level, tables.identity.ptr);
        device.launch("moddown_rescale_combine", n, level, out.memory().ptr, x.ptr, out.memory().ptr,
                d == null ? Ptr.NULL : d.memory().ptr, rt.pqInv().ptr, rt.pqInvShoup().ptr, rt.qlInv().ptr,
                rt.qlInvShoup().ptr, tables.identity.ptr, tables.pc, n);
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
        device.launch("bconv_scale", n, k, scaled.ptr, special, tables.pToQInverse.ptr,
                tables.pToQInverseShoup.ptr, pPrimes, tables.pc, n);
        DevicePoly out = poly(level + 1);
        device.launch("bconv_accumulate", n, level + 1, out.memory().ptr, scaled.ptr, k,
                tables.pToQ.ptr, tables.pToQShoup.ptr, tables.identity.ptr, tables.pc, n);
        forward(out.memory().ptr, level + 1, tables.identity.ptr);
        device.launch("poly_sub_mul_scalar", n, level + 1, out.memory().ptr, x.ptr, out.memory().ptr,
                tables.pInverse.ptr, tables.pInverseShoup.ptr, tables.identity.ptr, tables.pc,
                n);
        scaled.release();
        return out;
    }

    /** As KeySwitcher.switchAtLevelZero: d raised to p_0, the inner product on q_0 and p_0, then ÷ p_0. */
    @Override
    public RnsPoly[] switchAtLevelZero(RnsPoly d, SwitchingKey key) {
        synchronized (lock) {
            begin();
            int p0 = ring.pIndex(0);
            Allocation k = key(key);
            Allocation pair = memory.allocate(2 * limbBytes); // {d mod q_0, d raised to p_0}, NTT
            Allocation tmp = memory.allocate(limbBytes);
            copy(pair.ptr, d(d).memory().ptr, 1);
            copy(tmp.ptr, d(d).memory().ptr, 1);
            inverse(tmp.ptr, 1, tables.prime(0));
            device.launch("centred_lift", n, 1, limb(pair, 1), tmp.ptr, 0, tables.prime(p0),
                    tables.pc, n);
            forward(limb(pair, 1), 1, tables.prime(p0));
            Allocation acc0 = memory.allocate(2 * limbBytes);
            Allocation acc1 = memory.allocate(2 * limbBytes);
            device.launch("keyswitch_inner_product", n, 2, acc0.ptr, acc1.ptr, pair.ptr, 1, 2,
                    k.ptr, tables.primeCount, tables.levelZeroPair.ptr, tables.pc, n);
            RnsPoly[] out = new RnsPoly[2];
            Allocation[] accs = {acc0, acc1};
            for (int part = 0; part < 2; part++) {
                Ptr onP = limb(accs[part], 1);
                inverse(onP, 1, tables.prime(p0));
                device.launch("centred_lift", n, 1, tmp.ptr, onP, p0, tables.prime(0),
                        tables.pc, n);
                forward(tmp.ptr, 1, tables.prime(0));
                DevicePoly r = poly(1);
                device.launch("poly_sub_mul_scalar", n, 1, r.memory().ptr, accs[part].ptr, tmp.ptr,
                        tables.p0Inverse.ptr, tables.p0Inverse.ptr.plus(Long.BYTES),
                        tables.prime(0), tables.pc, n);
                out[part] = r;
            }
            pair.release();
            tmp.release();
            acc0.release();
            acc1.release();
            return out;
        }
    }

    /** As ModRaise: limb 0 to coefficients, centred, read modulo q_0..q_top, back to NTT form. */
    @Override
    public RnsPoly modRaise(RnsPoly levelZero, int top) {
        synchronized (lock) {
            begin();
            Allocation tmp = memory.allocate(limbBytes);
            copy(tmp.ptr, d(levelZero).memory().ptr, 1);
            inverse(tmp.ptr, 1, tables.prime(0));
            DevicePoly out = poly(top + 1);
            device.launch("centred_lift", n, top + 1, out.memory().ptr, tmp.ptr, 0,
                    tables.identity.ptr, tables.pc, n);
            forward(out.memory().ptr, top + 1, tables.identity.ptr);
            tmp.release();
            return out;
        }
    }

    /**
     * The key's limbs on the device, uploaded on first use, as the inner-product kernel reads them:
     * [digit][b, a][prime][coefficient] over every prime (limbs a level-0 key lacks are zero and never read).
     */
    private Allocation key(SwitchingKey key) {
        Allocation a = keys.get(key);
        if (a != null) {
            return a;
        }
        long[][][][] digits = key.digits();
        int primes = tables.primeCount;
        a = memory.allocate((long) digits.length * 2 * primes * limbBytes);
        device.zero(a.ptr, a.bytes);
        for (int j = 0; j < digits.length; j++) {
            for (int part = 0; part < 2; part++) {
                for (int p = 0; p < primes; p++) {
                    long[] l = digits[j][part][p];
                    if (l != null) {
                        device.upload(limb(a, (j * 2 + part) * primes + p), l);
                    }
                }
            }
        }
        keys.put(key, a);
        return a;
    }

    @Override
    public Runnable nttOfOneLimb() {
        long[] limb = new long[n];
        for (int i = 0; i < n; i++) {
            limb[i] = (i * 0x9E3779B97F4A7C15L >>> 8) % ring.modulus(0).value();
        }
        DevicePoly p = d(upload(new long[][] {limb}));
        return () -> {
            synchronized (lock) {
                begin();
                forward(p.memory().ptr, 1, tables.prime(0));
                device.synchronize();
            }
        };
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            keys.clear();
            permutations.clear();
            memory.close();
            device.close();
        }
    }
}

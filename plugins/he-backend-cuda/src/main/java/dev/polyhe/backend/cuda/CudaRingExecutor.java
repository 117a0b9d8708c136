package dev.polyhe.backend.cuda;

import dev.polyhe.backend.cuda.DeviceApi.Ptr;
import dev.polyhe.backend.cuda.DeviceMemory.Allocation;
import dev.polyhe.backend.cuda.Lanes.Lane;
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
 * The ring arithmetic in GPU memory: polynomials are device buffers (limb-major, limb k at k·N words), evaluation keys
 * are uploaded once (on first use, kept while the key object lives), and every operation is a few kernel launches of
 * ring_kernels.cu queued on a stream. The host waits only where it reads (a download waits for its stream, which first
 * waits for the buffer's writer) or where a caller asks ({@link #synchronize()}, for timings): an operation returns as
 * soon as its launches are queued, so a device error surfaces at the next read. Per-limb scalars travel as kernel
 * parameters, so no operation uploads; temporaries come from the pool, so none allocates from the driver once the pool
 * is warm (budgets in LaunchBudgetTest). An operation holds one stream from start to end ({@link Lanes}: several, so
 * that independent ciphertexts are in flight at once; events order a buffer's use on one stream after its write on
 * another); locks guard only the shared state (the pool, the lazily uploaded tables and keys). The steps mirror the
 * Java ring classes (KeySwitcher, RnsRescaler, ModRaise) so that the limbs agree exactly with {@code ckks-cpu}'s.
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
    private final Lanes lanes;
    /** ModUp, ModDown and the fused key-switching forms, on the calling thread's lane. */
    private final DeviceKeySwitcher switcher;
    /** The NTT and its inverse, in phases of shared-memory launches. */
    final DeviceNtt ntt;
    /** Plaintexts encoded on the device, on the calling thread's lane. */
    private final DeviceEncoder encoder;

    private volatile boolean closed;

    CudaRingExecutor(DeviceApi device, SchemeParameters params) {
        this(device, params, Lanes.configured());
    }

    CudaRingExecutor(DeviceApi device, SchemeParameters params, int streams) {
        this.device = device;
        device.bind();
        this.lanes = new Lanes(device, streams);
        this.memory = new DeviceMemory(device, lanes);
        this.ring = params.ring();
        this.gadget = params.gadget();
        this.n = ring.n();
        this.limbBytes = (long) n * Long.BYTES;
        Lane lane = lanes.enter();
        try {
            this.tables = new DeviceTables(this, ring, gadget);
            lanes.publish();
        } finally {
            lanes.exit(lane);
        }
        this.ntt = new DeviceNtt(this, tables, ring.logN());
        this.switcher = new DeviceKeySwitcher(this, device, memory, tables, params);
        this.encoder = new DeviceEncoder(this, memory, tables, n);
    }

    /** Opens GPU 0 for these parameters: kernels loaded, NTT tables uploaded. */
    static CudaRingExecutor open(SchemeParameters params) {
        return open(CudaDevice.open(), params);
    }

    /** On {@code device} (closed with the executor, or now if the tables cannot be uploaded). */
    static CudaRingExecutor open(DeviceApi device, SchemeParameters params) {
        return open(device, params, Lanes.configured());
    }

    /** With {@code streams} streams (1: every operation on the legacy default stream, one at a time). */
    static CudaRingExecutor open(DeviceApi device, SchemeParameters params, int streams) {
        try {
            return new CudaRingExecutor(device, params, streams);
        } catch (RuntimeException | Error e) {
            device.close();
            throw e;
        }
    }

    /** A polynomial in device memory: limbs 0..limbs-1 from the allocation's start (prefixes share it). */
    record DevicePoly(CudaRingExecutor owner, Allocation memory, int limbs) implements RnsPoly {
        @Override
        public int limbCount() {
            return limbs;
        }
    }

    /** digitCount × width limbs: digit j's raised limbs at j·width·N words. */
    record DeviceDigits(Allocation memory, int level, int digitCount, int width) implements KeySwitchDigits {}

    /** The device handle of an operand; in an operation, a read: its stream waits for the lane that wrote it. */
    DevicePoly d(RnsPoly p) {
        if (p instanceof DevicePoly dp && dp.owner() == this) {
            if (lanes.held()) {
                lanes.read(dp.memory());
            }
            return dp;
        }
        throw new ForeignPolynomialException(p);
    }

    // ---- memory --------------------------------------------------------------------------------------------

    Allocation allocate(long bytes) {
        return memory.allocate(bytes);
    }

    DevicePoly poly(int limbs) {
        return new DevicePoly(this, memory.allocate(limbs * limbBytes), limbs);
    }

    Ptr limb(Allocation a, int k) {
        return k == 0 ? a.ptr : a.ptr.plus(k * limbBytes);
    }

    Ptr limb(DevicePoly p, int k) {
        return limb(p.memory(), k);
    }

    Allocation upload(long[] words) {
        Allocation a = memory.allocate((long) words.length * Long.BYTES);
        upload(a.ptr, words);
        return a;
    }

    Allocation upload(int[] words) {
        Allocation a = memory.allocate((long) words.length * Integer.BYTES);
        upload(a.ptr, words);
        return a;
    }

    /** Tests: reads of another stream's buffers skip their event waits (the emulated device must catch it). */
    void skipReadWaitsForTests(boolean skip) {
        lanes.skipReadWaits = skip;
    }

    /** Tests: each operation on the next stream in turn, so that one thread's operations cross streams. */
    void hopStreamsForTests(boolean hop) {
        lanes.hop = hop;
    }

    // the device's calls on the calling thread's stream

    void upload(Ptr to, long[] words) {
        device.upload(lanes.stream(), to, words);
    }

    void upload(Ptr to, int[] words) {
        device.upload(lanes.stream(), to, words);
    }

    void zero(Ptr to, long bytes) {
        device.zero(lanes.stream(), to, bytes);
    }

    void launch(String kernel, long count, int limbs, Object... args) {
        device.launch(lanes.stream(), kernel, count, limbs, args);
    }

    void launchBlocks(String kernel, int blocks, int limbs, int threads, int sharedBytes, Object... args) {
        device.launchBlocks(lanes.stream(), kernel, blocks, limbs, threads, sharedBytes, args);
    }

    void copy(Ptr to, Ptr from, int limbs) {
        device.copy(lanes.stream(), to, from, limbs * limbBytes);
    }

    /** Before a read of a buffer that is no polynomial (hoisted digits): waits for the stream that wrote it. */
    void read(Allocation a) {
        lanes.read(a);
    }

    /** Marks a table uploaded now: every other stream waits for it once, before its next look-up of a table. */
    void publish() {
        lanes.publish();
    }

    /** After a table's look-up: this stream waits for uploads other streams made (once each). */
    void catchUp() {
        lanes.catchUp();
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
            launch(
                    kernel,
                    n,
                    limbs,
                    limb(out, from),
                    limb(d(a), from),
                    scalars(w, from, level, shoup),
                    tables.prime(from),
                    tables.pc,
                    n);
        }
        return out;
    }

    // ---- transforms ----------------------------------------------------------------------------------------

    /**
     * Binds the context to this thread (first: taking a lane may already record and wait for events), takes a lane,
     * refuses a closed executor.
     */
    private Lane begin() {
        if (closed) {
            throw new IllegalStateException("this ckks-cuda context is closed");
        }
        device.bind();
        Lane lane = lanes.enter();
        if (closed) {
            lanes.exit(lane);
            throw new IllegalStateException("this ckks-cuda context is closed");
        }
        return lane;
    }

    /** Operations at once: one per stream (the engine forks up to this many). */
    @Override
    public int concurrency() {
        return lanes.count();
    }

    // ---- RingExecutor --------------------------------------------------------------------------------------

    @Override
    public long deviceMemoryBytes() {
        return device.totalMemory();
    }

    @Override
    public String describe() {
        return device.name() + " (compute " + device.computeCapability() + ", driver " + device.driverVersion() + ", "
                + (device.totalMemory() >> 20) + " MiB)";
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
        Lane lane = begin();
        try {
            DevicePoly p = poly(limbs.length);
            upload(p.memory().ptr, flat);
            return p;
        } finally {
            lanes.exit(lane);
        }
    }

    /** See {@link DeviceEncoder#fromCoefficients}. */
    @Override
    public RnsPoly fromCoefficients(long[] coefficients, int level) {
        Lane lane = begin();
        try {
            return encoder.fromCoefficients(coefficients, level);
        } finally {
            lanes.exit(lane);
        }
    }

    /** See {@link DeviceEncoder#fromSlots}. */
    @Override
    public RnsPoly fromSlots(double[] re, double[] im, int slots, int level, double scale) {
        Lane lane = begin();
        try {
            return encoder.fromSlots(re, im, slots, level, scale);
        } finally {
            lanes.exit(lane);
        }
    }

    /** Waits for the device to finish what is queued (timings); reads wait by themselves. */
    @Override
    public void synchronize() {
        Lane lane = begin();
        try {
            device.synchronize();
        } finally {
            lanes.exit(lane);
        }
    }

    /** What the device has been asked to do so far (launches, synchronizations, uploads, allocations). */
    DeviceCounts.Snapshot counts() {
        return device.counts().snapshot();
    }

    /**
     * One copy on this thread's stream, after it waits for the stream that wrote p: the host waits for those two
     * streams' work only.
     */
    @Override
    public long[][] download(RnsPoly p, int limbs) {
        long[] flat = new long[limbs * n];
        Lane lane = begin();
        try {
            device.download(lane.stream, flat, d(p).memory().ptr);
        } finally {
            lanes.exit(lane);
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
        Lane lane = begin();
        try {
            DevicePoly out = poly(level + 1);
            launch(
                    kernel,
                    n,
                    level + 1,
                    out.memory().ptr,
                    d(a).memory().ptr,
                    d(b).memory().ptr,
                    tables.identity.ptr,
                    tables.pc,
                    n);
            return out;
        } finally {
            lanes.exit(lane);
        }
    }

    @Override
    public RnsPoly add(RnsPoly a, RnsPoly b, int level) {
        return binary("poly_add", a, b, level);
    }

    @Override
    public RnsPoly addInto(RnsPoly fresh, RnsPoly b, int level) {
        Lane lane = begin();
        try {
            Allocation in = d(fresh).memory();
            lanes.write(in); // in place: later readers wait for this stream
            launch("poly_add_into", n, level + 1, in.ptr, d(b).memory().ptr, tables.identity.ptr, tables.pc, n);
            return prefix(fresh, level);
        } finally {
            lanes.exit(lane);
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
        Lane lane = begin();
        try {
            DevicePoly out = poly(level + 1);
            launch("poly_neg", n, level + 1, out.memory().ptr, d(a).memory().ptr, tables.identity.ptr, tables.pc, n);
            return out;
        } finally {
            lanes.exit(lane);
        }
    }

    @Override
    public RnsPoly multiplyScalars(RnsPoly a, long[] scalars, int level) {
        Lane lane = begin();
        try {
            return scalarKernel("poly_mul_scalar_v", a, scalars, level, true);
        } finally {
            lanes.exit(lane);
        }
    }

    @Override
    public RnsPoly addScalars(RnsPoly a, long[] scalars, int level) {
        Lane lane = begin();
        try {
            return scalarKernel("poly_add_scalar_v", a, scalars, level, false);
        } finally {
            lanes.exit(lane);
        }
    }

    @Override
    public RnsPoly[] tensor(RnsPoly x0, RnsPoly x1, RnsPoly y0, RnsPoly y1, int level) {
        Lane lane = begin();
        try {
            DevicePoly d0 = poly(level + 1);
            DevicePoly d1 = poly(level + 1);
            DevicePoly d2 = poly(level + 1);
            launch(
                    "poly_tensor",
                    n,
                    level + 1,
                    d0.memory().ptr,
                    d1.memory().ptr,
                    d2.memory().ptr,
                    d(x0).memory().ptr,
                    d(x1).memory().ptr,
                    d(y0).memory().ptr,
                    d(y1).memory().ptr,
                    tables.identity.ptr,
                    tables.pc,
                    n);
            return new RnsPoly[] {d0, d1, d2};
        } finally {
            lanes.exit(lane);
        }
    }

    @Override
    public RnsPoly automorphism(RnsPoly a, Automorphism g, int level) {
        Lane lane = begin();
        try {
            Allocation perm = permutation(g);
            DevicePoly out = poly(level + 1);
            launch("automorphism_ntt", n, level + 1, out.memory().ptr, d(a).memory().ptr, perm.ptr, n);
            return out;
        } finally {
            lanes.exit(lane);
        }
    }

    /** As RnsRescaler: t = [x_l + h]_{q_l} − h on limbs 0..l−1, then (x − t)·q_l^-1. */
    @Override
    public RnsPoly[] rescale(RnsPoly[] polys, int level) {
        if (level < 1) {
            throw new IllegalArgumentException("rescale needs level >= 1, got " + level);
        }
        Lane lane = begin();
        try {
            RnsPoly[] out = new RnsPoly[polys.length];
            Allocation last = memory.allocate(limbBytes);
            Ptr inv = tables.rescaleInverse.ptr.plus((long) level * ring.qCount() * Long.BYTES);
            Ptr invShoup = tables.rescaleInverseShoup.ptr.plus((long) level * ring.qCount() * Long.BYTES);
            for (int k = 0; k < polys.length; k++) {
                DevicePoly x = d(polys[k]);
                copy(last.ptr, limb(x, level), 1);
                ntt.inverse(last.ptr, 1, tables.prime(level));
                DevicePoly t = poly(level);
                launch("rescale_lift", n, level, t.memory().ptr, last.ptr, level, tables.identity.ptr, tables.pc, n);
                ntt.forward(t.memory().ptr, level, tables.identity.ptr);
                launch(
                        "poly_sub_mul_scalar",
                        n,
                        level,
                        t.memory().ptr,
                        x.memory().ptr,
                        t.memory().ptr,
                        inv,
                        invShoup,
                        tables.identity.ptr,
                        tables.pc,
                        n);
                out[k] = t;
            }
            last.release();
            return out;
        } finally {
            lanes.exit(lane);
        }
    }

    /**
     * ModUp as KeySwitcher.decompose, every digit at once: d to coefficients, y_i = [d_i·(Q_j/q_i)^-1]_{q_i} centred,
     * one modup_convert launch over every (digit, position) of Q_level ∪ P (the digit's own limbs taken from d's
     * coefficients, the others by basis conversion), one forward NTT over all of them: a copy and five launches.
     */
    @Override
    public KeySwitchDigits decompose(RnsPoly d, int level) {
        Lane lane = begin();
        try {
            return switcher.decompose(d, level);
        } finally {
            lanes.exit(lane);
        }
    }

    @Override
    public RnsPoly[] applyKey(KeySwitchDigits digits, SwitchingKey key, int level) {
        Lane lane = begin();
        try {
            return switcher.applyKey(digits, key, level);
        } finally {
            lanes.exit(lane);
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
        Lane lane = begin();
        try {
            DevicePoly o0 = poly(level + 1);
            DevicePoly o1 = poly(level + 1);
            launch(
                    "poly_mul_pair",
                    n,
                    level + 1,
                    o0.memory().ptr,
                    o1.memory().ptr,
                    d(a0).memory().ptr,
                    d(a1).memory().ptr,
                    d(b).memory().ptr,
                    s0 == null ? Ptr.NULL : d(s0).memory().ptr,
                    s1 == null ? Ptr.NULL : d(s1).memory().ptr,
                    tables.identity.ptr,
                    tables.pc,
                    n);
            return new RnsPoly[] {o0, o1};
        } finally {
            lanes.exit(lane);
        }
    }

    /** One division by P·q_level for the ModDown and the rescale, as HostRingExecutor (KeySwitcher.applyRescaled). */
    @Override
    public RnsPoly[] relinearizeRescale(RnsPoly[] d, SwitchingKey key, int level) {
        if (ring.pCount() == 0 || level < 1) {
            return RingExecutor.super.relinearizeRescale(d, key, level);
        }
        Lane lane = begin();
        try {
            return switcher.relinearizeRescale(d, key, level);
        } finally {
            lanes.exit(lane);
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
        Lane lane = begin();
        try {
            return switcher.keySwitchSum(ds, keys, autos, level);
        } finally {
            lanes.exit(lane);
        }
    }

    /** The sum above plus (d0, d1), divided by P·q_level once (KeySwitcher.switchSumRescaled); d1 null: zero. */
    @Override
    public RnsPoly[] keySwitchSumRescale(
            RnsPoly[] ds, SwitchingKey[] keys, Automorphism[] autos, RnsPoly d0, RnsPoly d1, int level) {
        if (ring.pCount() == 0 || level < 1) {
            return RingExecutor.super.keySwitchSumRescale(ds, keys, autos, d0, d1, level);
        }
        Lane lane = begin();
        try {
            return switcher.keySwitchSumRescale(ds, keys, autos, d0, d1, level);
        } finally {
            lanes.exit(lane);
        }
    }

    /** Uploaded on first use by whichever stream needs it, and published to the others. */
    Allocation permutation(Automorphism g) {
        Allocation a = permutations.computeIfAbsent(g.galoisElement(), e -> {
            Allocation up = upload(g.permutation());
            lanes.publish();
            return up;
        });
        lanes.catchUp();
        return a;
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
    public RnsPoly[] diagonalsRescale(
            RnsPoly c0,
            RnsPoly c1,
            SwitchingKey[] babyKeys,
            Automorphism[] babyAutos,
            RnsPoly[][] diagonals,
            SwitchingKey[] giantKeys,
            Automorphism[] giantAutos,
            int level) {
        if (!hoistsDiagonals()) {
            return RingExecutor.super.diagonalsRescale(
                    c0, c1, babyKeys, babyAutos, diagonals, giantKeys, giantAutos, level);
        }
        if (level < 1) {
            throw new IllegalArgumentException("a rescale needs level >= 1, got " + level);
        }
        Lane lane = begin();
        try {
            return switcher.diagonalsRescale(c0, c1, babyKeys, babyAutos, diagonals, giantKeys, giantAutos, level);
        } finally {
            lanes.exit(lane);
        }
    }

    /** As KeySwitcher.switchAtLevelZero: d raised to p_0, the inner product on q_0 and p_0, then ÷ p_0. */
    @Override
    public RnsPoly[] switchAtLevelZero(RnsPoly d, SwitchingKey key) {
        Lane lane = begin();
        try {
            return switcher.switchAtLevelZero(d, key);
        } finally {
            lanes.exit(lane);
        }
    }

    /** As ModRaise: limb 0 to coefficients, centred, read modulo q_0..q_top, back to NTT form. */
    @Override
    public RnsPoly modRaise(RnsPoly levelZero, int top) {
        Lane lane = begin();
        try {
            Allocation tmp = memory.allocate(limbBytes);
            copy(tmp.ptr, d(levelZero).memory().ptr, 1);
            ntt.inverse(tmp.ptr, 1, tables.prime(0));
            DevicePoly out = poly(top + 1);
            launch("centred_lift", n, top + 1, out.memory().ptr, tmp.ptr, 0, tables.identity.ptr, tables.pc, n);
            ntt.forward(out.memory().ptr, top + 1, tables.identity.ptr);
            tmp.release();
            return out;
        } finally {
            lanes.exit(lane);
        }
    }

    /**
     * The key's limbs on the device, uploaded on first use, as the inner-product kernel reads them:
     * [digit][b, a][prime][coefficient] over every prime (limbs a level-0 key lacks are zero and never read).
     */
    Allocation key(SwitchingKey key) {
        synchronized (keys) {
            Allocation a = keys.get(key);
            if (a == null) {
                a = uploadKey(key);
                keys.put(key, a);
            }
            lanes.read(a); // the upload, if another stream made it; and this use, before the key returns to the pool
            return a;
        }
    }

    /** Marked written as soon as queued: another stream may look the key up before this operation ends. */
    private Allocation uploadKey(SwitchingKey key) {
        Allocation a;
        long[][][][] digits = key.digits();
        int primes = tables.primeCount;
        a = memory.allocate((long) digits.length * 2 * primes * limbBytes);
        zero(a.ptr, a.bytes);
        for (int j = 0; j < digits.length; j++) {
            for (int part = 0; part < 2; part++) {
                for (int p = 0; p < primes; p++) {
                    long[] l = digits[j][part][p];
                    if (l != null) {
                        upload(limb(a, (j * 2 + part) * primes + p), l);
                    }
                }
            }
        }
        lanes.wrote(a);
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
            Lane lane = begin();
            try {
                ntt.forward(p.memory().ptr, 1, tables.prime(0));
                device.synchronize();
            } finally {
                lanes.exit(lane);
            }
        };
    }

    @Override
    public void close() {
        synchronized (lanes) {
            if (closed) {
                return;
            }
            device.bind();
            closed = true;
            keys.clear();
            permutations.clear();
            memory.close();
            device.close();
        }
    }
}

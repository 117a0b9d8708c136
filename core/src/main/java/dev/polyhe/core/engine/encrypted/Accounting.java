package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.arith.OperatorScope;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Per-operator accounting of an engine: every primitive is attributed to the innermost operator scope (by
 * path, e.g. {@code layers.0/attention}), to an {@link OperatorKind} and to a {@link PrimitiveKind}. Times
 * are wall-clock nanoseconds. Single-threaded, like the engine: what a {@link ForkedTasks} task records is kept in its
 * log and recorded here at the join.
 */
public final class Accounting {
    private final Map<String, OperatorStats> operators = new LinkedHashMap<>();
    private final Map<OperatorKind, Long> kindNanos = new EnumMap<>(OperatorKind.class);
    private final Map<PrimitiveKind, Long> primitiveNanos = new EnumMap<>(PrimitiveKind.class);
    private final Map<PrimitiveKind, Long> primitiveCounts = new EnumMap<>(PrimitiveKind.class);
    private final Deque<Frame> stack = new ArrayDeque<>();
    /** For a progress display on another thread: the innermost operator now, and the bootstraps so far. */
    private volatile String current = "(top level)";

    private final java.util.concurrent.atomic.AtomicLong bootstraps = new java.util.concurrent.atomic.AtomicLong();
    private long weightHits;
    private long weightMisses;
    private WeightCache weightCache;
    private WorkSpan workSpan;
    private double encodeSecondsPerLimb;
    /** Asked at every operator scope: true stops the evaluation there ({@link #stopWhen}). */
    private volatile BooleanSupplier stop = () -> false;

    private static final class Frame {
        final String path;
        final OperatorKind kind;
        final long start = System.nanoTime();
        int entryLevel = Integer.MAX_VALUE;
        int minLevel = Integer.MAX_VALUE;

        Frame(String path, OperatorKind kind) {
            this.path = path;
            this.kind = kind;
        }
    }

    OperatorScope open(String name) {
        if (ForkedTasks.inTask()) {
            throw new IllegalStateException(
                    "operator scope " + name + " opened in a forked task; scopes belong to " + "the engine's thread");
        }
        Frame parent = stack.peek();
        String path = parent == null ? name : parent.path + "/" + name;
        if (stop.getAsBoolean()) {
            throw new CancellationException("the evaluation was stopped before " + path);
        }
        OperatorKind kind = OperatorKind.ofScope(name);
        if (kind == null && parent != null) {
            kind = parent.kind;
        }
        Frame f = new Frame(path, kind);
        stack.push(f);
        current = path;
        return () -> close(f);
    }

    private void close(Frame f) {
        if (stack.peek() != f) {
            throw new IllegalStateException("operator scopes closed out of order: " + f.path);
        }
        stack.pop();
        current = currentPath();
        OperatorStats s = stats(f.path);
        s.nanos += System.nanoTime() - f.start;
        s.calls++;
        if (f.entryLevel != Integer.MAX_VALUE) {
            s.levelsUsed = Math.max(s.levelsUsed, f.entryLevel - f.minLevel);
            s.entryLevel = s.entryLevel < 0 ? f.entryLevel : s.entryLevel;
            s.lowestLevel = s.lowestLevel < 0 ? f.minLevel : Math.min(s.lowestLevel, f.minLevel);
        }
        Frame parent = stack.peek();
        if (parent != null) {
            parent.entryLevel = parent.entryLevel == Integer.MAX_VALUE ? f.entryLevel : parent.entryLevel;
            parent.minLevel = Math.min(parent.minLevel, f.minLevel);
        }
    }

    /**
     * Stops the evaluation at the next operator scope once {@code stop} says so: opening it throws a
     * {@link CancellationException}. A served job's cancel takes effect within one operator (a fraction of a second to
     * a few seconds at 128 bits) instead of at the end of a layer (minutes). {@code stop} is asked on the engine's
     * thread, so it may read that thread's interrupt status.
     */
    public void stopWhen(BooleanSupplier stop) {
        this.stop = Objects.requireNonNull(stop, "stop");
    }

    /**
     * Notes the work and span of the engine's evaluator calls ({@link EncryptedEngine#workSpan}) and the ring degree
     * its estimates are for.
     */
    void workSpan(WorkSpan ws, int ringDegree) {
        this.workSpan = ws;
        this.encodeSecondsPerLimb = CostModel.encodePerLimb(ringDegree);
    }

    /** Adds an evaluator call's estimated seconds ({@link CostModel}) to the operator now open. */
    void estimated(double seconds) {
        ForkedTasks.effect(share -> stats(currentPath()).estimatedSeconds += seconds);
    }

    /** The seconds {@link CostModel} estimates for everything accounted so far (every operator's, added). */
    public double estimatedSeconds() {
        return operators.values().stream()
                .mapToDouble(OperatorStats::estimatedSeconds)
                .sum();
    }

    /** The work and span of the engine's evaluator calls so far; null for an accounting of no engine. */
    public WorkSpan workSpan() {
        return workSpan;
    }

    /** The innermost operator scope being evaluated; safe to read from any thread (for progress displays). */
    public String currentOperator() {
        return current;
    }

    /** Bootstraps so far; safe to read from any thread. */
    public long bootstrapsSoFar() {
        return bootstraps.get();
    }

    private OperatorStats stats(String path) {
        return operators.computeIfAbsent(path, p -> new OperatorStats());
    }

    String currentPath() {
        Frame f = stack.peek();
        return f == null ? "(top level)" : f.path;
    }

    /** Notes the levels of operands entering and results leaving a primitive. */
    void levels(int in, int out) {
        ForkedTasks.effect(share -> levelsNow(in, out));
    }

    private void levelsNow(int in, int out) {
        Frame f = stack.peek();
        if (f != null) {
            if (f.entryLevel == Integer.MAX_VALUE) {
                f.entryLevel = in;
            }
            f.minLevel = Math.min(f.minLevel, Math.min(in, out));
        }
    }

    /** Records one primitive call of {@code nanos}, done for an operator of natural kind {@code opKind}. */
    void record(OperatorKind opKind, PrimitiveKind primitive, long nanos) {
        ForkedTasks.timedEffect(nanos, share -> recordNow(opKind, primitive, Math.round(nanos * share)));
    }

    private void recordNow(OperatorKind opKind, PrimitiveKind primitive, long nanos) {
        Frame f = stack.peek();
        OperatorKind kind = primitive == PrimitiveKind.BOOTSTRAP
                ? OperatorKind.BOOTSTRAPPING
                : f != null && f.kind != null ? f.kind : opKind;
        kindNanos.merge(kind, nanos, Long::sum);
        primitiveNanos.merge(primitive, nanos, Long::sum);
        primitiveCounts.merge(primitive, 1L, Long::sum);
        if (f == null) {
            stats(currentPath()).nanos += nanos;
        }
        OperatorStats s = stats(currentPath());
        switch (primitive) {
            case BOOTSTRAP -> {
                s.bootstraps++;
                bootstraps.incrementAndGet();
            }
            case ROTATION -> {
                s.rotations++;
                s.keySwitches++;
            }
            case RESCALE -> s.rescales++;
            default -> {}
        }
    }

    /** Ciphertext products summed before one relinearization: each counted, but not as a key switch of its own. */
    void relinearizationsSaved(int products) {
        ForkedTasks.effect(share -> stats(currentPath()).keySwitches -= products);
    }

    /** A plaintext encoded at {@code level} (level + 1 limbs). */
    void encoded(int level) {
        ForkedTasks.effect(share -> {
            OperatorStats s = stats(currentPath());
            s.encodes++;
            s.encodedLimbs += level + 1;
            s.estimatedSeconds += (level + 1) * encodeSecondsPerLimb;
        });
    }

    /** Ciphertexts of {@code slots} slots each refreshed by one refresh (one bootstrap call, or two for precision). */
    void bootstrapped(int ciphertexts, int slots) {
        ForkedTasks.effect(share -> {
            OperatorStats s = stats(currentPath());
            s.bootstrappedCiphertexts += ciphertexts;
            s.bootstrappedSlots += (long) ciphertexts * slots;
        });
    }

    void countMultiplication(MultiplicationKind kind) {
        ForkedTasks.effect(share -> countMultiplicationNow(kind));
    }

    private void countMultiplicationNow(MultiplicationKind kind) {
        OperatorStats s = stats(currentPath());
        switch (kind) {
            case CIPHERTEXT -> {
                s.ciphertextMultiplications++;
                s.keySwitches++;
            }
            case PLAINTEXT -> s.plaintextMultiplications++;
            case CONSTANT -> s.constantMultiplications++;
        }
    }

    enum MultiplicationKind {
        CIPHERTEXT,
        PLAINTEXT,
        CONSTANT
    }

    /**
     * Where the engine bootstrapped twice for precision: how many ciphertexts, the most bits asked for and what one
     * bootstrap keeps.
     */
    public record PrecisionRaise(long ciphertexts, double askedBits, double singleBits) {}

    private final Map<String, PrecisionRaise> precisionRaises = new LinkedHashMap<>();

    /** Notes one ciphertext bootstrapped twice because {@code asked} bits were asked and one keeps {@code single}. */
    void preciseBootstrap(double asked, double single) {
        precisionRaises.merge(
                currentPath(),
                new PrecisionRaise(1, asked, single),
                (a, b) -> new PrecisionRaise(a.ciphertexts() + 1, Math.max(a.askedBits(), b.askedBits()), single));
    }

    /** Per operator path, where the precision was raised (none when one bootstrap's precision sufficed). */
    public Map<String, PrecisionRaise> precisionRaises() {
        return java.util.Collections.unmodifiableMap(precisionRaises);
    }

    /**
     * One bootstrap the engine placed, and why: in {@code operator}, a ciphertext at {@code level} needed
     * {@code levelsNeeded}; {@code paired}: a second ciphertext shared it; {@code precise}: it ran twice for
     * precision.
     */
    public record Placement(
            String operator, int level, int levelsNeeded, boolean paired, boolean precise, boolean planned) {
        /** The reason in words, for a plan's explanation. */
        public String reason() {
            return (planned
                            ? "planned refresh of a linear map's input, at level " + level
                            : "needs " + levelsNeeded + " level" + (levelsNeeded == 1 ? "" : "s") + ", at level "
                                    + level)
                    + (paired ? "; paired with another ciphertext" : "")
                    + (precise ? "; twice, for precision" : "");
        }
    }

    private final java.util.List<Placement> placements = new java.util.ArrayList<>();
    private final java.util.Set<String> refreshSites = new java.util.LinkedHashSet<>();

    void placed(int level, int levelsNeeded, boolean paired, boolean precise, boolean planned) {
        placements.add(new Placement(currentPath(), level, levelsNeeded, paired, precise, planned));
    }

    void refreshSite(String site) {
        refreshSites.add(site);
    }

    /**
     * A linear map as it ran: its {@link RefreshPlan#exactSite}, the level it ran at, and the bootstrap calls made
     * before it ran (its operands' own refreshes included).
     */
    public record LinearMap(String site, int level, long bootstrapsBefore) {}

    private final java.util.List<LinearMap> linearMaps = new java.util.ArrayList<>();
    private java.util.List<Output> outputs = java.util.List.of();

    void linearMap(String exactSite, int level) {
        linearMaps.add(new LinearMap(exactSite, level, bootstraps.get()));
    }

    /** Every linear map, in the order they ran. */
    public java.util.List<LinearMap> linearMaps() {
        return java.util.Collections.unmodifiableList(linearMaps);
    }

    /**
     * A tensor the run sends to the client: its lowest level, and the lowest its decryption allows
     * ({@link EncryptedEngine#decryptionFloor}).
     */
    public record Output(int level, int floor) {
        /** Levels kept beyond what decrypting needs. */
        public int spare() {
            return Math.max(0, level - floor);
        }
    }

    /** Notes what the run sends to the client, the main result last; only the run's caller knows which they are. */
    public void outputs(java.util.List<Output> sent) {
        this.outputs = java.util.List.copyOf(sent);
    }

    /** What {@link #outputs(java.util.List)} noted; empty when nothing was. */
    public java.util.List<Output> outputs() {
        return outputs;
    }

    /**
     * The sites ({@link RefreshPlan#site}) where a planned refresh could have run: linear maps whose input had a
     * ciphertext below the top level, in the order first met.
     */
    public java.util.Set<String> refreshSites() {
        return java.util.Collections.unmodifiableSet(refreshSites);
    }

    /** Every bootstrap placement, in the order they were made. */
    public java.util.List<Placement> placements() {
        return java.util.Collections.unmodifiableList(placements);
    }

    /** Per operator path, in first-seen order. */
    public Map<String, OperatorStats> operators() {
        return java.util.Collections.unmodifiableMap(operators);
    }

    public Map<OperatorKind, Long> nanosByOperatorKind() {
        return java.util.Collections.unmodifiableMap(kindNanos);
    }

    public Map<PrimitiveKind, Long> nanosByPrimitive() {
        return java.util.Collections.unmodifiableMap(primitiveNanos);
    }

    public Map<PrimitiveKind, Long> countsByPrimitive() {
        return java.util.Collections.unmodifiableMap(primitiveCounts);
    }

    void countWeightLookup(WeightCache cache, boolean hit) {
        ForkedTasks.effect(share -> countWeightLookupNow(cache, hit));
    }

    private void countWeightLookupNow(WeightCache cache, boolean hit) {
        weightCache = cache;
        if (hit) {
            weightHits++;
        } else {
            weightMisses++;
        }
    }

    /**
     * This run's weight products that found their weights encoded by an earlier run ({@code hits}) and those that
     * encoded them ({@code misses}), with what the key set's cache holds now; null where the run had no cache.
     */
    public WeightCache.Stats weightCache() {
        if (weightCache == null) {
            return null;
        }
        WeightCache.Stats now = weightCache.stats();
        return new WeightCache.Stats(weightHits, weightMisses, now.entries(), now.bytes(), now.budgetBytes());
    }

    /** work, its time recorded against {@code op} as a {@code prim}. */
    <R> R timed(OperatorKind op, PrimitiveKind prim, Supplier<R> work) {
        long t0 = System.nanoTime();
        R r = work.get();
        record(op, prim, System.nanoTime() - t0);
        return r;
    }
}

package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.SecurityLevel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Named parameter sets. The secure ones follow the chains of ANCHORS.md (OpenFHE, HEStd_128_classic) so the
 * benchmarks compare like with like; each fits the 128-bit bound of {@link SecurityStandard}.
 */
public final class CkksPresets {
    private static final Map<String, CkksParameters> PRESETS = new LinkedHashMap<>();
    /** The 128-bit preset built for bootstrapping. */
    public static final String BOOTSTRAPPING_128 = "N16-boot-128";
    /** Presets whose chains are laid out for bootstrapping (few user levels, the circuit's primes above). */
    private static final Set<String> BOOTSTRAPPING = Set.of(
            BOOTSTRAPPING_128, "insecure-test-boot-N10", "insecure-test-boot-N12", "insecure-test-boot-dense-N10");

    static {
        // N = 2^13: 48 + 3x38 + 50 = 212 <= 218
        PRESETS.put("N13-128", new CkksParameters(13, chain(48, 38, 3), List.of(50), 4, 38, 0, SecurityLevel.HES_128));
        // N = 2^14: 50 + 8x40 + 60 = 430 <= 438 (OpenFHE: 9 limbs, 1 special prime, dnum 9)
        PRESETS.put("N14-128", new CkksParameters(14, chain(50, 40, 8), List.of(60), 9, 40, 0, SecurityLevel.HES_128));
        // N = 2^15: 55 + 15x45 + 2x60 = 850 <= 881 (dnum 8)
        PRESETS.put(
                "N15-128", new CkksParameters(15, chain(55, 45, 15), List.of(60, 60), 8, 45, 0, SecurityLevel.HES_128));
        // N = 2^16: 60 + 24x59 + 4x60 = 1716 <= 1747 (dnum 7)
        PRESETS.put(
                "N16-128",
                new CkksParameters(16, chain(60, 59, 24), List.of(60, 60, 60, 60), 7, 59, 0, SecurityLevel.HES_128));
        // Bootstrapping at 128 bits: a dense secret (the standard's table applies as it stands) that bootstraps
        // through an ephemeral sparse secret of weight 32 exposed only modulo q_0·p_0 = 2^112 (see
        // bootstrap.SecretEncapsulation). q_0 = 52 bits, 10 user levels of 40 bits, 14 bootstrapping primes of 60
        // bits, 7 special primes of 60 bits, dnum 4: 52 + 10x40 + 14x60 + 7x60 = 1712 <= 1747. q_0/Δ = 2^12, not
        // the small rings' 2^15: at N = 2^16 the key-switching noise of CoeffsToSlots and EvalMod, relative to the
        // message's share Δ/q_0 of the sine's input, dominates, and 3 bits of ratio are worth 3 bits of precision
        // there, while the sine's cubic loss (2π·Δ/q_0)²/6 stays at 2^-21.3 for |m| = 1. dnum 4 rather than 5:
        // keys a fifth smaller at no measurable cost in precision (6.4 GB for full slots with the double-hoisted
        // transforms' baby-step sizes; 5.3 GB before them, with fewer baby steps).
        List<Integer> boot16 = new ArrayList<>(chain(52, 40, 10));
        boot16.addAll(Collections.nCopies(14, 60));
        PRESETS.put(
                BOOTSTRAPPING_128,
                new CkksParameters(16, boot16, Collections.nCopies(7, 60), 4, 40, 0, SecurityLevel.HES_128));
        PRESETS.put(
                "insecure-test-N10",
                new CkksParameters(10, chain(45, 35, 3), List.of(50, 50), 2, 35, 0, SecurityLevel.INSECURE_TEST));
        PRESETS.put(
                "insecure-test-N12",
                new CkksParameters(12, chain(50, 40, 5), List.of(55, 55), 3, 40, 0, SecurityLevel.INSECURE_TEST));
        // Bootstrapping test rings: q_0 = 55 bits (q_0/Δ = 2^15 keeps sin's cubic term under 2^-27), 3 levels of
        // 40 bits left to the user, 14 of 60 bits for the circuit (CoeffsToSlots 3, EvalMod 8, SlotsToCoeffs 3);
        // sparse secret h = 64, so |I| <= K = 17 (see bootstrap.BootstrapParameters). dnum 5: digits of 4 primes.
        List<Integer> boot = new ArrayList<>(chain(55, 40, 3));
        boot.addAll(Collections.nCopies(14, 60));
        PRESETS.put(
                "insecure-test-boot-N10",
                new CkksParameters(10, boot, List.of(60, 60, 60, 60), 5, 40, 64, SecurityLevel.INSECURE_TEST));
        PRESETS.put(
                "insecure-test-boot-N12",
                new CkksParameters(12, boot, List.of(60, 60, 60, 60), 5, 40, 64, SecurityLevel.INSECURE_TEST));
        // The N16-boot-128 design on a small ring, for tests: a dense secret bootstrapped through encapsulation,
        // q_0 of 52 bits (q_0/Δ = 2^12 leaves the same headroom as at 128 bits), the same ten user levels (a model
        // runs with as many bootstraps as at 128 bits: three levels took nine times as many bootstrapped
        // ciphertexts, and the test suite three times as long), and the same 7 special primes and dnum 4.
        List<Integer> bootDense = new ArrayList<>(chain(52, 40, 10));
        bootDense.addAll(Collections.nCopies(14, 60));
        PRESETS.put(
                "insecure-test-boot-dense-N10",
                new CkksParameters(10, bootDense, Collections.nCopies(7, 60), 4, 40, 0, SecurityLevel.INSECURE_TEST));
    }

    private CkksPresets() {}

    /** q_0 of {@code first} bits followed by {@code count} primes of {@code bits} bits. */
    public static List<Integer> chain(int first, int bits, int count) {
        List<Integer> l = new ArrayList<>();
        l.add(first);
        l.addAll(Collections.nCopies(count, bits));
        return l;
    }

    /**
     * The smallest 128-bit preset (presets are listed by ring size) whose chain holds {@code levels} on a ring of
     * at least 2^minLogN; else, when allowed, the 128-bit bootstrapping preset.
     */
    public static Optional<String> recommended(int minLogN, int levels, boolean bootstrapping) {
        for (var e : PRESETS.entrySet()) {
            CkksParameters p = e.getValue();
            if (p.security() == SecurityLevel.HES_128
                    && p.logN() >= minLogN
                    && p.maxLevel() >= levels
                    && !BOOTSTRAPPING.contains(e.getKey())) {
                return Optional.of(e.getKey());
            }
        }
        return bootstrapping && PRESETS.get(BOOTSTRAPPING_128).logN() >= minLogN
                ? Optional.of(BOOTSTRAPPING_128)
                : Optional.empty();
    }

    public static List<String> names() {
        return List.copyOf(PRESETS.keySet());
    }

    public static CkksParameters get(String name) {
        CkksParameters p = PRESETS.get(name);
        if (p == null) {
            throw new IllegalArgumentException(
                    "unknown preset '" + name + "'; known: " + String.join(", ", PRESETS.keySet()));
        }
        return p;
    }
}

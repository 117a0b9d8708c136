package dev.polyhe.launcher;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.engine.encrypted.Packing;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * CKKS parameters from the command line: a backend preset, or a chain built from ring size and levels. A built
 * chain deeper than the security standard allows for its ring needs {@code --insecure-test}, by name.
 */
final class ChainOptions {
    @Option(names = "--preset", paramLabel = "NAME", description = "A parameter preset of the backend.")
    String preset;

    @Option(names = "--logN", paramLabel = "N", description = "log2 of the ring degree for a built chain.")
    Integer logN;

    @Option(
            names = "--levels",
            paramLabel = "L",
            description = "Rescales available in a built chain (default: what the command needs, else 40).")
    Integer levels;

    /** The scale's bits when a built chain does not say. */
    static final int DEFAULT_SCALE_BITS = 40;

    @Option(
            names = "--scale-bits",
            paramLabel = "S",
            description = "Bits of the scale and of each rescaled prime of a built chain (default: "
                    + DEFAULT_SCALE_BITS + ").")
    Integer scaleBits;

    @Option(
            names = "--dnum",
            paramLabel = "D",
            description = "Key-switching digits of a built chain (default: digits of two primes; with "
                    + "--insecure-test, four digits).")
    Integer dnum;

    @Option(names = "--insecure-test", description = "Accept a built chain below 128-bit security (timing only).")
    boolean insecure;

    /**
     * The chain shape of OpenFHE's parameter sets in ANCHORS.md: q_0 of S+10 bits (at most 60), L primes of S
     * bits, and as many 60-bit special primes as one digit of ceil((L+1)/D) primes needs. D defaults to
     * digits of two primes, which keeps P small where the security bound counts every bit. An insecure test
     * chain has no bound to keep, and on its long chains (100+ levels) a key switch's cost is mostly the NTTs
     * of raising each digit to the whole basis, D·(L+1+K) of them: there D is 4.
     */
    static CkksParameters chain(int logN, int levels, int scaleBits, Integer dnum, SecurityLevel security) {
        List<Integer> q = new ArrayList<>(List.of(Math.min(60, scaleBits + 10)));
        q.addAll(Collections.nCopies(levels, scaleBits));
        int d = dnum != null
                ? Math.min(dnum, q.size())
                : security == SecurityLevel.INSECURE_TEST ? Math.min(4, q.size()) : (q.size() + 1) / 2;
        int alpha = (q.size() + d - 1) / d;
        int digitBits = q.subList(0, alpha).stream().mapToInt(Integer::intValue).sum();
        List<Integer> p = Collections.nCopies((digitBits + 59) / 60, 60);
        return new CkksParameters(logN, q, p, d, scaleBits, 0, security);
    }

    /** The smallest ring (at least 2^10) whose N/2 slots hold a packing of {@code tokens} tokens. */
    static int minLogN(int tokens) {
        int slots = Packing.packingSlotsFor(tokens);
        return Math.max(10, Integer.numberOfTrailingZeros(slots) + 1);
    }

    /** Why the parameters were chosen, when no option chose them (for the command to print); else null. */
    String defaultChoice;

    /**
     * With no chain option at all, the backend's recommended 128-bit preset for the circuit (a bootstrapping one
     * when {@code canBootstrap} and no chain is deep enough); else the preset, or the chain built from the options.
     *
     * @param neededLevels the circuit's depth, and the chain length used when {@code --levels} is not given
     */
    CkksParameters resolve(HeBackend backend, int minLogN, int neededLevels, boolean canBootstrap) {
        if (preset != null) {
            refuseWithPreset();
            return backend.preset(preset);
        }
        if (chainShapingOptions(true).isEmpty()) {
            var recommended = backend.recommendedPreset(minLogN, neededLevels, canBootstrap);
            if (recommended.isPresent()) {
                CkksParameters p = backend.preset(recommended.get());
                defaultChoice = "no --preset given: " + recommended.get() + ", the " + backend.name() + " preset "
                        + (p.maxLevel() >= neededLevels
                                ? "with the smallest 128-bit ring whose chain holds the " + neededLevels
                                        + " levels needed"
                                : "that bootstraps at 128 bits, as no 128-bit chain holds the " + neededLevels
                                        + " levels needed")
                        + " (--preset NAME or --logN/--levels choose others)";
                return p;
            }
        }
        int n = logN != null ? logN : minLogN;
        if (n < minLogN) {
            throw new ErrorReport.InputException("--logN " + n + " is too small: at least " + minLogN + " is needed");
        }
        return chain(
                n,
                levels != null ? levels : neededLevels,
                scaleBits != null ? scaleBits : DEFAULT_SCALE_BITS,
                dnum,
                insecure ? SecurityLevel.INSECURE_TEST : SecurityLevel.HES_128);
    }

    /** A preset fixes the whole chain: the options that shape a built one cannot apply beside it. */
    void refuseWithPreset() {
        List<String> shaping = chainShapingOptions(true);
        if (!shaping.isEmpty()) {
            throw new ErrorReport.InputException(String.join(", ", shaping) + " shape a built chain and cannot apply "
                    + "with --preset " + preset + "; give one or the other");
        }
    }

    /** The chain-shaping options given (--logN too when {@code withLogN}). */
    List<String> chainShapingOptions(boolean withLogN) {
        List<String> given = new ArrayList<>();
        if (withLogN && logN != null) {
            given.add("--logN");
        }
        if (levels != null) {
            given.add("--levels");
        }
        if (scaleBits != null) {
            given.add("--scale-bits");
        }
        if (dnum != null) {
            given.add("--dnum");
        }
        if (insecure) {
            given.add("--insecure-test");
        }
        return given;
    }
}

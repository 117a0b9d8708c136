package dev.polyhe.core.engine.encrypted;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * How the {@link EncryptedEngine} packs matrices into slots (see {@link Layout}).
 *
 * @param slots P: the slots per column, a power of two at least the number of tokens
 * @param columnsPerCiphertext B: activations [T, H] are held B columns side by side per ciphertext of B·P slots
 *     ({@link Layout#BLOCKS}); 1 holds one column per ciphertext ({@link Layout#COLUMNS})
 * @param diagonalsPerCiphertext D: score blocks encrypted by {@link EncryptedEngine#fromPlainScores} hold D diagonals
 *     side by side per ciphertext of D·P slots (D ≤ P)
 */
public record Packing(int slots, int columnsPerCiphertext, int diagonalsPerCiphertext) {
    public Packing {
        for (int v : new int[] {slots, columnsPerCiphertext, diagonalsPerCiphertext}) {
            if (Integer.bitCount(v) != 1) {
                throw new IllegalArgumentException("packing " + slots + " slots, " + columnsPerCiphertext
                        + " columns and " + diagonalsPerCiphertext + " diagonals per ciphertext: each must be a "
                        + "power of two");
            }
        }
        if (diagonalsPerCiphertext > slots) {
            throw new IllegalArgumentException(diagonalsPerCiphertext + " diagonals per ciphertext but a block of "
                    + slots + " slots has only " + slots);
        }
    }

    /** One column per ciphertext of P slots. */
    public static Packing columns(int slots) {
        return new Packing(slots, 1, 1);
    }

    /**
     * Column blocks for a model whose widest activation has {@code maxColumns} columns: as many columns per
     * ciphertext as the ring holds, but no more than the widest activation needs (wider blocks would only cost
     * rotation keys, about 2√B of them, and bigger bootstraps).
     */
    public static Packing blocks(int slots, int maxColumns, int ringSlots) {
        int widest = maxColumns <= 1 ? 1 : Integer.highestOneBit(maxColumns - 1) << 1;
        int b = Math.max(1, Math.min(ringSlots / slots, widest));
        return new Packing(slots, b, 1);
    }

    /** The slots a ciphertext of activations spans: B·P. */
    public int width() {
        return columnsPerCiphertext * slots;
    }

    /** The slot counts of the engine's ciphertexts: bootstrapping keys are needed for exactly these. */
    public Set<Integer> ciphertextSlots() {
        Set<Integer> s = new LinkedHashSet<>();
        s.add(width());
        if (diagonalsPerCiphertext > 1) {
            s.add(diagonalsPerCiphertext * slots);
        }
        return s;
    }

    /** Every rotation the engine does under this packing (generate rotation keys for these). */
    public Set<Integer> rotationSteps() {
        Set<Integer> steps = rotationSteps(slots);
        steps.addAll(babyGiantSteps(slots, columnsPerCiphertext));
        steps.addAll(rowSumSteps(slots, diagonalsPerCiphertext));
        return steps;
    }

    /**
     * Rotations by multiples of P that move whole columns: baby steps a·P (a < b) and giant steps g·b·P below
     * n·P, b = 2^ceil(log2(n)/2). They include every power-of-two multiple P, 2P, .., (n/2)·P, which row sums
     * and unpacking rotate by.
     */
    static Set<Integer> babyGiantSteps(int slots, int n) {
        Set<Integer> steps = new LinkedHashSet<>();
        int b = babyStep(n);
        for (int a = 1; a < Math.min(b, n); a++) {
            steps.add(a * slots);
        }
        for (int g = b; g < n; g += b) {
            steps.add(g * slots);
        }
        return steps;
    }

    /**
     * The rotation steps the engine uses at packing width P (generate rotation keys for these): baby steps
     * 1 .. b−1 and giant steps b, 2b, .. below P, b = 2^ceil(log2(P)/2). Every rotation 1 .. P−1 is a giant step
     * then a baby step, so about 2√P keys serve them all (22 instead of 127 at P = 128, where a key at
     * N = 2^16 weighs over 100 MB).
     */
    public static Set<Integer> rotationSteps(int packingSlots) {
        Set<Integer> steps = new LinkedHashSet<>();
        int b = babyStep(packingSlots);
        for (int s = 1; s < Math.min(b, packingSlots); s++) {
            steps.add(s);
        }
        for (int g = b; g < packingSlots; g += b) {
            steps.add(g);
        }
        return steps;
    }

    /** The rotations a row sum of score blocks with D diagonals per ciphertext takes: P, 2P, .., (D/2)·P. */
    public static Set<Integer> rowSumSteps(int packingSlots, int diagonalsPerCiphertext) {
        Set<Integer> steps = new LinkedHashSet<>();
        for (int k = 1; k < diagonalsPerCiphertext; k *= 2) {
            steps.add(k * packingSlots);
        }
        return steps;
    }

    /** The most diagonals of a P-token score block one ciphertext of this ring holds: min(P, (N/2)/P). */
    public static int maxDiagonalsPerCiphertext(int packingSlots, int ringSlots) {
        return Math.max(1, Math.min(packingSlots, ringSlots / packingSlots));
    }

    /** b = 2^ceil(log2(P)/2) for a packing width P (a power of two). */
    static int babyStep(int packingSlots) {
        return 1 << ((Integer.numberOfTrailingZeros(packingSlots) + 1) / 2);
    }

    /** The smallest packing width for {@code tokens} tokens. */
    public static int packingSlotsFor(int tokens) {
        return Integer.highestOneBit(Math.max(1, tokens - 1)) << (tokens > 1 ? 1 : 0);
    }
}

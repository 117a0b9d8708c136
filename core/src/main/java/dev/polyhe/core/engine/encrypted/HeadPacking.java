package dev.polyhe.core.engine.encrypted;

/**
 * Where the stacked score matrices of several heads sit ({@link Layout#HEAD_DIAGONALS}): [heads·T, T], each head
 * held as its P generalized diagonals.
 *
 * <p>A ciphertext spans {@code segments} segments of P slots. It holds {@code groups} heads, {@code stride}
 * segments apart, each with {@code diagonals} (E) of its diagonals side by side: segment j·stride + e of ciphertext
 * i holds, in slot t, diagonal s = (i mod P/E)·E + e of head h = (i div P/E)·groups + j, that is
 * S_h[t, (t + s) mod P]. Q·Kᵀ on column blocks leaves the heads of a block in the groups where their columns were
 * (stride = head size d, E = min(d, P)); per-head products on columns are stacked one diagonal per ciphertext
 * (all four 1: ciphertext h·P + s holds diagonal s of head h).
 *
 * <p>Row sums ({@code sumBlocks} > 1): a row's sum is the same at every diagonal, so the sums of {@code sumBlocks}
 * head blocks share one ciphertext, head block b at the segments ≡ b (mod sumBlocks) of each group, and every
 * position of those blocks refers to it. What follows a row sum (PowerSoftmax's Goldschmidt division, all its
 * products and bootstraps) then runs on one ciphertext where it ran on one per head block; a product with scores
 * first spreads each block back over its groups' segments ({@link BlockAttention#unpackRowSums}).
 */
record HeadPacking(int heads, int groups, int stride, int diagonals, int segments, int sumBlocks) {
    HeadPacking {
        if (heads < 1
                || groups < 1
                || diagonals < 1
                || diagonals > stride
                || (groups - 1) * stride + diagonals > segments) {
            throw new IllegalArgumentException("head packing: " + heads + " heads, " + groups + " per ciphertext "
                    + stride + " segments apart with " + diagonals + " diagonals each do not fit " + segments
                    + " segments");
        }
        if (sumBlocks < 1 || Integer.bitCount(sumBlocks) != 1 || sumBlocks > 1 && stride % sumBlocks != 0) {
            throw new IllegalArgumentException("head packing: " + sumBlocks + " head blocks of row sums per "
                    + "ciphertext; expected a power of two dividing the stride " + stride);
        }
    }

    /** The scores' packing (row sums of one head block per ciphertext). */
    HeadPacking(int heads, int groups, int stride, int diagonals, int segments) {
        this(heads, groups, stride, diagonals, segments, 1);
    }

    /** One diagonal per ciphertext (stacked per-head products). */
    static HeadPacking stacked(int heads) {
        return new HeadPacking(heads, 1, 1, 1, 1);
    }

    /** Row sums of {@code blocks} head blocks per ciphertext. */
    HeadPacking withSumBlocks(int blocks) {
        return new HeadPacking(heads, groups, stride, diagonals, segments, blocks);
    }

    /** Ciphertexts per group of heads: P / E. */
    int chunks(int packingSlots) {
        return packingSlots / diagonals;
    }

    /** Groups of heads (ciphertext blocks): ⌈heads / groups⌉. */
    int headBlocks() {
        return (heads + groups - 1) / groups;
    }

    int ciphertexts(int packingSlots) {
        return headBlocks() * chunks(packingSlots);
    }

    /** The heads held in head block {@code block}. */
    int headsIn(int block) {
        return Math.min(groups, heads - block * groups);
    }

    /** The ciphertext holding diagonal s of head h. */
    int ciphertext(int h, int s, int packingSlots) {
        return h / groups * chunks(packingSlots) + s / diagonals;
    }

    /** The slot of row t of diagonal s of head h in its ciphertext (of a packed row sum: the one its block owns). */
    int slot(int h, int t, int s, int packingSlots) {
        int segment = sumBlocks > 1 ? h / groups % sumBlocks : s % diagonals;
        return (h % groups * stride + segment) * packingSlots + t;
    }

    /** Whether every ciphertext is one head's group of diagonals, filling it (row sums then need no mask). */
    boolean oneGroupFills() {
        return groups == 1 && diagonals == segments;
    }
}

package dev.polyhe.core.engine.encrypted;

/**
 * How a matrix sits in CKKS slots. P (the slots per column) is a power of two at least the number of tokens;
 * see {@link Packing}.
 *
 * <ul>
 *   <li>{@link #COLUMNS}: one ciphertext per column, P slots (repeating over the ring); slot t holds row t.
 *       Row sums are sums of ciphertexts, head slicing and concatenation need no rotation, and the attention
 *       products work on it.</li>
 *   <li>{@link #BLOCKS}: B columns side by side per ciphertext of B·P slots; slot c·P + t of ciphertext k holds
 *       row t of column k·B + c. Element-wise work (GELU, LayerNorm, residuals) and bootstrapping cost B times
 *       fewer ciphertexts. A plaintext-weight matmul is the diagonal method over B×B blocks with baby-step
 *       giant-step rotations by multiples of P; a row sum adds the ciphertexts, then rotates and adds log2 B
 *       times. Head slicing unpacks columns into {@link #COLUMNS} (a mask and log2 B rotations each).</li>
 *   <li>{@link #DIAGONALS}: a square [T, T] score matrix held as its P generalized diagonals, D side by side per
 *       ciphertext of D·P slots: diagonal s holds S[t, (t + s) mod P] in its slot t. Q·Kᵀ lands in it (D = 1) and
 *       A·V reads from it with one hoisted batch of rotations per column; a row sum is a sum of ciphertexts
 *       (then log2 D rotations).</li>
 *   <li>{@link #HEAD_DIAGONALS}: the score matrices of all heads stacked [heads·T, T], each head as its P
 *       diagonals (see {@link HeadPacking}). Q·Kᵀ of column blocks leaves each head's diagonals in the group of
 *       segments its columns held, E = min(d, P) per ciphertext: the scores of 8 heads of 64 columns at 128 tokens
 *       are 4 ciphertexts. Row sums add a head's ciphertexts, then rotate and add log2 E times, then mask and
 *       spread back over the head's d segments (log2 d rotations), the sums of several head blocks interleaved in
 *       one ciphertext ({@link HeadPacking}'s sumBlocks) until they meet scores again. Scores of heads on columns are
 * stacked one diagonal per ciphertext.</li>
 * </ul>
 */
public enum Layout {
    COLUMNS,
    DIAGONALS,
    BLOCKS,
    HEAD_DIAGONALS
}

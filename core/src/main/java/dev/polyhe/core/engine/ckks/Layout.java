package dev.polyhe.core.engine.ckks;

/**
 * How a matrix sits in CKKS slots. Every ciphertext uses a sparse packing of P slots (P a power of two at
 * least the number of tokens), so rotations are cyclic over P.
 *
 * <ul>
 *   <li>{@link #COLUMNS}: one ciphertext per column; slot t holds row t. Element-wise work, row sums (a sum of
 *       ciphertexts), head slicing and concatenation need no rotation, and a plaintext-weight matmul is a sum
 *       of ciphertext × constant products.</li>
 *   <li>{@link #DIAGONALS}: a square [T, T] score matrix held as its P generalized diagonals: ciphertext s
 *       holds S[t, (t + s) mod P] in slot t. Q·Kᵀ lands in it and A·V reads from it with one hoisted batch of
 *       rotations per column, and a row sum is again a sum of ciphertexts.</li>
 * </ul>
 */
public enum Layout {
    COLUMNS,
    DIAGONALS
}

package dev.polyhe.ckks.executor;

import dev.polyhe.api.he.HeException;

/**
 * An operand whose limbs another executor holds: a ciphertext of a ckks-cpu context given to a ckks-cuda one (or of
 * another GPU context), with the same parameters and keys. Limbs do not move implicitly; the blob format is shared.
 */
public final class ForeignPolynomialException extends HeException {
    private static final long serialVersionUID = 1L;

    public ForeignPolynomialException(RnsPoly p) {
        super("this ciphertext or plaintext belongs to another context (its limbs are held by "
                + (p == null ? "nothing" : p.getClass().getSimpleName()) + " elsewhere); serialize it and read it with "
                + "this context's serializer, or encode/encrypt it here");
    }
}

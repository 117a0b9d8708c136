package dev.polyhe.ckks.bootstrap;

/**
 * A diagonal of a slot-wise linear map, encoded for {@link CiphertextLimbs#multiplyDiagonalsAndRescale} alone: its
 * limbs are in whatever form the ring executor multiplies fastest.
 */
public interface EncodedDiagonal {
    int level();

    double scale();
}

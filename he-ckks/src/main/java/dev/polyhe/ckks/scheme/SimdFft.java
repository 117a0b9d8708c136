package dev.polyhe.ckks.scheme;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The inverse special FFT's stages on SIMD lanes ({@link SpecialFft#inverseBitReversed}): a stage whose butterflies
 * pair values at least a vector apart runs a vector of butterflies at once, with the stage's twiddles read in order
 * from the same table. The same IEEE products, sums and differences in the same order as the scalar butterfly (no
 * fused multiply-add), so the coefficients are the scalar ones bit for bit. Loaded only where {@link
 * dev.polyhe.ckks.ring.Simd#available()} says the module is readable.
 */
final class SimdFft {
    private static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
    private static final int LANES = SPECIES.length();

    private SimdFft() {}

    /** The butterflies of a stage whose half-length is a multiple of the lanes. */
    static boolean fits(int half) {
        return half >= LANES && half % LANES == 0;
    }

    /**
     * The Gentleman–Sande butterflies of the stage of length len on the block [offset, offset + size), twiddle
     * tw + j conjugated for butterfly j of each group.
     */
    static void stage(double[] re, double[] im, double[] twRe, double[] twIm, int offset, int size, int len) {
        int half = len >> 1;
        int tw = half - 1;
        for (int i = offset; i < offset + size; i += len) {
            for (int j = 0; j < half; j += LANES) {
                int a = i + j;
                int b = a + half;
                DoubleVector wr = DoubleVector.fromArray(SPECIES, twRe, tw + j);
                DoubleVector wi = DoubleVector.fromArray(SPECIES, twIm, tw + j).neg();
                DoubleVector ra = DoubleVector.fromArray(SPECIES, re, a);
                DoubleVector rb = DoubleVector.fromArray(SPECIES, re, b);
                DoubleVector ia = DoubleVector.fromArray(SPECIES, im, a);
                DoubleVector ib = DoubleVector.fromArray(SPECIES, im, b);
                DoubleVector dr = ra.sub(rb);
                DoubleVector di = ia.sub(ib);
                ra.add(rb).intoArray(re, a);
                ia.add(ib).intoArray(im, a);
                dr.mul(wr).sub(di.mul(wi)).intoArray(re, b);
                dr.mul(wi).add(di.mul(wr)).intoArray(im, b);
            }
        }
    }
}

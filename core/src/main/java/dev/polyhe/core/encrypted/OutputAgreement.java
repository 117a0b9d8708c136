package dev.polyhe.core.encrypted;

import dev.polyhe.api.Matrix;

/**
 * How closely a decrypted output follows a reference: mean squared error, max absolute error, and whether every
 * row predicts the same class or token (argmax).
 */
public record OutputAgreement(double mse, double maxAbs, boolean samePrediction) {
    public static OutputAgreement between(Matrix actual, Matrix reference) {
        if (actual.rows() != reference.rows() || actual.cols() != reference.cols()) {
            throw new IllegalArgumentException("outputs differ in shape: [" + actual.rows() + ", " + actual.cols()
                    + "] vs [" + reference.rows() + ", " + reference.cols() + "]");
        }
        double se = 0;
        double max = 0;
        boolean same = true;
        for (int r = 0; r < actual.rows(); r++) {
            int a = 0;
            int b = 0;
            for (int c = 0; c < actual.cols(); c++) {
                double d = actual.get(r, c) - reference.get(r, c);
                se += d * d;
                max = Math.max(max, Math.abs(d));
                a = actual.get(r, c) > actual.get(r, a) ? c : a;
                b = reference.get(r, c) > reference.get(r, b) ? c : b;
            }
            same &= a == b;
        }
        return new OutputAgreement(se / Math.max(1, actual.data().length), max, same);
    }

    /** The worse of two agreements (for a batch). */
    public OutputAgreement combine(OutputAgreement o) {
        return new OutputAgreement(Math.max(mse, o.mse), Math.max(maxAbs, o.maxAbs), samePrediction && o.samePrediction);
    }
}

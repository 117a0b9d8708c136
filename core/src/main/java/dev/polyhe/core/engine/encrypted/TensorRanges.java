package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.DoubleUnaryOperator;

/**
 * The ranges of the engine's results from their operands' ({@link ValueRange}), null wherever an operand's is
 * unknown. The engine tightens its ciphertexts' bounds to them, and the refresh policy reads them.
 */
final class TensorRanges {
    private TensorRanges() {}

    static ValueRange mapRange(ValueRange r, DoubleUnaryOperator f) {
        return r == null ? null : r.map(f);
    }

    static ValueRange bothRanges(ValueRange a, ValueRange b, BinaryOperator<ValueRange> f) {
        return a == null || b == null ? null : f.apply(a, b);
    }

    static ValueRange sumRange(ValueRange a, int n) {
        return a == null ? null : a.sumOf(n);
    }
    /** Each output column's interval Σ_j W[o, j]·x_j + b_o over x in r, hulled over the columns. */
    static ValueRange linearRange(ValueRange r, Matrix weight, double[] bias) {
        if (r == null) {
            return null;
        }
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        double xLo = r.lo(); // once: each is a pass over the range's samples
        double xHi = r.hi();
        for (int o = 0; o < weight.rows(); o++) {
            double l = bias == null ? 0 : bias[o];
            double h = l;
            for (int j = 0; j < weight.cols(); j++) {
                double[] p = ValueRange.products(xLo, xHi, weight.get(o, j), weight.get(o, j));
                l += p[0];
                h += p[1];
            }
            lo = Math.min(lo, l);
            hi = Math.max(hi, h);
        }
        return ValueRange.loose(lo, hi);
    }
    /**
     * The range of m ⊙ plain. Entries of plain within [0, 1] (an attention mask) keep each value between 0 and itself:
     * the result is as tight as m's range, where interval arithmetic across the two sources would call it loose, and
     * the product that follows (x² of masked scores) would not know that its result is large and keep a level to
     * scale it down before its bootstrap.
     */
    static ValueRange maskedRange(ValueRange r, Matrix plain) {
        ValueRange p = plainRange(plain);
        if (r == null || p == null || !r.tight() || p.lo() < 0 || p.hi() > 1) {
            return bothRanges(r, p, ValueRange::times);
        }
        return ValueRange.interval(Math.min(0, r.lo()), Math.max(0, r.hi()), r);
    }

    static ValueRange plainRange(Matrix m) {
        return ValueRange.of(m.data(), false);
    }

    static ValueRange rowRangeOf(double[] v) {
        return ValueRange.of(v, false);
    }
    /** The hull of the parts' ranges (the one range when they share it); null when any is unknown. */
    static ValueRange unionOf(List<EncryptedTensor> parts) {
        ValueRange r = parts.isEmpty() ? null : parts.get(0).range;
        for (EncryptedTensor p : parts) {
            r = bothRanges(r, p.range, ValueRange::union);
        }
        return r;
    }
}

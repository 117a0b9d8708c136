package dev.polyhe.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.Matrix;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlainEngineTest {
    private final PlainEngine e = new PlainEngine();
    private final Matrix a = Matrix.of(new double[][] {{1, 2, 3}, {4, 5, 6}});

    @Test
    void linearComputesXWtPlusBiasAndCostsOneLevel() {
        Matrix w = Matrix.of(new double[][] {{1, 0, 1}, {0, 2, 0}});
        PlainTensor y = e.linear(e.fromPlain(a), w, new double[] {10, 20});
        assertArrayEquals(new double[] {14, 24, 20, 30}, y.toMatrix().data(), 0);
        assertEquals(1, y.depth());
    }

    @Test
    void matmulAndTransposedAgree() {
        PlainTensor x = e.fromPlain(a);
        PlainTensor viaT = e.matmulTransposed(x, x);
        Matrix at = Matrix.of(new double[][] {{1, 4}, {2, 5}, {3, 6}});
        PlainTensor direct = e.matmul(x, e.fromPlain(at));
        assertArrayEquals(new double[] {14, 32, 32, 77}, viaT.toMatrix().data(), 0);
        assertArrayEquals(direct.toMatrix().data(), viaT.toMatrix().data(), 0);
        assertEquals(1, viaT.depth());
    }

    @Test
    void rowReductionsKeepTheShape() {
        PlainTensor s = e.rowSums(e.fromPlain(a));
        assertArrayEquals(new double[] {6, 6, 6, 15, 15, 15}, s.toMatrix().data(), 0);
        PlainTensor m = e.rowMeans(e.fromPlain(a));
        assertArrayEquals(new double[] {2, 2, 2, 5, 5, 5}, m.toMatrix().data(), 1e-12);
        assertEquals(1, m.depth(), "1/cols is a real constant: one level");
        PlainTensor mx = e.rowMaxAbs(e.fromPlain(Matrix.of(new double[][] {{-7, 2}})));
        assertArrayEquals(new double[] {7, 7}, mx.toMatrix().data(), 0);
        assertEquals(1, e.nonPolynomialCalls());
    }

    @Test
    void depthIsTrackedPerValue() {
        PlainTensor x = e.fromPlain(a);
        PlainTensor x2 = e.square(x);
        PlainTensor x4 = e.square(x2);
        PlainTensor sum = e.add(x4, x);
        assertEquals(2, e.depth(x4));
        assertEquals(2, e.depth(sum));
        assertEquals(2, e.depth(e.mulConstant(x4, 3)));
        assertEquals(3, e.depth(e.mulConstant(x4, 0.5)));
        assertEquals(3, e.maxDepth());
        assertEquals(3, e.multiplications());
    }

    @Test
    void slicingAndConcatenationRoundTrip() {
        PlainTensor x = e.fromPlain(a);
        PlainTensor joined = e.concatColumns(List.of(e.columns(x, 0, 1), e.columns(x, 1, 3)));
        assertEquals(a, joined.toMatrix());
        assertArrayEquals(new double[] {4, 5, 6}, e.rowRange(x, 1, 2).toMatrix().data(), 0);
    }

    @Test
    void rowVectorsAndMasksBroadcast() {
        PlainTensor x = e.fromPlain(a);
        assertArrayEquals(
                new double[] {1, 0, 3, 4, 0, 6},
                e.mulRow(x, new double[] {1, 0, 1}).toMatrix().data(),
                0);
        assertArrayEquals(
                new double[] {2, 2, 3, 5, 5, 6},
                e.addRow(x, new double[] {1, 0, 0}).toMatrix().data(),
                0);
        Matrix causal = Matrix.of(new double[][] {{1, 0, 0}, {1, 1, 0}});
        assertArrayEquals(
                new double[] {1, 0, 0, 4, 5, 0},
                e.mulPlain(x, causal).toMatrix().data(),
                0);
    }

    @Test
    void shapeMismatchesNameBothShapes() {
        PlainTensor x = e.fromPlain(a);
        var ex = assertThrows(IllegalArgumentException.class, () -> e.add(x, e.fromPlain(Matrix.zeros(3, 2))));
        assertTrue(ex.getMessage().contains("[2, 3] vs [3, 2]"), ex.getMessage());
        var lin = assertThrows(IllegalArgumentException.class, () -> e.linear(x, Matrix.zeros(4, 2), null));
        assertTrue(lin.getMessage().contains("expected weight [out, 3]"), lin.getMessage());
    }
}

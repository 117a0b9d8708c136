package dev.polyhe.core.engine.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.Matrix;
import dev.polyhe.api.arith.TensorOps;
import dev.polyhe.core.engine.PlainEngine;
import dev.polyhe.core.engine.PlainTensor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

class ErrorTracingOpsTest {
    private static final Probe<PlainTensor> PLAIN_PROBE = new Probe<>() {
        @Override
        public int level(PlainTensor value) {
            return -value.depth();
        }

        @Override
        public double logScale(PlainTensor value) {
            return 0;
        }
    };

    private static final Matrix X = new Matrix(2, 3, new double[] {0.5, -1, 2, 0.25, 1.5, -0.75});

    /** A little program: a layer norm's first steps and a product, inside two operator scopes. */
    private static <M> M program(TensorOps<M> ops, M x) {
        try (var layer = ops.operator("layers.0")) {
            M centered = ops.sub(x, ops.rowMeans(x));
            try (var inner = ops.operator("square")) {
                M sq = ops.rowSums(ops.square(centered));
                return ops.mul(ops.addConstant(sq, 1), ops.mulConstant(centered, 0.5));
            }
        }
    }

    @Test
    void anEngineTracedAgainstItselfLosesNothing() {
        var ops = new ErrorTracingOps<>(new PlainEngine(), new PlainEngine(), PLAIN_PROBE);
        Matrix out = ops.toPlain(program(ops, ops.fromPlain(X)));
        Matrix expected = new PlainEngine().toPlain(program(new PlainEngine(), new PlainEngine().fromPlain(X)));
        assertEquals(expected, out, "the traced engine's result is the run's result");
        ErrorTrace trace = ops.trace();
        assertEquals(8, trace.steps().size());
        for (ErrorTrace.Step s : trace.steps()) {
            assertEquals(ErrorTrace.MAX_BITS, s.bits(), 0, s.toString());
            assertEquals(0, s.maxError(), 0);
        }
        assertNull(trace.firstJump());
        assertEquals(
                java.util.List.of("(top level)", "layers.0", "layers.0/square"),
                trace.operators().stream()
                        .map(ErrorTrace.OperatorSummary::operator)
                        .toList());
        assertTrue(trace.toTable().contains("no step lost 4 bits or more"), trace.toTable());
    }

    /** PlainEngine whose row sums are off by 1e-6: the trace must point at the first of them. */
    @SuppressWarnings("unchecked")
    private static TensorOps<PlainTensor> lossyRowSums() {
        PlainEngine engine = new PlainEngine();
        return (TensorOps<PlainTensor>) Proxy.newProxyInstance(
                TensorOps.class.getClassLoader(), new Class<?>[] {TensorOps.class}, (proxy, method, args) -> {
                    try {
                        Object r = method.invoke(engine, args);
                        return method.getName().equals("rowSums") ? engine.addConstant((PlainTensor) r, 1e-6) : r;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    @Test
    void theFirstStepThatLosesBitsIsNamed() {
        var ops = new ErrorTracingOps<>(new PlainEngine(), lossyRowSums(), PLAIN_PROBE);
        program(ops, ops.fromPlain(X));
        ErrorTrace.Step jump = ops.trace().firstJump();
        assertNotNull(jump);
        assertEquals("rowSums", jump.op(), jump.toString());
        assertEquals("layers.0/square", jump.operator(), "rowMeans is the engine's own, not perturbed");
        assertEquals(ErrorTrace.MAX_BITS, jump.inputBits(), 0);
        // 1e-6 on row sums of squares up to 4.5: 22 bits
        assertEquals(-Math.log(1e-6 / 4.5) / Math.log(2), jump.bits(), 0.01);
        assertTrue(
                ops.trace().toTable().contains("first jump: step " + jump.index() + ", layers.0/square rowSums"),
                ops.trace().toTable());
    }

    @Test
    void bootstrapsAreRecordedWithTheirMagnitudeAndError() throws Exception {
        var ops = new ErrorTracingOps<>(new PlainEngine(), new PlainEngine(), PLAIN_PROBE);
        try (var scope = ops.operator("layers.1")) {
            ops.bootstrap(
                    4,
                    0,
                    40,
                    new double[][] {{0.5, -1, 0.25, 0.75}, {1e-9, 0, 0, 0}},
                    new double[][] {{0.25 + 1e-7, -0.5, 0.125, 0.375}, {0, 0, 0, 0}},
                    2,
                    0.6);
        }
        ErrorTrace.Bootstrap b = ops.trace().bootstraps().get(0);
        assertEquals("layers.1", b.operator());
        assertEquals(1, b.maxIn(), 0);
        assertEquals(1e-9, b.imaginaryIn(), 0);
        assertEquals(1e-7, b.maxError(), 1e-12);
        assertEquals(-Math.log(1e-7 / 0.5) / Math.log(2), b.bits(), 1e-6, "relative to the values before scaling");
        JsonNode json = new ObjectMapper()
                .readTree(ops.trace().toJson(new ObjectMapper()).toString());
        assertEquals(1, json.get("bootstraps_total").asInt());
        assertEquals(0.6, json.get("bootstraps").get(0).get("bound").asDouble(), 0);
        assertEquals("layers.1", json.get("operators").get(0).get("operator").asText());
        assertEquals(1, json.get("operators").get(0).get("bootstraps").asInt());
    }
}

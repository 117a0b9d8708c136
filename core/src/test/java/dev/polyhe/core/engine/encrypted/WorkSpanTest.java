package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.polyhe.api.arith.OperatorScope;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeBackend;
import dev.polyhe.api.he.HeContext;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.core.PolyHe;
import dev.polyhe.core.report.LatencyBreakdown;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The work and critical path of evaluator calls: a chain has none to share, independent calls all of theirs. */
class WorkSpanTest {
    static PolyHe polyhe;
    static HeContext context;
    static Evaluator evaluator;
    static Ciphertext x;

    @BeforeAll
    static void open() {
        polyhe = PolyHe.builder().build();
        HeBackend backend = polyhe.plugins().backend("ckks-cpu");
        List<Integer> q = new ArrayList<>(List.of(50));
        q.addAll(Collections.nCopies(6, 40));
        context = backend.open(new CkksParameters(10, q, List.of(55, 55), 7, 40, 0, SecurityLevel.INSECURE_TEST));
        SecretKey sk = context.generateSecretKey();
        EvaluationKeys keys = context.generateEvaluationKeys(sk, Set.of(1, 2, 3, 4, 5, 6), false, false);
        evaluator = context.evaluator(keys);
        x = context.encryptor(sk)
                .encrypt(context.encoder()
                        .encode(new double[] {1, 2, 3}, 8, context.parameters().maxLevel(), 0x1p40));
    }

    @AfterAll
    static void close() {
        context.close();
        polyhe.close();
    }

    @Test
    void aChainOfDependentCallsIsItsOwnCriticalPath() {
        WorkSpan.Tracked t =
                WorkSpan.tracking(evaluator, false, context.parameters().ringDegree(), null);
        Ciphertext y = x;
        for (int i = 0; i < 4; i++) {
            y = t.evaluator().rescale(t.evaluator().multiply(y, y));
        }
        WorkSpan ws = t.workSpan();
        assertEquals(8, ws.calls());
        assertTrue(ws.workSeconds() > 0);
        assertEquals(ws.workSeconds(), ws.spanSeconds(), 1e-12);
        assertEquals(1.0, ws.parallelism(), 1e-9);
        assertFalse(ws.measured());
    }

    @Test
    void independentCallsShareTheCores() {
        WorkSpan.Tracked t =
                WorkSpan.tracking(evaluator, false, context.parameters().ringDegree(), null);
        Ciphertext[] rotated = new Ciphertext[6];
        for (int i = 0; i < rotated.length; i++) {
            rotated[i] = t.evaluator().rotate(x, i + 1); // each reads only x, which no tracked call made
        }
        WorkSpan ws = t.workSpan();
        double one = ws.workSeconds() / rotated.length;
        assertEquals(one, ws.spanSeconds(), 1e-12);
        assertEquals(6.0, ws.parallelism(), 1e-9);

        // a sum of the six waits for them all: one more step on the critical path
        Ciphertext sum = rotated[0];
        for (int i = 1; i < rotated.length; i++) {
            sum = t.evaluator().add(sum, rotated[i]);
        }
        assertTrue(ws.spanSeconds() > one);
        assertTrue(ws.parallelism() > 1 && ws.parallelism() < 6, ws.parallelism() + " of " + ws.calls() + " calls");
    }

    @Test
    void measuredSecondsAreTheCallsOwn() {
        WorkSpan.Tracked t =
                WorkSpan.tracking(evaluator, true, context.parameters().ringDegree(), null);
        Ciphertext a = t.evaluator().rotate(x, 1);
        t.evaluator().rotate(x, 2);
        t.evaluator().rescale(t.evaluator().multiply(a, a));
        WorkSpan ws = t.workSpan();
        assertTrue(ws.measured());
        assertEquals(4, ws.calls());
        assertTrue(
                ws.spanSeconds() > 0 && ws.spanSeconds() < ws.workSeconds(),
                ws.spanSeconds() + " of " + ws.workSeconds());
        // calls that make no ciphertext are passed through, not counted
        assertEquals(evaluator.concurrency(), t.evaluator().concurrency());
        assertEquals(4, ws.calls());
    }

    /**
     * The breakdown's estimated seconds of an operator include those nested in it, as its measured seconds do (the
     * accounting estimates each call for the innermost operator only); the run's total counts each call once.
     */
    @Test
    void aBreakdownEstimatesAnOperatorWithTheOnesNestedInIt() {
        Accounting a = new Accounting();
        try (OperatorScope outer = a.open("attention")) {
            a.estimated(2.0);
            try (OperatorScope inner = a.open("attention-normalization")) {
                a.estimated(3.0);
            }
        }
        JsonNode ops = new LatencyBreakdown(a, 1.0).toJson(new ObjectMapper()).get("by_operator");
        assertEquals(5.0, ops.get("attention").get("estimated_seconds").asDouble(), 1e-12);
        assertEquals(
                3.0,
                ops.get("attention/attention-normalization")
                        .get("estimated_seconds")
                        .asDouble(),
                1e-12);
        assertEquals(5.0, a.estimatedSeconds(), 1e-12);
    }
}

package dev.polyhe.core.engine.symbolic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.Evaluator;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.SecurityLevel;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The level and scale rules of the planning context, against what a real RNS-CKKS evaluator does. */
class SymbolicContextTest {
    // q_0 of 52 bits, three 40-bit moduli off 2^40 (the last by 2^-15 of it, beyond what adds as rounding), and one
    // of 60 bits for bootstrapping; only their sizes matter here
    private static final long[] PRIMES = {
        (1L << 52) - 47, (1L << 40) - 195, (1L << 40) + 61, (1L << 40) + (1L << 25), (1L << 60) - 93
    };
    private static final CkksParameters PARAMS =
            new CkksParameters(10, List.of(52, 40, 40, 40, 60), List.of(60), 2, 40, 0, SecurityLevel.INSECURE_TEST);

    private final SymbolicContext ctx = new SymbolicContext(PARAMS, PRIMES, 3);
    private final dev.polyhe.api.he.SecretKey sk = ctx.generateSecretKey();
    private final Evaluator ev = ctx.evaluator(ctx.generateEvaluationKeys(sk, Set.of(1), false, Set.of(512)), null);

    private Ciphertext fresh(int level) {
        return ctx.encryptor(sk).encrypt(ctx.encoder().encode(new double[512], 512, level, PARAMS.scale()));
    }

    @Test
    void aProductRescaledByTheLevelsPrimeDriftsOffTheScaleByItsRatio() {
        Ciphertext x = fresh(3);
        Ciphertext sq = ev.rescale(ev.multiply(x, x));
        assertEquals(2, sq.level());
        assertEquals(Math.scalb(1.0, 80) / PRIMES[3], sq.scale(), 1e-3);
        assertTrue(ctx.exactPrimes());
        // a fresh ciphertext at level 2 has scale Δ exactly: the two no longer add without alignment
        assertThrows(HeException.class, () -> ev.add(sq, fresh(2)));
    }

    @Test
    void refusesWhatARealEvaluatorRefuses() {
        Ciphertext bottom = ev.dropToLevel(fresh(3), 0);
        assertThrows(HeException.class, () -> ev.rescale(bottom), "no prime left at level 0");
        assertThrows(HeException.class, () -> ev.multiply(bottom, bottom), "Δ² does not fit q_0 of 52 bits");
        assertThrows(HeException.class, () -> ev.dropToLevel(bottom, 1), "levels only go down");
    }

    @Test
    void bootstrappingReturnsAtTheModelsTopLevelAndAPairKeepsBothLabels() {
        Ciphertext a = ev.dropToLevel(fresh(3), 0);
        Ciphertext b = ev.multiplyInteger(ev.dropToLevel(fresh(3), 0), 1);
        Ciphertext r = ev.bootstrap(a, 0.5);
        assertEquals(3, r.level());
        assertEquals(a.scale(), r.scale());
        Ciphertext[] pair = ev.bootstrapPair(a, b, 0.5, 0.25);
        assertEquals(3, pair[0].level());
        assertEquals(3, pair[1].level());
        assertEquals(b.scale() * 2, pair[1].scale(), 1e-3, "the second's label carries factorA / factorB");
    }

    @Test
    void everyOperationMakesANewCiphertextAsARealOneDoes() {
        Ciphertext x = fresh(3);
        assertNotSame(x, ev.rotate(x, 1));
        assertNotSame(x, ev.negate(x));
        assertSame(x, ev.dropToLevel(x, 3), "a drop to its own level is the ciphertext itself");
        Ciphertext[] r = ev.rotateHoisted(x, new int[] {0, 1});
        assertSame(x, r[0]);
        assertNotSame(r[0], r[1]);
    }
}

package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** A plan lowers one map (the tail's, which may land below Δ) or that map of every layer (which lands on Δ). */
class RefreshPlanTest {

    @Test
    void aMapOfEveryLayerIsLoweredInEachLayerAndOnlyTheTailsMayLandBelowDelta() {
        RefreshPlan plan = RefreshPlan.GREEDY
                .lowering(RefreshPlan.site("layers.0.attention", 0), 5)
                .lowering(RefreshPlan.exactSite("embed_out", 0), 1);
        assertEquals("layers.*.attention#0", RefreshPlan.everyLayer("layers.11.attention#0"));
        assertEquals("embed_out#0", RefreshPlan.everyLayer("embed_out#0"));
        assertEquals(OptionalInt.of(5), plan.loweredTo("layers.0.attention#0"));
        assertEquals(OptionalInt.of(5), plan.loweredTo("layers.11.attention#0"));
        assertEquals(OptionalInt.empty(), plan.loweredTo("layers.0.attention#1"));
        assertEquals(OptionalInt.of(1), plan.loweredTo("embed_out#0"));
        assertFalse(plan.lowersTail("layers.3.attention#0"), "a map of every layer lands on Δ");
        assertTrue(plan.lowersTail("embed_out#0"));
        assertEquals("greedy; embed_out#0 at level 1; layers.*.attention#0 at level 5", plan.toString());
    }
}

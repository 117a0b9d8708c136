package dev.polyhe.api.arith;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ScalarArithTest {
    private final ScalarArith arith = new ScalarArith();

    @Test
    void depthFollowsCkksLevels() {
        Traced x = Traced.of(3);
        Traced x2 = arith.mul(x, x);
        assertEquals(9, x2.value());
        assertEquals(1, x2.depth());
        assertEquals(1, arith.mulConstant(x2, 2).depth(), "integer constants cost no level");
        assertEquals(2, arith.mulConstant(x2, 0.5).depth(), "real constants cost one level");
        assertEquals(2, arith.mul(x2, x).depth());
        assertEquals(1, arith.add(x2, x).depth(), "additions take the deeper operand");
        assertEquals(3, arith.multiplications(), "two products and one real-constant product");
    }
}

package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.KeySetMember;
import dev.polyhe.api.he.Plaintext;

/** Refuses foreign operands before any arithmetic, naming both sides of the mismatch. */
final class OperandCheck {
    /** Relative scale difference still treated as rounding (primes near 2^logScale drift by about this much). */
    static final double SCALE_TOLERANCE = 0x1p-16;

    private OperandCheck() {}

    static CkksPlaintext plaintext(Plaintext p, String parameterHash) {
        if (!(p instanceof CkksPlaintext pt)) {
            throw new HeException(
                    "plaintext " + describe(p) + " was not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        sameParameters(pt.parameterHash(), parameterHash, "plaintext");
        return pt;
    }

    static CkksCiphertext ciphertext(Ciphertext c, String parameterHash, String keySetId) {
        if (!(c instanceof CkksCiphertext ct)) {
            throw new HeException(
                    "ciphertext " + describe(c) + " was not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        sameParameters(ct.parameterHash(), parameterHash, "ciphertext");
        sameKeySet(ct, keySetId, "ciphertext");
        return ct;
    }

    static void sameParameters(String actual, String expected, String what) {
        if (!actual.equals(expected)) {
            throw new HeException(what + " belongs to parameter set " + actual + " but this context has " + expected);
        }
    }

    static void sameKeySet(KeySetMember m, String keySetId, String what) {
        if (keySetId != null && !m.keySetId().equals(keySetId)) {
            throw new HeException(
                    what + " belongs to key set " + m.keySetId() + " but these keys are key set " + keySetId);
        }
    }

    static void sameScale(double a, double b, String op) {
        if (Math.abs(a - b) > SCALE_TOLERANCE * Math.max(a, b)) {
            throw new HeException(String.format(
                    "%s: scales differ beyond rounding: 2^%.4f vs 2^%.4f (%s vs %s); "
                            + "rescale or multiply by a constant to align them",
                    op, log2(a), log2(b), a, b));
        }
    }

    static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }

    private static String describe(Object o) {
        return o == null ? "null" : o.getClass().getName();
    }
}

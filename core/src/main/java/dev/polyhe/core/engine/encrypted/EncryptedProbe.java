package dev.polyhe.core.engine.encrypted;

import dev.polyhe.core.engine.trace.Probe;

/** Level, scale, assumed range and imaginary parts of {@link EncryptedTensor}s, for error traces (client side). */
public final class EncryptedProbe implements Probe<EncryptedTensor> {
    private final EncryptedEngine engine;
    /** The tensor last decrypted and its largest |real| and |imaginary| parts: a step asks for both. */
    private EncryptedTensor decrypted;

    private double[] parts;

    public EncryptedProbe(EncryptedEngine engine) {
        this.engine = engine;
    }

    @Override
    public int level(EncryptedTensor value) {
        return value.level();
    }

    @Override
    public double logScale(EncryptedTensor value) {
        return Math.log(value.scale()) / Math.log(2);
    }

    @Override
    public double bound(EncryptedTensor value) {
        return value.range == null ? Double.NaN : value.range.maxAbs();
    }

    @Override
    public String boundSource(EncryptedTensor value) {
        return value.range == null ? null : value.range.origin().label;
    }

    @Override
    public double slotMagnitude(EncryptedTensor value) {
        return largestParts(value)[0];
    }

    @Override
    public double imaginary(EncryptedTensor value) {
        return largestParts(value)[1];
    }

    /** Max |real part| and max |imaginary part| over every slot, each ciphertext decrypted once per tensor. */
    private double[] largestParts(EncryptedTensor value) {
        if (value != decrypted) {
            double re = 0;
            double im = 0;
            for (var c : value.cts) {
                double[][] slots = engine.decryptComplex(c);
                for (int i = 0; i < slots[0].length; i++) {
                    re = Math.max(re, Math.abs(slots[0][i]));
                    im = Math.max(im, Math.abs(slots[1][i]));
                }
            }
            decrypted = value;
            parts = new double[] {re, im};
        }
        return parts;
    }
}

package dev.polyhe.core.engine.ckks;

import dev.polyhe.core.engine.trace.Probe;

/** Level, scale, assumed range and imaginary parts of {@link CkksTensor}s, for error traces (client side). */
public final class CkksProbe implements Probe<CkksTensor> {
    private final CkksEngine engine;

    public CkksProbe(CkksEngine engine) {
        this.engine = engine;
    }

    @Override
    public int level(CkksTensor value) {
        return value.level();
    }

    @Override
    public double logScale(CkksTensor value) {
        return Math.log(value.scale()) / Math.log(2);
    }

    @Override
    public double bound(CkksTensor value) {
        return value.range == null ? Double.NaN : value.range.maxAbs();
    }

    @Override
    public double slotMagnitude(CkksTensor value) {
        double m = 0;
        for (var c : value.cts) {
            for (double v : engine.decryptComplex(c)[0]) {
                m = Math.max(m, Math.abs(v));
            }
        }
        return m;
    }

    @Override
    public double imaginary(CkksTensor value) {
        double m = 0;
        for (var c : value.cts) {
            for (double v : engine.decryptComplex(c)[1]) {
                m = Math.max(m, Math.abs(v));
            }
        }
        return m;
    }
}

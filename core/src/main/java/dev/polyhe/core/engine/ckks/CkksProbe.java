package dev.polyhe.core.engine.ckks;

import dev.polyhe.core.engine.trace.Probe;

/** Level and scale of {@link CkksTensor}s, for error traces. */
public final class CkksProbe implements Probe<CkksTensor> {
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
}

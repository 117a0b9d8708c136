package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;

/**
 * Told, during a run, of every model parameter the engine is given and where
 * ({@link EncryptedEngine#recordParameters}):
 * what a model's owner encrypts for a server that runs the model without seeing it ({@link EncryptedParameters}).
 * A site is the operator's path and the call's ordinal there, the same on every run of the model.
 */
public interface ParameterRecorder {
    /** A linear map's weight [out, in] and bias (null: none). */
    void linear(String site, Matrix weight, double[] bias);

    /** A row vector multiplied into or added to every row ({@code mulRow}, {@code addRow}). */
    void row(String site, double[] values);
}

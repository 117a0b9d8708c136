package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;
import dev.polyhe.core.engine.ShapeCheck;

/**
 * Where each entry of a [rows, cols] matrix sits among a tensor's ciphertext slots, for every {@link Layout}: the
 * one map both ways, plaintext vectors for encryption and plaintext operands ({@link #inLayout}), and a matrix
 * from decrypted slots ({@link #arranged}).
 */
final class SlotLayout {
    /** Where an entry of stacked head scores sits. */
    private interface HeadEntry {
        void at(int row, int col, int ciphertext, int slot);
    }

    private final int slots;

    /** @param slots P, the slots per column */
    SlotLayout(int slots) {
        this.slots = slots;
    }

    /** The tensor's values from the decrypted slots of its ciphertexts. */
    Matrix arranged(EncryptedTensor m, double[][] slotsOf) {
        double[] out = new double[m.rows * m.cols];
        if (m.layout == Layout.COLUMNS) {
            for (int c = 0; c < m.cols; c++) {
                for (int r = 0; r < m.rows; r++) {
                    out[r * m.cols + c] = slotsOf[c][r];
                }
            }
        } else if (m.layout == Layout.BLOCKS) {
            int b = m.perCiphertext;
            for (int c = 0; c < m.cols; c++) {
                for (int r = 0; r < m.rows; r++) {
                    out[r * m.cols + c] = slotsOf[c / b][(c % b) * slots + r];
                }
            }
        } else if (m.layout == Layout.HEAD_DIAGONALS) {
            forEachHeadEntry(m, (row, u, ct, slot) -> out[row * m.cols + u] = slotsOf[ct][slot]);
        } else {
            int d = m.perCiphertext;
            for (int i = 0; i < m.cts.length; i++) {
                for (int j = 0; j < d; j++) {
                    for (int t = 0; t < m.rows; t++) {
                        int u = (t + i * d + j) % slots;
                        if (u < m.cols) {
                            out[t * m.cols + u] = slotsOf[i][j * slots + t];
                        }
                    }
                }
            }
        }
        return new Matrix(m.rows, m.cols, out);
    }

    /** The plaintext vectors of a [rows, cols] matrix in a tensor's layout, zero in padding. */
    double[][] inLayout(EncryptedTensor m, Matrix p, String op) {
        ShapeCheck.sameShape(op, m.rows, m.cols, p);
        double[][] vecs = new double[m.cts.length][];
        if (m.layout == Layout.COLUMNS) {
            for (int c = 0; c < m.cols; c++) {
                vecs[c] = new double[slots];
                for (int r = 0; r < m.rows; r++) {
                    vecs[c][r] = p.get(r, c);
                }
            }
        } else if (m.layout == Layout.BLOCKS) {
            int b = m.perCiphertext;
            for (int k = 0; k < vecs.length; k++) {
                vecs[k] = new double[b * slots];
            }
            for (int c = 0; c < m.cols; c++) {
                for (int r = 0; r < m.rows; r++) {
                    vecs[c / b][(c % b) * slots + r] = p.get(r, c);
                }
            }
        } else if (m.layout == Layout.HEAD_DIAGONALS) {
            int width = m.heads.segments() * slots;
            for (int i = 0; i < vecs.length; i++) {
                vecs[i] = new double[width];
            }
            forEachHeadEntry(m, (row, u, ct, slot) -> vecs[ct][slot] = p.get(row, u));
        } else {
            int d = m.perCiphertext;
            for (int i = 0; i < m.cts.length; i++) {
                vecs[i] = new double[d * slots];
                for (int j = 0; j < d; j++) {
                    for (int t = 0; t < m.rows; t++) {
                        int u = (t + i * d + j) % slots;
                        if (u < m.cols) {
                            vecs[i][j * slots + t] = p.get(t, u);
                        }
                    }
                }
            }
        }
        return vecs;
    }

    /** Every entry (row h·T + t, column u) of stacked head scores, with its ciphertext and slot. */
    private void forEachHeadEntry(EncryptedTensor m, HeadEntry f) {
        HeadPacking hp = m.heads;
        int tokens = m.cols;
        for (int h = 0; h < hp.heads(); h++) {
            for (int t = 0; t < tokens; t++) {
                for (int u = 0; u < tokens; u++) {
                    int s = Math.floorMod(u - t, slots);
                    f.at(h * tokens + t, u, hp.ciphertext(h, s, slots), hp.slot(h, t, s, slots));
                }
            }
        }
    }
}

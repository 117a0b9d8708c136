package dev.polyhe.core.engine.encrypted;

import dev.polyhe.api.Matrix;
import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.Encoder;
import dev.polyhe.api.he.Encryptor;
import dev.polyhe.api.he.Plaintext;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Random;

/**
 * The client's side of the engine: encryption of matrices in the engine's packing and decryption back, with noise
 * flooding. A server's engine has neither key, and every operation here says so.
 */
final class ClientCodec {
    private final EncryptedEngine engine;
    private final Encoder encoder;
    private final Encryptor encryptor;
    private final Decryptor decryptor;
    private final CiphertextBounds bounds;
    private final SlotLayout layout;
    private final int slots;
    private final int blockColumns;
    private final int diagonalsPerCiphertext;
    private final int maxLevel;
    private final double scale;

    /** @param engine whose encoding, timing and value ranges the codec's tensors get */
    ClientCodec(
            EncryptedEngine engine,
            Encoder encoder,
            Encryptor encryptor,
            Decryptor decryptor,
            CiphertextBounds bounds,
            SlotLayout layout,
            Packing packing,
            int maxLevel,
            double scale) {
        this.engine = engine;
        this.encoder = encoder;
        this.encryptor = encryptor;
        this.decryptor = decryptor;
        this.bounds = bounds;
        this.layout = layout;
        this.slots = packing.slots();
        this.blockColumns = packing.columnsPerCiphertext();
        this.diagonalsPerCiphertext = packing.diagonalsPerCiphertext();
        this.maxLevel = maxLevel;
        this.scale = scale;
    }

    /** See {@link EncryptedEngine#fromPlain}. */
    EncryptedTensor fromPlain(Matrix m) {
        requireEncryptor();
        if (m.rows() > slots) {
            throw new IllegalArgumentException("matrix has " + m.rows() + " rows but the packing holds " + slots
                    + " per ciphertext; use a wider packing");
        }
        EncryptedTensor shape = blockColumns == 1
                ? new EncryptedTensor(Layout.COLUMNS, m.rows(), m.cols(), new Ciphertext[m.cols()], true)
                : new EncryptedTensor(
                        Layout.BLOCKS, m.rows(), m.cols(), new Ciphertext[engine.blocks(m.cols())], true, blockColumns);
        return encrypted(shape, m, "fromPlain");
    }

    /** {@code m} encrypted at the top level in the layout of {@code shape} (client side). */
    private EncryptedTensor encrypted(EncryptedTensor shape, Matrix m, String op) {
        Ciphertext[] cts = encrypted(layout.inLayout(shape, m, op), maxLevel);
        return engine.ranged(shape.with(cts, true), ValueRange.of(m.data(), true));
    }

    /** Each slot vector encoded and encrypted at {@code level}, bounded by its largest |entry|. */
    private Ciphertext[] encrypted(double[][] vecs, int level) {
        Ciphertext[] cts = new Ciphertext[vecs.length];
        for (int i = 0; i < cts.length; i++) {
            Plaintext p = engine.ops().encode(vecs[i], vecs[i].length, level, OperatorKind.OTHER);
            cts[i] = bounds.set(
                    engine.timed(OperatorKind.OTHER, PrimitiveKind.ENCRYPT, () -> encryptor.encrypt(p)),
                    LeveledOps.maxAbs(vecs[i]));
        }
        return cts;
    }

    /** See {@link EncryptedEngine#encryptWeights}. */
    EncryptedWeights encryptWeights(Matrix weight, int level) {
        requireEncryptor();
        if (blockColumns == 1) {
            throw new IllegalArgumentException("encrypted weights need column blocks (more than one column per "
                    + "ciphertext): generate the keys with --max-columns");
        }
        if (level < 2 || level > maxLevel) {
            throw new IllegalArgumentException("encrypted weights at level " + level + ": their masks and their"
                    + " product need two levels, so 2 .. " + maxLevel);
        }
        Ciphertext[] cts = encrypted(SkewedWeights.vectors(weight, slots, blockColumns), level);
        double maxRowSum = 0;
        for (int o = 0; o < weight.rows(); o++) {
            double sum = 0;
            for (int i = 0; i < weight.cols(); i++) {
                sum += Math.abs(weight.get(o, i));
            }
            maxRowSum = Math.max(maxRowSum, sum);
        }
        return new EncryptedWeights(
                weight.rows(), weight.cols(), slots, blockColumns, cts, LeveledOps.maxAbs(weight.data()), maxRowSum);
    }

    /** See {@link EncryptedEngine#encryptRow}. */
    EncryptedRow encryptRow(double[] values, int level) {
        requireEncryptor();
        if (blockColumns == 1) {
            throw new IllegalArgumentException("encrypted rows need column blocks (more than one column per "
                    + "ciphertext): generate the keys with --max-columns");
        }
        double[][] vecs = new double[engine.blocks(values.length)][];
        for (int i = 0; i < vecs.length; i++) {
            vecs[i] = new double[blockColumns * slots];
            for (int j = 0; j < blockColumns && i * blockColumns + j < values.length; j++) {
                java.util.Arrays.fill(vecs[i], j * slots, (j + 1) * slots, values[i * blockColumns + j]);
            }
        }
        return new EncryptedRow(values.length, encrypted(vecs, level), LeveledOps.maxAbs(values));
    }

    /** See {@link EncryptedEngine#likeOf(EncryptedParameters)}. */
    EncryptedParameters likeOf(EncryptedParameters p) {
        requireEncryptor();
        java.util.Map<String, EncryptedParameters.LinearSite> linear = new java.util.LinkedHashMap<>();
        p.linear().forEach((site, s) -> {
            EncryptedWeights w = s.weight();
            EncryptedWeights like = new EncryptedWeights(
                    w.rows, w.cols, w.slots, w.columns, zerosLike(w.cts, w.maxAbs), w.maxAbs, w.maxRowSum);
            linear.put(site, new EncryptedParameters.LinearSite(like, s.bias() == null ? null : likeOf(s.bias())));
        });
        java.util.Map<String, EncryptedRow> rows = new java.util.LinkedHashMap<>();
        p.rows().forEach((site, r) -> rows.put(site, likeOf(r)));
        return new EncryptedParameters(linear, rows);
    }

    private EncryptedRow likeOf(EncryptedRow r) {
        return new EncryptedRow(r.cols, zerosLike(r.cts, r.maxAbs), r.maxAbs);
    }

    /** Encryptions of zero at the levels, slots and scales of {@code cts}, bounded by {@code bound}. */
    private Ciphertext[] zerosLike(Ciphertext[] cts, double bound) {
        Ciphertext[] out = zerosLike(cts);
        for (Ciphertext c : out) {
            bounds.set(c, bound);
        }
        return out;
    }

    /** Encryptions of zero at the levels, slots and scales of {@code cts}. */
    private Ciphertext[] zerosLike(Ciphertext[] cts) {
        Ciphertext[] out = new Ciphertext[cts.length];
        for (int i = 0; i < out.length; i++) {
            Ciphertext c = cts[i];
            out[i] = encryptor.encrypt(encoder.encode(new double[c.slots()], c.slots(), c.level(), c.scale()));
        }
        return out;
    }

    /** See {@link EncryptedEngine#likeOf}. */
    EncryptedTensor likeOf(EncryptedTensor other) {
        if (encryptor == null) {
            throw new IllegalStateException("likeOf encrypts: it needs an engine with an encryptor");
        }
        return engine.ranged(other.with(zerosLike(other.cts), other.clean), other.range);
    }

    /** See {@link EncryptedEngine#fromPlainScores}. */
    EncryptedTensor fromPlainScores(Matrix scores) {
        requireEncryptor();
        if (scores.rows() != scores.cols() || scores.rows() > slots) {
            throw new IllegalArgumentException("scores must be square with at most " + slots + " rows, got ["
                    + scores.rows() + ", " + scores.cols() + "]");
        }
        int d = diagonalsPerCiphertext;
        EncryptedTensor shape =
                new EncryptedTensor(Layout.DIAGONALS, scores.rows(), scores.cols(), new Ciphertext[slots / d], true, d);
        return encrypted(shape, scores, "fromPlainScores");
    }

    /** See {@link EncryptedEngine#toPlain(EncryptedTensor, NoiseFlooding, Random)}. */
    EncryptedEngine.Decrypted toPlain(EncryptedTensor m, NoiseFlooding flooding, Random random) {
        requireDecryptor();
        // a ciphertext shared by several positions (a row sum's) is decrypted, and flooded, once
        Map<Ciphertext, double[][]> decrypted = new IdentityHashMap<>();
        double[][][] complexOf = new double[m.cts.length][][];
        for (int i = 0; i < m.cts.length; i++) {
            complexOf[i] = decrypted.computeIfAbsent(
                    m.cts[i],
                    c -> encoder.decodeComplex(
                            engine.timed(OperatorKind.OTHER, PrimitiveKind.DECRYPT, () -> decryptor.decrypt(c))));
        }
        NoiseFlooding.Applied applied = null;
        if (flooding.enabled()) {
            // t from the slots the tensor reads out: padding slots hold other values (masked products, a bootstrap's
            // unused half) whose error need not track the output's
            double[][] imaginaryOf = new double[m.cts.length][];
            for (int i = 0; i < m.cts.length; i++) {
                imaginaryOf[i] = complexOf[i][1];
            }
            double t = NoiseFlooding.errorEstimate(
                    new double[][] {layout.arranged(m, imaginaryOf).data()}, 1 / scale);
            applied = new NoiseFlooding.Applied(flooding, t, flooding.sigma(t));
            for (double[][] z : decrypted.values()) {
                NoiseFlooding.flood(z[0], applied.sigma(), random);
            }
        }
        double[][] slotsOf = new double[m.cts.length][];
        for (int i = 0; i < m.cts.length; i++) {
            slotsOf[i] = complexOf[i][0];
        }
        return new EncryptedEngine.Decrypted(layout.arranged(m, slotsOf), applied);
    }

    /** See {@link EncryptedEngine#decryptSlots}. */
    double[] decryptSlots(Ciphertext c) {
        requireDecryptor();
        return decryptComplex(c)[0];
    }

    /** See {@link EncryptedEngine#decryptComplex}. */
    double[][] decryptComplex(Ciphertext c) {
        requireDecryptor();
        return encoder.decodeComplex(decryptor.decrypt(c));
    }

    private void requireEncryptor() {
        if (encryptor == null) {
            throw new IllegalStateException("this engine has no encryptor (server side): encrypt on the client");
        }
    }

    private void requireDecryptor() {
        if (decryptor == null) {
            throw new IllegalStateException("this engine has no decryptor (server side): decrypt on the client");
        }
    }
}

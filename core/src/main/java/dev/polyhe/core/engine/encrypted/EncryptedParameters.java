package dev.polyhe.core.engine.encrypted;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A model's parameters encrypted by its owner, by the site the engine uses each at ({@link ParameterRecorder}): the
 * linear maps' weights and biases, and the row vectors of LayerNorm. An engine given them
 * ({@link EncryptedEngine#useParameters}) runs every such operation on them, whatever values the model passes, and
 * refuses an operation it has no parameter for: a model whose weights it holds only as magnitudes computes nothing
 * from them unseen.
 */
public final class EncryptedParameters {
    /** A linear map's encrypted weight and bias (null: none). */
    public record LinearSite(EncryptedWeights weight, EncryptedRow bias) {}

    private final Map<String, LinearSite> linear;
    private final Map<String, EncryptedRow> rows;

    public EncryptedParameters(Map<String, LinearSite> linear, Map<String, EncryptedRow> rows) {
        this.linear = Collections.unmodifiableMap(new LinkedHashMap<>(linear));
        this.rows = Collections.unmodifiableMap(new LinkedHashMap<>(rows));
    }

    public Map<String, LinearSite> linear() {
        return linear;
    }

    public Map<String, EncryptedRow> rows() {
        return rows;
    }

    /** Every site, linear maps first, in the order of the run that recorded them. */
    public Set<String> sites() {
        Set<String> all = new java.util.LinkedHashSet<>(linear.keySet());
        all.addAll(rows.keySet());
        return all;
    }

    /** The ciphertexts' bytes in memory on a ring of degree {@code ringDegree}. */
    public long bytes(int ringDegree) {
        long b = 0;
        for (LinearSite s : linear.values()) {
            b += bytes(s.weight().cts, ringDegree) + (s.bias() == null ? 0 : bytes(s.bias().cts, ringDegree));
        }
        for (EncryptedRow r : rows.values()) {
            b += bytes(r.cts, ringDegree);
        }
        return b;
    }

    /** Two polynomials of (level + 1) limbs of {@code ringDegree} words each, per ciphertext. */
    static long bytes(dev.polyhe.api.he.Ciphertext[] cts, int ringDegree) {
        long b = 0;
        for (var c : cts) {
            b += 2L * (c.level() + 1) * ringDegree * Long.BYTES;
        }
        return b;
    }

    LinearSite linearAt(String site) {
        LinearSite s = linear.get(site);
        if (s == null) {
            throw new IllegalStateException(missing("linear map", site, linear.keySet()));
        }
        return s;
    }

    EncryptedRow rowAt(String site) {
        EncryptedRow r = rows.get(site);
        if (r == null) {
            throw new IllegalStateException(missing("row vector", site, rows.keySet()));
        }
        return r;
    }

    private static String missing(String what, String site, Set<String> known) {
        return "the encrypted model has no " + what + " for " + site + " (it holds " + known.size() + ": "
                + String.join(", ", known.stream().limit(6).toList()) + (known.size() > 6 ? ", ..." : "")
                + "): was it encrypted for this model and these options?";
    }

    /**
     * What the server learns of a site beside its ciphertexts: a linear map's shape, largest |weight| and largest row
     * sum of |weights|, its bias's largest |entry| (NaN: no bias); a row vector's length and largest |entry|.
     */
    public record Site(boolean linear, int rows, int cols, double maxAbs, double maxRowSum, double biasMaxAbs) {
        public Shape shape() {
            return new Shape(linear, rows, cols, !Double.isNaN(biasMaxAbs));
        }
    }

    /** What a model's code fixes about a site: a linear map (rows × cols, with or without bias) or a row vector. */
    public record Shape(boolean linear, int rows, int cols, boolean bias) {
        @Override
        public String toString() {
            return linear
                    ? "a " + rows + "×" + cols + " linear map " + (bias ? "with" : "without") + " bias"
                    : "a row vector of " + cols;
        }
    }

    /** Every site's {@link Site}, in {@link #sites} order. */
    public Map<String, Site> describe() {
        Map<String, Site> out = new LinkedHashMap<>();
        linear.forEach((k, s) -> out.put(
                k,
                new Site(
                        true,
                        s.weight().rows,
                        s.weight().cols,
                        s.weight().maxAbs,
                        s.weight().maxRowSum,
                        s.bias() == null ? Double.NaN : s.bias().maxAbs)));
        rows.forEach((k, r) -> out.put(k, new Site(false, 1, r.cols, r.maxAbs, r.maxAbs, Double.NaN)));
        return out;
    }

    /**
     * The ciphertexts as tensors of the encrypted file format ({@link EncryptedTensorFormat}): each site's weight,
     * bias or row as one row of column blocks that carries its ciphertexts in order ({@link #fromCarriers} undoes it).
     */
    public Map<String, EncryptedTensor> carriers(Packing packing) {
        int columns = packing.columnsPerCiphertext();
        Map<String, EncryptedTensor> out = new LinkedHashMap<>();
        linear.forEach((k, s) -> {
            out.put("weight " + k, carrier(s.weight().cts, columns));
            if (s.bias() != null) {
                out.put("bias " + k, carrier(s.bias().cts, columns));
            }
        });
        rows.forEach((k, r) -> out.put("row " + k, carrier(r.cts, columns)));
        return out;
    }

    private static EncryptedTensor carrier(dev.polyhe.api.he.Ciphertext[] cts, int perCiphertext) {
        return new EncryptedTensor(Layout.BLOCKS, 1, cts.length * perCiphertext, cts, true, perCiphertext);
    }

    /**
     * The parameters of {@code sites} from their {@link #carriers} read back, with the packing they were made for.
     *
     * @throws IllegalArgumentException naming a site whose ciphertexts are missing or do not fit its shape
     */
    public static EncryptedParameters fromCarriers(
            Map<String, Site> sites, Map<String, EncryptedTensor> carriers, Packing packing) {
        int slots = packing.slots();
        int columns = packing.columnsPerCiphertext();
        Map<String, LinearSite> l = new LinkedHashMap<>();
        Map<String, EncryptedRow> r = new LinkedHashMap<>();
        sites.forEach((k, s) -> {
            if (s.linear()) {
                EncryptedWeights w = new EncryptedWeights(
                        s.rows(),
                        s.cols(),
                        slots,
                        columns,
                        carried(carriers, "weight " + k),
                        s.maxAbs(),
                        s.maxRowSum());
                EncryptedRow bias = Double.isNaN(s.biasMaxAbs())
                        ? null
                        : row(k, s.rows(), carried(carriers, "bias " + k), s.biasMaxAbs(), columns);
                l.put(k, new LinearSite(w, bias));
            } else {
                r.put(k, row(k, s.cols(), carried(carriers, "row " + k), s.maxAbs(), columns));
            }
        });
        return new EncryptedParameters(l, r);
    }

    /**
     * Whether a file's carriers, by name and ciphertext count ({@link EncryptedTensorFormat#scan}), hold exactly
     * the parameters of {@code sites}: each site's ciphertexts, as many as its shape needs, and nothing else.
     *
     * @throws IllegalArgumentException naming the first site or carrier that does not fit
     */
    public static void checkCarriers(Map<String, Site> sites, Map<String, Integer> ciphertexts, Packing packing) {
        Map<String, EncryptedTensor> shapesOnly = new LinkedHashMap<>();
        ciphertexts.forEach((name, n) ->
                shapesOnly.put(name, carrier(new dev.polyhe.api.he.Ciphertext[n], packing.columnsPerCiphertext())));
        EncryptedParameters p = fromCarriers(sites, shapesOnly, packing);
        Set<String> expected = p.carriers(packing).keySet();
        for (String name : ciphertexts.keySet()) {
            if (!expected.contains(name)) {
                throw new IllegalArgumentException(
                        "the encrypted parameters hold '" + name + "', which the manifest lists no site for");
            }
        }
    }

    private static EncryptedRow row(
            String site, int cols, dev.polyhe.api.he.Ciphertext[] cts, double maxAbs, int columns) {
        int blocks = SkewedWeights.blocks(cols, columns);
        if (cts.length != blocks) {
            throw new IllegalArgumentException("the row vector of " + site + " has " + cols + " entries, which need "
                    + blocks + " ciphertexts, but the file holds " + cts.length);
        }
        return new EncryptedRow(cols, cts, maxAbs);
    }

    private static dev.polyhe.api.he.Ciphertext[] carried(Map<String, EncryptedTensor> carriers, String name) {
        EncryptedTensor t = carriers.get(name);
        if (t == null) {
            throw new IllegalArgumentException("the encrypted parameters lack '" + name + "'");
        }
        return t.cts;
    }
}

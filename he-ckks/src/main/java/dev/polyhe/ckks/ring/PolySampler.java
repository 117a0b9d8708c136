package dev.polyhe.ckks.ring;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Randomness for keys and encryption. Secrets draw straight from {@link SecureRandom}
 * ({@link #forSecrets()}); the bulk randomness of keys and encryptions (uniform masks, errors, ephemeral
 * ternary polynomials) comes from an AES-256-CTR keystream keyed from {@link SecureRandom}, fast enough for
 * the megabytes a key-switching key needs. Errors follow the discrete Gaussian of σ = 3.2 on [-19, 19]
 * (6σ tail cut), sampled by inversion of its cumulative table at 63-bit precision. One sampler per
 * operation; not thread-safe.
 */
public final class PolySampler {
    /** Standard deviation of the error distribution (HE Security Standard). */
    public static final double SIGMA = 3.2;

    private static final SecureRandom SEED_SOURCE = new SecureRandom();

    /** Cumulative distribution of the discrete Gaussian on [-TAIL, TAIL], scaled to 2^63. */
    private static final int TAIL = 19;

    private static final long[] CDT = cumulativeTable();

    private final SecureRandom direct;
    private final Cipher cipher;
    private final byte[] zeros = new byte[8192];
    private final ByteBuffer stream = ByteBuffer.allocate(8192).order(ByteOrder.LITTLE_ENDIAN);

    private PolySampler(SecureRandom direct) {
        this.direct = direct;
        this.cipher = null;
    }

    /** A sampler reading SecureRandom directly (slower; for secret keys). */
    public static PolySampler forSecrets() {
        return new PolySampler(SEED_SOURCE);
    }

    public PolySampler() {
        this.direct = null;
        byte[] key = new byte[32];
        byte[] iv = new byte[16];
        SEED_SOURCE.nextBytes(key);
        SEED_SOURCE.nextBytes(iv);
        try {
            cipher = Cipher.getInstance("AES/CTR/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new IvParameterSpec(iv));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-CTR is not available in this JVM", e);
        }
        stream.position(stream.limit());
    }

    public long nextLong() {
        if (direct != null) {
            return direct.nextLong();
        }
        if (stream.remaining() < 8) {
            byte[] block = cipher.update(zeros);
            stream.clear();
            stream.put(block);
            stream.flip();
        }
        return stream.getLong();
    }

    /** Uniform in [0, q). */
    public void uniform(Modulus m, long[] out) {
        long q = m.value();
        long mask = (1L << m.bits()) - 1;
        for (int i = 0; i < out.length; i++) {
            long v;
            do {
                v = nextLong() & mask;
            } while (v >= q);
            out[i] = v;
        }
    }

    private static long[] cumulativeTable() {
        double[] weight = new double[2 * TAIL + 1];
        double total = 0;
        for (int x = -TAIL; x <= TAIL; x++) {
            weight[x + TAIL] = Math.exp(-(double) x * x / (2 * SIGMA * SIGMA));
            total += weight[x + TAIL];
        }
        long[] cdt = new long[weight.length];
        double acc = 0;
        for (int i = 0; i < weight.length; i++) {
            acc += weight[i] / total;
            cdt[i] = i == weight.length - 1 ? Long.MAX_VALUE : (long) (acc * 0x1p63);
        }
        return cdt;
    }

    /** Discrete Gaussian of standard deviation σ = 3.2 on [-19, 19]. */
    public void gaussian(long[] out) {
        for (int i = 0; i < out.length; i++) {
            long u = nextLong() >>> 1;
            int lo = 0;
            int hi = CDT.length - 1;
            while (lo < hi) { // first index with u < CDT[index]
                int mid = (lo + hi) >>> 1;
                if (u < CDT[mid]) {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            out[i] = lo - TAIL;
        }
    }

    /** Uniform ternary coefficients in {-1, 0, 1}. */
    public void ternary(long[] out) {
        for (int i = 0; i < out.length; i++) {
            long v;
            do {
                v = nextLong() & 3;
            } while (v == 3);
            out[i] = v - 1;
        }
    }

    /** Ternary with exactly {@code h} non-zero coefficients at uniformly random positions. */
    public void sparseTernary(int h, long[] out) {
        int n = out.length;
        int[] positions = new int[n];
        for (int i = 0; i < n; i++) {
            positions[i] = i;
        }
        java.util.Arrays.fill(out, 0);
        for (int i = 0; i < h; i++) {
            int j = i + uniformBelow(n - i);
            int tmp = positions[i];
            positions[i] = positions[j];
            positions[j] = tmp;
            out[positions[i]] = (nextLong() & 1) == 0 ? 1 : -1;
        }
    }

    private int uniformBelow(int bound) {
        long limit = Long.MAX_VALUE - Long.MAX_VALUE % bound;
        long v;
        do {
            v = nextLong() >>> 1;
        } while (v >= limit);
        return (int) (v % bound);
    }
}

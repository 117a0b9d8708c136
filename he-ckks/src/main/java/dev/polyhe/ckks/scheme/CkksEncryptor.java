package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Encryptor;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.ring.PolySampler;
import dev.polyhe.ckks.ring.RnsArithmetic;
import dev.polyhe.ckks.ring.RnsRing;

/**
 * Public-key encryption (v·pk + (m + e0, e1), v ternary) or symmetric encryption ((-a·s + m + e, a), a uniform),
 * at the plaintext's level, on the host; the ciphertext is handed to the ring executor.
 */
final class CkksEncryptor implements Encryptor {
    private final SchemeParameters params;
    private final RnsArithmetic arith;
    private final RingExecutor exec;
    private final CkksPublicKey publicKey;
    private final CkksSecretKey secretKey;

    CkksEncryptor(SchemeParameters params, RingExecutor exec, CkksPublicKey publicKey, CkksSecretKey secretKey) {
        this.params = params;
        this.exec = exec;
        this.arith = new RnsArithmetic(params.ring());
        this.publicKey = publicKey;
        this.secretKey = secretKey;
    }

    @Override
    public Ciphertext encrypt(Plaintext plaintext) {
        CkksPlaintext pt = OperandCheck.plaintext(plaintext, params.hash());
        RnsRing ring = params.ring();
        int level = pt.level();
        int[] primes = RnsRing.prefix(level);
        PolySampler sampler = new PolySampler();
        long[] e0 = new long[ring.n()];
        sampler.gaussian(e0);
        long[][] e0Ntt = ring.zeros(level + 1);
        ring.fromSigned(e0, e0Ntt, primes);
        long[][] m = exec.download(pt.poly, level + 1);
        long[][] c0;
        long[][] c1;
        String keySet;
        if (publicKey != null) {
            long[] v = new long[ring.n()];
            sampler.ternary(v);
            long[] e1 = new long[ring.n()];
            sampler.gaussian(e1);
            long[][] vNtt = ring.zeros(level + 1);
            long[][] e1Ntt = ring.zeros(level + 1);
            ring.fromSigned(v, vNtt, primes);
            ring.fromSigned(e1, e1Ntt, primes);
            c0 = arith.add(arith.add(arith.multiply(vNtt, publicKey.b, level), e0Ntt, level), m, level);
            c1 = arith.add(arith.multiply(vNtt, publicKey.a, level), e1Ntt, level);
            keySet = publicKey.keySetId();
        } else {
            long[][] a = ring.zeros(level + 1);
            for (int i = 0; i <= level; i++) {
                sampler.uniform(ring.modulus(i), a[i]);
            }
            long[][] as = arith.multiply(a, secretKey.secret.ntt(), level);
            c0 = arith.add(arith.sub(e0Ntt, as, level), m, level);
            c1 = a;
            keySet = secretKey.keySetId();
        }
        return new CkksCiphertext(
                exec.upload(c0), exec.upload(c1), level, pt.scale(), pt.slots(), params.hash(), keySet);
    }
}

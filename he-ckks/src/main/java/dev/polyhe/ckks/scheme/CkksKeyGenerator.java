package dev.polyhe.ckks.scheme;

import dev.polyhe.ckks.bootstrap.BootstrapParameters;
import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.PolySampler;
import dev.polyhe.ckks.ring.RnsArithmetic;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.RlweSecret;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import dev.polyhe.ckks.rlwe.SwitchingKeyGenerator;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;

/** Secret, public, relinearization, rotation and conjugation keys; Galois elements of rotations. */
final class CkksKeyGenerator {
    private static final SecureRandom ID_SOURCE = new SecureRandom();
    private final SchemeParameters params;
    private final SwitchingKeyGenerator switching;
    private final ConcurrentHashMap<Long, Automorphism> automorphisms = new ConcurrentHashMap<>();

    CkksKeyGenerator(SchemeParameters params) {
        this.params = params;
        this.switching = new SwitchingKeyGenerator(params.ring(), params.gadget());
    }

    CkksSecretKey secretKey() {
        RlweSecret s = RlweSecret.sample(params.ring(), params.literal().hammingWeight());
        byte[] id = new byte[12];
        ID_SOURCE.nextBytes(id);
        return new CkksSecretKey(s, params.hash(), HexFormat.of().formatHex(id));
    }

    CkksPublicKey publicKey(CkksSecretKey sk) {
        RnsRing ring = params.ring();
        int level = params.maxLevel();
        PolySampler sampler = new PolySampler();
        long[][] a = ring.zeros(level + 1);
        for (int i = 0; i <= level; i++) {
            sampler.uniform(ring.modulus(i), a[i]);
        }
        long[] e = new long[ring.n()];
        sampler.gaussian(e);
        long[][] eNtt = ring.zeros(level + 1);
        ring.fromSigned(e, eNtt, RnsRing.prefix(level));
        RnsArithmetic arith = new RnsArithmetic(ring);
        long[][] b = arith.sub(eNtt, arith.multiply(a, sk.secret.ntt(), level), level);
        return new CkksPublicKey(b, a, params.hash(), sk.keySetId());
    }

    SwitchingKey relinearizationKey(CkksSecretKey sk) {
        RnsRing ring = params.ring();
        int total = ring.qCount() + ring.pCount();
        long[][] s = sk.secret.ntt();
        long[][] s2 = new long[total][];
        ring.pool().forEach(total, i -> s2[i] = new RnsArithmetic(ring).multiplyLimb(i, s[i], s[i]));
        return switching.generate(sk.secret, s2);
    }

    /**
     * Key switching s(X^g) -&gt; s, stored with X -&gt; X^(g^-1) applied to every limb. With the key in that form a
     * rotation takes the inner product with the digits of c1 itself and applies X -&gt; X^g once to the result
     * (sigma(sum D_j · sigma^-1(K_j)) = sum sigma(D_j) · K_j), which is what lets hoisted rotations share the
     * digits without permuting them for every key.
     */
    SwitchingKey galoisKey(CkksSecretKey sk, long galoisElement) {
        RnsRing ring = params.ring();
        int total = ring.qCount() + ring.pCount();
        Automorphism g = automorphism(galoisElement);
        long[][] s = sk.secret.ntt();
        long[][] sg = new long[total][ring.n()];
        ring.pool().forEach(total, i -> g.apply(s[i], sg[i]));
        SwitchingKey key = switching.generate(sk.secret, sg);
        Automorphism inverse = automorphism(inverseElement(galoisElement));
        long[][][][] digits = key.digits();
        for (long[][][] digit : digits) {
            for (long[][] part : digit) {
                ring.pool().forEach(total, i -> {
                    long[] permuted = new long[ring.n()];
                    inverse.apply(part[i], permuted);
                    part[i] = permuted;
                });
            }
        }
        return key;
    }

    /**
     * A fresh ephemeral sparse secret s' and the keys s → s' (level 0 only, so s' is exposed modulo q_0·p_0
     * alone) and s' → s. s' itself is dropped: nothing else is ever encrypted under it.
     */
    EncapsulationKeys encapsulationKeys(CkksSecretKey sk) {
        RlweSecret ephemeral = RlweSecret.sample(params.ring(), BootstrapParameters.EPHEMERAL_HAMMING_WEIGHT);
        return new EncapsulationKeys(
                switching.generateForLevelZero(ephemeral, sk.secret.ntt()),
                switching.generate(sk.secret, ephemeral.ntt()));
    }

    /** g^-1 modulo 2N (g odd). */
    long inverseElement(long galoisElement) {
        long twoN = 2L * params.ring().n();
        return java.math.BigInteger.valueOf(galoisElement)
                .modInverse(java.math.BigInteger.valueOf(twoN))
                .longValue();
    }

    /** 5^step mod 2N: rotates the slots left by step. */
    long rotationElement(int step) {
        long twoN = 2L * params.ring().n();
        int s = Math.floorMod(step, params.slots());
        long g = 1;
        long base = 5;
        while (s > 0) {
            if ((s & 1) != 0) {
                g = g * base % twoN;
            }
            base = base * base % twoN;
            s >>= 1;
        }
        return g;
    }

    long conjugationElement() {
        return 2L * params.ring().n() - 1;
    }

    Automorphism automorphism(long galoisElement) {
        return automorphisms.computeIfAbsent(
                galoisElement, g -> new Automorphism(params.ring().logN(), g));
    }
}

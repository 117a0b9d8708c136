package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.ring.NttPrimes;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.GadgetDecomposition;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

/** A validated parameter literal: its primes, ring, key-switching gadget and stable hash. */
public final class SchemeParameters {
    /**
     * Bumped when prime selection or a stored layout changes, so old blobs are refused (2: rotation keys are
     * stored with the inverse automorphism applied; 3: evaluation keys carry bootstrapping slot counts and
     * encapsulation keys).
     */
    private static final String LAYOUT_VERSION = "ckks-cpu/3";

    private final CkksParameters literal;
    private final long[] qPrimes;
    private final long[] pPrimes;
    private final RnsRing ring;
    private final GadgetDecomposition gadget;
    private final String hash;
    private final double logQP;
    /** log2 of Q_0..Q_l for every level l. */
    private final double[] logQAtLevel;

    public SchemeParameters(CkksParameters literal, LimbPool pool) {
        this.literal = literal;
        if (literal.logP().isEmpty()) {
            throw new IllegalArgumentException("logP is empty; hybrid key switching needs at least one special prime");
        }
        if (literal.logN() < 3) {
            throw new IllegalArgumentException(
                    "logN = " + literal.logN() + " is too small; the CKKS scheme needs logN >= 3");
        }
        if (literal.logScale() < 1 || literal.logScale() > 60) {
            throw new IllegalArgumentException(
                    "logScale = " + literal.logScale() + " is out of range; allowed: 1 .. 60");
        }
        // before any prime is searched for: primes of b bits lie below 2^b, so the nominal sum bounds the real one
        SecurityStandard.check(literal, literal.logQP());
        this.qPrimes = NttPrimes.generate(literal.logN(), literal.logQ(), Set.of());
        Set<Long> taken = new HashSet<>();
        for (long q : qPrimes) {
            taken.add(q);
        }
        this.pPrimes = NttPrimes.generate(literal.logN(), literal.logP(), taken);
        double sum = 0;
        logQAtLevel = new double[qPrimes.length];
        for (int i = 0; i < qPrimes.length; i++) {
            sum += Math.log(qPrimes[i]) / Math.log(2);
            logQAtLevel[i] = sum;
        }
        for (long p : pPrimes) {
            sum += Math.log(p) / Math.log(2);
        }
        this.logQP = sum;
        SecurityStandard.check(literal, logQP);
        this.gadget = GadgetDecomposition.of(qPrimes.length, literal.dnum());
        // P must cover every digit, or key-switching noise (digit/P times the key's error) swamps the message.
        int pBits = 0;
        for (int b : literal.logP()) {
            pBits += b;
        }
        for (int j = 0; j < gadget.digitCount(); j++) {
            int digitBits = 0;
            for (int i = gadget.firstPrime(j); i < gadget.endPrime(j, qPrimes.length - 1); i++) {
                digitBits += literal.logQ().get(i);
            }
            if (pBits < digitBits) {
                throw new IllegalArgumentException(
                        "special primes (" + pBits + " bits) are too small for key-switching " + "digit " + j + " ("
                                + digitBits + " bits); raise dnum or add special primes");
            }
        }
        this.ring = new RnsRing(literal.logN(), qPrimes, pPrimes, pool);
        this.hash = hashOf(literal, qPrimes, pPrimes);
    }

    private static String hashOf(CkksParameters p, long[] q, long[] pp) {
        StringBuilder sb = new StringBuilder(LAYOUT_VERSION);
        sb.append('|')
                .append(p.logN())
                .append('|')
                .append(p.logQ())
                .append('|')
                .append(p.logP())
                .append('|')
                .append(p.dnum())
                .append('|')
                .append(p.logScale())
                .append('|')
                .append(p.hammingWeight())
                .append('|')
                .append(p.security().configName());
        for (long x : q) {
            sb.append('|').append(x);
        }
        for (long x : pp) {
            sb.append('|').append(x);
        }
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(sb.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public CkksParameters literal() {
        return literal;
    }

    public RnsRing ring() {
        return ring;
    }

    public GadgetDecomposition gadget() {
        return gadget;
    }

    public String hash() {
        return hash;
    }

    public int maxLevel() {
        return qPrimes.length - 1;
    }

    public int slots() {
        return ring.n() / 2;
    }

    public long q(int i) {
        return qPrimes[i];
    }

    public double logQP() {
        return logQP;
    }

    public double logQ(int level) {
        return logQAtLevel[level];
    }
}

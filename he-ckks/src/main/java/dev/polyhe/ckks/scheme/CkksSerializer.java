package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.CkksParameters;
import dev.polyhe.api.he.EvaluationKeys;
import dev.polyhe.api.he.HeException;
import dev.polyhe.api.he.HeSerializer;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.api.he.PublicKey;
import dev.polyhe.api.he.SecretKey;
import dev.polyhe.api.he.SecurityLevel;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.RlweSecret;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Reads and writes the {@link BlobFormat} of this context's parameter set. */
final class CkksSerializer implements HeSerializer {
    private final SchemeParameters params;
    private final RnsRing ring;
    private final RingExecutor exec;

    CkksSerializer(SchemeParameters params, RingExecutor exec) {
        this.params = params;
        this.exec = exec;
        this.ring = params.ring();
    }

    private interface Body<T> {
        T read(BlobFormat.Reader r) throws IOException;
    }

    private <T> T read(InputStream in, BlobFormat.Kind kind, String expectedHash, Body<T> body) throws IOException {
        try {
            BlobFormat.Reader r = new BlobFormat.Reader(in, kind, expectedHash);
            T value = body.read(r);
            r.finish();
            return value;
        } catch (EOFException e) {
            throw new HeException("blob is truncated: it ends inside the payload of a " + kind.label(), e);
        } catch (IllegalArgumentException e) {
            throw new HeException("blob is corrupted: " + e.getMessage(), e);
        }
    }

    @Override
    public void writeParameters(CkksParameters p, OutputStream out) throws IOException {
        BlobFormat.Writer w = new BlobFormat.Writer(out, BlobFormat.Kind.PARAMETERS, params.hash(), null);
        w.data.writeInt(p.logN());
        writeInts(w, p.logQ());
        writeInts(w, p.logP());
        w.data.writeInt(p.dnum());
        w.data.writeInt(p.logScale());
        w.data.writeInt(p.hammingWeight());
        w.data.writeUTF(p.security().configName());
        w.finish();
    }

    private static void writeInts(BlobFormat.Writer w, List<Integer> l) throws IOException {
        w.data.writeInt(l.size());
        for (int v : l) {
            w.data.writeInt(v);
        }
    }

    private static List<Integer> readInts(BlobFormat.Reader r, String what) throws IOException {
        int size = r.intInRange(what + " length", 1, 1024);
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            l.add(r.intInRange(what + "[" + i + "]", 1, 64));
        }
        return l;
    }

    @Override
    public CkksParameters readParameters(InputStream in) throws IOException {
        // Parameters may come from any parameter set: that is how a peer learns them.
        return read(in, BlobFormat.Kind.PARAMETERS, null, r -> {
            int logN = r.intInRange("logN", 1, 17);
            List<Integer> logQ = readInts(r, "logQ");
            List<Integer> logP = readInts(r, "logP");
            int dnum = r.intInRange("dnum", 1, 1024);
            int logScale = r.intInRange("logScale", 1, 64);
            int h = r.intInRange("hammingWeight", 0, 1 << 17);
            SecurityLevel security = SecurityLevel.fromConfig(r.data.readUTF());
            return new CkksParameters(logN, logQ, logP, dnum, logScale, h, security);
        });
    }

    @Override
    public void writeCiphertext(Ciphertext ciphertext, OutputStream out) throws IOException {
        CkksCiphertext ct = OperandCheck.ciphertext(ciphertext, params.hash(), null);
        BlobFormat.Writer w = new BlobFormat.Writer(out, BlobFormat.Kind.CIPHERTEXT, params.hash(), ct.keySetId());
        w.data.writeInt(ct.level());
        w.data.writeDouble(ct.scale());
        w.data.writeInt(ct.slots());
        w.limbs(exec.download(ct.c0, ct.level() + 1), ct.level() + 1);
        w.limbs(exec.download(ct.c1, ct.level() + 1), ct.level() + 1);
        w.finish();
    }

    @Override
    public Ciphertext readCiphertext(InputStream in) throws IOException {
        return read(in, BlobFormat.Kind.CIPHERTEXT, params.hash(), r -> {
            int level = r.intInRange("level", 0, params.maxLevel());
            double scale = readScale(r);
            int slots = readSlots(r);
            long[][] c0 = readLimbs(r, level + 1);
            long[][] c1 = readLimbs(r, level + 1);
            return new CkksCiphertext(exec.upload(c0), exec.upload(c1), level, scale, slots, params.hash(), r.keySetId);
        });
    }

    @Override
    public void writePlaintext(Plaintext plaintext, OutputStream out) throws IOException {
        CkksPlaintext pt = OperandCheck.plaintext(plaintext, params.hash());
        BlobFormat.Writer w = new BlobFormat.Writer(out, BlobFormat.Kind.PLAINTEXT, params.hash(), null);
        w.data.writeInt(pt.level());
        w.data.writeDouble(pt.scale());
        w.data.writeInt(pt.slots());
        w.limbs(exec.download(pt.poly, pt.level() + 1), pt.level() + 1);
        w.finish();
    }

    @Override
    public Plaintext readPlaintext(InputStream in) throws IOException {
        return read(in, BlobFormat.Kind.PLAINTEXT, params.hash(), r -> {
            int level = r.intInRange("level", 0, params.maxLevel());
            double scale = readScale(r);
            int slots = readSlots(r);
            return new CkksPlaintext(exec.upload(readLimbs(r, level + 1)), level, scale, slots, params.hash());
        });
    }

    @Override
    public void writePublicKey(PublicKey key, OutputStream out) throws IOException {
        if (!(key instanceof CkksPublicKey pk)) {
            throw new HeException("public key was not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        OperandCheck.sameParameters(pk.parameterHash(), params.hash(), "public key");
        BlobFormat.Writer w = new BlobFormat.Writer(out, BlobFormat.Kind.PUBLIC_KEY, params.hash(), pk.keySetId());
        w.limbs(pk.b, params.maxLevel() + 1);
        w.limbs(pk.a, params.maxLevel() + 1);
        w.finish();
    }

    @Override
    public PublicKey readPublicKey(InputStream in) throws IOException {
        return read(in, BlobFormat.Kind.PUBLIC_KEY, params.hash(), r -> {
            long[][] b = readLimbs(r, params.maxLevel() + 1);
            long[][] a = readLimbs(r, params.maxLevel() + 1);
            return new CkksPublicKey(b, a, params.hash(), r.keySetId);
        });
    }

    @Override
    public void writeEvaluationKeys(EvaluationKeys keys, OutputStream out) throws IOException {
        if (!(keys instanceof CkksEvaluationKeys ek)) {
            throw new HeException("evaluation keys were not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        OperandCheck.sameParameters(ek.parameterHash(), params.hash(), "evaluation keys");
        BlobFormat.Writer w = new BlobFormat.Writer(out, BlobFormat.Kind.EVALUATION_KEYS, params.hash(), ek.keySetId());
        writeSwitchingKey(w, ek.relinearization);
        w.data.writeInt(ek.rotations.size());
        for (Map.Entry<Integer, SwitchingKey> e : ek.rotations.entrySet()) {
            w.data.writeInt(e.getKey());
            writeSwitchingKey(w, e.getValue());
        }
        w.data.writeBoolean(ek.conjugation != null);
        if (ek.conjugation != null) {
            writeSwitchingKey(w, ek.conjugation);
        }
        w.data.writeInt(ek.bootstrapSlots().size());
        for (int n : ek.bootstrapSlots()) {
            w.data.writeInt(n);
        }
        w.data.writeBoolean(ek.encapsulation != null);
        if (ek.encapsulation != null) {
            writeLevelZeroKey(w, ek.encapsulation.toEphemeral());
            writeSwitchingKey(w, ek.encapsulation.toMain());
        }
        w.finish();
    }

    @Override
    public EvaluationKeys readEvaluationKeys(InputStream in) throws IOException {
        return read(in, BlobFormat.Kind.EVALUATION_KEYS, params.hash(), r -> evaluationKeys(r, null));
    }

    @Override
    public void checkEvaluationKeys(InputStream in) throws IOException {
        long[] scratch = new long[ring.n()];
        read(in, BlobFormat.Kind.EVALUATION_KEYS, params.hash(), r -> evaluationKeys(r, scratch));
    }

    /**
     * The payload of an evaluation-keys blob, record by record.
     *
     * @param scratch null: the keys are read and returned; else every limb is read into it, checked and dropped, and
     *     the result is null
     */
    private CkksEvaluationKeys evaluationKeys(BlobFormat.Reader r, long[] scratch) throws IOException {
        SwitchingKey relin = readSwitchingKey(r, scratch);
        int count = r.intInRange("rotation key count", 0, params.slots());
        Map<Integer, SwitchingKey> rotations = new HashMap<>();
        for (int i = 0; i < count; i++) {
            int step = r.intInRange("rotation step", 1, params.slots() - 1);
            rotations.put(step, readSwitchingKey(r, scratch));
        }
        SwitchingKey conj = r.data.readBoolean() ? readSwitchingKey(r, scratch) : null;
        int counts = r.intInRange("bootstrapping slot-count count", 0, ring.logN());
        Set<Integer> bootstrapSlots = new TreeSet<>();
        for (int i = 0; i < counts; i++) {
            int n = r.intInRange("bootstrapping slot count", 2, params.slots());
            if (Integer.bitCount(n) != 1) {
                throw new HeException("blob is corrupted: bootstrapping slot count " + n + " is not a power of two");
            }
            bootstrapSlots.add(n);
        }
        EncapsulationKeys encapsulation = null;
        if (r.data.readBoolean()) {
            SwitchingKey ephemeral = readLevelZeroKey(r, scratch);
            SwitchingKey main = readSwitchingKey(r, scratch);
            encapsulation = scratch == null ? new EncapsulationKeys(ephemeral, main) : null;
        }
        return scratch != null
                ? null
                : new CkksEvaluationKeys(
                        relin, rotations, conj, params.hash(), r.keySetId, bootstrapSlots, encapsulation);
    }

    @Override
    public void writeSecretKey(SecretKey key, OutputStream out) throws IOException {
        if (!(key instanceof CkksSecretKey sk)) {
            throw new HeException("secret key was not made by this CKKS scheme (ckks-cpu, ckks-cuda)");
        }
        OperandCheck.sameParameters(sk.parameterHash(), params.hash(), "secret key");
        BlobFormat.Writer w = new BlobFormat.Writer(out, BlobFormat.Kind.SECRET_KEY, params.hash(), sk.keySetId());
        long[] s = sk.secret.coefficients();
        byte[] bytes = new byte[s.length];
        for (int i = 0; i < s.length; i++) {
            bytes[i] = (byte) s[i];
        }
        w.data.write(bytes);
        w.finish();
    }

    @Override
    public SecretKey readSecretKey(InputStream in) throws IOException {
        return read(in, BlobFormat.Kind.SECRET_KEY, params.hash(), r -> {
            byte[] bytes = new byte[ring.n()];
            r.data.readFully(bytes);
            long[] s = new long[bytes.length];
            for (int i = 0; i < s.length; i++) {
                if (bytes[i] < -1 || bytes[i] > 1) {
                    throw new HeException("blob is corrupted: secret coefficient " + bytes[i] + " is not ternary");
                }
                s[i] = bytes[i];
            }
            return new CkksSecretKey(new RlweSecret(s, ring), params.hash(), r.keySetId);
        });
    }

    private void writeSwitchingKey(BlobFormat.Writer w, SwitchingKey key) throws IOException {
        long[][][][] d = key.digits();
        w.data.writeInt(d.length);
        int total = ring.qCount() + ring.pCount();
        for (long[][][] digit : d) {
            w.limbs(digit[0], total);
            w.limbs(digit[1], total);
        }
    }

    /** Digit 0 on q_0 and p_0 only: the other limbs do not exist (and must not). */
    private void writeLevelZeroKey(BlobFormat.Writer w, SwitchingKey key) throws IOException {
        long[][][] digit = key.digits()[0];
        for (int part = 0; part < 2; part++) {
            w.limb(digit[part][0]);
            w.limb(digit[part][ring.pIndex(0)]);
        }
    }

    /** @param scratch null: the key is kept; else each limb is read into it, checked and dropped (null returned) */
    private SwitchingKey readLevelZeroKey(BlobFormat.Reader r, long[] scratch) throws IOException {
        long[][][] digit = new long[2][ring.qCount() + ring.pCount()][];
        int p0 = ring.pIndex(0);
        for (int part = 0; part < 2; part++) {
            for (int i : new int[] {0, p0}) {
                digit[part][i] = scratch != null ? scratch : new long[ring.n()];
                r.limb(digit[part][i], ring.modulus(i).value());
            }
        }
        return scratch != null ? null : new SwitchingKey(new long[][][][] {digit});
    }

    /** @param scratch null: the key is kept; else each limb is read into it, checked and dropped (null returned) */
    private SwitchingKey readSwitchingKey(BlobFormat.Reader r, long[] scratch) throws IOException {
        int digits = params.gadget().digitCount();
        r.intInRange("key-switching digits", digits, digits);
        int total = ring.qCount() + ring.pCount();
        long[][][][] d = new long[digits][2][][];
        for (int j = 0; j < digits; j++) {
            d[j][0] = readLimbs(r, total, scratch);
            d[j][1] = readLimbs(r, total, scratch);
        }
        return scratch != null ? null : new SwitchingKey(d);
    }

    private long[][] readLimbs(BlobFormat.Reader r, int count) throws IOException {
        return readLimbs(r, count, null);
    }

    private long[][] readLimbs(BlobFormat.Reader r, int count, long[] scratch) throws IOException {
        long[][] limbs = scratch != null ? null : new long[count][ring.n()];
        for (int i = 0; i < count; i++) {
            r.limb(scratch != null ? scratch : limbs[i], ring.modulus(i).value());
        }
        return limbs;
    }

    private double readScale(BlobFormat.Reader r) throws IOException {
        double scale = r.data.readDouble();
        if (!(scale >= 1) || Double.isInfinite(scale)) {
            throw new HeException("blob is corrupted: scale " + scale + " is not a finite number >= 1");
        }
        return scale;
    }

    private int readSlots(BlobFormat.Reader r) throws IOException {
        int slots = r.intInRange("slots", 1, params.slots());
        if (Integer.bitCount(slots) != 1) {
            throw new HeException("blob is corrupted: slots = " + slots + " is not a power of two");
        }
        return slots;
    }
}

package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.executor.RingExecutor;
import dev.polyhe.ckks.ring.RnsArithmetic;

/** m = c0 + c1·s at the ciphertext's level, on the host (the ciphertext's limbs are downloaded). */
final class CkksDecryptor implements Decryptor {
    private final SchemeParameters params;
    private final RnsArithmetic arith;
    private final RingExecutor exec;
    private final CkksSecretKey secretKey;

    CkksDecryptor(SchemeParameters params, RingExecutor exec, CkksSecretKey secretKey) {
        this.params = params;
        this.exec = exec;
        this.arith = new RnsArithmetic(params.ring());
        this.secretKey = secretKey;
    }

    @Override
    public Plaintext decrypt(Ciphertext ciphertext) {
        CkksCiphertext ct = OperandCheck.ciphertext(ciphertext, params.hash(), secretKey.keySetId());
        int level = ct.level();
        long[][] c0 = exec.download(ct.c0, level + 1);
        long[][] c1 = exec.download(ct.c1, level + 1);
        long[][] m = arith.add(c0, arith.multiply(c1, secretKey.secret.ntt(), level), level);
        return new CkksPlaintext(exec.upload(m), level, ct.scale(), ct.slots(), params.hash());
    }
}

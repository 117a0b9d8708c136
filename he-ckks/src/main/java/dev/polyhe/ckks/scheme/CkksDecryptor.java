package dev.polyhe.ckks.scheme;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.ckks.ring.RnsArithmetic;

/** m = c0 + c1·s at the ciphertext's level. */
final class CkksDecryptor implements Decryptor {
    private final SchemeParameters params;
    private final RnsArithmetic arith;
    private final CkksSecretKey secretKey;

    CkksDecryptor(SchemeParameters params, CkksSecretKey secretKey) {
        this.params = params;
        this.arith = new RnsArithmetic(params.ring());
        this.secretKey = secretKey;
    }

    @Override
    public Plaintext decrypt(Ciphertext ciphertext) {
        CkksCiphertext ct = OperandCheck.ciphertext(ciphertext, params.hash(), secretKey.keySetId());
        int level = ct.level();
        long[][] m = arith.add(ct.c0, arith.multiply(ct.c1, secretKey.secret.ntt(), level), level);
        return new CkksPlaintext(m, level, ct.scale(), ct.slots(), params.hash());
    }
}

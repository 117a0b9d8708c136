package dev.polyhe.backend.cpu.ckks;

import dev.polyhe.api.he.Ciphertext;
import dev.polyhe.api.he.Decryptor;
import dev.polyhe.api.he.Plaintext;
import dev.polyhe.backend.cpu.ring.RnsArithmetic;

/** m = c0 + c1·s at the ciphertext's level. */
final class CpuDecryptor implements Decryptor {
    private final CpuParameters params;
    private final RnsArithmetic arith;
    private final CpuSecretKey secretKey;

    CpuDecryptor(CpuParameters params, CpuSecretKey secretKey) {
        this.params = params;
        this.arith = new RnsArithmetic(params.ring());
        this.secretKey = secretKey;
    }

    @Override
    public Plaintext decrypt(Ciphertext ciphertext) {
        CpuCiphertext ct = OperandCheck.ciphertext(ciphertext, params.hash(), secretKey.keySetId());
        int level = ct.level();
        long[][] m = arith.add(ct.c0, arith.multiply(ct.c1, secretKey.secret.ntt(), level), level);
        return new CpuPlaintext(m, level, ct.scale(), ct.slots(), params.hash());
    }
}

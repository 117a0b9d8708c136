package dev.polyhe.core.engine.encrypted;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.polyhe.api.he.Ciphertext;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pair partners come from the ciphertexts refreshed together, and a ciphertext is never its own partner. */
class BootstrapPartnersTest {
    private record Ct(int level, double scale, int slots) implements Ciphertext {
        @Override
        public String parameterHash() {
            return "test";
        }

        @Override
        public String keySetId() {
            return "test";
        }
    }

    @Test
    void aReplicatedCiphertextIsNotPairedWithItself() {
        BootstrapPartners partners = new BootstrapPartners();
        Ciphertext sums = new Ct(8, 0x1p40, 32768);
        // a row sum fills every block of its tensor with one ciphertext
        partners.group(List.of(sums, sums));
        assertNull(partners.groupPartnerFor(sums, p -> true), "its second place is the same ciphertext");
        assertNull(partners.partnerFor(sums, p -> true));
    }

    @Test
    void twoCiphertextsOfATensorPairWithEachOther() {
        BootstrapPartners partners = new BootstrapPartners();
        Ciphertext a = new Ct(0, 0x1p40, 32768);
        Ciphertext b = new Ct(1, 0x1p40, 32768);
        partners.group(List.of(a, a, b));
        assertSame(b, partners.groupPartnerFor(a, p -> true));
        assertNull(partners.groupPartnerFor(b, p -> true), "b left the group with its pair");
    }
}

package dev.polyhe.backend.cuda;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KernelProfileTest {
    @Test
    void theReportListsKernelsByTimeWithTheirShare() {
        KernelProfile p = new KernelProfile();
        p.record("ntt_fwd_phase", 0.5);
        p.record("ntt_fwd_phase", 0.5);
        p.record("poly_add", 0.25);
        p.record("keyswitch_inner_product", 3.0);
        String r = p.report();
        assertTrue(r.startsWith("ckks-cuda kernel profile: 4 launches, 4.3 ms"), r);
        String[] lines = r.split("\n");
        assertTrue(lines[2].startsWith("keyswitch_inner_product") && lines[2].contains("70.6%"), r);
        assertTrue(lines[3].startsWith("ntt_fwd_phase") && lines[3].contains(" 2 ") && lines[3].contains("500.0"), r);
        assertTrue(lines[4].startsWith("poly_add"), r);
    }
}

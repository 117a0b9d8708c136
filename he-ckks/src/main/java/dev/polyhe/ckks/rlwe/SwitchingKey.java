package dev.polyhe.ckks.rlwe;

/**
 * A hybrid key-switching key from s' to s: for each digit j, (b_j, a_j) over Q ∪ P at the top level with
 * b_j = -a_j·s + e_j + P·[s']_{digit j}. Stored in NTT and Montgomery form (the inner product then needs one
 * Montgomery multiplication per coefficient). Indexed [digit][0 = b, 1 = a][prime][coefficient]; a key made
 * for level 0 only has one digit and null limbs for q_1 .. q_L.
 */
public final class SwitchingKey {
    private final long[][][][] digits;

    public SwitchingKey(long[][][][] digits) {
        this.digits = digits;
    }

    public long[][][][] digits() {
        return digits;
    }

    public int digitCount() {
        return digits.length;
    }

    /** Whether the limbs of q_1 .. q_L were left out (a key for level 0 only). */
    public boolean levelZeroOnly(int qCount) {
        return qCount > 1 && digits[0][0][1] == null;
    }

    public long sizeBytes() {
        long total = 0;
        for (long[][][] d : digits) {
            for (long[][] part : d) {
                for (long[] limb : part) {
                    total += limb == null ? 0 : 8L * limb.length;
                }
            }
        }
        return total;
    }
}

package dev.polyhe.backend.cuda;

import dev.polyhe.ckks.ring.Automorphism;
import dev.polyhe.ckks.ring.BasisConverter;
import dev.polyhe.ckks.ring.LimbPool;
import dev.polyhe.ckks.ring.ModRaise;
import dev.polyhe.ckks.ring.Modulus;
import dev.polyhe.ckks.ring.NttPrimes;
import dev.polyhe.ckks.ring.NttTables;
import dev.polyhe.ckks.ring.RnsArithmetic;
import dev.polyhe.ckks.ring.RnsRescaler;
import dev.polyhe.ckks.ring.RnsRing;
import dev.polyhe.ckks.rlwe.GadgetDecomposition;
import dev.polyhe.ckks.rlwe.KeySwitcher;
import dev.polyhe.ckks.rlwe.SwitchingKey;
import dev.polyhe.ckks.scheme.SpecialFft;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Reference vectors for the ckks-cuda ring kernels (src/main/cuda/ring_kernels.cu), produced by the Java ring
 * classes of ckks-cpu. Writes into the output folder: params.txt (key value lines), the device tables exactly as
 * a JCuda layer would upload them (see the comment block of ring_kernels.cu), random inputs and the Java
 * outputs, each as a raw little-endian file NAME.bin (uint64 words, or int32 for prime lists and permutations).
 * The host emulation (host_emulation.cu) reads them, runs the kernels' per-thread bodies and compares.
 *
 * Used by {@link HostEmulationTest}.
 */
final class RingReference {
    /** Ciphertext primes q_0..q_4 and special primes p_0, p_1 (NttPrimes: some land just above 2^bits). */
    static final List<Integer> Q_BITS = List.of(60, 50, 55, 50, 60);

    static final List<Integer> P_BITS = List.of(60, 60);
    static final int[] DNUMS = {2, 5, 1};

    private final Path dir;
    private final int logN;
    private final int n;
    private final SplittableRandom rnd;
    private final StringBuilder params = new StringBuilder();

    private RingReference(Path dir, int logN, long seed) {
        this.dir = dir;
        this.logN = logN;
        this.n = 1 << logN;
        this.rnd = new SplittableRandom(seed);
    }

    /** Writes the vectors for one ring size into {@code dir}. */
    static void write(Path dir, int logN, long seed) throws Exception {
        Files.createDirectories(dir);
        new RingReference(dir, logN, seed).run();
    }

    // ------------------------------------------------------------------------------------------------------
    // Tables as the device layer uploads them: the ring classes' own accessors, as DeviceTables takes them.
    // ------------------------------------------------------------------------------------------------------

    /** {qHatInv[S], qHatInvShoup[S], qHat[T*S], qHatShoup[T*S]}: what the device layer uploads for a conversion. */
    static long[][] converterTables(Modulus[] source, Modulus[] target) {
        return new BasisConverter(source, target).tables();
    }

    // ------------------------------------------------------------------------------------------------------

    private void run() throws Exception {
        long t0 = System.nanoTime();
        long[] q = NttPrimes.generate(logN, Q_BITS, new HashSet<>());
        HashSet<Long> taken = new HashSet<>();
        for (long v : q) {
            taken.add(v);
        }
        long[] p = NttPrimes.generate(logN, P_BITS, taken);
        try (LimbPool pool = new LimbPool(1)) {
            RnsRing ring = new RnsRing(logN, q, p, pool);
            generate(ring);
        }
        Files.writeString(dir.resolve("params.txt"), params.toString());
        System.out.printf(
                "RingReference: logN=%d, %d+%d primes, vectors in %s (%.1f s)%n",
                logN, q.length, p.length, dir, (System.nanoTime() - t0) / 1e9);
    }

    private void generate(RnsRing ring) throws Exception {
        final int qc = ring.qCount();
        final int pcount = ring.pCount();
        final int total = qc + pcount;
        final int top = qc - 1;
        Modulus[] mod = new Modulus[total];
        for (int i = 0; i < total; i++) {
            mod[i] = ring.modulus(i);
        }
        param("logN", logN);
        param("qCount", qc);
        param("pCount", pcount);
        StringBuilder ps = new StringBuilder();
        for (Modulus m : mod) {
            ps.append(m.value()).append(' ');
        }
        params.append("primes ").append(ps.toString().trim()).append('\n');

        // context tables
        long[][] tw = new long[4][total * n];
        long[] pc = new long[total * 8];
        for (int i = 0; i < total; i++) {
            NttTables ntt = new NttTables(mod[i], logN);
            long[][] t = ntt.twiddles();
            for (int k = 0; k < 4; k++) {
                System.arraycopy(t[k], 0, tw[k], i * n, n);
            }
            System.arraycopy(DeviceTables.primeConstants(ntt), 0, pc, i * 8, 8);
        }
        u64("pc", pc);
        u64("psi_rev", tw[0]);
        u64("psi_rev_shoup", tw[1]);
        u64("psi_inv_rev", tw[2]);
        u64("psi_inv_rev_shoup", tw[3]);

        // a plaintext's residues from signed coefficients below 2^62, over every prime (coefficient form)
        long[] signed = new long[n];
        for (int c = 0; c < n; c++) {
            signed[c] = rnd.nextLong(-(1L << 61), 1L << 61) >> rnd.nextInt(60);
        }
        u64("encode_in", signed);
        long[][] residues = new long[total][n];
        for (int i = 0; i < total; i++) {
            for (int c = 0; c < n; c++) {
                residues[i][c] = mod[i].reduceSigned(signed[c]);
            }
        }
        u64("encode_out", flat(residues));

        // encoding: the special FFT of full and sparse slots, then the encoder's scaling, rounding and residues
        double[][] fftTwiddles = new SpecialFft(logN).twiddles();
        u64("fft_tw_re", DeviceTables.bits(fftTwiddles[0]));
        u64("fft_tw_im", DeviceTables.bits(fftTwiddles[1]));
        List<String> slotCounts = new ArrayList<>();
        for (int slots : new int[] {n / 2, Math.min(8, n / 2), 1}) {
            slotCounts.add(Integer.toString(slots));
            double[] re = new double[slots];
            double[] im = new double[slots];
            for (int i = 0; i < slots; i++) {
                re[i] = 2 * rnd.nextDouble() - 1;
                im[i] = rnd.nextDouble() - 0.5;
            }
            long[] in = new long[2 * slots];
            for (int i = 0; i < slots; i++) {
                in[i] = Double.doubleToRawLongBits(re[i]);
                in[slots + i] = Double.doubleToRawLongBits(im[i]);
            }
            u64("fft_in_" + slots, in);
            new SpecialFft(logN).inverseBitReversed(re, im, slots, null);
            long[] out = new long[2 * slots];
            for (int i = 0; i < slots; i++) {
                out[i] = Double.doubleToRawLongBits(re[i]);
                out[slots + i] = Double.doubleToRawLongBits(im[i]);
            }
            u64("fft_out_" + slots, out);
            // CanonicalEncoder's loop: value i at bitReverse(i), times scale / slots, rounded, reduced
            double factor = 0x1p40 / slots;
            long[][] limbs = new long[total][n];
            int gap = n / 2 / slots;
            for (int i = 0; i < slots; i++) {
                int from = slots == 1 ? 0 : Integer.reverse(i) >>> (32 - Integer.numberOfTrailingZeros(slots));
                long r = (long) Math.rint(re[from] * factor);
                long m = (long) Math.rint(im[from] * factor);
                for (int p = 0; p < total; p++) {
                    limbs[p][i * gap] = mod[p].reduceSigned(r);
                    limbs[p][n / 2 + i * gap] = mod[p].reduceSigned(m);
                }
            }
            u64("encode_slots_" + slots, flat(limbs));
        }
        params.append("fftSlots ").append(String.join(" ", slotCounts)).append('\n');

        // NTT over every prime, limbs in prime order, then in reversed prime order
        long[][] coef = randomPoly(mod, RnsRing.prefix(total - 1));
        u64("ntt_fwd_in", flat(coef));
        u64(
                "ntt_fwd_out",
                flat(mapLimbs(
                        coef,
                        RnsRing.prefix(total - 1),
                        (k, pr, l) -> ring.ntt(pr).forward(l))));
        long[][] eval = randomPoly(mod, RnsRing.prefix(total - 1));
        u64("ntt_inv_in", flat(eval));
        u64(
                "ntt_inv_out",
                flat(mapLimbs(
                        eval,
                        RnsRing.prefix(total - 1),
                        (k, pr, l) -> ring.ntt(pr).inverse(l))));
        int[] reversed = new int[total];
        for (int k = 0; k < total; k++) {
            reversed[k] = total - 1 - k;
        }
        i32("reversed_primes", reversed);
        long[][] coefR = randomPoly(mod, reversed);
        u64("ntt_fwd_rev_in", flat(coefR));
        u64(
                "ntt_fwd_rev_out",
                flat(mapLimbs(coefR, reversed, (k, pr, l) -> ring.ntt(pr).forward(l))));
        u64(
                "ntt_inv_rev_out",
                flat(mapLimbs(coefR, reversed, (k, pr, l) -> ring.ntt(pr).inverse(l))));

        // coefficient-wise arithmetic on Q_top
        RnsArithmetic arith = new RnsArithmetic(ring);
        int[] qIdx = RnsRing.prefix(top);
        long[][] a = randomPoly(mod, qIdx);
        long[][] b = randomPoly(mod, qIdx);
        for (int i = 0; i <= top; i++) { // edge values: 0 and q-1 in both operands
            long qi = mod[i].value();
            a[i][0] = 0;
            b[i][0] = 0;
            a[i][1] = qi - 1;
            b[i][1] = qi - 1;
            a[i][2] = 0;
            b[i][2] = qi - 1;
            a[i][3] = qi - 1;
            b[i][3] = 0;
        }
        long[] scalars = new long[qc];
        long[] scalarsShoup = new long[qc];
        for (int i = 0; i < qc; i++) {
            scalars[i] = i == 1 ? mod[i].value() - 1 : rnd.nextLong(mod[i].value());
            scalarsShoup[i] = mod[i].shoup(scalars[i]);
        }
        u64("ew_a", flat(a));
        u64("ew_b", flat(b));
        u64("ew_scalars", scalars);
        u64("ew_scalars_shoup", scalarsShoup);
        u64("ew_add", flat(arith.add(a, b, top)));
        u64("ew_sub", flat(arith.sub(a, b, top)));
        u64("ew_neg", flat(arith.negate(a, top)));
        u64("ew_mul", flat(arith.multiply(a, b, top)));
        u64("ew_mul_scalar", flat(arith.multiplyScalars(a, scalars, top)));
        u64("ew_add_scalar", flat(arith.addScalars(a, scalars, top)));
        u64("ew_add_into", flat(arith.addInto(deepCopy(a), b, top)));
        long[][] c = randomPoly(mod, qIdx);
        long[][] d = randomPoly(mod, qIdx);
        u64("ew_c", flat(c));
        u64("ew_d", flat(d));
        long[][][] tensor = arith.tensor(a, b, c, d, top); // (a, b) x (c, d)
        u64("tensor_d0", flat(tensor[0]));
        u64("tensor_d1", flat(tensor[1]));
        u64("tensor_d2", flat(tensor[2]));

        // automorphisms (NTT form): rotation by 3, rotation by -1, conjugation
        int slots = n / 2;
        long[] galois = {pow5(3, 2L * n), pow5(Math.floorMod(-1, Math.max(slots, 1)), 2L * n), 2L * n - 1};
        StringBuilder gs = new StringBuilder();
        for (long g : galois) {
            gs.append(g).append(' ');
            i32("perm_" + g, new Automorphism(logN, g).permutation());
            u64("auto_" + g, flat(arith.automorphism(a, new Automorphism(logN, g), top)));
        }
        params.append("galois ").append(gs.toString().trim()).append('\n');

        // standalone basis conversions: sources -> targets (coefficient form)
        int[][][] conversions = {
            {{0, 1, 2, 3, 4}, {5, 6}},
            {{5, 6}, {0, 1, 2, 3, 4}},
            {{3}, {0, 1, 2, 4, 5, 6}},
            {{4, 0, 2}, {1, 3, 6, 5}},
        };
        param("bconvCount", conversions.length);
        for (int k = 0; k < conversions.length; k++) {
            int[] src = conversions[k][0];
            int[] tgt = conversions[k][1];
            Modulus[] sm = select(mod, src);
            Modulus[] tm = select(mod, tgt);
            long[][] tables = converterTables(sm, tm);
            String pre = "bc" + k + "_";
            i32(pre + "src", src);
            i32(pre + "tgt", tgt);
            u64(pre + "qhatinv", tables[0]);
            u64(pre + "qhatinv_shoup", tables[1]);
            u64(pre + "qhat", tables[2]);
            u64(pre + "qhat_shoup", tables[3]);
            long[][] x = randomPoly(mod, src);
            for (int j = 0; j < src.length; j++) { // edges of the centring: y = 0, 1, half, half + 1, q - 1
                Modulus m = sm[j];
                long half = m.value() >>> 1;
                long toX = m.inv(tables[0][j]); // x = y / qHatInv
                long[] ys = {0, 1, half - 1, half, half + 1, m.value() - 1};
                for (int e = 0; e < ys.length; e++) {
                    x[j][e] = m.mul(ys[e], toX);
                }
                x[j][ys.length] = half; // and the raw x edges
                x[j][ys.length + 1] = half + 1;
            }
            u64(pre + "in", flat(x));
            BasisConverter conv = new BasisConverter(sm, tm);
            long[][] scaled = new long[src.length][n];
            for (int j = 0; j < src.length; j++) {
                conv.scaleSource(j, x[j], scaled[j]);
            }
            long[][] out = new long[tgt.length][n];
            for (int t = 0; t < tgt.length; t++) {
                conv.accumulateTarget(t, scaled, out[t]);
            }
            u64(pre + "scaled", flat(scaled));
            u64(pre + "out", flat(out));
        }

        // rescale at the top level and one below
        RnsRescaler rescaler = new RnsRescaler(ring);
        long[] rInv = new long[qc * qc];
        long[] rInvShoup = new long[qc * qc];
        for (int l = 1; l < qc; l++) {
            for (int i = 0; i < l; i++) {
                rInv[l * qc + i] = mod[i].inv(mod[i].reduce(mod[l].value()));
                rInvShoup[l * qc + i] = mod[i].shoup(rInv[l * qc + i]);
            }
        }
        u64("rescale_inv", rInv);
        u64("rescale_inv_shoup", rInvShoup);
        int[] rescaleLevels = {top, top - 1};
        params.append("rescaleLevels ").append(top).append(' ').append(top - 1).append('\n');
        for (int level : rescaleLevels) {
            int[] idx = RnsRing.prefix(level);
            long[][] c0 = randomPoly(mod, idx);
            long[][] c1 = randomPoly(mod, idx);
            c0[level] = edgeNtt(ring, level); // [x + h]_{q_l} wraps exactly at some coefficients
            long[][][] out = rescaler.rescale(new long[][][] {deepCopy(c0), deepCopy(c1)}, level);
            String pre = "rescale_l" + level + "_";
            u64(pre + "c0", flat(c0));
            u64(pre + "c1", flat(c1));
            u64(pre + "out0", flat(out[0]));
            u64(pre + "out1", flat(out[1]));
        }

        // key switching: ModDown tables (P -> Q converter, P^-1 mod q_i)
        Modulus[] pMods = Arrays.copyOfRange(mod, qc, total);
        Modulus[] qMods = Arrays.copyOfRange(mod, 0, qc);
        long[][] down = converterTables(pMods, qMods);
        u64("moddown_qhatinv", down[0]);
        u64("moddown_qhatinv_shoup", down[1]);
        u64("moddown_qhat", down[2]);
        u64("moddown_qhat_shoup", down[3]);
        long[] pInv = new long[qc];
        long[] pInvShoup = new long[qc];
        long[] pMod = new long[qc];
        long[] pModShoup = new long[qc];
        for (int i = 0; i < qc; i++) {
            long prod = 1;
            for (Modulus pt : pMods) {
                prod = mod[i].mul(prod, mod[i].reduce(pt.value()));
            }
            pInv[i] = mod[i].inv(prod);
            pInvShoup[i] = mod[i].shoup(pInv[i]);
            pMod[i] = prod;
            pModShoup[i] = mod[i].shoup(prod);
        }
        u64("moddown_pinv", pInv);
        u64("moddown_pinv_shoup", pInvShoup);
        u64("p_mod_q", pMod);
        u64("p_mod_q_shoup", pModShoup);

        List<String> configs = new ArrayList<>();
        for (int dnum : DNUMS) {
            GadgetDecomposition gadget = GadgetDecomposition.of(qc, dnum);
            KeySwitcher switcher = new KeySwitcher(ring, gadget);
            long[][][][] keyDigits = new long[gadget.digitCount()][2][total][];
            for (long[][][] kd : keyDigits) {
                for (long[][] part : kd) {
                    for (int i = 0; i < total; i++) {
                        part[i] = randomLimb(mod[i]);
                    }
                }
            }
            SwitchingKey key = new SwitchingKey(keyDigits);
            u64("key_dnum" + dnum, flatKey(keyDigits, total));
            int[] levels = dnum == 2 ? new int[] {top, top - 1, 1} : new int[] {top};
            for (int level : levels) {
                configs.add(dnum + ":" + level);
                String pre = "ks_" + dnum + "_" + level + "_";
                int width = level + 1 + pcount;
                int[] ext = ring.extendedIndices(level);
                int digits = gadget.digitCount(level);
                // ModUp tables: per-limb qHatInv over 0..level, per-digit qHat toward the positions outside the digit
                long[] upInv = new long[level + 1];
                long[] upInvShoup = new long[level + 1];
                for (int j = 0; j < digits; j++) {
                    int first = gadget.firstPrime(j);
                    int end = gadget.endPrime(j, level);
                    Modulus[] src = Arrays.copyOfRange(mod, first, end);
                    List<Modulus> tgt = new ArrayList<>();
                    for (int pos = 0; pos < width; pos++) {
                        if (pos < first || pos >= end) {
                            tgt.add(mod[ext[pos]]);
                        }
                    }
                    long[][] tables = converterTables(src, tgt.toArray(new Modulus[0]));
                    System.arraycopy(tables[0], 0, upInv, first, end - first);
                    System.arraycopy(tables[1], 0, upInvShoup, first, end - first);
                    u64(pre + "modup_qhat_" + j, tables[2]);
                    u64(pre + "modup_qhat_shoup_" + j, tables[3]);
                }
                u64(pre + "modup_qhatinv", upInv);
                u64(pre + "modup_qhatinv_shoup", upInvShoup);
                long[][] dIn = randomPoly(mod, RnsRing.prefix(level));
                u64(pre + "d", flat(dIn));
                long[][][] raised = switcher.decompose(deepCopy(dIn), level);
                u64(pre + "modup", flat3(raised));
                long[][][] out = switcher.apply(raised, key, level);
                u64(pre + "out0", flat(out[0]));
                u64(pre + "out1", flat(out[1]));
                // three terms summed before one ModDown (the first two share d: one ModUp), the same key each
                long[][] d2 = randomPoly(mod, RnsRing.prefix(level));
                u64(pre + "ss_d2", flat(d2));
                long[] sumGalois = {5, 25, 2L * n - 1};
                Automorphism[] autos = new Automorphism[sumGalois.length];
                for (int t = 0; t < sumGalois.length; t++) {
                    autos[t] = new Automorphism(logN, sumGalois[t]);
                    i32(pre + "ss_perm_" + t, autos[t].permutation());
                }
                long[][] dCopy = deepCopy(dIn);
                long[][][] sum = switcher.switchSum(
                        new long[][][] {dCopy, dCopy, deepCopy(d2)}, new SwitchingKey[] {key, key, key}, autos, level);
                u64(pre + "ss_out0", flat(sum[0]));
                u64(pre + "ss_out1", flat(sum[1]));
                if (level >= 1) {
                    // the ModDown and the rescale as one division by P·q_l, with (d0, d1) added (relinearizeRescale)
                    KeySwitcher.RescaleTables rt = switcher.rescaleTables(level);
                    String rr = pre + "rr_";
                    for (int k = 0; k < 4; k++) {
                        u64(rr + "conv" + k, rt.converter()[k]);
                    }
                    u64(rr + "inverse_bits", rt.sourceInverseBits());
                    u64(rr + "minus_excess", rt.minusExcess());
                    u64(rr + "pq_inv", rt.pqInv());
                    u64(rr + "pq_inv_shoup", rt.pqInvShoup());
                    u64(rr + "ql_inv", rt.qlInv());
                    u64(rr + "ql_inv_shoup", rt.qlInvShoup());
                    u64(rr + "p_mod_ql", rt.pModQl());
                    long[][] e0 = randomPoly(mod, RnsRing.prefix(level));
                    long[][] e1 = randomPoly(mod, RnsRing.prefix(level));
                    u64(rr + "d0", flat(e0));
                    u64(rr + "d1", flat(e1));
                    long[][][] relin =
                            switcher.applyRescaled(switcher.decompose(deepCopy(dIn), level), key, level, e0, e1);
                    u64(rr + "out0", flat(relin[0]));
                    u64(rr + "out1", flat(relin[1]));
                    // double-hoisted diagonals: baby steps {identity, 5}, giant steps {identity, 25}, the same key
                    String dh = pre + "dh_";
                    long[][] h0 = randomPoly(mod, RnsRing.prefix(level));
                    long[][] h1 = randomPoly(mod, RnsRing.prefix(level));
                    u64(dh + "c0", flat(h0));
                    u64(dh + "c1", flat(h1));
                    long[][][][] diagonals = new long[2][2][][];
                    for (int g = 0; g < 2; g++) {
                        for (int s = 0; s < 2; s++) {
                            diagonals[g][s] = randomPoly(mod, ext); // any residues: read as Montgomery form
                            u64(dh + "diag_" + g + "_" + s, flat(diagonals[g][s]));
                        }
                    }
                    Automorphism baby = new Automorphism(logN, 5);
                    Automorphism giant = new Automorphism(logN, 25);
                    i32(dh + "baby_perm", baby.permutation());
                    i32(dh + "giant_perm", giant.permutation());
                    long[][][] hoisted = switcher.diagonalsRescaled(
                            h0,
                            h1,
                            new SwitchingKey[] {null, key},
                            new Automorphism[] {null, baby},
                            diagonals,
                            new SwitchingKey[] {null, key},
                            new Automorphism[] {null, giant},
                            level);
                    u64(dh + "out0", flat(hoisted[0]));
                    u64(dh + "out1", flat(hoisted[1]));
                }
            }
        }
        params.append("ksConfigs ").append(String.join(" ", configs)).append('\n');

        // level-0 key switch (key on q_0 and p_0 only) and its constant p_0^-1 mod q_0
        {
            KeySwitcher switcher = new KeySwitcher(ring, GadgetDecomposition.of(qc, 1));
            int p0 = ring.pIndex(0);
            long[][][][] keyDigits = new long[1][2][total][];
            for (long[][] part : keyDigits[0]) {
                part[0] = randomLimb(mod[0]);
                part[p0] = randomLimb(mod[p0]);
            }
            u64("ks0_key", flatKey(keyDigits, total));
            long p0Inv = mod[0].inv(mod[0].reduce(mod[p0].value()));
            u64("ks0_p0inv", new long[] {p0Inv});
            u64("ks0_p0inv_shoup", new long[] {mod[0].shoup(p0Inv)});
            long[] d0 = edgeNtt(ring, 0);
            u64("ks0_d", d0);
            long[][][] out = switcher.switchAtLevelZero(new long[][] {d0.clone()}, new SwitchingKey(keyDigits));
            u64("ks0_out0", out[0][0]);
            u64("ks0_out1", out[1][0]);
        }

        // ModRaise
        {
            ModRaise modRaise = new ModRaise(ring);
            long[] limb = edgeNtt(ring, 0);
            u64("modraise_in", limb);
            u64("modraise_out", flat(modRaise.raise(limb.clone(), top)));
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // helpers
    // ------------------------------------------------------------------------------------------------------

    interface LimbOp {
        void apply(int k, int prime, long[] limb);
    }

    static long[][] mapLimbs(long[][] in, int[] primes, LimbOp op) {
        long[][] out = deepCopy(in);
        for (int k = 0; k < out.length; k++) {
            op.apply(k, primes[k], out[k]);
        }
        return out;
    }

    static long pow5(int e, long mod) {
        long g = 1;
        for (int i = 0; i < e; i++) {
            g = g * 5 % mod;
        }
        return g;
    }

    static Modulus[] select(Modulus[] mod, int[] idx) {
        Modulus[] out = new Modulus[idx.length];
        for (int i = 0; i < idx.length; i++) {
            out[i] = mod[idx[i]];
        }
        return out;
    }

    long[] randomLimb(Modulus m) {
        long[] limb = new long[n];
        for (int c = 0; c < n; c++) {
            limb[c] = rnd.nextLong(m.value());
        }
        return limb;
    }

    /**
     * NTT form (prime i) of a random polynomial whose first coefficients sit on the edges of centring and of
     * the rescale's rounding: 0, 1, h - 1, h, h + 1, q - h - 1, q - h, q - 1 with h = floor(q/2).
     */
    long[] edgeNtt(RnsRing ring, int i) {
        Modulus m = ring.modulus(i);
        long q = m.value();
        long h = q >>> 1;
        long[] limb = randomLimb(m);
        long[] edges = {0, 1, h - 1, h, h + 1, q - h - 1, q - h, q - 1};
        System.arraycopy(edges, 0, limb, 0, edges.length);
        ring.ntt(i).forward(limb);
        return limb;
    }

    long[][] randomPoly(Modulus[] mod, int[] primes) {
        long[][] out = new long[primes.length][];
        for (int k = 0; k < primes.length; k++) {
            out[k] = randomLimb(mod[primes[k]]);
        }
        return out;
    }

    static long[][] deepCopy(long[][] a) {
        long[][] out = new long[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].clone();
        }
        return out;
    }

    long[] flat(long[][] limbs) {
        long[] out = new long[limbs.length * n];
        for (int k = 0; k < limbs.length; k++) {
            System.arraycopy(limbs[k], 0, out, k * n, n);
        }
        return out;
    }

    long[] flat3(long[][][] polys) {
        List<long[]> parts = new ArrayList<>();
        for (long[][] p : polys) {
            parts.add(flat(p));
        }
        long[] out = new long[parts.stream().mapToInt(x -> x.length).sum()];
        int off = 0;
        for (long[] x : parts) {
            System.arraycopy(x, 0, out, off, x.length);
            off += x.length;
        }
        return out;
    }

    /** key[((j * 2 + part) * P + prime) * N + c]; null limbs become zeros. */
    long[] flatKey(long[][][][] digits, int total) {
        long[] out = new long[digits.length * 2 * total * n];
        for (int j = 0; j < digits.length; j++) {
            for (int part = 0; part < 2; part++) {
                for (int pr = 0; pr < total; pr++) {
                    long[] limb = digits[j][part][pr];
                    if (limb != null) {
                        System.arraycopy(limb, 0, out, ((j * 2 + part) * total + pr) * n, n);
                    }
                }
            }
        }
        return out;
    }

    void param(String key, long value) {
        params.append(key).append(' ').append(value).append('\n');
    }

    void u64(String name, long[] data) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(8 * data.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.asLongBuffer().put(data);
        write(name, buf.array());
    }

    void i32(String name, int[] data) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(4 * data.length).order(ByteOrder.LITTLE_ENDIAN);
        buf.asIntBuffer().put(data);
        write(name, buf.array());
    }

    private void write(String name, byte[] bytes) throws IOException {
        try (OutputStream os = Files.newOutputStream(dir.resolve(name + ".bin"))) {
            os.write(bytes);
        }
    }
}

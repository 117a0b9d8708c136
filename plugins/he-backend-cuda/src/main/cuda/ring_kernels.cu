// ckks-cuda: RNS ring kernels (version 2: the NTT in one or two shared-memory launches, ModUp of every digit in
// one conversion launch, per-limb scalars passed by value).
//
// Bit-exact counterparts of the Java ring arithmetic of ckks-cpu (dev.polyhe.backend.cpu.ring / rlwe /
// bootstrap, commit 42a16af). Every output is the canonical residue in [0, q) that Java produces.
//
// =========================================================================================================
// CONVENTIONS
// =========================================================================================================
// N = 2^logN coefficients per limb. A polynomial with L limbs is ONE contiguous uint64_t buffer of L*N words,
// limb k at offset k*N. Every limb-batched kernel takes `const int* primes` (device, one int per limb): the
// PRIME INDEX of limb k in the context's full prime list (q_0..q_{qCount-1}, then p_0..p_{pCount-1}, so
// P = qCount + pCount entries). Over Q_l that is {0..l}; over Q_l ∪ P it is {0..l, qCount..qCount+pCount-1}
// (RnsRing.extendedIndices(level)). A kernel on a sub-range of limbs is launched with the buffer pointer and
// the primes pointer (and any per-limb array) advanced by the same number of limbs.
//
// Launch shape of every kernel but the NTT phases: blockDim = (B, 1, 1) (e.g. B = 256), gridDim =
// (ceil(N / B), limbs, 1); blockIdx.y is the limb (output limb for the basis-conversion / lift / rescale kernels).
// The NTT phases have their own shape (see "NTT in phases"). Every thread computes outputs no other thread of
// the same launch reads or writes, so a launch is order-independent (that is what the host emulation in
// src/test/cuda relies on). Element-wise kernels may run in place (out == an input) unless noted.
//
// =========================================================================================================
// CONTEXT TABLES (uploaded once per context; P primes; all uint64_t unless stated)
// =========================================================================================================
// pc[P * PC_STRIDE]        per-prime constants, see modarith.cuh: for prime index p, pc[8p + 0..7] =
//                          { q, q^-1 mod 2^64, 2^128 mod q, floor(2^64/q),
//                            nInv, shoup(nInv), lastInv = psiInvRev[1]*nInv mod q, shoup(lastInv) }
//                          (nInv, lastInv exactly as NttTables computes them; shoup(w) = Modulus.shoup(w) =
//                          floor(w * 2^64 / q)).
// psiRev[P * N]            row p = NttTables(p).psiRev         (twiddles, bit-reversed order, as in Java)
// psiRevShoup[P * N]       row p = NttTables(p).psiRevShoup
// psiInvRev[P * N]         row p = NttTables(p).psiInvRev
// psiInvRevShoup[P * N]    row p = NttTables(p).psiInvRevShoup
//
// OPERATION TABLES (built once per context from the same prime list; see each kernel)
// perm[N] (int32)          Galois automorphism g: perm[i] = Automorphism.source[i] =
//                          bitrev(((g * (2*bitrev(i) + 1) mod 2N) - 1) / 2)  (g reduced mod 2N first)
// BasisConverter S sources -> T targets (BasisConverter.java):
//   qHatInv[S], qHatInvShoup[S]   (Q/q_j)^-1 mod q_j and its Shoup companion (mod q_j), per source j
//   qHat[T * S], qHatShoup[T * S] row t: (Q/q_j) mod p_t, PLAIN (not Montgomery) and Shoup companion mod p_t
// Key switching (KeySwitcher.java), gadget alpha, level l, width = l + 1 + pCount:
//   ModUp, per level l:   qHatInv over limbs 0..l: entry i = qHatInv of prime i within its digit
//                         (digit j = i / alpha, sources j*alpha .. min((j+1)*alpha, l+1) - 1) + Shoup
//   ModUp, per (l, digit j): qHat[T_j * S_j] + Shoup, targets = the positions 0..width-1 outside the digit,
//                         in increasing position order (KeySwitcher.plan), sources = the digit's primes
//   ModDown: pToQ converter, sources p_0..p_{k-1}, targets q_0..q_{qCount-1}: qHatInv[k] (+Shoup) and
//                         qHat[qCount * k] (+Shoup) (rows 0..l used at level l);
//                         pInvModQ[qCount] = P^-1 mod q_i (+Shoup)
//   Switching key: key[((j * 2 + part) * P + prime) * N + c], part 0 = b, 1 = a: SwitchingKey.digits()
//                         [j][part][prime] AS JAVA STORES IT (NTT AND MONTGOMERY form); limbs Java leaves
//                         null (level-0 keys) may be left zero; they are never read.
// Rescale (RnsRescaler.java): rescaleInv[qCount * qCount], row l, column i = q_l^-1 mod q_i (i < l) + Shoup.
// switchAtLevelZero: p0InvModQ0 = p_0^-1 mod q_0 (+Shoup), as a 1-entry per-limb scalar array.
// Per-limb scalars (poly_mul_scalar_v, poly_add_scalar_v): w[k] < q of limb k, wShoup[k] = Modulus.shoup(w[k]),
//                         passed by value in a PheScalars (up to 64 limbs a launch).
//
// =========================================================================================================
// COMPOSITE SEQUENCES (what the host layer launches; each verified by src/test/cuda/host_emulation.cu)
// =========================================================================================================
// Key switch of d (NTT, limbs 0..l), KeySwitcher.switchKey = apply(decompose(d)); ext = extendedIndices(l),
// width = l + 1 + pCount, digits D = l / alpha + 1, digit j = primes [first_j, end_j). "ntt" is the one or
// two launches of the NTT phases over every limb named.
//   ModUp (decompose; can be shared by several keys = hoisting):
//   1. coeffs = copy of d; ntt_inv on coeffs (l+1 limbs, primes ext)
//   2. bconv_scale(scaled, coeffs, modUpQHatInv[l], ...) over l+1 limbs            (scaled: centred)
//   3. modup_convert(raised, coeffs, scaled, plan, qHat of every digit, ...) over D x width limbs
//   4. ntt_fwd on raised (D x width limbs, primes = ext repeated D times)
//   Inner product: keyswitch_inner_product(acc0, acc1, raised, D, width, key, P, ext) over width limbs.
//   ModDown of each acc (KeySwitcher.modDown; overwrites acc's P limbs):
//   1. ntt_inv on acc limbs [l+1, width) (primes ext + l + 1)
//   2. bconv_scale(sp, acc + (l+1)*N, modDownQHatInv, ..., primes ext + l + 1) over pCount limbs
//   3. bconv_accumulate(conv, sp, pCount, modDownQHat (rows 0..l), ..., tgtPrimes = ext) over l+1 limbs
//   4. ntt_fwd on conv (l+1 limbs); poly_sub_mul_scalar(out, acc, conv, pInvModQ, ...) over l+1 limbs
// Level-0 key switch (KeySwitcher.switchAtLevelZero), key with limbs on q_0 and p_0 only:
//   R = [d, lift] (2 limbs): lift = centred_lift(ntt_inv_{q0}(d), from q_0, primes {p0}) then ntt_fwd_{p0};
//   keyswitch_inner_product(acc0, acc1, R, 1, 2, key, P, primes {0, p0});
//   per acc: ntt_inv_{p0}(acc limb 1); t = centred_lift(that, from p_0, primes {0}); ntt_fwd_{q0}(t);
//            poly_sub_mul_scalar(out, acc limb 0, t, p0InvModQ0, ..., primes {0}).
// ModRaise.raise(limb, top): ntt_inv_{q0}(limb); centred_lift(out, it, from q_0, primes {0..top});
//   ntt_fwd on out (top+1 limbs).
// Ciphertext product (CpuEvaluator.multiply): poly_tensor -> key switch of d2 -> poly_add_into(d0, ks0),
//   poly_add_into(d1, ks1). Rotation (applyGalois): key switch of c1, poly_add_into(ks0, c0), then
//   automorphism_ntt of ks0 and of ks1 with the element's perm.
// =========================================================================================================

#include "modarith.cuh"

#include <math.h>
#include <string.h>

#if defined(__CUDACC__)
#define PHE_GRID_INDEX(count)                                                                                 \
    const uint32_t idx = blockIdx.x * blockDim.x + threadIdx.x;                                               \
    const uint32_t limb = blockIdx.y;                                                                         \
    if (idx >= (uint32_t)(count)) return;
#endif

#define PHE_PC(p, field) pc[(size_t)(p) * PC_STRIDE + (field)]

// =========================================================================================================
// NTT (NttTables.forward / inverse): the butterflies, and the stage-by-stage bodies (version 1, now the host
// emulation's reference for the phases below), stages 0 .. logN-1 in order.
// Forward: input coefficients in [0, q) (anything < 4q works), stages 0..logN-2 keep values lazily in
// [0, 4q), stage logN-1 reduces to [0, q). Output slot i holds a(psi^(2*bitrev(i)+1)), as in Java.
// Inverse: input evaluations in [0, q), stages 0..logN-2 keep values in [0, 2q), stage logN-1 folds in
// N^-1 and reduces to [0, q). Both in place on `a` (limbs x N), count = N/2 butterflies per limb.
// =========================================================================================================

/** One forward butterfly on (lo, hi) with twiddle w: lazy in [0, 4q) before the last stage, canonical at it. */
PHE_HD void ntt_fwd_pair(uint64_t* lo, uint64_t* hi, uint64_t w, uint64_t ws, uint64_t q, bool last) {
    const uint64_t twoQ = q << 1;
    uint64_t x = *lo;
    x = x >= twoQ ? x - twoQ : x;                    // [0, 2q)
    const uint64_t v = phe_shoup_lazy(*hi, w, ws, q); // [0, 2q)
    if (!last) {
        *lo = x + v;          // [0, 4q)
        *hi = x + twoQ - v;   // (0, 4q)
    } else {
        *lo = phe_reduce_4q(x + v, q);
        *hi = phe_reduce_4q(x + twoQ - v, q);
    }
}

/**
 * One inverse butterfly on (lo, hi): values in [0, 2q) before the last stage; the last stage (one twiddle,
 * psiInvRev[1]) folds N^-1 in and reduces to [0, q), as NttTables.inverse.
 */
PHE_HD void ntt_inv_pair(uint64_t* lo, uint64_t* hi, uint64_t w, uint64_t ws, const uint64_t* pcRow, bool last) {
    const uint64_t q = pcRow[PC_Q];
    const uint64_t twoQ = q << 1;
    const uint64_t x = *lo;          // [0, 2q)
    const uint64_t y = *hi;          // [0, 2q)
    const uint64_t d = x + twoQ - y; // (0, 4q)
    if (!last) {
        const uint64_t s = x + y;
        *lo = s >= twoQ ? s - twoQ : s;   // [0, 2q)
        *hi = phe_shoup_lazy(d, w, ws, q); // [0, 2q)
    } else {
        const uint64_t s = x + y; // [0, 4q)
        *lo = phe_reduce_2q(phe_shoup_lazy(s, pcRow[PC_NINV], pcRow[PC_NINV_SHOUP], q), q);
        *hi = phe_reduce_2q(phe_shoup_lazy(d, pcRow[PC_LASTINV], pcRow[PC_LASTINV_SHOUP], q), q);
    }
}

/** Forward stage `stage` (Java's m = 2^stage, t = N >> (stage+1)), butterfly b of limb `limb`. */
PHE_HD void ntt_fwd_butterfly(uint32_t limb, uint32_t b, uint64_t* a, const int* primes, const uint64_t* pc,
                              const uint64_t* psiRev, const uint64_t* psiRevShoup, int logN, int stage) {
    const size_t n = (size_t)1 << logN;
    const int p = primes[limb];
    const int logT = logN - 1 - stage;
    const size_t t = (size_t)1 << logT;
    const size_t i = b >> logT;            // group
    const size_t j = b & (t - 1);          // offset within the group
    const size_t tw = ((size_t)1 << stage) + i;
    uint64_t* lo = a + (size_t)limb * n + 2 * i * t + j;
    ntt_fwd_pair(lo, lo + t, psiRev[(size_t)p * n + tw], psiRevShoup[(size_t)p * n + tw], PHE_PC(p, PC_Q),
                 stage == logN - 1);
}

/** Inverse stage `stage` (Java's t = 2^stage, h = N >> (stage+1) twiddle groups), butterfly b. */
PHE_HD void ntt_inv_butterfly(uint32_t limb, uint32_t b, uint64_t* a, const int* primes, const uint64_t* pc,
                              const uint64_t* psiInvRev, const uint64_t* psiInvRevShoup, int logN, int stage) {
    const size_t n = (size_t)1 << logN;
    const int p = primes[limb];
    const size_t t = (size_t)1 << stage;
    const size_t i = b >> stage;
    const size_t j = b & (t - 1);
    uint64_t* lo = a + (size_t)limb * n + 2 * i * t + j;
    const bool last = stage == logN - 1;
    const size_t tw = last ? 0 : (n >> (stage + 1)) + i;
    ntt_inv_pair(lo, lo + t, last ? 0 : psiInvRev[(size_t)p * n + tw], last ? 0 : psiInvRevShoup[(size_t)p * n + tw],
                 pc + (size_t)p * PC_STRIDE, last);
}

// =========================================================================================================
// NTT in phases (version 2): the stages of a transform in one or two launches, each a run of k consecutive
// stages done in shared memory between barriers. The k stages of a phase pair only elements whose index differs
// in k adjacent bits, so the index splits as x = high | mid (k bits) | low (r bits) and every (high, low) is an
// independent 2^k-point TILE: x(m) = (high << (r + k)) | (m << r) | low for m in [0, 2^k). A block holds
// T = 2^logTiles tiles of consecutive tile numbers g (low = g mod 2^r, high = g >> r), so its loads and stores
// are coalesced along `low`; shared memory word e = m * T + t holds tile t's element m.
//   forward, stages [s0, s0 + k): r = logN - s0 - k; stage s = s0 + u pairs bit k-1-u of m;
//            twiddle psiRev[2^s + (high << u) + (m_lo >> (k - u))]
//   inverse, stages [s0, s0 + k): r = s0;            stage s = s0 + u pairs bit u of m;
//            twiddle psiInvRev[(N >> (s + 1)) + (high << (k - 1 - u)) + (m_lo >> (u + 1))]
// The butterflies are ntt_fwd_pair / ntt_inv_pair on the same values in the same order per element as the
// stage kernels above, so the limbs agree bit for bit. Launch: grid (N / 2^(k + logTiles), limbs), any block
// size, dynamic shared memory 8 * 2^(k + logTiles) bytes. Each piece below is one thread's share of one step
// between barriers (load, one stage, store), which is how the host emulation replays a block.
// =========================================================================================================

/** The global index (within a limb) of shared word e of block `block`. */
PHE_HD size_t ntt_tile_address(uint32_t block, uint32_t e, int k, int r, int logTiles) {
    const uint32_t tiles = 1u << logTiles;
    const size_t g = (size_t)block * tiles + (e & (tiles - 1));
    const size_t m = e >> logTiles;
    const size_t low = g & (((size_t)1 << r) - 1);
    const size_t high = g >> r;
    return (high << (r + k)) | (m << r) | low;
}

PHE_HD void ntt_phase_load(uint32_t limb, uint32_t block, uint32_t e, uint64_t* sh, const uint64_t* a, int logN,
                           int k, int r, int logTiles) {
    sh[e] = a[((size_t)limb << logN) + ntt_tile_address(block, e, k, r, logTiles)];
}

PHE_HD void ntt_phase_store(uint32_t limb, uint32_t block, uint32_t e, const uint64_t* sh, uint64_t* a, int logN,
                            int k, int r, int logTiles) {
    a[((size_t)limb << logN) + ntt_tile_address(block, e, k, r, logTiles)] = sh[e];
}

/**
 * Where butterfly bb (of T * 2^(k-1)) of a phase's step works, for a step that pairs bit logHalf of m: its tile t,
 * its tile's number g within the limb, its group i within the tile, and the two shared rows mlo and
 * mhi = mlo + 2^logHalf. The forward NTT and the FFT pair bit k - 1 - u at step u, the inverse NTT bit u.
 */
struct PhePair {
    uint32_t t, i, mlo, mhi;
    size_t g;
};

PHE_HD PhePair phe_phase_pair(uint32_t block, uint32_t bb, int logTiles, int logHalf) {
    const uint32_t tiles = 1u << logTiles;
    const uint32_t local = bb >> logTiles;
    PhePair q;
    q.t = bb & (tiles - 1);
    q.g = (size_t)block * tiles + q.t;
    q.i = local >> logHalf;
    q.mlo = (q.i << (logHalf + 1)) | (local & ((1u << logHalf) - 1));
    q.mhi = q.mlo + (1u << logHalf);
    return q;
}

/** Butterfly bb (of T * 2^(k-1)) of forward stage s0 + u in block `block`'s shared tiles. */
PHE_HD void ntt_fwd_phase_butterfly(uint32_t limb, uint32_t block, uint32_t bb, uint64_t* sh, const int* primes,
                                    const uint64_t* pc, const uint64_t* psiRev, const uint64_t* psiRevShoup,
                                    int logN, int s0, int k, int logTiles, int u) {
    const PhePair x = phe_phase_pair(block, bb, logTiles, k - 1 - u);
    const size_t high = x.g >> (logN - s0 - k);
    const int s = s0 + u;
    const size_t tw = ((size_t)1 << s) + (high << u) + x.i;
    const int p = primes[limb];
    const size_t row = (size_t)p << logN;
    ntt_fwd_pair(sh + ((size_t)x.mlo << logTiles) + x.t, sh + ((size_t)x.mhi << logTiles) + x.t, psiRev[row + tw],
                 psiRevShoup[row + tw], PHE_PC(p, PC_Q), s == logN - 1);
}

/** Butterfly bb of inverse stage s0 + u in block `block`'s shared tiles. */
PHE_HD void ntt_inv_phase_butterfly(uint32_t limb, uint32_t block, uint32_t bb, uint64_t* sh, const int* primes,
                                    const uint64_t* pc, const uint64_t* psiInvRev, const uint64_t* psiInvRevShoup,
                                    int logN, int s0, int k, int logTiles, int u) {
    const PhePair x = phe_phase_pair(block, bb, logTiles, u);
    const size_t high = x.g >> s0;
    const int s = s0 + u;
    const bool last = s == logN - 1;
    const int p = primes[limb];
    const size_t row = (size_t)p << logN;
    const size_t tw = last ? 0 : ((size_t)1 << (logN - s - 1)) + (high << (k - 1 - u)) + x.i;
    ntt_inv_pair(sh + ((size_t)x.mlo << logTiles) + x.t, sh + ((size_t)x.mhi << logTiles) + x.t,
                 last ? 0 : psiInvRev[row + tw], last ? 0 : psiInvRevShoup[row + tw], pc + (size_t)p * PC_STRIDE, last);
}

// =========================================================================================================
// Coefficient-wise arithmetic (RnsArithmetic, CpuEvaluator.multiply). Inputs canonical [0, q); any form
// (NTT or coefficient) as long as all operands share it; pointwise multiply / tensor need NTT form for
// the ring product. count = N. Per-limb scalars are indexed by LIMB POSITION k (not prime index).
// =========================================================================================================

PHE_HD void poly_add_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* a, const uint64_t* b,
                           const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    out[o] = phe_add_mod(a[o], b[o], PHE_PC(primes[limb], PC_Q));
}

PHE_HD void poly_sub_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* a, const uint64_t* b,
                           const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    out[o] = phe_sub_mod(a[o], b[o], PHE_PC(primes[limb], PC_Q));
}

PHE_HD void poly_neg_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* a, const int* primes,
                           const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    out[o] = phe_neg_mod(a[o], PHE_PC(primes[limb], PC_Q));
}

/** acc += b (RnsArithmetic.addInto). */
PHE_HD void poly_add_into_coeff(uint32_t limb, uint32_t c, uint64_t* acc, const uint64_t* b, const int* primes,
                                const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    acc[o] = phe_add_mod(acc[o], b[o], PHE_PC(primes[limb], PC_Q));
}

PHE_HD void poly_mul_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* a, const uint64_t* b,
                           const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    const int p = primes[limb];
    out[o] = phe_mul_mod(a[o], b[o], PHE_PC(p, PC_Q), PHE_PC(p, PC_QINV), PHE_PC(p, PC_R2));
}

/** out = a * w[limb] (RnsArithmetic.multiplyScalars; w[k] < q, wShoup[k] = Modulus.shoup(w[k])). */
PHE_HD void poly_mul_scalar_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* a, const uint64_t* w,
                                  const uint64_t* wShoup, const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    out[o] = phe_shoup_mul(a[o], w[limb], wShoup[limb], PHE_PC(primes[limb], PC_Q));
}

/** out = a + w[limb] (RnsArithmetic.addScalars; w[k] < q). */
PHE_HD void poly_add_scalar_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* a, const uint64_t* w,
                                  const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    out[o] = phe_add_mod(a[o], w[limb], PHE_PC(primes[limb], PC_Q));
}

/**
 * out = (x - y) * w[limb]: the ModDown combine (KeySwitcher.modDown, w = P^-1 mod q_i), the rescale combine
 * (RnsRescaler, w = q_l^-1 mod q_i) and the level-0 key-switch combine (w = p_0^-1 mod q_0).
 */
PHE_HD void poly_sub_mul_scalar_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* x,
                                      const uint64_t* y, const uint64_t* w, const uint64_t* wShoup,
                                      const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    const uint64_t q = PHE_PC(primes[limb], PC_Q);
    out[o] = phe_shoup_mul(phe_sub_mod(x[o], y[o], q), w[limb], wShoup[limb], q);
}

/** The ct x ct tensor of CpuEvaluator.multiply (NTT form): d0 = a0 b0, d1 = a0 b1 + a1 b0, d2 = a1 b1. */
PHE_HD void poly_tensor_coeff(uint32_t limb, uint32_t c, uint64_t* d0, uint64_t* d1, uint64_t* d2,
                              const uint64_t* a0, const uint64_t* a1, const uint64_t* b0, const uint64_t* b1,
                              const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    const uint64_t qinv = PHE_PC(p, PC_QINV);
    const uint64_t r2 = PHE_PC(p, PC_R2);
    const uint64_t u0 = phe_to_mont(a0[o], q, qinv, r2);
    const uint64_t u1 = phe_to_mont(a1[o], q, qinv, r2);
    const uint64_t x0 = b0[o];
    const uint64_t x1 = b1[o];
    const uint64_t r0 = phe_mont_mul(u0, x0, q, qinv);
    const uint64_t r1 = phe_add_mod(phe_mont_mul(u0, x1, q, qinv), phe_mont_mul(u1, x0, q, qinv), q);
    const uint64_t r2v = phe_mont_mul(u1, x1, q, qinv);
    d0[o] = r0;
    d1[o] = r1;
    d2[o] = r2v;
}

// =========================================================================================================
// Automorphism in NTT form (Automorphism.apply): out[i] = in[perm[i]] per limb. out must NOT alias in.
// =========================================================================================================

PHE_HD void automorphism_coeff(uint32_t limb, uint32_t i, uint64_t* out, const uint64_t* in, const int* perm,
                               int n) {
    const size_t base = (size_t)limb * n;
    out[base + i] = in[base + (size_t)perm[i]];
}

// =========================================================================================================
// Fast basis conversion (BasisConverter). Input x in COEFFICIENT form, canonical.
// bconv_scale: per source limb k, y = x * qHatInv[k] mod q, centred into (-q/2, q/2] and stored as a
//   two's-complement int64 in the uint64 buffer (like Java's long[] scaled). In place allowed.
// bconv_accumulate: per target limb t (blockIdx.y), out = sum_{s < S} y_s * qHat[t * S + s] mod p_t,
//   canonical, COEFFICIENT form; y = the S scaled limbs (contiguous). out must not alias y.
// =========================================================================================================

PHE_HD void bconv_scale_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* x, const uint64_t* qHatInv,
                              const uint64_t* qHatInvShoup, const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    const uint64_t q = PHE_PC(primes[limb], PC_Q);
    const uint64_t y = phe_shoup_mul(x[o], qHatInv[limb], qHatInvShoup[limb], q);
    out[o] = y > (q >> 1) ? y - q : y; // wraps to the two's complement of y - q
}

/** sum_s y_s * row[s] mod p over S scaled (centred, signed) limbs y_s = y[s * n] of one coefficient. */
PHE_HD uint64_t bconv_dot(const uint64_t* y, int numSources, const uint64_t* row, const uint64_t* rowShoup, uint64_t p,
                          int n) {
    uint64_t acc = 0;
    for (int s = 0; s < numSources; s++) {
        const int64_t v = (int64_t)y[(size_t)s * n];
        const uint64_t mag = v >= 0 ? (uint64_t)v : (uint64_t)0 - (uint64_t)v; // < 2^63
        const uint64_t term = phe_shoup_mul(mag, row[s], rowShoup[s], p);
        acc = phe_add_mod(acc, v >= 0 ? term : phe_neg_mod(term, p), p);
    }
    return acc;
}

PHE_HD void bconv_accumulate_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* y, int numSources,
                                   const uint64_t* qHat, const uint64_t* qHatShoup, const int* tgtPrimes,
                                   const uint64_t* pc, int n) {
    const uint64_t p = PHE_PC(tgtPrimes[limb], PC_Q);
    out[(size_t)limb * n + c] = bconv_dot(y + c, numSources, qHat + (size_t)limb * numSources,
                                          qHatShoup + (size_t)limb * numSources, p, n);
}

// =========================================================================================================
// ModUp of every digit in one launch (KeySwitcher.decompose), COEFFICIENT form out; the caller then runs one
// forward NTT over all D x width limbs (primes = ext repeated D times). Output limb `slot` = j * width + pos:
//   plan[3 * slot .. +2] = {start, count, row}:
//   count == 0: the digit's own limb pos: out = coeffs limb `start` (d in coefficient form, canonical);
//   count > 0:  a target outside the digit: out = sum_{s < count} scaled[start + s] * qHat[row + s] mod ext[pos]
//               (qHat, qHatShoup: every digit's conversion table of this level, concatenated).
// Converting the own limbs back and forth costs alpha of width limbs of NTT work, and saves a launch per digit.
// =========================================================================================================

PHE_HD void modup_convert_coeff(uint32_t slot, uint32_t c, uint64_t* out, const uint64_t* coeffs,
                                const uint64_t* scaled, const int* plan, const uint64_t* qHat,
                                const uint64_t* qHatShoup, const int* ext, int width, const uint64_t* pc, int n) {
    const int start = plan[3 * slot];
    const int count = plan[3 * slot + 1];
    const size_t o = (size_t)slot * n + c;
    if (count == 0) {
        out[o] = coeffs[(size_t)start * n + c];
        return;
    }
    const int row = plan[3 * slot + 2];
    const uint64_t p = PHE_PC(ext[slot % width], PC_Q);
    out[o] = bconv_dot(scaled + (size_t)start * n + c, count, qHat + row, qHatShoup + row, p, n);
}

// =========================================================================================================
// Rescale (RnsRescaler.rescale), caller-side sequence for one polynomial x (NTT, limbs 0..l, l >= 1):
//   1. last = copy of limb l of x; ntt_inv on it (primes = {l})          -> coefficient form
//   2. rescale_lift(t, last, l, primes = {0..l-1})                              -> t, coefficient form:
//        t_i = ([last + h]_{q_l} - h) mod q_i with h = floor(q_l / 2)
//   3. ntt_fwd on t (l limbs, primes {0..l-1})                           -> NTT form
//   4. poly_sub_mul_scalar(out, x, t, rescaleInv row l, ...) over l limbs      -> out = (x - t) / q_l, NTT
// =========================================================================================================

PHE_HD void rescale_lift_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* last, int lastPrime,
                               const int* primes, const uint64_t* pc, int n) {
    const uint64_t ql = PHE_PC(lastPrime, PC_Q);
    const uint64_t h = ql >> 1;
    uint64_t v = last[c] + h;
    v = v >= ql ? v - ql : v; // [x + h]_{q_l}
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    const uint64_t barrett = PHE_PC(p, PC_BARRETT);
    out[(size_t)limb * n + c] = phe_sub_mod(phe_reduce64(v, q, barrett), phe_reduce64(h, q, barrett), q);
}

// =========================================================================================================
// Centred lift (KeySwitcher.centredLift, ModRaise.raise): `in` is ONE limb modulo prime `fromPrime` in
// COEFFICIENT form; out limb k = the centred integer (in (-f/2, f/2]) modulo prime primes[k], coefficient
// form (the caller runs ntt_fwd afterwards). out must not alias in.
// =========================================================================================================

PHE_HD void centred_lift_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* in, int fromPrime,
                               const int* primes, const uint64_t* pc, int n) {
    const uint64_t f = PHE_PC(fromPrime, PC_Q);
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    const uint64_t barrett = PHE_PC(p, PC_BARRETT);
    const uint64_t v = in[c];
    out[(size_t)limb * n + c] =
        v > (f >> 1) ? phe_neg_mod(phe_reduce64(f - v, q, barrett), q) : phe_reduce64(v, q, barrett);
}

// =========================================================================================================
// Key-switching inner product (KeySwitcher.apply before modDown), NTT form. digits = the D raised digits,
// [D][width][N] (digit j, limb position pos at (j * width + pos) * N), canonical; key as in the table notes
// (Montgomery form, indexed by prime); primes = the width prime indices (Q_l ∪ P).
// acc0[pos] = sum_j digits[j][pos] * b_j, acc1[pos] = sum_j digits[j][pos] * a_j (both width x N, written,
// not accumulated into).
// =========================================================================================================

/**
 * sum_j digits[j][limb][src] * key_j[part][p][src] * 2^-64 mod q for both parts: the products (each < q^2 < 2^122)
 * summed in 128 bits, PHE_LAZY_TERMS at a time, then one Montgomery reduction each, which is what the sum of
 * Montgomery products gives.
 */
PHE_HD void keyswitch_dot(uint32_t limb, size_t src, const uint64_t* digits, int numDigits, int width,
                          const uint64_t* key, int numPrimes, int p, const uint64_t* pc, int n, uint64_t* s0,
                          uint64_t* s1) {
    const uint64_t q = PHE_PC(p, PC_Q);
    const uint64_t qinv = PHE_PC(p, PC_QINV);
    const uint64_t barrett = PHE_PC(p, PC_BARRETT);
    uint64_t r0 = 0;
    uint64_t r1 = 0;
    for (int from = 0; from < numDigits; from += PHE_LAZY_TERMS) {
        const int to = from + PHE_LAZY_TERMS < numDigits ? from + PHE_LAZY_TERMS : numDigits;
        uint64_t lo0 = 0, hi0 = 0, lo1 = 0, hi1 = 0;
        for (int j = from; j < to; j++) {
            const uint64_t x = digits[((size_t)j * width + limb) * n + src];
            phe_mac128(&lo0, &hi0, x, key[(((size_t)j * 2 + 0) * numPrimes + p) * n + src]);
            phe_mac128(&lo1, &hi1, x, key[(((size_t)j * 2 + 1) * numPrimes + p) * n + src]);
        }
        r0 = phe_add_mod(r0, phe_mont_reduce128(lo0, hi0, q, qinv, barrett), q);
        r1 = phe_add_mod(r1, phe_mont_reduce128(lo1, hi1, q, qinv, barrett), q);
    }
    *s0 = r0;
    *s1 = r1;
}

PHE_HD void keyswitch_inner_product_coeff(uint32_t limb, uint32_t c, uint64_t* acc0, uint64_t* acc1,
                                          const uint64_t* digits, int numDigits, int width, const uint64_t* key,
                                          int numPrimes, const int* primes, const uint64_t* pc, int n) {
    uint64_t s0, s1;
    keyswitch_dot(limb, c, digits, numDigits, width, key, numPrimes, primes[limb], pc, n, &s0, &s1);
    const size_t o = (size_t)limb * n + c;
    acc0[o] = s0;
    acc1[o] = s1;
}

/**
 * One term of a sum of key switches (KeySwitcher.switchSum before its ModDown): the term's inner product permuted
 * by its automorphism while still over Q_l U P, added into the sums (written where `first`):
 * acc_v[limb][i] (+)= (sum_j D_j key_jv + [v = 0] add0)[perm[i]], with perm = Automorphism.permutation
 * (out[i] = in[perm[i]]); add0 is null but in the double-hoisted transforms' giant steps.
 */
PHE_HD void keyswitch_permuted_sum_coeff(uint32_t limb, uint32_t c, uint64_t* acc0, uint64_t* acc1,
                                         const uint64_t* digits, int numDigits, int width, const uint64_t* key,
                                         int numPrimes, const int* primes, const int* perm, int first,
                                         const uint64_t* add0, const uint64_t* pc, int n) {
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    uint64_t s0, s1;
    const size_t src = (size_t)perm[c];
    keyswitch_dot(limb, src, digits, numDigits, width, key, numPrimes, p, pc, n, &s0, &s1);
    if (add0 != 0) {
        s0 = phe_add_mod(s0, add0[(size_t)limb * n + src], q); // a giant step's c0, permuted with the rest
    }
    const size_t o = (size_t)limb * n + c;
    acc0[o] = first ? s0 : phe_add_mod(acc0[o], s0, q);
    acc1[o] = first ? s1 : phe_add_mod(acc1[o], s1, q);
}

// =========================================================================================================
// ModDown and rescale as one division by P * q_l (KeySwitcher.modDownRescale), for each x (NTT over Q_l U P) and
// d (NTT over Q_l, or none): round((P d + x) / (P q_l)) over Q_(l-1). Sequence per x:
//   1. moddown_rescale_add_pd(x limb l, d limb l, pModQl) where there is a d      (the q_l limb holds P d too)
//   2. ntt_inv on x limbs [l, width) (primes ext + l); bconv_scale(scaled, those, converter {q_l} U P -> Q_(l-1))
//   3. moddown_rescale_excess(u, scaled, k + 1, 1/s_t): u = rint(sum_t y_t / s_t), in doubles as Java sums them
//   4. bconv_accumulate_excess(conv, scaled, k + 1, qHat, ..., u, minusExcess, offset) over l limbs: the fast
//      conversion less u P q_l (its excess), then ntt_fwd on conv
//   5. moddown_rescale_combine(out, x, conv, d, pqInv, qlInv ...) over l limbs
// Tables per level: the converter's (as BasisConverter.tables), sourceInverse (the doubles' bits),
// minusExcess[l][2 offset + 1] (-u P q_l mod q_i), pqInv, qlInv and their Shoup companions, {pModQl, Shoup}.
// =========================================================================================================

/** Products and sums of doubles rounded one by one, as Java computes them (no fused multiply-add). */
PHE_HD double phe_dmul(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

PHE_HD double phe_dsub(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

PHE_HD double phe_dadd(double a, double b) {
#if defined(__CUDA_ARCH__)
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

/** x += d * w on one limb (w = P mod q_l, wShoup its companion; prime = q_l's index). count = N, one limb. */
PHE_HD void moddown_rescale_add_pd_coeff(uint32_t limb, uint32_t c, uint64_t* x, const uint64_t* d,
                                         const uint64_t* w, int prime, const uint64_t* pc, int n) {
    const uint64_t q = PHE_PC(prime, PC_Q);
    x[c] = phe_add_mod(x[c], phe_shoup_mul(d[c], w[0], w[1], q), q);
}

/** u[c] = rint(sum_t (double) y_t[c] * inv[t]) over the k + 1 scaled limbs y (inv: doubles as their bits). */
PHE_HD void moddown_rescale_excess_coeff(uint32_t limb, uint32_t c, int* u, const uint64_t* scaled, int sources,
                                         const uint64_t* inverseBits, int n) {
    double f = 0;
    for (int t = 0; t < sources; t++) {
        double inv;
        memcpy(&inv, &inverseBits[t], sizeof inv);
        f = phe_dadd(f, phe_dmul((double)(int64_t)scaled[(size_t)t * n + c], inv));
    }
    u[c] = (int)rint(f);
}

/** The fast conversion of the k + 1 scaled limbs to target limb `limb`, less its excess u P q_l. */
PHE_HD void bconv_accumulate_excess_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* y, int numSources,
                                          const uint64_t* qHat, const uint64_t* qHatShoup, const int* tgtPrimes,
                                          const int* u, const uint64_t* minusExcess, int offset, const uint64_t* pc,
                                          int n) {
    const uint64_t q = PHE_PC(tgtPrimes[limb], PC_Q);
    const uint64_t conv = bconv_dot(y + c, numSources, qHat + (size_t)limb * numSources,
                                    qHatShoup + (size_t)limb * numSources, q, n);
    out[(size_t)limb * n + c] = phe_add_mod(conv, minusExcess[(size_t)limb * (2 * offset + 1) + u[c] + offset], q);
}

/** out = (x - conv) (P q_l)^-1 + d q_l^-1 (d may be null) over the l target limbs. */
PHE_HD void moddown_rescale_combine_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* x,
                                          const uint64_t* conv, const uint64_t* d, const uint64_t* pqInv,
                                          const uint64_t* pqInvShoup, const uint64_t* qlInv,
                                          const uint64_t* qlInvShoup, const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    const uint64_t q = PHE_PC(primes[limb], PC_Q);
    const uint64_t r = phe_shoup_mul(phe_sub_mod(x[o], conv[o], q), pqInv[limb], pqInvShoup[limb], q);
    out[o] = d == 0 ? r : phe_add_mod(r, phe_shoup_mul(d[o], qlInv[limb], qlInvShoup[limb], q), q);
}

// =========================================================================================================
// Double-hoisted linear transforms (KeySwitcher.diagonalsRescaled), over Q_l U P (width limbs, primes ext):
//   baby step b with a key: baby_step(x0, x1, digits of c1, ..., perm_b, c0, pModQ, l): not divided by P,
//     x_v[i] = (sum_j D_j key_jv)[perm[i]] + [v = 0, limb <= l] P c0[perm[i]]
//   the identity baby step: x_v = P c_v on limbs 0..l, zero on the special primes
//   per giant step g with a diagonal at b: diagonal_accumulate(s0_g, s1_g, x0, x1, diag_gb, first):
//     s_v (+)= x_v * diag (the diagonal in Montgomery form: a Montgomery product is the plain product)
//   then per rotated giant step: ModDown of s1_g, ModUp of that, keyswitch_permuted_sum with add0 = s0_g into the
//   accumulator; unrotated sums are added; one ModDown + rescale of the accumulator (moddown_rescale).
// =========================================================================================================

PHE_HD void baby_step_coeff(uint32_t limb, uint32_t c, uint64_t* x0, uint64_t* x1, const uint64_t* digits,
                            int numDigits, int width, const uint64_t* key, int numPrimes, const int* primes,
                            const int* perm, const uint64_t* c0, const uint64_t* pModQ, const uint64_t* pModQShoup,
                            int level, const uint64_t* pc, int n) {
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    uint64_t s0, s1;
    const size_t src = (size_t)perm[c];
    keyswitch_dot(limb, src, digits, numDigits, width, key, numPrimes, p, pc, n, &s0, &s1);
    if ((int)limb <= level) {
        s0 = phe_add_mod(s0, phe_shoup_mul(c0[(size_t)limb * n + src], pModQ[limb], pModQShoup[limb], q), q);
    }
    const size_t o = (size_t)limb * n + c;
    x0[o] = s0;
    x1[o] = s1;
}

/** The identity baby step: x_v = P c_v on limbs 0..level, zero on the special primes (width limbs). */
PHE_HD void baby_identity_coeff(uint32_t limb, uint32_t c, uint64_t* x0, uint64_t* x1, const uint64_t* c0,
                                const uint64_t* c1, const uint64_t* pModQ, const uint64_t* pModQShoup, int level,
                                const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    if ((int)limb > level) {
        x0[o] = 0;
        x1[o] = 0;
        return;
    }
    const uint64_t q = PHE_PC(primes[limb], PC_Q);
    x0[o] = phe_shoup_mul(c0[o], pModQ[limb], pModQShoup[limb], q);
    x1[o] = phe_shoup_mul(c1[o], pModQ[limb], pModQShoup[limb], q);
}

PHE_HD void diagonal_accumulate_coeff(uint32_t limb, uint32_t c, uint64_t* s0, uint64_t* s1, const uint64_t* x0,
                                      const uint64_t* x1, const uint64_t* diagonal, int first, const int* primes,
                                      const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    const uint64_t qinv = PHE_PC(p, PC_QINV);
    const uint64_t r0 = phe_mont_mul(x0[o], diagonal[o], q, qinv);
    const uint64_t r1 = phe_mont_mul(x1[o], diagonal[o], q, qinv);
    s0[o] = first ? r0 : phe_add_mod(s0[o], r0, q);
    s1[o] = first ? r1 : phe_add_mod(s1[o], r1, q);
}

// =========================================================================================================
// Encoding on the device (CanonicalEncoder, SpecialFft.inverseBitReversed): the slots' values in one buffer of
// doubles {re[size], im[size]}, the inverse special FFT in phases (the geometry of the forward NTT's phases with
// logN replaced by log2(size): the stage of length L pairs bit log2(L) - 1, from L = size down to 2), then
// encode_slots rounds each coefficient and reduces it into every limb, then ntt_fwd. Every double operation is
// the one Java does, in its order, rounded alone (__dmul_rn, __dadd_rn, __dsub_rn: no fused multiply-add), so the
// limbs agree with the host's bit for bit. Twiddles: SpecialFft.twiddles(), doubles as their bits.
// =========================================================================================================

PHE_HD double phe_bits_to_double(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/** Butterfly bb of inverse-FFT stage s0 + u (length size >> (s0 + u)) in block `block`'s shared tiles. */
PHE_HD void fft_inv_phase_butterfly(uint32_t block, uint32_t bb, double* shRe, double* shIm, const uint64_t* twRe,
                                    const uint64_t* twIm, int logSize, int s0, int k, int logTiles, int u) {
    const int logHalf = k - 1 - u;
    const PhePair x = phe_phase_pair(block, bb, logTiles, logHalf);
    const int r = logSize - s0 - k;
    // the lower element's offset within its group of length L: its index bits below the pair bit
    const size_t offset = ((size_t)(x.mlo & ((1u << logHalf) - 1)) << r) | (x.g & (((size_t)1 << r) - 1));
    const size_t half = (size_t)1 << (logSize - 1 - s0 - u);
    const size_t tw = half - 1 + offset;
    const double wr = phe_bits_to_double(twRe[tw]);
    const double wi = -phe_bits_to_double(twIm[tw]); // the inverse turns the other way
    double* ar = shRe + ((size_t)x.mlo << logTiles) + x.t;
    double* ai = shIm + ((size_t)x.mlo << logTiles) + x.t;
    double* br = shRe + ((size_t)x.mhi << logTiles) + x.t;
    double* bi = shIm + ((size_t)x.mhi << logTiles) + x.t;
    const double ur = phe_dadd(*ar, *br);
    const double ui = phe_dadd(*ai, *bi);
    const double dr = phe_dsub(*ar, *br);
    const double di = phe_dsub(*ai, *bi);
    *ar = ur;
    *ai = ui;
    *br = phe_dsub(phe_dmul(dr, wr), phe_dmul(di, wi));
    *bi = phe_dadd(phe_dmul(dr, wi), phe_dmul(di, wr));
}

PHE_HD void fft_phase_load(uint32_t block, uint32_t e, double* shRe, double* shIm, const double* values, int logSize,
                           int k, int r, int logTiles) {
    const size_t x = ntt_tile_address(block, e, k, r, logTiles);
    shRe[e] = values[x];
    shIm[e] = values[((size_t)1 << logSize) + x];
}

PHE_HD void fft_phase_store(uint32_t block, uint32_t e, const double* shRe, const double* shIm, double* values,
                            int logSize, int k, int r, int logTiles) {
    const size_t x = ntt_tile_address(block, e, k, r, logTiles);
    values[x] = shRe[e];
    values[((size_t)1 << logSize) + x] = shIm[e];
}

/**
 * Coefficient c of a plaintext of `slots` slots from the FFT's output (value i at bitReverse(i)), scaled by
 * factor = scale / slots, rounded, and reduced into limb `limb` (coefficient form): CanonicalEncoder's loop.
 */
PHE_HD void encode_slots_coeff(uint32_t limb, uint32_t c, uint64_t* out, const double* values, int logSlots,
                               uint64_t factorBits, const int* primes, const uint64_t* pc, int n) {
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    const uint32_t half = (uint32_t)n / 2;
    const uint32_t gap = half >> logSlots;
    const uint32_t at = c < half ? c : c - half;
    uint64_t r = 0;
    if (at % gap == 0) {
        const uint32_t i = at / gap;
        uint32_t from = 0;
        for (int b = 0; b < logSlots; b++) {
            from |= ((i >> b) & 1u) << (logSlots - 1 - b);
        }
        const double v = values[(c < half ? 0 : ((size_t)1 << logSlots)) + from];
        const double rounded = rint(phe_dmul(v, phe_bits_to_double(factorBits)));
        r = phe_reduce_signed((int64_t)rounded, q, PHE_PC(p, PC_BARRETT));
    }
    out[(size_t)limb * n + c] = r;
}

/**
 * A plaintext's residues from its signed integer coefficients (CanonicalEncoder: |c| < 2^62, two's complement in
 * the uint64 buffer): out limb k = c mod primes[k], coefficient form (the caller runs ntt_fwd). count = N.
 */
PHE_HD void encode_coefficients_coeff(uint32_t limb, uint32_t c, uint64_t* out, const uint64_t* coefficients,
                                      const int* primes, const uint64_t* pc, int n) {
    const int p = primes[limb];
    out[(size_t)limb * n + c] = phe_reduce_signed((int64_t)coefficients[c], PHE_PC(p, PC_Q), PHE_PC(p, PC_BARRETT));
}

/** out = a * b (+ s) per element for two products sharing b (CpuEvaluator's multiplyPair / multiplyPairAdd). */
PHE_HD void poly_mul_pair_coeff(uint32_t limb, uint32_t c, uint64_t* out0, uint64_t* out1, const uint64_t* a0,
                                const uint64_t* a1, const uint64_t* b, const uint64_t* s0, const uint64_t* s1,
                                const int* primes, const uint64_t* pc, int n) {
    const size_t o = (size_t)limb * n + c;
    const int p = primes[limb];
    const uint64_t q = PHE_PC(p, PC_Q);
    const uint64_t m0 = phe_mul_mod(a0[o], b[o], q, PHE_PC(p, PC_QINV), PHE_PC(p, PC_R2));
    const uint64_t m1 = phe_mul_mod(a1[o], b[o], q, PHE_PC(p, PC_QINV), PHE_PC(p, PC_R2));
    out0[o] = s0 == 0 ? m0 : phe_add_mod(s0[o], m0, q);
    out1[o] = s1 == 0 ? m1 : phe_add_mod(s1[o], m1, q);
}

// =========================================================================================================
// __global__ wrappers: index computation only. Parameter order = the body's order after (limb, idx).
// =========================================================================================================
// =========================================================================================================
// Per-limb scalars passed BY VALUE (kernel parameter space, no upload per call): up to PHE_SCALAR_LIMBS limbs a
// launch; the host splits longer polynomials into launches of that many limbs, each with its own pointers.
// =========================================================================================================
#define PHE_SCALAR_LIMBS 64
struct PheScalars {
    uint64_t w[PHE_SCALAR_LIMBS];
    uint64_t wShoup[PHE_SCALAR_LIMBS];
};

#if defined(__CUDACC__)

extern "C" __global__ void poly_add(uint64_t* out, const uint64_t* a, const uint64_t* b, const int* primes,
                                    const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_add_coeff(limb, idx, out, a, b, primes, pc, n);
}

extern "C" __global__ void poly_sub(uint64_t* out, const uint64_t* a, const uint64_t* b, const int* primes,
                                    const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_sub_coeff(limb, idx, out, a, b, primes, pc, n);
}

extern "C" __global__ void poly_neg(uint64_t* out, const uint64_t* a, const int* primes, const uint64_t* pc,
                                    int n) {
    PHE_GRID_INDEX(n)
    poly_neg_coeff(limb, idx, out, a, primes, pc, n);
}

extern "C" __global__ void poly_add_into(uint64_t* acc, const uint64_t* b, const int* primes, const uint64_t* pc,
                                         int n) {
    PHE_GRID_INDEX(n)
    poly_add_into_coeff(limb, idx, acc, b, primes, pc, n);
}

extern "C" __global__ void poly_mul(uint64_t* out, const uint64_t* a, const uint64_t* b, const int* primes,
                                    const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_mul_coeff(limb, idx, out, a, b, primes, pc, n);
}

extern "C" __global__ void poly_sub_mul_scalar(uint64_t* out, const uint64_t* x, const uint64_t* y,
                                               const uint64_t* w, const uint64_t* wShoup, const int* primes,
                                               const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_sub_mul_scalar_coeff(limb, idx, out, x, y, w, wShoup, primes, pc, n);
}

extern "C" __global__ void poly_tensor(uint64_t* d0, uint64_t* d1, uint64_t* d2, const uint64_t* a0,
                                       const uint64_t* a1, const uint64_t* b0, const uint64_t* b1,
                                       const int* primes, const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_tensor_coeff(limb, idx, d0, d1, d2, a0, a1, b0, b1, primes, pc, n);
}

extern "C" __global__ void automorphism_ntt(uint64_t* out, const uint64_t* in, const int* perm, int n) {
    PHE_GRID_INDEX(n)
    automorphism_coeff(limb, idx, out, in, perm, n);
}

extern "C" __global__ void bconv_scale(uint64_t* out, const uint64_t* x, const uint64_t* qHatInv,
                                       const uint64_t* qHatInvShoup, const int* primes, const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    bconv_scale_coeff(limb, idx, out, x, qHatInv, qHatInvShoup, primes, pc, n);
}

extern "C" __global__ void bconv_accumulate(uint64_t* out, const uint64_t* y, int numSources, const uint64_t* qHat,
                                            const uint64_t* qHatShoup, const int* tgtPrimes, const uint64_t* pc,
                                            int n) {
    PHE_GRID_INDEX(n)
    bconv_accumulate_coeff(limb, idx, out, y, numSources, qHat, qHatShoup, tgtPrimes, pc, n);
}

extern "C" __global__ void rescale_lift(uint64_t* out, const uint64_t* last, int lastPrime, const int* primes,
                                        const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    rescale_lift_coeff(limb, idx, out, last, lastPrime, primes, pc, n);
}

extern "C" __global__ void centred_lift(uint64_t* out, const uint64_t* in, int fromPrime, const int* primes,
                                        const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    centred_lift_coeff(limb, idx, out, in, fromPrime, primes, pc, n);
}

extern "C" __global__ void keyswitch_inner_product(uint64_t* acc0, uint64_t* acc1, const uint64_t* digits,
                                                   int numDigits, int width, const uint64_t* key, int numPrimes,
                                                   const int* primes, const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    keyswitch_inner_product_coeff(limb, idx, acc0, acc1, digits, numDigits, width, key, numPrimes, primes, pc, n);
}

extern "C" __global__ void ntt_fwd_phase(uint64_t* a, const int* primes, const uint64_t* pc, const uint64_t* psiRev,
                                         const uint64_t* psiRevShoup, int logN, int s0, int k, int logTiles) {
    extern __shared__ uint64_t sh[];
    const uint32_t limb = blockIdx.y;
    const uint32_t block = blockIdx.x;
    const uint32_t elems = 1u << (k + logTiles);
    const int r = logN - s0 - k;
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x) ntt_phase_load(limb, block, e, sh, a, logN, k, r, logTiles);
    __syncthreads();
    for (int u = 0; u < k; u++) {
        for (uint32_t bb = threadIdx.x; bb < elems / 2; bb += blockDim.x)
            ntt_fwd_phase_butterfly(limb, block, bb, sh, primes, pc, psiRev, psiRevShoup, logN, s0, k, logTiles, u);
        __syncthreads();
    }
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x) ntt_phase_store(limb, block, e, sh, a, logN, k, r, logTiles);
}

extern "C" __global__ void ntt_inv_phase(uint64_t* a, const int* primes, const uint64_t* pc,
                                         const uint64_t* psiInvRev, const uint64_t* psiInvRevShoup, int logN, int s0,
                                         int k, int logTiles) {
    extern __shared__ uint64_t sh[];
    const uint32_t limb = blockIdx.y;
    const uint32_t block = blockIdx.x;
    const uint32_t elems = 1u << (k + logTiles);
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x) ntt_phase_load(limb, block, e, sh, a, logN, k, s0, logTiles);
    __syncthreads();
    for (int u = 0; u < k; u++) {
        for (uint32_t bb = threadIdx.x; bb < elems / 2; bb += blockDim.x)
            ntt_inv_phase_butterfly(limb, block, bb, sh, primes, pc, psiInvRev, psiInvRevShoup, logN, s0, k, logTiles,
                                    u);
        __syncthreads();
    }
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x) ntt_phase_store(limb, block, e, sh, a, logN, k, s0, logTiles);
}

extern "C" __global__ void poly_mul_scalar_v(uint64_t* out, const uint64_t* a, PheScalars s, const int* primes,
                                             const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_mul_scalar_coeff(limb, idx, out, a, s.w, s.wShoup, primes, pc, n);
}

extern "C" __global__ void poly_add_scalar_v(uint64_t* out, const uint64_t* a, PheScalars s, const int* primes,
                                             const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_add_scalar_coeff(limb, idx, out, a, s.w, primes, pc, n);
}

extern "C" __global__ void modup_convert(uint64_t* out, const uint64_t* coeffs, const uint64_t* scaled,
                                         const int* plan, const uint64_t* qHat, const uint64_t* qHatShoup,
                                         const int* ext, int width, const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    modup_convert_coeff(limb, idx, out, coeffs, scaled, plan, qHat, qHatShoup, ext, width, pc, n);
}

extern "C" __global__ void keyswitch_permuted_sum(uint64_t* acc0, uint64_t* acc1, const uint64_t* digits,
                                                  int numDigits, int width, const uint64_t* key, int numPrimes,
                                                  const int* primes, const int* perm, int first, const uint64_t* add0,
                                                  const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    keyswitch_permuted_sum_coeff(limb, idx, acc0, acc1, digits, numDigits, width, key, numPrimes, primes, perm, first,
                                 add0, pc, n);
}

extern "C" __global__ void baby_step(uint64_t* x0, uint64_t* x1, const uint64_t* digits, int numDigits, int width,
                                     const uint64_t* key, int numPrimes, const int* primes, const int* perm,
                                     const uint64_t* c0, const uint64_t* pModQ, const uint64_t* pModQShoup, int level,
                                     const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    baby_step_coeff(limb, idx, x0, x1, digits, numDigits, width, key, numPrimes, primes, perm, c0, pModQ, pModQShoup,
                    level, pc, n);
}

extern "C" __global__ void baby_identity(uint64_t* x0, uint64_t* x1, const uint64_t* c0, const uint64_t* c1,
                                         const uint64_t* pModQ, const uint64_t* pModQShoup, int level,
                                         const int* primes, const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    baby_identity_coeff(limb, idx, x0, x1, c0, c1, pModQ, pModQShoup, level, primes, pc, n);
}

extern "C" __global__ void diagonal_accumulate(uint64_t* s0, uint64_t* s1, const uint64_t* x0, const uint64_t* x1,
                                               const uint64_t* diagonal, int first, const int* primes,
                                               const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    diagonal_accumulate_coeff(limb, idx, s0, s1, x0, x1, diagonal, first, primes, pc, n);
}

extern "C" __global__ void moddown_rescale_add_pd(uint64_t* x, const uint64_t* d, const uint64_t* w, int prime,
                                                  const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    moddown_rescale_add_pd_coeff(limb, idx, x, d, w, prime, pc, n);
}

extern "C" __global__ void moddown_rescale_excess(int* u, const uint64_t* scaled, int sources,
                                                  const uint64_t* inverseBits, int n) {
    PHE_GRID_INDEX(n)
    moddown_rescale_excess_coeff(limb, idx, u, scaled, sources, inverseBits, n);
}

extern "C" __global__ void bconv_accumulate_excess(uint64_t* out, const uint64_t* y, int numSources,
                                                   const uint64_t* qHat, const uint64_t* qHatShoup,
                                                   const int* tgtPrimes, const int* u, const uint64_t* minusExcess,
                                                   int offset, const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    bconv_accumulate_excess_coeff(limb, idx, out, y, numSources, qHat, qHatShoup, tgtPrimes, u, minusExcess, offset,
                                  pc, n);
}

extern "C" __global__ void moddown_rescale_combine(uint64_t* out, const uint64_t* x, const uint64_t* conv,
                                                   const uint64_t* d, const uint64_t* pqInv,
                                                   const uint64_t* pqInvShoup, const uint64_t* qlInv,
                                                   const uint64_t* qlInvShoup, const int* primes, const uint64_t* pc,
                                                   int n) {
    PHE_GRID_INDEX(n)
    moddown_rescale_combine_coeff(limb, idx, out, x, conv, d, pqInv, pqInvShoup, qlInv, qlInvShoup, primes, pc, n);
}

extern "C" __global__ void fft_inv_phase(double* values, const uint64_t* twRe, const uint64_t* twIm, int logSize,
                                         int s0, int k, int logTiles) {
    extern __shared__ double fsh[];
    const uint32_t block = blockIdx.x;
    const uint32_t elems = 1u << (k + logTiles);
    double* shRe = fsh;
    double* shIm = fsh + elems;
    const int r = logSize - s0 - k;
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x)
        fft_phase_load(block, e, shRe, shIm, values, logSize, k, r, logTiles);
    __syncthreads();
    for (int u = 0; u < k; u++) {
        for (uint32_t bb = threadIdx.x; bb < elems / 2; bb += blockDim.x)
            fft_inv_phase_butterfly(block, bb, shRe, shIm, twRe, twIm, logSize, s0, k, logTiles, u);
        __syncthreads();
    }
    for (uint32_t e = threadIdx.x; e < elems; e += blockDim.x)
        fft_phase_store(block, e, shRe, shIm, values, logSize, k, r, logTiles);
}

extern "C" __global__ void encode_slots(uint64_t* out, const double* values, int logSlots, uint64_t factorBits,
                                        const int* primes, const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    encode_slots_coeff(limb, idx, out, values, logSlots, factorBits, primes, pc, n);
}

extern "C" __global__ void encode_coefficients(uint64_t* out, const uint64_t* coefficients, const int* primes,
                                               const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    encode_coefficients_coeff(limb, idx, out, coefficients, primes, pc, n);
}

extern "C" __global__ void poly_mul_pair(uint64_t* out0, uint64_t* out1, const uint64_t* a0, const uint64_t* a1,
                                         const uint64_t* b, const uint64_t* s0, const uint64_t* s1, const int* primes,
                                         const uint64_t* pc, int n) {
    PHE_GRID_INDEX(n)
    poly_mul_pair_coeff(limb, idx, out0, out1, a0, a1, b, s0, s1, primes, pc, n);
}

#endif // __CUDACC__

// ckks-cuda: 64-bit modular arithmetic shared by the device kernels and their host emulation.
//
// Every helper is __host__ __device__: on the device the 64x64->128 high word comes from __umul64hi, on the
// host (the emulation in src/test/cuda) from unsigned __int128, selected with __CUDA_ARCH__. All moduli are
// primes q < 2^61 (dev.polyhe.backend.cpu.ring.Modulus.MAX_BITS), so 4q < 2^63 and the lazy ranges [0, 2q)
// and [0, 4q) used by the NTT never overflow a uint64_t.
//
// The results of every "full" helper are canonical residues in [0, q): RNS arithmetic is exact, so they
// equal the Java reference (ring/Modulus.java) bit for bit whatever reduction technique is used here.
#ifndef POLYHE_CUDA_MODARITH_CUH
#define POLYHE_CUDA_MODARITH_CUH

#include <stdint.h>

#if defined(__CUDACC__)
#define PHE_HD __host__ __device__ __forceinline__
#else
#define PHE_HD static inline
#endif

// ---------------------------------------------------------------------------------------------------------
// Per-prime constant table ("pc"), indexed by PRIME INDEX p (the context's full prime list q_0..q_L,
// p_0..p_{k-1}): PC_STRIDE words per prime, pc[p * PC_STRIDE + field].
// ---------------------------------------------------------------------------------------------------------
#define PC_STRIDE 8
#define PC_Q 0            // q
#define PC_QINV 1         // q^-1 mod 2^64 (Montgomery, R = 2^64; same as Modulus.qInv)
#define PC_R2 2           // 2^128 mod q (R^2 mod q: to Montgomery form)
#define PC_BARRETT 3      // floor(2^64 / q) (Barrett reduction of one 64-bit word)
#define PC_NINV 4         // N^-1 mod q (NttTables.nInv)
#define PC_NINV_SHOUP 5   // floor(nInv * 2^64 / q) (Modulus.shoup(nInv))
#define PC_LASTINV 6      // psiInvRev[1] * N^-1 mod q (NttTables.lastInv)
#define PC_LASTINV_SHOUP 7 // Modulus.shoup(lastInv)

/** High 64 bits of the 128-bit product a*b. */
PHE_HD uint64_t phe_mulhi(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
    return __umul64hi(a, b);
#else
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#endif
}

/** x in [0, 2q) to [0, q). */
PHE_HD uint64_t phe_reduce_2q(uint64_t x, uint64_t q) {
    return x >= q ? x - q : x;
}

/** x in [0, 4q) to [0, q). */
PHE_HD uint64_t phe_reduce_4q(uint64_t x, uint64_t q) {
    const uint64_t twoQ = q << 1;
    x = x >= twoQ ? x - twoQ : x;
    return x >= q ? x - q : x;
}

/** (a + b) mod q for a, b in [0, q). */
PHE_HD uint64_t phe_add_mod(uint64_t a, uint64_t b, uint64_t q) {
    const uint64_t s = a + b;
    return s >= q ? s - q : s;
}

/** (a - b) mod q for a, b in [0, q). */
PHE_HD uint64_t phe_sub_mod(uint64_t a, uint64_t b, uint64_t q) {
    return a >= b ? a - b : a - b + q;
}

/** -a mod q for a in [0, q). */
PHE_HD uint64_t phe_neg_mod(uint64_t a, uint64_t q) {
    return a == 0 ? 0 : q - a;
}

/** x mod q for any 64-bit x, with barrett = floor(2^64 / q): one estimate, one conditional subtraction. */
PHE_HD uint64_t phe_reduce64(uint64_t x, uint64_t q, uint64_t barrett) {
    // floor(x * barrett / 2^64) >= floor(x / q) - 1, so the remainder below is in [0, 2q)
    const uint64_t r = x - phe_mulhi(x, barrett) * q;
    return r >= q ? r - q : r;
}

/**
 * Montgomery product a*b*2^-64 mod q in [0, q), for a*b < q*2^64 (e.g. a < 2^64 and b < q), with
 * qinv = q^-1 mod 2^64. (T - m*q) is an exact multiple of 2^64, so only the high words are subtracted.
 */
PHE_HD uint64_t phe_mont_mul(uint64_t a, uint64_t b, uint64_t q, uint64_t qinv) {
    const uint64_t lo = a * b;
    const uint64_t hi = phe_mulhi(a, b);
    const uint64_t m = lo * qinv;
    const uint64_t t = phe_mulhi(m, q);
    return hi >= t ? hi - t : hi - t + q;
}

/** a * 2^64 mod q (Montgomery form), for a < 2^64. */
PHE_HD uint64_t phe_to_mont(uint64_t a, uint64_t q, uint64_t qinv, uint64_t r2) {
    return phe_mont_mul(a, r2, q, qinv);
}

/** a * b mod q in [0, q) for a < 2^64, b < q: two Montgomery products (like Modulus.mul). */
PHE_HD uint64_t phe_mul_mod(uint64_t a, uint64_t b, uint64_t q, uint64_t qinv, uint64_t r2) {
    return phe_mont_mul(phe_mont_mul(a, b, q, qinv), r2, q, qinv);
}

/**
 * Shoup product a*w mod q in [0, 2q) (lazy) for any a < 2^64, w < q and wShoup = floor(w * 2^64 / q)
 * (Modulus.shoup(w)).
 */
PHE_HD uint64_t phe_shoup_lazy(uint64_t a, uint64_t w, uint64_t wShoup, uint64_t q) {
    return a * w - phe_mulhi(a, wShoup) * q;
}

/** Shoup product a*w mod q in [0, q). */
PHE_HD uint64_t phe_shoup_mul(uint64_t a, uint64_t w, uint64_t wShoup, uint64_t q) {
    return phe_reduce_2q(phe_shoup_lazy(a, w, wShoup, q), q);
}

/** The signed value v (two's complement, |v| < 2^63) modulo q, in [0, q). */
PHE_HD uint64_t phe_reduce_signed(int64_t v, uint64_t q, uint64_t barrett) {
    return v >= 0 ? phe_reduce64((uint64_t)v, q, barrett)
                  : phe_neg_mod(phe_reduce64((uint64_t)0 - (uint64_t)v, q, barrett), q);
}

/** Products of residues below 2^61 summed in 128 bits: 64 of them stay below 2^128. */
#define PHE_LAZY_TERMS 64

/** (hi:lo) += a * b. */
PHE_HD void phe_mac128(uint64_t* lo, uint64_t* hi, uint64_t a, uint64_t b) {
    const uint64_t pl = a * b;
    const uint64_t ph = phe_mulhi(a, b);
    const uint64_t s = *lo + pl;
    *hi += ph + (s < pl ? 1 : 0);
    *lo = s;
}

/**
 * (hi:lo) * 2^-64 mod q in [0, q), any 128-bit value: with m = lo * q^-1 mod 2^64, (hi:lo) - m*q has low word zero,
 * so the quotient is hi - mulhi(m, q) (which lies in (-q, 2^64)), then reduced once.
 */
PHE_HD uint64_t phe_mont_reduce128(uint64_t lo, uint64_t hi, uint64_t q, uint64_t qinv, uint64_t barrett) {
    const uint64_t t = phe_mulhi(lo * qinv, q);
    return hi >= t ? phe_reduce64(hi - t, q, barrett) : hi - t + q;
}

#endif // POLYHE_CUDA_MODARITH_CUH

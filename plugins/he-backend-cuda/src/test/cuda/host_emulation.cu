// Host emulation of the ckks-cuda ring kernels: compiled by nvcc (host code path, no GPU needed), it includes
// ring_kernels.cu, runs each kernel's per-thread __host__ __device__ body over the kernel's grid with plain
// loops (every launch is order-independent by construction), chains the launches the way the JCuda layer will
// (NTT stage by stage, ModUp / inner product / ModDown, rescale, centred lifts) and compares with the Java
// outputs written by RingReference.java. One line per check; exit status 0 iff every check passes.
//
// Usage: host_emulation <vector folder written by RingReference>
#include "../../main/cuda/ring_kernels.cu"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

typedef std::vector<uint64_t> V;
typedef std::vector<int> I;

static std::string g_dir;
static std::map<std::string, std::vector<std::string> > g_params;
static int g_pass = 0;
static int g_fail = 0;

static std::vector<char> readFile(const std::string& name) {
    std::string path = g_dir + "/" + name + ".bin";
    std::ifstream in(path.c_str(), std::ios::binary);
    if (!in) {
        fprintf(stderr, "cannot read %s\n", path.c_str());
        exit(2);
    }
    return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

static V load64(const std::string& name) {
    std::vector<char> b = readFile(name);
    V v(b.size() / 8);
    for (size_t i = 0; i < v.size(); i++) { // little-endian, independent of the host's byte order
        uint64_t w = 0;
        for (int k = 7; k >= 0; k--) w = (w << 8) | (uint8_t)b[8 * i + k];
        v[i] = w;
    }
    return v;
}

static I load32(const std::string& name) {
    std::vector<char> b = readFile(name);
    I v(b.size() / 4);
    for (size_t i = 0; i < v.size(); i++) {
        uint32_t w = 0;
        for (int k = 3; k >= 0; k--) w = (w << 8) | (uint8_t)b[4 * i + k];
        v[i] = (int)w;
    }
    return v;
}

static void loadParams() {
    std::ifstream in((g_dir + "/params.txt").c_str());
    if (!in) {
        fprintf(stderr, "cannot read %s/params.txt\n", g_dir.c_str());
        exit(2);
    }
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string key, v;
        ls >> key;
        while (ls >> v) g_params[key].push_back(v);
    }
}

static int paramInt(const char* key) { return atoi(g_params[key].at(0).c_str()); }

/** PASS / FAIL line: first mismatch reported as limb, coefficient, got, expected. */
static bool check(const std::string& name, const uint64_t* got, const V& expected, int n, size_t count = 0) {
    if (count == 0) count = expected.size();
    if (count != expected.size()) {
        printf("FAIL %-28s size %zu, expected %zu words\n", name.c_str(), count, expected.size());
        g_fail++;
        return false;
    }
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < count; i++) {
        if (got[i] != expected[i]) {
            if (bad++ == 0) first = i;
        }
    }
    if (bad == 0) {
        printf("PASS %-28s (%zu limbs x %d)\n", name.c_str(), count / n, n);
        g_pass++;
        return true;
    }
    printf("FAIL %-28s %zu of %zu words differ; first at limb %zu coeff %zu: got %" PRIu64 " expected %" PRIu64 "\n",
           name.c_str(), bad, count, first / n, first % n, got[first], expected[first]);
    g_fail++;
    return false;
}

// -------------------------------------------------------------------------------------------------------------
// Grid emulation: the body of a kernel launched with gridDim.y = limbs and >= count threads along x.
// -------------------------------------------------------------------------------------------------------------
template <class F>
static void grid(uint32_t limbs, uint32_t count, F body) {
    for (uint32_t limb = 0; limb < limbs; limb++)
        for (uint32_t idx = 0; idx < count; idx++) body(limb, idx);
}

struct Ctx {
    int logN, n, qCount, pCount, P;
    V pc, psiRev, psiRevShoup, psiInvRev, psiInvRevShoup;
};

// -------------------------------------------------------------------------------------------------------------
// Shared-memory kernels, replayed block by block: within a block, each step between two barriers (the load, each
// stage, the store) runs every thread's share, thread by thread with the kernel's own strided loops, before the
// next step begins; the block's shared memory is a vector of its own.
// -------------------------------------------------------------------------------------------------------------
static const uint32_t BLOCK_THREADS = 256;

struct NttPhase {
    int s0, k, logTiles;
};

/** As NttPhases.plan (Java): one phase up to 2^11 points, else two of about half the stages each. */
static std::vector<NttPhase> nttPlan(int logN) {
    std::vector<NttPhase> plan;
    if (logN <= 11) {
        plan.push_back({0, logN, 0});
        return plan;
    }
    int k1 = (logN + 1) / 2, k2 = logN - k1;
    plan.push_back({0, k1, std::max(0, std::min(11 - k1, logN - k1))});
    plan.push_back({k1, k2, std::max(0, std::min(11 - k2, logN - k2))});
    return plan;
}

static void launch_ntt_phase(const Ctx& c, bool forward, uint64_t* a, const int* primes, int limbs, NttPhase ph) {
    const uint32_t elems = 1u << (ph.k + ph.logTiles);
    const uint32_t blocks = (uint32_t)c.n >> (ph.k + ph.logTiles);
    const int r = forward ? c.logN - ph.s0 - ph.k : ph.s0;
    for (int limb = 0; limb < limbs; limb++) {
        for (uint32_t block = 0; block < blocks; block++) {
            V sh(elems, 0xDEADBEEFDEADBEEFull); // garbage where a thread would read what no one wrote
            for (uint32_t tid = 0; tid < BLOCK_THREADS; tid++)
                for (uint32_t e = tid; e < elems; e += BLOCK_THREADS)
                    ntt_phase_load(limb, block, e, sh.data(), a, c.logN, ph.k, r, ph.logTiles);
            for (int u = 0; u < ph.k; u++) // __syncthreads() between steps
                for (uint32_t tid = 0; tid < BLOCK_THREADS; tid++)
                    for (uint32_t bb = tid; bb < elems / 2; bb += BLOCK_THREADS) {
                        if (forward)
                            ntt_fwd_phase_butterfly(limb, block, bb, sh.data(), primes, c.pc.data(), c.psiRev.data(),
                                                    c.psiRevShoup.data(), c.logN, ph.s0, ph.k, ph.logTiles, u);
                        else
                            ntt_inv_phase_butterfly(limb, block, bb, sh.data(), primes, c.pc.data(),
                                                    c.psiInvRev.data(), c.psiInvRevShoup.data(), c.logN, ph.s0, ph.k,
                                                    ph.logTiles, u);
                    }
            for (uint32_t tid = 0; tid < BLOCK_THREADS; tid++)
                for (uint32_t e = tid; e < elems; e += BLOCK_THREADS)
                    ntt_phase_store(limb, block, e, sh.data(), a, c.logN, ph.k, r, ph.logTiles);
        }
    }
}

static void launch_ntt_plan(const Ctx& c, bool forward, uint64_t* a, const int* primes, int limbs,
                            const std::vector<NttPhase>& plan) {
    for (const NttPhase& ph : plan) launch_ntt_phase(c, forward, a, primes, limbs, ph);
}

/** The transforms as the device layer launches them: the phases of nttPlan. */
static void launch_ntt_fwd(const Ctx& c, uint64_t* a, const int* primes, int limbs) {
    launch_ntt_plan(c, true, a, primes, limbs, nttPlan(c.logN));
}

static void launch_ntt_inv(const Ctx& c, uint64_t* a, const int* primes, int limbs) {
    launch_ntt_plan(c, false, a, primes, limbs, nttPlan(c.logN));
}

/** The version-1 transforms, one grid per stage: the phases must agree with them for every split. */
static void launch_ntt_stages(const Ctx& c, bool forward, uint64_t* a, const int* primes, int limbs) {
    for (int stage = 0; stage < c.logN; stage++)
        grid(limbs, c.n / 2, [&](uint32_t l, uint32_t i) {
            if (forward)
                ntt_fwd_butterfly(l, i, a, primes, c.pc.data(), c.psiRev.data(), c.psiRevShoup.data(), c.logN, stage);
            else
                ntt_inv_butterfly(l, i, a, primes, c.pc.data(), c.psiInvRev.data(), c.psiInvRevShoup.data(), c.logN,
                                  stage);
        });
}

static void launch_bconv_scale(const Ctx& c, uint64_t* out, const uint64_t* x, const uint64_t* w, const uint64_t* ws,
                               const int* primes, int limbs) {
    grid(limbs, c.n, [&](uint32_t l, uint32_t i) { bconv_scale_coeff(l, i, out, x, w, ws, primes, c.pc.data(), c.n); });
}

static void launch_bconv_accumulate(const Ctx& c, uint64_t* out, const uint64_t* y, int numSources, const uint64_t* qHat,
                                    const uint64_t* qHatShoup, const int* tgtPrimes, int targets) {
    grid(targets, c.n, [&](uint32_t l, uint32_t i) {
        bconv_accumulate_coeff(l, i, out, y, numSources, qHat, qHatShoup, tgtPrimes, c.pc.data(), c.n);
    });
}

static void launch_sub_mul_scalar(const Ctx& c, uint64_t* out, const uint64_t* x, const uint64_t* y, const uint64_t* w,
                                  const uint64_t* ws, const int* primes, int limbs) {
    grid(limbs, c.n,
         [&](uint32_t l, uint32_t i) { poly_sub_mul_scalar_coeff(l, i, out, x, y, w, ws, primes, c.pc.data(), c.n); });
}

static void launch_centred_lift(const Ctx& c, uint64_t* out, const uint64_t* in, int fromPrime, const int* primes,
                                int limbs) {
    grid(limbs, c.n,
         [&](uint32_t l, uint32_t i) { centred_lift_coeff(l, i, out, in, fromPrime, primes, c.pc.data(), c.n); });
}

static I range(int from, int to) { // [from, to)
    I r;
    for (int i = from; i < to; i++) r.push_back(i);
    return r;
}

static I extendedIndices(const Ctx& c, int level) {
    I r = range(0, level + 1);
    for (int t = 0; t < c.pCount; t++) r.push_back(c.qCount + t);
    return r;
}

// -------------------------------------------------------------------------------------------------------------
// Composite operations, sequenced as the device layer will sequence the kernels.
// -------------------------------------------------------------------------------------------------------------

/** RnsRescaler.rescale of one polynomial x (NTT, limbs 0..level) into out (limbs 0..level-1). */
static void rescale(const Ctx& c, uint64_t* out, const uint64_t* x, int level, const V& inv, const V& invShoup) {
    const int n = c.n;
    V last(x + (size_t)level * n, x + (size_t)(level + 1) * n);
    I lastPrime(1, level);
    launch_ntt_inv(c, last.data(), lastPrime.data(), 1);
    I primes = range(0, level);
    V t((size_t)level * n);
    grid(level, n, [&](uint32_t l, uint32_t i) {
        rescale_lift_coeff(l, i, t.data(), last.data(), level, primes.data(), c.pc.data(), n);
    });
    launch_ntt_fwd(c, t.data(), primes.data(), level);
    launch_sub_mul_scalar(c, out, x, t.data(), inv.data() + (size_t)level * c.qCount,
                          invShoup.data() + (size_t)level * c.qCount, primes.data(), level);
}

/** KeySwitcher.modDown of one acc (NTT over Q_level ∪ P, width limbs; its P limbs are overwritten). */
static void modDown(const Ctx& c, uint64_t* out, uint64_t* acc, int level) {
    static V qhatinv, qhatinvS, qhat, qhatS, pinv, pinvS;
    if (qhat.empty()) {
        qhatinv = load64("moddown_qhatinv");
        qhatinvS = load64("moddown_qhatinv_shoup");
        qhat = load64("moddown_qhat");
        qhatS = load64("moddown_qhat_shoup");
        pinv = load64("moddown_pinv");
        pinvS = load64("moddown_pinv_shoup");
    }
    const int n = c.n, k = c.pCount;
    I ext = extendedIndices(c, level);
    uint64_t* pLimbs = acc + (size_t)(level + 1) * n;
    const int* pPrimes = ext.data() + level + 1;
    launch_ntt_inv(c, pLimbs, pPrimes, k);
    V scaled((size_t)k * n);
    launch_bconv_scale(c, scaled.data(), pLimbs, qhatinv.data(), qhatinvS.data(), pPrimes, k);
    V conv((size_t)(level + 1) * n);
    // targets q_0..q_level: rows 0..level of the [qCount][k] table
    launch_bconv_accumulate(c, conv.data(), scaled.data(), k, qhat.data(), qhatS.data(), ext.data(), level + 1);
    launch_ntt_fwd(c, conv.data(), ext.data(), level + 1);
    launch_sub_mul_scalar(c, out, acc, conv.data(), pinv.data(), pinvS.data(), ext.data(), level + 1);
}

// -------------------------------------------------------------------------------------------------------------

static void testNtt(const Ctx& c) {
    const int n = c.n;
    I all = range(0, c.P);
    V a = load64("ntt_fwd_in");
    launch_ntt_fwd(c, a.data(), all.data(), c.P);
    check("ntt_fwd (all primes)", a.data(), load64("ntt_fwd_out"), n);
    V b = load64("ntt_inv_in");
    launch_ntt_inv(c, b.data(), all.data(), c.P);
    check("ntt_inv (all primes)", b.data(), load64("ntt_inv_out"), n);
    I rev = load32("reversed_primes");
    V r = load64("ntt_fwd_rev_in");
    V r2 = r;
    launch_ntt_fwd(c, r.data(), rev.data(), c.P);
    check("ntt_fwd (reversed primes)", r.data(), load64("ntt_fwd_rev_out"), n);
    launch_ntt_inv(c, r2.data(), rev.data(), c.P);
    check("ntt_inv (reversed primes)", r2.data(), load64("ntt_inv_rev_out"), n);
    // round trip
    V in = load64("ntt_fwd_in");
    V rt = in;
    launch_ntt_fwd(c, rt.data(), all.data(), c.P);
    launch_ntt_inv(c, rt.data(), all.data(), c.P);
    check("ntt_inv(ntt_fwd(x)) == x", rt.data(), in, n);
    // every way to split the stages into two phases, and three, with tiles per block from 1 to 8: each as the
    // stage-by-stage kernels (which the lines above hold to Java) on the same input
    V refF = in, refI = load64("ntt_inv_in");
    V inI = refI;
    launch_ntt_stages(c, true, refF.data(), all.data(), c.P);
    launch_ntt_stages(c, false, refI.data(), all.data(), c.P);
    int splits = 0, bad = 0;
    for (int k1 = 1; k1 < c.logN; k1++) {
        for (int logTiles = 0; logTiles <= 3; logTiles++) {
            for (int three = 0; three < 2; three++) {
                std::vector<NttPhase> plan;
                int k2 = c.logN - k1;
                if (three && k2 >= 2) {
                    int a = k2 / 2;
                    plan = {{0, k1, std::min(logTiles, c.logN - k1)}, {k1, a, std::min(logTiles, c.logN - a)},
                            {k1 + a, k2 - a, std::min(logTiles, c.logN - (k2 - a))}};
                } else {
                    plan = {{0, k1, std::min(logTiles, c.logN - k1)}, {k1, k2, std::min(logTiles, c.logN - k2)}};
                }
                V f = in, g = inI;
                launch_ntt_plan(c, true, f.data(), all.data(), c.P, plan);
                launch_ntt_plan(c, false, g.data(), all.data(), c.P, plan);
                splits++;
                if (f != refF || g != refI) {
                    if (bad++ == 0) printf("FAIL ntt phases: split k1=%d logTiles=%d three=%d differs\n", k1, logTiles, three);
                }
            }
        }
    }
    if (bad == 0) {
        printf("PASS %-28s (%d plans)\n", "ntt phases, every split", splits);
        g_pass++;
    } else {
        printf("FAIL %-28s %d of %d plans differ\n", "ntt phases, every split", bad, splits);
        g_fail++;
    }
}

/** The inverse special FFT of {re[slots], im[slots]} in `plan`'s phases, replayed block by block as launched. */
static void fftPhases(double* d, int logSlots, const V& twRe, const V& twIm, const std::vector<NttPhase>& plan) {
    const int slots = 1 << logSlots;
    for (const NttPhase& ph : plan) {
        const uint32_t elems = 1u << (ph.k + ph.logTiles);
        const uint32_t blocks = (uint32_t)slots >> (ph.k + ph.logTiles);
        const int r = logSlots - ph.s0 - ph.k;
        for (uint32_t block = 0; block < blocks; block++) {
            std::vector<double> shRe(elems, -1.0e300), shIm(elems, -1.0e300);
            for (uint32_t tid = 0; tid < BLOCK_THREADS; tid++)
                for (uint32_t e = tid; e < elems; e += BLOCK_THREADS)
                    fft_phase_load(block, e, shRe.data(), shIm.data(), d, logSlots, ph.k, r, ph.logTiles);
            for (int u = 0; u < ph.k; u++)
                for (uint32_t tid = 0; tid < BLOCK_THREADS; tid++)
                    for (uint32_t bb = tid; bb < elems / 2; bb += BLOCK_THREADS)
                        fft_inv_phase_butterfly(block, bb, shRe.data(), shIm.data(), twRe.data(), twIm.data(), logSlots,
                                                ph.s0, ph.k, ph.logTiles, u);
            for (uint32_t tid = 0; tid < BLOCK_THREADS; tid++)
                for (uint32_t e = tid; e < elems; e += BLOCK_THREADS)
                    fft_phase_store(block, e, shRe.data(), shIm.data(), d, logSlots, ph.k, r, ph.logTiles);
        }
    }
}

/** The inverse special FFT in phases, then encode_slots, against Java's limbs; the full-slot FFT for every split. */
static void testEncoding(const Ctx& c) {
    const int n = c.n;
    V twRe = load64("fft_tw_re"), twIm = load64("fft_tw_im");
    I every = range(0, c.P);
    for (const std::string& s : g_params["fftSlots"]) {
        const int slots = atoi(s.c_str());
        const int logSlots = __builtin_ctz(slots);
        V values = load64("fft_in_" + s);
        double* d = reinterpret_cast<double*>(values.data()); // uint64_t and double share a size: the bits as doubles
        if (logSlots > 0) fftPhases(d, logSlots, twRe, twIm, nttPlan(logSlots));
        V expected = load64("fft_out_" + s);
        check("special fft " + s + " slots", values.data(), expected, 2 * slots, values.size());
        if (logSlots >= 2) {
            int plans = 0, bad = 0;
            for (int k1 = 1; k1 < logSlots; k1++) {
                for (int logTiles = 0; logTiles <= 3; logTiles++) {
                    int k2 = logSlots - k1;
                    std::vector<NttPhase> plan = {{0, k1, std::min(logTiles, logSlots - k1)},
                                                  {k1, k2, std::min(logTiles, logSlots - k2)}};
                    V v = load64("fft_in_" + s);
                    fftPhases(reinterpret_cast<double*>(v.data()), logSlots, twRe, twIm, plan);
                    plans++;
                    bad += v != expected;
                }
            }
            printf("%s %-28s (%d plans)\n", bad == 0 ? "PASS" : "FAIL", ("special fft splits " + s).c_str(), plans);
            (bad == 0 ? g_pass : g_fail)++;
        }
        double factor = 0x1p40 / slots;
        uint64_t factorBits;
        memcpy(&factorBits, &factor, sizeof factorBits);
        V limbs((size_t)c.P * n);
        grid(c.P, n, [&](uint32_t l, uint32_t i) {
            encode_slots_coeff(l, i, limbs.data(), d, logSlots, factorBits, every.data(), c.pc.data(), n);
        });
        check("encode_slots " + s + " slots", limbs.data(), load64("encode_slots_" + s), n);
    }
}

static void testElementWise(const Ctx& c) {
    const int n = c.n, L = c.qCount;
    const uint64_t* pc = c.pc.data();
    I primes = range(0, L);
    const int* pr = primes.data();
    V a = load64("ew_a"), b = load64("ew_b"), cc = load64("ew_c"), d = load64("ew_d");
    V w = load64("ew_scalars"), ws = load64("ew_scalars_shoup");
    V out(a.size());
    grid(L, n, [&](uint32_t l, uint32_t i) { poly_add_coeff(l, i, out.data(), a.data(), b.data(), pr, pc, n); });
    check("poly_add", out.data(), load64("ew_add"), n);
    grid(L, n, [&](uint32_t l, uint32_t i) { poly_sub_coeff(l, i, out.data(), a.data(), b.data(), pr, pc, n); });
    check("poly_sub", out.data(), load64("ew_sub"), n);
    grid(L, n, [&](uint32_t l, uint32_t i) { poly_neg_coeff(l, i, out.data(), a.data(), pr, pc, n); });
    check("poly_neg", out.data(), load64("ew_neg"), n);
    grid(L, n, [&](uint32_t l, uint32_t i) { poly_mul_coeff(l, i, out.data(), a.data(), b.data(), pr, pc, n); });
    check("poly_mul", out.data(), load64("ew_mul"), n);
    grid(L, n, [&](uint32_t l, uint32_t i) {
        poly_mul_scalar_coeff(l, i, out.data(), a.data(), w.data(), ws.data(), pr, pc, n);
    });
    check("poly_mul_scalar", out.data(), load64("ew_mul_scalar"), n);
    grid(L, n, [&](uint32_t l, uint32_t i) { poly_add_scalar_coeff(l, i, out.data(), a.data(), w.data(), pr, pc, n); });
    check("poly_add_scalar", out.data(), load64("ew_add_scalar"), n);
    V acc = a;
    grid(L, n, [&](uint32_t l, uint32_t i) { poly_add_into_coeff(l, i, acc.data(), b.data(), pr, pc, n); });
    check("poly_add_into", acc.data(), load64("ew_add_into"), n);
    // a plaintext's residues from its signed coefficients, over every prime
    {
        V coefficients = load64("encode_in");
        I every = range(0, c.P);
        V residues((size_t)c.P * n);
        grid(c.P, n, [&](uint32_t l, uint32_t i) {
            encode_coefficients_coeff(l, i, residues.data(), coefficients.data(), every.data(), pc, n);
        });
        check("encode_coefficients", residues.data(), load64("encode_out"), n);
    }
    // a pair of products sharing b, and the same added to (c, d): against the single products' Java limbs
    V p0(a.size()), p1(a.size());
    grid(L, n, [&](uint32_t l, uint32_t i) {
        poly_mul_pair_coeff(l, i, p0.data(), p1.data(), a.data(), a.data(), b.data(), 0, 0, pr, pc, n);
    });
    check("poly_mul_pair", p1.data(), load64("ew_mul"), n);
    grid(L, n, [&](uint32_t l, uint32_t i) {
        poly_mul_pair_coeff(l, i, p0.data(), p1.data(), a.data(), a.data(), b.data(), b.data(), 0, pr, pc, n);
    });
    V sum(a.size());
    grid(L, n, [&](uint32_t l, uint32_t i) { poly_add_coeff(l, i, sum.data(), b.data(), p1.data(), pr, pc, n); });
    check("poly_mul_pair (added)", p0.data(), sum, n);
    V d0(a.size()), d1(a.size()), d2(a.size());
    grid(L, n, [&](uint32_t l, uint32_t i) {
        poly_tensor_coeff(l, i, d0.data(), d1.data(), d2.data(), a.data(), b.data(), cc.data(), d.data(), pr, pc, n);
    });
    check("poly_tensor d0", d0.data(), load64("tensor_d0"), n);
    check("poly_tensor d1", d1.data(), load64("tensor_d1"), n);
    check("poly_tensor d2", d2.data(), load64("tensor_d2"), n);
}

static void testAutomorphism(const Ctx& c) {
    V a = load64("ew_a");
    V out(a.size());
    for (const std::string& g : g_params["galois"]) {
        I perm = load32("perm_" + g);
        grid(c.qCount, c.n,
             [&](uint32_t l, uint32_t i) { automorphism_coeff(l, i, out.data(), a.data(), perm.data(), c.n); });
        check("automorphism g=" + g, out.data(), load64("auto_" + g), c.n);
    }
}

static void testBasisConversion(const Ctx& c) {
    const int count = paramInt("bconvCount");
    for (int k = 0; k < count; k++) {
        std::string pre = "bc" + std::to_string(k) + "_";
        I src = load32(pre + "src"), tgt = load32(pre + "tgt");
        V x = load64(pre + "in");
        V scaled(x.size());
        launch_bconv_scale(c, scaled.data(), x.data(), load64(pre + "qhatinv").data(),
                           load64(pre + "qhatinv_shoup").data(), src.data(), (int)src.size());
        std::string label = "bconv " + std::to_string(src.size()) + "->" + std::to_string(tgt.size()) + " #" +
                            std::to_string(k);
        check(label + " scale", scaled.data(), load64(pre + "scaled"), c.n);
        V out((size_t)tgt.size() * c.n);
        V qhat = load64(pre + "qhat"), qhatS = load64(pre + "qhat_shoup");
        launch_bconv_accumulate(c, out.data(), scaled.data(), (int)src.size(), qhat.data(), qhatS.data(), tgt.data(),
                                (int)tgt.size());
        check(label + " accumulate", out.data(), load64(pre + "out"), c.n);
    }
}

static void testRescale(const Ctx& c) {
    V inv = load64("rescale_inv"), invS = load64("rescale_inv_shoup");
    for (const std::string& lv : g_params["rescaleLevels"]) {
        int level = atoi(lv.c_str());
        std::string pre = "rescale_l" + lv + "_";
        for (int part = 0; part < 2; part++) {
            V x = load64(pre + "c" + std::to_string(part));
            V out((size_t)level * c.n);
            rescale(c, out.data(), x.data(), level, inv, invS);
            check("rescale level " + lv + " c" + std::to_string(part), out.data(),
                  load64(pre + "out" + std::to_string(part)), c.n);
        }
    }
}

/** ModUp as the device layer runs it: d to coefficients (kept), scaled by the digit's qHatInv, then one
 * modup_convert over every (digit, position) and one forward NTT over all digits' limbs. */
static V modUp(const Ctx& c, const V& d, int level, int alpha, const std::string& pre) {
    const int n = c.n;
    const int digits = level / alpha + 1;
    const int width = level + 1 + c.pCount;
    I ext = extendedIndices(c, level);
    V coeffs = d;
    launch_ntt_inv(c, coeffs.data(), ext.data(), level + 1);
    V scaled((size_t)(level + 1) * n);
    launch_bconv_scale(c, scaled.data(), coeffs.data(), load64(pre + "modup_qhatinv").data(),
                       load64(pre + "modup_qhatinv_shoup").data(), ext.data(), level + 1);
    V qhatAll, qhatSAll;
    I plan, extAll;
    for (int j = 0; j < digits; j++) {
        int first = j * alpha, end = std::min((j + 1) * alpha, level + 1), S = end - first;
        int base = (int)qhatAll.size();
        V qhat = load64(pre + "modup_qhat_" + std::to_string(j));
        V qhatS = load64(pre + "modup_qhat_shoup_" + std::to_string(j));
        qhatAll.insert(qhatAll.end(), qhat.begin(), qhat.end());
        qhatSAll.insert(qhatSAll.end(), qhatS.begin(), qhatS.end());
        for (int pos = 0; pos < width; pos++) {
            bool own = pos >= first && pos < end;
            int t = pos < first ? pos : pos - S; // target number: positions outside the digit, in order
            plan.push_back(own ? pos : first);
            plan.push_back(own ? 0 : S);
            plan.push_back(own ? 0 : base + t * S);
            extAll.push_back(ext[pos]);
        }
    }
    V raised((size_t)digits * width * n);
    grid(digits * width, n, [&](uint32_t l, uint32_t i) {
        modup_convert_coeff(l, i, raised.data(), coeffs.data(), scaled.data(), plan.data(), qhatAll.data(),
                            qhatSAll.data(), ext.data(), width, c.pc.data(), n);
    });
    launch_ntt_fwd(c, raised.data(), extAll.data(), digits * width);
    return raised;
}

/** KeySwitcher.modDownRescale of x (over Q_level U P; its q_level and P limbs are overwritten), d null or over Q_level. */
static void modDownRescale(const Ctx& c, uint64_t* out, uint64_t* x, const uint64_t* d, int level,
                           const std::string& rr) {
    const int n = c.n, k = c.pCount;
    I ext = extendedIndices(c, level);
    V qhi = load64(rr + "conv0"), qhiS = load64(rr + "conv1"), qh = load64(rr + "conv2"), qhS = load64(rr + "conv3");
    V inv = load64(rr + "inverse_bits"), minus = load64(rr + "minus_excess");
    V pq = load64(rr + "pq_inv"), pqS = load64(rr + "pq_inv_shoup"), ql = load64(rr + "ql_inv");
    V qlS = load64(rr + "ql_inv_shoup"), pm = load64(rr + "p_mod_ql");
    const int offset = (int)(minus.size() / level - 1) / 2;
    uint64_t* divided = x + (size_t)level * n;
    const int* dividedPrimes = ext.data() + level;
    if (d != 0)
        grid(1, n, [&](uint32_t l, uint32_t i) {
            moddown_rescale_add_pd_coeff(l, i, divided, d + (size_t)level * n, pm.data(), level, c.pc.data(), n);
        });
    launch_ntt_inv(c, divided, dividedPrimes, k + 1);
    V scaled((size_t)(k + 1) * n);
    launch_bconv_scale(c, scaled.data(), divided, qhi.data(), qhiS.data(), dividedPrimes, k + 1);
    I u(n);
    grid(1, n, [&](uint32_t l, uint32_t i) {
        moddown_rescale_excess_coeff(l, i, u.data(), scaled.data(), k + 1, inv.data(), n);
    });
    V conv((size_t)level * n);
    grid(level, n, [&](uint32_t l, uint32_t i) {
        bconv_accumulate_excess_coeff(l, i, conv.data(), scaled.data(), k + 1, qh.data(), qhS.data(), ext.data(),
                                      u.data(), minus.data(), offset, c.pc.data(), n);
    });
    launch_ntt_fwd(c, conv.data(), ext.data(), level);
    grid(level, n, [&](uint32_t l, uint32_t i) {
        moddown_rescale_combine_coeff(l, i, out, x, conv.data(), d, pq.data(), pqS.data(), ql.data(), qlS.data(),
                                      ext.data(), c.pc.data(), n);
    });
}

static void testKeySwitch(const Ctx& c) {
    const int n = c.n;
    for (const std::string& cfg : g_params["ksConfigs"]) {
        int dnum = atoi(cfg.substr(0, cfg.find(':')).c_str());
        int level = atoi(cfg.substr(cfg.find(':') + 1).c_str());
        int alpha = (c.qCount + dnum - 1) / dnum;
        int digits = level / alpha + 1;
        int width = level + 1 + c.pCount;
        std::string pre = "ks_" + std::to_string(dnum) + "_" + std::to_string(level) + "_";
        std::string label = "keyswitch dnum=" + std::to_string(dnum) + " level=" + std::to_string(level);
        I ext = extendedIndices(c, level);
        V d = load64(pre + "d");
        V key = load64("key_dnum" + std::to_string(dnum));
        V raised = modUp(c, d, level, alpha, pre);
        check(label + " modup", raised.data(), load64(pre + "modup"), n);
        // inner product over Q_level U P
        V acc0((size_t)width * n), acc1((size_t)width * n);
        grid(width, n, [&](uint32_t l, uint32_t i) {
            keyswitch_inner_product_coeff(l, i, acc0.data(), acc1.data(), raised.data(), digits, width, key.data(), c.P,
                                          ext.data(), c.pc.data(), n);
        });
        V keep0 = acc0, keep1 = acc1;
        V out0((size_t)(level + 1) * n), out1((size_t)(level + 1) * n);
        modDown(c, out0.data(), acc0.data(), level);
        modDown(c, out1.data(), acc1.data(), level);
        check(label + " out0", out0.data(), load64(pre + "out0"), n);
        check(label + " out1", out1.data(), load64(pre + "out1"), n);

        // three terms permuted and summed over Q_level U P (the first two share one ModUp), one ModDown each
        V raised2 = modUp(c, load64(pre + "ss_d2"), level, alpha, pre);
        V sum0((size_t)width * n), sum1((size_t)width * n);
        for (int t = 0; t < 3; t++) {
            I perm = load32(pre + "ss_perm_" + std::to_string(t));
            const V& r = t < 2 ? raised : raised2;
            grid(width, n, [&](uint32_t l, uint32_t i) {
                keyswitch_permuted_sum_coeff(l, i, sum0.data(), sum1.data(), r.data(), digits, width, key.data(), c.P,
                                             ext.data(), perm.data(), t == 0, 0, c.pc.data(), n);
            });
        }
        modDown(c, out0.data(), sum0.data(), level);
        modDown(c, out1.data(), sum1.data(), level);
        check(label + " switch sum 0", out0.data(), load64(pre + "ss_out0"), n);
        check(label + " switch sum 1", out1.data(), load64(pre + "ss_out1"), n);

        if (level >= 1) {
            // relinearizeRescale's division by P q_l, with (d0, d1) added
            std::string rr = pre + "rr_";
            V d0 = load64(rr + "d0"), d1 = load64(rr + "d1");
            V r0((size_t)level * n), r1((size_t)level * n);
            modDownRescale(c, r0.data(), keep0.data(), d0.data(), level, rr);
            modDownRescale(c, r1.data(), keep1.data(), d1.data(), level, rr);
            check(label + " moddown+rescale 0", r0.data(), load64(rr + "out0"), n);
            check(label + " moddown+rescale 1", r1.data(), load64(rr + "out1"), n);

            // double hoisting: baby steps {identity, perm}, giant steps {identity, perm}, as the device layer runs it
            std::string dh = pre + "dh_";
            V h0 = load64(dh + "c0"), h1 = load64(dh + "c1");
            V pm = load64("p_mod_q"), pmS = load64("p_mod_q_shoup");
            I babyPerm = load32(dh + "baby_perm"), giantPerm = load32(dh + "giant_perm");
            V hRaised = modUp(c, h1, level, alpha, pre);
            V x0((size_t)width * n), x1((size_t)width * n);
            V s[2][2];
            for (int g = 0; g < 2; g++)
                for (int v = 0; v < 2; v++) s[g][v] = V((size_t)width * n);
            for (int b = 0; b < 2; b++) {
                if (b == 0)
                    grid(width, n, [&](uint32_t l, uint32_t i) {
                        baby_identity_coeff(l, i, x0.data(), x1.data(), h0.data(), h1.data(), pm.data(), pmS.data(),
                                            level, ext.data(), c.pc.data(), n);
                    });
                else
                    grid(width, n, [&](uint32_t l, uint32_t i) {
                        baby_step_coeff(l, i, x0.data(), x1.data(), hRaised.data(), digits, width, key.data(), c.P,
                                        ext.data(), babyPerm.data(), h0.data(), pm.data(), pmS.data(), level,
                                        c.pc.data(), n);
                    });
                for (int g = 0; g < 2; g++) {
                    V diag = load64(dh + "diag_" + std::to_string(g) + "_" + std::to_string(b));
                    grid(width, n, [&](uint32_t l, uint32_t i) {
                        diagonal_accumulate_coeff(l, i, s[g][0].data(), s[g][1].data(), x0.data(), x1.data(),
                                                  diag.data(), b == 0, ext.data(), c.pc.data(), n);
                    });
                }
            }
            // the identity giant step's sums start the accumulator; the rotated one's c1 is divided by P,
            // decomposed, switched and permuted in with its c0
            V divided((size_t)(level + 1) * n);
            modDown(c, divided.data(), s[1][1].data(), level);
            V giantRaised = modUp(c, divided, level, alpha, pre);
            grid(width, n, [&](uint32_t l, uint32_t i) {
                keyswitch_permuted_sum_coeff(l, i, s[0][0].data(), s[0][1].data(), giantRaised.data(), digits, width,
                                             key.data(), c.P, ext.data(), giantPerm.data(), 0, s[1][0].data(),
                                             c.pc.data(), n);
            });
            modDownRescale(c, r0.data(), s[0][0].data(), 0, level, rr);
            modDownRescale(c, r1.data(), s[0][1].data(), 0, level, rr);
            check(label + " double-hoisted 0", r0.data(), load64(dh + "out0"), n);
            check(label + " double-hoisted 1", r1.data(), load64(dh + "out1"), n);
        }
    }
}

static void testSwitchAtLevelZero(const Ctx& c) {
    const int n = c.n;
    const int p0 = c.qCount;
    V d = load64("ks0_d"), key = load64("ks0_key");
    V w = load64("ks0_p0inv"), ws = load64("ks0_p0inv_shoup");
    I q0(1, 0), pp0(1, p0), both;
    both.push_back(0);
    both.push_back(p0);
    // digit buffer [1][2][N]: limb 0 = d (NTT mod q_0), limb 1 = d lifted to p_0 (NTT)
    V digit(2 * (size_t)n);
    memcpy(digit.data(), d.data(), sizeof(uint64_t) * n);
    V coef = d;
    launch_ntt_inv(c, coef.data(), q0.data(), 1);
    launch_centred_lift(c, digit.data() + n, coef.data(), 0, pp0.data(), 1);
    launch_ntt_fwd(c, digit.data() + n, pp0.data(), 1);
    V acc0(2 * (size_t)n), acc1(2 * (size_t)n);
    grid(2, n, [&](uint32_t l, uint32_t i) {
        keyswitch_inner_product_coeff(l, i, acc0.data(), acc1.data(), digit.data(), 1, 2, key.data(), c.P, both.data(),
                                      c.pc.data(), n);
    });
    V* accs[2] = {&acc0, &acc1};
    for (int part = 0; part < 2; part++) {
        V& acc = *accs[part];
        launch_ntt_inv(c, acc.data() + n, pp0.data(), 1);
        V lifted(n);
        launch_centred_lift(c, lifted.data(), acc.data() + n, p0, q0.data(), 1);
        launch_ntt_fwd(c, lifted.data(), q0.data(), 1);
        V out(n);
        launch_sub_mul_scalar(c, out.data(), acc.data(), lifted.data(), w.data(), ws.data(), q0.data(), 1);
        check("switchAtLevelZero out" + std::to_string(part), out.data(), load64("ks0_out" + std::to_string(part)), n);
    }
}

static void testModRaise(const Ctx& c) {
    const int n = c.n, top = c.qCount - 1;
    V in = load64("modraise_in");
    I q0(1, 0);
    launch_ntt_inv(c, in.data(), q0.data(), 1);
    I primes = range(0, top + 1);
    V out((size_t)(top + 1) * n);
    launch_centred_lift(c, out.data(), in.data(), 0, primes.data(), top + 1);
    launch_ntt_fwd(c, out.data(), primes.data(), top + 1);
    check("modraise (centred lift)", out.data(), load64("modraise_out"), n);
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s <vector folder>\n", argv[0]);
        return 2;
    }
    g_dir = argv[1];
    loadParams();
    Ctx c;
    c.logN = paramInt("logN");
    c.n = 1 << c.logN;
    c.qCount = paramInt("qCount");
    c.pCount = paramInt("pCount");
    c.P = c.qCount + c.pCount;
    c.pc = load64("pc");
    c.psiRev = load64("psi_rev");
    c.psiRevShoup = load64("psi_rev_shoup");
    c.psiInvRev = load64("psi_inv_rev");
    c.psiInvRevShoup = load64("psi_inv_rev_shoup");
    printf("host emulation: logN=%d, %d q primes + %d special primes, vectors from %s\n", c.logN, c.qCount, c.pCount,
           g_dir.c_str());
    testNtt(c);
    testElementWise(c);
    testEncoding(c);
    testAutomorphism(c);
    testBasisConversion(c);
    testRescale(c);
    testKeySwitch(c);
    testSwitchAtLevelZero(c);
    testModRaise(c);
    printf("%s: %d passed, %d failed\n", g_fail == 0 ? "ALL PASS" : "FAILURES", g_pass, g_fail);
    return g_fail == 0 ? 0 : 1;
}

"""Back-of-envelope primal-uSVP estimate for RLWE parameters (docs/security.md): the 2016 success condition,
the geometric series assumption, secret scaling for small secrets and, for sparse secrets, drop-and-solve guessing
of zero coordinates. Reports core-SVP (0.292 beta) and the 2018 estimator's BKZ cost (2^(0.292 beta + 16.4) * 8d).
Not the lattice estimator: no hybrid (meet-in-the-middle), dual or algebraic attacks.

Usage: python3 primal_usvp.py LOGN:LOGQ[:H] ...   (H: Hamming weight of a sparse ternary secret)"""
import math, sys

def delta(beta):
    return ((math.pi * beta) ** (1 / beta) * beta / (2 * math.pi * math.e)) ** (1 / (2 * (beta - 1)))

def usvp_beta(n, logq, sigma, sigma_s, m_max):
    lq = logq * math.log(2)
    best = None
    for beta in range(50, 20000, 2):
        ld = math.log(delta(beta))
        ok = False
        for m in range(max(1, n // 16), m_max + 1, max(1, n // 64)):
            d = m + n + 1
            lvol = m * lq + n * math.log(sigma / sigma_s)
            lhs = math.log(math.sqrt(beta) * sigma)
            rhs = (2 * beta - d) * ld + lvol / d
            if lhs <= rhs:
                ok = True
                break
        if ok:
            return beta
    return None

def log2_binom(a, b):
    return (math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)) / math.log(2)

def estimate(n, logq, h=None, sigma=3.2):
    if h is None:
        beta = usvp_beta(n, logq, sigma, math.sqrt(2 / 3), n)
        return 0.292 * beta, beta, 0, n
    best = (1e9, None, None, None)
    for k in [0] + [n * j // 256 for j in range(1, 256)]:
        nn = n - k
        beta = usvp_beta(nn, logq, sigma, math.sqrt(h / nn), nn)
        if beta is None:
            continue
        logp = log2_binom(n - h, k) - log2_binom(n, k)
        cost = 0.292 * beta - logp
        if cost < best[0]:
            best = (cost, beta, k, nn)
    return best

for spec in sys.argv[1:]:
    parts = spec.split(':')
    n, logq = 1 << int(parts[0]), float(parts[1])
    h = int(parts[2]) if len(parts) > 2 else None
    cost, beta, k, nn = estimate(n, logq, h)
    # the HE standard's (2018 estimator's) BKZ cost: 8d tours' worth of sieving, 2^(0.292 beta + 16.4) each
    bkz = cost + 16.4 + math.log2(8 * 2 * nn)
    print(f"N=2^{parts[0]} log q={logq:g} secret={'h=%d' % h if h else 'uniform ternary'}: "
          f"beta={beta}, guessed zeros k={k}: core-SVP 2^{cost:.1f}, BKZ 2018 model 2^{bkz:.1f}")

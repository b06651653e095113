#!/usr/bin/env python3
"""Fits behind the library's `fr4` and `concrete` (solver/scene/src/library.rs,
docs/materials.md). Pure Python (no numpy), deterministic; prints the constants that
library.rs holds and each fit's error over its band.

Convention exp(+jwt): eps = eps_inf + sum d_k/(1 + j w tau_k) - j sigma/(w eps0).
Each fit is a non-negative least squares (Lawson-Hanson) in (eps_inf, d_k, sigma) on
log-spaced samples of the band, the real residual scaled by 1/|eps| and the imaginary
one by 1/eps'' (so the loss tangent is fitted relatively too).

    python3 scripts/fit-library-materials.py
"""
import cmath
import math

EPS0 = 8.8541878128e-12
TAU2PI = 2 * math.pi


def logspace(a, b, n):
    return [10 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def solve(a, b):
    """Least squares min |A x - b| through the normal equations (small, well scaled)."""
    n = len(a[0])
    m = [[sum(r[i] * r[j] for r in a) for j in range(n)] + [sum(r[i] * y for r, y in zip(a, b))] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def nnls(a, b):
    """Lawson-Hanson non-negative least squares."""
    n = len(a[0])
    x = [0.0] * n
    passive = []
    for _ in range(100 * n):
        r = [y - sum(ai * xi for ai, xi in zip(row, x)) for row, y in zip(a, b)]
        w = [sum(row[j] * ri for row, ri in zip(a, r)) for j in range(n)]
        cand = [j for j in range(n) if j not in passive and w[j] > 1e-12]
        if not cand:
            return x
        passive.append(max(cand, key=lambda j: w[j]))
        while True:
            sub = solve([[row[j] for j in passive] for row in a], b)
            if all(s > 0 for s in sub):
                x = [0.0] * n
                for j, s in zip(passive, sub):
                    x[j] = s
                break
            alpha = min(x[j] / (x[j] - s) for j, s in zip(passive, sub) if s <= 0)
            full = [0.0] * n
            for j, s in zip(passive, sub):
                full[j] = s
            x = [xi + alpha * (fi - xi) for xi, fi in zip(x, full)]
            passive = [j for j in passive if x[j] > 1e-15]
    raise RuntimeError("nnls did not converge")


def model(p, w):
    eps_inf, poles, sigma = p
    e = complex(eps_inf, -sigma / (w * EPS0))
    for d, tau in poles:
        e += d / (1 + 1j * w * tau)
    return e


def fit(target, band, taus, with_sigma, n=201, inf_min=1.0):
    """Fit eps_inf >= inf_min, the amplitudes at the fixed `taus` and sigma to target(w)."""
    a, b = [], []
    for f in logspace(math.log10(band[0]), math.log10(band[1]), n):
        w = TAU2PI * f
        t = target(w)
        t0 = t - inf_min
        sr, si = 1 / abs(t), 1 / abs(t.imag)
        cols = [complex(1, 0)] + [1 / (1 + 1j * w * tau) for tau in taus]
        if with_sigma:
            cols.append(complex(0, -1 / (w * EPS0)))
        a.append([c.real * sr for c in cols])
        b.append(t0.real * sr)
        a.append([c.imag * si for c in cols])
        b.append(t.imag * si)
    x = nnls(a, b)
    poles = [(d, tau) for d, tau in zip(x[1 : 1 + len(taus)], taus) if d > 0]
    return (inf_min + x[0], poles, x[-1] if with_sigma else 0.0)


def errors(p, target, band, n=2001):
    """Max |eps_fit - eps|/|eps|, max relative error in eps' and in eps''."""
    ec = er = ei = 0.0
    for f in logspace(math.log10(band[0]), math.log10(band[1]), n):
        w = TAU2PI * f
        t, e = target(w), model(p, w)
        ec = max(ec, abs(e - t) / abs(t))
        er = max(er, abs(e.real - t.real) / abs(t.real))
        ei = max(ei, abs(e.imag - t.imag) / abs(t.imag))
    return ec, er, ei


def show(name, p, target, band):
    eps_inf, poles, sigma = p
    print(f"{name}: eps_inf = {eps_inf!r}, sigma = {sigma!r} S/m")
    for d, tau in poles:
        print(f"  debye delta_eps = {d!r}, tau = {tau!r} s  (f = {1 / (TAU2PI * tau):.4g} Hz)")
    ec, er, ei = errors(p, target, band)
    print(f"  over {band[0]:.3g}-{band[1]:.3g} Hz: max |d eps|/|eps| = {ec:.2e}, eps' {er:.2e}, eps'' {ei:.2e}")


# FR-4, Djordjevic-Sarkar (IEEE Trans. EMC 43(4), 2001):
#   eps(w) = eps_inf + (d_eps/(m2 - m1)) log10((w2 + jw)/(w1 + jw)),  m = log10(w),
# anchored at eps' = 4.3, tan(delta) = 0.02 at 1 GHz, w1 = 2pi 1 kHz, w2 = 2pi 1 THz.
W1, W2, F0, ER0, TD0 = TAU2PI * 1e3, TAU2PI * 1e12, 1e9, 4.3, 0.02


def ds_log(w):
    return cmath.log10((W2 + 1j * w) / (W1 + 1j * w))


K = -(ER0 * TD0) / ds_log(TAU2PI * F0).imag  # d_eps/(m2 - m1)
DS_INF = ER0 - K * ds_log(TAU2PI * F0).real
DS_DEPS = K * (math.log10(W2) - math.log10(W1))


def ds(w):
    return DS_INF + K * ds_log(w)


print(f"fr4 DS: eps_inf = {DS_INF!r}, d_eps = {DS_DEPS!r}, eps(1 GHz) = {ds(TAU2PI * F0)}")
FR4_BAND = (1e8, 1e10)
fr4 = fit(ds, FR4_BAND, [1 / (TAU2PI * f) for f in logspace(7, 11, 9)], False)
show("fr4", fr4, ds, FR4_BAND)

# Concrete, ITU-R P.2040 Table 3: eps' = 5.24, sigma = 0.0462 f^0.7822 S/m (f in GHz),
# valid 1-100 GHz, fitted over 1-3 GHz (concrete GPR antennas). One Debye pole (tau
# scanned, f_pole <= 30 GHz, 10x the band top) + sigma, eps_inf >= 1.
def concrete(w):
    f = w / TAU2PI / 1e9
    return complex(5.24, -0.0462 * f**0.7822 / (w * EPS0))


C_BAND = (1e9, 3e9)
best = None
for fp in logspace(8, math.log10(3e10), 301):
    p = fit(concrete, C_BAND, [1 / (TAU2PI * fp)], True)
    e = errors(p, concrete, C_BAND, 201)[0]
    if best is None or e < best[0]:
        best = (e, p)
show("concrete", best[1], concrete, C_BAND)

#!/usr/bin/env python3
# Usage: python3 scripts/measure/cpml-study.py FDTD_BINARY [gpu|cpu]   (CELLS=..., ONLY=..., T=... in the environment)
"""CPML near-field residual study: a centre-fed wire dipole (soft source in a one-cell gap)
at several cell sizes and CPML settings. Prints residual (late gap field / peak) and the
first resonance from the probe impedance."""
import subprocess, sys, os, itertools, json
import numpy as np, h5py

FDTD = sys.argv[1]
BACK = sys.argv[2] if len(sys.argv) > 2 else "gpu"
os.makedirs("/tmp/study", exist_ok=True)

def scene(d, cp, T=10e-9, L=0.093, margin=(0.05, 0.045)):
    # domain: wire along z at the centre; margins to the domain faces in m
    nx = int(round(2 * margin[0] / d)); nz = int(round((L + 2 * margin[1]) / d))
    cx = (nx // 2) * d; cz = (nz // 2) * d
    half = int(round(L / 2 / d))
    k_gap = nz // 2  # gap cell [k_gap, k_gap+1)
    z0, z1 = (k_gap - half) * d, k_gap * d
    z2, z3 = (k_gap + 1) * d, (k_gap + 1 + half) * d
    c = cp
    return f"""
[domain]
cell = {d}
cells = [{nx}, {nx}, {nz}]
[time]
duration = {T}
[boundaries]
all = "cpml"
[boundaries.cpml]
cells = {c['cells']}
kappa_max = {c['kappa']}
alpha_max = {c['alpha']}
order = {c.get('order', 3)}
[[objects]]
shape = "box"
material = "pec"
min = [{cx}, {cx}, {z0}]
max = [{cx + d}, {cx + d}, {z1}]
[[objects]]
shape = "box"
material = "pec"
min = [{cx}, {cx}, {z2}]
max = [{cx + d}, {cx + d}, {z3}]
[[sources]]
name = "feed"
type = "current"
component = "Ez"
position = [{cx}, {cx}, {z1 + d/2}]
[sources.waveform]
type = "gaussian_derivative"
frequency = 1.5e9
amplitude = 1e-3
[[probes]]
name = "gap"
position = [{cx}, {cx}, {z1 + d/2}]
components = ["Ez"]
[[probes]]
name = "h_xp"
position = [{cx + d/2}, {cx}, {z1 + d/2}]
components = ["Hy"]
[[probes]]
name = "h_xm"
position = [{cx - d/2}, {cx}, {z1 + d/2}]
components = ["Hy"]
[[probes]]
name = "h_yp"
position = [{cx}, {cx + d/2}, {z1 + d/2}]
components = ["Hx"]
[[probes]]
name = "h_ym"
position = [{cx}, {cx - d/2}, {z1 + d/2}]
components = ["Hx"]
"""

def analyse(path):
    f = h5py.File(path, "r")
    dx, dy, dz, dt = (float(f.attrs[k]) for k in ("dx", "dy", "dz", "dt"))
    p = f["probes"]
    ez = p["gap/Ez"][:]
    v = -ez * dz
    i = dy * (p["h_xp/Hy"][:] - p["h_xm/Hy"][:]) - dx * (p["h_yp/Hx"][:] - p["h_ym/Hx"][:])
    n = len(v)
    tail = np.abs(ez[int(0.8 * n):]).max() / np.abs(ez).max()
    freq = np.linspace(0.8e9, 2.2e9, 1401)
    te = (np.arange(n) + 1) * dt; th = (np.arange(n) + 0.5) * dt
    V = np.exp(-2j * np.pi * np.outer(freq, te)) @ v
    I = np.exp(-2j * np.pi * np.outer(freq, th)) @ i
    z = V / I
    s = np.where((z.imag[:-1] < 0) & (z.imag[1:] >= 0))[0]
    if len(s):
        k = s[0]
        fr = freq[k] - z.imag[k] * (freq[k + 1] - freq[k]) / (z.imag[k + 1] - z.imag[k])
        r = np.interp(fr, freq, z.real)
    else:
        fr, r = float("nan"), float("nan")
    return tail, fr, r

variants = {
    "k1_a0_10": dict(cells=10, kappa=1, alpha=0),
    "k1_a0_20": dict(cells=10 * 2, kappa=1, alpha=0),
    "k5_a0.05_10": dict(cells=10, kappa=5, alpha=0.05),
    "k5_a0.01_10": dict(cells=10, kappa=5, alpha=0.01),
    "k5_a0_10": dict(cells=10, kappa=5, alpha=0),
    "k1_a0.05_10": dict(cells=10, kappa=1, alpha=0.05),
    "k10_a0.05_10": dict(cells=10, kappa=10, alpha=0.05),
    "k5_a0.05_15": dict(cells=15, kappa=5, alpha=0.05),
    "k5_a0.02_12": dict(cells=12, kappa=5, alpha=0.02),
    "k8_a0.03_12": dict(cells=12, kappa=8, alpha=0.03),
}
only = os.environ.get("ONLY")
cells = [float(x) for x in os.environ.get("CELLS", "1.5e-3,1e-3,0.75e-3").split(",")]
T = float(os.environ.get("T", "10e-9"))
for name, cp in variants.items():
    if only and name not in only.split(","):
        continue
    for d in cells:
        path = f"/tmp/study/{name}_{d}.toml"
        open(path, "w").write(scene(d, cp, T))
        out = path.replace(".toml", ".h5")
        r = subprocess.run([FDTD, "run", path, "--backend", BACK, "-o", out, "--force", "--quiet", "--no-checkpoint"], capture_output=True, text=True)
        if r.returncode:
            print(name, d, "FAILED", r.stderr[-500:]); continue
        tail, fr, rr = analyse(out)
        print(f"{name:14s} d={d*1e3:.2f}mm residual={tail*100:.4f}%  f_res={fr/1e9:.4f} GHz  R={rr:.2f} ohm", flush=True)

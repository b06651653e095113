#!/usr/bin/env python3
# Usage: python3 scripts/measure/dipole-refinement.py FDTD_BINARY [gpu|cpu] [2e-3,1e-3,0.5e-3,0.25e-3]
"""Dipole refinement study with the default CPML and end criterion: a 144 mm dipole of
2 mm x 2 mm square PEC arms (71 mm each) and a 2 mm gap fed by a 73 ohm port across the
whole gap (all edges of the wire's cross-section), at cells of 2, 1, 0.5, 0.25 mm: the
same geometry at every resolution. Prints resonance, R there, and the far-field D."""
import subprocess, sys, os, time
import numpy as np, h5py

FDTD = sys.argv[1]
BACK = sys.argv[2] if len(sys.argv) > 2 else "gpu"
cells = [float(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "2e-3,1e-3,0.5e-3,0.25e-3").split(",")]
os.makedirs("/tmp/refine", exist_ok=True)

def scene(d):
    n = lambda x: int(round(x / d))
    mx = n(0.040) + 10; mz = n(0.030) + 10
    arm = n(0.071); g = n(0.002); w = n(0.002)
    nx = 2 * mx + w; nz = 2 * mz + 2 * arm + g
    x0 = mx * d; x1 = (mx + w) * d
    z0 = mz * d; zg = (mz + arm) * d; zg1 = (mz + arm + g) * d; z1 = (mz + 2 * arm + g) * d
    return f"""
[domain]
cell = {d}
cells = [{nx}, {nx}, {nz}]
[time]
duration = 30e-9
[boundaries]
all = "cpml"
[frequencies]
start = 0.7e9
stop = 1.3e9
points = 601
[[objects]]
shape = "box"
material = "pec"
min = [{x0}, {x0}, {z0}]
max = [{x1}, {x1}, {zg}]
[[objects]]
shape = "box"
material = "pec"
min = [{x0}, {x0}, {zg1}]
max = [{x1}, {x1}, {z1}]
[[ports]]
name = "feed"
start = [{x0}, {x0}, {zg}]
end = [{x1}, {x1}, {zg1}]
axis = "z"
impedance = 73
[[farfield]]
name = "ff"
frequencies = [0.98e9]
theta_step = 5
phi_step = 30
"""

for d in cells:
    p = f"/tmp/refine/dipole_{d*1e3:g}mm.toml"
    open(p, "w").write(scene(d))
    out = p.replace(".toml", ".h5")
    t = time.time()
    r = subprocess.run([FDTD, "run", p, "--backend", BACK, "-o", out, "--force", "--quiet", "--no-checkpoint"], capture_output=True, text=True)
    wall = time.time() - t
    if r.returncode:
        print(d, "FAILED", r.stderr[-800:], flush=True); continue
    f = h5py.File(out, "r")
    g = f["ports/feed"]
    fr = g["frequency"][:]; z = g["Z"][:, 0] + 1j * g["Z"][:, 1]
    s = np.where((z.imag[:-1] < 0) & (z.imag[1:] >= 0))[0]
    if len(s):
        k = s[0]; f0 = fr[k] - z.imag[k] * (fr[k+1] - fr[k]) / (z.imag[k+1] - z.imag[k]); r0 = np.interp(f0, fr, z.real)
    else:
        f0 = r0 = float("nan")
    ff = f["farfield/ff"]
    dmax = ff.attrs["max_directivity_dBi"]
    steps = f.attrs.get("steps_done", 0)
    print(f"d={d*1e3:5.2f} mm  cells={f.attrs.get('nx',0)}  steps={steps}  f_res={f0/1e9:.5f} GHz  R={r0:.3f} ohm  D={float(np.ravel(dmax)[0]):.3f} dBi  wall={wall:.1f} s  {r.stdout.strip().splitlines()[0] if r.stdout else ''}", flush=True)

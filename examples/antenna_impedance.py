#!/usr/bin/env python3
"""Input impedance of scenes/antenna.toml from its HDF5 output (h5py + numpy).

    fdtd run scenes/antenna.toml -o antenna.h5
    python3 examples/antenna_impedance.py antenna.h5

V = -Ez(gap)·dz and I = ∮H·dl around the fed edge (probes h_xp, h_xm, h_yp, h_ym), as the
scene's header explains; Z(f) = V(f)/I(f). E is sampled at (n+1)·dt and H at (n+½)·dt
(the `time` and `time_h` datasets), so the half-step offset is removed in the frequency
domain before dividing.
"""
import sys

import h5py
import numpy as np


def main(path):
    f = h5py.File(path, "r")
    dx, dy, dz, dt = (float(f.attrs[k]) for k in ("dx", "dy", "dz", "dt"))
    p = f["probes"]
    v = -p["gap/Ez"][:] * dz
    i = dy * (p["h_xp/Hy"][:] - p["h_xm/Hy"][:]) - dx * (p["h_yp/Hx"][:] - p["h_ym/Hx"][:])
    n = 1 << int(np.ceil(np.log2(len(v) * 8)))
    freq = np.fft.rfftfreq(n, dt)
    V = np.fft.rfft(v, n)
    # H lags E by half a step: shift the current to E's times.
    t_e = p["gap/time"][0]
    t_h = p["h_xp/time_h"][0]
    I = np.fft.rfft(i, n) * np.exp(-2j * np.pi * freq * (t_h - t_e))
    band = (freq > 0.5e9) & (freq < 3e9)
    z = V[band] / I[band]
    print(f"{'f (GHz)':>8} {'Re Z':>9} {'Im Z':>9}")
    for fr, zz in list(zip(freq[band], z))[:: max(1, band.sum() // 25)]:
        print(f"{fr / 1e9:8.3f} {zz.real:9.2f} {zz.imag:9.2f}")
    # First resonance: Im Z crosses zero from below.
    s = np.where((z.imag[:-1] < 0) & (z.imag[1:] >= 0))[0]
    if len(s):
        k = s[0]
        fr = freq[band][k] - z.imag[k] * (freq[band][k + 1] - freq[band][k]) / (z.imag[k + 1] - z.imag[k])
        print(f"first resonance: {fr / 1e9:.3f} GHz, Re Z = {np.interp(fr, freq[band], z.real):.1f} ohm")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "antenna.h5")

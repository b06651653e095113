#!/usr/bin/env python3
"""The port results of scenes/antenna.toml, read from its HDF5 output (h5py + numpy).

    fdtd run scenes/antenna.toml -o antenna.h5
    python3 examples/antenna_ports.py antenna.h5

fdtd computes Z, S and the powers itself (docs/output-format.md, /ports); this prints
them, finds the first resonance (Im Z = 0) and, as a cross-check, recomputes Z at one
frequency from the raw V and I series (each transformed at its own sample times).
"""
import sys

import h5py
import numpy as np


def main(path):
    f = h5py.File(path, "r")
    print(f"run ended: {f.attrs.get('end_reason', 'unknown')} after {f.attrs['steps_done']} steps")
    for name, p in f["ports"].items():
        freq = p["frequency"][:]
        z = p["Z"][:, 0] + 1j * p["Z"][:, 1]
        s_db = p["S_dB"][:]
        print(f"port {name}: Z0 = {p.attrs['z0']} ohm, driven = {bool(p.attrs['driven'])}")
        print(f"{'f (GHz)':>8} {'Re Z':>9} {'Im Z':>9} {'|S| dB':>8}")
        for k in range(0, len(freq), max(1, len(freq) // 20)):
            print(f"{freq[k] / 1e9:8.3f} {z[k].real:9.2f} {z[k].imag:9.2f} {s_db[k]:8.2f}")
        up = np.where((z.imag[:-1] < 0) & (z.imag[1:] >= 0))[0]
        if len(up):
            k = up[0]
            t = -z.imag[k] / (z.imag[k + 1] - z.imag[k])
            fr = freq[k] + t * (freq[k + 1] - freq[k])
            print(f"first resonance {fr / 1e9:.4f} GHz, Re Z {z[k].real + t * (z[k + 1].real - z[k].real):.2f} ohm")
        # Cross-check at the best match: the transforms of the raw series.
        k = int(np.argmin(s_db))
        w = 2 * np.pi * freq[k]
        dt = float(f.attrs["dt"])
        v = np.sum(p["V"][:] * np.exp(-1j * w * p["time"][:])) * dt
        i = np.sum(p["I"][:] * np.exp(-1j * w * p["time_h"][:])) * dt
        print(f"min |S| {s_db[k]:.2f} dB at {freq[k] / 1e9:.4f} GHz: Z = {z[k]:.2f}, from V and I: {v / i:.2f}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "antenna.h5")

#!/usr/bin/env python3
"""Errors of the Mie convergence runs against the Mie series and the observed orders.
Usage: python3 analyse.py DIR (holding mie_<cell>mm_<on|off>.h5); needs h5py."""
import glob, math, os, re, sys
import h5py
sys.path.insert(0, os.path.dirname(__file__))
from mie import bhmie
a = 0.010
rows = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "mie_*mm_*.h5"))):
    m = re.search(r"mie_([0-9p]+)mm_(on|off)\.h5", path)
    cell = float(m.group(1).replace("p", "."))
    f = h5py.File(path, "r")
    g = f["cross_sections/sphere"]
    freq, sca = g["frequency"][...], g["scattering"][...]
    errs = []
    for fr, s in zip(freq, sca):
        x = 2 * math.pi * fr / 299792458 * a
        # One frequency set for every cell: k·a from 0.6 up to 7.5 GHz (20 cells per
        # wavelength inside at 1 mm, 10 at the coarsest 2 mm).
        if x < 0.6 or fr > 7.5e9 * (1 + 1e-9):
            continue
        qe, qs, qb = bhmie(x, complex(2.0, 0.0))
        errs.append((fr, s / (qs * math.pi * a * a) - 1))
    rows[(cell, m.group(2))] = errs
for sub in ["on", "off"]:
    cells = sorted({c for (c, s) in rows if s == sub}, reverse=True)
    print(f"subpixel {sub}:")
    for c in cells:
        e = rows[(c, sub)]
        worst = max(abs(x[1]) for x in e)
        rms = math.sqrt(sum(x[1] ** 2 for x in e) / len(e))
        print(f"  cell {c} mm ({10 / c:g} cells of radius): max |err| {100 * worst:.3f} %, rms {100 * rms:.3f} % over {len(e)} frequencies")
    for c1, c2 in zip(cells, cells[1:]):
        e1 = math.sqrt(sum(x[1] ** 2 for x in rows[(c1, sub)]) / len(rows[(c1, sub)]))
        e2 = math.sqrt(sum(x[1] ** 2 for x in rows[(c2, sub)]) / len(rows[(c2, sub)]))
        print(f"  order {c1} -> {c2} mm (rms error ratio): {math.log(e1 / e2) / math.log(c1 / c2):.2f}")

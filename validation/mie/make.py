#!/usr/bin/env python3
"""Write the Mie convergence scenes: scenes/mie_sphere.toml's sphere (eps_r 4, radius
10 mm) at cells of 2, 1, 0.5 and 0.25 mm (5 to 40 cells of radius), with subpixel
averaging on (the default) and off. Usage: python3 make.py OUTDIR"""
import os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
base = open(os.path.join(os.path.dirname(__file__), "../../scenes/mie_sphere.toml")).read()
for cell_mm in [2.0, 1.0, 0.5, 0.25]:
    n = round(64 / cell_mm)
    steps = round(3000 / cell_mm)
    for sub in ["on", "off"]:
        s = base.replace("cell = 1e-3", f"cell = {cell_mm}e-3").replace("cells = [64, 64, 64]", f"cells = [{n}, {n}, {n}]")
        s = s.replace("steps = 3000", f"steps = {steps}")
        if sub == "off":
            s = s.replace('material = "glass"\n', 'material = "glass"\nsubpixel = false\n', 1)
        name = f"mie_{cell_mm:g}mm_{sub}.toml".replace(".", "p", 1) if False else f"mie_{str(cell_mm).replace('.', 'p')}mm_{sub}.toml"
        open(os.path.join(out, name), "w").write(s)

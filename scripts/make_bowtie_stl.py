#!/usr/bin/env python3
"""Write the bow-tie antenna of scenes/stl_bowtie.toml as an ASCII STL file.

Two flat triangular copper arms (closed solids: triangular prisms 0.1 mm thick along
y), apexes facing each other across a feed gap along z. Coordinates in millimetres
(the scene reads them with `scale = 1e-3`), the lower arm's apex at the origin:

    lower arm: apex (0, 0, 0),   base z = -ARM,        x = -HALF .. +HALF
    upper arm: apex (0, 0, GAP), base z = GAP + ARM,   x = -HALF .. +HALF

HALF = ARM * tan(FLARE / 2). Standard library only:

    python3 scripts/make_bowtie_stl.py [OUT]      (default scenes/models/bowtie.stl)
"""
import math
import sys
from pathlib import Path

ARM = 30.0        # mm, apex to base of each arm
FLARE = 60.0      # degrees, the full opening angle of each arm
GAP = 1.0         # mm, between the apexes (the feed)
THICK = 0.1       # mm, along y (thinner than the 1 mm cells: the thin-sheet rule applies)


def sub(a, b):
    return [a[i] - b[i] for i in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def prism(tri_xz, thick):
    """The closed prism over a triangle in the xz plane, y from -thick/2 to +thick/2,
    as outward-facing triangles (corner order right-handed about the outward normal)."""
    h = thick / 2
    lo = [[x, -h, z] for x, z in tri_xz]
    hi = [[x, +h, z] for x, z in tri_xz]
    centre = [sum(p[i] for p in lo + hi) / 6 for i in range(3)]
    faces = [[lo[0], lo[1], lo[2]], [hi[0], hi[1], hi[2]]]
    for i in range(3):
        j = (i + 1) % 3
        faces += [[lo[i], lo[j], hi[j]], [lo[i], hi[j], hi[i]]]
    out = []
    for f in faces:
        n = cross(sub(f[1], f[0]), sub(f[2], f[0]))
        mid = [sum(p[i] for p in f) / 3 for i in range(3)]
        if sum(n[i] * (mid[i] - centre[i]) for i in range(3)) < 0:
            f = [f[0], f[2], f[1]]
            n = [-x for x in n]
        length = math.sqrt(sum(x * x for x in n))
        out.append(([x / length for x in n], f))
    return out


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "scenes/models/bowtie.stl"
    half = ARM * math.tan(math.radians(FLARE / 2))
    lower = prism([(0.0, 0.0), (-half, -ARM), (half, -ARM)], THICK)
    upper = prism([(0.0, GAP), (half, GAP + ARM), (-half, GAP + ARM)], THICK)
    lines = ["solid bowtie"]
    for n, f in lower + upper:
        lines.append("  facet normal %.9g %.9g %.9g" % tuple(x + 0.0 for x in n))
        lines.append("    outer loop")
        for p in f:
            lines.append("      vertex %.9g %.9g %.9g" % tuple(x + 0.0 for x in p))
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append("endsolid bowtie")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("wrote %s: %d triangles, arms %g mm, flare %g deg, gap %g mm, %g mm thick"
          % (out, len(lower) + len(upper), ARM, FLARE, GAP, THICK))


if __name__ == "__main__":
    main()

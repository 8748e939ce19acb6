#!/usr/bin/env python3
"""sph_agree.py REFERENCE RUN [TOLERANCE]: whether a split SPH run (folder RUN) ends as the
reference run ends: the same step, mass and excluded count exactly, the same particles in the
computation in its last snapshot, and kinetic energy, fastest speed and front within TOLERANCE
(default 1e-4) of their size (the ranks add the same forces in another order). Exit status 1
when not."""
import csv, re, struct, sys
def last(d):
    return list(csv.DictReader(open(d + "/diagnostics.csv")))[-1]
def points(d):
    """The last snapshot's particles still in the computation (type 255: excluded)."""
    index = open(d + "/particles.pvd").read()
    last_file = re.findall(r'file="([^"]+)"', index)[-1]
    data = open(d + "/" + last_file.split("/")[-1], "rb").read()
    head, raw = data.split(b'<AppendedData encoding="raw">', 1)
    raw = raw[raw.index(b"_") + 1:]
    at = int(re.search(rb'Name="type"[^>]*offset="(\d+)"', head).group(1))
    size = struct.unpack_from("<Q", raw, at)[0]
    return sum(t != 255 for t in struct.unpack_from("<%dI" % (size // 4), raw, at + 8))
a, b = last(sys.argv[1]), last(sys.argv[2])
tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
bad = []
if a["step"] != b["step"]:
    bad.append(f"step {b['step']} not {a['step']}")
for exact in ("mass", "excluded"):
    if float(a[exact]) != float(b[exact]):
        bad.append(f"{exact} {b[exact]} not {a[exact]}")
for k in ("kinetic_energy", "max_velocity", "front"):
    x, y = float(a[k]), float(b[k])
    if abs(x - y) > tolerance * max(abs(x), abs(y), 1e-12):
        bad.append(f"{k} {y} not {x}")
if points(sys.argv[1]) != points(sys.argv[2]):
    bad.append(f"{points(sys.argv[2])} particles, not {points(sys.argv[1])}")
print(f"{sys.argv[2].split('/')[-1]}: " + ("; ".join(bad) if bad else "agrees") +
      f" (kinetic energy {b['kinetic_energy']} against {a['kinetic_energy']})")
sys.exit(1 if bad else 0)

#!/usr/bin/env bash
# The 2D hydrostatic tank: after settling (0.5 s), the pressure of the fluid against depth
# follows rho0 g (H - y). Fluid particles are grouped in bands of 2 spacings by depth below
# the free surface (the highest particle plus half a spacing); each band's mean pressure must
# be within 0.06 rho0 g H of rho0 g d at its mean depth d. Particles within 2 spacings of the
# bottom are left out: dynamic boundary particles lower the pressure of the fluid next to
# them (measured: 0.08 rho0 g H), a known limit of that boundary model. All fluid particles
# stay in the tank, and the mass column of the diagnostics never changes.
set -euo pipefail
clpart=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$clpart" run "$CLPART_DATA_DIR/cases/hydrostatic_2d.json" --out "$work/run" </dev/null \
    >/dev/null 2>"$work/log" || { cat "$work/log"; exit 1; }
last=$(ls "$work"/run/particles_*.vtp | tail -1)
python3 - "$last" "$work/run/diagnostics.csv" <<'PY'
import re, struct, sys
rho0, g, H, dp, width = 1000.0, 9.81, 0.1, 0.004, 0.2
data = open(sys.argv[1], "rb").read()
head, raw = data.split(b'<AppendedData encoding="raw">', 1)
raw = raw[raw.index(b"_") + 1:]
def array(name, fmt):
    m = re.search(rb'<DataArray[^>]*Name="' + name.encode() + rb'"[^>]*offset="(\d+)"', head)
    if not m:
        sys.exit(f"no array {name}")
    at = int(m.group(1))
    size = struct.unpack_from("<Q", raw, at)[0]
    return struct.unpack_from("<%d%s" % (size // struct.calcsize(fmt), fmt), raw, at + 8)
points = array("position", "d")
pressure = array("pressure", "f")
kind = array("type", "I")
fluid = [i for i in range(len(kind)) if kind[i] == 0]
x = [points[3 * i] for i in fluid]
y = [points[3 * i + 1] for i in fluid]
if min(x) < 0 or max(x) > width or min(y) < 0:
    sys.exit(f"fluid left the tank: x in [{min(x)}, {max(x)}], y from {min(y)}")
surface = max(y) + dp / 2
bands = {}
for i, yy in zip(fluid, y):
    if yy < 2 * dp:
        continue
    bands.setdefault(int((surface - yy) / (2 * dp)), []).append((surface - yy, pressure[i]))
worst = 0.0
for band in sorted(bands):
    depth = sum(d for d, _ in bands[band]) / len(bands[band])
    p = sum(q for _, q in bands[band]) / len(bands[band])
    error = abs(p - rho0 * g * depth) / (rho0 * g * H)
    worst = max(worst, error)
    print(f"depth {depth:.4f} m: pressure {p:8.1f} Pa, rho0 g d {rho0 * g * depth:8.1f} Pa, "
          f"error {error:.3f} rho0 g H")
masses = {line.split(",")[4] for line in open(sys.argv[2]).readlines()[1:]}
if len(masses) != 1:
    sys.exit(f"mass changed: {sorted(masses)}")
if worst > 0.06:
    sys.exit(f"largest error {worst:.3f} rho0 g H exceeds 0.06")
print(f"largest error {worst:.3f} rho0 g H <= 0.06; mass constant; fluid in the tank")
PY

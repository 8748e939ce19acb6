#!/usr/bin/env bash
# The 2D hydrostatic tank: at its end time (0.5 s) the pressure of every fluid particle
# follows rho0 g (H - y), H = 0.1 m the water depth: the RMS of the difference over all fluid
# particles must be within 2 % of rho0 g H, and the mean of each band of 2 spacings in depth
# within 4 %. Under mDBC (the case's choice) the boundary particles' pressure continues the fluid's:
# the wall layer under the middle half of the tank within 3 % of rho0 g H of rho0 g (H - y) at
# its depth. All fluid particles stay in the tank, and the mass column of the diagnostics
# never changes. Options after the clpart path apply to the run.
set -euo pipefail
clpart=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$clpart" run "$CLPART_DATA_DIR/cases/hydrostatic_2d.json" --out "$work/run" "$@" </dev/null \
    >/dev/null 2>"$work/log" || { cat "$work/log"; exit 1; }
last=$(ls "$work"/run/particles_*.vtp | tail -1)
mdbc=1
[[ " $* " == *" sph.boundary=dynamic "* ]] && mdbc=0
python3 - "$last" "$work/run/diagnostics.csv" "$mdbc" <<'PY'
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
mdbc = sys.argv[3] == "1"
fluid = [i for i in range(len(kind)) if kind[i] == 0]
x = [points[3 * i] for i in fluid]
y = [points[3 * i + 1] for i in fluid]
if min(x) < 0 or max(x) > width or min(y) < 0:
    sys.exit(f"fluid left the tank: x in [{min(x)}, {max(x)}], y from {min(y)}")
scale = rho0 * g * H
errors = [(pressure[i] - rho0 * g * (H - yy)) / scale for i, yy in zip(fluid, y)]
rms = (sum(e * e for e in errors) / len(errors)) ** 0.5
bands = {}
for e, yy in zip(errors, y):
    bands.setdefault(int(yy / (2 * dp)), []).append(e)
worst = max(abs(sum(b) / len(b)) for b in bands.values())
print(f"RMS pressure error {rms:.4f} rho0 g H over {len(errors)} fluid particles; "
      f"largest band mean {worst:.4f}")
failed = []
if rms > 0.02:
    failed.append(f"RMS error {rms:.4f} rho0 g H exceeds 0.02")
if worst > 0.04:
    failed.append(f"a band's mean error {worst:.4f} rho0 g H exceeds 0.04")
if mdbc:
    walls = [i for i in range(len(kind)) if kind[i] == 1 and -dp < points[3 * i + 1] < 0
             and width / 4 < points[3 * i] < 3 * width / 4]
    wall = max(abs(pressure[i] - rho0 * g * (H - points[3 * i + 1])) / scale for i in walls)
    print(f"wall layer: {len(walls)} particles, largest error {wall:.4f} rho0 g H")
    if wall > 0.03:
        failed.append(f"wall layer error {wall:.4f} rho0 g H exceeds 0.03")
masses = {line.split(",")[4] for line in open(sys.argv[2]).readlines()[1:]}
if len(masses) != 1:
    failed.append(f"mass changed: {sorted(masses)}")
if failed:
    sys.exit("; ".join(failed))
print("mass constant; fluid in the tank")
PY

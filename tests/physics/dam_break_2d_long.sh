#!/usr/bin/env bash
# The 2D dam break past the impact: cases/dam_break_2d_long.json runs to t = 1.5 s (impact
# on the far wall, run-up, the return wave) with the default options, and fewer than 0.1 %
# of its fluid particles are excluded as outliers. The count is checked against the case's
# lattice (25 x 50 fluid particles) and the mass left in the computation.
set -uo pipefail
clpart=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$clpart" run "$CLPART_DATA_DIR/cases/dam_break_2d_long.json" --out "$work/run" "$@" \
    >/dev/null 2>"$work/log" </dev/null ||
    { echo "the run stopped: $(grep -v '^step' "$work/log" | tail -3)"; exit 1; }
python3 - "$work/run/diagnostics.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fluid, dp, rho0 = 25 * 50, 0.002286, 1000.0
last = rows[-1]
excluded = int(float(last["excluded"]))
print(f"t = {float(last['time']):.4f} s after {last['step']} steps; "
      f"{excluded} of {fluid} fluid particles excluded")
if float(last["time"]) < 1.5 - 1e-6:
    sys.exit("the run ended before t = 1.5 s")
if excluded > fluid // 1000:
    sys.exit(f"more than 0.1 % excluded")
mass = (fluid - excluded) * rho0 * dp * dp
if abs(float(last["mass"]) - mass) > 1e-9 * mass:
    sys.exit(f"mass {last['mass']} is not that of {fluid - excluded} particles, {mass}")
if max(float(r["front"]) for r in rows) < 0.5 - dp:
    sys.exit("the front never reached the far wall")
PY

#!/usr/bin/env bash
# Gauges in a still 2D tank (tests/data/sph/hydrostatic_gauges.json: water 0.1 m deep, a wall
# box 0.08 m wide and 0.012 m high on the floor, mDBC), checked at every sample from 0.05 s against
# what a still tank must give: water heights within half a spacing of 0.1 m; pressures within
# 3 % of rho0 g (H - y) at their point (2.0 % measured, while the start settles in the first
# 0.1 s), the third point on the far wall, which the run says it moved into the fluid at the
# same height; the fourth, 3 cm above the water, dry (empty fields) in every row; with
# sph.gauge_wall=refuse the case is refused, naming the point on the wall;
# velocities below 0.01 m/s; the force on the wall box within 2 % of the weight of the
# water above it, rho0 g (H - 0.012) 0.08 (N/m), and no sideways force above 1 % of it. A run
# stopped at 0.25 s and restarted writes the same gauges.csv, byte for byte; a run split between
# two devices writes the same gauges to 0.1 s (tests/physics/gauges_agree.py).
set -euo pipefail
clpart=$1
# Every run on PoCL: the restart is compared byte for byte, and the split among PoCL's devices
# within one implementation's rounding.
export CLPART_DEVICE=pocl
case_file=$CLPART_DATA_DIR/tests/data/sph/hydrostatic_gauges.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$clpart" run "$case_file" --out "$work/run" </dev/null >/dev/null 2>"$work/log" ||
    { cat "$work/log"; exit 1; }
grep -q "1 gauge point lies on a wall: sampled 1.5 h" "$work/log" ||
    { echo "the run did not say it moved the point on the far wall:"; cat "$work/log"; exit 1; }
if "$clpart" run "$case_file" -s sph.gauge_wall=refuse --out "$work/refused" </dev/null \
    >/dev/null 2>"$work/refused.log"; then
    echo "sph.gauge_wall=refuse ran a case with a gauge point on a wall"
    exit 1
fi
grep -q "'gauges'.points\[2\] (0.2, 0.05) lies on the tank's wall x = 0.2" "$work/refused.log" ||
    { echo "the refusal does not name the point:"; cat "$work/refused.log"; exit 1; }
[ ! -e "$work/refused/gauges.csv" ] || { echo "a refused case wrote gauges.csv"; exit 1; }
python3 - "$case_file" "$work/run/gauges.csv" <<'PY'
import csv, json, sys
case = json.load(open(sys.argv[1]))
rho0, g, H, dp = 1000.0, 9.81, 0.1, case["sph"]["dp"]
gauges = case["gauges"]
wall = case["walls"][gauges["walls"][0]]
weight = rho0 * g * (H - wall["max"][1]) * (wall["max"][0] - wall["min"][0])
rows = [r for r in csv.DictReader(open(sys.argv[2])) if float(r["time"]) >= 0.05 - 1e-9]
failed = []
if len(rows) < 9:
    failed.append(f"only {len(rows)} samples after 0.05 s")
worst = {"height": 0.0, "pressure": 0.0, "speed": 0.0, "force": 0.0, "sideways": 0.0}
for r in rows:
    for k in range(len(gauges["heights"])):
        worst["height"] = max(worst["height"], abs(float(r[f"height_{k}"]) - H))
    dry = len(gauges["points"]) - 1  # above the water
    if any(r[f"{q}_{dry}"] != "" for q in ("pressure", "vx", "vy")):
        failed.append(f"the gauge above the water is not dry at t = {r['time']}")
    for k, point in enumerate(gauges["points"][:dry]):
        expected = rho0 * g * (H - point[1])
        worst["pressure"] = max(worst["pressure"], abs(float(r[f"pressure_{k}"]) / expected - 1))
        worst["speed"] = max(worst["speed"], abs(float(r[f"vx_{k}"])) + abs(float(r[f"vy_{k}"])))
    worst["force"] = max(worst["force"], abs(-float(r["force_y_0"]) / weight - 1))
    worst["sideways"] = max(worst["sideways"], abs(float(r["force_x_0"])) / weight)
print(f"{len(rows)} samples: heights within {worst['height']:.5f} m of {H} m; pressures within "
      f"{100 * worst['pressure']:.2f} %; speeds below {worst['speed']:.5f} m/s; wall force "
      f"within {100 * worst['force']:.2f} % of {weight:.2f} N/m, sideways "
      f"{100 * worst['sideways']:.3f} %")
for name, value, bound in (("height", worst["height"], dp / 2), ("pressure", worst["pressure"], 0.03),
                           ("speed", worst["speed"], 0.01), ("force", worst["force"], 0.02),
                           ("sideways force", worst["sideways"], 0.01)):
    if value > bound:
        failed.append(f"{name} error {value:.5g} exceeds {bound:g}")
if failed:
    sys.exit("; ".join(failed))
PY
python3 - "$case_file" "$work/half.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
case["end_time"] = 0.25
json.dump(case, open(sys.argv[2], "w"))
PY
"$clpart" run "$work/half.json" --out "$work/restarted" </dev/null >/dev/null 2>&1 &&
    "$clpart" run "$case_file" --out "$work/restarted" \
        --restart "$work/restarted/checkpoint.ckpt" </dev/null >/dev/null 2>&1 ||
    { echo "the stopped and restarted run failed"; exit 1; }
cmp "$work/run/gauges.csv" "$work/restarted/gauges.csv" ||
    { echo "gauges.csv differs after a restart"; exit 1; }
echo "gauges.csv of the restarted run is that of the run in one go"

# Split between two devices in one process (slabs along x: columns and points on both sides,
# the wall box across the cut) to 0.1 s: the gauges of the run in one go, at the same steps.
# The two PoCL devices by index among every platform's (a GPU's platform may come first): the
# run in one go is on PoCL too, so the two compare within one implementation's rounding.
export POCL_DEVICES="pthread pthread"
two=$("$clpart" devices --json | python3 "$(dirname "$0")/../devices_of.py" pocl)
timeout 600 "$clpart" run "$case_file" --devices "$two" --time 0.1 \
    --out "$work/split" </dev/null >"$work/split.log" 2>&1 ||
    { echo "the split run failed: $(tail -3 "$work/split.log")"; exit 1; }
python3 "$(dirname "$0")/gauges_agree.py" "$work/run" "$work/split" ||
    { echo "the split run's gauges differ"; exit 1; }

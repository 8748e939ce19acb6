#!/usr/bin/env bash
# Particle-steps per second of the SPH dam breaks at benchmark sizes on one device: the 2D
# case with about 250k fluid particles and the 3D case with about 1M (and 8M with "big"),
# each run for a fixed number of steps after its build, with option variants.
# usage: bench/sph.sh BUILD_DIR DEVICE [STEPS] [big]
set -euo pipefail
build=$1
device=$2
steps=${3:-200}
big=${4:-}
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# make NAME SOURCE FLUID_PARTICLES: the case with dp set for that many fluid particles and
# an end time of STEPS steps
make() {
    python3 - "$CLPART_DATA_DIR/cases/$2.json" "$work/$1.json" "$3" "$steps" <<'PY'
import json, math, sys
case = json.load(open(sys.argv[1]))
dim = case["options"]["core.dim"]
box = case["fluid"][0]
volume = math.prod(box["max"][a] - box["min"][a] for a in range(dim))
dp = (volume / float(sys.argv[3])) ** (1.0 / dim)
case["sph"]["dp"] = dp
h, g = 1.3 * dp, 9.81
c0 = 10 * math.sqrt(2 * g * (box["max"][dim - 1] - box["min"][dim - 1]))
case["end_time"] = int(sys.argv[4]) * 0.1 * h / c0
case["output_interval"] = case["end_time"]
case["tank"]["layers"] = 3
json.dump(case, open(sys.argv[2], "w"))
PY
}
run() { # run NAME OPTIONS...: prints the rate of the last progress line
    local name=$1
    shift
    "$build/tools/clpart" run "$work/$name.json" --device "$device" --out "$work/out" "$@" \
        2>&1 </dev/null | tr '\r' '\n' | grep -o '[0-9.]*[kMG]* particle-steps/s' | tail -1
}
make dam2d dam_break_2d 250000
make dam3d dam_break_3d 1000000
[ -z "$big" ] || make dam3d8 dam_break_3d 8000000
printf '| %-10s | %-44s | %22s |\n' case options "rate"
echo "|---|---|---|"
for name in dam2d dam3d ${big:+dam3d8}; do
    for opts in "" "-s core.summation=naive" "-s core.summation=kbn" "-s grid.positions=local" \
        "-s neighbors.mode=jit"; do
        printf '| %-10s | %-44s | %22s |\n' "$name" "${opts:-defaults (kahan, global, list)}" \
            "$(run "$name" $opts)"
    done
done

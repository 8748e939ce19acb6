#!/usr/bin/env bash
# Particle-steps per second of the SPH dam breaks at benchmark sizes on one device: the 2D
# case with about 250k fluid particles (dam2d), the 3D case with about 1M (dam3d) and 8M
# (dam3d8), each run for STEPS steps after its build, for each option variant. The rate is the median
# of REPEATS runs (unprofiled, outputs at the start and end only); then one run with
# --timing gives the device time per step of each phase (profiled: each kernel waits for the
# last, so those runs are slower than the rate says).
# usage: bench/sph.sh BUILD_DIR DEVICE [STEPS] [REPEATS] [CASE...]  (cases: dam2d dam3d)
# DEFAULTS_ONLY=1 runs the default options alone (for slow devices at large sizes).
set -euo pipefail
build=$1
device=$2
steps=${3:-200}
repeats=${4:-3}
shift $(($# < 4 ? $# : 4))
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(dam2d dam3d)
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
# rate NAME OPTIONS...: the median particle-steps/s of REPEATS runs
rate() {
    local name=$1
    shift
    for _ in $(seq "$repeats"); do
        "$build/tools/clpart" run "$work/$name.json" --device "$device" --out "$work/out" "$@" \
            2>&1 </dev/null | tr '\r' '\n' | grep -o '[0-9.]*[kMG]* particle-steps/s' | tail -1 |
            sed 's/ particle-steps\/s//'
    done | python3 -c '
import statistics, sys
unit = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}
v = [float(s[:-1]) * unit[s[-1]] if s[-1] in unit else float(s) for s in sys.stdin.read().split()]
print(f"{statistics.median(v) / 1e6:.2f}M" if v else "failed")'
}
# split NAME OPTIONS...: particles, then ms per step of sort, list, density, forces, time
# step and integration, from one --timing run
split() {
    local name=$1
    shift
    "$build/tools/clpart" run "$work/$name.json" --device "$device" --out "$work/out" --timing \
        "$@" 2>/dev/null </dev/null | python3 -c '
import re, sys
text = sys.stdin.read()
n = re.search(r"steps of (\d+) particles", text)
ms = dict(re.findall(r"timing: (.+?) +([0-9.]+) ms", text))
keys = ["sort (keys, sort, reorder)", "neighbour list", "density", "forces", "time step", "integration"]
print(" | ".join([n.group(1) if n else "?"] + [ms.get(k, "?") for k in keys]))'
}
declare -A sources=([dam2d]="dam_break_2d 250000" [dam3d]="dam_break_3d 1000000"
    [dam3d8]="dam_break_3d 8000000")
for name in "${cases[@]}"; do
    make "$name" ${sources[$name]}
done
echo "device $device, $steps steps, rate = median of $repeats runs (M particle-steps/s);"
echo "phases: device ms per step from one profiled run"
echo
echo "| case | options | rate | particles | sort | list | density | forces | time step | integration |"
echo "|---|---|---|---|---|---|---|---|---|---|"
variants=("" "-s core.summation=naive" "-s core.summation=kbn" "-s grid.positions=local"
    "-s neighbors.mode=jit" "-s core.inline_constants=false" "-s sph.integrator=predictor_corrector")
[ -z "${DEFAULTS_ONLY:-}" ] || variants=("")
for name in "${cases[@]}"; do
    for opts in "${variants[@]}"; do
        echo "| $name | ${opts:-defaults (kahan, global, list, inlined)} | $(rate "$name" $opts) | $(split "$name" $opts) |"
    done
done

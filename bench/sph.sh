#!/usr/bin/env bash
# Particle-steps per second of the SPH dam breaks at benchmark sizes on one device: the 2D
# case with about 250k particles (dam2d), the 3D case with about 1M (dam3d) and 8M (dam3d8),
# fluid and walls counted together, with the cases' neighbour-list settings (skin 0.1, rebuilt
# every 8 steps in 2D and 12 in 3D), each run for STEPS steps after its build, for each
# option variant.
# The rate is the median over REPEATS runs of the progress line's stepping rate (unprofiled;
# the time spent writing the first and last snapshots is left out). Then one run with
# --timing gives the device time per step of each phase (profiled: each kernel waits for the
# last), and the rate the device time alone would give: particles over the device time per
# step, without the host's share (launches and the per-step read of the time step).
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
# make NAME SOURCE PARTICLES: the case with dp set for about that many particles
make() {
    python3 "$(dirname "$0")/sph_case.py" "$CLPART_DATA_DIR/cases/$2.json" "$work/$1.json" "$3" \
        "$steps" "$build/tools/clpart"
}
# rate NAME OPTIONS...: the median particle-steps/s of REPEATS runs
rate() {
    local name=$1
    shift
    for _ in $(seq "$repeats"); do
        "$build/tools/clpart" run "$work/$name.json" --device "$device" --out "$work/out" "$@" \
            2>&1 </dev/null | tr '\r' '\n' | grep -E 'particle-steps/s|error' | tail -1
    done | python3 -c '
import re, statistics, sys
unit = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}
lines = sys.stdin.read().splitlines()
# the closing "rate: 1.23e+09 particle-steps/s" line, else the last progress line ("1.23G")
v = [float(m.group(1)) if m.group(1) else float(m.group(2)) * unit[m.group(3)] for m in
     (re.search(r"rate: ([0-9.e+-]+) particle-steps/s|([0-9.]+)([kMG]?) particle-steps/s", l)
      for l in lines) if m]
errors = [l for l in lines if "error" in l]
print(f"{statistics.median(v) / 1e6:.2f}M" if v and not errors else "failed: " + " ".join(errors))'
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
rate = "?"
if n and "device total" in ms and float(ms["device total"]) > 0:
    rate = "%.1fM" % (int(n.group(1)) / float(ms["device total"]) / 1e3)
print(" | ".join([n.group(1) if n else "?"] + [ms.get(k, "?") for k in keys] + [rate]))'
}
declare -A sources=([dam2d]="dam_break_2d 250000" [dam3d]="dam_break_3d 1000000"
    [dam3d8]="dam_break_3d 8000000")
for name in "${cases[@]}"; do
    make "$name" ${sources[$name]}
done
echo "device $device, $steps steps, rate = median of $repeats runs (M particle-steps/s);"
echo "phases: device ms per step from one profiled run"
echo
echo "| case | options | rate | particles | sort | list | density | forces | time step | integration | device-time rate |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
variants=("" "-s core.summation=naive" "-s core.summation=kbn" "-s grid.positions=local"
    "-s neighbors.mode=jit" "-s neighbors.format=bits" "-s neighbors.mode=jit -s sph.strategy=x_pencil"
    "-s core.inline_constants=false" "-s sph.integrator=predictor_corrector")
[ -z "${DEFAULTS_ONLY:-}" ] || variants=("")
for name in "${cases[@]}"; do
    for opts in "${variants[@]}"; do
        echo "| $name | ${opts:-defaults (kahan, global, list, inlined)} | $(rate "$name" $opts) | $(split "$name" $opts) |"
    done
done

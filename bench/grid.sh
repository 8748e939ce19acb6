#!/usr/bin/env bash
# The neighbour search per step at SPH density (about 51 neighbours in 3D) for each particle
# count, key, sort, neighbour mode and position storage, on one device: bench-grid runs the
# model search (cases/neighbour_search.json resized) for STEPS steps with its phases timed.
# Times in ms are device means per step: the displacement ("move"), the update's keys, sort,
# reorder and list ("rebuild" their sum) and one pass over every neighbour ("pass"), which jit
# pays in every interaction kernel; "step" is their sum. GB is the least traffic of a step
# (the model's count), "copy" its rate over the device's copy bandwidth.
# usage: bench/grid.sh BUILD_DIR DEVICE [STEPS] [PARTICLES...]   (default 1000000 8000000)
set -euo pipefail
build=$1
device=$2
steps=${3:-5}
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- 1000000 8000000
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
printf '| %-32s | %9s | %-6s | %-8s | %-4s | %-6s | %5s | %7s | %7s | %7s | %8s | %7s | %10s | %7s | %7s | %8s | %6s | %6s | %5s |\n' \
    device particles key sort mode pos neigh "move ms" "keys ms" "sort ms" "reord ms" "list ms" \
    "rebuild ms" "pass ms" "step ms" "part/s" "GB" "GB/s" "copy"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "$@"; do
    for config in "linear counting list global" "linear radix list global" \
        "linear counting jit global" "linear radix jit global" "linear counting list local" \
        "morton counting list global"; do
        set -- $config
        "$build/bench/bench-grid" --device "$device" --particles "$n" --steps "$steps" \
            -s "grid.key=$1" -s "grid.sort=$2" -s "neighbors.mode=$3" -s "grid.positions=$4" ||
            echo "| $device | $n | $1 | $2 | $3 | $4 | failed (see above) |"
    done
done

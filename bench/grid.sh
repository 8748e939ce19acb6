#!/usr/bin/env bash
# The neighbour search per step at SPH density (about 50 neighbours in 3D) for each particle
# count, sort and neighbour mode, on one device. Times in ms are medians of the repeats;
# "pass" is one sweep over every neighbour, which jit pays in every interaction kernel.
# usage: bench/grid.sh BUILD_DIR DEVICE [REPEATS] [PARTICLES...]   (default 1000000 8000000)
set -euo pipefail
build=$1
device=$2
repeat=${3:-5}
shift $(($# < 3 ? $# : 3))
[ $# -gt 0 ] || set -- 1000000 8000000
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
printf '| %-32s | %9s | %-8s | %-6s | %-6s | %5s | %8s | %8s | %8s | %8s | %8s | %8s | %7s | %6s | %5s | %8s |\n' \
    device particles sort mode pos neigh "keys ms" "sort ms" "reord ms" "list ms" "step ms" \
    "part/s" "GB" "GB/s" "copy" "pass ms"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for n in "$@"; do
    for config in "counting list global" "radix list global" "counting jit global" \
        "radix jit global" "counting list local"; do
        set -- $config
        "$build/bench/bench-grid" --device "$device" --particles "$n" --repeat "$repeat" \
            -s "grid.sort=$1" -s "neighbors.mode=$2" -s "grid.positions=$3" ||
            echo "| $device | $n | $1 | $2 | $3 | failed (see above) |"
    done
done

#!/usr/bin/env bash
# clpart's cell sort against CUB's DeviceRadixSort::SortPairs (bench/peers/cub_sort.cu) on the
# same NVIDIA GPU in one call: for each particle count, bench-grid's rows for the counting sort
# (the default) and the radix sort (keys, sort and reorder ms per step), and CUB sorting as many 32-bit key/value pairs over as many key bits
# as the grid's cell keys need, then clpart's sort time over CUB's. Needs nvcc.
# usage: bench/sort_peer.sh BUILD_DIR [DEVICE] [PARTICLES...]   (default nvidia 1000000 8000000)
set -euo pipefail
build=$1
device=${2:-nvidia}
shift $(($# < 2 ? $# : 2))
[ $# -gt 0 ] || set -- 1000000 8000000
here=$(cd "$(dirname "$0")" && pwd)
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(dirname "$here")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -O3 -o "$work/cub-sort" "$here/peers/cub_sort.cu"
for n in "$@"; do
    # bench-grid's case (cases/neighbour_search.json, side^3 particles): its key count
    side=$(python3 -c "print(round($n ** (1 / 3)))")
    python3 - "$CLPART_DATA_DIR/cases/neighbour_search.json" "$side" "$work/case.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
case["search"]["side"] = int(sys.argv[2])
json.dump(case, open(sys.argv[3], "w"))
PY
    keys=$("$build/tools/clpart" source "$work/case.json" | awk '/#define CLP_GRID_KEY_COUNT/ { print $3; exit }')
    bits=$(python3 -c "print(($keys).bit_length())")
    cub=$("$work/cub-sort" "$((side * side * side))" "$bits")
    echo "$cub"
    for sort in counting radix; do
        row=$("$build/bench/bench-grid" --device "$device" --particles "$n" --steps 5 \
            -s grid.sort=$sort -s neighbors.mode=list 2>/dev/null)
        echo "$row"
        python3 - "$row" "$cub" "$sort" <<'PY'
import re, sys
cells = [c.strip() for c in sys.argv[1].strip().strip("|").split("|")]
keys, sort, reorder = float(cells[8]), float(cells[9]), float(cells[10])
cub = float(re.search(r"([0-9.]+) ms", sys.argv[2]).group(1))
print(f"{cells[1]} particles, {sys.argv[3]} sort: clpart keys {keys:.3f}, sort {sort:.3f}, "
      f"reorder {reorder:.3f} ms; CUB SortPairs {cub:.3f} ms; clpart's sort over CUB's "
      f"{sort / cub:.2f}")
PY
    done
done

#!/usr/bin/env bash
# Cold build versus cache hit of the self-test program, per device, each figure the median
# of N fresh processes measured side by side in this one run:
#   cold        clBuildProgram from source into an empty clpart cache, with the drivers'
#               own caches off (CUDA_CACHE_DISABLE=1, POCL_KERNEL_CACHE=0)
#   hit         the next run: binary loaded from clpart's cache, driver caches as a user
#               has them (on)
#   hit, nodrv  the same with the drivers' caches off (NVIDIA then re-JITs the PTX)
# usage: bench/cache.sh BUILD_DIR [N] [DEVICE_SELECTOR...]   (default: every device)
set -euo pipefail
build=$1
n=${2:-7}
shift $(($# < 2 ? $# : 2))
bench=$build/bench/bench-cache
clpart=$build/tools/clpart
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
    count=$("$clpart" devices --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))')
    set -- $(seq 0 $((count - 1)))
fi

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

# run KIND DEVICE: one timing; checks that the build was the hit or miss it should be
run() {
    local expect=$1 device=$2 out
    shift 2
    out=$(env "$@" "$bench" --device "$device" --cache-dir "$work/cache")
    [ "${out#* }" = "$expect" ] || { echo "expected a $expect, got: $out" >&2; exit 1; }
    echo "${out% *}"
}

echo "clpart $("$clpart" --version | cut -d' ' -f2-): self-test program, median of $n processes"
printf '| %-46s | %9s | %9s | %11s | %7s | %11s |\n' device "cold (s)" "hit (s)" "hit nodrv (s)" ratio "ratio nodrv"
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------------------------ ----------- ----------- --------------- --------- -------------
for device in "$@"; do
    name=$("$clpart" devices --json | python3 -c "import json,sys; print(json.load(sys.stdin)['devices'][$device]['name'])")
    : >"$work/cold"; : >"$work/hit"; : >"$work/nodrv"
    for _ in $(seq "$n"); do
        rm -rf "$work/cache"
        run miss "$device" CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0 >>"$work/cold"
    done
    run hit "$device" >/dev/null # lets the driver cache see this binary once, as a user's first hit does
    for _ in $(seq "$n"); do run hit "$device" >>"$work/hit"; done
    for _ in $(seq "$n"); do run hit "$device" CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0 >>"$work/nodrv"; done
    cold=$(median <"$work/cold"); hit=$(median <"$work/hit"); nodrv=$(median <"$work/nodrv")
    printf '| %-46.46s | %9.4f | %9.5f | %13.5f | %7.1f | %11.1f |\n' "$name" "$cold" "$hit" "$nodrv" \
        "$(awk "BEGIN {print $cold / $hit}")" "$(awk "BEGIN {print $cold / $nodrv}")"
done

#!/usr/bin/env bash
# The speed of two builds of clpart on one device, alternated: for each workload, ROUNDS rounds
# of OLD then NEW (then NEW then OLD, and so on, so that neither always runs first), each a
# `clpart run` whose rate line (outputs excluded) is taken. Prints, per workload, each build's
# median with its least and largest, and NEW's median over OLD's. The workloads are the ones a
# refactor must not slow: the SPH 3D dam break at 1M and 8M particles, the Lennard-Jones
# liquid at 32k and 2M atoms, the repulsive design and the 128-dimensional swarm.
# usage: bench/compare_builds.sh OLD_BUILD NEW_BUILD DEVICE [ROUNDS] [WORKLOAD...]
#   (workloads: sph1m sph8m lj32k lj2m repulsive pso)
set -euo pipefail
old=$1 new=$2 device=$3 rounds=${4:-7}
shift $(($# < 4 ? $# : 4))
workloads=("$@")
[ ${#workloads[@]} -gt 0 ] || workloads=(sph1m sph8m lj32k lj2m repulsive pso)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CLPART_CACHE_DIR=$work/cache
cases=$(dirname "$here")/cases

# The source folder a build was made from: its cl/ and options/ are that build's.
source_of() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["directories"]["source"])' \
        "$1/meson-info/meson-info.json"
}

# The case file of a workload (made once, by NEW's clpart for the SPH particle counts).
case_of() {
    local file=$work/$1.json
    [ -f "$file" ] || case $1 in
        sph1m | sph8m)
            CLPART_DATA_DIR=$(source_of "$new") python3 "$here/sph_case.py" \
                "$cases/dam_break_3d.json" "$file" "${1:3:1}e6" "$([ "$1" = sph1m ] && echo 400 || echo 100)" \
                "$new/tools/clpart" ;;
        lj32k) python3 "$here/lj_case.py" "$cases/lj_liquid.json" "$file" 32000 10000 ;;
        lj2m) python3 "$here/lj_case.py" "$cases/lj_liquid.json" "$file" 2e6 200 ;;
        repulsive) cp "$cases/repulsive_1000_5d.json" "$file" ;;
        pso) cp "$cases/pso_sphere_128.json" "$file" ;;
        *) echo "unknown workload $1" >&2; exit 2 ;;
    esac
    echo "$file"
}

# rate BUILD WORKLOAD: the run's rate, from its rate line
rate() {
    CLPART_DATA_DIR=$(source_of "$1") "$1/tools/clpart" run "$(case_of "$2")" --device "$device" --out "$work/out" </dev/null 2>/dev/null |
        sed -n 's/^rate: \([0-9.e+-]*\) .*/\1/p'
}

printf '%-10s %5s  %-34s %-34s %s\n' workload n "old: median (least to largest)" \
    "new: median (least to largest)" "new/old"
for w in "${workloads[@]}"; do
    a=() b=()
    for r in $(seq "$rounds"); do
        if [ $((r % 2)) -eq 1 ]; then
            a+=("$(rate "$old" "$w")") b+=("$(rate "$new" "$w")")
        else
            b+=("$(rate "$new" "$w")") a+=("$(rate "$old" "$w")")
        fi
    done
    python3 - "$w" "${a[*]}" "${b[*]}" <<'PY'
import statistics, sys
w, a, b = sys.argv[1], [float(x) for x in sys.argv[2].split()], [float(x) for x in sys.argv[3].split()]
fmt = lambda v: f"{statistics.median(v):.4g} ({min(v):.4g} to {max(v):.4g})"
print(f"{w:<10} {len(a):>5}  {fmt(a):<34} {fmt(b):<34} {statistics.median(b) / statistics.median(a):.4f}")
PY
done

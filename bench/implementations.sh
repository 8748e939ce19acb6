#!/usr/bin/env bash
# The same cases on every OpenCL implementation at hand, each run compared by clpart compare
# with PoCL's run of the same case and length: Oclgrind (registered through a vendors folder
# of our own, for short runs: it interprets every kernel), Mesa's rusticl
# (RUSTICL_ENABLE=llvmpipe, when mesa-opencl-icd is installed) and NVIDIA's driver (when its
# ICD file is registered). Writes OUT/table.md, a row per
# comparison: the verdict, the quantity nearest to (or furthest beyond) its tolerance and the
# share of its tolerance it used, and each run's wall time.
# usage: bench/implementations.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=$1
out=$2
clpart=$build/tools/clpart
root=$(cd "$(dirname "$0")/.." && pwd)
export CLPART_DATA_DIR=$root CLPART_NO_CACHE=1
unset CLPART_DEVICE
mkdir -p "$out/vendors"
vendors=${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}
pocl_icd=$(ls "$vendors"/*pocl*.icd 2>/dev/null | head -1)
[ -n "$pocl_icd" ] || { echo "implementations.sh: PoCL's ICD file is missing" >&2; exit 1; }
cp "$pocl_icd" "$out/vendors/"
implementations=""
if [ -f /usr/lib/oclgrind/liboclgrind-rt-icd.so ]; then
    echo /usr/lib/oclgrind/liboclgrind-rt-icd.so >"$out/vendors/oclgrind.icd"
    implementations="oclgrind"
fi
if [ -f "$vendors/rusticl.icd" ]; then
    cp "$vendors/rusticl.icd" "$out/vendors/"
    implementations="$implementations rusticl"
fi
nvidia_icd=$(ls "$vendors"/*nvidia*.icd 2>/dev/null | head -1)
if [ -n "$nvidia_icd" ]; then
    cp "$nvidia_icd" "$out/vendors/"
    implementations="$implementations nvidia"
fi
export OCL_ICD_VENDORS=$out/vendors RUSTICL_ENABLE=llvmpipe

# The comparisons: implementation, case, the limits of both runs ("" for the whole case).
# Oclgrind runs 300 to 3700 times slower than PoCL: a few steps of each case.
comparisons=(
    "oclgrind cases/dam_break_2d.json --steps 20"
    "oclgrind cases/lj_liquid_small.json --steps 100"
    "oclgrind cases/pso_rastrigin.json --steps 100"
    "oclgrind cases/repulsive_24_2d.json --steps 500"
    "rusticl cases/dam_break_2d.json --time 0.02"
    "rusticl cases/lj_liquid_small.json --steps 300"
    "rusticl cases/lj_liquid_small.json"
    "rusticl cases/pso_rastrigin.json"
    "rusticl cases/pso_sphere_128.json"
    "rusticl cases/repulsive_24_2d.json"
    "nvidia cases/dam_break_2d.json --time 0.02"
    "nvidia cases/dam_break_2d.json"
    "nvidia cases/dam_break_3d.json --steps 100"
    "nvidia cases/lj_liquid_small.json --steps 300"
    "nvidia cases/lj_liquid_small.json"
    "nvidia cases/pso_rastrigin.json"
    "nvidia cases/pso_sphere_128.json"
    "nvidia cases/repulsive_24_2d.json"
)

# run IMPLEMENTATION CASE LIMITS...: the run's folder on stdout, its wall time in $seconds
run() {
    local impl=$1 case=$2
    shift 2
    local dir
    dir=$out/runs/$impl/$(basename "$case" .json)$(tr -d ' -' <<<"$*")
    if [ ! -f "$dir/run.json" ] || ! grep -q '"status": *"ok"' "$dir/run.json"; then
        local start=$(date +%s.%N)
        "$clpart" run "$root/$case" --device "$impl" "$@" --out "$dir" >"$dir.log" 2>&1 ||
            { echo "implementations.sh: $impl $case $* failed: $(tail -2 "$dir.log")" >&2; return 1; }
        awk -v start="$start" -v end="$(date +%s.%N)" 'BEGIN { print end - start }' >"$dir.seconds"
    fi
    echo "$dir"
}

{
    echo "| implementation | case | length | verdict | nearest or furthest quantity | used | seconds (PoCL, it) |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
} >"$out/table.md"
for line in "${comparisons[@]}"; do
    set -- $line
    impl=$1 case=$2
    shift 2
    case " $implementations " in *" $impl "*) ;; *) continue ;; esac
    mkdir -p "$out/runs/pocl" "$out/runs/$impl"
    a=$(run pocl "$case" "$@") && b=$(run "$impl" "$case" "$@") || continue
    "$clpart" compare "$a" "$b" --json >"$b.compare.json"
    python3 - "$b.compare.json" "$impl" "$case" "${*:-the whole case}" "$a.seconds" "$b.seconds" \
        >>"$out/table.md" <<'PY'
import json, sys
report, impl, case, length = json.load(open(sys.argv[1])), *sys.argv[2:5]
items = report["items"]
ratio = lambda i: float("inf") if i["used"] == "inf" else i["used"]
worst = max(items, key=ratio) if items else None
seconds = [float(open(f).read()) for f in sys.argv[5:7]]
name = f'{worst["quantity"]} ({worst["file"]})' if worst else ""
used = f'{ratio(worst):.3g}' if worst else ""
print(f"| {impl} | {case} | {length} | {report['verdict']} | {name} | {used} | "
      f"{seconds[0]:.1f}, {seconds[1]:.1f} |")
PY
done
cat "$out/table.md"

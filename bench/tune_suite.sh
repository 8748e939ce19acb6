#!/usr/bin/env bash
# Tunes workloads of suites/standard.json on one device with clpart tune, each under its own
# time limit (a tune stopped by it keeps its records, and the same command goes on from them),
# and saves the best of each into a tuning database: the measurements behind tuning/v1/ and
# docs/benchmarks/tuning.md.
# usage: bench/tune_suite.sh BUILD_DIR DEVICE OUT [LIMIT WORKLOAD STEPS STRATEGY EVALUATIONS]...
#        EVALUATIONS "all" for the whole space (exhaustive); the database is OUT/tuning.json,
#        each workload's records OUT/WORKLOAD/.
set -uo pipefail
build=$1 device=$2 out=$3
shift 3
clpart=$build/tools/clpart
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
root=$CLPART_DATA_DIR
export CLPART_TUNING_DB=$out/tuning.json
mkdir -p "$out/cases"
# each workload's case: its file with its patch merged in
python3 - "$root/suites/standard.json" "$root" "$out/cases" <<'PY'
import json, os, sys
suite, root, folder = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
def merge(a, b):
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            merge(a[k], v)
        else:
            a[k] = v
for w in suite["workloads"]:
    if "patch" in w:
        case = json.load(open(os.path.join(root, w["case"])))
        merge(case, w["patch"])
        json.dump(case, open(os.path.join(folder, w["name"] + ".json"), "w"), indent=1)
PY
failed=0
while [ $# -ge 5 ]; do
    limit=$1 workload=$2 steps=$3 strategy=$4 evaluations=$5
    shift 5
    budget=()
    [ "$evaluations" = all ] || budget=(--evaluations "$evaluations")
    start=$(date +%s)
    timeout -s TERM "$limit" "$clpart" --device "$device" tune "$out/cases/$workload.json" \
        --steps "$steps" --repeat 3 --budget 2 --strategy "$strategy" "${budget[@]}" \
        --out "$out/$workload" --save >"$out/$workload.log" 2>&1
    rc=$?
    echo "$workload: exit $rc in $(($(date +%s) - start)) s"
    # 124: stopped by its limit, its records kept; anything else failed (its log says how)
    [ $rc -eq 0 ] || [ $rc -eq 124 ] || { failed=1; tail -3 "$out/$workload.log"; }
    grep -E "^device .*(combinations measured|saved|replaced|keeps)" "$out/$workload.log"
done
exit $failed

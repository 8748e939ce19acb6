#!/usr/bin/env bash
# The sweep's own cost per combination, beyond its runs' time steps, per device: a sweep of
# the 3D dam break (28k particles) and of the small LJ liquid (864 atoms) into an empty
# clpart cache (every build cold), then the same sweeps again into a new folder (every
# build a cache hit; as in cache.sh, the cold pass turns the drivers' own caches off, and a
# first hit pass, not measured, fills them).
# From each combination's record:
#   prepare   options checked, source assembled, program built or loaded from the cache
#   set-up    per run, what is not a time step: buffers, the initial state, its upload and
#             the final diagnostics (the record's time less prepare and the steps, over its
#             warm-up and timed runs); part of every run, not of the sweep
# Medians over each case's combinations.
# usage: bench/sweep.sh BUILD_DIR [DEVICE_SELECTOR...]   (default: every device)
#        REPEATS (3): timed runs of each combination after its warm-up (--budget 0: no more);
#        CASES ("sph lj"): the sweeps to take
set -euo pipefail
build=$1
shift
clpart=$build/tools/clpart
root=$(cd "$(dirname "$0")/.." && pwd)
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$root}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 0 ]; then
    count=$("$clpart" devices --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["devices"]))')
    set -- $(seq 0 $((count - 1)))
fi

# sweep_of CASE: the case file and options of that sweep, into $sweep
sweep_of() {
    case $1 in
    sph) sweep=("$root/cases/dam_break_3d.json" -s sph.kernel=wendland,cubic -s sph.boundary=dynamic,mdbc) ;;
    lj) sweep=("$root/cases/lj_liquid_small.json" -s lj.strategy=par_part,par_part_loop,x_pencil
        -s neighbors.mode=list,jit) ;;
    *) echo "sweep.sh: CASES takes sph and lj, not '$1'" >&2 && exit 1 ;;
    esac
}
cases=${CASES:-sph lj}
for case in $cases; do sweep_of "$case"; done

# sweeps PASS DEVICE [ENV...]: the sweeps of $cases, their records in $work/PASS-DEVICE-CASE/
sweeps() {
    local pass=$1 device=$2 common=(--devices "$2" --steps 5 --repeat "${REPEATS:-3}" --budget 0 --cache-dir "$work/cache-$2")
    shift 2
    local case
    for case in $cases; do
        sweep_of "$case"
        env "$@" "$clpart" sweep "${sweep[@]}" "${common[@]}" --out "$work/$pass-$device-$case" \
            >/dev/null 2>"$work/log" || { cat "$work/log" >&2; exit 1; }
    done
}

echo "clpart $("$clpart" --version | cut -d' ' -f2-): the sweep's cost per combination, medians"
printf '| %-46s | %-4s | %12s | %13s | %12s | %7s |\n' device case "prepare, hit" "prepare, cold" "set-up / run" records
printf '|%s|%s|%s|%s|%s|%s|\n' ------------------------------------------------ ------ -------------- --------------- -------------- ---------
for device in "$@"; do
    sweeps cold "$device" CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0
    sweeps primer "$device" # lets the driver caches see the binaries once, as a user's first hit does
    sweeps hit "$device"
    python3 - "$work" "$device" $cases <<'PY'
import json, statistics, sys
work, device, cases = sys.argv[1], sys.argv[2], sys.argv[3:]
def records(p, case):
    return [json.loads(l) for l in open(f"{work}/{p}-{device}-{case}/results.jsonl")]
def setup(r):
    # one warm-up step, then the timed runs of `steps` steps each
    step_seconds = r["work"] / r["steps"] / r["warmup_throughput"] + sum(r["work"] / x for x in r["runs"])
    return (r["seconds"] - r["prepare_seconds"] - step_seconds) / (1 + len(r["runs"]))
ms = lambda xs: f"{1e3 * statistics.median(xs):9.2f} ms"
for case in cases:
    hit, cold = ([r for r in records(p, case) if r["status"] == "ok"] for p in ("hit", "cold"))
    if not hit or not all(r["cache_hit"] for r in hit) or any(r["cache_hit"] for r in cold):
        sys.exit(f"device {device}, {case}: the second pass should hit the cache for every record, the first for none")
    name = hit[0]["device"]["name"]
    print(f"| {name[:46]:46} | {case:4} | {ms([r['prepare_seconds'] for r in hit])} | "
          f"{ms([r['prepare_seconds'] for r in cold])}  | {ms([setup(r) for r in hit])} | {len(hit):7} |")
PY
done

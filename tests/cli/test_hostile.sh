#!/usr/bin/env bash
# Hostile inputs and faults (issue 48): each numbered defect's reproducer, which failed at
# 9f3fefb, as a check. Cases too large for the machine, intervals that cannot advance, bench
# suites, sweep and report inputs with wrong keys, types or values, torn result files,
# outputs to a full disk, folder names from case file names, and options that change
# nothing. Bench and sweep name PoCL, where what they run must be slow enough to interrupt.
set -uo pipefail
clpart=$1 mpi=${2:-no}
. "$(dirname "$0")/common.sh"
cases=$CLPART_DATA_DIR/cases
cd "$work" || exit 1
# stops_within TENTHS PID WHAT LOG: a SIGTERM now ends PID within TENTHS tenths of a second,
# with exit status 143; else a failure naming WHAT with its LOG (and a SIGKILL)
stops_within() {
    local tenths=$1 pid=$2 what=$3 log=$4
    kill -TERM "$pid"
    for _ in $(seq "$tenths"); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        fail "$what: still running $((tenths / 10)) s after SIGTERM"
        kill -KILL "$pid"
    fi
    wait "$pid"
    local rc=$?
    [ "$rc" -eq 143 ] || fail "$what: exit status $rc after SIGTERM, not 143: $(cat "$log")"
}

# 1: an interval far below the time step made the loop that schedules the next checkpoint
# spin for ever; every interval now makes progress (each step is due at worst).
variant "$(cat "$cases/dam_break_2d.json")" tiny_interval.json checkpoint_interval=1e-300 \
    output_interval=1e-12
expect 0 "rate:" -- timeout 120 "$clpart" run tiny_interval.json --steps 3 --out tiny
[ -s tiny/checkpoint.ckpt ] || fail "#1: no checkpoint after 3 steps at an interval of 1e-300"

# 2: a case larger than the machine is refused from its parameters, before its particles
# fill the memory. Under ulimit -v 4 GiB, whatever this machine has: 4 x 512^3 atoms take 100
# GiB on the host, 2^31 - 1 points at D = 1 64 GiB; and the 3D dam break at dp 0.0003 (32M
# particles), 3 GiB on the host, with its buffers on the CPU device (the host's memory too)
# 5.6 GiB.
# limited COMMAND...: COMMAND under ulimit -v 4 GiB, on PoCL: a GPU driver maps more address
# space than that as it starts (NVIDIA's lists no device then)
limited() {
    (ulimit -v 4194304 && CLPART_DEVICE=pocl exec timeout 60 "$@")
}
variant "$(cat "$cases/lj_liquid.json")" lj_huge.json lj/fcc_cells=512
expect 1 "536870912 atoms take 100.00 GiB of host memory, more than the 4.00 GiB the process may hold \\(ulimit -v\\)" -- \
    limited "$clpart" run lj_huge.json --steps 1 --out lj_huge
variant "$(cat "$cases/repulsive_1000_5d.json")" rep_huge.json repulsive/points=2147483647 \
    repulsive/dimensions=1 repulsive/dt=1e-6
expect 1 "2147483647 points in 1 dimensions take 64.00 GiB of host memory" -- \
    limited "$clpart" run rep_huge.json --steps 1 --out rep_huge
# the defaults' buffers (--no-tuning): a tuning database's sort takes others
variant "$(cat "$cases/dam_break_3d.json")" sph_huge.json sph/dp=0.0003
POCL_DEVICES=pthread expect 1 "[0-9]+ particles, with their buffers on CPU device '[^']*', take 5.61 GiB of host memory, more than the 4.00 GiB" -- \
    limited "$clpart" --no-tuning run sph_huge.json --device pocl --steps 1 --out sph_huge
# the automatic step of a repulsive case measures all pairs on the host: 33M points in 64
# dimensions would take days
variant "$(cat "$cases/repulsive_1000_5d.json")" rep_auto.json repulsive/points=33000000 \
    repulsive/dimensions=64
expect 1 "'repulsive.dt' \"auto\" measures the start's nearest pair on the host" -- \
    timeout 60 "$clpart" run rep_auto.json --steps 1 --out rep_auto

# 3: suite files are checked as case files are: keys, types, ranges, names
suite() { # suite PYTHON: suites/quick.json changed by PYTHON (s: the suite, w: its first
    # workload), into suite.json
    python3 - "$CLPART_DATA_DIR/suites/quick.json" "$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
w = s["workloads"][0]
exec(sys.argv[2])
json.dump(s, open("suite.json", "w"))
PY
}
for bad in "w['repeat'] = -3|\"repeat\" takes a whole number of runs from 1 to 64, not -3" \
    "w['repeat'] = 1e12|\"repeat\" takes a whole number of runs" \
    "w['stpes'] = 3|unknown key 'workloads/sph-dam-break-2d/stpes'; did you mean 'steps'" \
    "s['stpes'] = 3|unknown key 'stpes'" \
    "w['steps'] = 1.5|needs \"steps\", a whole number" \
    "w['sweep'] = ['no.such']|\"sweep\" entry 0 is not an option name" \
    "w['best_from'] = 'nothere'|\"best_from\" names nothere, which is not a workload before it" \
    "w['patch'] = [1]|\"patch\" must be an object" \
    "w['name'] = s['workloads'][1]['name']|two workloads are named" \
    "w['name'] = '..'|needs a \"name\" \\(not . or .., no '/'\\)" \
    "s['probe'] = {'floats': -1}|\"floats\" is not a setting or out of range"; do
    suite "${bad%%|*}"
    expect 1 "${bad#*|}" -- "$clpart" bench --suite ./suite.json --devices pocl --out bench_bad
done
[ ! -e bench_bad/results.jsonl ] || fail "#3: a refused suite ran workloads"

# 4: an MPI job with a hung rank ends, with the message, once a rank times out (rank 0 timed
# out, then waited in MPI_Finalize for the stopped rank for ever)
if [ "$mpi" = mpi ] && command -v mpirun >/dev/null; then
    CLPART_DEVICE=pocl CLPART_COMM_TIMEOUT=5 mpirun --oversubscribe --allow-run-as-root -np 2 \
        "$clpart" run "$cases/dam_break_2d_long.json" --out hung >hung.log 2>&1 &
    launcher=$!
    sleep 8
    ranks=$(pgrep -P "$launcher" -x clpart)
    [ -n "$ranks" ] && kill -STOP $(head -1 <<<"$ranks")
    for _ in $(seq 300); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$launcher" 2>/dev/null; then
        fail "#4: the job still runs 30 s after one of its ranks stopped: $(cat hung.log)"
        kill -CONT $ranks 2>/dev/null
        kill -KILL "$launcher" $ranks 2>/dev/null
    fi
    wait "$launcher"
    rc=$?
    # the rank that waits on the stopped one says so: for a message, or for its own sends
    [ "$rc" -ne 0 ] && grep -qE "(waited 5 s for a message|after 5 s) .*CLPART_COMM_TIMEOUT" hung.log ||
        fail "#4: exit status $rc, without the timeout's message: $(grep -v '^step' hung.log)"
    kill -CONT $ranks 2>/dev/null
fi

# 5: PSO user code is bounded: X(i) stays within the dimensions (X(100000000) killed the
# process on a CPU device), no directive, at most 64 KiB, and an endless loop ends at the
# first SIGTERM after the grace (it never did)
user() { # user FILE OBJECTIVE-JSON: the user objective case with this objective
    variant "$(cat "$cases/pso_user.json")" "$1" pso/iterations=20 "pso/objective=$2"
}
user far.json '{"expression": "X(100000000) * X(100000000) + X(1) * X(1)"}'
expect 0 "rate:" -- "$clpart" run far.json --out far
user include.json '{"function": ["#include \"/etc/hostname\"", "return X(0);"]}'
expect 1 "'pso.objective' holds '#': preprocessor directives" -- "$clpart" source include.json
user long.json "{\"expression\": \"$(python3 -c 'print(" + ".join(["X(0)"] * 15000))')\"}"
expect 1 "'pso.objective' holds 104997 bytes of code, more than the 65536 it may" -- \
    "$clpart" source long.json
user endless.json '{"function": ["float s = X(0) * 0.0f;", "while (s >= 0.0f)", "    s += 1.0f;", "return s;"]}'
CLPART_DEVICE=pocl CLPART_STOP_GRACE=3 "$clpart" run endless.json --out endless >endless.log 2>&1 &
sleep 2
stops_within 150 $! "#5: an endless objective (grace 3 s)" endless.log

# 6: the first SIGTERM ends the device probes at their next launch (it waited for all of
# them: 605 s on 2 cores with these arrays)
echo '{"probe": {"floats": 134217728, "iterations": 64}, "workloads": []}' >probes.json
"$clpart" bench --suite ./probes.json --devices pocl --out bench_probes >probes.log 2>&1 &
sleep 3
stops_within 100 $! "#6: bench in its probes" probes.log

# 7: a --combos entry of the wrong type names its option (the message was made from freed
# memory; ASan saw it, the release build printed it by luck)
pso=$cases/pso_sphere_128.json
echo '[{"pso.topology": null}]' >combos.json
expect 1 "entry 0: 'pso.topology' must be a string, number or boolean" -- \
    "$clpart" sweep "$pso" --combos combos.json --out sweep_combos

# 8: a preset name of 2101 characters is found whole (1024-byte buffers cut it)
long=$(printf 'p%.0s' $(seq 2101))
python3 - "$pso" "$long" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["presets"] = {sys.argv[2]: {"pso.topology": "ring"}, sys.argv[2][:-1] + "q": {}}
json.dump(c, open("long_presets.json", "w"))
PY
expect 0 "done: 2 run" -- "$clpart" sweep long_presets.json -p "$long,${long%p}q" --steps 2 \
    --repeat 1 --budget 0 --devices pocl --out sweep_long

# 9: overlapping fluid boxes put particles on each other (16 copies of one gave 6905
# particles and 16 times its mass); the case is refused
python3 - "$cases/dam_break_2d.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["fluid"] = c["fluid"] * 16
json.dump(c, open("fluid_copies.json", "w"))
PY
expect 1 "'fluid'\[0\] and 'fluid'\[1\] share space" -- "$clpart" source fluid_copies.json

# 11: a torn last record (a stop mid-write) is cut off once and run again; a record with a
# rate that is not a number is no result; with its reference refused, speed-ups are n/a
sweep_args=(sweep "$cases/dam_break_2d.json" -s neighbors.mode=list,jit -s sph.strategy=x_pencil
    --steps 2 --repeat 1 --budget 0 --devices pocl --out sweep_torn)
expect 0 "done: 2 run" -- "$clpart" "${sweep_args[@]}"
grep -q "| refused: " sweep_torn/summary.md || fail "#11: the reference (list, x_pencil) ran"
grep -q "| n/a | n/a: the reference did not run |" sweep_torn/summary.md ||
    fail "#11: a speed-up over a refused reference: $(cat sweep_torn/summary.md)"
head -c -40 sweep_torn/results.jsonl >torn.jsonl && mv torn.jsonl sweep_torn/results.jsonl
expect 0 "results.jsonl:2 was a torn record .*cut off, and it is run again" -- \
    "$clpart" "${sweep_args[@]}"
out=$("$clpart" "${sweep_args[@]}" 2>&1)
grep -q "warning" <<<"$out" && fail "#11: the warning repeats: $out"
[ "$(wc -l <sweep_torn/results.jsonl)" -eq 2 ] || fail "#11: results.jsonl lost a record"
python3 - sweep_torn/results.jsonl <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1])]
for r in records:
    if r["status"] == "ok":
        r["throughput"] = "fast"
open(sys.argv[1], "w").write("".join(json.dumps(r) + "\n" for r in records))
PY
expect 0 "results.jsonl:2 is not a whole result; it is run again" -- "$clpart" "${sweep_args[@]}"
expect 2 "--devices ',' names no device" -- "$clpart" sweep "$pso" -s pso.topology=ring \
    --devices , --out sweep_none

# 12: report refuses wrong-typed or absurd rates, and one file given twice
bench=$CLPART_DATA_DIR/docs/portability/h200/bench.json
if [ -f "$bench" ]; then
    for rate in '"fast"' -1e308; do
        python3 - "$bench" "$rate" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
b["workloads"][0]["results"][0]["default"]["throughput"] = json.loads(sys.argv[2])
json.dump(b, open("bad_bench.json", "w"))
PY
        expect 1 "workload sph-dam-break-3d-1M, result 0: not a whole result" -- \
            "$clpart" report bad_bench.json --out report_bad
    done
    expect 2 "hold the same bench: give each once" -- "$clpart" report "$bench" "$bench" \
        --out report_twice
fi

# 13: a full disk is an error, not a truncated output passed off as complete
if [ -w /dev/full ]; then
    expect 1 "cannot write standard output: No space left on device" -- \
        sh -c "\"$clpart\" source \"$pso\" >/dev/full"
fi

# 14: a case file named "...json" writes into out/case, not into the folder above out/
mkdir -p dots && cp "$cases/dam_break_2d.json" dots/...json
(cd dots && "$clpart" run ...json --steps 2 >/dev/null 2>&1) || fail "#14: ...json did not run"
[ -f dots/out/case/summary.json ] && [ ! -e dots/summary.json ] && [ ! -e dots/out/summary.json ] ||
    fail "#14: the outputs of ...json are not in out/case: $(find dots)"

# 15: a cache folder pointed at a user's folder leaves its files alone: a user's "stats" was
# overwritten by every run and removed by cache clear, which said "removed 0 entries"
mkdir -p mine && echo "my notes" >mine/stats
out=$(env -u CLPART_NO_CACHE CLPART_CACHE_DIR="$work/mine" "$clpart" build "$pso" 2>&1) ||
    fail "#15: build failed: $out"
grep -q "holds files clpart did not make (such as 'stats')" <<<"$out" ||
    fail "#15: no warning for a user's folder: $out"
expect 1 "cache folder .*/mine cannot be cleared: it holds files clpart did not make" -- \
    env -u CLPART_NO_CACHE CLPART_CACHE_DIR="$work/mine" "$clpart" cache clear
[ "$(cat mine/stats)" = "my notes" ] && [ "$(ls -A mine)" = "stats" ] ||
    fail "#15: the user's folder changed: $(ls -A mine)"
mkdir -p fresh
env -u CLPART_NO_CACHE CLPART_CACHE_DIR="$work/fresh" "$clpart" build "$pso" >/dev/null 2>&1 ||
    fail "#15: a fresh cache"
grep -q "created by clpart" fresh/CACHEDIR.TAG 2>/dev/null || fail "#15: no CACHEDIR.TAG in a new cache"

# 16, 17: options and flags that would change nothing are refused
expect 2 "sph.kernel is an option of module sph, which model pso does not take" -- \
    "$clpart" run "$pso" -s sph.kernel=cubic --steps 2 --out pso_kernel
expect 2 "sph.kernel is an option of module sph, which model pso does not take" -- \
    "$clpart" sweep "$pso" -s sph.kernel=cubic,wendland --steps 2 --out sweep_kernel
expect 2 "--weights shares a case out among the devices of --devices" -- \
    "$clpart" run "$cases/dam_break_2d.json" --weights 1,2 --steps 2 --out weights
expect 2 "--devices '' names no split" -- \
    "$clpart" run "$cases/dam_break_2d.json" --devices "" --steps 2 --out no_devices
one=$(POCL_DEVICES=pthread devices_of pocl)
POCL_DEVICES=pthread expect 0 "names device $one \\(.*\\) more than once: its ranks share it" -- \
    "$clpart" run "$cases/dam_break_2d.json" --devices "$one,$one" --steps 2 --out shared
# every device of an implementation that no machine has: refused, whatever the machine has
none_such="all:no-such-device"
expect 1 "--devices '$none_such' names no device" -- \
    "$clpart" run "$cases/dam_break_2d.json" --devices "$none_such" --steps 2 --out none
expect 1 "--devices '$none_such' names no device" -- \
    "$clpart" sweep "$pso" -s pso.topology=ring --devices "$none_such" --out sweep_none2
expect 2 "-s pso.topology lists 'global' twice" -- \
    "$clpart" sweep "$pso" -s pso.topology=global,global --steps 2 --out sweep_twice

# 18: a shorter run into the folder of a longer one leaves none of the longer one's snapshots
# beside its index
"$clpart" run "$cases/dam_break_2d.json" --time 0.02 --out stale >/dev/null 2>&1 ||
    fail "#18: the longer run failed"
"$clpart" run "$cases/dam_break_2d.json" --steps 2 --out stale >/dev/null 2>&1 ||
    fail "#18: the shorter run failed"
listed=$(grep -o 'particles_[0-9]*\.vtp' stale/particles.pvd | sort | tr '\n' ' ')
held=$(cd stale && ls particles_*.vtp | sort | tr '\n' ' ')
[ "$listed" = "$held" ] || fail "#18: particles.pvd lists '$listed', the folder holds '$held'"

# 19: a folder given as a file says so
mkdir -p folder
for command in run source sweep; do
    expect 1 "folder is a folder, not a file" -- "$clpart" $command folder
done

[ "$failures" -eq 0 ] || exit 1
echo "hostile inputs: all checks passed"

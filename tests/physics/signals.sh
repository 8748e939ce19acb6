#!/usr/bin/env bash
# SIGINT and SIGTERM during clpart run lose nothing. The first signal ends the current step:
# an SPH run writes a checkpoint, and a restart from it in the same folder ends bit for bit
# where an uninterrupted run ends, every output file included (but run.json, which records
# each run's own command and times, and summary.json's seconds); LJ, PSO and repulsive runs
# write their outputs so far with summary.json marked as interrupted. The exit status is 128
# plus the signal's number; a second signal ends the process at once.
set -uo pipefail
clpart=$1
cases=$CLPART_DATA_DIR/cases
. "$(dirname "$0")/../cli/common.sh"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT

# signal_when_rows SIGNAL FILE ROWS -- clpart arguments...: starts the run, sends SIGNAL once
# FILE has ROWS lines, and sets $status to the exit status and $log to stderr's file.
signal_when_rows() {
    local signal=$1 file=$2 rows=$3
    shift 4
    log=$work/$(basename "$(dirname "$file")").log
    "$clpart" "$@" 2>"$log" >/dev/null &
    local pid=$! waited=0
    until [ "$(wc -l 2>/dev/null <"$file" || echo 0)" -ge "$rows" ]; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
        waited=$((waited + 1))
        [ "$waited" -lt 6000 ] || { kill -KILL "$pid"; break; }
    done
    kill "-$signal" "$pid" 2>/dev/null
    wait "$pid"
    status=$?
}

# SPH: the 2D dam break, uninterrupted in a/, stopped by SIGTERM and restarted in b/.
"$clpart" run "$cases/dam_break_2d.json" --out "$work/a" 2>/dev/null >/dev/null ||
    fail "the uninterrupted dam break failed"
signal_when_rows TERM "$work/b/diagnostics.csv" 4 -- run "$cases/dam_break_2d.json" --out "$work/b"
[ "$status" -eq 143 ] || fail "SIGTERM: exit status $status, expected 143: $(cat "$log")"
grep -q "interrupted by SIGTERM: stopped at step [0-9]*, t = .* checkpoint written to $work/b/checkpoint.ckpt" "$log" ||
    fail "SIGTERM: no message saying where the run stopped: $(cat "$log")"
[ -s "$work/b/checkpoint.ckpt" ] || fail "SIGTERM: no checkpoint"
stopped=$(sed -n 's/.*stopped at step \([0-9]*\),.*/\1/p' "$log")
"$clpart" run "$cases/dam_break_2d.json" --out "$work/b" --restart "$work/b/checkpoint.ckpt" \
    2>/dev/null >/dev/null || fail "the restart after SIGTERM failed"
differing=$(same_outputs "$work/a" "$work/b") ||
    fail "after SIGTERM at step $stopped and a restart, these differ: $differing"
[ "$(ls "$work/a" | wc -l)" -eq "$(ls "$work/b" | wc -l)" ] || fail "the folders hold different files"
echo "SPH: SIGTERM at step $stopped, restarted: $(ls "$work/a" | wc -l) files identical to the uninterrupted run's"

# SIGINT alone: status 130. A second signal ends the process at once, before the current
# step and its checkpoint: SIGTERM and SIGINT back to back, which the kernel cannot merge
# into one as it would two of a kind (the lower number may come first: either status).
signal_when_rows INT "$work/c/diagnostics.csv" 2 -- run "$cases/dam_break_2d.json" --out "$work/c"
[ "$status" -eq 130 ] || fail "SIGINT: exit status $status, expected 130: $(cat "$log")"
grep -q "interrupted by SIGINT" "$log" || fail "SIGINT: no message: $(cat "$log")"
"$clpart" run "$cases/dam_break_2d.json" --out "$work/d" 2>"$work/d.log" >/dev/null &
pid=$!
until [ -s "$work/d/diagnostics.csv" ] || ! kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
kill -TERM "$pid"
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" -eq 130 ] || [ "$status" -eq 143 ] || fail "two signals: exit status $status"
grep -q "second signal: stopping at once" "$work/d.log" || fail "two signals: $(cat "$work/d.log")"
[ ! -e "$work/d/checkpoint.ckpt" ] || fail "two signals: the run went on to a checkpoint"
echo "SPH: SIGINT exits 130; a second signal ends the run at once (status $status)"

# LJ: diagnostics up to the step reached, and a summary marked as interrupted.
signal_when_rows INT "$work/lj/diagnostics.csv" 3 -- run "$cases/lj_liquid_small.json" --out "$work/lj"
[ "$status" -eq 130 ] || fail "LJ, SIGINT: exit status $status, expected 130: $(cat "$log")"
python3 - "$work/lj" <<'PY' || fail "LJ: outputs after SIGINT are wrong"
import json, sys
rows = [line.split(",") for line in open(sys.argv[1] + "/diagnostics.csv").read().splitlines()[1:]]
summary = json.load(open(sys.argv[1] + "/summary.json"))
assert summary["interrupted"] is True, summary
assert 0 < summary["steps"] < 2000 and int(rows[-1][0]) == summary["steps"], (summary, rows[-1])
assert summary["total"] == float(rows[-1][4]), (summary, rows[-1])
print(f"LJ: SIGINT at step {summary['steps']}, {len(rows)} rows, summary marked interrupted")
PY

# PSO: the history up to the iteration reached, the best so far, a summary marked as such.
python3 - "$cases/pso_rastrigin.json" "$work/pso.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
case["pso"]["iterations"] = 10 ** 7
json.dump(case, open(sys.argv[2], "w"))
PY
signal_when_rows TERM "$work/pso/convergence.csv" 3 -- run "$work/pso.json" --out "$work/pso"
[ "$status" -eq 143 ] || fail "PSO, SIGTERM: exit status $status, expected 143: $(cat "$log")"
python3 - "$work/pso" <<'PY' || fail "PSO: outputs after SIGTERM are wrong"
import json, sys
rows = [line.split(",") for line in open(sys.argv[1] + "/convergence.csv").read().splitlines()[1:]]
summary = json.load(open(sys.argv[1] + "/summary.json"))
best = open(sys.argv[1] + "/best.csv").read().splitlines()[1:]
assert summary["interrupted"] is True, summary
assert len(rows) == summary["steps"] + 1 and int(rows[-1][0]) == summary["steps"]
assert summary["best"] == float(rows[-1][1]) and len(best) == 10, (summary, rows[-1])
print(f"PSO: SIGTERM after iteration {summary['steps']}, best {summary['best']:.4g}, marked interrupted")
PY

# Repulsive particles: the design at the step reached, stopped_by "request".
signal_when_rows TERM "$work/rep/energy.csv" 3 -- run "$cases/repulsive_1000_5d.json" --out "$work/rep"
[ "$status" -eq 143 ] || fail "repulsive, SIGTERM: exit status $status, expected 143: $(cat "$log")"
python3 - "$work/rep" <<'PY' || fail "repulsive: outputs after SIGTERM are wrong"
import json, sys
rows = [line.split(",") for line in open(sys.argv[1] + "/energy.csv").read().splitlines()[1:]]
summary = json.load(open(sys.argv[1] + "/summary.json"))
design = open(sys.argv[1] + "/design.csv").read().splitlines()[1:]
assert summary["interrupted"] is True and summary["stopped_by"] == "request", summary
assert int(rows[-1][0]) == summary["steps"] < 3000 and len(design) == 1000, (summary, rows[-1])
print(f"repulsive: SIGTERM at step {summary['steps']}, design written, stopped_by request")
PY

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all signal checks passed"

#!/usr/bin/env bash
# clpart sweep on the default device: the product of two options' values on the small dam
# break, a combination the options refuse recorded with its reason while the sweep goes on,
# a rerun that runs nothing already recorded, each record's diagnostics equal to those of a
# separate clpart run of the same combination, summaries that list every combination, and a
# sweep stopped by SIGINT that loses nothing and goes on where it stopped.
set -uo pipefail
clpart=$1
tiny=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CLPART_CACHE_DIR=$work/cache
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

out=$("$clpart" sweep "$tiny" -s sph.kernel=wendland,cubic -s sph.shifting_coefficient=2,-1 \
    --steps 5 --repeat 1 --out "$work/sweep" 2>&1)
[ $? -eq 0 ] || fail "the sweep failed: $out"
grep -q "^done: 4 run, 0 already in $work/sweep/results.jsonl" <<<"$out" || fail "first sweep: $out"
out=$("$clpart" sweep "$tiny" -s sph.kernel=wendland,cubic -s sph.shifting_coefficient=2,-1 \
    --steps 5 --repeat 1 --out "$work/sweep" 2>&1)
grep -q "^done: 0 run, 4 already in" <<<"$out" || fail "the rerun ran again: $out"
"$clpart" run "$tiny" -s sph.kernel=cubic --steps 5 --out "$work/cubic" >/dev/null 2>&1 ||
    fail "the separate run of sph.kernel=cubic failed"

python3 - "$work/sweep" "$work/cubic/diagnostics.csv" <<'PY' || fail "the records are wrong"
import csv, json, sys
records = [json.loads(line) for line in open(sys.argv[1] + "/results.jsonl")]
assert len(records) == 4, f"{len(records)} records, not 4"
by = {(r["options"]["sph.kernel"], r["options"]["sph.shifting_coefficient"]): r for r in records}
for kernel in ("wendland", "cubic"):
    bad = by[(kernel, "-1")]
    assert bad["status"] == "refused", bad
    assert "'sph.shifting_coefficient' = -1 is out of range" in bad["reason"], bad["reason"]
    good = by[(kernel, "2")]
    assert good["status"] == "ok" and good["steps"] == 5 and good["throughput"] > 0, good
    assert good["unit"] == "particle-steps/s" and len(good["runs"]) == 1, good
row = list(csv.DictReader(open(sys.argv[2])))[-1]
mine = by[("cubic", "2")]["diagnostics"]
for name in ("kinetic_energy", "mass", "max_velocity", "front", "excluded"):
    a, b = mine[name], float(row[name])
    assert abs(a - b) <= 1e-12 * max(abs(a), abs(b)), (name, a, b)
assert float(row["step"]) == 5
summary = open(sys.argv[1] + "/summary.md").read()
assert summary.count("| `sph.kernel=") == 4 and summary.count("| ok |") == 2, summary
rows = list(csv.DictReader(open(sys.argv[1] + "/summary.csv")))
assert [r["status"] for r in rows] == ["ok", "ok", "refused", "refused"], rows
assert any(abs(float(r["speedup"]) - 1) < 1e-12 for r in rows), rows
PY
# SIGINT once a combination is recorded: the sweep stops with 128 + 2, every line written is
# whole, and the same sweep again runs only the rest.
dam=$CLPART_DATA_DIR/cases/dam_break_2d.json
"$clpart" sweep "$dam" -s sph.kernel=wendland,cubic -s sph.xsph=false,true --steps 2000 \
    --repeat 1 --out "$work/stopped" >"$work/stopped.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    [ -s "$work/stopped/results.jsonl" ] && break
    sleep 0.1
done
kill -INT "$pid"
wait "$pid"
code=$?
[ "$code" -eq 130 ] || fail "the interrupted sweep exited $code, not 130: $(cat "$work/stopped.log")"
recorded=$(wc -l <"$work/stopped/results.jsonl")
python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$work/stopped/results.jsonl" ||
    fail "results.jsonl holds a partial line after SIGINT"
out=$("$clpart" sweep "$dam" -s sph.kernel=wendland,cubic -s sph.xsph=false,true --steps 2000 \
    --repeat 1 --out "$work/stopped" 2>&1)
grep -q "^done: $((4 - recorded)) run, $recorded already in" <<<"$out" ||
    fail "the sweep did not go on where it stopped ($recorded recorded): $out"

out=$("$clpart" sweep "$tiny" -s sph.kernel=wendland --steps 0 --out "$work/bad" 2>&1)
[ $? -eq 2 ] && grep -q "steps takes a whole number above 0, not '0'" <<<"$out" ||
    fail "--steps 0 was not refused: $out"
[ ! -e "$work/bad" ] || fail "a refused sweep left output behind"

[ "$failures" -eq 0 ] || { echo "$failures sweep check(s) failed"; exit 1; }
echo "all sweep checks passed"

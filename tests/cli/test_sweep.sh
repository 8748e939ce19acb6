#!/usr/bin/env bash
# clpart sweep on the default device: the product of two options' values on the small dam
# break, a combination the options refuse recorded with its reason while the sweep goes on,
# each ok record's samples, median, interval and spread as the timing rule makes them, a rerun
# that runs nothing already recorded, a rerun with other --steps that runs again, each
# record's diagnostics equal to those of a separate clpart run of the same combination,
# summaries that list every combination with its interval and mark the rows whose intervals
# overlap, a sweep stopped by SIGINT that loses nothing and goes on where it stopped, two PoCL
# devices and Oclgrind beside PoCL in one sweep (all on the host's cores: one after the
# other), the same two PoCL devices in a thread each (--parallel: their runs overlap, every
# record is whole and there once, summaries do not depend on the records' order, a SIGINT and
# a failure stop both threads), a failed build recorded with its reason, a --combos list, a
# --max sample, a list of presets, lj.strategy=auto, whose program the run chooses, case
# parameters swept with -c, and a sweep whose every combination is refused (exit 1).
set -uo pipefail
clpart=$1
tiny=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
. "$(dirname "$0")/common.sh"
unset CLPART_NO_CACHE # records say whether each program came from the cache

# At least 3 runs each, more until the spread is within 50 % or 1 s of runs is spent.
first=(sweep "$tiny" -s sph.kernel=wendland,cubic -s sph.shifting_coefficient=2,-1 --steps 5
    --repeat 3 --spread 0.5 --budget 1 --out "$work/sweep")
out=$("$clpart" "${first[@]}" 2>&1)
[ $? -eq 0 ] || fail "the sweep failed: $out"
grep -q "^done: 4 run, 0 already in $work/sweep/results.jsonl.*; 2 of 4 refused or failed$" <<<"$out" ||
    fail "first sweep: $out"
out=$("$clpart" "${first[@]}" 2>&1)
grep -q "^done: 0 run, 4 already in" <<<"$out" || fail "the rerun ran again: $out"
if command -v gnuplot >/dev/null 2>&1 || [ "${CI:-}" = true ]; then # CI installs it
    [ "$(head -c 8 "$work/sweep/summary.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
        fail "summary.png is not a PNG file"
fi
"$clpart" run "$tiny" -s sph.kernel=cubic --steps 5 --out "$work/cubic" >/dev/null 2>&1 ||
    fail "the separate run of sph.kernel=cubic failed"

python3 - "$work/sweep" "$work/cubic/diagnostics.csv" "$CLPART_DATA_DIR/tolerances/sph.json" <<'PY' || fail "the records are wrong"
import csv, json, math, statistics, sys
records = [json.loads(line) for line in open(sys.argv[1] + "/results.jsonl")]
assert len(records) == 4, f"{len(records)} records, not 4"
by = {(r["options"]["sph.kernel"], r["options"]["sph.shifting_coefficient"]): r for r in records}
def interval(runs):
    """The order statistics [x(k), x(n+1-k)] of the median at >= 95 % (k = 1 below that)."""
    x, n, k = sorted(runs), len(runs), 1
    while 2 * (k + 1) <= n + 1 and 2 * sum(math.comb(n, j) for j in range(k + 1)) / 2 ** n <= 0.05:
        k += 1
    return x[k - 1], x[n - k]
summary = open(sys.argv[1] + "/summary.md").read()
for kernel in ("wendland", "cubic"):
    bad = by[(kernel, "-1")]
    assert bad["status"] == "refused", bad
    assert "'sph.shifting_coefficient' = -1 is out of range" in bad["reason"], bad["reason"]
    good = by[(kernel, "2")]
    assert good["status"] == "ok" and good["steps"] == 5 and good["throughput"] > 0, good
    assert good["unit"] == "particle-steps/s", good
    runs = good["runs"]
    assert 3 <= good["samples"] == len(runs) <= 64, good
    assert good["timing"] == {"min_repeat": 3, "spread_target": 0.5, "budget_seconds": 1.0}, good
    assert good["limits"] == {"max_steps": 5, "max_time": 0.0}, good
    assert good["throughput"] == statistics.median(runs), good
    assert (good["throughput_min"], good["throughput_max"]) == (min(runs), max(runs)), good
    low, high = interval(runs)
    assert (good["throughput_low"], good["throughput_high"]) == (low, high), good
    spread = (high - low) / statistics.median(runs)
    assert abs(good["spread"] - spread) <= 1e-12 * spread, good
    # stable within the target; else the budget (the next run would end past 1 s) or the cap
    if good["stable"]:
        assert spread <= 0.5, good
    else:
        n, t = good["samples"], good["timed_seconds"]
        assert spread > 0.5 and (n == 64 or t + t / n > 1), good
    assert f"{low:.4g} to {high:.4g}" in summary, (low, high, summary)
row = list(csv.DictReader(open(sys.argv[2])))[-1]
mine = by[("cubic", "2")]["diagnostics"]
for name in ("kinetic_energy", "mass", "max_velocity", "front", "excluded"):
    a, b = mine[name], float(row[name])
    assert abs(a - b) <= 1e-12 * max(abs(a), abs(b)), (name, a, b)
assert float(row["step"]) == 5
# the physics column: cubic against wendland, each final diagnostic within its tolerance of
# tolerances/sph.json or not, by the test's own arithmetic
tolerances = json.load(open(sys.argv[3]))
quantities = tolerances["files"]["diagnostics.csv"]["quantities"]
reference = by[("wendland", "2")]["diagnostics"]
beyond = []
for name, value in mine.items():
    if name in tolerances["ignore"]:
        continue
    t = {**tolerances["default"], **quantities.get(name, {})}
    if abs(value - reference[name]) > t.get("abs", 0) + t["rel"] * max(abs(value), abs(reference[name])):
        beyond.append(name)
physics = {r["options"]: r["physics"] for r in csv.DictReader(open(sys.argv[1] + "/summary.csv"))}
cubic = physics["sph.kernel=cubic sph.shifting_coefficient=2"]
assert physics["sph.kernel=wendland sph.shifting_coefficient=2"] == "the reference", physics
assert (cubic == "no physical change") == (not beyond), (cubic, beyond)
assert all(name in cubic for name in beyond[:2]), (cubic, beyond)
assert summary.count("| `sph.kernel=") == 4 and summary.count("| ok") == 2, summary
assert "Each combination: 5 steps, a one-step warm-up, then at least 3 timed runs" in summary
assert "at most 50 % or 1 s of timed runs" in summary, summary
rows = list(csv.DictReader(open(sys.argv[1] + "/summary.csv")))
assert [r["status"] for r in rows] == ["ok", "ok", "refused", "refused"], rows
assert any(abs(float(r["speedup"]) - 1) < 1e-12 for r in rows), rows
for r in rows[:2]:
    record = by[tuple(r["options"].replace("sph.kernel=", "").split(" sph.shifting_coefficient="))]
    assert float(r["throughput_low"]) == float(f'{record["throughput_low"]:.6g}'), (r, record)
    assert int(r["samples"]) == record["samples"], (r, record)
PY
# A rerun with other --steps runs every combination again, and its summary says so.
out=$("$clpart" "${first[@]}" --steps 6 2>&1)
grep -q "^done: 4 run, 0 already in" <<<"$out" || fail "the rerun with --steps 6 did not run: $out"
grep -q "^Each combination: 6 steps" "$work/sweep/summary.md" ||
    fail "summary.md does not state the steps: $(head -3 "$work/sweep/summary.md")"
# Intervals set by hand in the records: the second row's reaches the first's, and is marked;
# one apart from the other, and no row is; the unstable record says so.
for case in overlap apart; do
    mkdir -p "$work/$case"
    python3 - "$work/sweep/results.jsonl" "$work/$case/results.jsonl" $case <<'PY'
import json, sys
records = [json.loads(l) for l in open(sys.argv[1])]
records = [r for r in records if r["limits"]["max_steps"] == 5]
fast, slow = [r for r in records if r["status"] == "ok"]
fast.update(throughput=100.0, throughput_low=90.0, throughput_high=110.0, spread=0.2, stable=False,
            samples=12, timed_seconds=0.75)
slow.update(throughput=95.0, throughput_low=85.0, throughput_high=105.0, stable=True)
if sys.argv[3] == "apart":
    slow.update(throughput=55.0, throughput_low=50.0, throughput_high=60.0)
open(sys.argv[2], "w").writelines(json.dumps(r) + "\n" for r in records)
PY
    out=$("$clpart" "${first[@]}" --out "$work/$case" 2>&1)
    grep -q "^done: 0 run, 4 already in" <<<"$out" || fail "the $case rerun ran: $out"
done
grep -q '^| 2 ≈ | `sph.kernel=' "$work/overlap/summary.md" &&
    grep -q "^The order of rows 1 to 2 is within their spread" "$work/overlap/summary.md" ||
    fail "overlapping intervals are not marked: $(cat "$work/overlap/summary.md")"
! grep -q "≈" "$work/apart/summary.md" || fail "intervals apart are marked: $(cat "$work/apart/summary.md")"
grep -q "^| 1 | .* | ok, unstable: spread 20 % over 12 samples in 0.75 s (target 50 %, budget spent) | 100 " \
    "$work/apart/summary.md" || fail "no unstable note: $(cat "$work/apart/summary.md")"
# SIGINT once a combination is recorded: the sweep stops with 128 + 2, every line written is
# whole, and the same sweep again runs only the rest.
dam=$CLPART_DATA_DIR/cases/dam_break_2d.json
"$clpart" sweep "$dam" -s sph.kernel=wendland,cubic -s sph.xsph=false,true --steps 2000 \
    --repeat 1 --budget 0 --out "$work/stopped" >"$work/stopped.log" 2>&1 &
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
    --repeat 1 --budget 0 --out "$work/stopped" 2>&1)
grep -q "^done: $((4 - recorded)) run, $recorded already in" <<<"$out" ||
    fail "the sweep did not go on where it stopped ($recorded recorded): $out"

# Several devices in one sweep: two PoCL devices, then Oclgrind as a second platform beside
# PoCL (a vendors folder of our own: nothing is registered system-wide). Each device has its
# records, and the devices agree on the physics.
check_devices() { # DIR DEVICES TOLERANCE
    python3 - "$@" <<'PY'
import json, sys
records = [json.loads(line) for line in open(sys.argv[1] + "/results.jsonl")]
devices = sorted({r["device"]["index"] for r in records})
assert len(devices) == int(sys.argv[2]), devices
assert all(r["status"] == "ok" for r in records), records
by = {}
for r in records:
    by.setdefault(r["options"]["sph.kernel"], []).append(r["diagnostics"])
for kernel, runs in by.items():
    assert len(runs) == len(devices), (kernel, runs)
    for name, value in runs[0].items():
        other = runs[1][name]
        assert abs(value - other) <= float(sys.argv[3]) * max(abs(value), abs(other), 1e-30), \
            (kernel, name, value, other)
summary = open(sys.argv[1] + "/summary.md").read()
assert summary.count("## Device ") == len(devices), summary
# the devices side by side: within the tolerances (docs/compare.md) where they agree so
across = summary[summary.index("## Across devices"):]
for kernel in by:
    row = next(line for line in across.splitlines() if f"`sph.kernel={kernel}`" in line)
    assert row.count("no physical change") == len(devices) - 1, row
PY
}
# The PoCL devices' indices among all the platforms' devices (a GPU's platform may come first).
export POCL_DEVICES="pthread pthread"
two=$(devices_of pocl)
"$clpart" sweep "$tiny" -s sph.kernel=wendland,cubic --devices "$two" --steps 3 --repeat 1 --budget 0 \
    --out "$work/two" >"$work/two.log" 2>&1 || fail "the sweep on two PoCL devices ($two) failed"
check_devices "$work/two" 2 1e-12 || fail "the two PoCL devices' records are wrong"
# Both are CPU devices: one thread runs them one after the other.
grep -q "^clpart: 2 devices, 1 thread: \[${two/,/, }\]" "$work/two.log" ||
    fail "two CPU devices are not in one thread: $(head -1 "$work/two.log")"
# records DIR COUNT OVERLAP: every line a whole record, each (options, device) once, COUNT
# in all; OVERLAP yes when some run of one device overlaps in time a run of another, no when
# none does (a run: from its "started" for its "seconds").
records() {
    python3 - "$@" <<'PY'
import json, sys
lines = open(sys.argv[1] + "/results.jsonl").read().split("\n")
assert lines[-1] == "", "the last line is not ended"
records = [json.loads(line) for line in lines[:-1]]
keys = [(json.dumps(r["options"], sort_keys=True), r["device"]["index"]) for r in records]
assert len(keys) == len(set(keys)) == int(sys.argv[2]), keys
runs = [(r["device"]["index"], r["started"], r["started"] + r["seconds"]) for r in records]
overlap = any(a[0] != b[0] and a[1] < b[2] and b[1] < a[2] for a in runs for b in runs)
assert overlap == (sys.argv[3] == "yes"), runs
PY
}
records "$work/two" 4 no || fail "the two CPU devices' runs overlap in time"
# --parallel: a thread each. The case runs longer (an end time of 100 s, not 4 ms) so that a
# run of 2000 steps takes some 0.3 s; both threads store the same programs in a cache of their own, which
# then holds one whole entry per program (a third sweep finds all of them).
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["end_time"]=100.0; json.dump(c,open(sys.argv[2],"w"))' \
    "$tiny" "$work/long.json"
"$clpart" --cache-dir "$work/threads-cache" sweep "$work/long.json" -s sph.kernel=wendland,cubic \
    --devices "$two" --parallel --steps 2000 --repeat 1 --budget 0 --out "$work/parallel" \
    >"$work/parallel.log" 2>&1 || fail "the --parallel sweep failed: $(tail -3 "$work/parallel.log")"
grep -q "^clpart: 2 devices, 2 threads: \[${two%,*}\] \[${two#*,}\]" "$work/parallel.log" ||
    fail "--parallel did not give a thread each: $(head -1 "$work/parallel.log")"
records "$work/parallel" 4 yes || fail "the --parallel records are wrong or did not overlap"
check_devices "$work/parallel" 2 1e-12 || fail "the --parallel devices disagree"
[ "$("$clpart" --cache-dir "$work/threads-cache" cache list --json |
    python3 -c 'import json,sys; print(len(json.load(sys.stdin)["entries"]))')" = 2 ] ||
    fail "the threads' cache does not hold one entry per program"
"$clpart" --cache-dir "$work/threads-cache" sweep "$work/long.json" -s sph.kernel=wendland,cubic \
    --devices "$two" --parallel --steps 2 --repeat 1 --budget 0 --out "$work/parallel-hits" >/dev/null 2>&1
python3 -c 'import json,sys; assert all(json.loads(l)["cache_hit"] for l in open(sys.argv[1]))' \
    "$work/parallel-hits/results.jsonl" || fail "a program the threads stored does not load"
# The summaries follow the devices and combinations, not the order in which the threads
# wrote: the records reversed give the same summaries, and the rerun runs nothing.
mkdir -p "$work/reversed" && tac "$work/parallel/results.jsonl" >"$work/reversed/results.jsonl"
out=$("$clpart" sweep "$work/long.json" -s sph.kernel=wendland,cubic --devices "$two" --serial \
    --steps 2000 --repeat 1 --budget 0 --out "$work/reversed" 2>&1)
grep -q "^done: 0 run, 4 already in" <<<"$out" || fail "the rerun of the --parallel sweep ran: $out"
for f in summary.md summary.csv; do
    cmp -s "$work/parallel/$f" "$work/reversed/$f" || fail "$f depends on the records' order"
done
# SIGINT stops both threads in their runs (some 30 s each): 130 within seconds, nothing
# half-written.
"$clpart" sweep "$work/long.json" -s sph.kernel=wendland,cubic --devices "$two" --parallel \
    --steps 200000 --repeat 1 --budget 0 --out "$work/parallel-stopped" >"$work/parallel-stopped.log" 2>&1 &
pid=$!
sleep 1.5
kill -INT "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "the threads did not stop within 10 s of SIGINT"; }
wait "$pid"
code=$?
[ "$code" -eq 130 ] || fail "the interrupted --parallel sweep exited $code, not 130"
[ ! -s "$work/parallel-stopped/results.jsonl" ] ||
    fail "the interrupted --parallel sweep recorded a run that it stopped"
grep -q "^clpart: interrupted: 0 combinations recorded" "$work/parallel-stopped.log" ||
    fail "the interrupted --parallel sweep says: $(tail -1 "$work/parallel-stopped.log")"
# A failure in one thread (results.jsonl cannot be written: it is a folder) stops the other
# after its current run, and is reported once.
mkdir -p "$work/unwritable/results.jsonl"
out=$(timeout 60 "$clpart" sweep "$work/long.json" -s sph.kernel=wendland,cubic --devices "$two" \
    --parallel --steps 200 --repeat 1 --budget 0 --out "$work/unwritable" 2>&1)
code=$?
[ "$code" -eq 1 ] && [ "$(grep -c '^clpart: error: ' <<<"$out")" -eq 1 ] &&
    grep -q "^clpart: error: cannot append to $work/unwritable/results.jsonl: Is a directory" <<<"$out" ||
    fail "a failing thread was not reported once with exit 1 ($code): $out"
unset POCL_DEVICES
# Oclgrind as a second platform, through a vendors folder of our own holding PoCL's ICD file.
pocl_icd=$(ls "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"/*pocl*.icd 2>/dev/null | head -1)
if [ -f /usr/lib/oclgrind/liboclgrind-rt-icd.so ] && [ -n "$pocl_icd" ]; then
    vendors=$work/vendors
    mkdir -p "$vendors" && cp "$pocl_icd" "$vendors/" &&
        echo /usr/lib/oclgrind/liboclgrind-rt-icd.so >"$vendors/oclgrind.icd"
    pair=$(OCL_ICD_VENDORS=$vendors devices_of pocl oclgrind)
    OCL_ICD_VENDORS=$vendors "$clpart" sweep "$tiny" -s sph.kernel=wendland,cubic --devices "$pair" \
        --steps 2 --repeat 1 --budget 0 --out "$work/oclgrind" >"$work/oclgrind.log" 2>&1 ||
        fail "the sweep on Oclgrind and PoCL failed: $(tail -3 "$work/oclgrind.log")"
    grep -q "Oclgrind" "$work/oclgrind/summary.md" || fail "Oclgrind is not in the summary"
    check_devices "$work/oclgrind" 2 1e-4 || fail "Oclgrind's and PoCL's records are wrong"
    # Oclgrind says it is a GPU, but it simulates one on the host's cores: one thread.
    grep -q "^clpart: 2 devices, 1 thread: \[0, 1\]" "$work/oclgrind.log" ||
        fail "Oclgrind and PoCL are not in one thread: $(head -1 "$work/oclgrind.log")"
    records "$work/oclgrind" 4 no || fail "Oclgrind's and PoCL's runs overlap in time"
elif [ "${CI:-}" = true ]; then
    fail "Oclgrind or PoCL's ICD file is missing (tools/install-deps installs both)"
else
    echo "skipped: Oclgrind beside PoCL (Oclgrind or PoCL's ICD file is not installed)"
fi

# A combination whose build fails is recorded with the compiler's reason, and the sweep goes
# on: a user objective with an array of size 1 - 2 CLP_PSO_TOPOLOGY, negative (an error) only
# under pso.topology=ring.
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["pso"]["objective"]["expression"]="X(0) * X(0) + 0.0f * (float)sizeof(char[1 - 2 * CLP_PSO_TOPOLOGY])"; c["pso"]["iterations"]=20; json.dump(c,open(sys.argv[2],"w"))' \
    "$CLPART_DATA_DIR/cases/pso_user.json" "$work/pso_broken.json"
"$clpart" sweep "$work/pso_broken.json" -s pso.topology=ring,global --repeat 1 --budget 0 --out "$work/broken" \
    >"$work/broken.log" 2>&1 || fail "the sweep with a failing build stopped: $(tail -3 "$work/broken.log")"
python3 - "$work/broken/results.jsonl" <<'PY' || fail "the failed build is not recorded as such"
import json, sys
records = {r["options"]["pso.topology"]: r for r in map(json.loads, open(sys.argv[1]))}
assert records["global"]["status"] == "ok", records["global"]
assert records["ring"]["status"] == "build failed", records["ring"]
assert "negative" in records["ring"]["reason"] or "error" in records["ring"]["reason"], records["ring"]
PY

# A hand-made list of option sets (--combos), one of them refused; a random sample of a
# product (--max) that keeps the reference; presets as a list (-p).
echo '[{"sph.kernel": "cubic", "sph.xsph": true}, {"sph.delta": 0.05}, {"sph.delta": -3}]' \
    >"$work/combos.json"
"$clpart" sweep "$tiny" --combos "$work/combos.json" --steps 3 --repeat 1 --budget 0 --out "$work/combos" \
    >/dev/null 2>&1 || fail "the --combos sweep failed"
"$clpart" sweep "$tiny" -s sph.kernel=wendland,cubic -s sph.delta=0.1,0.05,0.02 --max 3 --seed 7 \
    --steps 3 --repeat 1 --budget 0 --out "$work/sampled" >/dev/null 2>&1 || fail "the sampled sweep failed"
# Both presets refused (clpart selftest runs the self-test; nosuch is none): exit 1 once
# the records are written.
out=$("$clpart" sweep "$CLPART_DATA_DIR/cases/selftest.json" -p tiny,nosuch --out "$work/presets" 2>&1)
[ $? -eq 1 ] && [ "$(grep -c '^clpart: error: ' <<<"$out")" -eq 1 ] &&
    grep -q "^clpart: error: no combination ran: all 2 were refused or failed" <<<"$out" ||
    fail "the preset sweep did not fail as it should: $out"
python3 - "$work" <<'PY' || fail "the --combos, --max or -p records are wrong"
import json, sys
read = lambda name: [json.loads(l) for l in open(f"{sys.argv[1]}/{name}/results.jsonl")]
combos = read("combos")
assert [r["options"] for r in combos] == [{"sph.kernel": "cubic", "sph.xsph": "true"},
                                          {"sph.delta": "0.05"}, {"sph.delta": "-3"}], combos
assert [r["status"] for r in combos] == ["ok", "ok", "refused"], combos
sampled = read("sampled")
assert len(sampled) == 3, sampled
assert sampled[0]["options"] == {"sph.kernel": "wendland", "sph.delta": "0.1"}, sampled[0]
assert len({json.dumps(r["options"], sort_keys=True) for r in sampled}) == 3, sampled
presets = {r["options"]["preset"]: r for r in read("presets")}
assert "nosuch" in presets["nosuch"]["reason"], presets["nosuch"]
assert "clpart selftest" in presets["tiny"]["reason"], presets["tiny"]
PY

# lj.strategy=auto: the run chooses its program by timing, so the sweep builds nothing first;
# the chosen strategy gives the physics of a named one.
"$clpart" sweep "$CLPART_DATA_DIR/cases/lj_liquid_small.json" -s lj.strategy=auto,par_part \
    --steps 20 --repeat 1 --budget 0 --out "$work/auto" >/dev/null 2>&1 || fail "the lj.strategy sweep failed"
python3 - "$work/auto/results.jsonl" <<'PY' || fail "the lj.strategy=auto record is wrong"
import json, sys
by = {json.loads(l)["options"]["lj.strategy"]: json.loads(l) for l in open(sys.argv[1])}
auto, named = by["auto"], by["par_part"]
assert auto["status"] == "ok" and named["status"] == "ok", (auto, named)
assert auto["program"] == "chosen by the run" and "build_seconds" not in auto, auto
assert "program" not in named and named["build_seconds"] >= 0, named
for name in ("total", "kinetic", "potential"):
    a, b = auto["diagnostics"][name], named["diagnostics"][name]
    assert abs(a - b) <= 1e-4 * abs(b), (name, a, b)
PY

# -c: the case's number of points swept (each a patched case in DIR/cases); a repulsive step
# takes N (N - 1) interactions. A key the case loader does not know is refused with its
# reason, and, with every combination refused, the sweep exits 1.
"$clpart" sweep "$CLPART_DATA_DIR/cases/repulsive_24_2d.json" -c repulsive.points=24,40 \
    -c repulsive.start='"latin"' --steps 10 --repeat 2 --budget 0 --out "$work/points" \
    >"$work/points.log" 2>&1 || fail "the -c sweep failed: $(tail -3 "$work/points.log")"
python3 - "$work/points" <<'PY' || fail "the -c records are wrong"
import json, sys
records = [json.loads(l) for l in open(sys.argv[1] + "/results.jsonl")]
assert [r["case_parameters"] for r in records] == [
    {"repulsive.points": 24, "repulsive.start": "latin"},
    {"repulsive.points": 40, "repulsive.start": "latin"}], records
for r in records:
    n = r["case_parameters"]["repulsive.points"]
    assert r["status"] == "ok" and r["work"] == n * (n - 1) * r["steps"] and r["steps"] == 10, r
    assert r["base_case"].endswith("cases/repulsive_24_2d.json"), r
    case = json.load(open(r["case"]))
    assert r["case"].startswith(sys.argv[1] + "/cases/") and case["repulsive"]["points"] == n, r
    assert case["repulsive"]["dimensions"] == 2 and case["options"] == {}
assert records[0]["case_hash"] != records[1]["case_hash"], records
assert "| `repulsive.points=40 repulsive.start=\"latin\"` |" in open(sys.argv[1] + "/summary.md").read()
PY
out=$("$clpart" sweep "$CLPART_DATA_DIR/cases/repulsive_24_2d.json" -c repulsive.nosuch=1,2 \
    --steps 2 --repeat 1 --budget 0 --out "$work/nosuch" 2>&1)
[ $? -eq 1 ] && grep -q "^clpart: error: no combination ran: all 2 were refused or failed" <<<"$out" &&
    grep -q "refused: .*unknown key 'repulsive.nosuch'" "$work/nosuch/summary.md" ||
    fail "an unknown case key was not refused: $out"
# Every value invalid: the records are written, then one error and exit 1.
out=$("$clpart" sweep "$tiny" -s sph.kernel=gaussian,quintic --steps 2 --out "$work/invalid" 2>&1)
[ $? -eq 1 ] && [ "$(grep -c '^clpart: error: ' <<<"$out")" -eq 1 ] &&
    grep -q "^clpart: error: no combination ran: all 2 were refused or failed" <<<"$out" &&
    [ "$(wc -l <"$work/invalid/results.jsonl")" -eq 2 ] ||
    fail "a sweep of invalid values did not exit 1 with its records: $out"

out=$("$clpart" sweep "$tiny" -s sph.kernel=wendland --steps 0 --out "$work/bad" 2>&1)
[ $? -eq 2 ] && grep -q "steps takes a whole number above 0, not '0'" <<<"$out" ||
    fail "--steps 0 was not refused: $out"
[ ! -e "$work/bad" ] || fail "a refused sweep left output behind"

[ "$failures" -eq 0 ] || { echo "$failures sweep check(s) failed"; exit 1; }
echo "all sweep checks passed"

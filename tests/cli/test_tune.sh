#!/usr/bin/env bash
# clpart tune on PoCL, with a small Lennard-Jones case that leaves neighbors.mode to the search:
# - the space is what `clpart source` takes of the product of the lists, with neighbors.build
#   left out where neighbors.mode=jit (it changes nothing there), the case's options first;
# - an exhaustive tune measures each combination once, into results.jsonl; the best it reports
#   is the fastest record there; t4-D.json holds every measurement in the T4 schema;
# - run again, it measures nothing; stopped by SIGINT, it exits 130 with whole records, and
#   run again it measures only the rest;
# - --replay: exhaustive order reaches 95 % of the best where the records say; a record missing
#   is an error that names it;
# - a 5-dimensional swarm's space leaves out pso.layout, which is for 3 dimensions;
# - --save writes the best into the user's database, a run then takes it (-v says so), saving
#   again replaces it; --save of a non-performance option is refused before anything runs.
set -uo pipefail
clpart=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
pocl_only
export CLPART_NO_TUNING=1 # the runs compared here at the defaults, whatever databases exist
variant "$(cat "$CLPART_DATA_DIR/cases/lj_liquid_small.json")" "$work/lj.json" \
    steps=20 snapshot_every=0
fixed=(-s grid.key=linear -s grid.sort=counting -s neighbors.format=auto)
lists=(-s lj.strategy=par_part,simd,par_cell -s neighbors.build=auto,simd)
tune=("$clpart" tune "$work/lj.json" "${fixed[@]}" "${lists[@]}" --steps 20 --repeat 3 --budget 0)

# the combinations `clpart source` takes, as tune writes them (the case's own values left out)
expected=$(for strategy in par_part simd par_cell; do
    for mode in list jit; do
        for build in auto simd; do
            [ $mode = jit ] && [ $build = simd ] && continue # the same as build=auto there
            "$clpart" source "$work/lj.json" "${fixed[@]}" -s lj.strategy=$strategy \
                -s neighbors.mode=$mode -s neighbors.build=$build >/dev/null 2>&1 || continue
            set=""
            [ $strategy = par_part ] || set+="lj.strategy=$strategy "
            [ $mode = list ] || set+="neighbors.mode=$mode "
            [ $mode = jit ] || [ $build = auto ] || set+="neighbors.build=$build "
            echo "${set% }"
        done
    done
done | sort)

out=$("${tune[@]}" --strategy exhaustive --out "$work/t" 2>&1) || fail "the tune failed: $out"
python3 - "$work/t" "$expected" <<'PY' || fail "the exhaustive tune: $out"
import json, sys
d, expected = sys.argv[1], sorted(l for l in sys.argv[2].split("\n"))
doc = json.load(open(d + "/tune.json"))
dev = doc["devices"][0]
text = lambda o: " ".join("%s=%s" % kv for kv in sorted(o.items(),
                          key=lambda kv: ["lj.strategy", "neighbors.mode", "neighbors.build"].index(kv[0])))
space = [text(c["options"]) for c in dev["space"]["combinations"]]
assert space[0] == "", space
assert sorted(space) == expected, (space, expected)
records = [json.loads(l) for l in open(d + "/results.jsonl")]
assert len(records) == len(space), len(records)
fixed = {"grid.key": "linear", "grid.sort": "counting", "neighbors.format": "auto"}
for r in records:
    extra = {k: v for k, v in r["options"].items() if k not in fixed}
    assert {k: r["options"][k] for k in fixed} == fixed, r["options"]
    assert text(extra) in space, r["options"]
rate = lambda r: r["throughput"] if r["status"] == "ok" else 0
best = max(records, key=rate)
assert abs(dev["best"]["throughput"] - rate(best)) <= 1e-9 * rate(best), (dev["best"], best)
assert {**fixed, **dev["best"]["options"]} == best["options"], (dev["best"], best["options"])
t4 = json.load(open(d + "/t4-%d.json" % dev["device"]["index"]))
assert t4["schema_version"] == "1.0.0" and len(t4["results"]) == len(space)
for r in t4["results"]:
    assert r["invalidity"] in ("correct", "compile", "runtime", "constraints", "timeout"), r
    assert r["objectives"] == ["throughput"] and set(r["times"]) >= {"compilation_time", "runtimes"}
PY
lines=$(wc -l <"$work/t/results.jsonl")
out=$("${tune[@]}" --strategy exhaustive --out "$work/t" 2>&1) || fail "the second tune failed: $out"
[ "$(wc -l <"$work/t/results.jsonl")" -eq "$lines" ] || fail "the second tune measured again"
grep -q "lj: " <<<"$out" && fail "the second tune ran something: $out"

# replay: exhaustive reaches 95 % of the best at the first such combination in the space's order
out=$("$clpart" tune --replay "$work/t" --seeds 5 2>&1) || fail "the replay failed: $out"
python3 - "$work/t" <<'PY' || fail "the replay: $out"
import json, sys
d = sys.argv[1]
dev = json.load(open(d + "/tune.json"))["devices"][0]
fixed = dev["fixed"]
rates = {}
for l in open(d + "/results.jsonl"):
    r = json.loads(l)
    key = json.dumps({k: v for k, v in r["options"].items() if k not in fixed}, sort_keys=True)
    rates[key] = r["throughput"] if r["status"] == "ok" else 0
order = [rates[json.dumps(c["options"], sort_keys=True)] for c in dev["space"]["combinations"]]
best = max(order)
first = next(i for i, r in enumerate(order) if r >= 0.95 * best) + 1
replay = json.load(open(d + "/replay.json"))["devices"][0]
lines = {s["strategy"]: s for s in replay["strategies"]}
assert set(lines) == {"exhaustive", "random", "anneal", "tpe"}, lines
assert lines["exhaustive"]["median"] == first, (lines["exhaustive"], first)
for s in lines.values():
    assert s["reached"] == 5 and 1 <= s["median"] <= len(order), s
PY
grep -q "| exhaustive |" "$work/t/replay.md" || fail "replay.md lacks the table"
cp -r "$work/t" "$work/torn"
sed -i '2d' "$work/torn/results.jsonl"
expect 1 "holds no measurement of combination" -- "$clpart" tune --replay "$work/torn"

# SIGINT during a tune of longer runs: 130, whole records; the rerun measures only the rest
slow=("${tune[@]}" --strategy exhaustive --out "$work/s" --steps 3000)
"${slow[@]}" >"$work/s.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
    [ -s "$work/s/results.jsonl" ] && break
    sleep 0.1
done
kill -INT $pid
wait $pid
code=$?
[ "$code" -eq 130 ] || fail "a tune stopped by SIGINT exited $code, not 130: $(cat "$work/s.log")"
grep -q "run the same tune again to go on" "$work/s.log" || fail "no word on going on"
before=$(wc -l <"$work/s/results.jsonl")
python3 -c 'import json, sys; [json.loads(l) for l in open(sys.argv[1])]' "$work/s/results.jsonl" ||
    fail "a record is not whole after SIGINT"
out=$("${slow[@]}" 2>&1) || fail "the tune after SIGINT failed: $out"
[ "$(wc -l <"$work/s/results.jsonl")" -eq "$lines" ] ||
    fail "after SIGINT and a rerun: $(wc -l <"$work/s/results.jsonl") records for $lines combinations"
[ "$before" -lt "$lines" ] || fail "SIGINT came after the tune had finished"

# --save into the user's database, taken by a run; saved again: replaced
db=$work/user/tuning.json
out=$(CLPART_TUNING_DB=$db "${tune[@]}" --strategy exhaustive --out "$work/t" --save 2>&1) ||
    fail "--save failed: $out"
grep -qF "saved the entry for model lj at 864 particles in $db" <<<"$out" || fail "--save: $out"
python3 - "$db" "$work/t" <<'PY' || fail "the saved entry"
import json, sys
db = json.load(open(sys.argv[1]))
dev = json.load(open(sys.argv[2] + "/tune.json"))["devices"][0]
assert db["clpart_tuning"] == 1 and len(db["entries"]) == 1, db
e = db["entries"][0]
assert e["model"] == "lj" and e["particles"] == 864 and e["device"]["type"] == "cpu", e
# the best, where its runs are faster than the case's beyond the spread of both and by 3 %
records = {json.dumps(json.loads(l)["options"], sort_keys=True): json.loads(l)
           for l in open(sys.argv[2] + "/results.jsonl")}
rec = lambda o: records[json.dumps({**dev["fixed"], **o}, sort_keys=True)]
b, c = rec(dev["best"]["options"]), rec({})
clear = b["throughput_low"] > c["throughput_high"] and b["throughput"] >= 1.03 * c["throughput"]
best = dev["best"]["options"] if clear else {}
own = {"lj.strategy": "par_part", "neighbors.mode": "list", "neighbors.build": "auto"}
want = {**own, **best}
if want["neighbors.mode"] == "jit":
    del want["neighbors.build"]
assert e["options"] == want, (e["options"], want)
PY
out=$(CLPART_NO_TUNING= CLPART_TUNING_DB=$db "$clpart" -v run "$work/lj.json" --steps 5 \
    --out "$work/run" 2>&1) || fail "the run with the saved entry failed: $out"
grep -qF "from $db, entry 1 (the same device;" <<<"$out" || fail "the run did not take it: $out"
out=$(CLPART_TUNING_DB=$db "${tune[@]}" --strategy exhaustive --out "$work/t" --save 2>&1) ||
    fail "--save again failed: $out"
grep -qF "replaced the entry" <<<"$out" || fail "--save again: $out"
expect 2 "keeps performance options only, and core.summation is not one" -- \
    "${tune[@]}" -s core.summation=naive,kbn --out "$work/p" --save
[ -e "$work/p/results.jsonl" ] && [ -s "$work/p/results.jsonl" ] &&
    fail "the refused --save measured something"

# A 5-dimensional swarm: pso.layout is for 3 dimensions only (its description says so), so
# the space is pso.wide_layout's six values and no combination sets pso.layout.
variant "$(cat "$CLPART_DATA_DIR/cases/pso_rastrigin.json")" "$work/pso.json" \
    pso/dimensions=5 pso/particles=64 pso/iterations=5
expect 1 "pso.layout applies to 3 dimensions and this swarm has 5" -- \
    "$clpart" source "$work/pso.json" -s pso.layout=aos
out=$("$clpart" tune "$work/pso.json" --evaluations 1 --steps 5 --repeat 3 --budget 0 \
    --out "$work/pso_t" 2>&1) || fail "the PSO tune failed: $out"
python3 - "$work/pso_t" <<'PY' || fail "the PSO tune's space: $out"
import json, sys
dev = json.load(open(sys.argv[1] + "/tune.json"))["devices"][0]
space = [c["options"] for c in dev["space"]["combinations"]]
wide = ["naive", "transposed", "chunk2", "chunk4", "chunk8", "chunk16"]
assert space[0] == {} and all(list(c) == ["pso.wide_layout"] for c in space[1:]), space
assert sorted(c["pso.wide_layout"] for c in space[1:]) == sorted(set(wide) - {"chunk4"}), space
PY

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "clpart tune: the space, exhaustive, resume, SIGINT, replay and --save"

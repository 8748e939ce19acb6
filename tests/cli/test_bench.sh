#!/usr/bin/env bash
# clpart bench on the default device with the quick suite, checked against the records it
# wrote: each application efficiency is the default options' rate over the best of the
# workload's records, each architectural efficiency the best record's bytes/s or flop/s
# over the probes, each Φ the harmonic mean; the hand counts of bytes and flops per unit
# (PSO 24 bytes per component update, repulsive 10 D + 12 flops per pair at q = 3, the
# neighbour search's bytes per particle-update from its documented count); the probes' arrays
# sized from the device's cache as `clpart devices` reports it, each probe's min <= avg <=
# max; a rerun that runs nothing again, the probes read back from probes.json: the same probe
# figures and the same Φ. Then clpart report merging this machine's bench.json with a
# hand-made one from another machine, its Φ computed by hand; and bad input.
set -uo pipefail
clpart=$1
. "$(dirname "$0")/common.sh"

DEVICES=$("$clpart" devices --json) || fail "clpart devices --json failed"
export DEVICES
out=$("$clpart" bench --suite quick --out "$work/bench" 2>&1)
[ $? -eq 0 ] || fail "the bench failed: $out"
grep -q "^device [0-9]*: probes (measured, stored in $work/bench/probes.json): " <<<"$out" ||
    fail "the first bench did not say it measured the probes: $out"
grep -q "^done: $work/bench/bench.md, $work/bench/bench.json, $work/bench/bench.png;" <<<"$out" &&
    [ -s "$work/bench/bench.png" ] || fail "no done line naming the chart, or no chart: $out"
python3 - "$work/bench" <<'PY' || fail "bench.json disagrees with its records"
import json, os, sys
d = sys.argv[1]
doc = json.load(open(d + "/bench.json"))
records = [json.loads(l) for l in open(d + "/results.jsonl")]
assert len(doc["devices"]) == 1 and len(doc["workloads"]) == 6, doc.keys()
probe = doc["devices"][0]["probe"]
rates = ("copy", "mul", "add", "triad", "dot", "fp32", "fp64", "h2d", "d2h")
for k in rates + ("launch_wall", "launch_device"):
    s = probe[k]
    if s is None:  # no cl_khr_fp64
        assert k == "fp64", probe
        continue
    assert 0 <= s["min"] <= s["avg"] * (1 + 1e-12) and s["avg"] <= s["max"] * (1 + 1e-12), (k, s)
    assert s["best"] == (s["max"] if k in rates else s["min"]), (k, s)
    assert probe["unit"][k] == ("s" if k.startswith("launch") else "flop/s" if k.startswith("fp") else "bytes/s")
bandwidth = max(probe[k]["best"] for k in ("copy", "mul", "add", "triad", "dot"))
peak = probe["fp32"]["best"]
assert bandwidth > 0 and peak > 0, probe
# the quick suite sizes its arrays: 4 x the device's cache, at least 64 MiB, within memory
dev = json.loads(os.environ["DEVICES"])
dev = dev["devices"][dev["selected"]]
assert probe["cache_bytes"] == dev["cache_bytes"], (probe, dev)
floats = (max(4 * dev["cache_bytes"], 64 << 20) + 15) // 16 * 4
floats = min(floats, dev["max_alloc_bytes"] // 4, dev["global_mem_bytes"] // 2 // 3 // 4) // 4 * 4
want = 4 * floats
assert probe["array_bytes"] == want, (probe["array_bytes"], want)
assert probe["beyond_cache"] == (0 < dev["cache_bytes"] and want >= 4 * dev["cache_bytes"]), probe
assert probe["iterations"] == 10, probe
harmonic = lambda e: 0.0 if min(e) <= 0 else len(e) / sum(1 / x for x in e)
arch_all, app_all = [], []
for w in doc["workloads"]:
    (result,) = w["results"]
    assert result["status"] == "ok", (w["name"], result)
    mine = [r for r in records if r["workload"].startswith(w["name"]) and r["status"] == "ok"]
    default = result["default"]
    if w["name"].endswith("largest"):  # the larger size that ran, timed once
        assert default["case"].endswith("largest-1.json"), default["case"]
        mine = [r for r in mine if r["case"] == default["case"]]
    best = max(mine, key=lambda r: r["throughput"])
    assert result["best"]["throughput"] == best["throughput"], w["name"]
    app = default["throughput"] / best["throughput"]
    rate = best["throughput"]
    arch = max(rate * best["bytes_per_unit"] / bandwidth, rate * best["flops_per_unit"] / peak)
    assert abs(result["application_efficiency"] - app) < 1e-9 * app, (w["name"], app)
    assert abs(result["architectural_efficiency"] - arch) <= 1e-9 * arch, (w["name"], arch)
    assert abs(w["phi"]["application"] - app) < 1e-9, w["phi"]
    arch_all.append(arch)
    app_all.append(app)
    if w["name"] == "pso-128d":
        assert all(r["bytes_per_unit"] == 24 for r in mine), "PSO: 24 bytes per update"
        assert len(mine) == 6, [r["options"] for r in mine]  # the defaults and 5 layouts
    if w["name"] == "neighbour-search-4k":
        # docs/models/search.md: 16^3 particles, radius 2.3 in a cube of side 16, so 6 cells
        # per axis: 216 linear keys, or 8^3 Morton keys; ~50.97 listed neighbours (density 1)
        import math
        n, listed = 16 ** 3, 4 / 3 * math.pi * 2.3 ** 3
        for r in mine:
            o = {"grid.key": "linear", "grid.sort": "counting", "neighbors.mode": "list"}
            o.update(r["options"])
            cells = (216 if o["grid.key"] == "linear" else 512) + 1
            radix, listing = o["grid.sort"] == "radix", o["neighbors.mode"] == "list"
            entries = 4 * (listed + 1) if listing else 0
            bytes = (36  # the move: pos read and written, id read
                     + 40 + (0 if radix else 4)  # keys
                     + (math.ceil(math.log2(cells)) * 32 if radix else 36)  # the sort
                     + 60  # the reorder: perm, then pos, key, type and id read and written
                     + (16 + entries if listing else 0)  # the list build
                     + 28 + entries  # one pass: pos, key, id, the count, the list
                     + (0 if radix else 16 * cells / n))  # the counting sort's cells
            assert abs(r["bytes_per_unit"] - bytes) < 1e-9 * bytes, (o, r["bytes_per_unit"], bytes)
            assert r["flops_per_unit"] == 0, r
            assert r["diagnostics"]["violations"] == 0, r
        # every variant moves the same particles the same way: the same neighbour counts
        assert len({r["diagnostics"]["mean_neighbours"] for r in mine}) == 1, mine
        assert 40 < mine[0]["diagnostics"]["mean_neighbours"] < 60, mine[0]
        assert len(mine) == 8, [r["options"] for r in mine]  # the defaults and 7 variants
    if w["name"] == "repulsive-24-2d":
        assert all(r["flops_per_unit"] == 10 * 2 + 12 for r in mine), "repulsive flops"
        assert {r["options"].get("repulsive.impl") for r in mine} == {None, "global"}
mean = lambda e: sum(e) / len(e)
assert abs(doc["phi"]["architectural"] - mean(arch_all)) < 1e-9, doc["phi"]
assert abs(doc["phi"]["application"] - mean(app_all)) < 1e-9, doc["phi"]
PY
lines=$(wc -l <"$work/bench/results.jsonl")
cp "$work/bench/bench.json" "$work/first.json"
out=$("$clpart" bench --suite quick --out "$work/bench" 2>&1)
[ $? -eq 0 ] || fail "the rerun failed: $out"
[ "$(wc -l <"$work/bench/results.jsonl")" -eq "$lines" ] || fail "the rerun ran again: $out"
grep -q "^device [0-9]*: probes (from $work/bench/probes.json): " <<<"$out" ||
    fail "the rerun did not read the stored probes: $out"
python3 - "$work/first.json" "$work/bench/bench.json" <<'PY' || fail "the rerun gave other figures"
import json, sys
first, again = (json.load(open(p)) for p in sys.argv[1:])
assert first["devices"][0]["probe"] == again["devices"][0]["probe"], "the probes differ"
assert first["phi"] == again["phi"], (first["phi"], again["phi"])
assert [w["phi"] for w in first["workloads"]] == [w["phi"] for w in again["workloads"]]
PY
grep -q "What did not run" "$work/bench/bench.md" || fail "bench.md lacks its sections"

# Two machines merged: this one's pso-128d and the hand-made GPU's; only-there ran only on
# the other machine, so its Φ over both is 0.
out=$("$clpart" report "$work/bench/bench.json" "$CLPART_DATA_DIR/tests/data/bench/other_machine.json" \
    --out "$work/report" 2>&1)
[ $? -eq 0 ] || fail "report failed: $out"
grep -q "^2 devices from 2 files" <<<"$out" || fail "report: $out"
python3 - "$work/report/report.json" "$work/bench/bench.json" <<'PY' || fail "the merged report is wrong"
import json, sys
report, here = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [d["name"] for d in report["devices"]][1] == "Hand-made GPU", report["devices"]
names = [w["name"] for w in report["workloads"]]
assert names == [w["name"] for w in here["workloads"]] + ["only-there"], names
pso = next(w for w in report["workloads"] if w["name"] == "pso-128d")
mine = next(w for w in here["workloads"] if w["name"] == "pso-128d")["results"][0]
# the other machine by hand: architectural 4e10 * 24 / 2e12 = 0.48, application 2e10 / 4e10
other = next(r for r in pso["results"] if r["device"] == 1)
assert abs(other["architectural_efficiency"] - 0.48) < 1e-12, other
assert abs(other["application_efficiency"] - 0.5) < 1e-12, other
a, b = mine["architectural_efficiency"], 0.48
assert abs(pso["phi"]["architectural"] - 2 / (1 / a + 1 / b)) < 1e-12, pso["phi"]
c = mine["application_efficiency"]
assert abs(pso["phi"]["application"] - 2 / (1 / c + 1 / 0.5)) < 1e-12, pso["phi"]
only = report["workloads"][-1]
assert only["phi"]["architectural"] == 0 and only["phi"]["application"] == 0, only["phi"]
# flop-bound there: 1e12 * 20 / 5e13 = 0.4
assert abs(only["results"][0]["architectural_efficiency"] - 0.4) < 1e-12, only
PY
[ -s "$work/report/report.md" ] || fail "no report.md"
if command -v gnuplot >/dev/null 2>&1 || [ "${CI:-}" = true ]; then # CI installs it
    [ "$(head -c 8 "$work/report/report.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
        fail "report.png is not a PNG file"
fi

# Pruning: with prune_factor 1, exactly the PSO layouts whose one-step warm-up ran slower than
# the defaults' timed rate are recorded as pruned and left untimed; the best is among the rest.
python3 - "$CLPART_DATA_DIR/suites/quick.json" "$work/prune.json" <<'PY'
import json, sys
quick = json.load(open(sys.argv[1]))
pso = next(w for w in quick["workloads"] if w["name"] == "pso-128d")
json.dump({"prune_factor": 1, "probe": quick["probe"], "workloads": [pso]}, open(sys.argv[2], "w"))
PY
out=$("$clpart" bench --suite "$work/prune.json" --out "$work/prune" 2>&1)
[ $? -eq 0 ] || fail "the pruning bench failed: $out"
python3 - "$work/prune" <<'PY' || fail "pruning disagrees with the warm-ups"
import json, sys
d = sys.argv[1]
records = [json.loads(l) for l in open(d + "/results.jsonl")]
(default,) = [r for r in records if not r["options"]]
variants = [r for r in records if r["options"]]
assert len(variants) == 5 and default["status"] == "ok", records
for r in variants:
    slower = r["warmup_throughput"] < default["throughput"]
    assert (r["status"] == "pruned") == slower, r
    assert ("throughput" in r) == (not slower), r
(result,) = json.load(open(d + "/bench.json"))["workloads"][0]["results"]
best = max([default] + [r for r in variants if r["status"] == "ok"], key=lambda r: r["throughput"])
assert result["best"]["throughput"] == best["throughput"], result
PY

# Bad input: one clear message each, exit status 1 or 2, nothing half-written passed off.
out=$("$clpart" report "$CLPART_DATA_DIR/cases/dam_break_2d.json" --out "$work/bad" 2>&1)
[ $? -eq 1 ] && grep -q 'not a clpart bench.json' <<<"$out" || fail "report of a case: $out"
out=$("$clpart" bench --suite nosuch --out "$work/bad" 2>&1)
[ $? -eq 1 ] && grep -q 'suites/nosuch.json' <<<"$out" || fail "a missing suite: $out"
printf '{"workloads": [{"name": "x", "case": "cases/dam_break_2d.json"}]}' >"$work/nosteps.json"
out=$("$clpart" bench --suite "$work/nosteps.json" --out "$work/bad" 2>&1)
[ $? -eq 1 ] && grep -q 'workload x needs "steps"' <<<"$out" || fail "a suite without steps: $out"
printf '{"probe": {"launches": 2}, "workloads": []}' >"$work/launches.json"
out=$("$clpart" bench --suite "$work/launches.json" --out "$work/bad" 2>&1)
[ $? -eq 1 ] && grep -q 'probe: "launches" is not a setting' <<<"$out" || fail "a probe key: $out"
printf '{"probe": {"floats": 6}, "workloads": []}' >"$work/floats.json"
out=$("$clpart" bench --suite "$work/floats.json" --out "$work/bad" 2>&1)
[ $? -eq 1 ] && grep -q 'probe: "floats" is not a setting or out of range' <<<"$out" ||
    fail "probe floats not a multiple of 4: $out"
# Probes alone: no chart, and the done line names none; arrays the suite sets below 4 x the
# cache are not beyond it, and bench.md says so.
printf '{"probe": {"floats": 65536, "iterations": 2}, "workloads": []}' >"$work/probes.json"
out=$("$clpart" bench --suite "$work/probes.json" --out "$work/probes" 2>&1)
grep -q "^done: $work/probes/bench.md, $work/probes/bench.json; " <<<"$out" &&
    [ ! -e "$work/probes/bench.png" ] || fail "a bench of probes alone: $out"
python3 - "$work/probes/bench.json" <<'PY' || fail "probes of small arrays"
import json, sys
probe = json.load(open(sys.argv[1]))["devices"][0]["probe"]
assert probe["array_bytes"] == 4 * 65536 and probe["iterations"] == 2, probe
assert probe["beyond_cache"] == (0 < probe["cache_bytes"] <= 65536), probe
PY
grep -Eq '^\| 0 \| 256 KiB arrays, (cache [0-9.]+ [KMG]iB: within 4 x cache|cache size unknown) \|' \
    "$work/probes/bench.md" || fail "bench.md does not set the arrays against the cache"
out=$("$clpart" report 2>&1)
[ $? -eq 2 ] || fail "report without files: $out"

[ "$failures" -eq 0 ] && echo "bench and report: all checks passed"
exit $((failures > 0))

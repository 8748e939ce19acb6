#!/usr/bin/env bash
# run.json and summary.json of clpart run. A short run of the tiny dam break with global flags
# and an -s override: every key of run.json in its order, its case hash against XXH64 computed
# here (xxh64.py), the options (every one of the model's modules, in `clpart options` order,
# the override among them), the device against `clpart devices --json`, the host against
# /proc/cpuinfo and the CPU count, the limits and the result; summary.json against the last
# row of diagnostics.csv. Then a restart (its path recorded), a run stopped by SIGINT
# ("interrupted", and summary.json so marked), a run that fails after writing its outputs
# ("failed" with its message), a refused case (no folder at all), an LJ summary, and with PoCL
# a split run ("devices", one per device) and, in a build with MPI, two ranks, whose devices
# rank 0 gathers.
set -uo pipefail
clpart=$1
with_mpi=${2:-no}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
tiny=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
cp "$tiny" "$work/tiny.json"
"$clpart" options --json >"$work/options.json" || fail "clpart options --json failed"
"$clpart" devices --json >"$work/devices.json" || fail "clpart devices --json failed"

# check_record FOLDER STATUS MODEL MODULES PYTHON: run.json's keys in order, the fields every
# record has, and then the Python statements PYTHON with `r` the record.
check_record() {
    python3 - "$@" "$work" "$here" <<'PY'
import datetime, json, os, sys
folder, status, model, modules, extra, work, here = sys.argv[1:8]
sys.path.insert(0, here)
from xxh64 import xxh64
r = json.load(open(folder + "/run.json"))
devices = "devices" if "devices" in r else "device"
keys = ["clpart", "command", "cwd", "case", "model", "options", devices, "tuning", "host", "limits",
        "restart", "started", "ended", "status", "error", "result"]
assert list(r) == keys, list(r)
assert r["clpart"] == os.popen(os.environ["CLPART"] + " --version").read().split(" ", 1)[1].strip(), r["clpart"]
assert all(isinstance(a, str) for a in r["command"]) and r["command"][1:].count("run") == 1, r["command"]
assert r["cwd"] == work, r["cwd"]
case = r["case"]
assert list(case) == ["path", "hash", "name"], case
assert case["hash"] == "%016x" % xxh64(open(os.path.join(work, case["path"]), "rb").read()), case
assert case["name"] == os.path.basename(case["path"]).rsplit(".", 1)[0], case
assert r["model"] == model, r["model"]
schema = [o["name"] for o in json.load(open(work + "/options.json"))]
wanted = [n for n in schema if n.split(".")[0] in modules.split(",")]
assert list(r["options"]) == wanted, (list(r["options"]), wanted)
assert all(isinstance(v, str) for v in r["options"].values()), r["options"]
listed = json.load(open(work + "/devices.json"))["devices"]
for d in r["devices"] if devices == "devices" else [r["device"]]:
    assert list(d) == ["index", "name", "vendor", "platform", "platform_version", "driver",
                       "device_version", "opencl_c_version", "type", "compute_units",
                       "global_memory"], list(d)
    same = listed[d["index"]]
    for mine, theirs in (("name", "name"), ("vendor", "vendor"), ("platform", "platform"),
                         ("driver", "driver_version"), ("opencl_c_version", "opencl_c_version"),
                         ("type", "type"), ("compute_units", "compute_units")):
        assert d[mine] == same[theirs], (mine, d[mine], same[theirs])
    assert d["global_memory"] > 0 and d["device_version"].startswith("OpenCL "), d
    assert d["platform_version"].startswith("OpenCL "), d
cpu = "unknown"
if os.path.exists("/proc/cpuinfo"):
    names = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
    cpu = names[0] if names else "unknown"
assert r["host"] == {"hostname": os.uname().nodename, "cpu": cpu,
                     "cpus": os.sysconf("SC_NPROCESSORS_ONLN")}, r["host"]
parse = lambda t: datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ")
assert parse(r["started"]) <= parse(r["ended"]), (r["started"], r["ended"])
assert r["status"] == status, (r["status"], r["error"])
assert (r["error"] is None) == (status != "failed"), r["error"]
exec(extra)
print(f"{os.path.basename(folder)}: run.json {status}, {len(r['options'])} options")
PY
}
export CLPART="$clpart"

# A short run from the scratch folder, the case by a relative path, with global flags.
(cd "$work" && "$clpart" --no-cache run tiny.json -s sph.kernel=cubic --steps 5 -v \
    --out ok >"$work/ok.log" 2>&1) || fail "the short run failed: $(tail -3 "$work/ok.log")"
grep -q "^done: ok/diagnostics.csv, ok/particles.pvd, ok/summary.json$" "$work/ok.log" ||
    fail "the done line: $(grep done: "$work/ok.log")"
check_record "$work/ok" ok sph core,grid,neighbors,sph,dist '
assert r["command"][1:] == ["--no-cache", "run", "tiny.json", "-s", "sph.kernel=cubic",
                            "--steps", "5", "-v", "--out", "ok"], r["command"]
assert r["case"]["path"] == "tiny.json", r["case"]
assert r["options"]["sph.kernel"] == "cubic" and r["options"]["core.dim"] == "2", r["options"]
assert r["limits"] == {"steps": 5, "time": None} and r["restart"] is None, r
res = r["result"]
assert list(res) == ["steps", "seconds", "work", "rate", "unit"], res
assert res["steps"] == 5 and res["work"] == 5 * 232 and res["unit"] == "particle-steps/s", res
assert abs(res["rate"] - res["work"] / res["seconds"]) <= 1e-9 * res["rate"], res
' || fail "run.json of the short run is wrong"
python3 - "$work/ok" <<'PY' || fail "summary.json of the short run is wrong"
import csv, json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
last = list(csv.DictReader(open(sys.argv[1] + "/diagnostics.csv")))[-1]
assert list(s) == ["model", "particles", "steps", "interrupted", "seconds", "time",
                   "kinetic_energy", "mass", "max_velocity", "front", "excluded"], list(s)
assert s["model"] == "sph" and s["particles"] == 232 and s["interrupted"] is False, s
assert s["steps"] == int(last["step"]) == 5 and s["seconds"] > 0, (s, last)
for k in ("time", "kinetic_energy", "mass", "max_velocity", "front", "excluded"):
    assert s[k] == float(last[k]), (k, s[k], last[k])
PY

# A restart from its checkpoint, for a longer time: run.json is written anew and names it.
(cd "$work" && "$clpart" run tiny.json -s sph.kernel=cubic --time 0.002 --restart ok/checkpoint.ckpt --out ok \
    >"$work/restart.log" 2>&1) || fail "the restart failed: $(tail -3 "$work/restart.log")"
check_record "$work/ok" ok sph core,grid,neighbors,sph,dist '
assert r["restart"] == "ok/checkpoint.ckpt" and r["limits"] == {"steps": None, "time": 0.002}, r
assert r["command"].index("--restart") > 0 and r["options"]["sph.kernel"] == "cubic", r
' || fail "run.json of the restart is wrong"

# SIGINT once the run is under way: status "interrupted" and summary.json marked.
(cd "$work" && exec "$clpart" run "$CLPART_DATA_DIR/cases/dam_break_2d.json" --out stop \
    >"$work/stop.log" 2>&1) &
pid=$!
for _ in $(seq 6000); do
    [ "$(wc -l 2>/dev/null <"$work/stop/diagnostics.csv" || echo 0)" -ge 3 ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
grep -q '"status": "running"' "$work/stop/run.json" 2>/dev/null ||
    fail "run.json does not say running while the run goes on"
kill -INT "$pid"
wait "$pid"
status=$?
[ "$status" -eq 130 ] || fail "SIGINT: exit status $status, expected 130: $(tail -2 "$work/stop.log")"
check_record "$work/stop" interrupted sph core,grid,neighbors,sph,dist '
assert r["result"] is None or r["result"]["steps"] > 0, r["result"]
' || fail "run.json after SIGINT is wrong"
python3 - "$work/stop" "$work/stop.log" <<'PY' || fail "summary.json after SIGINT is wrong"
import json, re, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
step = int(re.search(r"stopped at step (\d+)", open(sys.argv[2]).read()).group(1))
assert s["interrupted"] is True and s["steps"] == step and s["time"] > 0, (s, step)
PY

# A run that fails after writing its outputs (a PSO objective that is +inf or NaN everywhere
# has no best): "failed", with the message the command printed.
python3 - "$CLPART_DATA_DIR/cases/pso_rastrigin.json" "$work/no_best.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["options"]["pso.objective"] = "user"
c["pso"]["iterations"] = 5
c["pso"]["objective"] = {"function": ["return X(0) < 0.0f ? INFINITY : NAN;"]}
json.dump(c, open(sys.argv[2], "w"))
PY
(cd "$work" && "$clpart" run no_best.json --out failed >"$work/failed.log" 2>&1)
[ $? -eq 1 ] || fail "the run without a best did not fail: $(tail -2 "$work/failed.log")"
check_record "$work/failed" failed pso core,pso "
assert r['error'] in open('$work/failed.log').read(), r['error']
assert 'no particle found a finite value' in r['error'] and r['result'] is None, r
" || fail "run.json of the failed run is wrong"
# A case refused once the device is open, before the model writes anything (a box too narrow
# for the LJ grid), leaves no folder, run.json or not.
python3 - "$CLPART_DATA_DIR/cases/lj_liquid_small.json" "$work/narrow.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["lj"]["fcc_cells"] = 1
json.dump(c, open(sys.argv[2], "w"))
PY
(cd "$work" && "$clpart" run narrow.json --out refused >"$work/refused.log" 2>&1)
[ $? -eq 1 ] && grep -q "narrower than the 3 cells" "$work/refused.log" ||
    fail "the narrow box was not refused: $(tail -2 "$work/refused.log")"
[ ! -e "$work/refused" ] || fail "a refused case left $(ls "$work/refused") behind"

# An LJ run: its summary holds the last row of diagnostics.csv under the same names.
python3 - "$CLPART_DATA_DIR/cases/lj_liquid_small.json" "$work/lj.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["steps"], c["output_every"] = 30, 10
json.dump(c, open(sys.argv[2], "w"))
PY
(cd "$work" && "$clpart" run lj.json --out lj >"$work/lj.log" 2>&1) || fail "the LJ run failed"
check_record "$work/lj" ok lj core,grid,neighbors,lj '' || fail "run.json of the LJ run is wrong"
python3 - "$work/lj" <<'PY' || fail "summary.json of the LJ run is wrong"
import csv, json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
last = list(csv.DictReader(open(sys.argv[1] + "/diagnostics.csv")))[-1]
names = ["time", "kinetic", "potential", "total", "temperature", "pressure", "momentum"]
assert list(s) == ["model", "particles", "steps", "interrupted", "seconds"] + names, list(s)
assert s["model"] == "lj" and s["particles"] == 864 and s["steps"] == int(last["step"]) == 30, s
assert all(s[k] == float(last[k]) for k in names), (s, last)
PY

# Split: one device description per device, in their order.
if POCL_DEVICES=pthread "$clpart" devices 2>/dev/null | grep -q "Portable Computing Language"; then
    (cd "$work" && POCL_DEVICES="pthread pthread" "$clpart" run tiny.json --devices pocl,pocl \
        --out split >"$work/split.log" 2>&1) || fail "the split run failed: $(tail -3 "$work/split.log")"
    POCL_DEVICES="pthread pthread" "$clpart" devices --json >"$work/devices.json"
    check_record "$work/split" ok sph core,grid,neighbors,sph,dist '
assert len(r["devices"]) == 2 and r["devices"][0] == r["devices"][1], r["devices"]
assert r["devices"][0]["platform"] == "Portable Computing Language", r["devices"]
' || fail "run.json of the split run is wrong"
    if [ "$with_mpi" = mpi ]; then
        # on PoCL, whose device reports every core under mpirun's binding of a rank to one
        # (Intel's runtime reports the one core: its record then differs from the listing)
        (cd "$work" && CLPART_DEVICE=pocl POCL_DEVICES=pthread timeout 300 mpirun \
            --oversubscribe --allow-run-as-root -np 2 "$clpart" run tiny.json --out ranks \
            >"$work/ranks.log" 2>&1) || fail "the MPI run failed: $(tail -3 "$work/ranks.log")"
        CLPART_DEVICE=pocl POCL_DEVICES=pthread "$clpart" devices --json >"$work/devices.json"
        check_record "$work/ranks" ok sph core,grid,neighbors,sph,dist '
assert len(r["devices"]) == 2, r["devices"]
' || fail "run.json of the MPI run is wrong"
        ls "$work/ranks" | grep -q "^run.json\..*tmp$" && fail "a temporary run.json is left"
    fi
else
    echo "no PoCL platform: the split run's record is not checked"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all run.json and summary.json checks passed"

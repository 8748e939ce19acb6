#!/usr/bin/env bash
# The tuning database on PoCL, with a small Lennard-Jones case that sets no performance option:
# - a user's file with an entry for any CPU and one for this device (its identity from
#   `clpart devices --json`): the run takes the second's values, -v says so, run.json records
#   them, and `clpart build` and `clpart source` take them too (the source is the one -s of the
#   same values gives without the database);
# - -s of a tuned option keeps the user's value, the entry's other options still apply;
# - --no-tuning and CLPART_NO_TUNING=1 give the run with every performance option at the
#   schema's default given by -s, file for file;
# - a file that is not JSON, one of another format and an entry that sets an option that is not
#   a performance option are warnings naming them; the run goes on, and the files are
#   unchanged.
set -uo pipefail
clpart=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
"$clpart" devices 2>/dev/null | grep -q "Portable Computing Language" || { echo "no PoCL"; exit 77; }
export CLPART_DEVICE=pocl
unset CLPART_NO_TUNING
variant "$(cat "$CLPART_DATA_DIR/cases/lj_liquid_small.json")" "$work/lj.json" \
    steps=20 snapshot_every=10
"$clpart" options --json >"$work/options.json" || fail "clpart options --json failed"
"$clpart" devices --json >"$work/devices.json" || fail "clpart devices --json failed"
db=$work/tuning.json
python3 - "$work/devices.json" "$db" <<'PY'
import json, sys
devices = json.load(open(sys.argv[1]))["devices"]
d = next(d for d in devices if d["platform"] == "Portable Computing Language")
entry = lambda device, options: {"device": device, "model": "lj", "particles": 864,
                                 "options": options}
json.dump({"clpart_tuning": 1, "entries": [
    entry({"type": "cpu"}, {"lj.strategy": "par_part_loop", "grid.sort": "radix"}),
    entry({"platform": d["platform"], "vendor": d["vendor"], "name": d["name"], "type": "cpu"},
          {"lj.strategy": "par_part_loop", "grid.key": "morton"})]}, open(sys.argv[2], "w"))
PY
# every performance option of the case's modules at its default, as -s
defaults=$(python3 - "$work/options.json" <<'PY'
import json, sys
for o in json.load(open(sys.argv[1])):
    if o.get("performance") and o["name"].split(".")[0] in ("core", "grid", "neighbors", "lj"):
        print("-s %s=%s" % (o["name"], str(o["default"]).lower()), end=" ")
PY
)
# record FOLDER PYTHON: the Python statements with `r` run.json, `t` its "tuning"
record() {
    python3 - "$1/run.json" "$2" <<'PY' || fail "$1/run.json: $2"
import json, sys
r = json.load(open(sys.argv[1]))
t = r["tuning"]
exec(sys.argv[2])
PY
}

out=$(CLPART_TUNING_DB=$db "$clpart" -v run "$work/lj.json" --out "$work/tuned" 2>&1) ||
    fail "the tuned run failed: $out"
grep -qF "tuning: lj.strategy=par_part_loop grid.key=morton from $db, entry 2 (the same device;" \
    <<<"$out" || fail "-v does not say which entry the run took: $out"
record "$work/tuned" 'assert t["entry"].endswith("entry 2") and t["match"] == "the same device", t
assert t["options"] == {"lj.strategy": "par_part_loop", "grid.key": "morton"}, t
assert r["options"]["lj.strategy"] == "par_part_loop" and r["options"]["grid.key"] == "morton"'
out=$(CLPART_TUNING_DB=$db "$clpart" -v build "$work/lj.json" 2>&1) || fail "build failed: $out"
grep -qF "tuning: lj.strategy=par_part_loop grid.key=morton" <<<"$out" ||
    fail "clpart build does not take the entry: $out"
CLPART_TUNING_DB=$db "$clpart" source "$work/lj.json" >"$work/tuned.cl" || fail "source failed"
"$clpart" --no-tuning source "$work/lj.json" -s lj.strategy=par_part_loop -s grid.key=morton \
    >"$work/given.cl" || fail "source with -s failed"
cmp -s "$work/tuned.cl" "$work/given.cl" || fail "clpart source does not take the entry"

CLPART_TUNING_DB=$db "$clpart" run "$work/lj.json" -s lj.strategy=par_part --out "$work/kept" \
    >/dev/null 2>&1 || fail "the run with -s failed"
record "$work/kept" 'assert r["options"]["lj.strategy"] == "par_part", r["options"]
assert t["options"] == {"grid.key": "morton"}, t'

# --no-tuning and CLPART_NO_TUNING=1: the defaults, bit for bit
# shellcheck disable=SC2086
"$clpart" --no-tuning run "$work/lj.json" $defaults --out "$work/defaults" >/dev/null 2>&1 ||
    fail "the run with the defaults given failed"
CLPART_TUNING_DB=$db "$clpart" --no-tuning run "$work/lj.json" --out "$work/off" >/dev/null 2>&1 ||
    fail "the --no-tuning run failed"
CLPART_TUNING_DB=$db CLPART_NO_TUNING=1 "$clpart" run "$work/lj.json" --out "$work/off-env" \
    >/dev/null 2>&1 || fail "the CLPART_NO_TUNING=1 run failed"
for run in off off-env; do
    record "$work/$run" 'assert t is None, t'
    differ=$(same_outputs "$work/defaults" "$work/$run") ||
        fail "$run: $differ differ from the run at the defaults"
done
python3 - "$work/defaults/run.json" "$work/off/run.json" <<'PY' || fail "--no-tuning: other options"
import json, sys
a, b = (json.load(open(f))["options"] for f in sys.argv[1:3])
assert a == b, [k for k in a if a[k] != b[k]]
PY

# files that are not databases, and an entry that is not a performance option's
printf '{"clpart_tuning": 1, "entries": [ {"device"' >"$work/torn.json"
printf '{"clpart_tuning": 7, "entries": []}' >"$work/foreign.json"
printf '{"clpart_tuning": 1, "entries": [{"device": {"type": "cpu"}, "model": "lj", "particles": 864, "options": {"lj.rc_skin": "1"}}]}' \
    >"$work/unknown.json"
printf '{"clpart_tuning": 1, "entries": [{"device": {"type": "cpu"}, "model": "lj", "particles": 864, "options": {"core.summation": "naive"}}]}' \
    >"$work/physics.json"
for bad in torn:"not read as a tuning database" foreign:"not a tuning database of format 1" \
    unknown:"entry 1: left out: .*lj.rc_skin" physics:"core.summation is not a performance option"; do
    name=${bad%%:*}
    cp "$work/$name.json" "$work/$name.before"
    out=$(CLPART_TUNING_DB=$work/$name.json "$clpart" run "$work/lj.json" --out "$work/$name" 2>&1) ||
        fail "$name: the run failed: $out"
    grep -qE -- "warning .*$work/$name.json.*${bad#*:}" <<<"$out" || fail "$name: no warning: $out"
    cmp -s "$work/$name.json" "$work/$name.before" || fail "$name: the file was changed"
    record "$work/$name" "assert t is None or '$name.json' not in t['entry'], t"
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "tuning database: entry taken, -s kept, --no-tuning bit for bit, bad files warned of"

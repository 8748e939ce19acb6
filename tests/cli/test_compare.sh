#!/usr/bin/env bash
# clpart compare: a run against an exact copy (within tolerance, exit 0); the copy with one
# diagnostic and one particle's density changed by amounts the test chooses, where the
# differences and allowances compare reports are checked against the test's own arithmetic
# from tolerances/sph.json; a run with another smoothing kernel (beyond tolerance, exit 1,
# naming the quantities); rows at steps the other run lacks; two records of a results file;
# the same case on PoCL and Oclgrind (within tolerance); and bad arguments.
set -uo pipefail
clpart=$1
tiny=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
tolerances=$CLPART_DATA_DIR/tolerances/sph.json
. "$(dirname "$0")/common.sh"
export CLPART_NO_CACHE=1
unset CLPART_DEVICE

"$clpart" run "$tiny" --device pocl --out "$work/a" >/dev/null 2>&1 || fail "the run of the tiny case failed"
"$clpart" run "$tiny" --device pocl -s sph.kernel=cubic --out "$work/cubic" >/dev/null 2>&1 ||
    fail "the run with the cubic kernel failed"
cp -r "$work/a" "$work/same"
out=$("$clpart" compare "$work/a" "$work/same" --model sph 2>&1)
[ $? -eq 0 ] && grep -q "^within tolerance: " <<<"$out" || fail "a copy is not within tolerance: $out"

# The copy changed by the test: kinetic energy of the last row up by 1.5 times its tolerance,
# and one particle's density in the last snapshot.
cp -r "$work/a" "$work/changed"
python3 - "$work/changed" "$tolerances" >"$work/expected.json" <<'PY' || fail "cannot change the copy"
import csv, json, math, struct, sys, xml.etree.ElementTree as ET
folder, tolerances = sys.argv[1], json.load(open(sys.argv[2]))
quantities = tolerances["files"]["diagnostics.csv"]["quantities"]
rows = list(csv.reader(open(folder + "/diagnostics.csv")))
header, last = rows[0], rows[-1]
k = header.index("kinetic_energy")
tol = quantities["kinetic_energy"]
a = float(last[k])
allowed = tol.get("abs", 0) + tol["rel"] * a  # b is the larger of the two
b = a + 1.5 * allowed
allowed = tol.get("abs", 0) + tol["rel"] * b
last[k] = repr(b)
csv.writer(open(folder + "/diagnostics.csv", "w", newline=""), lineterminator="\n").writerows(rows)
# the density of particle 0 (by file order) in the last snapshot, 5 kg/m^3 up
pvd = ET.parse(folder + "/particles.pvd").getroot()
snapshot = folder + "/" + pvd.findall(".//DataSet")[-1].get("file")
raw = bytearray(open(snapshot, "rb").read())
base = raw.find(b"_", raw.find(b"<AppendedData")) + 1
head = ET.fromstring(bytes(raw[:base - 1]) + b"</AppendedData></VTKFile>")
n = int(head.find(".//Piece").get("NumberOfPoints"))
array = [e for e in head.iter("DataArray") if e.get("Name") == "density"][0]
at = base + int(array.get("offset")) + 8
values = struct.unpack_from(f"<{n}f", raw, at)
struct.pack_into("<f", raw, at, values[0] + 5.0)
open(snapshot, "wb").write(raw)
changed = struct.unpack_from("<f", raw, at)[0]
rms_a = math.sqrt(sum(v * v for v in values) / n)
rms_b = math.sqrt((sum(v * v for v in values) - values[0] ** 2 + changed ** 2) / n)
rel = tolerances["files"]["particles.pvd"]["quantities"]["density"]["rel"]
json.dump({"ke": [a, b, b - a, allowed], "density": [abs(changed - values[0]) / math.sqrt(n),
                                                     rel * max(rms_a, rms_b)]}, sys.stdout)
PY
out=$("$clpart" compare "$work/a" "$work/changed" --model sph --json)
code=$?
[ $code -eq 1 ] || fail "the changed copy gave exit $code, not 1"
python3 - "$out" "$work/expected.json" <<'PY' || fail "the reported differences are wrong: $out"
import json, sys
report, expected = json.loads(sys.argv[1]), json.load(open(sys.argv[2]))
items = {(i["file"], i["quantity"]): i for i in report["items"]}
assert report["verdict"] == "beyond", report["verdict"]
ke = items[("diagnostics.csv", "kinetic_energy")]
a, b, difference, allowed = expected["ke"]
assert ke["beyond"] and abs(ke["a"] - a) <= 1e-15 * a and abs(ke["b"] - b) <= 1e-15 * b, ke
assert abs(ke["difference"] - difference) <= 1e-9 * difference, (ke, difference)
assert abs(ke["allowed"] - allowed) <= 1e-9 * allowed, (ke, allowed)
density = items[("particles.pvd", "density")]
difference, allowed = expected["density"]
assert abs(density["difference"] - difference) <= 1e-6 * difference, (density, difference)
assert abs(density["allowed"] - allowed) <= 1e-6 * allowed, (density, allowed)
assert density["beyond"] == (difference > allowed), density
others = [i for i in report["items"] if i["beyond"] and i not in (ke, density)]
assert not others, others
PY
# A tolerance given on the command line: the same change within it.
"$clpart" compare "$work/a" "$work/changed" --model sph --tol kinetic_energy=0.01 \
    --tol particles.pvd/density=0.01 >/dev/null || fail "--tol did not widen the tolerances"

out=$("$clpart" compare "$work/a" "$work/cubic" --model sph 2>&1)
code=$?
[ $code -eq 1 ] && grep -q "^beyond tolerance: " <<<"$out" && grep -q "kinetic_energy" <<<"$out" ||
    fail "another kernel was not beyond tolerance ($code): $out"

# A run that stops sooner has rows the other lacks: never within tolerance.
"$clpart" run "$tiny" --device pocl --steps 3 --out "$work/short" >/dev/null 2>&1 || fail "the short run failed"
out=$("$clpart" compare "$work/a" "$work/short" --model sph 2>&1)
[ $? -eq 1 ] && grep -q "have no row at the same key" <<<"$out" || fail "a shorter run passed: $out"

# Records of a sweep, by line.
"$clpart" sweep "$tiny" --device pocl -s sph.kernel=wendland,cubic --steps 5 --repeat 1 \
    --out "$work/sweep" >/dev/null 2>&1 || fail "the sweep failed"
out=$("$clpart" compare "$work/sweep/results.jsonl:1" "$work/sweep/results.jsonl:2" 2>&1)
[ $? -eq 1 ] && grep -q "option sph.kernel: wendland and cubic" <<<"$out" ||
    fail "two records of other kernels: $out"
out=$("$clpart" compare "$work/sweep/results.jsonl" "$work/sweep/results.jsonl:1" 2>&1)
[ $? -eq 2 ] && grep -q "holds 2 records: name one as" <<<"$out" || fail "an ambiguous record: $out"

# A bench on two PoCL devices (one CPU shown twice: the same program on the same cores, so the
# same numbers) says both give the same answer.
cat >"$work/mini.json" <<'JSON'
{"repeat": 1, "variant_repeat": 1, "budget_seconds": 0,
 "workloads": [{"name": "tiny", "case": "tests/data/sph/tiny_dam_break.json", "steps": 5, "sweep": []}]}
JSON
two=$(POCL_DEVICES="pthread pthread" devices_of pocl)
POCL_DEVICES="pthread pthread" "$clpart" bench --suite "$work/mini.json" --devices "$two" --out "$work/bench" \
    >"$work/bench.log" 2>&1 || fail "the bench on two PoCL devices failed: $(tail -3 "$work/bench.log")"
grep -q "^| tiny | no physical change |$" "$work/bench/bench.md" ||
    fail "bench.md does not say the two devices give the same answer: $(cat "$work/bench/bench.md")"

# Bad arguments: one clear line each.
for args in "$work/a" "$work/a $work/same $work/a" "$work/a $work/missing" \
    "$work/a $work/same --model sph --tol kinetic_energy=x"; do
    out=$("$clpart" compare $args 2>&1)
    code=$?
    [ $code -ne 0 ] && [ "$(grep -c '^clpart: error: ' <<<"$out")" -eq 1 ] ||
        fail "compare $args: exit $code: $out"
done

# The same case on PoCL and on Oclgrind, registered beside it as docs/cli.md shows.
oclgrind_icd=/usr/lib/oclgrind/liboclgrind-rt-icd.so
pocl_icd=$(ls "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"/*pocl*.icd 2>/dev/null | head -1)
if [ -f "$oclgrind_icd" ] && [ -n "$pocl_icd" ]; then
    mkdir -p "$work/vendors" && cp "$pocl_icd" "$work/vendors/" && echo "$oclgrind_icd" >"$work/vendors/oclgrind.icd"
    OCL_ICD_VENDORS=$work/vendors "$clpart" run "$tiny" --device oclgrind --steps 4 --out "$work/oclgrind" \
        >/dev/null 2>&1 || fail "the run on Oclgrind failed"
    "$clpart" run "$tiny" --device pocl --steps 4 --out "$work/pocl4" >/dev/null 2>&1 || fail "the run on PoCL failed"
    out=$("$clpart" compare "$work/pocl4" "$work/oclgrind" --model sph 2>&1) ||
        fail "PoCL and Oclgrind are not within tolerance: $out"
elif [ "${CI:-}" = true ]; then
    fail "Oclgrind or PoCL's ICD file is missing (tools/install-deps installs both)"
fi
[ $failures -eq 0 ] || exit 1
echo "ok: clpart compare"

#!/usr/bin/env bash
# Particle IDs in the snapshots: the tiny dam break (SPH) and a small LJ liquid with
# snapshot_every, each on one PoCL device and split between two (POCL_DEVICES="pthread
# pthread", --devices pocl,pocl), must name every particle by its index in the case's initial
# order: each ID once, at step 0 where the case generates that particle, and at the end where
# the one-device run has it (particle_ids.py). Needs PoCL; without it the test is skipped.
set -uo pipefail
clpart=$1
. "$(dirname "$0")/../cli/common.sh"
check=$(dirname "$0")/particle_ids.py

POCL_DEVICES=pthread "$clpart" devices 2>/dev/null | grep -q "Portable Computing Language" ||
    { echo "no PoCL platform: skipped"; exit 77; }

# run NAME CASE one|split [ARGS...]: CASE into $work/NAME.
run() {
    local name=$1 case=$2 how=$3
    shift 3
    if [ "$how" = one ]; then
        POCL_DEVICES=pthread timeout 300 "$clpart" --device pocl run "$case" --out "$work/$name" "$@"
    else
        POCL_DEVICES="pthread pthread" timeout 300 "$clpart" run "$case" --devices pocl,pocl \
            --out "$work/$name" "$@"
    fi >"$work/$name.log" 2>&1
    local status=$?
    [ "$status" -eq 0 ] || fail "$name ($how) exited $status: $(tail -3 "$work/$name.log")"
}

sph=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
run sph-one "$sph" one
run sph-split "$sph" split
grep -q "^done: .*particles.pvd" "$work/sph-split.log" || fail "the split SPH run wrote no snapshots"
python3 "$check" "$sph" "$work/sph-one" "$work/sph-split" || fail "SPH: the particle IDs are wrong"

# 1372 atoms (7 FCC cells, box 11.8) with rc 2.2: 4 cell layers of the search radius
# rc (1 + skin) = 2.64, 2 slabs of 2.
lj=$work/liquid.json
python3 - "$CLPART_DATA_DIR/cases/lj_liquid_small.json" "$lj" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["lj"]["fcc_cells"], c["lj"]["rc"] = 7, 2.2
c["steps"], c["output_every"], c["snapshot_every"] = 50, 10, 20
json.dump(c, open(sys.argv[2], "w"))
PY
run lj-one "$lj" one
run lj-split "$lj" split
for name in lj-one lj-split; do
    grep -q "^done: $work/$name/diagnostics.csv, $work/$name/particles.pvd, $work/$name/summary.json$" \
        "$work/$name.log" || fail "$name: the done line does not name the snapshots: $(grep done: "$work/$name.log")"
    # steps 0, 20, 40 and the last, 50
    [ "$(grep -c '<DataSet' "$work/$name/particles.pvd")" -eq 4 ] ||
        fail "$name: $(grep -c '<DataSet' "$work/$name/particles.pvd") snapshots, expected 4"
done
python3 "$check" "$lj" "$work/lj-one" "$work/lj-split" || fail "LJ: the particle IDs are wrong"
# the positions are wrapped into the box
python3 - "$lj" "$work/lj-split" <<PY || fail "LJ: a position outside the periodic box"
import json, sys
sys.path.insert(0, "$(dirname "$0")")
from vtp import read_vtp, snapshots
lj = json.load(open(sys.argv[1]))["lj"]
box = (4 * lj["fcc_cells"] ** 3 / lj["density"]) ** (1 / 3)
for _, f in snapshots(sys.argv[2]):
    outside = [x for x in read_vtp(f)["position"] if not 0 <= x < box]
    assert not outside, (f, outside[:3], box)
print("LJ: every position in [0, %.4f)" % box)
PY

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all particle ID checks passed"

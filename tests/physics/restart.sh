#!/usr/bin/env bash
# A run stopped at a checkpoint and restarted ends bit for bit where an uninterrupted run
# ends (same device and options); one under other performance options cuts the particles
# again; one under other physics options or from a damaged file is refused.
set -euo pipefail
clpart=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The dam break, shortened: A runs to 0.01 s, B stops at 0.005 s.
python3 - "$CLPART_DATA_DIR/cases/dam_break_2d.json" "$work" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
for name, end in (("a", 0.01), ("b", 0.005)):
    case.update(end_time=end, output_interval=0.0025)
    json.dump(case, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
# restart_matches LABEL [OPTION...]: with these options, the restart of B's checkpoint ends as A.
restart_matches() {
    local label=$1
    shift
    rm -rf "$work/a" "$work/b" "$work/c"
    "$clpart" run "$work/a.json" --out "$work/a" "$@" 2>/dev/null >/dev/null
    "$clpart" run "$work/b.json" --out "$work/b" "$@" 2>/dev/null >/dev/null
    "$clpart" run "$work/a.json" --out "$work/c" --restart "$work/b/checkpoint.ckpt" "$@" \
        2>/dev/null >/dev/null
    cmp "$work/a/checkpoint.ckpt" "$work/c/checkpoint.ckpt" ||
        { echo "$label: restarted run differs from the uninterrupted one"; exit 1; }
    [ "$(tail -1 "$work/a/diagnostics.csv")" = "$(tail -1 "$work/c/diagnostics.csv")" ] ||
        { echo "$label: final diagnostics differ"; exit 1; }
    echo "$label: restart from step $(sed -n 2p "$work/c/diagnostics.csv" | cut -d, -f2): final state identical"
}
restart_matches "default options"
# Rebuilds forced by particles that moved more than half of a thin skin, and the other
# integrator with XSPH and shifting, and mDBC: the checkpoint carries what decides the next
# rebuild, and the ghost nodes in the particles' order.
restart_matches "forced rebuilds, predictor-corrector, mDBC" -s neighbors.skin=0.005 \
    -s sph.integrator=predictor_corrector -s sph.xsph=true -s sph.boundary=mdbc
restart_matches "Molteni's diffusion, no shifting, no surface floor" -s sph.diffusion=molteni \
    -s sph.shifting=false -s sph.surface_floor=false

if out=$("$clpart" run "$work/a.json" --out "$work/d" --restart "$work/b/checkpoint.ckpt" \
    -s sph.kernel=cubic 2>&1); then
    echo "a restart under other options was accepted"; exit 1
fi
grep -q "sph.kernel" <<<"$out" || { echo "refusal does not name the option: $out"; exit 1; }
# Performance options change the sums' order, not the results: a restart under another (the
# radix sort where the checkpoint's run took the counting one, as a tuning database for
# another device may) cuts the particles again and ends where the uninterrupted run ends, to
# rounding; a physics option that differs is still refused, above.
"$clpart" run "$work/a.json" --out "$work/a" -s grid.sort=counting >/dev/null 2>&1
"$clpart" run "$work/b.json" --out "$work/b" -s grid.sort=counting >/dev/null 2>&1
out=$("$clpart" -v run "$work/a.json" --out "$work/f" --restart "$work/b/checkpoint.ckpt" \
    -s grid.sort=radix 2>&1) || { echo "a restart under another sort failed: $out"; exit 1; }
grep -q "with other performance options" <<<"$out" && grep -q "cut again" <<<"$out" ||
    { echo "the restart under another sort does not say it cuts again: $out"; exit 1; }
python3 "$(dirname "$0")/sph_agree.py" "$work/a" "$work/f" ||
    { echo "the restart under another sort does not end as the uninterrupted run"; exit 1; }
echo "another performance option: cut again, agrees"
printf 'x' | dd of="$work/b/checkpoint.ckpt" bs=1 seek=200 conv=notrunc status=none
if out=$("$clpart" run "$work/a.json" --out "$work/e" --restart "$work/b/checkpoint.ckpt" 2>&1); then
    echo "a damaged checkpoint was accepted"; exit 1
fi
grep -q "checkpoint" <<<"$out" || { echo "unclear refusal: $out"; exit 1; }
echo "refusals ok"

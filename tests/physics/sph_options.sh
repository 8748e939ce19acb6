#!/usr/bin/env bash
# Every SPH option value builds and runs a tiny dam break without a non-finite value (a NaN
# or infinity stops a run with an error), in combinations that cover each kernel, density
# and viscosity model, boundary condition, density storage, XSPH, integrator, constants as
# #defines or kernel arguments, summation mode, position mode and neighbour mode. Options that change only how
# numbers are held (centred density, constants as arguments) end within float tolerance of
# the default run; and the tiny case on PoCL and under Oclgrind (no errors logged) ends within
# float tolerance of each other, for the default options, for the other kernels and for the
# x-pencil force kernel, which also ends where the cell search it replaces ends; lists of bits
# (the default) end where lists of indices end; so do the gauges with local positions.
set -uo pipefail
clpart=$1
case_file=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
combos=(
    "sph.kernel=wendland sph.density=continuity sph.viscosity=artificial core.summation=kahan grid.positions=global neighbors.mode=list sph.integrator=symplectic sph.boundary=mdbc"
    "sph.kernel=cubic sph.density=continuity sph.viscosity=laminar core.summation=naive grid.positions=local neighbors.mode=jit sph.integrator=predictor_corrector sph.xsph=true"
    "sph.kernel=wendland sph.density=summation sph.viscosity=laminar core.summation=kbn grid.positions=local neighbors.mode=list sph.centred_density=true core.inline_constants=false"
    "sph.kernel=cubic sph.density=summation sph.viscosity=artificial core.summation=kbn grid.positions=global neighbors.mode=jit sph.integrator=predictor_corrector sph.centred_density=true"
    "sph.kernel=wendland sph.delta=0 sph.viscosity=artificial core.summation=naive grid.sort=radix grid.key=morton sph.xsph=true sph.xsph_epsilon=0.3 core.inline_constants=false"
    "sph.kernel=cubic sph.density=continuity core.summation=kbn core.kbn_form=select neighbors.split=true sph.integrator=predictor_corrector sph.centred_density=true"
    "sph.diffusion=molteni sph.shifting=false sph.surface_floor=false sph.outliers=stop grid.positions=local sph.boundary=mdbc"
    "sph.shifting_coefficient=6 sph.density_min=0.5 sph.density_max=2 sph.speed_limit=0.5 sph.centred_density=true core.inline_constants=false sph.integrator=predictor_corrector"
)
for combo in "${combos[@]}"; do
    args=()
    for o in $combo; do args+=(-s "$o"); done
    if out=$("$clpart" run "$case_file" --out "$work/run" "${args[@]}" 2>&1 </dev/null); then
        echo "ok   $combo"
    else
        echo "FAIL $combo: $out"
        failures=$((failures + 1))
    fi
done

# compare DIR_A DIR_B LABEL [BOUND]: the final positions of two runs, matched by particle,
# within BOUND (1e-6 m unless given).
compare() {
    python3 - "$1/particles_00002.vtp" "$2/particles_00002.vtp" "$3" "${4:-1e-6}" <<'PY'
import re, struct, sys
def positions(path):
    data = open(path, "rb").read()
    head, raw = data.split(b'<AppendedData encoding="raw">', 1)
    raw = raw[raw.index(b"_") + 1:]
    at = int(re.search(rb'Name="position"[^>]*offset="(\d+)"', head).group(1))
    size = struct.unpack_from("<Q", raw, at)[0]
    ids = struct.unpack_from("<%dd" % (size // 8), raw, at + 8)
    return sorted(zip(ids[0::3], ids[1::3]))
a, b = positions(sys.argv[1]), positions(sys.argv[2])
worst = max(max(abs(p[0] - q[0]), abs(p[1] - q[1])) for p, q in zip(a, b))
bound = float(sys.argv[4])
print(f"{sys.argv[3]}: positions differ by at most {worst:.2e} m (bound {bound:g} m)")
sys.exit(len(a) != len(b) or worst > bound)
PY
}

# compare_gauges DIR_A DIR_B LABEL: the last rows of two runs' gauges.csv agree to 1e-4 of
# each value's size (sizes below 0.01, in the column's SI unit, count as 0.01).
compare_gauges() {
    python3 - "$1/gauges.csv" "$2/gauges.csv" "$3" <<'PY'
import csv, sys
a, b = (list(csv.DictReader(open(p)))[-1] for p in sys.argv[1:3])
worst = max(abs(float(a[k]) - float(b[k])) / max(abs(float(a[k])), abs(float(b[k])), 1e-2)
            for k in a if k not in ("time", "step"))
print(f"{sys.argv[3]}: gauges differ by at most {worst:.2e} of their size (bound 1e-4)")
sys.exit(worst > 1e-4)
PY
}

# Rebuilds forced by a particle that moved more than half the skin keep every pair: a list
# with a skin of 0.1 % rebuilt every 20 steps then ends where a run that rebuilds every step
# ends (without the forced rebuilds, missed pairs put it 3e-7 m off in 0.1 s).
python3 - "$case_file" "$work/long.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
case.update(end_time=0.1, output_interval=0.05)
json.dump(case, open(sys.argv[2], "w"))
PY
"$clpart" run "$work/long.json" --out "$work/every1" -s neighbors.every=1 >/dev/null 2>&1 </dev/null &&
    "$clpart" run "$work/long.json" --out "$work/forced" -s neighbors.every=20 \
        -s neighbors.skin=0.001 >/dev/null 2>&1 </dev/null &&
    compare "$work/every1" "$work/forced" "forced rebuilds against rebuilds every step" 1e-8 ||
    { echo "FAIL: forced rebuilds"; failures=$((failures + 1)); }

# Outliers. With sph.density_max 1, every fluid particle of the tiny case (6 x 12 on its
# lattice) starts above rho0 at hydrostatic density and is excluded in the first step; the
# run goes on, says so, and counts them. Without a tank the fluid falls out of the domain's
# floor; with sph.outliers=stop the first one to leave ends the run, named.
"$clpart" run "$case_file" --out "$work/dense" -s sph.density_max=1 >"$work/dense.log" 2>&1 </dev/null &&
    grep -q "step 0, t = 0 s: excluded 72 fluid particles (first: particle 0) that had a density outside \[700, 1000\]" "$work/dense.log" &&
    [ "$(tail -1 "$work/dense/diagnostics.csv" | cut -d, -f5,8)" = "0,72" ] &&
    echo "ok   the 72 fluid particles above sph.density_max are excluded and counted" ||
    { echo "FAIL: density outliers: $(cat "$work/dense.log")"; failures=$((failures + 1)); }
python3 - "$case_file" "$work/falling.json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
del case["tank"]
case.update(end_time=0.2, output_interval=0.1)
json.dump(case, open(sys.argv[2], "w"))
PY
"$clpart" run "$work/falling.json" --out "$work/falling" >"$work/falling.log" 2>&1 </dev/null &&
    grep -q "excluded .* that left the domain" "$work/falling.log" &&
    [ "$(tail -1 "$work/falling/diagnostics.csv" | cut -d, -f8)" = 72 ] &&
    echo "ok   fluid that falls out of the domain is excluded, 72 of 72" ||
    { echo "FAIL: falling fluid: $(tail -3 "$work/falling.log")"; failures=$((failures + 1)); }
if "$clpart" run "$work/falling.json" --out "$work/stop" -s sph.outliers=stop >"$work/stop.log" 2>&1 </dev/null ||
    ! grep -q "fluid particles\? (first: particle [0-9]*) left the domain; sph.outliers=exclude" "$work/stop.log"; then
    echo "FAIL: sph.outliers=stop: $(tail -3 "$work/stop.log")"
    failures=$((failures + 1))
else
    echo "ok   sph.outliers=stop ends the run at the first outlier"
fi

# PoCL against Oclgrind on the default options; the number-format options against the default,
# and local positions (with them, the gauges' searches around points).
"$clpart" run "$case_file" --out "$work/pocl" --device pocl >/dev/null 2>&1 </dev/null ||
    { echo "FAIL: the PoCL run"; exit 1; }
for variant in sph.centred_density=true core.inline_constants=false grid.positions=local; do
    "$clpart" run "$case_file" --out "$work/$variant" --device pocl -s "$variant" >/dev/null 2>&1 \
        </dev/null && compare "$work/pocl" "$work/$variant" "$variant against the default" &&
        compare_gauges "$work/pocl" "$work/$variant" "$variant against the default" ||
        { echo "FAIL: $variant"; failures=$((failures + 1)); }
done
# The x-pencil force kernel against the per-particle cell search it replaces, which visits
# the neighbours in the same order: with global and local positions, across a periodic axis,
# and with mDBC and the other kernels' options.
pencil_variants=("" "-s grid.positions=local" "-s grid.periodic_x=true"
    "-s sph.boundary=mdbc -s sph.xsph=true -s sph.viscosity=laminar -s core.summation=naive")
for variant in "${pencil_variants[@]}"; do
    # shellcheck disable=SC2086 # the variant is a list of flags
    "$clpart" run "$case_file" --out "$work/jit" --device pocl -s neighbors.mode=jit $variant \
        >/dev/null 2>&1 </dev/null &&
        "$clpart" run "$case_file" --out "$work/pencil" --device pocl -s neighbors.mode=jit \
            -s sph.strategy=x_pencil $variant >/dev/null 2>&1 </dev/null &&
        compare "$work/jit" "$work/pencil" "x_pencil against par_part ${variant:-(defaults)}" ||
        { echo "FAIL: x_pencil ${variant}"; failures=$((failures + 1)); }
done
# Lists of bits against lists of indices, which hold the same neighbours in the same order:
# the same run to the bit, with global positions, and with local ones across a periodic axis
# with mDBC, XSPH and the density by summation, there with the list of bits in 3 buffers
# (every kernel that reads it, the gauges' too, launched once a piece).
bits_local="-s grid.positions=local -s grid.periodic_x=true -s sph.boundary=mdbc -s sph.xsph=true"
bits_variants=("" "$bits_local -s sph.density=summation")
for variant in "${bits_variants[@]}"; do
    # shellcheck disable=SC2086 # the variant is a list of flags
    "$clpart" run "$case_file" --out "$work/index" --device pocl -s neighbors.format=index \
        $variant >/dev/null 2>&1 </dev/null &&
        "$clpart" run "$case_file" --out "$work/bits" --device pocl -s neighbors.format=bits \
            $variant ${variant:+-s neighbors.pieces=3} >/dev/null 2>&1 </dev/null &&
        compare "$work/index" "$work/bits" "bits against indices ${variant:-(defaults)}" 0 ||
        { echo "FAIL: neighbors.format=bits ${variant}"; failures=$((failures + 1)); }
done
if "$clpart" run "$case_file" --out "$work/refused" -s sph.strategy=x_pencil >"$work/refused.log" \
    2>&1 </dev/null || ! grep -q "set neighbors.mode=jit" "$work/refused.log"; then
    echo "FAIL: x_pencil with lists: $(cat "$work/refused.log")"
    failures=$((failures + 1))
else
    echo "ok   x_pencil with stored lists is refused with the reason"
fi

if command -v oclgrind >/dev/null; then
    unset CLPART_DEVICE # Oclgrind's is the only platform under it; PoCL's runs name theirs
    oclgrind --data-races --uninitialized --log "$work/oclgrind.log" \
        "$clpart" run "$case_file" --out "$work/oclgrind" --no-cache >/dev/null 2>&1 </dev/null ||
        { echo "FAIL: the Oclgrind run"; cat "$work/oclgrind.log"; exit 1; }
    if [ -s "$work/oclgrind.log" ]; then
        echo "FAIL: oclgrind reported:"; head -c 20000 "$work/oclgrind.log"; exit 1
    fi
    compare "$work/pocl" "$work/oclgrind" "PoCL and Oclgrind" || failures=$((failures + 1))
    # the list of bits in pieces under Oclgrind, against one buffer on PoCL
    oclgrind --data-races --uninitialized --log "$work/pieces.log" \
        "$clpart" run "$case_file" --out "$work/pieces" --no-cache -s neighbors.pieces=4 \
        >/dev/null 2>&1 </dev/null && [ ! -s "$work/pieces.log" ] ||
        { echo "FAIL: the Oclgrind run, a list in pieces"; head -c 20000 "$work/pieces.log"; exit 1; }
    compare "$work/pocl" "$work/pieces" "Oclgrind with a list in 4 pieces and PoCL in one" ||
        failures=$((failures + 1))
    # against_pocl NAME LABEL OPTION...: a run under Oclgrind with no message logged, ending
    # where the same run on PoCL ends.
    against_pocl() {
        local name=$1 label=$2
        shift 2
        oclgrind --data-races --uninitialized --log "$work/$name.log" \
            "$clpart" run "$case_file" --out "$work/$name" --no-cache "$@" \
            >/dev/null 2>&1 </dev/null && [ ! -s "$work/$name.log" ] ||
            { echo "FAIL: the Oclgrind run, $label"; head -c 20000 "$work/$name.log"; exit 1; }
        "$clpart" run "$case_file" --out "$work/$name-pocl" --device pocl "$@" >/dev/null 2>&1 \
            </dev/null && compare "$work/$name-pocl" "$work/$name" "PoCL and Oclgrind, $label" ||
            failures=$((failures + 1))
    }
    # The other kernels and modes under Oclgrind too, on both devices: summation density,
    # laminar viscosity, centred density, XSPH, the predictor-corrector, constants as kernel
    # arguments, local positions, cell search, rebuilds every 4 steps (the displacement check),
    # mDBC; then the x-pencil forces.
    against_pocl oclgrind2 "other kernels" -s sph.density=summation -s sph.viscosity=laminar \
        -s sph.centred_density=true -s sph.xsph=true -s sph.integrator=predictor_corrector \
        -s core.inline_constants=false -s grid.positions=local -s neighbors.mode=jit \
        -s core.summation=kbn -s neighbors.every=4 -s neighbors.skin=0.2 -s sph.boundary=mdbc
    against_pocl oclgrind3 x_pencil -s neighbors.mode=jit -s sph.strategy=x_pencil \
        -s grid.positions=local -s sph.boundary=mdbc
else
    echo "oclgrind is not installed"
    [ "${CI:-}" = true ] && failures=$((failures + 1))
fi
exit $((failures > 0))

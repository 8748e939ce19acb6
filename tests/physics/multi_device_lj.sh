#!/usr/bin/env bash
# The Lennard-Jones liquid split among several devices against the same case on one device:
# two and three PoCL devices in one process and, in a build with MPI, two and three MPI ranks
# (slabs along x, periodic: the first and last slab are neighbours across the wrap). Each split
# run must end with the one-device run's atom count exactly, a total momentum as near zero, and
# its total and potential energy and pressure within the tolerances given at `agree`. Also:
# atoms migrate between ranks, across an inner slab boundary and across the periodic wrap;
# par_part_loop and a sub-box strategy run split; rebuilds on moves (neighbors.check) agree
# among the ranks; and what a split run refuses
# (lj.strategy=auto, more ranks than slabs of 2 cell layers, the PSO and repulsive models)
# ends with one message; a list that does not fit the device (lj.fit_device).
set -uo pipefail
clpart=$1
with_mpi=${2:-no}
. "$(dirname "$0")/../cli/common.sh"
pocl_only
mpirun_=(mpirun --oversubscribe --allow-run-as-root)

# The small liquid of cases/lj_liquid_small.json at 4000 atoms (10 FCC cells, box 16.8) with
# rc 2.2, so that the search radius rc (1 + skin) = 2.64 gives 6 cell layers per axis: 3 slabs
# of 2. 200 steps (t = 1): the lattice melts and atoms cross the slabs' boundaries.
case=$work/liquid.json
python3 - "$CLPART_DATA_DIR/cases/lj_liquid_small.json" "$case" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["lj"]["fcc_cells"], c["lj"]["rc"] = 10, 2.2
c["steps"], c["output_every"] = 200, 50
json.dump(c, open(sys.argv[2], "w"))
PY

# run NAME HOW [ARGS...]: the case into $work/NAME on 1 device ("one"), on N PoCL devices in
# one process ("threads N") or as N MPI ranks ("mpi N").
run() {
    local name=$1 how=$2
    shift 2
    case $how in
    one) POCL_DEVICES=pthread "$clpart" run "$case" --out "$work/$name" "$@" ;;
    threads*)
        pocl_split "${how#threads }" timeout 300 "$clpart" run "$case" --out "$work/$name" "$@" ;;
    mpi*)
        POCL_DEVICES=pthread timeout 300 "${mpirun_[@]}" -np "${how#mpi }" "$clpart" run \
            "$case" --out "$work/$name" "$@" ;;
    esac >"$work/$name.log" 2>&1
    local status=$?
    [ "$status" -eq 0 ] || fail "$name ($how $*) exited $status: $(tail -3 "$work/$name.log")"
}

# agree REFERENCE RUN: the last rows of the diagnostics and the summaries. The ranks add each
# atom's pair forces in another order than one device (a halo's atoms come in the owner's
# order, and a position across the wrap is shifted by the box length in float), and the
# diagnostics' sums go rank by rank; so the trajectories part by rounding, and in a liquid such
# differences grow with time. After 200 steps they are about 1e-8 of the energies and 2e-5 in
# the pressure (about 0.65) here. The bounds, 1e-6 of the energies and 5e-3 in the pressure,
# sit well above that and far below what a halo that missed a layer or a step gives (whole
# pair energies off). The momentum starts at zero to 1e-5; a force without its partner would
# push it to order 1, so it must stay below 1e-6 of N times the rms speed (about 6e-3).
agree() {
    python3 - "$work/$1" "$work/$2" <<'PY'
import csv, json, math, sys
def last(d):
    return list(csv.DictReader(open(d + "/diagnostics.csv")))[-1]
a, b = (last(d) for d in sys.argv[1:3])
sa, sb = (json.load(open(d + "/summary.json")) for d in sys.argv[1:3])
bad = []
if a["step"] != b["step"] or sa["particles"] != sb["particles"]:
    bad.append(f"step {b['step']} and {sb['particles']} atoms, not {a['step']} and {sa['particles']}")
for k in ("total", "potential"):
    x, y = float(a[k]), float(b[k])
    if abs(x - y) > 1e-6 * abs(x):
        bad.append(f"{k} {y} not {x}")
if abs(float(a["pressure"]) - float(b["pressure"])) > 5e-3:
    bad.append(f"pressure {b['pressure']} not {a['pressure']}")
n, kinetic = sb["particles"], float(b["kinetic"])
bound = 1e-6 * n * math.sqrt(2 * kinetic / n)
if float(b["momentum"]) > bound:
    bad.append(f"momentum {b['momentum']} above {bound:.3g}")
print(f"{sys.argv[2].split('/')[-1]}: " + ("; ".join(bad) if bad else "agrees") +
      f" (total {b['total']} against {a['total']}, momentum {b['momentum']})")
sys.exit(1 if bad else 0)
PY
    [ $? -eq 0 ] || fail "$2 differs from $1"
}

run one one
run two-threads "threads 2" --log run
agree one two-threads
# Rank 0's neighbour below is the last rank, across the periodic wrap; above, across an inner
# boundary: atoms must have gone both ways.
grep -qE "device rank 0 rebuilds: [1-9][0-9]* and" "$work/two-threads.log" ||
    fail "no atom crossed the periodic wrap: $(grep -c rebuilds "$work/two-threads.log") rebuilds logged"
grep -qE "device rank 0 rebuilds: [0-9]+ and [1-9][0-9]* particles leave" "$work/two-threads.log" ||
    fail "no atom crossed the inner slab boundary"
run three-threads "threads 3"
agree one three-threads
if [ "$with_mpi" = mpi ]; then
    run two-ranks "mpi 2"
    agree one two-ranks
    run three-ranks "mpi 3"
    agree one three-ranks
fi
# The strategies other than par_part run over the whole slab, halo layers and free slots
# included: par_part_loop's loop, and a sub-box strategy searching the cells itself.
run loop-two "threads 2" -s lj.strategy=par_part_loop
agree one loop-two
run pencil-two "threads 2" -s neighbors.mode=jit -s lj.strategy=x_pencil
agree one pencil-two
# neighbors.check: lists meant to live 40 steps, which the fastest atoms outrun, rebuilt as
# their moves require. The ranks rebuild together on the largest move of any (one that
# rebuilt alone would wait forever for its neighbours' halos), and every run ends as the
# one-device run on the fixed schedule does.
check=(-s neighbors.check=true -s neighbors.every=40)
run check-one one "${check[@]}"
agree one check-one
run check-two "threads 2" "${check[@]}"
agree one check-two
if [ "$with_mpi" = mpi ]; then
    run check-ranks "mpi 2" "${check[@]}"
    agree one check-ranks
fi

# lj.fit_device: on devices taken to have 1 GiB that allow 256 MiB in one buffer
# (CLPART_DEVICE_MEMORY), the list of a liquid of 1M atoms (64 FCC cells) fits neither one
# device nor either of two ranks: they run with the cell search, say so, and end as the run
# with its list on a device without the limit does; with the option off the run is refused.
case=$work/big.json
python3 - "$CLPART_DATA_DIR/cases/lj_liquid_small.json" "$case" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["lj"]["fcc_cells"], c["steps"], c["output_every"] = 64, 4, 2
json.dump(c, open(sys.argv[2], "w"))
PY
run big-list one
fit_runs=(big-one one big-split "threads 2")
[ "$with_mpi" = mpi ] && fit_runs=(big-one one big-split "mpi 2") # the same rank code
for ((k = 0; k < ${#fit_runs[@]}; k += 2)); do
    CLPART_DEVICE_MEMORY=1G,256M run "${fit_runs[k]}" "${fit_runs[k + 1]}"
    grep -qE "(device rank 1: )?[0-9]+ atoms with a stored neighbour list .* running with the cell search \(neighbors.mode=jit" \
        "$work/${fit_runs[k]}.log" || fail "${fit_runs[k]} kept its list: $(grep -m1 . "$work/${fit_runs[k]}.log")"
    agree big-list "${fit_runs[k]}"
done
out=$(CLPART_DEVICE_MEMORY=1G,256M POCL_DEVICES=pthread timeout 300 "$clpart" run "$case" \
    -s lj.fit_device=false --out "$work/big-refused" 2>&1)
[ $? -eq 1 ] && grep -q "the neighbour list of [0-9]* particles with room for [0-9]* neighbours each needs" <<<"$out" ||
    fail "lj.fit_device=false was not refused: $out"
case=$work/liquid.json

# What a split run refuses: one message, a non-zero exit, no hang.
expect_error() {
    local pattern=$1 devices=$2
    shift 2
    local out
    out=$(POCL_DEVICES=$devices timeout 300 "$clpart" run "$@" \
        --devices "$(POCL_DEVICES=$devices devices_of pocl)" --out "$work/refused" 2>&1)
    local status=$?
    [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "'$*' exited $status: $out"
    grep -qE -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}
two="pthread pthread"
expect_error "lj.strategy=auto times the strategies on one device" "$two" "$case" \
    -s lj.strategy=auto
expect_error "6 cells of the search radius along x: a slab needs 2, so it splits among at most 3 devices, not 4" \
    "pthread pthread pthread pthread" "$case"
expect_error "model 'pso' runs on one device only" "$two" "$CLPART_DATA_DIR/cases/pso_sphere_128.json"
expect_error "model 'repulsive' runs on one device only" "$two" \
    "$CLPART_DATA_DIR/cases/repulsive_24_2d.json"

echo "$failures failures"
[ "$failures" -eq 0 ]

#!/usr/bin/env bash
# One SPH case split among several devices against the same case on one device: two and
# three PoCL devices in one process and, in a build with MPI, two and three MPI ranks. Each
# split run must end with the one-device run's count of particles in the computation, of
# excluded particles and its fluid mass exactly (a split run's snapshots leave out excluded
# particles, which a one-device run keeps as type 255), and its
# kinetic energy, fastest speed and front within 1e-4 of their size (the ranks add the same
# forces in another order, so rounding differs; a halo that missed a layer or a step puts
# them off by far more). Also: particles migrate between ranks, the predictor-corrector with
# mDBC and summed density, a periodic axis that the fluid crosses, a slab that holds no
# particle, a device too slow to take a slab left out (the other then runs as one device), the split by probed speeds (--weights
# auto), --timing's line per device, the gauges as MPI ranks, the single-device options refused, and a rank that runs
# out of room ending the run with a message and no hang; a rank's list that does not fit its
# device (sph.fit_device).
set -uo pipefail
clpart=$1
with_mpi=${2:-no}
. "$(dirname "$0")/../cli/common.sh"
pocl_only
dam_break=$CLPART_DATA_DIR/cases/dam_break_2d.json
mpirun_=(mpirun --oversubscribe --allow-run-as-root)

# run NAME DEVICES [ARGS...]: the dam break (or $case) into $work/NAME on 1 device, on N
# PoCL devices in one process ("threads N") or as N MPI ranks ("mpi N").
case=$dam_break
run() {
    local name=$1 how=$2
    shift 2
    local status
    case $how in
    one) POCL_DEVICES=pthread "$clpart" run "$case" --out "$work/$name" "$@" >"$work/$name.log" 2>&1 ;;
    threads*)
        pocl_split "${how#threads }" timeout 300 "$clpart" run "$case" --out "$work/$name" "$@" \
            >"$work/$name.log" 2>&1 ;;
    mpi*)
        POCL_DEVICES=pthread timeout 300 "${mpirun_[@]}" -np "${how#mpi }" "$clpart" run "$case" \
            --out "$work/$name" "$@" >"$work/$name.log" 2>&1 ;;
    esac
    status=$?
    [ "$status" -eq 0 ] || fail "$name ($how $*) exited $status: $(tail -3 "$work/$name.log")"
}

# agree REFERENCE RUN: the last diagnostics and the last snapshot's particle count.
agree() {
    python3 "$(dirname "$0")/sph_agree.py" "$work/$1" "$work/$2" ${3:-} || fail "$2 differs from $1"
}

# The dam break to 0.03 s: the wave is running along the floor across the slab boundary.
run one one --time 0.03
run two-threads "threads 2" --time 0.03 --log run
agree one two-threads
grep -qE "[1-9][0-9]* and [0-9]+ come in|[0-9]+ and [1-9][0-9]* come in" "$work/two-threads.log" ||
    fail "no particle moved from one device to another: $(grep -c rebuilds "$work/two-threads.log") rebuilds logged"
# --weights auto: the split by the devices' measured copy bandwidths
run three-threads "threads 3" --time 0.03 --weights auto -v
grep -q "device rank 2 (.*): copy bandwidth [0-9]* GB/s" "$work/three-threads.log" ||
    fail "--weights auto probed no bandwidth: $(grep -m1 'rank 2' "$work/three-threads.log")"
agree one three-threads
# A device too slow to take even its thinnest slab without holding the other back is left
# out with a warning, and the other runs the case alone, unsplit: bit for bit as one device.
same_end() {
    [ "$(tail -1 "$work/$1/diagnostics.csv")" = "$(tail -1 "$work/$2/diagnostics.csv")" ] ||
        fail "$2 alone did not end as $1: $(tail -1 "$work/$2/diagnostics.csv")"
}
run slow-two "threads 2" --time 0.03 --weights 100,1
grep -q "device rank 1 is left out" "$work/slow-two.log" || fail "the slow device was not left out"
same_end one slow-two
# its checkpoint names no device (the run was split): one device takes it up, cut again
run slow-two "one" --time 0.035 --restart "$work/slow-two/checkpoint.ckpt" -v
grep -q "of 1 device continues on 1: .* cut again" "$work/slow-two.log" ||
    fail "one device did not take up the checkpoint of a device left alone"
# Gauges as MPI ranks (physics/gauges splits them in one process): rank 0 writes what the
# ranks sampled, as one device does.
case=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
if [ "$with_mpi" = mpi ]; then
    run gauges-one one
    run gauges-ranks "mpi 2"
    python3 "$(dirname "$0")/gauges_agree.py" "$work/gauges-one" "$work/gauges-ranks" ||
        fail "the MPI ranks' gauges differ from one device's"
fi
case=$dam_break
if [ "$with_mpi" = mpi ]; then
    run two-ranks "mpi 2" --time 0.03 --weights auto
    agree one two-ranks
    run slow-ranks "mpi 2" --time 0.03 --weights 100,1
    grep -q "device rank 1 is left out" "$work/slow-ranks.log" || fail "no MPI rank was left out"
    same_end one slow-ranks
    run three-ranks "mpi 3" --time 0.03
    agree one three-ranks
fi

# Predictor-corrector, mDBC boundaries and summed density: the halo refreshed in each half
# step and the densities before the forces.
pc=(-s sph.integrator=predictor_corrector -s sph.boundary=mdbc -s sph.density=summation)
run pc-one one --time 0.01 "${pc[@]}"
run pc-two "threads 2" --time 0.01 "${pc[@]}" --timing
agree pc-one pc-two
# --timing ends with a line per device, whose particles add up to the case's less those
# excluded (the last column of diagnostics.csv)
excluded=$(tail -1 "$work/pc-two/diagnostics.csv" | awk -F, '{ print $NF }')
awk -v excluded="$excluded" '/^timing: [0-9]+ steps of/ { total = $5 }
    /^timing: +[0-9]+ +[0-9]+ / { n++; sum += $3 }
    END { exit !(n == 2 && sum + excluded == total) }' "$work/pc-two.log" ||
    fail "--timing's lines per device: $(grep '^timing' "$work/pc-two.log" | tail -3)"

# mDBC with a thin first slab: a wall particle reads the fluid around its ghost node, up to a
# wall's thickness beyond its halo, so the cut keeps the two on one device. After 0.04 s the
# order of the sums moves the kinetic energy by about 2e-9 of its size; a cut between a wall
# particle and its ghost node moved it by 1e-6, hence the tighter tolerance.
run mdbc-one one --time 0.04 -s sph.boundary=mdbc
run mdbc-thin "threads 2" --time 0.04 -s sph.boundary=mdbc --weights 1,20
agree mdbc-one mdbc-thin 1e-7

# A periodic x axis: fluid starting against the boundary at x = 0.3 flows through it and
# comes out at x = 0 on the other rank's side.
python3 - "$work/periodic.json" <<'PY'
import json, sys
json.dump({"model": "sph",
           "options": {"core.dim": 2, "neighbors.mode": "list", "neighbors.skin": 0.1,
                       "neighbors.every": 8, "grid.periodic_x": True},
           "domain": {"origin": [0, -0.02], "size": [0.3, 0.2]},
           "sph": {"dp": 0.004, "h_over_dp": 1.3, "rho0": 1000, "gravity": [0, -9.81],
                   "alpha": 0.02, "cfl": 0.1},
           "fluid": [{"min": [0.2, 0], "max": [0.3, 0.08]}],
           "walls": [{"min": [0, -0.012], "max": [0.3, 0]}],
           "end_time": 0.06, "output_interval": 0.03}, open(sys.argv[1], "w"))
PY
case=$work/periodic.json
run periodic-one one
run periodic-two "threads 2" -s dist.axis=x
agree periodic-one periodic-two
python3 - "$work/periodic-two" <<'PY' || fail "no fluid crossed the periodic boundary"
import re, struct, sys
d = sys.argv[1]
last = re.findall(r'file="([^"]+)"', open(d + "/particles.pvd").read())[-1].split("/")[-1]
data = open(d + "/" + last, "rb").read()
head, raw = data.split(b'<AppendedData encoding="raw">', 1)
raw = raw[raw.index(b"_") + 1:]
def array(name, fmt):
    at = int(re.search(rb'Name="%s"[^>]*offset="(\d+)"' % name.encode(), head).group(1))
    size = struct.unpack_from("<Q", raw, at)[0]
    return struct.unpack_from("<%d%s" % (size // struct.calcsize(fmt), fmt), raw, at + 8)
xyz, types = array("position", "d"), array("type", "I")
crossed = sum(1 for i, t in enumerate(types) if t == 0 and xyz[3 * i] < 0.1)
print(f"periodic: {crossed} fluid particles came through x = 0.3 to x < 0.1")
sys.exit(crossed == 0)
PY

# A slab with no particle: the domain runs 0.6 m past the tank, and the third rank, weighted
# as a thousandth of the others, gets the least a slab has (2 cell layers), beyond the tank,
# and keeps it (no rebalancing, which would give it particles, and not left out, as a device
# with nothing to do would be).
python3 - "$dam_break" "$work/wide.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["domain"]["size"][0] = 1.2
c["end_time"], c["output_interval"] = 0.01, 0.01
json.dump(c, open(sys.argv[2], "w"))
PY
case=$work/wide.json
run wide-one one
run wide-three "threads 3" -s dist.axis=x -s dist.rebalance=0 -s dist.leave_out=false \
    --weights 1,1,0.001 -v
grep -q "device rank 2: cell layers .*, 0 particles" "$work/wide-three.log" ||
    fail "the third slab was not empty: $(grep 'device rank 2:' "$work/wide-three.log")"
agree wide-one wide-three

# sph.fit_device split: on devices taken to have 1 GiB that allow 256 MiB in one buffer
# (CLPART_DEVICE_MEMORY), a rank's stored list of indices of the 3D dam break at about 1M
# particles would not fit, so every rank runs with a list of bits, and ends as one device does
# (which takes bits too); with the list's size fixed (neighbors.max) every rank runs without a list, and ends
# there too; with the option off the split run with indices is refused.
python3 - "$CLPART_DATA_DIR/cases/dam_break_3d.json" "$work/big3d.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["sph"]["dp"] = 0.00116
json.dump(c, open(sys.argv[2], "w"))
PY
case=$work/big3d.json
export CLPART_DEVICE_MEMORY=1G,256M
run fit-one one --steps 2 -s neighbors.format=index
grep -q "running with a list of bits (neighbors.format=bits)" "$work/fit-one.log" ||
    fail "fit-one did not take a list of bits: $(grep -m1 warning "$work/fit-one.log")"
fit_runs=(fit-split "threads 2")
[ "$with_mpi" = mpi ] && fit_runs=(fit-split "mpi 2") # the same rank code
for ((k = 0; k < ${#fit_runs[@]}; k += 2)); do
    run "${fit_runs[k]}" "${fit_runs[k + 1]}" --steps 2 -s neighbors.format=index
    grep -q "device rank 1: [0-9]* particles with a stored neighbour list .* running with a list of bits (neighbors.format=bits)" \
        "$work/${fit_runs[k]}.log" || fail "${fit_runs[k]} kept its list: $(grep -m1 warning "$work/${fit_runs[k]}.log")"
    agree fit-one "${fit_runs[k]}"
done
run fit-split-jit "threads 2" --steps 2 -s neighbors.max=150
grep -q "device rank 1: [0-9]* particles with a stored neighbour list .* running without one (neighbors.mode=jit on every rank)" \
    "$work/fit-split-jit.log" || fail "fit-split-jit kept its list: $(grep -m1 warning "$work/fit-split-jit.log")"
agree fit-one fit-split-jit
unset CLPART_DEVICE_MEMORY

# What a split run refuses, and a rank out of room: one message, a non-zero exit, no hang.
case=$dam_break
expect_error() {
    local pattern=$1
    shift
    local out
    out=$(pocl_split 2 timeout 300 "$clpart" run "$@" --out "$work/refused" 2>&1)
    local status=$?
    [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "'$*' exited $status: $out"
    grep -qE -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}
CLPART_DEVICE_MEMORY=1G,256M expect_error 'the case.s buffer "neib_list" needs .* GiB for [0-9]+ particles, more than the largest allocation' \
    "$work/big3d.json" -s sph.fit_device=false -s neighbors.format=index --steps 2
expect_error "grid.key=morton is single-device only" "$case" -s grid.key=morton
expect_error "grid.positions=local is single-device only" "$case" -s grid.positions=local
expect_error "model 'pso' runs on one device only" "$CLPART_DATA_DIR/cases/pso_sphere_128.json"
expect_error "neighbors.pieces splits the list of a run on one device" "$case" -s neighbors.pieces=2
# (every particle weighed alike: rank 1 then starts with the least fluid, and the wave brings
# the most into it)
expect_error "device rank 1: [0-9]+ particles and halo need more than its [0-9]+ slots; raise dist.room" \
    "$case" -s dist.room=0 -s dist.boundary_cost=1 --time 0.06

echo "$failures failures"
[ "$failures" -eq 0 ]

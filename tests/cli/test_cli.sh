#!/usr/bin/env bash
# The command line end to end on the default device: usage and input errors (message, place,
# exit code), cache hits across processes, corrupt and unwritable caches, two processes
# building one key, a build error mapped to its cl/ file, an install outside the tree,
# Lennard-Jones runs (diagnostics against independent values, and bad LJ cases), particle
# swarm runs (optima known analytically, bests recomputed here, and bad PSO cases), and
# repulsive-particle designs (criteria recomputed here against a lattice, and bad cases),
# and the neighbour search (its commands, summary and bad cases).
set -uo pipefail
clpart=$1
case_file=$CLPART_DATA_DIR/cases/selftest.json
. "$(dirname "$0")/common.sh"
unset CLPART_NO_CACHE # the binary cache is under test here

expect 0 "usage: clpart" -- "$clpart" --help
# a command's own --help names its flags, runs nothing, and wins over a missing case file
expect 0 "usage: clpart sweep CASE .*--combos FILE" -- "$clpart" sweep --help
expect 0 "usage: clpart run CASE" -- "$clpart" run no-such-case.json -h
expect 2 "unknown command 'frobnicate'" -- "$clpart" frobnicate
expect 2 "--device needs a value" -- "$clpart" devices --device
expect 0 "core.summation" -- "$clpart" options
"$clpart" options --json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert any(o["name"]=="core.summation" for o in d)' ||
    fail "options --json is not a JSON list naming core.summation"
# clpart models: every model, each stage's condition an option and value that the schema has.
python3 - "$clpart" <<'PY' || fail "models --json disagrees with options --json"
import json, subprocess, sys
models = json.loads(subprocess.run([sys.argv[1], "models", "--json"], capture_output=True, check=True).stdout)
options = {o["name"]: o for o in json.loads(subprocess.run([sys.argv[1], "options", "--json"], capture_output=True, check=True).stdout)}
assert [m["name"] for m in models] == ["sph", "lj", "pso", "repulsive", "search", "selftest", "harmonic"], models
for m in models:
    assert all(any(o.startswith(mod + ".") for o in options) for mod in m["modules"]), m["modules"]
    for stage in m["stages"]:
        if "when" in stage:
            name, value = stage["when"].replace("!=", "=").split("=")
            assert value in options[name]["values"], stage
PY
expect 2 "unknown argument '--x'" -- "$clpart" models --x
expect 0 "Portable Computing Language" -- "$clpart" devices
"$clpart" devices --json | python3 -c 'import json,sys; json.load(sys.stdin)' || fail "devices --json is not JSON"
expect 1 "no device matches 'no-such-device'.*0: " -- "$clpart" selftest --device no-such-device
expect 1 "no device matches 'no-such-device'" -- env CLPART_DEVICE=no-such-device "$clpart" build "$case_file"
# Short names of implementations: PoCL's platform is "Portable Computing Language".
expect 0 "^(built|cache hit) .* on device [0-9]+ \(" -- "$clpart" build "$case_file" --device pocl --no-cache
expect 1 "no device matches 'rocm' \(platform 'AMD Accelerated Parallel Processing'\); devices: 0: " -- \
    "$clpart" build "$case_file" --device rocm

# Option errors: named, placed, suggested, and nothing runs.
expect 1 "did you mean 'core.summation'" -- "$clpart" source "$case_file" -s core.sumation=kbn
expect 1 "selftest.n.*range" -- "$clpart" source "$case_file" -s selftest.n=1
expect 1 "core.kbn_form.*core.summation" -- "$clpart" source "$case_file" -s core.kbn_form=select
expect 2 "-s needs a value" -- "$clpart" source "$case_file" -s
expect 2 "a case file is needed" -- "$clpart" source
expect 1 "cannot open" -- "$clpart" source "$work/missing.json"
printf '{\n  "model": "selftest",\n  "options": { "core.summation": "kbn" "selftest.n": 5 }\n}\n' >"$work/bad.json"
expect 1 "at $work/bad.json:3:" -- "$clpart" source "$work/bad.json"
printf '{ "model": "nosuchmodel" }\n' >"$work/nomodel.json"
expect 1 "unknown model 'nosuchmodel'" -- "$clpart" source "$work/nomodel.json"

# Source: deterministic, locale-independent, each file behind its #line.
"$clpart" source "$case_file" >"$work/a.cl" || fail "source failed"
LC_ALL=de_DE.UTF-8 "$clpart" source "$case_file" >"$work/b.cl" 2>/dev/null || fail "source failed under de_DE"
cmp -s "$work/a.cl" "$work/b.cl" || fail "source differs between runs or locales"
grep -q '^#line 1 "cl/common/summation.cl"$' "$work/a.cl" || fail "no #line for summation.cl"
expect 0 "CLP_CORE_SUMMATION 2 /\* kbn \*/" -- "$clpart" source "$case_file" -p kbn-select
expect 2 "unknown preset|no preset" -- "$clpart" source "$case_file" -p nosuchpreset

# An SPH case's source, whose constants come from its geometry.
expect 0 '^#line 1 "cl/sph/sph.cl"$' -- "$clpart" source "$CLPART_DATA_DIR/cases/dam_break_2d.json"
expect 0 "^#define CLP_GRID_PARTICLES [0-9]+" -- "$clpart" source "$CLPART_DATA_DIR/cases/dam_break_2d.json"

# neighbors.max is a host setting without a define: no program depends on it (it sizes a
# list of indices; SPH's default list is of bits).
"$clpart" source "$CLPART_DATA_DIR/cases/dam_break_2d.json" -s neighbors.max=64 \
    -s neighbors.format=index >"$work/max64.cl" 2>&1
"$clpart" source "$CLPART_DATA_DIR/cases/dam_break_2d.json" -s neighbors.format=index \
    >"$work/max0.cl" 2>&1
cmp -s "$work/max64.cl" "$work/max0.cl" || fail "neighbors.max changes the device source"
"$clpart" options --json | python3 -c 'import json,sys; d={o["name"]: o for o in json.load(sys.stdin)}; sys.exit(d["neighbors.max"]["define"] is not None or d["neighbors.max"]["default"] != 0)' ||
    fail "options --json: neighbors.max should default to 0 and have no define"

# Constants as a kernel argument: the source no longer holds their values, so a case that
# differs only in a physical constant builds the same program.
dam2d=$CLPART_DATA_DIR/cases/dam_break_2d.json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["sph"]["alpha"]=0.05; c["sph"]["rho0"]=998; json.dump(c,open(sys.argv[2],"w"))' \
    "$dam2d" "$work/other_constants.json"
expect 0 '^#define CLP_SPH_RHO0 \(clp_constants\[[0-9]+\]\)$' -- "$clpart" source "$dam2d" -s core.inline_constants=false
"$clpart" source "$dam2d" -s core.inline_constants=false >"$work/args_a.cl" 2>&1
"$clpart" source "$work/other_constants.json" -s core.inline_constants=false >"$work/args_b.cl" 2>&1
cmp -s "$work/args_a.cl" "$work/args_b.cl" || fail "constants as arguments: the source depends on their values"
"$clpart" source "$dam2d" >"$work/inline_a.cl" 2>&1
"$clpart" source "$work/other_constants.json" >"$work/inline_b.cl" 2>&1
cmp -s "$work/inline_a.cl" "$work/inline_b.cl" && fail "inlined constants: the source does not hold their values"

# Wall boxes add boundary particles on the lattice: 0.05 x 0.03 m at dp 0.01 is 5 x 3.
tiny=$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); del c["walls"], c["gauges"]; json.dump(c,open(sys.argv[2],"w")); c["walls"]=[{"min":[0.2,0],"max":[0.25,0.03]}]; json.dump(c,open(sys.argv[3],"w")); c["walls"]=[{"min":[0.2,0]}]; json.dump(c,open(sys.argv[4],"w"))' \
    "$tiny" "$work/no_walls.json" "$work/walls.json" "$work/bad_walls.json"
# the prelude's count, not the default of cl/grid/grid.cl further down
count() { "$clpart" source "$1" | sed -n 's/^#define CLP_GRID_PARTICLES \([0-9]*\).*/\1/p' | head -1; }
[ "$(( $(count "$work/walls.json") - $(count "$work/no_walls.json") ))" -eq 15 ] ||
    fail "a 5 x 3 wall box did not add 15 particles"
expect 1 "'max' must be an array of 2 numbers" -- "$clpart" source "$work/bad_walls.json"

# Boxes out of place and unknown keys are refused before anything runs, naming the box and
# the bound it crosses, or the key; nothing is written. The dam break's tank is [0, 0.5] x [0, 0.16], open at the top,
# with 3 layers of 0.002286 outside it; its domain is [-0.02, 0.52] x [-0.02, 0.18].
geometry_refused() {
    local pattern=$1
    shift
    variant "$(cat "$dam2d")" "$work/geometry.json" "$@"
    expect 1 "$pattern" -- "$clpart" run "$work/geometry.json" --out "$work/geometry_out"
    [ ! -e "$work/geometry_out" ] || fail "a refused case wrote $work/geometry_out"
}
geometry_refused "'fluid'\[0\] reaches x = 0.6, beyond the tank's inner box, which ends at x = 0.5" \
    'fluid=[{"min": [0, 0], "max": [0.6, 0.1]}]'
geometry_refused "'fluid'\[0\] reaches y = 0.2, beyond the domain, which ends at y = 0.18" \
    'fluid=[{"min": [0, 0], "max": [0.05, 0.2]}]'
geometry_refused "'fluid'\[0\] reaches x = -0.01, beyond the tank's inner box, which begins at x = 0" \
    'fluid=[{"min": [-0.01, 0], "max": [0.05, 0.1]}]'
geometry_refused "the tank with its wall layers reaches x = 0.526858, beyond the domain, which ends at x = 0.52" \
    'tank/max=[0.52, 0.16]'
geometry_refused "'walls'\[1\] reaches y = 0.3, beyond the domain, which ends at y = 0.18" \
    'walls=[{"min": [0.3, 0], "max": [0.32, 0.02]}, {"min": [0.4, 0], "max": [0.42, 0.3]}]'
geometry_refused "'fluid'\[0\] and 'walls'\[0\] share space" \
    'walls=[{"min": [0.04, 0], "max": [0.06, 0.02]}]'
# Gauges outside the domain, or measuring a wall box the case does not have.
geometry_refused "'gauges.points'\[0\] must be 2 numbers inside the domain \(axis 0 from -0.02 to 0.52\)" \
    'gauges={"interval": 0.01, "points": [[0.6, 0.05]]}'
geometry_refused "'gauges.walls'\[0\] must be the index of a box of 'walls', and the case has 0" \
    'gauges={"interval": 0.01, "walls": [0]}'
# Misspelt keys are refused with the closest name, at the top, in sections and in boxes.
geometry_refused "unknown key 'end_tme'; did you mean 'end_time'" end_tme=0.1
geometry_refused "unknown key 'sph.alpah'; did you mean 'alpha'" sph/alpah=0.1
geometry_refused "unknown key 'fluid\[0\].mx'; did you mean 'max'" \
    'fluid=[{"min": [0, 0], "mx": [0.05, 0.1]}]'
# Fluid above an open tank's rim is allowed (it falls in), as is a wall box touching the fluid.
variant "$(cat "$dam2d")" "$work/rim.json" 'fluid=[{"min": [0, 0], "max": [0.05, 0.17]}]' \
    'walls=[{"min": [0.05, 0], "max": [0.07, 0.02]}]'
expect 0 "^#define CLP_GRID_PARTICLES" -- "$clpart" source "$work/rim.json"

# Cases too large are refused before anything starts, with the figure; nothing is written. The
# device is taken to have 4 GiB, of which 1 GiB in one allocation (CLPART_DEVICE_MEMORY), so
# that the refusals do not depend on the machine's devices; a machine with less host memory
# than that refuses the 261M particles for the host's.
export CLPART_DEVICE_MEMORY=4G,1G
dam3d=$CLPART_DATA_DIR/cases/dam_break_3d.json
for scale in 40 200; do
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["sph"]["dp"]/=float(sys.argv[3]); json.dump(c,open(sys.argv[2],"w"))' \
        "$dam3d" "$work/huge$scale.json" "$scale"
done
expect 1 "needs [0-9.]+ GiB of device memory for [0-9]+ particles .*more than the 4.00 GiB of device|[0-9]+ particles take [0-9.]+ GiB of host memory" -- \
    "$clpart" run "$work/huge40.json" --out "$work/huge_out"
expect 1 "gives [0-9]+ particles; clpart handles fewer than 2\^31" -- "$clpart" run "$work/huge200.json" --out "$work/huge_out"
# A case that fits the device in all but whose neighbour list exceeds its largest allocation.
# over_alloc SLOTS H_OVER_DP FILE: the 3D dam break with h = H_OVER_DP dp and as many
# particles as make a list of SLOTS uints each 1.3 times the largest allocation (1 GiB)
over_alloc() {
    python3 - "$dam3d" "$3" "$clpart" "$1" "$2" <<'PY'
import json, re, subprocess, sys
src, dst, clpart, slots, h_over_dp = sys.argv[1:]
target = 1.3 * 2**30 / (4 * int(slots))
case = json.load(open(src))
case["sph"]["h_over_dp"] = float(h_over_dp)
case["end_time"] = 1e-5  # in case it is not refused
for _ in range(4):
    json.dump(case, open(dst, "w"))
    source = subprocess.run([clpart, "source", dst], capture_output=True, text=True).stdout
    n = int(re.search(r"#define CLP_GRID_PARTICLES (\d+)", source).group(1))
    case["sph"]["dp"] *= (n / target) ** (1 / 3)
PY
}
over_alloc 129 1.3 "$work/over_alloc.json" # neighbors.max 128, and an end marker
expect 1 'buffer "neib_list" needs [0-9.]+ GiB for [0-9]+ particles, more than the largest allocation' -- \
    "$clpart" run "$work/over_alloc.json" --out "$work/huge_out" -s neighbors.max=128 \
    -s sph.fit_device=false
# By default such a case runs without a list, and says so.
expect 0 "running without one \(neighbors.mode=jit, sph.strategy=x_pencil\)" -- \
    "$clpart" source "$work/over_alloc.json" -s neighbors.max=128
"$clpart" source "$work/over_alloc.json" -s neighbors.max=128 2>/dev/null |
    grep "^#define CLP_SPH_STRATEGY 1" >/dev/null || fail "the list-free program was not chosen"
# A list sized from the counts (neighbors.max 0) is counted as its first build will size it,
# from the start lattice: with h = 4 dp a particle has about 2850 neighbours within 2.2 h,
# and the list holds 25 % more.
over_alloc 3570 4 "$work/wide_kernel.json"
expect 1 'buffer "neib_list" needs [0-9.]+ GiB for [0-9]+ particles, more than the largest allocation' -- \
    "$clpart" run "$work/wide_kernel.json" --out "$work/huge_out" --no-cache \
    -s sph.fit_device=false -s neighbors.format=index
# A setting that is no size is refused in its own words.
expect 2 'CLPART_DEVICE_MEMORY="1G,2G" is not TOTAL or TOTAL,LARGEST' -- \
    env CLPART_DEVICE_MEMORY=1G,2G "$clpart" devices
unset CLPART_DEVICE_MEMORY
[ ! -e "$work/huge_out" ] || fail "a refused case left output behind"

# Moves that add up to more than half the skin since the last rebuild force the next one at
# once, and the run says how often that happened when it is most of the time.
expect 0 "[0-9]+ of the [0-9]+ neighbour-list rebuilds came early, when the largest moves of the steps since the last added up to more than half the skin" -- \
    "$clpart" run "$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json" --out "$work/skin" \
    -s neighbors.every=20 -s neighbors.skin=0.001 --no-cache

# --timing: the device time of each phase per step.
expect 0 "timing: forces +[0-9.]+ ms" -- "$clpart" run "$CLPART_DATA_DIR/tests/data/sph/tiny_dam_break.json" --out "$work/timed" --timing --no-cache

# --steps and --time end a run sooner, as complete (not interrupted), and the run ends with
# its rate; a model without simulated time refuses --time, and a count must be whole.
expect 0 "^rate: [0-9.e+]+ particle-steps/s \(5 steps in " -- "$clpart" run "$tiny" --out "$work/five" --steps 5 --no-cache
[ "$(tail -1 "$work/five/diagnostics.csv" | cut -d, -f2)" = 5 ] || fail "--steps 5: the last row is not step 5"
expect 0 "^done: " -- "$clpart" run "$tiny" --out "$work/short" --time 0.001 --no-cache
python3 -c 'import csv,sys; t=float(list(csv.DictReader(open(sys.argv[1])))[-1]["time"]); assert 0.001 <= t < 0.0015, t' \
    "$work/short/diagnostics.csv" || fail "--time 0.001: the run did not end just past 0.001 s"
expect 2 "--steps takes a whole number above 0, not '2.5'" -- "$clpart" run "$tiny" --out "$work/bad" --steps 2.5
[ ! -e "$work/bad" ] || fail "a refused --steps left output behind"

# The dam-break plots draw PNG files from that run: the front, with its height gauge beside
# it, and a snapshot; a gauges file without the column is refused.
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]; }
if command -v gnuplot >/dev/null 2>&1 || [ "${CI:-}" = true ]; then # CI installs it
    expect 0 "wrote $work/timed/front.png" -- "$CLPART_DATA_DIR/tools/plot-front" \
        --column "$work/timed/gauges.csv" "$CLPART_DATA_DIR/data/martin_moyce_1952_column.csv" \
        "$work/timed/diagnostics.csv" "$CLPART_DATA_DIR/data/martin_moyce_1952.csv" "$work/timed/front.png"
    is_png "$work/timed/front.png" || fail "plot-front: front.png is not a PNG file"
    expect 1 'no column "height_0"' -- "$CLPART_DATA_DIR/tools/plot-front" \
        --column "$work/timed/diagnostics.csv" "$CLPART_DATA_DIR/data/martin_moyce_1952_column.csv" \
        "$work/timed/diagnostics.csv" "$CLPART_DATA_DIR/data/martin_moyce_1952.csv" "$work/timed/no.png"
    expect 0 "wrote $work/timed/snapshot.png" -- "$CLPART_DATA_DIR/tools/plot-particles" \
        --field velocity "$work/timed/particles_00001.vtp" "$work/timed/snapshot.png"
    is_png "$work/timed/snapshot.png" || fail "plot-particles: snapshot.png is not a PNG file"
fi

# Cache: built, then hit in the next process; --no-cache builds; stats count both.
expect 0 "^built " -- "$clpart" build "$case_file"
expect 0 "^cache hit " -- "$clpart" build "$case_file"
expect 0 "^built " -- "$clpart" build "$case_file" --no-cache
expect 0 "^built " -- env CLPART_NO_CACHE=1 "$clpart" build "$case_file"
expect 0 "^built " -- "$clpart" build "$case_file" -s core.summation=naive
expect 0 "^cache hit " -- "$clpart" -v build "$case_file" -s core.summation=naive
expect 0 "hits" -- "$clpart" cache stats
default_name=$("$clpart" devices --json | python3 -c 'import json,re,sys; d=json.load(sys.stdin); print(re.escape(d["devices"][d["selected"]]["name"]))')
expect 0 "$default_name.*[0-9a-f]{32}" -- "$clpart" cache list
expect 0 "^2 entries" -- "$clpart" cache list

# A corrupt entry: one warning, rebuilt, then hit again.
for entry in "$CLPART_CACHE_DIR"/*/*.clpbin; do
    printf 'garbage' | dd of="$entry" bs=1 seek=100 conv=notrunc status=none
done
expect 0 "warning.*corrupt.*removed" -- "$clpart" build "$case_file"
expect 0 "^cache hit " -- "$clpart" build "$case_file"
# A truncated entry likewise.
for entry in "$CLPART_CACHE_DIR"/*/*.clpbin; do truncate -s 50 "$entry"; done
expect 0 "^built " -- "$clpart" build "$case_file"

# Two processes building one key at once both succeed and leave one valid entry.
expect 0 "removed|cleared" -- "$clpart" cache clear
"$clpart" build "$case_file" >"$work/p1" 2>&1 &
p1=$!
"$clpart" build "$case_file" >"$work/p2" 2>&1 &
p2=$!
wait $p1 || fail "first concurrent build failed: $(cat "$work/p1")"
wait $p2 || fail "second concurrent build failed: $(cat "$work/p2")"
[ "$(find "$CLPART_CACHE_DIR" -name '*.clpbin' | wc -l)" -eq 1 ] || fail "concurrent builds left other than one entry"
expect 0 "^cache hit " -- "$clpart" build "$case_file"

# An unwritable cache folder: one warning, and the run goes on uncached.
touch "$work/file"
out=$("$clpart" build "$case_file" --cache-dir "$work/file/cache" 2>&1) || fail "run with unwritable cache failed: $out"
[ "$(grep -c warning <<<"$out")" -eq 1 ] || fail "expected exactly one warning: $out"
grep -q "^built " <<<"$out" || fail "unwritable cache: not built: $out"

# A build error points at the cl/ file and line of the #error.
line=$(grep -n '#error "core.fast_math' "$CLPART_DATA_DIR/cl/common/summation.cl" | cut -d: -f1)
expect 1 "at cl/common/summation.cl:$line:" -- "$clpart" build "$case_file" -s core.fast_math=true

# Installed layout: the executable finds its data in ../share/clpart, outside the tree.
mkdir -p "$work/prefix/bin" "$work/prefix/share/clpart"
cp "$clpart" "$work/prefix/bin/"
cp -r "$CLPART_DATA_DIR/cl" "$CLPART_DATA_DIR/options" "$CLPART_DATA_DIR/cases" "$work/prefix/share/clpart/"
echo "/* the installed copy */" >>"$work/prefix/share/clpart/cl/selftest/selftest.cl"
(cd "$work" && env -u CLPART_DATA_DIR "$work/prefix/bin/clpart" source "$work/prefix/share/clpart/cases/selftest.json" >"$work/installed.cl") ||
    fail "installed clpart did not run"
grep -q 'the installed copy' "$work/installed.cl" || fail "installed clpart did not read its own data"


# Lennard-Jones runs: a 256-atom FCC liquid (the periodic grid's least 3 cells of rc (1 + skin)
# = 2.16 per side of 6.72). ljcase FILE [PATH=JSON]... writes a variant.
ljcase() {
    variant '{"model": "lj",
     "options": {"core.dim": 3, "grid.periodic_x": true, "grid.periodic_y": true,
                 "grid.periodic_z": true, "neighbors.mode": "list", "neighbors.skin": 0.2,
                 "neighbors.every": 5},
     "lj": {"init": "fcc", "fcc_cells": 4, "density": 0.8442, "temperature": 1.44, "rc": 1.8,
            "softening": 0, "dt": 0.005, "seed": 1},
     "steps": 500, "output_every": 100}' "$@"
}
# NVE from the Maxwell-Boltzmann start: the first row has exactly the case's temperature
# (KE = (3N - 3) T / 2), the momentum stays zero, and the total energy per atom stays within
# 5e-3 of its start (test_lj's 864-atom run at rc 2.5 keeps 2e-4 over 10k steps).
ljcase "$work/lj.json"
expect 0 "^done: $work/lj_out/diagnostics.csv, $work/lj_out/summary.json$" -- "$clpart" run "$work/lj.json" --out "$work/lj_out"
python3 - "$work/lj_out/diagnostics.csv" <<'PY' || fail "lj run: diagnostics.csv is wrong"
import sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0] == "step,time,kinetic,potential,total,temperature,pressure,momentum", lines[0]
rows = [[float(x) for x in line.split(",")] for line in lines[1:]]
assert [r[0] for r in rows] == [0, 100, 200, 300, 400, 500], [r[0] for r in rows]
n, t0 = 256, 1.44
for step, time, kinetic, potential, total, temperature, pressure, momentum in rows:
    assert abs(time - 0.005 * step) < 1e-12, (step, time)
    assert abs(total - (kinetic + potential)) <= 1e-9 * abs(total), (step, total)
    assert abs(temperature - 2 * kinetic / (3 * n - 3)) <= 1e-12 * temperature, step
    assert momentum < 1e-4, (step, momentum)
    assert abs(total - rows[0][4]) / n < 5e-3, (step, total, rows[0][4])
assert abs(rows[0][5] - t0) <= 1e-6 * t0, rows[0][5]
assert abs(rows[0][2] - (3 * n - 3) / 2 * t0) <= 1e-6 * rows[0][2], rows[0][2]
PY
# A lattice at rest: its potential energy and pressure W / 3V against a lattice sum here.
ljcase "$work/lj_lattice.json" lj/temperature=0 steps=0
expect 0 "done:" -- "$clpart" run "$work/lj_lattice.json" --out "$work/lj_lattice"
python3 - "$work/lj_lattice/diagnostics.csv" <<'PY' || fail "lj lattice: energy or pressure is wrong"
import sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
step, time, kinetic, potential, total, temperature, pressure, momentum = map(float, lines[1].split(","))
cells, density, rc = 4, 0.8442, 1.8
n = 4 * cells ** 3
box = (n / density) ** (1 / 3)
a = box / cells
pos = [((i + bx) * a, (j + by) * a, (k + bz) * a) for i in range(cells) for j in range(cells)
       for k in range(cells) for bx, by, bz in ((0, 0, 0), (.5, .5, 0), (.5, 0, .5), (0, .5, .5))]
u = lambda r2: 4 * (r2 ** -6 - r2 ** -3)
pe = w = 0.0
for i in range(n):
    for j in range(i + 1, n):
        r2 = 0.0
        for x, y in zip(pos[i], pos[j]):
            d = x - y
            d -= box * round(d / box)
            r2 += d * d
        if r2 < rc * rc:
            pe += u(r2) - u(rc * rc)
            w += 24 * (2 * r2 ** -6 - r2 ** -3)  # r . f of the pair
assert kinetic == 0 and momentum == 0, (kinetic, momentum)
assert abs(potential - pe) <= 1e-5 * abs(pe), (potential, pe)
assert abs(pressure - w / (3 * box ** 3)) <= 1e-5 * abs(pressure), (pressure, w / (3 * box ** 3))
PY
# The 864-atom liquid at step 0 against LAMMPS for the same state (FCC at density 0.8442, T
# 1.44 with zero momentum, rc 2.5): LAMMPS gives the pressure as -5.02108, with the kinetic
# part (N - 1) T / V.
variant "$(cat "$CLPART_DATA_DIR/cases/lj_liquid_small.json")" "$work/lj_small.json" steps=0
expect 0 "done:" -- "$clpart" run "$work/lj_small.json" --out "$work/lj_small"
python3 - "$work/lj_small/diagnostics.csv" <<'PY' || fail "lj liquid: step-0 pressure differs from LAMMPS's"
import sys
pressure = float(open(sys.argv[1]).read().splitlines()[1].split(",")[6])
assert abs(pressure - -5.02108) <= 1e-5, pressure
PY
# HOOMD-blue's benchmark state, density 1.0 with rc 2.5, in list mode and no neighbors.max:
# the list is sized from the counts (a fixed 128 overflowed at 134), and the energy holds.
variant "$(cat "$CLPART_DATA_DIR/cases/lj_liquid_small.json")" "$work/lj_dense.json" \
    lj/density=1.0 steps=300
expect 0 "done:" -- "$clpart" run "$work/lj_dense.json" --out "$work/lj_dense"
python3 - "$work/lj_dense/diagnostics.csv" <<'PY' || fail "lj at density 1.0: the energy drifts"
import sys
rows = [[float(x) for x in line.split(",")] for line in open(sys.argv[1]).read().splitlines()[1:]]
assert rows[-1][0] == 300, rows[-1]
assert max(abs(r[4] - rows[0][4]) for r in rows) / 864 < 2e-3, [r[4] for r in rows]
PY
expect 1 "neighbour list overflow: .*largest count 1[0-9][0-9], capacity 64\); raise neighbors.max" -- \
    "$clpart" run "$work/lj_dense.json" --out "$work/lj_dense_fixed" -s neighbors.max=64
# A random start: cells_per_side cutoffs and a hair wide, particles_per_cell * d^3 atoms; the
# last chunk is shorter than output_every.
ljcase "$work/lj_random.json" \
    'lj={"init": "random", "cells_per_side": 3, "particles_per_cell": 2, "rc": 2.5, "softening": 0.5, "dt": 0.001}' \
    options/neighbors.skin=0 options/neighbors.every=1 steps=25 output_every=10
expect 0 "54 atoms in a periodic box of side 7.500075," -- \
    "$clpart" -v run "$work/lj_random.json" --out "$work/lj_random"
[ "$(cut -d, -f1 "$work/lj_random/diagnostics.csv" | tr '\n' ' ')" = "step 0 10 20 25 " ] ||
    fail "lj random: rows are not at steps 0, 10, 20 and 25"
# Bad LJ cases: each names the file and the key, and nothing runs.
ljcase "$work/lj_bad.json" lj/temprature=1
expect 1 "$work/lj_bad.json: unknown key 'lj.temprature'; did you mean 'temperature'" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
ljcase "$work/lj_bad.json" lj/density=-0.8
expect 1 "$work/lj_bad.json: 'lj.density' must be a number in \(0, 10\]" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
ljcase "$work/lj_bad.json" 'lj/init="hexagonal"'
expect 1 "$work/lj_bad.json: 'lj.init' is \"hexagonal\"; it must be \"fcc\" or \"random\"" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
ljcase "$work/lj_bad.json" lj/fcc_cells=DELETE
expect 1 "$work/lj_bad.json: 'lj.fcc_cells' is required" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
ljcase "$work/lj_bad.json" lj/cells_per_side=8
expect 1 "$work/lj_bad.json: 'lj.cells_per_side' belongs to init \"random\", not \"fcc\"" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
ljcase "$work/lj_bad.json" output_evry=10
expect 1 "$work/lj_bad.json: unknown key 'output_evry'; did you mean 'output_every'" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
ljcase "$work/lj_bad.json" lj/fcc_cells=3
expect 1 "$work/lj_bad.json: the box \(side 5.03879, 108 atoms\) is narrower than the 3 cells" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
expect 2 "--restart is not supported for model lj" -- "$clpart" run "$work/lj.json" --out "$work/lj_bad" --restart "$work/none.ckpt"
# --timing gives an LJ run's phases, the rebuild's among them (a rebuild every 5 steps).
expect 0 "^timing: forces +[0-9.]+ ms" -- "$clpart" run "$work/lj.json" --out "$work/lj_timed" --timing
"$clpart" run "$work/lj.json" --out "$work/lj_timed" --timing | grep -E "^timing: (neighbour list|integration) " |
    wc -l | grep -qx 2 || fail "--timing leaves out an LJ phase"
[ ! -e "$work/lj_bad" ] || fail "a refused LJ case left output behind"
expect 1 "in $work/lj_bad.json" -- "$clpart" run "$work/lj_bad.json" --out "$work/lj_bad"
expect 1 "clpart run runs models sph, lj, pso, repulsive, search and harmonic, not 'selftest' \(use clpart selftest\)" -- "$clpart" run "$case_file" --out "$work/lj_bad"
# An LJ case's program, printed and built on its own as its run builds it (a cache hit after
# the run); lj.strategy=auto, which times the strategies on the device, is refused.
expect 0 'device program for model "lj"' -- "$clpart" source "$work/lj.json"
expect 0 "^cache hit " -- "$clpart" build "$work/lj.json"
expect 1 "lj.strategy=auto chooses its program by timing" -- "$clpart" source "$work/lj.json" -s lj.strategy=auto

# Particle swarm runs: a 5-dimensional sphere, 32 particles, 300 iterations. psocase FILE
# [PATH=JSON]... writes a variant, as ljcase does.
psocase() {
    variant '{"model": "pso",
     "options": {"pso.objective": "sphere", "pso.topology": "global"},
     "pso": {"particles": 32, "dimensions": 5, "iterations": 300, "bounds": [-5.12, 5.12],
             "vmax": 1.024, "seed": 3},
     "output_every": 50}' "$@"
}
# check_best DIR EXPRESSION: best.csv's position x, put into the Python EXPRESSION here in
# double, gives the best value of summary.json and of the last row of convergence.csv (the
# device evaluates in float: 1e-5 relative). Prints x.
check_best() {
    python3 - "$1" "$2" <<'PY'
import json, math, sys
folder, expression = sys.argv[1:]
rows = open(folder + "/best.csv").read().splitlines()
assert rows[0] == "component,value", rows[0]
x = [float(r.split(",")[1]) for r in rows[1:]]
assert [int(r.split(",")[0]) for r in rows[1:]] == list(range(len(x))), rows
summary = json.load(open(folder + "/summary.json"))
last = float(open(folder + "/convergence.csv").read().splitlines()[-1].split(",")[1])
value = eval(expression, {"math": math, "x": x})
for reported in (summary["best"], last):
    assert abs(reported - value) <= 1e-5 * abs(value) + 1e-30, (reported, value)
print(" ".join(repr(v) for v in x))
PY
}
# The sphere: one row per iteration and the start, never rising, from below the box's
# largest value D 5.12^2 to below D (1e-6)^2: every component within 1e-6 of the optimum 0.
psocase "$work/pso.json"
expect 0 "^done: $work/pso_out/convergence.csv, $work/pso_out/best.csv, $work/pso_out/summary.json$" -- \
    "$clpart" run "$work/pso.json" --out "$work/pso_out"
python3 - "$work/pso_out" <<'PY' || fail "pso sphere: convergence.csv or summary.json is wrong"
import json, sys
lines = open(sys.argv[1] + "/convergence.csv").read().splitlines()
assert lines[0] == "iteration,best", lines[0]
rows = [[float(v) for v in line.split(",")] for line in lines[1:]]
assert [r[0] for r in rows] == list(range(301)), len(rows)
best = [r[1] for r in rows]
assert all(b <= a for a, b in zip(best, best[1:])), "the best rose"
assert 0 < best[0] <= 5 * 5.12 ** 2, best[0]
assert best[-1] <= 5 * 1e-12, best[-1]
summary = json.load(open(sys.argv[1] + "/summary.json"))
assert summary["steps"] == 300 and 0 <= summary["particle"] < 32, summary
assert summary["seconds"] > 0, summary
PY
check_best "$work/pso_out" "sum(v * v for v in x)" >/dev/null || fail "pso sphere: best.csv does not give the best value"
# The source: the case's constants; a user objective behind #line at its line in the case.
expect 0 "^#define CLP_PSO_DIM 5$" -- "$clpart" source "$work/pso.json"
# Another layout is another variant, built beside the first in a cache of its own (the shared
# one may hold either already; --no-tuning keeps the first at the schema's default chunk4).
expect 0 "^built " -- env CLPART_CACHE_DIR="$work/pso_cache" "$clpart" build "$work/pso.json" --no-tuning
expect 0 "^cache hit " -- env CLPART_CACHE_DIR="$work/pso_cache" "$clpart" build "$work/pso.json" --no-tuning
expect 0 "^built " -- env CLPART_CACHE_DIR="$work/pso_cache" "$clpart" build "$work/pso.json" --no-tuning \
    -s pso.wide_layout=chunk2
user_case=$CLPART_DATA_DIR/cases/pso_user.json
line=$(grep -n '"expression":' "$user_case" | cut -d: -f1)
expect 0 "^#line $line \"$user_case\"$" -- "$clpart" source "$user_case"
# cases/pso_user.json: (x0 - 0.5)^2 + |x1 + 2| has its minimum 0 at (0.5, -2).
expect 0 "^done: " -- "$clpart" run "$user_case" --out "$work/pso_user"
x=$(check_best "$work/pso_user" "(x[0] - 0.5) ** 2 + abs(x[1] + 2)") || fail "pso user: best.csv does not give the best value"
awk -v x="$x" 'BEGIN { split(x, c, " "); d0 = c[1] - 0.5; d1 = c[2] + 2
    exit !(d0 < 1e-3 && -d0 < 1e-3 && d1 < 1e-3 && -d1 < 1e-3) }' ||
    fail "pso user: best position ($x) is not within 1e-3 of (0.5, -2)"
# NaN is never a best: x0 + x1^2 where x0 >= 0, NaN elsewhere; the minimum is 0 at (0, 0).
psocase "$work/pso_nan.json" options/pso.objective='"user"' pso/dimensions=2 pso/bounds='[-1, 1]' \
    pso/vmax=DELETE 'pso/objective={"expression": "X(0) < 0.0f ? NAN : X(0) + X(1) * X(1)"}'
expect 0 "^done: " -- "$clpart" run "$work/pso_nan.json" --out "$work/pso_nan"
x=$(check_best "$work/pso_nan" "x[0] + x[1] ** 2") || fail "pso NaN: best.csv does not give the best value"
awk -v x="$x" 'BEGIN { split(x, c, " "); exit !(c[1] >= 0 && c[1] < 1e-3) }' ||
    fail "pso NaN: best position ($x) is not in x0 >= 0 near 0"
# -inf everywhere is a best ("-inf" in summary.json); +inf or NaN everywhere is no best at all.
psocase "$work/pso_inf.json" options/pso.objective='"user"' pso/iterations=5 \
    'pso/objective={"expression": "-INFINITY"}'
expect 0 "^done: " -- "$clpart" run "$work/pso_inf.json" --out "$work/pso_inf"
grep -q '"best": "-inf"' "$work/pso_inf/summary.json" || fail "pso -inf: summary.json lacks \"best\": \"-inf\""
psocase "$work/pso_inf.json" options/pso.objective='"user"' pso/iterations=5 \
    'pso/objective={"function": ["return X(0) < 0.0f ? INFINITY : NAN;"]}'
expect 1 "no particle found a finite value of the objective in 5 iterations" -- \
    "$clpart" run "$work/pso_inf.json" --out "$work/pso_inf2"
# A user function with a statement lacking its ';': the build error is at its case-file line.
psocase "$work/pso_broken.json" options/pso.objective='"user"' pso/iterations=5 \
    'pso/objective={"function": ["float s = 0.0f;", "for (int i = 0; i < PSO_DIM; i++)", "    s += X(i) * X(i)", "return s;"]}'
line=$(grep -n '"    s += X(i) \* X(i)"' "$work/pso_broken.json" | cut -d: -f1)
[ -n "$line" ] || fail "pso broken: the test's case lacks its broken line"
expect 1 "^  at $work/pso_broken.json:$line:[0-9]+$" -- "$clpart" run "$work/pso_broken.json" --out "$work/pso_bad"
# Bad PSO cases: each names the file and the key, and nothing runs.
psocase "$work/pso_bad.json" pso/particle=10
expect 1 "$work/pso_bad.json: unknown key 'pso.particle'; did you mean 'particles'" -- "$clpart" run "$work/pso_bad.json" --out "$work/pso_bad"
psocase "$work/pso_bad.json" pso/particles=0
expect 1 "$work/pso_bad.json: 'pso.particles' must be an integer in \[1, 2147483647\]" -- "$clpart" run "$work/pso_bad.json" --out "$work/pso_bad"
psocase "$work/pso_bad.json" pso/iterations=DELETE
expect 1 "$work/pso_bad.json: 'pso.iterations' is required" -- "$clpart" run "$work/pso_bad.json" --out "$work/pso_bad"
psocase "$work/pso_bad.json" pso/bounds='[5, -5]'
expect 1 "$work/pso_bad.json: 'pso.bounds' is \[5, -5\]; the lower bound must be below the upper one" -- "$clpart" run "$work/pso_bad.json" --out "$work/pso_bad"
psocase "$work/pso_bad.json" pso/seed=-1
expect 1 "$work/pso_bad.json: 'pso.seed' must be an integer in \[0, 9223372036854775807\]" -- "$clpart" run "$work/pso_bad.json" --out "$work/pso_bad"
psocase "$work/pso_bad.json" 'pso/objective={"expression": "X(0)"}'
expect 1 "$work/pso_bad.json: 'pso.objective' is user code, which only the option pso.objective=user takes, and the option is \"sphere\"" -- "$clpart" run "$work/pso_bad.json" --out "$work/pso_bad"
expect 1 "$work/pso.json: the option pso.objective=user needs the objective in the case" -- "$clpart" run "$work/pso.json" --out "$work/pso_bad" -s pso.objective=user
expect 1 "$work/pso.json: the option pso.objective=user needs the objective in the case" -- "$clpart" source "$work/pso.json" -s pso.objective=user
psocase "$work/pso_bad.json" 'pso/objective={"expression": "X(0)", "function": "return 1.0f;"}' options/pso.objective='"user"'
expect 1 "$work/pso_bad.json: 'pso.objective' holds both \"expression\" and \"function\"" -- "$clpart" run "$work/pso_bad.json" --out "$work/pso_bad"
expect 1 "pso.layout applies to 3 dimensions and this swarm has 5" -- "$clpart" run "$work/pso.json" --out "$work/pso_bad" -s pso.layout=soa
expect 2 "--restart is not supported for model pso" -- "$clpart" run "$work/pso.json" --out "$work/pso_bad" --restart "$work/none.ckpt"
expect 2 "--timing is not supported for model pso" -- "$clpart" run "$work/pso.json" --out "$work/pso_bad" --timing
expect 2 "--time is not supported for model pso: it has no simulated time; limit its iterations with --steps" -- \
    "$clpart" run "$work/pso.json" --out "$work/pso_bad" --time 1
expect 0 "^rate: [0-9.e+]+ component-updates/s \(7 steps in " -- "$clpart" run "$work/pso.json" --out "$work/pso_seven" --steps 7
[ "$(tail -1 "$work/pso_seven/convergence.csv" | cut -d, -f1)" = 7 ] || fail "pso --steps 7: the last row is not iteration 7"
[ ! -e "$work/pso_bad" ] || fail "a refused PSO case left output behind"

# Repulsive-particle designs: cases/repulsive_24_2d.json, Masek and Vorechovsky 2018's Fig. 2 (24 points
# in 2D from a Latin hypercube). repcase FILE [PATH=JSON]... writes a variant of it, as ljcase
# does.
rep24=$CLPART_DATA_DIR/cases/repulsive_24_2d.json
repcase() {
    variant "$(cat "$rep24")" "$@"
}
# check_design DIR: the outputs against what this test computes from them in double, on the
# torus: 24 rows of 2 coordinates in [0, 1) in start.csv and design.csv, the start a Latin
# hypercube; the design's nearest distance at least 0.156, three quarters of that of the
# 24-point lattice spanned by (1/4, 0) and (1/8, 1/6) (0.2083), and its periodic Audze-Eglajs
# criterion (the sum over pairs of 1 / L^2) within 1.10 times the lattice's, both computed
# here; energy.csv's total, kinetic plus potential, never rising by more than 1e-5 relative
# from row to row; summary.json's criteria those recomputed here to 1e-4, and its stop rule
# that of the last row.
check_design() {
    python3 - "$1" <<'PY'
import itertools, json, math, sys
folder = sys.argv[1]

def design(name):
    lines = open(folder + "/" + name).read().splitlines()
    assert lines[0] == "x0,x1", (name, lines[0])
    points = [tuple(float(v) for v in line.split(",")) for line in lines[1:]]
    assert len(points) == 24 and all(len(p) == 2 for p in points), (name, len(points))
    assert all(0 <= v < 1 for p in points for v in p), name
    return points

def criteria(points):
    ae, nearest = 0.0, math.inf
    for p, q in itertools.combinations(points, 2):
        l2 = sum((a - b - round(a - b)) ** 2 for a, b in zip(p, q))
        ae += 1 / l2
        nearest = min(nearest, math.sqrt(l2))
    return ae, nearest

start, end = design("start.csv"), design("design.csv")
for axis in range(2):
    assert sorted(int(p[axis] * 24) for p in start) == list(range(24)), "start: not a Latin hypercube"
lattice = [((i / 4 + j / 8) % 1, j / 6) for i in range(4) for j in range(6)]
ae_lattice, nearest_lattice = criteria(lattice)
assert abs(nearest_lattice - math.sqrt(1 / 64 + 1 / 36)) < 1e-12, nearest_lattice
ae, nearest = criteria(end)
ae0, nearest0 = criteria(start)
assert nearest >= 0.156 and nearest >= 0.75 * nearest_lattice, (nearest, nearest_lattice)
assert ae <= 1.10 * ae_lattice, (ae, ae_lattice)
lines = open(folder + "/energy.csv").read().splitlines()
assert lines[0] == "step,kinetic,potential,total,ae,maximin", lines[0]
rows = [[float(v) for v in line.split(",")] for line in lines[1:]]
assert rows[0][0] == 0 and rows[0][1] == 0, rows[0]
for step, kinetic, potential, total, _, _ in rows:
    assert kinetic >= 0 and abs(total - (kinetic + potential)) <= 1e-12 * total, step
for a, b in zip(rows, rows[1:]):
    assert b[0] > a[0], "steps out of order"
    assert b[3] <= a[3] * (1 + 1e-5), ("the total energy rose", a, b)
summary = json.load(open(folder + "/summary.json"))
assert summary["particles"] == 24 and summary["dimensions"] == 2, summary
assert summary["steps"] == rows[-1][0] and summary["seconds"] > 0, summary
for key, value in (("ae", ae), ("maximin", nearest), ("ae_start", ae0), ("maximin_start", nearest0)):
    assert abs(summary[key] - value) <= 1e-4 * value, (key, summary[key], value)
assert abs(rows[-1][4] - ae) <= 1e-4 * ae and abs(rows[-1][5] - nearest) <= 1e-4 * nearest, rows[-1]
print(summary["stopped_by"], int(summary["steps"]), rows[-1][1])
PY
}
expect 0 "^done: $work/rep_out/design.csv, $work/rep_out/energy.csv, $work/rep_out/summary.json$" -- \
    "$clpart" run "$rep24" --out "$work/rep_out"
stop=$(check_design "$work/rep_out") || fail "repulsive 24: the design or its outputs are wrong"
# The case's stop rule: its kinetic energy falls below 1e-3 before 20000 steps, and only then.
python3 - "$work/rep_out" "$stop" <<'PY' || fail "repulsive 24: it did not stop at the tolerance ($stop)"
import sys
rows = [[float(v) for v in line.split(",")] for line in open(sys.argv[1] + "/energy.csv").read().splitlines()[1:]]
by, steps, kinetic = sys.argv[2].split()
assert by == "tolerance" and int(steps) < 20000 and float(kinetic) < 1e-3, sys.argv[2]
assert all(r[1] >= 1e-3 for r in rows[1:-1]), "a row before the last was below the tolerance"
assert [r[0] for r in rows] == [100 * k for k in range(len(rows))], "rows not every 100 steps"
PY
# The 2D scatter plot of the start and the design: a PNG file; a 3D design is refused.
if command -v gnuplot >/dev/null 2>&1 || [ "${CI:-}" = true ]; then # CI installs it
    expect 0 "" -- "$CLPART_DATA_DIR/tools/plot-design" "$work/rep_out" "$work/rep_out/design.png"
    is_png "$work/rep_out/design.png" || fail "plot-design: design.png is not a PNG file"
    mkdir -p "$work/rep_3d" && printf 'x0,x1,x2\n0.1,0.2,0.3\n' >"$work/rep_3d/start.csv" &&
        cp "$work/rep_3d/start.csv" "$work/rep_3d/design.csv"
    expect 1 "holds a 3-dimensional design" -- "$CLPART_DATA_DIR/tools/plot-design" "$work/rep_3d" "$work/rep_3d/design.png"
fi
# The other implementation finds a design as good.
expect 0 "^done: " -- "$clpart" run "$rep24" -s repulsive.impl=global --out "$work/rep_global"
check_design "$work/rep_global" >/dev/null || fail "repulsive 24, global: the design or its outputs are wrong"
# The step limit: a last chunk shorter than check_every, and no tolerance to reach.
repcase "$work/rep_steps.json" repulsive/steps=250 repulsive/tolerance=0
expect 0 "^done: " -- "$clpart" run "$work/rep_steps.json" --out "$work/rep_steps"
[ "$(cut -d, -f1 "$work/rep_steps/energy.csv" | tr '\n' ' ')" = "step 0 100 200 250 " ] ||
    fail "repulsive steps: rows are not at steps 0, 100, 200 and 250"
grep -q '"stopped_by": "steps"' "$work/rep_steps/summary.json" || fail "repulsive steps: not stopped by the step limit"
# The source: the case's constants; a given dt as it is (1e-4 in float), and with it the
# default damping, c dt = 0.01.
expect 0 "^#define CLP_REP_POINTS 24$" -- "$clpart" source "$rep24"
repcase "$work/rep_dt.json" repulsive/dt=0.0001
expect 0 "^#define CLP_REP_DT 0x1\.a36e2ep-14f " -- "$clpart" source "$work/rep_dt.json"
expect 0 "^#define CLP_REP_C0 0x1\.9p\+6f /\* 100 \*/$" -- "$clpart" source "$work/rep_dt.json"
expect 0 "^(built|cache hit) " -- "$clpart" build "$rep24" -s repulsive.impl=global
# Too long a step without damping: the kinetic energy stops being finite.
repcase "$work/rep_blow.json" repulsive/dt=0.05 'repulsive/damping=[]' repulsive/steps=1000
expect 1 "the kinetic energy is -?nan at step 100: use a smaller dt or more damping" -- \
    "$clpart" run "$work/rep_blow.json" --out "$work/rep_blow"
# Bad repulsive cases: each names the file and the key, and nothing runs.
repcase "$work/rep_bad.json" repulsive/point=24
expect 1 "$work/rep_bad.json: unknown key 'repulsive.point'; did you mean 'points'" -- "$clpart" run "$work/rep_bad.json" --out "$work/rep_bad"
repcase "$work/rep_bad.json" repulsive/dimensions=0
expect 1 "$work/rep_bad.json: 'repulsive.dimensions' must be an integer in \[1, 4096\]" -- "$clpart" run "$work/rep_bad.json" --out "$work/rep_bad"
repcase "$work/rep_bad.json" 'repulsive/damping=[{"c": 20, "p": 0}]'
expect 1 "$work/rep_bad.json: 'repulsive.damping\[0\].p' must be an integer in \[1, 16\]" -- "$clpart" run "$work/rep_bad.json" --out "$work/rep_bad"
repcase "$work/rep_bad.json" 'repulsive/damping=[{"c": -1}]'
expect 1 "$work/rep_bad.json: 'repulsive.damping\[0\].c' must be a number in \[0, 1e\+30\]" -- "$clpart" source "$work/rep_bad.json"
repcase "$work/rep_bad.json" 'repulsive/dt="fast"'
expect 1 "$work/rep_bad.json: 'repulsive.dt' must be \"auto\"" -- "$clpart" run "$work/rep_bad.json" --out "$work/rep_bad"
repcase "$work/rep_bad.json" 'repulsive/damping=[{"c": 1e6}]'
expect 1 "$work/rep_bad.json: 'repulsive.damping': the linear terms \(p 1\) sum to c 1e\+06, and with dt 0.000139743" -- "$clpart" run "$work/rep_bad.json" --out "$work/rep_bad"
repcase "$work/rep_bad.json" repulsive/tolerance=-1
expect 1 "$work/rep_bad.json: 'repulsive.tolerance' must be a number in \[0, 1e\+30\]" -- "$clpart" run "$work/rep_bad.json" --out "$work/rep_bad"
expect 2 "--restart is not supported for model repulsive" -- "$clpart" run "$rep24" --out "$work/rep_bad" --restart "$work/none.ckpt"
expect 2 "--timing is not supported for model repulsive" -- "$clpart" run "$rep24" --out "$work/rep_bad" --timing
[ ! -e "$work/rep_bad" ] || fail "a refused repulsive case left output behind"

# The neighbour search (model search): cases/neighbour_search.json at 8^3 particles, run,
# timed and swept through the commands every model takes; bad cases name the file and the key.
searchcase() {
    local file=$1
    shift
    variant "$(cat "$CLPART_DATA_DIR/cases/neighbour_search.json")" "$file" search/side=8 search/steps=3 "$@"
}
searchcase "$work/search.json"
expect 0 "^#define CLP_SEARCH_MOVE " -- "$clpart" source "$work/search.json"
expect 0 "^built " -- "$clpart" build "$work/search.json" -s neighbors.mode=jit
expect 0 "^timing: neighbour list " -- "$clpart" run "$work/search.json" --out "$work/search_out" --timing
python3 - "$work/search_out/summary.json" <<'PY' || fail "search: summary.json is wrong"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["particles"] == 512 and s["steps"] == 3 and s["violations"] == 0, s
assert not s["interrupted"] and 40 < s["mean_neighbours"] < 60, s
assert s["min_neighbours"] <= s["mean_neighbours"] <= s["max_neighbours"], s
PY
expect 0 "^done: 2 run" -- "$clpart" sweep "$work/search.json" -s grid.sort=counting,radix --repeat 1 --out "$work/search_sweep"
searchcase "$work/search_bad.json" search/sides=8
expect 1 "$work/search_bad.json: unknown key 'search.sides'; did you mean 'side'" -- "$clpart" run "$work/search_bad.json" --out "$work/search_bad"
searchcase "$work/search_bad.json" search/side=4
expect 1 "the periodic x axis \(size 4\) needs at least 3 cells of the search radius 2.3" -- "$clpart" run "$work/search_bad.json" --out "$work/search_bad"
expect 1 "model search places its lattice in a periodic cube" -- "$clpart" run "$work/search.json" --out "$work/search_bad" -s grid.periodic_z=false
expect 2 "--time is not supported for model search" -- "$clpart" run "$work/search.json" --out "$work/search_bad" --time 1
[ ! -e "$work/search_bad" ] || fail "a refused search case left output behind"

# The main job.
expect 0 "selftest passed" -- "$clpart" selftest

if [ "$failures" -ne 0 ]; then
    echo "$failures CLI check(s) failed"
    exit 1
fi
echo "all CLI checks passed"

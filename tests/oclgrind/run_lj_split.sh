#!/usr/bin/env bash
# A tiny Lennard-Jones case split between 2 MPI ranks, each under Oclgrind (through run.sh):
# the force kernel over a rank's own atoms at an offset (par_part), over all its slots
# (par_part_loop, its lists built by pencils) and over all its cells (all_in_sm), with the
# halo refreshes and the migrations between. Oclgrind crashes with ranks as threads of one
# process, hence MPI. The check of uninitialised values is left out: Oclgrind 21.10 takes
# what clEnqueueWriteBuffer writes at a non-zero offset for uninitialised, and a rank writes
# what it receives there.
set -uo pipefail
clpart=$1
for tool in oclgrind mpirun; do
    if ! command -v $tool >/dev/null; then
        echo "$tool is not installed"
        [ "${CI:-}" = true ] && exit 1
        exit 77
    fi
done
run=$(dirname "$0")/run.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CLPART_CACHE_DIR=$work/cache
# 128 atoms at random in 4 x 4 x 4 cells of rc: 2 slabs of 2 layers, rebuilt every step.
python3 - "$work/tiny.json" <<'PY'
import json, sys
json.dump({"model": "lj",
           "options": {"core.dim": 3, "grid.periodic_x": True, "grid.periodic_y": True,
                       "grid.periodic_z": True, "neighbors.mode": "list",
                       "neighbors.skin": 0.0, "neighbors.every": 1},
           "lj": {"init": "random", "cells_per_side": 4, "particles_per_cell": 2,
                  "temperature": 1.0, "rc": 2.5, "softening": 0.5, "dt": 0.001, "seed": 1},
           "steps": 6, "output_every": 3}, open(sys.argv[1], "w"))
PY
status=0
# par_part_loop walks every slot, free ones too, and takes the lists built by pencils, as on a
# GPU: a free slot's list must hold its end markers (an out-of-bounds read before 49).
for strategy in par_part "par_part_loop -s neighbors.build=pencil" \
    "all_in_sm -s neighbors.mode=jit"; do
    # shellcheck disable=SC2086
    out=$(mpirun --oversubscribe --allow-run-as-root -np 2 "$run" --no-uninitialized "$clpart" \
        -v run "$work/tiny.json" --out "$work/out" -s lj.strategy=$strategy 2>&1)
    code=$?
    echo "lj.strategy=$strategy: exit $code"
    [ "$code" -eq 0 ] || { echo "$out" | tail -40; status=1; }
    grep -q "Oclgrind Simulator" <<<"$out" || { echo "not run on Oclgrind"; status=1; }
done
exit $status

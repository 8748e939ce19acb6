#!/usr/bin/env bash
# The PSO position update in every layout on one device, the seed's Tables 1 and 2 (see
# bench/bench_pso.c), as tab-separated lines appended to OUT.tsv. Render one or more such
# files with bench/pso_report.py.
# usage: bench/pso.sh BUILD_DIR DEVICE OUT.tsv [PARTICLES_3D] [PARTICLES_128D] [LAUNCHES]
set -euo pipefail
build=$1
device=$2
out=$3
n3=${4:-4194304}
n128=${5:-65536}
launches=${6:-20}
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
"$build/bench/bench-pso" table1 --device "$device" --particles "$n3" --launches "$launches" \
    --rounds 5 | tee -a "$out"
"$build/bench/bench-pso" table2 --device "$device" --particles "$n128" --launches "$launches" \
    --rounds 5 | tee -a "$out"

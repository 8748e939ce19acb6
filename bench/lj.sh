#!/usr/bin/env bash
# The Lennard-Jones benchmarks on one device: Algis et al. 2024's grid (every strategy, box
# divisions 2 to 32, 1, 10 and 100 particles per cell) and the LJ liquid (32000 and 256000
# atoms), as tab-separated lines (see bench/bench_lj.c) appended to OUT.tsv.
# Render tables and the chart from one or more such files with bench/lj_report.py.
# usage: bench/lj.sh BUILD_DIR DEVICE OUT.tsv [MAX_PARTICLES] [LIQUID_STEPS]
set -euo pipefail
build=$1
device=$2
out=$3
max=${4:-100000000}
steps=${5:-100}
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
"$build/bench/bench-lj" grid --device "$device" --max-particles "$max" --rounds 5 --budget 10 |
    tee -a "$out"
"$build/bench/bench-lj" liquid --device "$device" --max-particles "$max" --steps "$steps" \
    --rounds 3 | tee -a "$out"

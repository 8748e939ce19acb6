#!/usr/bin/env bash
# Interactions per second of the repulsive particles' force evaluation on one device, for
# both implementations, D = 2, 5, 10 and N from 1000 to 100000 (see bench/bench_repulsive.c),
# appended to OUT.tsv. Render one or more such files with bench/repulsive_report.py.
# usage: bench/repulsive.sh BUILD_DIR DEVICE OUT.tsv [POINTS] [GLOBAL_POINTS] [BUDGET]
set -euo pipefail
build=$1
device=$2
out=$3
points=${4:-1000,2000,5000,10000,20000,50000,100000}
global_points=${5:-1000,2000,5000,10000,20000,50000,100000}
budget=${6:-2}
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
"$build/bench/bench-repulsive" --device "$device" --impl tiled --dims 2,5,10 \
    --points "$points" --budget "$budget" | tee -a "$out"
"$build/bench/bench-repulsive" --device "$device" --impl global --dims 2,5,10 \
    --points "$global_points" --budget "$budget" | tee -a "$out"

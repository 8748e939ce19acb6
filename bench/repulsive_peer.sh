#!/usr/bin/env bash
# clpart's tiled repulsive-particles force evaluation against a plain CUDA all-pairs kernel of
# the same pair terms (bench/peers/cuda_repulsive.cu), on the same NVIDIA GPU in one call: for
# each D and N, both lines (bench-repulsive's and the peer's) and the ratio of their GFLOP/s,
# counted alike. Needs nvcc.
# usage: bench/repulsive_peer.sh BUILD_DIR [DEVICE] [DIMS] [POINTS]
#   (DEVICE: a clpart selector, default nvidia; DIMS default 2,3; POINTS default 100000)
set -euo pipefail
build=$1
device=${2:-nvidia}
dims=${3:-2,3}
points=${4:-100000}
here=$(cd "$(dirname "$0")" && pwd)
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(dirname "$here")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -O3 -o "$work/cuda-repulsive" "$here/peers/cuda_repulsive.cu"
for d in ${dims//,/ }; do
    for n in ${points//,/ }; do
        mine=$("$build/bench/bench-repulsive" --device "$device" --impl tiled --dims "$d" \
            --points "$n")
        peer=$("$work/cuda-repulsive" "$d" "$n")
        echo "$mine"
        echo "$peer"
        # GFLOP/s: field 7 of bench-repulsive's line, field 6 of the peer's
        echo "$mine	$peer" | awk -F'\t' '{ printf "D %s, N %s: clpart %.0f GFLOP/s, CUDA %.0f, ratio %.2f\n", $3, $4, $7, $14, $7 / $14 }'
    done
done

#!/usr/bin/env bash
# Strong and weak scaling of one case over GPUs, one MPI rank each: the 3D dam break (with
# MODEL=lj the Lennard-Jones liquid) at each of STRONG's sizes on each GPU count of GPUS, and
# WEAK particles a GPU on each count; then, at the largest count and size, one run with
# --timing, whose lines per rank say where a step goes (device work, halo refreshes, waits on
# the others, rebuilds). One GPU runs the case as `clpart run --device 0` does; N > 1 run as
# `mpirun -np N ... --devices 0,..,N-1` ($MPIRUN and $MPIRUN_FLAGS as in bench/dist.sh, which
# takes every measurement: medians of REPEATS runs of STEPS steps). Every run keeps the
# default options, plus ARGS.
# Writes TABLE, tab-separated: model, study (strong or weak), particles, GPUs, rate, and the
# speed-up over one GPU at that size (strong) or the efficiency against N times one GPU's rate
# at WEAK (weak); the dist.sh tables and the timing run's output go beside it (TABLE.md,
# TABLE.timing.txt). bench/scaling_chart.gp draws TABLE.
# usage: bench/scaling.sh BUILD_DIR TABLE
# env: MODEL (sph), GPUS ("1 2 4 8"), STRONG ("32000000 128000000"), WEAK (16000000),
#      STEPS (100), REPEATS (2), ARGS (""), TIMING (1 for SPH: the timing run; 0: none; LJ
#      has --timing on one device only)
set -euo pipefail
build=$1
table=$2
here=$(dirname "$0")
model=${MODEL:-sph}
gpus=(${GPUS:-1 2 4 8})
strong=${STRONG:-32000000 128000000}
weak=${WEAK:-16000000}
steps=${STEPS:-100}
repeats=${REPEATS:-2}
extra=${ARGS:-}

# config N: dist.sh's "LABEL=ARGS" for N GPUs
config() {
    if [ "$1" -eq 1 ]; then
        echo "1=--device 0 $extra"
    else
        echo "$1=mpirun:$1 --devices $(seq -s, 0 $(($1 - 1))) $extra"
    fi
}

# rows MARKDOWN: "particles gpus rate ratio" for each measured row of a dist.sh table
rows() {
    awk -F'|' '$3 ~ /^ *[0-9]+ *$/ && $4 ~ /^ *[0-9.e+]+ *$/ {
        gsub(/ /, ""); print $2, $3, $4, $5 }' "$1"
}

: >"$table.md"
printf 'model\tstudy\tparticles\tgpus\trate\tratio\n' >"$table"
configs=()
for n in "${gpus[@]}"; do configs+=("$(config "$n")"); done
MODEL=$model "$here/dist.sh" "$build" "$steps" "$repeats" "$strong" "${configs[@]}" | tee -a "$table.md" >"$table.strong"
rows "$table.strong" | while read -r particles n rate ratio; do
    printf '%s\tstrong\t%s\t%s\t%s\t%s\n' "$model" "$particles" "$n" "$rate" "$ratio"
done >>"$table"

one=""
for n in "${gpus[@]}"; do
    MODEL=$model "$here/dist.sh" "$build" "$steps" "$repeats" "$((n * weak))" "$(config "$n")" |
        tee -a "$table.md" >"$table.weak"
    read -r particles _ rate _ < <(rows "$table.weak") || { echo "weak scaling on $n GPUs failed" >&2; continue; }
    [ -n "$one" ] || one=$rate
    printf '%s\tweak\t%s\t%s\t%s\t%s\n' "$model" "$particles" "$n" "$rate" \
        "$(python3 -c "print(f'{$rate / ($n * $one):.3f}')")" >>"$table"
done
rm -f "$table.strong" "$table.weak"

if [ "${TIMING:-$([ "$model" = sph ] && echo 1 || echo 0)}" = 1 ]; then
    logs=$(mktemp -d)
    largest=${strong##* } most=${gpus[-1]}
    LOGS=$logs REPEATS=1 MODEL=$model "$here/dist.sh" "$build" "$steps" 1 "$largest" \
        "$(config "$most") --timing" >>"$table.md"
    cat "$logs"/* >"$table.timing.txt"
    rm -rf "$logs"
fi
cat "$table"

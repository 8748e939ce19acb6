#!/usr/bin/env bash
# One case on one device and split among several: the 3D dam break at each SIZE (particles,
# fluid and walls together), or with MODEL=lj the Lennard-Jones liquid of cases/lj_liquid.json
# (SIZE atoms), for STEPS steps, run in each configuration given as "LABEL=ARGS" (the
# clpart run arguments that pick the devices, e.g. "gpu=--device 0" "gpu+cpu=--devices 0,1
# --weights 180,1"). The rate is the median over REPEATS runs of the run's own rate line
# (particle- or atom-steps/s, outputs excluded); each row also gives the ratio to the first
# configuration at that size, and the last diagnostics' distance from the first
# configuration's (relative: SPH's kinetic energy and front, LJ's total energy and pressure).
# ARGS that begin with "mpirun:N" run the case as N MPI ranks ($MPIRUN, else mpirun, with
# -np N and $MPIRUN_FLAGS), e.g. "gpu2-mpi=mpirun:2 --devices 0,1".
# RUN_TIMEOUT (seconds, default 1800) ends a run that takes longer, as failed. With LOGS set,
# each run's standard output is appended to LOGS/SIZE-LABEL.txt (e.g. for --timing's lines).
# The particles column gives the case's own count, the nearest to SIZE its lattice allows.
# usage: bench/dist.sh BUILD_DIR STEPS REPEATS "SIZE ..." "LABEL=ARGS" ...
set -euo pipefail
build=$1
steps=$2
repeats=$3
sizes=$4
shift 4
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "${MODEL:-sph}" = lj ]; then
    title="Lennard-Jones liquid" unit=atom columns="total pressure"
    make_case() { python3 "$(dirname "$0")/lj_case.py" "$CLPART_DATA_DIR/cases/lj_liquid.json" \
        "$work/case.json" "$1" "$steps"; }
else
    title="3D dam break" unit=particle columns="kinetic_energy front"
    make_case() { python3 "$(dirname "$0")/sph_case.py" "$CLPART_DATA_DIR/cases/dam_break_3d.json" \
        "$work/case.json" "$1" "$steps" "$build/tools/clpart"; }
fi
read -r first_column second_column <<<"$columns"
echo "$title, $steps steps; rate: median of $repeats runs (${unit}-steps/s)"
echo
echo "| ${unit}s | configuration | rate | ratio to ${1%%=*} | $first_column vs ${1%%=*} | $second_column vs ${1%%=*} |"
echo "|---|---|---|---|---|---|"
for size in $sizes; do
    make_case "$size"
    particles=$("$build/tools/clpart" source "$work/case.json" 2>/dev/null |
        sed -n 's/^#define CLP_GRID_PARTICLES \([0-9]*\)$/\1/p' | head -1)
    first=""
    for config in "$@"; do
        label=${config%%=*}
        read -r -a args <<<"${config#*=}"
        launcher=()
        if [[ ${args[0]:-} == mpirun:* ]]; then
            read -r -a launcher <<<"${MPIRUN:-mpirun} -np ${args[0]#mpirun:} ${MPIRUN_FLAGS:-}"
            args=("${args[@]:1}")
        fi
        rates=()
        for _ in $(seq "$repeats"); do
            timeout -k 10 "${RUN_TIMEOUT:-1800}" "${launcher[@]}" "$build/tools/clpart" run "$work/case.json" --out "$work/$label" "${args[@]}" \
                >"$work/stdout" 2>"$work/err" </dev/null || true
            [ -z "${LOGS:-}" ] || cat "$work/stdout" >>"$LOGS/$size-$label.txt"
            line=$(grep '^rate:' "$work/stdout" || true)
            [ -n "$line" ] || { echo "| $particles | $label | failed: $(tail -1 "$work/err") | | | |"; continue 2; }
            rates+=("$(awk '{print $2}' <<<"$line")")
        done
        python3 - "$work/$label" "${first:-$work/$label}" "$particles" "$label" "$columns" "${rates[@]}" <<'PY'
import csv, statistics, sys
run, ref, size, label, columns, rates = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5].split(), sys.argv[6:]
rate = statistics.median(float(r) for r in rates)
open(run + "/rate", "w").write(str(rate))
ref_rate = float(open(ref + "/rate").read())
a, b = (list(csv.DictReader(open(d + "/diagnostics.csv")))[-1] for d in (ref, run))
rel = lambda k: abs(float(a[k]) - float(b[k])) / max(abs(float(a[k])), 1e-30)
print(f"| {size} | {label} | {rate:.3g} | {rate / ref_rate:.3f} | {rel(columns[0]):.1e} | {rel(columns[1]):.1e} |")
PY
        [ -n "$first" ] || first=$work/$label
    done
done

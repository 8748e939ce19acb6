#!/usr/bin/env bash
# The next step's rates, queued before the host reads a step's record (src/models/sph/
# sph_step.c), change no result: a run ends bit for bit as a profiled one (--timing), which
# queues nothing ahead, with its rebuilds on schedule and with early ones, whose record drops
# the rates queued ahead.
set -euo pipefail
clpart=$1
case=$CLPART_DATA_DIR/cases/dam_break_2d.json
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# same LABEL EARLY [OPTION...]: the plain and the profiled run end alike; EARLY: whether the
# profiled run must have rebuilt early
same() {
    local label=$1 early=$2
    shift 2
    rm -rf "$work/a" "$work/b"
    "$clpart" run "$case" --time 0.01 --out "$work/a" "$@" >/dev/null 2>&1
    "$clpart" run "$case" --time 0.01 --out "$work/b" --timing "$@" >"$work/timing" 2>&1
    cmp "$work/a/checkpoint.ckpt" "$work/b/checkpoint.ckpt" ||
        { echo "$label: the state differs from the profiled run's"; exit 1; }
    cmp "$work/a/diagnostics.csv" "$work/b/diagnostics.csv" ||
        { echo "$label: the diagnostics differ from the profiled run's"; exit 1; }
    local rebuilds
    rebuilds=$(grep -o '[0-9]* rebuilds ([0-9]* early)' "$work/timing")
    if [ "$early" = yes ] && grep -q '(0 early)' <<<"$rebuilds"; then
        echo "$label: no early rebuild ($rebuilds)"; exit 1
    fi
    echo "$label ($rebuilds): same state and diagnostics as the profiled run"
}
same "rebuilds on schedule" no
same "early rebuilds, predictor-corrector" yes -s neighbors.skin=0.005 \
    -s sph.integrator=predictor_corrector

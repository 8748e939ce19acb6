#!/usr/bin/env bash
# Rebalancing a split SPH run (dist.rebalance): two equal PoCL devices started with weights
# 1,20 must find, from their measured busy times, that the second is the slower, cut the
# particles again closer to equal, and end as the one-device run ends (sph_agree.py's
# tolerances); with dist.rebalance=0 they keep the cut. PoCL's "basic" devices run each
# device's kernels in its own thread; "pthread" devices share one pool of threads, so each
# would wait for the other's kernels and no device could be told faster than another.
set -uo pipefail
clpart=$1
. "$(dirname "$0")/../cli/common.sh"
pocl_only
case=$CLPART_DATA_DIR/cases/dam_break_2d.json

# run NAME DEVICES [ARGS...]: the dam break to 0.006 s (about 300 steps) into $work/NAME.
run() {
    local name=$1 devices=$2
    shift 2
    POCL_DEVICES=$devices timeout 120 "$clpart" run "$case" --time 0.006 --out "$work/$name" \
        "$@" >"$work/$name.log" 2>&1
    local status=$?
    [ "$status" -eq 0 ] || fail "$name ($devices $*) exited $status: $(tail -3 "$work/$name.log")"
}

# spread LOG FIRST|LAST: |a - b| of the particles the two devices got at the first or last cut.
spread() {
    grep -oE "device rank [01]: cell layers .*, [0-9]+ particles" "$1" |
        sed -E 's/device rank ([01]):.*, ([0-9]+) particles/\1 \2/' |
        awk -v which="$2" '{ n[$1] = $2; if ($1 == 1 && !seen++) { f0 = n[0]; f1 = n[1] } }
            END { d = which == "first" ? f0 - f1 : n[0] - n[1]; print d < 0 ? -d : d }'
}

run one pthread
two=$(POCL_DEVICES="basic basic" devices_of pocl) # PoCL's two, whatever platforms come first
run balanced "basic basic" --devices "$two" --weights 1,20 -s dist.rebalance=0.1 -s dist.probe_steps=100 -v
grep "rebalanced at step" "$work/balanced.log" || fail "no rebalance logged"
first=$(spread "$work/balanced.log" first)
last=$(spread "$work/balanced.log" last)
echo "particles: the devices' counts differ by $first at the first cut, $last at the last"
[ "$last" -lt "$first" ] || fail "the last cut is no closer to equal ($last) than the first ($first)"
python3 "$(dirname "$0")/sph_agree.py" "$work/one" "$work/balanced" || fail "balanced differs from one"

run kept "basic basic" --devices "$two" --weights 1,20 -s dist.rebalance=0 -v
! grep "rebalanced" "$work/kept.log" || fail "dist.rebalance=0 rebalanced"

echo "$failures failures"
[ "$failures" -eq 0 ]

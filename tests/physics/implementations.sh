#!/usr/bin/env bash
# The other CPU implementations at hand against PoCL: Mesa's rusticl (RUSTICL_ENABLE=llvmpipe)
# and Intel's CPU runtime (tools/install-intel-opencl, in .opencl/intel of the checkout). On
# each: the selftest (its own bounds, from a double-precision host reference), then the 2D dam
# break to t = 0.02 s and the 864-atom liquid for 300 steps, each compared by clpart compare
# with PoCL's run of the same length, within the tolerances docs/compare.md gives per model
# and justifies (summation order, fused multiply-adds, the implementations' own sqrt, exp and
# cos): a different compiler stack rounds differently, and in a liquid such differences grow
# with time, hence 300 steps. And --timing's device times, which must account for at least 30
# % of the steps' wall time (PoCL 70 %, the others over 90 %): rusticl 22.3's profiling
# events give every kernel 1 ns, and clpart then times the launches on the wall. Skipped where
# neither is installed; CI installs both.
set -uo pipefail
clpart=$1
. "$(dirname "$0")/../cli/common.sh"
intel_env=$CLPART_DATA_DIR/.opencl/intel/env.sh
# shellcheck disable=SC1090
[ -f "$intel_env" ] && . "$intel_env"
export RUSTICL_ENABLE=llvmpipe
unset CLPART_DEVICE

implementations=()
for impl in rusticl intel; do
    [ -n "$(devices_of "$impl")" ] && implementations+=("$impl")
done
if [ ${#implementations[@]} -lt 2 ]; then
    echo "found: ${implementations[*]:-neither} of rusticl (mesa-opencl-icd) and Intel's runtime (tools/install-intel-opencl)"
    [ "${CI:-}" = true ] && exit 1
    [ ${#implementations[@]} -eq 0 ] && exit 77
fi

# compare_on IMPL NAME CASE LIMITS...: CASE on PoCL (once) and on IMPL, compared
compare_on() {
    local impl=$1 name=$2 case=$3
    shift 3
    for device in pocl "$impl"; do
        [ -f "$work/$name-$device/summary.json" ] && continue
        timeout 300 "$clpart" run "$case" --device "$device" "$@" --out "$work/$name-$device" \
            </dev/null >"$work/$name-$device.log" 2>&1 ||
            { fail "$name on $device: $(tail -2 "$work/$name-$device.log")"; return; }
    done
    local out
    out=$("$clpart" compare "$work/$name-pocl" "$work/$name-$impl" 2>&1) ||
        fail "$name on $impl against PoCL: $out"
    echo "$impl, $name: $(tail -1 <<<"$out")"
}

# device_times IMPL: the dam break's --timing on IMPL, its device total against its wall time
device_times() {
    local out
    out=$(timeout 300 "$clpart" run "$CLPART_DATA_DIR/cases/dam_break_2d.json" --device "$1" \
        --steps 200 --timing --out "$work/timing-$1" </dev/null 2>&1) ||
        { fail "--timing on $1: $(tail -2 <<<"$out")"; return; }
    awk -v impl="$1" '/timing: device total/ { device = $4 } /timing: wall/ { wall = $3 }
        END { share = device / wall; printf "%s: --timing accounts for %.0f %% of the wall time\n", impl, 100 * share
              exit !(share >= 0.3 && share <= 1.05) }' <<<"$out" ||
        fail "$1's device times are not its steps' time: $(grep -E 'device total|wall' <<<"$out")"
}

device_times pocl
for impl in "${implementations[@]}"; do
    device_times "$impl"
    out=$("$clpart" --device "$impl" selftest 2>&1) || fail "selftest on $impl: $out"
    echo "$impl: $(tail -1 <<<"$out")"
    compare_on "$impl" dam-break "$CLPART_DATA_DIR/cases/dam_break_2d.json" --time 0.02
    compare_on "$impl" liquid "$CLPART_DATA_DIR/cases/lj_liquid_small.json" --steps 300
done
[ "$failures" -eq 0 ] || exit 1

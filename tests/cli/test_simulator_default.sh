#!/usr/bin/env bash
# Oclgrind registered beside PoCL through a vendors folder of our own (as docs/cli.md tells a
# user to do): it lists as a GPU, yet the default device, --device gpu and --device cpu are
# never the simulator; --device oclgrind still picks it, and with Oclgrind alone (a program
# run under `oclgrind PROG`) it is the default, with a warning. test-device's selector checks run
# with both platforms too.
set -uo pipefail
clpart=$1
test_device=$2
. "$(dirname "$0")/common.sh"
oclgrind_icd=/usr/lib/oclgrind/liboclgrind-rt-icd.so
pocl_icd=$(ls "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"/*pocl*.icd 2>/dev/null | head -1)
if [ ! -f "$oclgrind_icd" ] || [ -z "$pocl_icd" ]; then
    [ "${CI:-}" = true ] && { echo "FAIL: Oclgrind or PoCL's ICD file is missing"; exit 1; }
    echo "skipped: Oclgrind's or PoCL's ICD file is not installed"
    exit 77
fi
both=$work/both only=$work/only
mkdir -p "$both" "$only"
echo "$oclgrind_icd" >"$both/0-oclgrind.icd" # listed first: the old rule picked it
cp "$pocl_icd" "$both/1-pocl.icd"
echo "$oclgrind_icd" >"$only/oclgrind.icd"
unset CLPART_DEVICE

devices=$(OCL_ICD_VENDORS=$both "$clpart" devices --json) || fail "clpart devices failed"
python3 - "$devices" <<'PY' || fail "the device list does not mark the simulator"
import json, sys
devices = json.loads(sys.argv[1])["devices"]
kinds = {d["platform"]: d["simulator"] for d in devices}
assert kinds.get("Oclgrind") is True and kinds.get("Portable Computing Language") is False, kinds
PY
OCL_ICD_VENDORS=$both "$test_device" >"$work/selectors.log" 2>&1 ||
    fail "the selector checks with Oclgrind beside PoCL: $(tail -3 "$work/selectors.log")"
for selector in "" gpu cpu; do
    out=$(OCL_ICD_VENDORS=$both "$clpart" -v build "$CLPART_DATA_DIR/cases/pso_rastrigin.json" \
        ${selector:+--device $selector} 2>&1)
    if [ "$selector" = gpu ]; then # no GPU but the simulator: refused, not simulated
        grep -q "^clpart: error: no device matches 'gpu'\|^clpart: error: .*GPU" <<<"$out" ||
            fail "--device gpu did not refuse the simulator: $out"
    else
        grep -q "Portable Computing Language\|pocl\|pthread" <<<"$out" &&
            ! grep -qi "oclgrind" <<<"$out" || fail "'${selector:-default}' chose the simulator: $out"
    fi
done
out=$(OCL_ICD_VENDORS=$both "$clpart" -v build "$CLPART_DATA_DIR/cases/pso_rastrigin.json" \
    --device oclgrind 2>&1) && grep -qi "oclgrind" <<<"$out" ||
    fail "--device oclgrind did not pick Oclgrind: $out"
out=$(OCL_ICD_VENDORS=$only "$clpart" -v build "$CLPART_DATA_DIR/cases/pso_rastrigin.json" 2>&1)
code=$?
[ $code -eq 0 ] && grep -q "every device is a simulator: running on Oclgrind" <<<"$out" &&
    grep -qi "on device 0 (Oclgrind" <<<"$out" ||
    fail "Oclgrind alone was not the default with a warning ($code): $out"
[ $failures -eq 0 ] || exit 1
echo "ok: the default device, --device gpu and --device cpu skip Oclgrind"

#!/usr/bin/env bash
# Runs every self-test kernel under Oclgrind (through run.sh) on tiny sizes, with the default
# options and with the branch-free KBN form, and checks that Oclgrind was the device.
set -uo pipefail
clpart=$1
run=$(dirname "$0")/run.sh
status=0
for extra in "" "-s core.summation=kbn -s core.kbn_form=select"; do
    # shellcheck disable=SC2086
    out=$("$run" "$clpart" selftest --no-cache -s selftest.n=300 -s selftest.terms=20 $extra)
    code=$?
    echo "$out"
    [ "$code" -eq 0 ] || status=$code
    [ "$code" -eq 77 ] || grep -q "Oclgrind Simulator" <<<"$out" || { echo "not run on Oclgrind"; status=1; }
done
exit $status

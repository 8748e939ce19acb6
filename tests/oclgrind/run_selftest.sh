#!/usr/bin/env bash
# Runs every self-test kernel under Oclgrind (memory errors, data races, uninitialised
# values) on tiny sizes; fails on any message Oclgrind logs or a non-zero exit.
set -uo pipefail
clpart=$1
if ! command -v oclgrind >/dev/null; then
    echo "oclgrind is not installed (tools/install-deps installs it)"
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# The default options, then the branch-free KBN form.
for extra in "" "-s core.summation=kbn -s core.kbn_form=select"; do
    # shellcheck disable=SC2086
    out=$(oclgrind --check-api --data-races --uninitialized --log "$log" \
        "$clpart" selftest --no-cache -s selftest.n=300 -s selftest.terms=20 $extra) || status=1
    echo "$out"
    grep -q "Oclgrind Simulator" <<<"$out" || { echo "not run on Oclgrind"; status=1; }
done
if [ -s "$log" ]; then
    echo "oclgrind reported:"
    cat "$log"
    exit 1
fi
exit $status

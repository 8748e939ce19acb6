#!/usr/bin/env bash
# Runs a test program under Oclgrind (memory errors, data races, uninitialised values, API
# errors); fails on any message Oclgrind logs or a non-zero exit.
# usage: run.sh [--no-uninitialized] PROGRAM [ARGS...]; the flag leaves out the check of
# uninitialised values, which crashes Oclgrind 21.10 on the PSO kernels (tests/meson.build).
set -uo pipefail
if ! command -v oclgrind >/dev/null; then
    echo "oclgrind is not installed (tools/install-deps installs it)"
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
# Under oclgrind the only platform is Oclgrind's: a CLPART_DEVICE naming another
# implementation (the test matrix's) would match no device.
unset CLPART_DEVICE
log=$(mktemp)
trap 'rm -f "$log"' EXIT
checks=(--check-api --data-races --uninitialized)
if [ "${1:-}" = --no-uninitialized ]; then
    checks=(--check-api --data-races)
    shift
fi
oclgrind "${checks[@]}" --log "$log" "$@"
status=$?
if [ -s "$log" ]; then
    echo "oclgrind reported:"
    head -c 20000 "$log"
    exit 1
fi
exit $status

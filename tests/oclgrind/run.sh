#!/usr/bin/env bash
# Runs a test program under Oclgrind (memory errors, data races, uninitialised values, API
# errors); fails on any message Oclgrind logs or a non-zero exit.
set -uo pipefail
if ! command -v oclgrind >/dev/null; then
    echo "oclgrind is not installed (tools/install-deps installs it)"
    [ "${CI:-}" = true ] && exit 1
    exit 77
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
oclgrind --check-api --data-races --uninitialized --log "$log" "$@"
status=$?
if [ -s "$log" ]; then
    echo "oclgrind reported:"
    head -c 20000 "$log"
    exit 1
fi
exit $status

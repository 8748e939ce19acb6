#!/usr/bin/env bash
# Every symbol the shared library exports is public API: clp_<name>, never an internal
# clp__<name> or a helper without the prefix.
set -euo pipefail
symbols=$(nm -D --defined-only "$1" | awk '$2 ~ /[TDBR]/ {print $3}')
grep -qx clp_version <<<"$symbols" || { echo "clp_version is not exported"; exit 1; }
bad=$(grep -v '^clp_[a-z]' <<<"$symbols" || true)
[ -z "$bad" ] || { echo "exports outside the public API:"; echo "$bad"; exit 1; }
echo "$(wc -l <<<"$symbols") exports, all clp_*"

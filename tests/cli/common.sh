# Sourced by the CLI test scripts: a scratch folder removed at exit with its own program
# cache, fail(), which reports a check that failed and counts it in $failures, and
# same_summary().
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CLPART_CACHE_DIR=$work/cache
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# same_summary A B: whether two summary.json files agree but for their seconds.
same_summary() {
    python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("seconds"), b.pop("seconds")
sys.exit(a != b)' "$1" "$2"
}

# Sourced by the CLI test scripts: a scratch folder removed at exit with its own program
# cache, and fail(), which reports a check that failed and counts it in $failures.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CLPART_CACHE_DIR=$work/cache
failures=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

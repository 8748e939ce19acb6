# Sourced by the CLI test scripts: a scratch folder removed at exit with its own program
# cache, fail(), which reports a check that failed and counts it in $failures, and
# comparisons of output folders.
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

# same_outputs A B: whether every file of folder A is in folder B, byte for byte, but
# run.json (each run's own command line and times) and the seconds of summary.json; prints
# the names of those that differ.
same_outputs() {
    local f name differ=0
    for f in "$1"/*; do
        name=$(basename "$f")
        case $name in
        run.json) continue ;;
        summary.json) same_summary "$f" "$2/$name" ;;
        *) cmp -s "$f" "$2/$name" ;;
        esac || {
            echo "$name"
            differ=1
        }
    done
    return $differ
}

# Sourced by the CLI test scripts: a scratch folder removed at exit with its own program
# cache, fail(), which reports a check that failed and counts it in $failures, expect() and
# variant() for commands and case files, and comparisons of output folders.
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

# expect CODE PATTERN -- command...: exit code and a pattern in stdout+stderr
expect() {
    local code=$1 pattern=$2
    shift 3
    local out
    out=$("$@" 2>&1)
    local got=$?
    [ "$got" -eq "$code" ] || fail "'$*' exited $got, expected $code: $out"
    grep -qE -- "$pattern" <<<"$out" || fail "'$*' output lacks /$pattern/: $out"
}

# variant BASE FILE [PATH=JSON]...: writes to FILE the case BASE (JSON text) with each PATH
# (keys split at "/") set to the JSON value, or removed by DELETE.
variant() {
    python3 - "$@" <<'PY'
import json, sys
c = json.loads(sys.argv[1])
for assignment in sys.argv[3:]:
    path, value = assignment.split("=", 1)
    *parents, key = path.split("/")
    d = c
    for p in parents:
        d = d[p]
    if value == "DELETE":
        del d[key]
    else:
        d[key] = json.loads(value)
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
}

# devices_of, pocl_split and the default device's implementation
. "$(dirname "${BASH_SOURCE[0]}")/../default_device.sh"

# pocl_only: every run of the test, MPI ranks included, on PoCL's CPU device (CLPART_DEVICE),
# whatever the machine's default: for a test that compares one device's run with the same case
# split among PoCL's devices, within one implementation's rounding. Without PoCL the test is
# skipped (CI installs it, so there it fails).
pocl_only() {
    if [ -z "$(devices_of pocl 2>/dev/null)" ]; then
        echo "no PoCL platform"
        [ "${CI:-}" = true ] && exit 1
        exit 77
    fi
    export CLPART_DEVICE=pocl
}

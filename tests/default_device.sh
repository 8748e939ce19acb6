# Sourced by test scripts that adapt to the default device of $clpart (under CLPART_DEVICE).

# default_implementation: the implementation of the default device, as tests/devices_of.py
# names them (pocl, oclgrind, rusticl, intel), or 'other'.
default_implementation() {
    "$clpart" devices --json 2>/dev/null |
        python3 "$(dirname "${BASH_SOURCE[0]}")/devices_of.py" --selected 2>/dev/null
}

# too_slow_on IMPLEMENTATION... -- REASON: skips the test (exit 77) with the reason when the
# default device belongs to one of the implementations: for a test that would outlast its
# timeout there. tools/test-matrix lists the reasons.
too_slow_on() {
    local slow=() selected
    while [ "$1" != -- ]; do slow+=("$1"); shift; done
    shift
    selected=$(default_implementation)
    for implementation in "${slow[@]}"; do
        if [ "$selected" = "$implementation" ]; then
            echo "skipped on $implementation: $*"
            exit 77
        fi
    done
}

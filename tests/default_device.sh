# Sourced by test scripts (and by tests/cli/common.sh): the devices of $clpart by implementation,
# and what the default device (under CLPART_DEVICE) is. No side effects.

# devices_of IMPLEMENTATION...: the comma-separated indices of the devices of those OpenCL
# implementations (pocl, oclgrind, rusticl, intel) as $clpart lists them under the current environment.
devices_of() {
    "$clpart" devices --json | python3 "$(dirname "${BASH_SOURCE[0]}")/devices_of.py" "$@"
}

# pocl_split N COMMAND...: COMMAND on N PoCL CPU devices (POCL_DEVICES), with --devices naming
# those devices by index: a GPU's or rusticl's platform may list devices before them.
pocl_split() {
    local pthreads
    pthreads=$(printf 'pthread %.0s' $(seq "$1"))
    shift
    POCL_DEVICES=$pthreads "$@" --devices "$(POCL_DEVICES=$pthreads devices_of pocl)"
}

# default_implementation: the implementation of the default device, as tests/devices_of.py
# names them (pocl, oclgrind, rusticl, intel), or 'other'.
default_implementation() {
    devices_of --selected 2>/dev/null
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

#!/usr/bin/env bash
# pocl_split.sh COMMAND...: COMMAND (a split run the docs show over PoCL's devices, selected
# by implementation) on exactly PoCL's two devices, each named by its index as devices_of
# finds it: on a machine with a GPU or rusticl, other platforms list devices beside PoCL's,
# and the test needs these two whatever else the machine has.
set -uo pipefail
clpart=clpart
. "$CLPART_SOURCE_ROOT/tests/default_device.sh"
pocl_split 2 "$@"

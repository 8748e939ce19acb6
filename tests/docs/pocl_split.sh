#!/usr/bin/env bash
# pocl_split.sh COMMAND...: COMMAND (a split run that the docs write with `--devices all:pocl`)
# on PoCL's two devices named by index, as every test names them: on a machine with a GPU or
# rusticl, other platforms list devices beside PoCL's.
set -uo pipefail
clpart=clpart
. "$CLPART_SOURCE_ROOT/tests/default_device.sh"
pocl_split 2 "$@"

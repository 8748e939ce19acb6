#!/usr/bin/env bash
# For the docs test: checks that .ci/run, which runs the README's first two sh blocks as CI,
# extracts sh block N of README.md as the command the docs test found there
# ($DOCUMENTED_COMMAND), using .ci/run's own readme_command function.
# usage: ci_block.sh N
set -euo pipefail
root=${CLPART_SOURCE_ROOT:?the docs test sets CLPART_SOURCE_ROOT}
definition=$(sed -n '/^readme_command() {$/,/^}$/p' "$root/.ci/run")
[ -n "$definition" ] || { echo "ci_block: .ci/run defines no readme_command()" >&2; exit 1; }
eval "$definition"
got=$(cd "$root" && readme_command "$1")
if [ "$got" != "${DOCUMENTED_COMMAND:?}" ]; then
    echo "ci_block: .ci/run runs README sh block $1 as: $got" >&2
    echo "ci_block: but the README documents there: $DOCUMENTED_COMMAND" >&2
    exit 1
fi
echo "ci_block: .ci/run runs README sh block $1: $got"

#!/usr/bin/env bash
# The LJ liquid's rate against the work-items per atom (lj.threads_per_atom) of the default
# configuration (a stored list, par_part): 1, 2, 4, 8 and 16 at each state, then 0, the
# choice made for the device, as a Markdown table. The states are bench/lj_peers.py's.
# usage: bench/lj_lanes.sh BUILD_DIR DEVICE [STEPS] [STATES]
set -euo pipefail
build=$1
device=$2
steps=${3:-200}
states=${4:-"0.8442:20,40,80 1.0:25,64"}
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
echo "| atoms | density | work-items per atom | atom-steps/s |"
echo "| --- | --- | --- | --- |"
for state in $states; do
    density=${state%%:*}
    sizes=${state#*:}
    for cells in ${sizes//,/ }; do
        for lanes in 1 2 4 8 16 0; do
            "$build/bench/bench-lj" liquid --device "$device" --cells "$cells" \
                --density "$density" --steps "$steps" --rounds 3 --configs list \
                -s "lj.threads_per_atom=$lanes" |
                awk -F'\t' -v asked="$lanes" '$1 == "liquid" {
                    split($5, run, " x");
                    printf "| %s | %s | %s | %.3g |\n", $3, $9,
                        asked == 0 ? run[2] " (default)" : run[2], $6 }'
        done
    done
done

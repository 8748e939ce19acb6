#!/usr/bin/env bash
# clpart's copy probe against a plain CUDA float4 copy of the same 1 GiB arrays, measured in
# the same call on the same NVIDIA GPU, and their ratio (the bench's bandwidth is only as
# good as this probe). Needs nvcc.
# usage: bench/copy.sh BUILD_DIR [DEVICE]   (DEVICE: a clpart selector, default nvidia)
set -euo pipefail
build=$1
device=${2:-nvidia}
here=$(cd "$(dirname "$0")" && pwd)
export CLPART_DATA_DIR=${CLPART_DATA_DIR:-$(dirname "$here")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
nvcc -O3 -o "$work/cuda-copy" "$here/peers/cuda_copy.cu"
floats=268435456
cuda=$("$work/cuda-copy" "$floats")
echo "$cuda"
"$build/tools/clpart" bench --suite "$here/probes.json" --devices "$device" --out "$work/probe" \
    >/dev/null
python3 - "$work/probe/bench.json" "$cuda" <<'PY'
import json, re, sys
probe = json.load(open(sys.argv[1]))["devices"][0]["probe"]
cuda = float(re.search(r"([0-9.]+) GB/s", sys.argv[2]).group(1))
clpart = probe["copy"]["best"] / 1e9
print(f"clpart copy probe (float4, best launch): {clpart:.1f} GB/s; ratio to CUDA {clpart / cuda:.3f}")
PY

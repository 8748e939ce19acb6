#!/usr/bin/env python3
"""A benchmark dam break: the case SRC with dp set for about PARTICLES particles, fluid and
walls together (as `clpart source` counts them), 3 wall layers, and an end time of STEPS
steps at the largest time step, written to DST.
usage: bench/sph_case.py SRC DST PARTICLES STEPS CLPART"""
import json, math, re, subprocess, sys
src, dst, target, steps, clpart = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
case = json.load(open(src))
dim = case["options"]["core.dim"]
box = case["fluid"][0]
case["tank"]["layers"] = 3
dp = case["sph"]["dp"]
for _ in range(4):
    case["sph"]["dp"] = dp
    json.dump(case, open(dst, "w"))
    source = subprocess.run([clpart, "source", dst], capture_output=True, text=True, check=True).stdout
    n = int(re.search(r"#define CLP_GRID_PARTICLES (\d+)", source).group(1))
    dp *= (n / target) ** (1.0 / dim)
h, g = case["sph"].get("h_over_dp", 1.3) * case["sph"]["dp"], 9.81
c0 = 10 * math.sqrt(2 * g * (box["max"][dim - 1] - box["min"][dim - 1]))
case["end_time"] = steps * case["sph"].get("cfl", 0.1) * h / c0
case["output_interval"] = case["end_time"]
json.dump(case, open(dst, "w"))

#!/usr/bin/env python3
"""tools/gauge-summary on a gauges.csv made here: two gauges sampled at t = 0, 0.1, ..., 1,
the first p = 100 t (its largest 100 at t = 1; over t = 0.2 to 0.6 the median 40 and the 95th
percentile 58), the second dry (empty) but at t = 0.3 and 0.5, where it reads 7 and 9 (dry
share over 0.2 to 0.6: 3 of 5). usage: check_gauge_summary.py REPOSITORY"""
import json
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
work = tempfile.mkdtemp()
gauges = os.path.join(work, "gauges.csv")
with open(gauges, "w") as out:
    out.write("time,step,height_0,pressure_0,vx_0,pressure_1,vx_1\n")
    for k in range(11):
        wet = {3: "7", 5: "9"}.get(k, "")
        out.write(f"{k / 10},{k},0.1,{100 * k / 10},0,{wet},{wet and 0}\n")
summary = os.path.join(work, "summary.json")
subprocess.run([sys.executable, os.path.join(root, "tools", "gauge-summary"), gauges,
                "--window", "0.2", "0.6", "--json", summary], check=True, stdout=subprocess.DEVNULL)
first, second = json.load(open(summary))["gauges"]
want = [(first["largest"], 100), (first["at"], 1), (first["median"], 40), (first["p95"], 58),
        (first["dry"], 0), (second["largest"], 9), (second["at"], 0.5), (second["median"], 8),
        (second["dry"], 0.6)]
bad = [(got, expected) for got, expected in want if abs(got - expected) > 1e-9]
if bad:
    sys.exit(f"gauge-summary gave {bad} (got, expected)")
print("gauge-summary: largest, median, 95th percentile and dry share as computed by hand")

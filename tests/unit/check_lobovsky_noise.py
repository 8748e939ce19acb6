#!/usr/bin/env python3
"""tools/compare-lobovsky --noise on records and a run made here, in t* = t sqrt(g/H) and
p* = p/(rho0 g H): the record's four sensors read p* = 0 before t* = 2 and 1 from it (the
impact at 2; noise 0, quasi-static mean 1, peak 1); the run's read 1 + A sin(2 pi t*/P) from
t* = 2, with P = 0.05 (a running mean over 0.1 is flat on it), so its noise is A/sqrt(2)
(within the few samples near the window's ends, 3 %), its mean over t* 3 to 7 is 1 and its
peak 1 + A. The diagnostics.csv beside the run says 3 particles were excluded.
usage: check_lobovsky_noise.py REPOSITORY"""
import json
import math
import os
import subprocess
import sys
import tempfile

root = sys.argv[1]
work = tempfile.mkdtemp()
H, G, RHO0, A, P = 0.3, 9.81, 1000.0, 0.2, 0.05
case = {"fluid": [{"min": [0, 0], "max": [0.6, H]}], "sph": {"gravity": [0, -G], "rho0": RHO0}}
json.dump(case, open(os.path.join(work, "case.json"), "w"))
data = os.path.join(work, "data")
os.mkdir(data)
times = [k / 1000 for k in range(8001)]  # t* 0 to 8
for s in "1234":
    with open(os.path.join(data, f"pressure_sensor_{s}.dat"), "w") as out:
        out.write("# t* p*\n" + "".join(f"{t}\t{1.0 if t >= 2 else 0.0}\n" for t in times))
for name in ["H1_2", "H2_4", "H3_4", "H4_5"]:
    with open(os.path.join(data, f"water_level_{name}.dat"), "w") as out:
        out.write("# t* h/H\n" + "".join(f"{t}\t0.5\n" for t in times))
run = os.path.join(work, "run")
os.mkdir(run)
scale_t, scale_p = math.sqrt(G / H), RHO0 * G * H
with open(os.path.join(run, "gauges.csv"), "w") as out:
    out.write("time," + ",".join(f"pressure_{k}" for k in range(4)) + ","
              + ",".join(f"height_{k}" for k in range(4)) + "\n")
    for t in times:
        p = 1 + A * math.sin(2 * math.pi * t / P) if t >= 2 else 0.0
        out.write(f"{t / scale_t!r}," + ",".join([repr(p * scale_p)] * 4) + ","
                  + ",".join([repr(0.5 * H)] * 4) + "\n")
with open(os.path.join(run, "diagnostics.csv"), "w") as out:
    out.write("step,time,excluded\n0,0,0\n10,1,3\n")
result = os.path.join(work, "compare.json")
subprocess.run([sys.executable, os.path.join(root, "tools", "compare-lobovsky"), "--noise",
                "--case", os.path.join(work, "case.json"), "--data", data,
                "--run", f"sine={run}/gauges.csv", "--json", result],
               check=True, stdout=subprocess.DEVNULL)
r = json.load(open(result))
got, record = r["runs"]["sine"], r["record"]["noise"]
bad = []
for s in "1234":
    n, e = got["noise"][s], record[s]
    if abs(n["noise"] - A / math.sqrt(2)) > 0.03 * A / math.sqrt(2):
        bad.append(f"sensor {s} noise {n['noise']:.4f}, not {A / math.sqrt(2):.4f}")
    if abs(n["mean"] - 1) > 1e-3 or abs(n["peak"] - (1 + A)) > 1e-3:
        bad.append(f"sensor {s} mean {n['mean']:.4f} and peak {n['peak']:.4f}, not 1 and {1 + A}")
    if abs(e["noise"]) > 1e-9 or abs(e["mean"] - 1) > 1e-9 or abs(e["peak"] - 1) > 1e-9:
        bad.append(f"the record's sensor {s}: {e}, not noise 0, mean 1, peak 1")
if got["excluded"] != 3:
    bad.append(f"excluded {got['excluded']}, not 3")
if bad:
    sys.exit("compare-lobovsky --noise: " + "; ".join(bad))
print("compare-lobovsky --noise: noise, mean, peak and excluded as computed by hand")

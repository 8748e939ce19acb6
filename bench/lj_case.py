#!/usr/bin/env python3
"""A benchmark Lennard-Jones liquid: the case SRC with the fcc lattice of about ATOMS atoms (4 a
cell, as many cells a side as makes them nearest) and STEPS steps, diagnostics at the start and
the end, written to DST.
usage: bench/lj_case.py SRC DST ATOMS STEPS"""
import json, sys
src, dst, target, steps = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
case = json.load(open(src))
case["lj"]["fcc_cells"] = max(1, round((target / 4) ** (1.0 / 3)))
case["steps"] = steps
case["output_every"] = steps
json.dump(case, open(dst, "w"))

#!/usr/bin/env python3
"""gauges_agree.py REFERENCE RUN [TOLERANCE]: whether a split SPH run's gauges.csv (folder RUN)
holds the reference run's: the same columns, a row for each of the reference's steps that the
run reached (at least MIN_ROWS), and every value within TOLERANCE (default 1e-6) of the largest
magnitude of its column in the reference (the ranks add a wall's force in another order); a
dry gauge's empty field must be empty in both.
Exit status 1 when not."""
import csv, sys
MIN_ROWS = 3
ref, run = (list(csv.DictReader(open(d + "/gauges.csv"))) for d in sys.argv[1:3])
tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-6
bad = []
if not ref or not run or list(ref[0]) != list(run[0]):
    sys.exit(f"columns differ or no rows: {list(ref[0]) if ref else []} vs {list(run[0]) if run else []}")
by_step = {r["step"]: r for r in ref}
def number(v):
    """A CSV field: an empty one (a dry gauge's) is NaN."""
    return float(v) if v != "" else float("nan")
scale = {k: max([abs(number(r[k])) for r in ref if r[k] != ""] or [0.0]) for k in ref[0]}
matched = [r for r in run if r["step"] in by_step]
if len(matched) < MIN_ROWS or len(matched) != len(run):
    bad.append(f"{len(matched)} of the run's {len(run)} rows are at the reference's steps")
worst = 0.0
for r in matched:
    for k, v in r.items():
        if (v == "") != (by_step[r["step"]][k] == ""):
            bad.append(f"step {r['step']}, {k}: {v!r} vs {by_step[r['step']][k]!r}")
            continue
        if v == "":
            continue
        off = abs(number(v) - number(by_step[r["step"]][k])) / max(scale[k], 1e-30)
        worst = max(worst, off)
        if off > tolerance:
            bad.append(f"step {r['step']}, {k}: {v} vs {by_step[r['step']][k]}")
print(f"{len(matched)} rows; the largest difference is {worst:.1e} of its column's size")
if bad:
    sys.exit("; ".join(bad[:5]))

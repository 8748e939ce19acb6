#!/usr/bin/env python3
"""The noise of the wall pressure in runs of cases/dam_break_2d_lobovsky.json, beside the
measured record's (data/lobovsky_2014): for each of the four sensors and each run
(LABEL=GAUGES.csv), over t* = t sqrt(g/H) from the first impact at sensor 1 to 7,
- noise: the RMS of the signal less its centred running mean over WIDTH in t* (0.1, 17 ms),
  in p* = p / (rho0 g H); the record is first sampled at the run's instants, so that both
  are seen through the same sampling;
- mean: the mean p* over t* 3 to 7, the quasi-static load a smoother must not change;
- peak: the largest p* up to t* = 7 (the impact's own, whenever it comes).
Dry samples (empty fields) are p = 0. Where a diagnostics.csv lies beside gauges.csv, the
fluid particles excluded by the end are given too. usage: sph_pressure_noise.py DATA_DIR LABEL=GAUGES.csv..."""
import bisect
import csv
import math
import os
import sys

H, G, RHO0 = 0.3, 9.81, 1000.0
WIDTH = 0.1
SENSORS = ["1", "2", "3", "4"]
IMPACT = 0.5  # p* that marks the first impact at sensor 1


def record(data, sensor):
    rows = [line.split() for line in open(os.path.join(data, f"pressure_sensor_{sensor}.dat"))
            if line.strip() and not line.startswith("#")]
    return [float(r[0]) for r in rows], [float(r[1]) for r in rows]


def run(path):
    """t* and the four sensors' p* of a gauges.csv."""
    rows = list(csv.DictReader(open(path, newline="")))
    scale = 1 / (RHO0 * G * H)
    times = [float(r["time"]) * math.sqrt(G / H) for r in rows]
    return times, [[float(r[f"pressure_{k}"] or 0) * scale for r in rows] for k in range(4)]


def excluded(path):
    """The excluded count at the end of the run beside a gauges.csv; '-' without one."""
    diagnostics = os.path.join(os.path.dirname(path), "diagnostics.csv")
    if not os.path.exists(diagnostics):
        return "-"
    rows = list(csv.DictReader(open(diagnostics, newline="")))
    return rows[-1]["excluded"] if rows else "-"


def sample(times, values, at):
    """values(times) linearly at the instants `at`, within the record's span."""
    out = []
    for t in at:
        k = min(max(bisect.bisect_left(times, t), 1), len(times) - 1)
        t0, t1 = times[k - 1], times[k]
        out.append(values[k - 1] + (values[k] - values[k - 1]) * (t - t0) / (t1 - t0))
    return out


def first_impact(times, values):
    return next((t for t, p in zip(times, values) if p > IMPACT), math.nan)


def figures(times, values, start):
    """noise from t* = start to 7, mean over t* 3 to 7, and peak up to 7 of one signal."""
    window = [(t, p) for t, p in zip(times, values) if start <= t <= 7]
    if len(window) < 3:
        return math.nan, math.nan, math.nan
    ts = [t for t, _ in window]
    ps = [p for _, p in window]
    prefix = [0.0]
    for p in ps:
        prefix.append(prefix[-1] + p)
    residual = []
    for k, t in enumerate(ts):
        lo = bisect.bisect_left(ts, t - WIDTH / 2)
        hi = bisect.bisect_right(ts, t + WIDTH / 2)
        residual.append(ps[k] - (prefix[hi] - prefix[lo]) / (hi - lo))
    noise = math.sqrt(sum(r * r for r in residual) / len(residual))
    steady = [p for t, p in window if t >= 3]
    return noise, sum(steady) / len(steady), max(p for t, p in zip(times, values) if t <= 7)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    data = sys.argv[1]
    runs = [arg.split("=", 1) for arg in sys.argv[2:]]
    measured = [record(data, s) for s in SENSORS]
    start = first_impact(*measured[0])
    print(f"noise, mean (t* 3-7) and peak of p* from the record's first impact t* = {start:.3f}"
          f" to 7; running mean over {WIDTH} in t*")
    print(f"{'run':28}" + "".join(f"{'s' + s + ' noise':>10}{'mean':>7}{'peak':>7}"
                                  for s in SENSORS) + f"{'excluded':>9}")
    for label, path in runs:
        times, sensors = run(path)
        line = f"{label:28}"
        for k in range(4):
            line += "{:10.3f}{:7.3f}{:7.2f}".format(*figures(times, sensors[k], start))
        print(line + f"{excluded(path):>9}")
        # the record through the same sampling, once, with the first run's instants
        if label == runs[0][0]:
            inside = [t for t in times if measured[0][0][0] <= t <= measured[0][0][-1]]
            reference = f"{'record (at ' + label + ')':28}"
            for k in range(4):
                sampled = sample(*measured[k], inside)
                reference += "{:10.3f}{:7.3f}{:7.2f}".format(*figures(inside, sampled, start))
    print(reference)


if __name__ == "__main__":
    main()

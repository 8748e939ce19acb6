#!/usr/bin/env python3
"""Renders bench-repulsive results (bench/repulsive.sh) as Markdown: interactions per second
for each device, implementation, dimension and number of points, the tiled kernel's GFLOP/s,
and how the rate grows with N (the seed's Figures 4 and 5: the tiled time grows linearly, so
the rate in proportion to N, until the device saturates); and a PNG chart with gnuplot.

usage: bench/repulsive_report.py OUT.png RESULTS.tsv [RESULTS.tsv...]  (Markdown on stdout)"""
import os
import subprocess
import sys
import tempfile


def read(paths):
    rows = []
    for path in paths:
        label = os.path.splitext(os.path.basename(path))[0]
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) == 8 and f[0] in ("tiled", "global"):
                rows.append({"device": label, "impl": f[0], "dim": int(f[2]), "n": int(f[3]),
                             "rate": float(f[5]) if f[5] != "-" else None,
                             "gflops": float(f[6]) if f[6] != "-" else None,
                             "note": f[7] if f[5] == "-" else ""})
    return rows


def table(rows):
    series = sorted({(r["device"], r["impl"], r["dim"]) for r in rows},
                    key=lambda s: (s[0], s[1] != "tiled", s[2]))
    sizes = sorted({r["n"] for r in rows})
    print("Interactions per second (N (N - 1) per force evaluation; tiled: GFLOP/s in brackets)\n")
    print("| device | impl | D | " + " | ".join("N=%d" % n for n in sizes) + " |")
    print("|---|---|---|" + "---|" * len(sizes))
    for device, impl, dim in series:
        cells = []
        for n in sizes:
            r = next((r for r in rows if (r["device"], r["impl"], r["dim"], r["n"]) ==
                      (device, impl, dim, n)), None)
            if not r:
                cells.append("")
            elif r["rate"] is None:
                cells.append("refused")
            elif impl == "tiled":
                cells.append("%.3g (%.0f)" % (r["rate"], r["gflops"]))
            else:
                cells.append("%.3g" % r["rate"])
        print("| %s | %s | %d | %s |" % (device, impl, dim, " | ".join(cells)))
    print("\nGrowth of the rate with N (rate at N over rate at the smallest N measured):\n")
    for device, impl, dim in series:
        rs = sorted((r for r in rows if (r["device"], r["impl"], r["dim"]) == (device, impl, dim)
                     and r["rate"]), key=lambda r: r["n"])
        if len(rs) > 1:
            print("- %s, %s, D=%d: %s" % (device, impl, dim, ", ".join(
                "%d: %.2f" % (r["n"], r["rate"] / rs[0]["rate"]) for r in rs)))


def chart(rows, png):
    devices = sorted({r["device"] for r in rows})
    with tempfile.TemporaryDirectory() as tmp:
        script = ["set terminal pngcairo size %d,420 font ',9'" % (420 * len(devices)),
                  "set output '%s'" % png, "set multiplot layout 1,%d" % len(devices),
                  "set logscale xy", "set xlabel 'points N'",
                  "set ylabel 'interactions per second'", "set key bottom right", "set grid"]
        for device in devices:
            plots = []
            for impl in ("tiled", "global"):
                for dim in sorted({r["dim"] for r in rows}):
                    rs = sorted((r for r in rows if (r["device"], r["impl"], r["dim"]) ==
                                 (device, impl, dim) and r["rate"]), key=lambda r: r["n"])
                    if not rs:
                        continue
                    path = os.path.join(tmp, "%s-%s-%d.dat" % (device, impl, dim))
                    with open(path, "w") as out:
                        out.writelines("%d %g\n" % (r["n"], r["rate"]) for r in rs)
                    colours = ["#0072b2", "#009e73", "#d55e00", "#cc79a7", "#999999"]
                    colour = colours[sorted({r["dim"] for r in rows}).index(dim) % len(colours)]
                    plots.append("'%s' with linespoints lw 1.5 lc rgb '%s' %s title '%s D=%d'" % (
                        path, colour, "dt 1" if impl == "tiled" else "dt 2", impl, dim))
            script.append("set title '%s'" % device.replace("_", "\\_"))
            script.append("plot " + ", ".join(plots))
        script.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = read(sys.argv[2:])
    table(rows)
    chart(rows, sys.argv[1])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Renders bench-lj results (bench/lj.sh) as Markdown: Algis et al. 2024's Table 1 (seconds per
force evaluation of Par-Part-NoLoop and X-pencil per device, beside the paper's own), the
speed-up of every strategy over par_part, the LJ liquid's atom-steps per second; and a PNG
chart of the speed-ups with gnuplot.

usage: bench/lj_report.py OUT.png RESULTS.tsv [RESULTS.tsv...]  (Markdown on stdout)"""
import os
import subprocess
import sys
import tempfile

STRATEGIES = ["par_part", "par_part_loop", "par_cell", "par_cell_sm", "x_pencil", "all_in_sm",
              "simd"]
COLOURS = {"par_part_loop": "#999999", "par_cell": "#56b4e9", "par_cell_sm": "#009e73",
           "x_pencil": "#d55e00", "all_in_sm": "#0072b2", "simd": "#cc79a7"}
# Table 1 of Algis et al. 2024: (d, ppc) -> (interactions,
# T600 PPNL, T600 X-pencil, A100 PPNL, A100 X-pencil, MI210 PPNL, MI210 X-pencil), seconds.
PAPER = {
    (2, 1): (7, 7.9e-06, 8.3e-06, 1.0e-05, 1.1e-05, 8.6e-06, 6.9e-06),
    (4, 1): (13.7, 1.4e-05, 9.1e-06, 2.0e-05, 1.2e-05, 2.9e-05, 1.9e-05),
    (8, 1): (21.4, 2.0e-05, 1.2e-05, 2.8e-05, 1.9e-05, 4.3e-05, 4.1e-05),
    (16, 1): (23.8, 3.2e-05, 3.4e-05, 3.7e-05, 2.0e-05, 1.4e-04, 9.8e-05),
    (32, 1): (25.3, 1.1e-04, 2.3e-04, 4.2e-05, 3.8e-05, 6.3e-04, 2.3e-04),
    (2, 10): (79, 3.0e-05, 2.6e-05, 3.4e-05, 1.8e-05, 3.2e-05, 4.2e-05),
    (4, 10): (157.6, 5.1e-05, 3.5e-05, 7.2e-05, 4.6e-05, 1.4e-04, 7.8e-05),
    (8, 10): (208.1, 7.3e-05, 5.7e-05, 9.1e-05, 5.6e-05, 4.6e-04, 4.6e-04),
    (16, 10): (236.6, 3.7e-04, 4.3e-04, 1.0e-04, 8.1e-05, 2.2e-03, 1.8e-04),
    (32, 10): (253.2, 3.0e-03, 3.8e-03, 4.2e-04, 4.0e-04, 9.2e-04, 1.2e-03),
    (2, 100): (799, 2.6e-04, 8.4e-05, 1.6e-04, 1.2e-04, 4.2e-04, 2.7e-04),
    (4, 100): (1556.6, 4.4e-04, 3.5e-04, 5.2e-04, 3.7e-04, 3.9e-03, 2.1e-03),
    (8, 100): (2079.5, 2.6e-03, 3.0e-03, 6.1e-04, 6.1e-04, 7.8e-03, 5.3e-03),
    (16, 100): (2373.2, 2.2e-02, 2.7e-02, 3.2e-03, 3.2e-03, 1.2e-02, 8.0e-03),
    (32, 100): (2534, 1.9e-01, 2.2e-01, 2.5e-02, 2.5e-02, 5.1e-02, 5.3e-02),
}
CASES = [(d, ppc) for ppc in (1, 10, 100) for d in (2, 4, 8, 16, 32)]


def read(paths):
    grid, liquid, devices = {}, [], []
    for path in paths:
        label = os.path.splitext(os.path.basename(path))[0]
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if f[0] == "grid" and len(f) >= 10:
                key = (label, int(f[2]), int(f[3]))
                grid.setdefault(key, {"interactions": float(f[5])})
                grid[key][f[6]] = (float(f[7]) if f[7] != "-" else None, f[10] if len(f) > 10 else "")
                if label not in devices:
                    devices.append(label)
            elif f[0] == "liquid" and len(f) >= 8:
                liquid.append((label, f[1], int(f[2]), f[3], f[4], f[5]))
    return grid, liquid, devices


def seconds(grid, label, case, strategy):
    entry = grid.get((label,) + case, {}).get(strategy)
    return entry[0] if entry else None


def fmt(value):
    return "%.1e" % value if value is not None else "–"


def table1(grid, devices):
    head = "| interactions per particle (d/ppc) | paper | " + " | ".join(
        "%s PPNL | %s X-pencil" % (d, d) for d in devices) + " | A100 PPNL | A100 X-pencil | T600 PPNL | T600 X-pencil | MI210 PPNL | MI210 X-pencil |"
    print(head)
    print("|" + "---|" * (2 + 2 * len(devices) + 6))
    for case in CASES:
        ours = [grid.get((d,) + case, {}).get("interactions") for d in devices]
        ours = next((x for x in ours if x is not None), None)
        p = PAPER[case]
        cells = ["%s (%d/%d)" % ("%.1f" % ours if ours is not None else "–", case[0], case[1]),
                 "%g" % p[0]]
        for d in devices:
            cells += [fmt(seconds(grid, d, case, "par_part")), fmt(seconds(grid, d, case, "x_pencil"))]
        cells += [fmt(p[3]), fmt(p[4]), fmt(p[1]), fmt(p[2]), fmt(p[5]), fmt(p[6])]
        print("| " + " | ".join(cells) + " |")


def speedups(grid, devices):
    for d in devices:
        print("\n%s: speed-up over par_part (its time / the strategy's; above 1 is faster)\n" % d)
        print("| d/ppc | " + " | ".join(STRATEGIES[1:]) + " |")
        print("|" + "---|" * len(STRATEGIES))
        for case in CASES:
            base = seconds(grid, d, case, "par_part")
            cells = ["%d/%d" % case]
            for s in STRATEGIES[1:]:
                t = seconds(grid, d, case, s)
                cells.append("%.2f" % (base / t) if base and t else "–")
            print("| " + " | ".join(cells) + " |")


def refusals(grid, devices):
    seen, lines = set(), []
    for key in sorted(grid):
        for s in STRATEGIES:
            value = grid[key].get(s)
            if value and value[0] is None and value[1] and (key[0], s, value[1]) not in seen:
                seen.add((key[0], s, value[1]))
                lines.append("- %s, %d/%d, %s: %s" % (key[0], key[1], key[2], s, value[1]))
    if lines:
        print("\nNot measured:\n")
        print("\n".join(lines))


def liquid_table(liquid):
    if not liquid:
        return
    print("\nLJ liquid (FCC, density 0.8442, T 1.44, rc 2.5), atom-steps per second:\n")
    print("| device | atoms | neighbours, strategy asked | strategy run | atom-steps/s |")
    print("|---|---|---|---|---|")
    for label, _, n, config, strategy, rate in liquid:
        shown = "%.3g" % float(rate) if rate != "-" else "– (over the particle limit)"
        print("| %s | %d | %s | %s | %s |" % (label, n, config, strategy, shown))


def chart(grid, devices, png):
    with tempfile.TemporaryDirectory() as tmp:
        plots = []
        for d in devices:
            for s in STRATEGIES[1:]:
                path = os.path.join(tmp, "%s-%s.dat" % (d, s))
                with open(path, "w") as out:
                    for case in sorted(CASES, key=lambda c: PAPER[c][0]):
                        base, t = seconds(grid, d, case, "par_part"), seconds(grid, d, case, s)
                        inter = grid.get((d,) + case, {}).get("interactions")
                        if base and t and inter:
                            out.write("%g %g\n" % (inter, base / t))
                plots.append((d, s, path))
        script = ["set terminal pngcairo size %d,420 font ',9'" % (420 * len(devices)),
                  "set output '%s'" % png, "set multiplot layout 1,%d" % len(devices),
                  "set logscale x", "set xlabel 'interactions per particle'",
                  "set ylabel 'speed-up over par\\_part'", "set key top left", "set grid"]
        for d in devices:
            script.append("set title '%s'" % d.replace("_", "\\_"))
            script.append("plot 1 notitle lc 'gray', " + ", ".join(
                "'%s' with linespoints lw 1.5 lc rgb '%s' title '%s'" % (path, COLOURS[s], s.replace("_", "\\_"))
                for dd, s, path in plots if dd == d))
        script.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    grid, liquid, devices = read(sys.argv[2:])
    table1(grid, devices)
    speedups(grid, devices)
    refusals(grid, devices)
    liquid_table(liquid)
    chart(grid, devices, sys.argv[1])


if __name__ == "__main__":
    main()

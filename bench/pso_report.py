#!/usr/bin/env python3
"""Renders bench-pso results (bench/pso.sh) as Markdown in the format of the seed's Tables 1
and 2 (Bilotta et al. 2018, 4.1, 4.2), beside the paper's own figures, with the
fraction of the device's copy bandwidth each layout reaches.

usage: bench/pso_report.py RESULTS.tsv [RESULTS.tsv...]  (Markdown on stdout)"""
import os
import sys

LAYOUTS = ["aos", "aos_selective", "soa", "soa_padded"]
WIDE = ["naive", "transposed", "chunk2", "chunk4", "chunk8", "chunk16"]
# Table 1: ms of the 3D PSO update, AoS, selective AoS, SoA, padded SoA (the paper's GPU).
PAPER_1 = [98, 73, 25, 13]
# Table 2: median ms of the 128-dimensional position update.
PAPER_2 = {"NVIDIA GT 750M": [476, 41, 39, 38, 48, 71],
           "Intel HD Graphics (Beignet)": [237, 75, 63, 58, 59, 91],
           "Intel Core i7-4712HQ (Intel SDK)": [120, 568, 294, 422, 53, 41]}


def read(paths):
    rows = {}
    for path in paths:
        label = os.path.splitext(os.path.basename(path))[0]
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) == 10 and f[0] in ("table1", "table2"):
                rows[(label, f[0], f[2])] = {"n": int(f[3]), "dim": int(f[4]), "s": float(f[5]),
                                             "gbs": float(f[7]), "copy": float(f[8]),
                                             "fraction": float(f[9])}
    return rows


def labels(rows, table):
    seen = []
    for label, t, _ in rows:
        if t == table and label not in seen:
            seen.append(label)
    return seen


def table1(rows):
    print("Table 1: the 3-dimensional position update, ms (speed-up over the previous layout; "
          "over AoS; fraction of the copy bandwidth)\n")
    print("| device | particles | " + " | ".join(LAYOUTS) + " |")
    print("|---|---|" + "---|" * len(LAYOUTS))
    print("| paper (GPU) | ? | " + " | ".join(
        "%g (%s; %s)" % (ms, "%.1f" % (PAPER_1[i - 1] / ms) if i else "–",
                         "%.1f" % (PAPER_1[0] / ms) if i else "–")
        for i, ms in enumerate(PAPER_1)) + " |")
    for label in labels(rows, "table1"):
        r = [rows.get((label, "table1", l)) for l in LAYOUTS]
        cells = []
        for i, x in enumerate(r):
            if not x:
                cells.append("–")
                continue
            prev = "%.1f" % (r[i - 1]["s"] / x["s"]) if i and r[i - 1] else "–"
            total = "%.1f" % (r[0]["s"] / x["s"]) if i and r[0] else "–"
            cells.append("%.3g (%s; %s; %.0f %%)" % (1e3 * x["s"], prev, total, 100 * x["fraction"]))
        n = next(x["n"] for x in r if x)
        print("| %s | %d | %s |" % (label, n, " | ".join(cells)))


def table2(rows):
    print("\nTable 2: the 128-dimensional position update, median ms (fraction of the copy "
          "bandwidth)\n")
    print("| device | particles | " + " | ".join(WIDE) + " |")
    print("|---|---|" + "---|" * len(WIDE))
    for name, ms in PAPER_2.items():
        best = min(ms)
        print("| paper: %s | ? | %s |" % (name, " | ".join(
            ("**%g**" if m == best else "%g") % m for m in ms)))
    for label in labels(rows, "table2"):
        r = [rows.get((label, "table2", l)) for l in WIDE]
        best = min(x["s"] for x in r if x)
        cells = [("**%.3g** (%.0f %%)" if x["s"] == best else "%.3g (%.0f %%)") %
                 (1e3 * x["s"], 100 * x["fraction"]) if x else "–" for x in r]
        n = next(x["n"] for x in r if x)
        print("| %s | %d | %s |" % (label, n, " | ".join(cells)))
    print("\nCopy bandwidth measured in the same runs (GB/s, read plus written): " + ", ".join(
        "%s %.0f" % (label, next(rows[k]["copy"] for k in rows if k[0] == label))
        for label in labels(rows, "table2")))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rows = read(sys.argv[1:])
    table1(rows)
    table2(rows)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""clpart's cell sort against CUB's DeviceRadixSort::SortPairs (bench/peers/cub_sort.cu) on one
NVIDIA GPU, in alternating rounds.

For each particle count: bench-grid with the counting sort (the default) and with the radix
sort (the sort's ms per step, bench-grid's column), and CUB sorting as many 32-bit key/value
pairs over as many key bits as the grid's cell keys need (the median of its 20 sorts), each a
process of its own: one warm-up round, then --rounds rounds of the three in turn
(bench/rounds.py). The table gives each side's median and interquartile range, and clpart's
time over CUB's round by round. Needs nvcc.

usage: bench/sort_peers.py BUILD [--device nvidia] [--particles 1000000,8000000] [--rounds 7]
         [--log FILE]"""
import argparse
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rounds  # noqa: E402


def key_bits(clpart, case):
    """The bits of the grid's cell keys: of CLP_GRID_KEY_COUNT in the case's device source."""
    source = rounds.output_of([clpart, "source", case])
    keys = int(re.search(r"#define CLP_GRID_KEY_COUNT (\d+)", source).group(1))
    return keys.bit_length()


def clpart_sort_ms(command):
    """The sort's ms per step: column 10 of bench-grid's table row."""
    cells = [c.strip() for c in rounds.output_of(command).strip().splitlines()[-1].strip("|").split("|")]
    return float(cells[9])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("--device", default="nvidia")
    p.add_argument("--particles", default="1000000,8000000")
    rounds.add_arguments(p, "times")
    a = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.environ.setdefault("CLPART_DATA_DIR", os.path.dirname(here))
    clpart = os.path.join(a.build, "tools", "clpart")
    log = rounds.appender(a.log)
    with tempfile.TemporaryDirectory() as work:
        cub = rounds.compile_cuda(os.path.join(here, "peers", "cub_sort.cu"), work)
        print("| particles | counting sort ms | radix sort ms | CUB SortPairs ms "
              "| counting / CUB | radix / CUB |")
        print("| --- | --- | --- | --- | --- | --- |", flush=True)
        for n in a.particles.split(","):
            # bench-grid's case (cases/neighbour_search.json, side^3 particles)
            side = round(int(n) ** (1 / 3))
            case = json.load(open(os.path.join(root, "cases", "neighbour_search.json")))
            case["search"]["side"] = side
            path = os.path.join(work, "case.json")
            json.dump(case, open(path, "w"))
            bits = key_bits(clpart, path)
            grid = [os.path.join(a.build, "bench", "bench-grid"), "--device", a.device,
                    "--particles", n, "--steps", "5", "-s", "neighbors.mode=list"]
            sides = [(sort, lambda sort=sort: clpart_sort_ms(grid + ["-s", f"grid.sort={sort}"]))
                     for sort in ("counting", "radix")]
            sides.append(("CUB", lambda: float(re.search(
                r"([0-9.]+) ms", rounds.output_of([cub, str(side ** 3), str(bits)])).group(1))))
            if log:
                log(f"# {n} particles, {bits} key bits")
            ms = rounds.alternate(sides, a.rounds, log=log)
            print(f"| {side ** 3} | {rounds.cell(ms['counting'])} | {rounds.cell(ms['radix'])} "
                  f"| {rounds.cell(ms['CUB'])} "
                  f"| {rounds.cell(rounds.per_round(ms['counting'], ms['CUB']))} "
                  f"| {rounds.cell(rounds.per_round(ms['radix'], ms['CUB']))} |", flush=True)


if __name__ == "__main__":
    main()

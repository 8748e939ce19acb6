#!/usr/bin/env python3
"""clpart's tiled repulsive-particles force evaluation against a plain CUDA all-pairs kernel of
the same pair terms (bench/peers/cuda_repulsive.cu), on one NVIDIA GPU, in alternating rounds.

For each D and N, bench-repulsive (the default repulsive.impl=tiled) and the CUDA peer each run
in a process of their own: one warm-up round, then --rounds rounds of both in turn
(bench/rounds.py). Both count GFLOP/s alike (bench/bench_repulsive.c says how); the table
gives each side's median with its interquartile range, and clpart's over the peer's round by
round. Needs nvcc.

usage: bench/repulsive_peers.py BUILD [--device nvidia] [--dims 2,3] [--points 100000]
         [--rounds 7] [--log FILE]"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rounds  # noqa: E402


def last_line(command):
    """The tab-separated fields of the last line `command` prints."""
    return rounds.output_of(command).strip().splitlines()[-1].split("\t")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("--device", default="nvidia")
    p.add_argument("--dims", default="2,3")
    p.add_argument("--points", default="100000")
    rounds.add_arguments(p)
    a = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    os.environ.setdefault("CLPART_DATA_DIR", os.path.dirname(here))
    log = rounds.appender(a.log)
    with tempfile.TemporaryDirectory() as work:
        peer = rounds.compile_cuda(os.path.join(here, "peers", "cuda_repulsive.cu"), work)
        print("| D | N | clpart GFLOP/s | CUDA GFLOP/s | clpart / CUDA |")
        print("| --- | --- | --- | --- | --- |", flush=True)
        for d in a.dims.split(","):
            for n in a.points.split(","):
                mine = [os.path.join(a.build, "bench", "bench-repulsive"), "--device", a.device,
                        "--impl", "tiled", "--dims", d, "--points", n]
                # GFLOP/s: field 7 of bench-repulsive's line, field 6 of the peer's
                sides = [("clpart", lambda: float(last_line(mine)[6])),
                         ("CUDA", lambda: float(last_line([peer, d, n])[5]))]
                if log:
                    log(f"# D {d}, N {n}")
                rates = rounds.alternate(sides, a.rounds, log=log)
                print(f"| {d} | {n} | {rounds.cell(rates['clpart'])} | {rounds.cell(rates['CUDA'])} "
                      f"| {rounds.cell(rounds.per_round(rates['clpart'], rates['CUDA']))} |",
                      flush=True)


if __name__ == "__main__":
    main()

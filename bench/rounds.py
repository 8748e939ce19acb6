"""Alternating rounds, for a fair comparison of clpart with a peer on one device.

Each side is a function that runs once and returns its rate. After one untimed warm-up run of
every side (caches, kernel compilers, clocks), the rounds run every side in turn (A B A B ...),
so that a drift of the machine (clocks, another tenant, heat) falls on all sides alike. A
table then gives each side's median with its interquartile range, and the ratio of two sides
round by round: the ratio's own median and spread, not the ratio of two medians."""
import os
import statistics
import subprocess
import sys


def alternate(sides, rounds, warmup=1, log=None):
    """Runs `sides` (a list of (name, run) where run() returns a rate) in `rounds` rounds after
    `warmup` untimed ones, and returns {name: [rate per round]}."""
    rates = {name: [] for name, _ in sides}
    for r in range(warmup + rounds):
        for name, run in sides:
            rate = run()
            if log:
                log(f"{'warm-up' if r < warmup else f'round {r - warmup + 1}'}: {name} {rate:.4g}")
            if r >= warmup:
                rates[name].append(rate)
    return rates


def quartiles(xs):
    """The first quartile, the median and the third quartile of `xs` (inclusive method: the
    quartiles of 7 samples are the 2.5th and the 5.5th values, as numpy's default)."""
    if len(xs) == 1:
        return xs[0], xs[0], xs[0]
    q1, median, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    return q1, median, q3


def per_round(a, b):
    """The ratio a / b of each round."""
    return [x / y for x, y in zip(a, b)]


def cell(xs, digits=3):
    """`median (q1–q3)` of `xs`."""
    q1, median, q3 = quartiles(xs)
    return f"{median:.{digits}g} ({q1:.{digits}g}–{q3:.{digits}g})"


def output_of(command):
    """The standard output of `command`; its standard error and an exit when it fails."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    return done.stdout


def appender(path):
    """A function that appends a line to the file `path`, or None without a path."""
    if not path:
        return None

    def log(line):
        with open(path, "a") as f:
            print(line, file=f)

    return log


def add_arguments(parser, what="rates"):
    """The harness's own flags: --rounds (7) and --log FILE (every round's `what`)."""
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--log", default=None, help=f"every round's {what}, appended to FILE")


def compile_cuda(source, folder):
    """The CUDA peer `source` built by nvcc -O3 into `folder`; its path."""
    program = os.path.join(folder, os.path.splitext(os.path.basename(source))[0])
    subprocess.run(["nvcc", "-O3", "-o", program, source], check=True)
    return program

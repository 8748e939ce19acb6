#!/usr/bin/env python3
"""clpart's LJ liquid against OpenMM's on the same device, in one invocation: for each state
(density and fcc cells a side), bench-lj liquid (a stored list with par_part, and the cell
search with lj.strategy=auto) and bench/peers/openmm_lj.py, each the median of its rounds,
then a table with the ratio of clpart's faster configuration to OpenMM.

Both start from the same fcc lattice; their potential energies per atom there must agree
(OpenMM's plain cutoff moved to clpart's potential shifted to 0 at rc, by the lattice's
neighbours within rc), or the line says they do not.

usage: bench/lj_peers.py BUILD DEVICE PLATFORM [--precision single] [--openmm-device I]
         [--steps S] [--rounds R] [--states "0.8442:20,40,80 1.0:25,64"] [--set NAME=VALUE]...
DEVICE is clpart's --device selector; PLATFORM OpenMM's (OpenCL, CUDA, CPU). The default
states are the issue's: 32000, 256000 and 2048000 atoms at 0.8442, 62500 and 1048576 at 1.0."""
import argparse
import itertools
import math
import os
import subprocess
import sys

RC = 2.5


def lattice_neighbours(density, rc=RC):
    """Atoms of the infinite fcc lattice at `density` within rc of one."""
    a = (4.0 / density) ** (1.0 / 3.0)
    reach = int(math.ceil(rc / a)) + 1
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    count = 0
    for i, j, k in itertools.product(range(-reach, reach + 1), repeat=3):
        for bx, by, bz in basis:
            r2 = ((i + bx) ** 2 + (j + by) ** 2 + (k + bz) ** 2) * a * a
            count += 0 < r2 < rc * rc
    return count


def run(command):
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"lj_peers: {' '.join(command)} failed:\n{done.stderr.strip()}")
    return [line.split("\t") for line in done.stdout.splitlines() if "\t" in line]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("device")
    p.add_argument("platform")
    p.add_argument("--precision", default="single")
    p.add_argument("--openmm-device", default=None)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--states", default="0.8442:20,40,80 1.0:25,64")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="an option for clpart's runs (bench-lj -s), repeatable")
    a = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    shift = 4 * (RC ** -12 - RC ** -6)  # the potential at rc, which clpart subtracts
    print("| atoms | density | clpart | OpenMM | ratio | PE per atom (clpart, OpenMM) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for state in a.states.split():
        density, cells = state.split(":")
        for c in cells.split(","):
            mine = run([os.path.join(a.build, "bench", "bench-lj"), "liquid", "--device",
                        a.device, "--cells", c, "--density", density, "--steps",
                        str(a.steps), "--rounds", str(a.rounds)] +
                       [arg for option in a.set for arg in ("-s", option)])
            peer = [os.path.join(here, "peers", "openmm_lj.py"), c, "--density", density,
                    "--steps", str(a.steps), "--rounds", str(a.rounds), "--platform",
                    a.platform, "--precision", a.precision]
            if a.openmm_device is not None:
                peer += ["--device", a.openmm_device]
            theirs = run([sys.executable] + peer)[0]
            best = max(mine, key=lambda f: float(f[5]) if f[5] != "-" else 0.0)
            n, rate, pe = int(best[2]), float(best[5]), float(best[9])
            peer_rate = float(theirs[4])
            peer_pe = float(theirs[7]) - 0.5 * lattice_neighbours(float(density)) * shift
            agrees = abs(pe - peer_pe) <= 1e-4 * abs(peer_pe)
            print(f"| {n} | {density} | {rate:.3g} ({best[3]}, {best[4]}) | {peer_rate:.3g} "
                  f"({theirs[1]}) | {rate / peer_rate:.2f} | {pe:.5f}, {peer_pe:.5f}"
                  f"{'' if agrees else ' DIFFER'} |", flush=True)


if __name__ == "__main__":
    main()

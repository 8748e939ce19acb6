#!/usr/bin/env python3
"""clpart's LJ liquid against OpenMM's on the same device, in alternating rounds.

For each state (density, temperature and fcc cells a side) the sides are `clpart run` of
cases/lj_liquid.json at that state as a user runs it (the case's options and what the tuning
database gives), `clpart run` with the options of --best (when given), and
bench/peers/openmm_lj.py. Each side runs the same number of steps in a process of its own:
one warm-up round, then --rounds rounds of every side in turn (bench/rounds.py). clpart's rate
is its atoms times steps over the steps' wall time (summary.json: no build, no file writes);
OpenMM's its atoms times steps over the wall time of integrator.step and the state read that
waits for it, after 10 untimed steps. The table gives each side's median with its
interquartile range, and the ratios to OpenMM round by round.

Both start from the same fcc lattice; their potential energies per atom there must agree
(OpenMM's plain cutoff moved to clpart's potential shifted to 0 at rc, by the lattice's
neighbours within rc), or the line says they do not.

usage: bench/lj_peers.py BUILD DEVICE PLATFORM [--precision single] [--openmm-device I]
         [--steps S] [--rounds R] [--states "0.8442:1.44:20,40,80 1.0:1.2:25,63"]
         [--best NAME=VALUE]... [--log FILE]
DEVICE is clpart's --device selector; PLATFORM OpenMM's (OpenCL, CUDA, CPU). The default
states: 32000, 256000 and 2048000 atoms at 0.8442 (T 1.44), 62500 and 1000188 at 1.0 (kT 1.2,
HOOMD-blue's md_pair_lj state)."""
import argparse
import csv
import itertools
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rounds  # noqa: E402

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


class Clpart:
    """`clpart run` of the LJ case at one state, with `options` (-s) on top."""

    def __init__(self, clpart, device, case, folder, options):
        self.command = [clpart, "--device", device, "run", case, "--out", folder]
        self.command += [arg for option in options for arg in ("-s", option)]
        self.folder = folder

    def __call__(self):
        rounds.output_of(self.command)
        summary = json.load(open(os.path.join(self.folder, "summary.json")))
        return summary["particles"] * summary["steps"] / summary["seconds"]

    def first_potential_per_atom(self):
        """The potential energy per atom of the first row of diagnostics.csv: the lattice's."""
        with open(os.path.join(self.folder, "diagnostics.csv")) as f:
            first = next(csv.DictReader(f))
        summary = json.load(open(os.path.join(self.folder, "summary.json")))
        return float(first["potential"]) / summary["particles"]


class OpenMM:
    def __init__(self, script, cells, density, temperature, steps, platform, precision, device):
        self.command = [sys.executable, script, str(cells), "--density", str(density),
                        "--temperature", str(temperature), "--steps", str(steps), "--rounds",
                        "1", "--platform", platform, "--precision", precision]
        if device is not None:
            self.command += ["--device", device]
        self.line = None

    def __call__(self):
        self.line = rounds.output_of(self.command).split("\t")
        return float(self.line[4])


def write_case(root, folder, density, temperature, cells, steps):
    case = json.load(open(os.path.join(root, "cases", "lj_liquid.json")))
    case["lj"].update(fcc_cells=cells, density=density, temperature=temperature)
    case["steps"] = steps
    case["output_every"] = steps  # the first row and the last: nothing written in between
    path = os.path.join(folder, "case.json")
    json.dump(case, open(path, "w"), indent=1)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("device")
    p.add_argument("platform")
    p.add_argument("--precision", default="single")
    p.add_argument("--openmm-device", default=None)
    p.add_argument("--steps", type=int, default=2000)
    p.add_argument("--states", default="0.8442:1.44:20,40,80 1.0:1.2:25,63")
    p.add_argument("--best", action="append", default=[], metavar="NAME=VALUE",
                   help="an option of clpart's best variant (run -s), repeatable")
    rounds.add_arguments(p)
    a = p.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.environ.get("CLPART_DATA_DIR", os.path.dirname(here))
    clpart = os.path.join(a.build, "tools", "clpart")
    log = rounds.appender(a.log)
    shift = 4 * (RC ** -12 - RC ** -6)  # the potential at rc, which clpart subtracts
    best = f"clpart `{' '.join(a.best)}`" if a.best else None
    head = ["atoms", "density", "clpart as run", *([best] if best else []), "OpenMM",
            "as run / OpenMM", *(["best / OpenMM"] if best else []), "PE per atom (clpart, OpenMM)"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head), flush=True)
    for state in a.states.split():
        density, temperature, cells = state.split(":")
        for c in map(int, cells.split(",")):
            with tempfile.TemporaryDirectory() as folder:
                case = write_case(root, folder, float(density), float(temperature), c, a.steps)
                user = Clpart(clpart, a.device, case, os.path.join(folder, "as-run"), [])
                sides = [("as run", user)]
                if best:
                    sides.append(("best", Clpart(clpart, a.device, case,
                                                 os.path.join(folder, "best"), a.best)))
                peer = OpenMM(os.path.join(here, "peers", "openmm_lj.py"), c, density,
                              temperature, a.steps, a.platform, a.precision, a.openmm_device)
                sides.append(("OpenMM", peer))
                if log:
                    log(f"# {4 * c ** 3} atoms at {density}, {a.steps} steps")
                rates = rounds.alternate(sides, a.rounds, log=log)
                pe = user.first_potential_per_atom()
            peer_pe = float(peer.line[7]) - 0.5 * lattice_neighbours(float(density)) * shift
            agrees = abs(pe - peer_pe) <= 1e-4 * abs(peer_pe)
            row = [str(4 * c ** 3), density, rounds.cell(rates["as run"])]
            if best:
                row.append(rounds.cell(rates["best"]))
            row += [f"{rounds.cell(rates['OpenMM'])} ({peer.line[1]})",
                    rounds.cell(rounds.per_round(rates["as run"], rates["OpenMM"]))]
            if best:
                row.append(rounds.cell(rounds.per_round(rates["best"], rates["OpenMM"])))
            row.append(f"{pe:.5f}, {peer_pe:.5f}{'' if agrees else ' DIFFER'}")
            print("| " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()

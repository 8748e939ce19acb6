#!/usr/bin/env python3
"""A mutation fuzzer for what users hand clpart: case files, suite files, --combos files and
results.jsonl. Each round takes a seed input, mutates it (a value made extreme or of another
type, a key removed or unknown, a list repeated, the text cut short or a byte changed) and
runs the command that reads it. A crash (a signal other than the SIGTERM that ends a hang),
a hang (past the command's time limit) or a sanitizer report is a failure: the input is kept
in --keep and named in the summary. Every other outcome, an error message included, is what
clpart is for.

usage: fuzz_inputs.py CLPART [--seconds S] [--seed N] [--keep DIR]
The last line: "fuzz: N inputs in S s: C crashes, H hangs, R sanitizer reports".
"""
import argparse
import copy
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

EXTREMES = [0, -1, 1, 2, 1.5, -0.5, 1e-300, 1e308, -1e308, 2**31, 2**32, 2**53, 2**63 - 1,
            2**64, "", "x" * 5000, "auto", None, True, False, [], {}, [[[[[[[[]]]]]]]],
            {"a": {"b": {"c": {}}}}]
SEED_CASES = ["dam_break_2d.json", "hydrostatic_2d.json", "lj_liquid_small.json",
              "pso_sphere_128.json", "pso_user.json", "repulsive_24_2d.json", "selftest.json"]
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                   "ERROR: UndefinedBehaviorSanitizer")


def nodes(tree, path=()):
    """Every (path, value) of a JSON tree, the root first."""
    yield path, tree
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from nodes(v, path + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from nodes(v, path + (i,))


def set_at(tree, path, value):
    if not path:
        return value
    parent = tree
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return tree


def mutate_tree(rng, tree):
    tree = copy.deepcopy(tree)
    for _ in range(rng.randint(1, 3)):
        path, value = rng.choice(list(nodes(tree)))
        kind = rng.random()
        if kind < 0.5:
            tree = set_at(tree, path, copy.deepcopy(rng.choice(EXTREMES)))
        elif kind < 0.6 and isinstance(value, (int, float)) and not isinstance(value, bool):
            tree = set_at(tree, path, value * rng.choice([-1, 10, 1000, 1e-6]))
        elif kind < 0.7 and isinstance(value, dict) and value:
            del value[rng.choice(list(value))]
        elif kind < 0.8 and isinstance(value, dict):
            value[rng.choice(["stpes", "x" * 300, "sph.kernel", "repeat"])] = rng.choice(EXTREMES)
        elif kind < 0.9 and isinstance(value, list) and value:
            value.extend(copy.deepcopy(value) * rng.randint(1, 50))
        elif isinstance(value, str):
            tree = set_at(tree, path, value * rng.randint(2, 500))
    return tree


def mutate_text(rng, text):
    if rng.random() < 0.5:
        return text[: rng.randrange(len(text) + 1)]
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice(["\0", "{", "]", ",", "\"", "\\u0000", "9" * 400, "-"]) + text[at:]


def mutated(rng, text):
    if rng.random() < 0.8:
        try:
            return json.dumps(mutate_tree(rng, json.loads(text)))
        except ValueError:
            pass
    return mutate_text(rng, text)


def run(command, seconds, cwd):
    """(outcome, output): 'ok', 'crash' (killed by a signal), 'hang' or 'sanitizer'."""
    try:
        p = subprocess.run(command, cwd=cwd, capture_output=True, timeout=seconds,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        return "hang", (e.stderr or b"").decode(errors="replace")
    out = p.stderr.decode(errors="replace")
    if any(m in out for m in SANITIZER_MARKS):
        return "sanitizer", out
    if p.returncode < 0 and p.returncode != -signal.SIGTERM:
        return "crash", out
    return "ok", out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("clpart")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    a.clpart = os.path.abspath(a.clpart)
    data = os.environ.get("CLPART_DATA_DIR", os.path.join(os.path.dirname(__file__), "../.."))
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="clpart-fuzz-")
    keep = a.keep or os.path.join(work, "kept")
    os.makedirs(keep, exist_ok=True)
    seeds = {name: open(os.path.join(data, "cases", name)).read() for name in SEED_CASES}
    suite = open(os.path.join(data, "suites", "quick.json")).read()
    combos = json.dumps([{"pso.topology": "ring"}, {"pso.topology": "global", "pso.inertia": 0.5}])
    pso = os.path.join(data, "cases", "pso_sphere_128.json")
    # a results.jsonl of this clpart, made once, to mutate
    sweep = [a.clpart, "sweep", pso, "-s", "pso.topology=ring,global", "--steps", "2",
             "--repeat", "1", "--budget", "0", "--devices", "pocl"]
    subprocess.run(sweep + ["--out", os.path.join(work, "seed")], capture_output=True, timeout=300)
    results = open(os.path.join(work, "seed", "results.jsonl")).read()

    counts = {"ok": 0, "crash": 0, "hang": 0, "sanitizer": 0}
    start, n = time.time(), 0
    while time.time() - start < a.seconds:
        n += 1
        kind = rng.choice(["case", "case", "case", "suite", "combos", "results"])
        folder = os.path.join(work, "round")
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        if kind == "case":
            name = rng.choice(SEED_CASES)
            text = mutated(rng, seeds[name])
            path = os.path.join(folder, name)
            command = [a.clpart, rng.choice(["source", "run"]), path]
            if command[1] == "run":
                command += ["--steps", "2", "--out", os.path.join(folder, "out")]
            limit = 120
        elif kind == "suite":
            text, path = mutated(rng, suite), os.path.join(folder, "suite.json")
            # a suite that reads well runs its probes and workloads: 20 s of them at most
            command = [a.clpart, "bench", "--suite", path, "--devices", "pocl",
                       "--out", os.path.join(folder, "bench")]
            limit = 20
        elif kind == "combos":
            text, path = mutated(rng, combos), os.path.join(folder, "combos.json")
            command = [a.clpart, "sweep", pso, "--combos", path, "--steps", "2", "--repeat", "1",
                       "--budget", "0", "--devices", "pocl", "--out", os.path.join(folder, "sw")]
            limit = 120
        else:
            lines = results.splitlines()
            i = rng.randrange(len(lines))
            lines[i] = mutated(rng, lines[i])
            text = "\n".join(lines) + rng.choice(["\n", ""])
            os.makedirs(os.path.join(folder, "sw"))
            path = os.path.join(folder, "sw", "results.jsonl")
            command = sweep + ["--out", os.path.join(folder, "sw")]
            limit = 120
        with open(path, "w") as f:
            f.write(text)
        outcome, output = run(command, limit, folder)
        if kind == "suite" and outcome == "hang" and "device " in output:
            outcome = "ok"  # read and running its probes or workloads: slow, not hung
        counts[outcome] += 1
        if outcome != "ok":
            kept = os.path.join(keep, f"{n:05d}-{outcome}-{os.path.basename(path)}")
            shutil.copy(path, kept)
            print(f"fuzz: {outcome}: {' '.join(command)} (input kept as {kept})\n{output[-2000:]}",
                  flush=True)
    seconds = time.time() - start
    print(f"fuzz: {n} inputs in {seconds:.0f} s (seed {a.seed}): {counts['crash']} crashes, "
          f"{counts['hang']} hangs, {counts['sanitizer']} sanitizer reports")
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if counts["crash"] or counts["hang"] or counts["sanitizer"] else 0)


if __name__ == "__main__":
    main()

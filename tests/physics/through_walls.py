#!/usr/bin/env python3
"""through_walls.py RUN CASE: the fluid particles of an SPH run (folder RUN, its snapshots)
that went through a wall of its case (file CASE): the tank's, or a box of 'walls', not over
the top (a particle once above the tank's walls, or first seen past them less than MARGIN
below their top, went over). A wall's surface lies half a spacing before its first layer of particles; a fluid
particle may be pressed up to that layer in an impact, but one past it is through the wall.
Prints the count, and for the first few where and when; exit status 1 when any went through."""
import json
import sys

from vtp import read_vtp, snapshots

MARGIN = 0.1  # m below the walls' top: what a splash over the top has not yet fallen by a snapshot


def through(x, kind, dim, tank, boxes, depth):
    """The indices of the fluid particles (live or excluded) past the first layer of a wall:
    more than `depth` outside the tank's inner box, but not above it, or more than `depth`
    inside one of the wall boxes; with numpy where it is installed (3D runs of millions of
    particles)."""
    up = dim - 1
    low, high = tank
    try:
        import numpy
    except ImportError:
        def past(p):
            out = any(p[d] < low[d] - depth or (p[d] > high[d] + depth and d != up)
                      for d in range(dim))
            return out or any(all(b[0][d] + depth < p[d] < b[1][d] - depth for d in range(dim))
                              for b in boxes)
        return [i for i, k in enumerate(kind) if k != 1 and past(x[3 * i:3 * i + dim])]
    p = numpy.asarray(x).reshape(-1, 3)[:, :dim]
    out = (p < numpy.asarray(low) - depth) | (p > numpy.asarray(high) + depth)
    out[:, up] = p[:, up] < low[up] - depth
    past = out.any(axis=1)
    for b in boxes:
        past |= ((p > numpy.asarray(b[0]) + depth) & (p < numpy.asarray(b[1]) - depth)).all(axis=1)
    return numpy.nonzero((numpy.asarray(kind) != 1) & past)[0].tolist()


def main():
    run, case_path = sys.argv[1:3]
    case = json.load(open(case_path))
    dim = case["options"]["core.dim"]
    tank = case["tank"]["min"][:dim], case["tank"]["max"][:dim]
    boxes = [(w["min"][:dim], w["max"][:dim]) for w in case.get("walls", [])]
    depth = case["sph"]["dp"] / 2  # the first layer's centres, half a spacing into a wall
    top = tank[1][dim - 1]
    seen, crossed, over = set(), [], set()
    for time, path in snapshots(run):
        a = read_vtp(path)
        x, kind, ids = a["position"], a["type"], a["id"]
        over.update(ids[i] for i in range(len(ids)) if x[3 * i + dim - 1] > top)
        for i in through(x, kind, dim, tank, boxes, depth):
            if ids[i] in seen or ids[i] in over:
                continue
            seen.add(ids[i])
            p = x[3 * i:3 * i + dim]
            if p[dim - 1] > top - MARGIN:  # over the top between two snapshots
                over.add(ids[i])
            else:
                crossed.append((time, ids[i], p))
    print(f"{len(crossed)} fluid particles went past the first layer of a wall")
    for time, i, p in crossed[:5]:
        print(f"  particle {i} at t = {time:g} s, at " + ", ".join(f"{c:.5f}" for c in p))
    sys.exit(1 if crossed else 0)


if __name__ == "__main__":
    main()

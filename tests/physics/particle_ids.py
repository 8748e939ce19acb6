#!/usr/bin/env python3
"""particle_ids.py CASE RUN [RUN...]: whether the snapshots of runs of one case (output
folders RUN, the first on one device, the others split) name each particle by its index in the
case's initial order. In every run's first and last snapshot each ID in 0..N-1 appears exactly
once; the first snapshot (step 0) puts particle i where the case generates particle i, computed
here from the case file: for SPH the lattice of its fluid boxes, tank shell and wall boxes
(src/models/sph/sph.c's order), for LJ the FCC lattice (src/models/lj/lj_setup.c's); and in
the last snapshot the particle of each ID stands where it stands in the first run (a wrong ID
would put it a lattice spacing or more away). Exit status 1 when not."""
import json
import math
import sys

from vtp import points, read_vtp, snapshots


def fill_box(lo, hi, dim, dp, out):
    """The lattice points of the box [lo, hi), half a spacing in, x fastest."""
    n = [int(math.floor((hi[a] - lo[a]) / dp + 1e-9)) if a < dim else 1 for a in range(3)]
    for k in range(n[2]):
        for j in range(n[1]):
            for i in range(n[0]):
                idx = (i, j, k)
                out.append(tuple(lo[a] + (idx[a] + 0.5) * dp if a < dim else 0.0 for a in range(3)))


def sph_particles(case):
    dim = case["options"]["core.dim"]
    dp = case["sph"]["dp"]
    pad = lambda v: list(v) + [0.0] * (3 - len(v))
    out = []
    for box in case.get("fluid", []):
        fill_box(pad(box["min"]), pad(box["max"]), dim, dp, out)
    tank = case.get("tank")
    if tank:
        tmin, tmax = pad(tank["min"]), pad(tank["max"])
        t, up, open_top = tank["layers"] * dp, dim - 1, tank.get("open_top", False)
        outer_min = [tmin[a] - t for a in range(3)]
        outer_max = [tmax[a] + (0 if a == up and open_top else t) for a in range(3)]
        for a in range(dim):  # each face a slab of the shell
            for side in (0, 1):
                if a == up and side == 1 and open_top:
                    continue
                lo = [tmin[b] if b < a else outer_min[b] for b in range(3)]
                hi = [tmax[b] if b < a else outer_max[b] for b in range(3)]
                lo[a] = tmax[a] if side else outer_min[a]
                hi[a] = outer_max[a] if side else tmin[a]
                fill_box(lo, hi, dim, dp, out)
    for box in case.get("walls", []):
        fill_box(pad(box["min"]), pad(box["max"]), dim, dp, out)
    return out, dp, None


def lj_particles(case):
    lj = case["lj"]
    cells, density = lj["fcc_cells"], lj["density"]
    n = 4 * cells ** 3
    box = (n / density) ** (1 / 3)
    a = box / cells
    basis = ((0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5))
    out = [((i + bx + 0.25) * a, (j + by + 0.25) * a, (k + bz + 0.25) * a)
           for k in range(cells) for j in range(cells) for i in range(cells)
           for bx, by, bz in basis]
    return out, a / math.sqrt(2), box


def by_id(path, n, bad):
    """The positions of a snapshot by ID, None where the IDs are not 0..n-1 once each."""
    arrays = read_vtp(path)
    if "id" not in arrays:
        bad.append(f"{path}: no id array")
        return None
    ids = list(arrays["id"])
    if sorted(ids) != list(range(n)):
        missing = len(set(range(n)) - set(ids))
        bad.append(f"{path}: {len(ids)} IDs, {len(set(ids))} distinct, {missing} of 0..{n - 1} missing")
        return None
    positions = [None] * n
    for i, x in zip(ids, points(arrays["position"])):
        positions[i] = x
    return positions


def distance(x, y, box):
    d = [a - b for a, b in zip(x, y)]
    if box:  # periodic: the nearest image
        d = [v - box * round(v / box) for v in d]
    return math.sqrt(sum(v * v for v in d))


def main():
    case = json.load(open(sys.argv[1]))
    lattice, spacing, box = (lj_particles if case["model"] == "lj" else sph_particles)(case)
    n = len(lattice)
    bad, reference = [], None
    for run in sys.argv[2:]:
        files = [path for _, path in snapshots(run)]
        first, last = by_id(files[0], n, bad), by_id(files[-1], n, bad)
        if first is None or last is None:
            continue
        # positions go through float on the device: 1e-6 of a spacing is far below a wrong ID
        worst = max(distance(x, y, box) for x, y in zip(first, lattice))
        if worst > 1e-4 * spacing:
            bad.append(f"{run}: at step 0 a particle stands {worst:.3g} from where the case puts "
                       "the particle of its ID")
        if reference is None:
            reference = last
            continue
        # the same trajectories to rounding: 1e-2 of a spacing apart at most
        worst = max(distance(x, y, box) for x, y in zip(last, reference))
        if worst > 1e-2 * spacing:
            bad.append(f"{run}: in the last snapshot a particle stands {worst:.3g} from the "
                       "first run's particle of the same ID")
    print(f"{n} particles of {sys.argv[1].split('/')[-1]} in {len(sys.argv) - 2} runs: " +
          ("; ".join(bad) if bad else "every ID once, at its particle"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

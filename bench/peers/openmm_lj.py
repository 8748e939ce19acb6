#!/usr/bin/env python3
"""The peer of clpart's LJ liquid benchmark (bench/bench_lj.c liquid): the same liquid in
OpenMM, velocity Verlet steps per second on one platform, the median of the rounds.

The liquid is in reduced units mapped onto OpenMM's exactly: sigma 1 nm, epsilon 1 kJ/mol,
mass 1 amu, so the time unit is 1 ps and a reduced temperature T is T / k_B kelvin. Atoms on
the fcc lattice of CELLS cells a side at DENSITY, Maxwell velocities at TEMPERATURE, the pair
potential cut at RC without a switch or a long-range correction (as clpart's: plain cutoff),
periodic. The potential energy per atom of the lattice is printed as a check against
clpart's (the same lattice gives the same sum).

Prints one tab-separated line, as bench-lj does:
  openmm PLATFORM/PRECISION n density atom-steps/s steps rounds pe_per_atom
usage: openmm_lj.py CELLS [--density D] [--rc R] [--temperature T] [--dt DT] [--steps S]
                     [--rounds R] [--platform OpenCL|CUDA|CPU] [--precision single|mixed]
                     [--device INDEX]"""
import argparse
import statistics
import sys
import time

import openmm
from openmm import unit

KB = unit.MOLAR_GAS_CONSTANT_R.value_in_unit(unit.kilojoule_per_mole / unit.kelvin)


def fcc(cells, density):
    """Positions (nm) of the fcc lattice of `cells` cells a side at `density`, and the box."""
    a = (4.0 / density) ** (1.0 / 3.0)
    basis = [(0, 0, 0), (0.5, 0.5, 0), (0.5, 0, 0.5), (0, 0.5, 0.5)]
    xyz = [((i + bx) * a, (j + by) * a, (k + bz) * a)
           for i in range(cells) for j in range(cells) for k in range(cells)
           for bx, by, bz in basis]
    return xyz, cells * a


def system(n, box, rc):
    s = openmm.System()
    s.setDefaultPeriodicBoxVectors(openmm.Vec3(box, 0, 0), openmm.Vec3(0, box, 0),
                                   openmm.Vec3(0, 0, box))
    lj = openmm.NonbondedForce()
    lj.setNonbondedMethod(openmm.NonbondedForce.CutoffPeriodic)
    lj.setCutoffDistance(rc)
    lj.setUseSwitchingFunction(False)
    lj.setUseDispersionCorrection(False)
    lj.setReactionFieldDielectric(1.0)  # no charges: the reaction field adds nothing
    for _ in range(n):
        s.addParticle(1.0)
        lj.addParticle(0.0, 1.0, 1.0)
    s.addForce(lj)
    return s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("cells", type=int)
    p.add_argument("--density", type=float, default=0.8442)
    p.add_argument("--rc", type=float, default=2.5)
    p.add_argument("--temperature", type=float, default=1.44)
    p.add_argument("--dt", type=float, default=0.005)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--platform", default="OpenCL")
    p.add_argument("--precision", default="single")
    p.add_argument("--device", default=None)
    a = p.parse_args()
    xyz, box = fcc(a.cells, a.density)
    if box < 2 * a.rc:
        sys.exit(f"openmm_lj: a box of {box:.3f} is less than twice the cutoff {a.rc}")
    platform = openmm.Platform.getPlatformByName(a.platform)
    properties = {}
    if a.platform in ("OpenCL", "CUDA"):
        properties["Precision"] = a.precision
        if a.device is not None:
            properties["DeviceIndex"] = a.device
    integrator = openmm.VerletIntegrator(a.dt)
    context = openmm.Context(system(len(xyz), box, a.rc), integrator, platform, properties)
    context.setPositions(xyz)
    pe = context.getState(getEnergy=True).getPotentialEnergy().value_in_unit(
        unit.kilojoule_per_mole) / len(xyz)
    context.setVelocitiesToTemperature(a.temperature / KB, 7)
    integrator.step(10)  # warm up: neighbour list, kernels, clocks
    context.getState(getEnergy=True)
    seconds = []
    for _ in range(a.rounds):
        start = time.perf_counter()
        integrator.step(a.steps)
        context.getState(getEnergy=True)  # waits for the device
        seconds.append(time.perf_counter() - start)
    rate = len(xyz) * a.steps / statistics.median(seconds)
    name = a.platform + ("/" + a.precision if a.platform in ("OpenCL", "CUDA") else "")
    print(f"openmm\t{name}\t{len(xyz)}\t{a.density}\t{rate:.4e}\t{a.steps}\t{a.rounds}\t{pe:.6f}")


if __name__ == "__main__":
    main()

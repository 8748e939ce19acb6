/* The Lennard-Jones model's host side (seed cutoff-interactions-few-particles-per-cell.txt):
 * initial states and the double-precision all-pairs reference the tests and the device
 * kernels are checked against. Reduced units: sigma = epsilon = mass = k_B = 1. */
#ifndef CLPART_LJ_H
#define CLPART_LJ_H

#include "internal.h"

/* The particles of a cubic periodic box of side `box`: positions in [0, box)^3, n x 3. */
typedef struct clp__lj_state {
    size_t n;
    double box;
    double *xyz, *vel; /* n x 3 each; vel may be NULL */
} clp__lj_state;

void clp__lj_state_free(clp__lj_state *s);

/* An FCC lattice of `cells` unit cells per side (4 cells^3 atoms) at reduced `density`. */
clp_status clp__lj_fcc(int cells, double density, clp__lj_state *out, clp_error *err);
/* `n` atoms uniformly at random in a box of side `box`, from `seed` (reproducible). */
clp_status clp__lj_random(size_t n, double box, uint64_t seed, clp__lj_state *out, clp_error *err);
/* Maxwell-Boltzmann velocities at `temperature` from `seed`: no net momentum, and rescaled so
 * that the kinetic energy is exactly (3n - 3) / 2 * temperature. */
clp_status clp__lj_maxwell(clp__lj_state *s, double temperature, uint64_t seed, clp_error *err);

/* Pair interactions within `rc` under the minimum image, with r^2 + softening^2 in place of
 * r^2 (0: plain LJ). The potential is shifted to 0 at rc, so energy is continuous. */
typedef struct clp__lj_params {
    double rc, softening;
} clp__lj_params;

/* Per-atom force (n x 3) and potential energy (n, half of each pair's), and the virial
 * sum over pairs of r . f, all in double, by visiting every pair. Either array may be NULL. */
void clp__lj_reference(const clp__lj_state *s, const clp__lj_params *p, double *force,
                       double *energy, double *virial);

/* A system on the device, for the options' strategy, summation and grid (a 3D periodic box),
 * stepped by velocity Verlet with time step `dt`; its forces are computed on opening. */
typedef struct clp__lj_system clp__lj_system;
clp_status clp__lj_system_open(clp_worker *worker, const clp_options *opts, clp_cache *cache,
                               const clp__lj_state *s, const clp__lj_params *p, double dt,
                               clp__lj_system **out, clp_error *err);
void clp__lj_system_close(clp__lj_system *sys);
clp_status clp__lj_system_run(clp__lj_system *sys, uint64_t steps, clp_error *err);
/* The current force and velocity (n x 3), energy (n) and virial sum, in the state's order. */
clp_status clp__lj_system_read(clp__lj_system *sys, double *force, double *energy, double *velocity,
                               double *virial, clp_error *err);

#endif

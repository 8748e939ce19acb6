/* A Lennard-Jones case as the runner uses it: the initial state, the pair parameters, the
 * time step and the step counts (read by lj_case.c). Reduced units throughout. */
#ifndef CLPART_LJ_CASE_H
#define CLPART_LJ_CASE_H

#include "internal.h"

typedef enum clp__lj_init { CLP__LJ_INIT_FCC, CLP__LJ_INIT_RANDOM } clp__lj_init;

typedef struct clp__lj_case {
    clp__lj_init init;
    int fcc_cells;             /* fcc: unit cells per side, 4 fcc_cells^3 atoms */
    double density;            /* fcc: atoms per unit volume */
    int cells_per_side;        /* random: the box is this many cutoffs wide (see box) */
    double particles_per_cell; /* random: mean atoms per cell of the cutoff */
    size_t n;                  /* atoms */
    double box;                /* side of the periodic cube */
    double temperature;        /* Maxwell-Boltzmann start; 0: at rest */
    double rc, softening, dt;
    uint64_t seed;
    uint64_t steps, output_every;
    uint64_t snapshot_every; /* steps between snapshots (particles_NNNNN.vtp); 0: none */
} clp__lj_case;

/* A random box is cells_per_side * rc * (1 + CLP__LJ_BOX_SLACK) wide, so that the grid, whose
 * cells are at least search_radius * (1 + 1e-6) wide, gets cells_per_side cells per axis when
 * neighbors.skin is 0. */
#define CLP__LJ_BOX_SLACK 1e-5

/* Reads the "lj" section, "steps", "output_every" and "snapshot_every" of the case at `path`; every
 * error is CLP_CASE (CLP_JSON for malformed JSON) and names the file and the key. */
clp_status clp__lj_case_load(const char *path, clp__lj_case *out, clp_error *err);

/* ---- Diagnostics (lj_diagnostics.c) */

/* What the host reads back after a chunk of steps: n atoms, in the state's order. */
typedef struct clp__lj_sample {
    size_t n;
    double *force, *energy, *velocity; /* n x 3, n, n x 3 */
    double virial;                     /* sum over pairs of r . f */
} clp__lj_sample;

/* The sums over atoms the diagnostics come from; a split run adds them up over its ranks. */
typedef struct clp__lj_sums {
    double atoms, kinetic, potential, virial, momentum[3];
} clp__lj_sums;
enum { CLP__LJ_SUMS = 7 }; /* doubles in a packed clp__lj_sums */
void clp__lj_sums_pack(const clp__lj_sums *s, double out[CLP__LJ_SUMS]);
void clp__lj_sums_unpack(const double in[CLP__LJ_SUMS], clp__lj_sums *out);

/* Adds the atoms of `s` to *sums, in their order. A non-finite energy, velocity or force is
 * CLP_CHECK naming the step and the first such atom: ids[i] (NULL: i). */
clp_status clp__lj_sums_add(const clp__lj_sample *s, const uint32_t *ids, const clp__lj_case *c,
                            uint64_t step, clp__lj_sums *sums, clp_error *err);
/* The diagnostics row at `step` from the sums, in the columns of diagnostics.csv: step, time,
 * kinetic, potential, total, temperature, pressure, momentum; a non-finite total is CLP_CHECK. */
clp_status clp__lj_row(const clp__lj_sums *sums, const clp__lj_case *c, uint64_t step,
                       double row[8], clp_error *err);
/* Both, for the atoms of one sample. */
clp_status clp__lj_diagnostics(const clp__lj_sample *s, const clp__lj_case *c, uint64_t step,
                               double row[8], clp_error *err);

#endif

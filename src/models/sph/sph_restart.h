/* A restart of an SPH run (sph_restart.c) from a one-device checkpoint or a split run's
 * manifest: on the checkpoint's own decomposition its buffers are restored as they were (bit
 * for bit); on another, its particles are cut again among this run's ranks. */
#ifndef CLPART_SPH_RESTART_H
#define CLPART_SPH_RESTART_H

#include "models/sph/sph_dist_checkpoint.h"

typedef enum clp__sph_restart_kind {
    CLP__SPH_RESTART_NONE,
    CLP__SPH_RESTART_SAME,   /* one device from a one-device checkpoint */
    CLP__SPH_RESTART_PIECES, /* this rank's piece, on the same slabs */
    CLP__SPH_RESTART_RECUT   /* the particles, cut among this run's ranks */
} clp__sph_restart_kind;

/* The case's particles by ID as a checkpoint holds them, for a cut; type CLP_GRID_EXCLUDED
 * for one excluded (or missing from a split run's pieces: excluded before a rebuild). */
typedef struct clp__sph_moved {
    double *xyz;
    uint32_t *type;
    cl_float4 *vel, *ghost;
    cl_float *rho;
    uint64_t excluded;
} clp__sph_moved;

/* `n` particles, all excluded at the grid's origin (density `rest`) until a checkpoint or
 * the ranks give them. Free with clp__sph_moved_free, also after a failure. */
clp_status clp__sph_moved_alloc(clp__sph_moved *m, size_t n, const double origin[3], cl_float rest,
                                clp_error *err);
void clp__sph_moved_free(clp__sph_moved *m);

/* One particle's state as a checkpoint or a rank holds it. */
typedef struct clp__sph_particle_state {
    cl_float4 pos, vel, ghost;
    cl_uint type;
    cl_float rho;
} clp__sph_particle_state;

/* Puts particle `id`'s state into `m` (of n particles) and marks it in `seen`; false, with
 * nothing changed, for an ID beyond n or one already seen. */
bool clp__sph_moved_put(clp__sph_moved *m, size_t n, bool *seen, cl_uint id,
                        const clp__sph_particle_state *p);

/* The excluded particles of `m` (of n), those never put there among them, into m->excluded. */
void clp__sph_moved_count_excluded(clp__sph_moved *m, size_t n);

typedef struct clp__sph_restart {
    clp__sph_restart_kind how;
    clp__checkpoint *cp;    /* the file --restart names */
    clp__checkpoint *piece; /* PIECES: this rank's */
    clp__sph_manifest m;    /* when cp is a manifest */
    clp__sph_moved moved;   /* RECUT */
} clp__sph_restart;

/* Reads checkpoint `path` for the run `r` on one device (its case loaded) and decides how it
 * restarts: `identity` is the run's. A checkpoint of another run, or a missing or damaged
 * file, fails. */
clp_status clp__sph_restart_open(sph_run *r, const char *path, const char *identity,
                                 clp__sph_restart *rs, clp_error *err);
/* The parts of an open that a split run's rank shares: that the checkpoint rs->cp is of this
 * run, its decomposition and performance options aside (and its manifest into rs->m); its particles
 * gathered for a cut among `ranks` devices (RECUT), said by the writer. */
clp_status clp__sph_restart_check(const sph_run *r, clp__sph_restart *rs, const char *identity,
                                  clp_error *err);
clp_status clp__sph_restart_recut(sph_run *r, clp__sph_restart *rs, const char *path, int ranks,
                                  clp_error *err);
void clp__sph_restart_close(clp__sph_restart *rs);

/* RECUT: copies of the particles' positions and types by ID (new), for the cut. */
clp_status clp__sph_restart_particles(const clp__sph_restart *rs, size_t n, double **xyz,
                                      uint32_t **types, clp_error *err);
/* RECUT: velocity, density and ghost node of the particle in each slot, whose case ID is ids[k]
 * (NULL: k), into the device. */
clp_status clp__sph_restart_state(sph_run *r, const clp__sph_restart *rs, const uint32_t *ids,
                                  clp_error *err);
/* After the setup: the buffers restored (SAME) and the clock. */
clp_status clp__sph_restart_apply(sph_run *r, const clp__sph_restart *rs, const char *identity,
                                  clp__sph_clock *clock, clp_error *err);

#endif

/* The neighbour search as a model (src/grid, cl/grid, cl/search): a jittered lattice in a
 * periodic cube at SPH density, moved a little on the device every step and sorted again, with
 * passes over every particle's neighbours as an interaction kernel makes. The case
 * (search_case.c), the program and the system on the device (search_device.c), the least bytes
 * of its steps (search_cost.c). */
#ifndef CLPART_SEARCH_H
#define CLPART_SEARCH_H

#include "internal.h"

/* What a case sets. Lengths are in lattice spacings. */
typedef struct clp__search_params {
    size_t side;     /* particles per axis: side^3 in a periodic cube of side `side` */
    double radius;   /* the influence radius */
    double jitter;   /* the largest start offset from a lattice site, per axis */
    double move;     /* the largest displacement per axis and step */
    uint64_t seed;   /* the start's offsets and the steps' displacements */
    unsigned passes; /* neighbour passes per step */
} clp__search_params;

/* The case file: the parameters and the number of steps. */
typedef struct clp__search_case {
    clp__search_params params;
    uint64_t steps;
} clp__search_case;

/* The largest values a case may give. */
#define CLP__SEARCH_MOST_SIDE   1024
#define CLP__SEARCH_MOST_STEPS  1000000000LL
#define CLP__SEARCH_MOST_PASSES 64

/* Reads the "search" section of the case at `path`. Every error is CLP_CASE (CLP_JSON for
 * malformed JSON) and names the file and the key; unknown keys are refused with the closest
 * known one suggested. */
clp_status clp__search_case_load(const char *path, clp__search_case *out, clp_error *err);

/* The start: particle (i, j, k), index i + side (j + side k), at (i, j, k) + 0.5 plus an
 * offset per axis of jitter (2 u - 1), u = clp__uniform01 of one SplitMix64 stream from the
 * seed, drawn x, y, z particle after particle. *xyz (3 per particle) is new. */
clp_status clp__search_lattice(const clp__search_params *p, double **xyz, clp_error *err);

/* The grid of the case under these options: the cube [0, side)^3 with the case's radius.
 * Refuses (CLP_CASE) options other than core.dim=3 and all three axes periodic. */
clp_status clp__search_geometry(const clp_options *opts, const clp__search_params *p,
                                clp_grid_geometry *out, clp_error *err);

/* The assembled source: the grid's files, grid/collect.cl (the neighbour pass) and
 * cl/search/search.cl (the displacement). *out is new. */
clp_status clp__search_source(const clp_options *opts, const clp__search_params *p, char **out,
                              clp_error *err);

/* The names of the search's own buffer, "collect.count" (the neighbours per particle, by ID),
 * NULL-ended: its registry entry's owned_buffers. A system makes it when it opens and frees it
 * when it closes. */
extern const char *const clp__search_buffers[];

typedef struct clp__search_system clp__search_system;
/* Builds the program (through `cache`, NULL allowed), places the lattice and sorts it once
 * (which also sizes a neighbour list): step 0. */
clp_status clp__search_system_open(clp_worker *worker, const clp_options *opts, clp_cache *cache,
                                   const clp__search_params *p, clp__search_system **out,
                                   clp_error *err);
void clp__search_system_close(clp__search_system *sys);
/* One step: the displacement, a grid update when neighbors.every says so, and the passes.
 * With profiling on, the device seconds go into `timing` (integration: the displacement;
 * keys, sort, reorder, list: the update; forces: the passes) along with the step and
 * rebuild counts; NULL is allowed. */
clp_status clp__search_system_step(clp__search_system *sys, clp_run_timing *timing, clp_error *err);
/* A neighbour pass now, unless the last step made one: the counts are then current. */
clp_status clp__search_system_count(clp__search_system *sys, clp_error *err);
/* By the particle's index at set-up: positions (3 each, in double, in [0, side)) and the
 * neighbour counts of the last pass. Either may be NULL. */
clp_status clp__search_system_read(clp__search_system *sys, double *xyz, uint32_t *neighbours,
                                   clp_error *err);

/* What the host checks after a run (counts of the last pass, the sorted buffers). */
typedef struct clp__search_check {
    double mean_neighbours;
    uint32_t min_neighbours, max_neighbours;
    /* keys that fall below the previous slot's, slots whose ID is out of range or repeated
     * (so that a particle is missing), and cells whose range in cell_start and cell_end does
     * not hold exactly the particles of that key: 0 after a correct sort */
    uint64_t violations;
} clp__search_check;
clp_status clp__search_system_check(clp__search_system *sys, clp__search_check *out,
                                    clp_error *err);

/* The least device-memory bytes of `steps` steps of which `rebuilds` updated the grid
 * (search_cost.c). */
double clp__search_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                         const clp__search_params *p, uint64_t steps, uint64_t rebuilds);

/* The named values of a run's result (its registry entry's diagnostics), NULL-ended. */
extern const char *const clp__search_diagnostics[];

#endif

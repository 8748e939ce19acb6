/* Particle swarm optimisation on the device (Bilotta et al. 2018, 4.1 and
 * 4.2; cl/pso): the swarm's program for the options and the case's constants, and the
 * system that runs it. */
#ifndef CLPART_PSO_H
#define CLPART_PSO_H

#include "internal.h"

/* The swarm and its constants. */
typedef struct clp__pso_params {
    size_t particles;
    int dim;
    double inertia, cognitive, social; /* w, c1, c2 */
    double lower, upper;               /* the search box, per component */
    double vmax;                       /* the largest speed per component */
    uint64_t seed;
    /* pso.objective=user: the body of `float f(uint p, ...)` reading component i as X(i), or
     * an expression (then put in `return (...);`), and where it stands in the case file */
    const char *user_code;
    bool user_is_expression;
    const char *user_origin;
    int user_line;
} clp__pso_params;

/* The floats of a particle's field in the chosen layout, and whether it is an AoS layout
 * (every field in pso.pos). */
typedef struct clp__pso_field_layout {
    bool aos;
    int chunk;                 /* floats read or written at once */
    size_t dim_padded;         /* components stored per particle and field */
    const char *name;          /* the layout option's value */
    clp__pso_layout narrow;    /* pso.layout, in 3 dimensions */
    clp__pso_wide_layout wide; /* pso.wide_layout, in any other */
} clp__pso_field_layout;

/* The layout of these options for `dim` dimensions: pso.layout in 3, pso.wide_layout in any
 * other; setting the one that does not apply is CLP_CASE. */
clp_status clp__pso_layout_make(const clp_options *opts, int dim, clp__pso_field_layout *out,
                                clp_error *err);
/* The float index of component c of particle p's position, as cl/pso/layout.cl lays it. */
size_t clp__pso_position_index(const clp__pso_field_layout *l, size_t particles, int dim, size_t p,
                               size_t c);

/* The assembled source of the swarm's program. *out is new. */
clp_status clp__pso_source(const clp_options *opts, const clp__pso_params *p, char **out,
                           clp_error *err);

typedef struct clp__pso_system clp__pso_system;
/* Builds the program, allocates the fields and a history of `history` iterations, places
 * the particles and evaluates them: iteration 0. */
clp_status clp__pso_system_open(clp_worker *worker, const clp_options *opts, clp_cache *cache,
                                const clp__pso_params *p, size_t history, clp__pso_system **out,
                                clp_error *err);
void clp__pso_system_close(clp__pso_system *sys);
/* `iterations` more iterations, all on the device. */
clp_status clp__pso_system_run(clp__pso_system *sys, size_t iterations, clp_error *err);
/* The best value after each iteration so far (iterations + 1 values, 0 the start; at most
 * the history's capacity), of which entries from `from` on are read into history[from ...];
 * the best position (dim values) and the best particle. Any pointer may be NULL. */
clp_status clp__pso_system_read(clp__pso_system *sys, size_t from, double *history,
                                size_t *n_history, double *best_position, uint32_t *best_particle,
                                clp_error *err);
/* Every particle's position, particles x dim, in double. */
clp_status clp__pso_system_positions(clp__pso_system *sys, double *xyz, clp_error *err);
/* Seconds per position update (pso_move): `launches` queued, then a wait; the median of
 * `rounds` (at most 64). The fields are moved, so time a system you will not use again. */
clp_status clp__pso_system_time_move(clp__pso_system *sys, int launches, int rounds, double *median,
                                     clp_error *err);
/* The bytes pso_move must read and write at least: position, velocity and best read,
 * position and velocity written, in the layout's floats. */
double clp__pso_move_bytes(const clp__pso_system *sys);

/* The names of the swarm's buffers, its own (clp_worker_buffer_create), in the order made,
 * NULL-ended: its registry entry's owned_buffers. A system makes them when it opens, after its
 * program is built, and frees them when it closes: one system at a time on a worker. */
extern const char *const clp__pso_buffers[];

/* The named values of a run's result (its registry entry's diagnostics), NULL-ended. */
extern const char *const clp__pso_diagnostics[];

#endif

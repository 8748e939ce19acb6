/* Hyper-dimensional repulsive particles for space-filling designs (Masek and Vorechovsky 2018):
 * starting designs, the double-precision all-pairs
 * reference and design criteria (repulsive_setup.c), and the system on the device
 * (src/models/repulsive/repulsive_device.c, cl/repulsive). Points live in the periodic unit
 * hypercube. */
#ifndef CLPART_REPULSIVE_H
#define CLPART_REPULSIVE_H

#include "internal.h"

/* A design: n points in dim dimensions, x[i * dim + v] in [0, 1). */
typedef struct clp__rep_design {
    size_t n;
    int dim;
    double *x;
} clp__rep_design;

void clp__rep_design_free(clp__rep_design *d);
/* n points uniformly at random from `seed`. */
clp_status clp__rep_random(size_t n, int dim, uint64_t seed, clp__rep_design *out, clp_error *err);
/* A Latin hypercube: along every axis one point in each of the n strata, at a random place in
 * it, the strata matched at random from `seed`. */
clp_status clp__rep_latin(size_t n, int dim, uint64_t seed, clp__rep_design *out, clp_error *err);

/* The periodic Audze-Eglajs criterion, sum over pairs of 1 / L^2, and the maximin distance,
 * the least periodic distance between two points, in double. */
void clp__rep_criteria(const clp__rep_design *d, double *ae, double *maximin);

/* Per point, in double, by visiting every pair: the acceleration (n x dim) q sum Delta /
 * L^(q+2), the energy (half of each pair's L^-q) and the radial stress (sum of q L^-(q+1)). */
void clp__rep_reference(const clp__rep_design *d, int q, double *acc, double *energy,
                        double *stress);

/* The run's constants: the exponent, the time step, and damping terms c v^p (at most 4),
 * each applied as c |v|^(p-1) v, so that it opposes the motion for every p. `launch_cap` is
 * the most work-items of a launch of the global kernel: 0 is 2^31, the most a 32-bit index
 * holds with room to round up; tests set fewer to cover several source rows per work-item. */
enum { CLP__REP_MOST_DAMPING = 4 };
typedef struct clp__rep_params {
    int q;
    double dt;
    int n_damping;
    double damping_c[CLP__REP_MOST_DAMPING];
    int damping_p[CLP__REP_MOST_DAMPING];
    size_t launch_cap;
} clp__rep_params;

/* The assembled source of the program for n points in dim dimensions. *out is new. */
clp_status clp__rep_source(const clp_options *opts, const clp_device_info *dev, size_t n, int dim,
                           const clp__rep_params *p, char **out, clp_error *err);

typedef struct clp__rep_system clp__rep_system;
/* Builds the program, uploads the design at rest and computes its accelerations. A tiled
 * group the device's local memory cannot hold is CLP_CASE with the reason. */
clp_status clp__rep_system_open(clp_worker *w, const clp_options *opts, clp_cache *cache,
                                const clp__rep_design *d, const clp__rep_params *p,
                                clp__rep_system **out, clp_error *err);
void clp__rep_system_close(clp__rep_system *sys);
/* Steps until `steps` are done, or until the kinetic energy, checked every `check_every`
 * steps, falls below `tolerance`; *done is the steps taken. */
clp_status clp__rep_system_run(clp__rep_system *sys, uint64_t steps, uint64_t check_every,
                               double tolerance, uint64_t *done, clp_error *err);
/* The kinetic energy, summed on the device in groups and here in double. */
clp_status clp__rep_system_kinetic(clp__rep_system *sys, double *kinetic, clp_error *err);
/* The current design (x, n x dim), accelerations, per-point energies and stresses; any may
 * be NULL. The energies are those of the last force evaluation. */
clp_status clp__rep_system_read(clp__rep_system *sys, double *x, double *acc, double *energy,
                                double *stress, clp_error *err);
/* The criteria of the current design, computed on the device (each point's nearest distance
 * and sum of 1 / L^2) and reduced here in double. */
clp_status clp__rep_system_criteria(clp__rep_system *sys, double *ae, double *maximin,
                                    clp_error *err);
/* Seconds per force evaluation: `launches` queued, then a wait; the median of `rounds`. */
clp_status clp__rep_system_time_forces(clp__rep_system *sys, int launches, int rounds,
                                       double *median, clp_error *err);
/* The tile the tiled kernel runs with (0 for global). */
size_t clp__rep_system_tile(const clp__rep_system *sys);

/* The names of the design's buffers, its own (clp_worker_buffer_create), in the order made,
 * NULL-ended: its registry entry's owned_buffers. A system makes them when it opens, after its
 * program is built, and frees them when it closes: one system at a time on a worker. */
extern const char *const clp__rep_buffers[];

/* energy.csv's columns; after "step", the named values of a run's result (its registry entry's
 * diagnostics), NULL-ended. */
extern const char *const clp__rep_columns[];

#endif

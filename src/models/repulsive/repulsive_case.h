/* A repulsive-particle design case as the runner uses it: the design's size and start, the
 * run's constants for the device layer, and the stop rule (read by repulsive_case.c). */
#ifndef CLPART_REPULSIVE_CASE_H
#define CLPART_REPULSIVE_CASE_H

#include "models/repulsive/repulsive.h"

/* How the start design is drawn. */
typedef enum clp__rep_start { CLP__REP_START_LATIN, CLP__REP_START_RANDOM } clp__rep_start;

typedef struct clp__rep_case {
    size_t points;          /* N, 2 to 2^31 - 1 */
    int dim;                /* D, 1 to 4096 */
    clp__rep_start start;   /* default latin */
    uint64_t seed;          /* default 1 */
    clp__rep_params params; /* q (default D + 1), dt (0 while dt_auto), damping terms */
    bool dt_auto;           /* dt is a twentieth of the stiffest pair's period at the start */
    bool damping_auto;      /* no "damping" key: one linear term, c = CLP__REP_AUTO_DAMPING / dt */
    uint64_t steps;         /* the step limit */
    double tolerance;       /* stop once the kinetic energy is below this */
    uint64_t check_every;   /* steps between kinetic-energy checks and energy.csv rows */
} clp__rep_case;

/* The largest values the case file allows. */
#define CLP__REP_MOST_DIMENSIONS    4096
#define CLP__REP_MOST_Q             64
#define CLP__REP_MOST_DAMPING_POWER 16
#define CLP__REP_MOST_STEPS         1000000000000LL
/* The default damping's c dt: the velocity loses this fraction of itself each step. */
#define CLP__REP_AUTO_DAMPING 0.01

/* Reads the "repulsive" section of the case at `path`. Every error is CLP_CASE (CLP_JSON for
 * malformed JSON) and names the file and the key; unknown keys are refused with the closest
 * known one suggested. */
clp_status clp__rep_case_load(const char *path, clp__rep_case *out, clp_error *err);

/* The case's start design (Latin hypercube or uniform random from its seed). *out is new. */
clp_status clp__rep_case_design(const clp__rep_case *c, clp__rep_design *out, clp_error *err);

/* Sets what the case leaves to the start design, given the start's nearest distance:
 * - with "dt": "auto", dt, a twentieth of the period 2 pi sqrt(L^(q+2) / (q (q+1))) of a unit
 *   mass at the distance L = `nearest` from a fixed point, under the potential L^-q;
 * - without "damping", the linear term's c = CLP__REP_AUTO_DAMPING / dt, so that damping takes
 *   that fraction of the velocity each step.
 * dt is not checked here: a `nearest` of 0 gives 0. */
void clp__rep_case_resolve(clp__rep_case *c, double nearest);

#endif

/* An SPH case as the runner uses it: geometry, physics, timing (read by sph_case.c). */
#ifndef CLPART_SPH_CASE_H
#define CLPART_SPH_CASE_H

#include "internal.h"

enum { CLP_CASE_MAX_BOXES = 16 };

typedef struct clp_box {
    double min[3], max[3];
} clp_box;

enum { CLP_CASE_MAX_GAUGES = 32 };

/* Where an SPH run measures, every `interval` seconds, into gauges.csv. */
typedef struct clp_sph_gauges {
    double interval;                        /* s; 0: no gauges */
    double heights[CLP_CASE_MAX_GAUGES][3]; /* water height at x (2D) or (x, y) (3D) */
    size_t n_heights;
    double points[CLP_CASE_MAX_GAUGES][3]; /* pressure and velocity at a point */
    size_t n_points;
    size_t walls[CLP_CASE_MAX_BOXES]; /* wall boxes whose force is measured */
    size_t n_walls;
} clp_sph_gauges;

typedef struct clp_sph_case {
    int dim;
    double origin[3], size[3]; /* the domain */
    double dp;                 /* lattice spacing, m */
    double h_over_dp;          /* smoothing length over spacing */
    double rho0;               /* reference density, kg/m^3 */
    double c0;                 /* speed of sound, m/s; 0: ten times the fastest free fall */
    double gravity[3];         /* m/s^2 */
    double alpha;              /* artificial viscosity coefficient */
    double nu;                 /* kinematic viscosity, m^2/s */
    double cfl;                /* time step over h / c0 */
    clp_box fluid[CLP_CASE_MAX_BOXES];
    size_t n_fluid;
    clp_box walls[CLP_CASE_MAX_BOXES]; /* boxes of boundary particles beside the tank's */
    size_t n_walls;
    bool has_tank;
    clp_box tank; /* inner walls; boundary particles fill `layers` spacings outside it */
    int layers;
    bool open_top;
    double end_time, output_interval; /* s */
    double checkpoint_interval;       /* s; 0: only at the end and on request */
    clp_sph_gauges gauges;
} clp_sph_case;

/* Reads the SPH part of a case file for a `dim`-dimensional run. */
clp_status clp__sph_case_load(const char *path, int dim, clp_sph_case *out, clp_error *err);

#endif

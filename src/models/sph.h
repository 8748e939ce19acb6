/* The SPH model's pieces for the runner: particles, physics, constants, option modules. */
#ifndef CLPART_SPH_H
#define CLPART_SPH_H

#include "run/case.h"

typedef struct clp__sph_physics_values {
    double h, mass, c0, dt;
} clp__sph_physics_values;

/* Lattice particles of the fluid boxes (type 0) then the tank walls (type 1). New arrays. */
clp_status clp__sph_particles(const clp_sph_case *c, double **xyz, uint32_t **types, size_t *n,
                              size_t *n_fluid, clp_error *err);
void clp__sph_physics(const clp_sph_case *c, clp__sph_physics_values *p);
/* The CLP_SPH_* constants (at most 16). */
size_t clp__sph_constants(const clp_sph_case *c, const clp_options *opts,
                          const clp__sph_physics_values *p, clp_constant *out);
const char *const *clp__sph_modules(size_t *count);

#endif

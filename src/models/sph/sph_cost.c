/* The least device-memory traffic of SPH steps, against which clpart bench states how close
 * a run comes to the device's copy bandwidth: every array element each kernel must read or
 * write once, the neighbours' own data taken from cache. The counts follow the kernels'
 * arguments in cl/sph/sph.cl (float4 16 bytes, float and uint 4). */
#include "models/sph/sph.h"

#include <string.h>

/* Per particle and step by phase, rebuilds apart; `listed` neighbours per particle in list
 * mode. */
static void step_bytes(const clp_options *opts, double listed, double out[CLP_PHASE_COUNT]) {
    const double list =
        clp__neighbors_mode_of(opts) == CLP_NEIGHBORS_MODE_LIST ? 4 * (listed + 1) : 0;
    const bool xsph = clp__sph_xsph_of(opts);
    /* sph_pack (par_part): type and rho in, their copies in pos.w and vel.w out, where a
       kernel besides the integration changed densities (on one device: the integration
       writes the copies itself) */
    const bool repacked = clp__sph_density_of(opts) == CLP_SPH_DENSITY_SUMMATION ||
                          clp__sph_boundary_of(opts) == CLP_SPH_BOUNDARY_MDBC;
    const double pack =
        clp__sph_strategy_of(opts) == CLP_SPH_STRATEGY_PAR_PART && repacked ? 4 + 4 + 4 + 4 : 0;
    /* sph_forces: pos, type, vel, rho and the list in; acc, drho, and the optional sums out */
    out[CLP_PHASE_FORCES] = pack + 16 + 4 + 16 + 4 + list + 16 + 4 +
                            (clp__sph_shifting_of(opts) ? 16 : 0) + (xsph ? 16 : 0);
    if (clp__sph_density_of(opts) ==
        CLP_SPH_DENSITY_SUMMATION) /* sph_density: pos, type and the list; rho */
        out[CLP_PHASE_DENSITY] = 16 + 4 + list + 4;
    if (clp__sph_boundary_of(opts) ==
        CLP_SPH_BOUNDARY_MDBC) /* sph_mdbc: a boundary's ghost, its sums, rho */
        out[CLP_PHASE_BOUNDARY] = 16 + 16 + 4 + list + 4;
    /* sph_dt reads what the forces recorded: no bytes a particle */
    /* sph_integrate: pos, vel, rho, acc, drho, type and shift in; pos, vel, rho out, and the
       XSPH velocity the forces wrote. The predictor-corrector reads and writes the state
       twice and keeps the old one. */
    const double integrate = 16 + 16 + 4 + 16 + 4 + 4 + 16 + 16 + 16 + 4;
    out[CLP_PHASE_INTEGRATION] =
        (clp__sph_integrator_of(opts) == CLP_SPH_INTEGRATOR_SYMPLECTIC ? integrate
                                                                       : 2 * integrate + 2 * 36) +
        (xsph ? 16 : 0);
}

void clp__sph_phase_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                          size_t particles, double listed, uint64_t steps, uint64_t rebuilds,
                          double out[CLP_PHASE_COUNT]) {
    double per_step[CLP_PHASE_COUNT] = {0}, sort, list;
    step_bytes(opts, listed, per_step);
    for (int i = 0; i < CLP_PHASE_COUNT; i++)
        out[i] = (double)particles * (double)steps * per_step[i];
    /* a rebuild re-sorts velocity and density with the grid's own arrays */
    clp_grid_update_phase_bytes(opts, geometry, particles, listed, &sort, &list);
    out[CLP_PHASE_SORT] += (double)rebuilds * (sort + (double)particles * 2 * (16 + 4));
    out[CLP_PHASE_LIST] += (double)rebuilds * list;
}

double clp__sph_run_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                          size_t particles, double listed, uint64_t steps, uint64_t rebuilds) {
    double phases[CLP_PHASE_COUNT], total = 0;
    clp__sph_phase_bytes(opts, geometry, particles, listed, steps, rebuilds, phases);
    for (int i = 0; i < CLP_PHASE_COUNT; i++)
        total += phases[i];
    return total;
}

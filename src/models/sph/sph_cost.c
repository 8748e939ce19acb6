/* The least device-memory traffic of SPH steps, against which clpart bench states how close
 * a run comes to the device's copy bandwidth: every array element each kernel must read or
 * write once, the neighbours' own data taken from cache. The counts follow the kernels'
 * arguments in cl/sph/sph.cl (float4 16 bytes, float and uint 4). */
#include "models/sph/sph.h"

#include <string.h>

static bool is(const clp_options *opts, const char *name, const char *value) {
    return strcmp(clp_options_enum(opts, name), value) == 0;
}

/* Per particle and step, rebuilds apart; `listed` neighbours per particle in list mode. */
static double step_bytes(const clp_options *opts, double listed) {
    const double list = is(opts, "neighbors.mode", "list") ? 4 * (listed + 1) : 0;
    /* sph_forces: pos, type, vel, rho and the list in; acc, drho, and the optional sums out */
    double bytes = 16 + 4 + 16 + 4 + list + 16 + 4;
    bytes += clp_options_bool(opts, "sph.shifting") ? 16 : 0;
    bytes += clp_options_bool(opts, "sph.xsph") ? 2 * 16 : 0; /* written, then read */
    if (is(opts, "sph.density", "summation")) /* sph_density: pos, type and the list; rho */
        bytes += 16 + 4 + list + 4;
    if (is(opts, "sph.boundary", "mdbc")) /* sph_mdbc: a boundary's ghost, its sums, rho */
        bytes += 16 + 16 + 4 + list + 4;
    bytes += 4 + 16 + 16; /* sph_dt_partial: type, vel, acc */
    /* sph_integrate: pos, vel, rho, acc, drho, type and shift in; pos, vel, rho out. The
       predictor-corrector reads and writes the state twice and keeps the old one. */
    const double integrate = 16 + 16 + 4 + 16 + 4 + 4 + 16 + 16 + 16 + 4;
    bytes += is(opts, "sph.integrator", "symplectic") ? integrate : 2 * integrate + 2 * 36;
    return bytes;
}

double clp__sph_run_bytes(const clp_options *opts, const clp_grid_geometry *geometry,
                          size_t particles, double listed, uint64_t steps, uint64_t rebuilds) {
    /* a rebuild re-sorts velocity and density with the grid's own arrays */
    const double rebuild =
        clp_grid_update_bytes(opts, geometry, particles, listed) + (double)particles * 2 * (16 + 4);
    return (double)particles * (double)steps * step_bytes(opts, listed) +
           (double)rebuilds * rebuild;
}

/* What an SPH run writes at each output time: a snapshot of the particles with the
 * diagnostics computed from it, a row of diagnostics.csv, a .vtp file and the .pvd index. */
#ifndef CLPART_SPH_OUTPUT_H
#define CLPART_SPH_OUTPUT_H

#include "io/io.h"
#include "models/sph/sph.h"

/* One output's particles in double and float, and the diagnostics over them. */
typedef struct clp__sph_snapshot {
    size_t n;
    double *xyz;
    uint32_t *id, *type;
    float *vel, *rho, *pressure; /* vel: n x 3; rho as stored until summarised */
    double kinetic, mass, vmax, front;
    size_t excluded; /* fluid particles taken out of the computation so far */
} clp__sph_snapshot;

clp_status clp__sph_snapshot_alloc(clp__sph_snapshot *s, size_t n, clp_error *err);
void clp__sph_snapshot_free(clp__sph_snapshot *s);
/* From the stored densities, the densities and pressures; the diagnostics over the fluid; the
 * first non-finite value of a particle still in the computation is an error at `step`. */
clp_status clp__sph_snapshot_summarise(clp__sph_snapshot *s, const clp_sph_case *c, bool centred,
                                       const clp__sph_physics_values *phys, uint64_t step,
                                       clp_error *err);

/* The values of clp__sph_diagnostics, in its order. */
enum { CLP__SPH_DIAGNOSTICS = 6 };

/* summary.json in `dir`: the keys every model's starts with ("steps": the step the state has
 * reached, the continued runs' included), then each of clp__sph_diagnostics with `values`. */
clp_status clp__sph_summary_write(const char *dir, size_t particles, uint64_t step,
                                  const double values[CLP__SPH_DIAGNOSTICS], bool interrupted,
                                  double seconds, clp_error *err);

/* The files of a run's output folder. */
typedef struct clp__sph_outputs {
    clp__csv *csv;
    clp__vtp_series snapshots;
    int64_t last_step; /* of the last row written, -1 before any */
} clp__sph_outputs;

clp_status clp__sph_outputs_open(clp__sph_outputs *o, const char *dir, clp_error *err);
/* A restart into the folder of the run it continues: the diagnostics up to the checkpoint's
 * step stay, those after it go (that part is run again), and the snapshots go on from the
 * last one kept, each row having had its snapshot. Into a new folder: a new start. */
clp_status clp__sph_outputs_continue(clp__sph_outputs *o, const char *dir, uint64_t step,
                                     clp_error *err);
clp_status clp__sph_outputs_write(clp__sph_outputs *o, const clp__sph_snapshot *s, double time,
                                  uint64_t step, double dt, clp_error *err);
void clp__sph_outputs_close(clp__sph_outputs *o);

/* The named values of an SPH run's result (its registry entry's diagnostics), NULL-ended. */
extern const char *const clp__sph_diagnostics[];

#endif

/* Snapshots and the files of an SPH run's output folder. */
#include "models/sph/sph_output.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

clp_status clp__sph_snapshot_alloc(clp__sph_snapshot *s, size_t n, clp_error *err) {
    *s = (clp__sph_snapshot){.n = n,
                             .xyz = malloc(3 * n * sizeof(double) + 1),
                             .id = malloc(n * sizeof(uint32_t) + 1),
                             .type = malloc(n * sizeof(uint32_t) + 1),
                             .vel = malloc(3 * n * sizeof(float) + 1),
                             .rho = malloc(n * sizeof(float) + 1),
                             .pressure = malloc(n * sizeof(float) + 1),
                             .front = -INFINITY};
    if (s->xyz && s->id && s->type && s->vel && s->rho && s->pressure)
        return CLP_OK;
    clp__sph_snapshot_free(s);
    return CLP_FAIL(err, CLP_NOMEM, "out of host memory for a snapshot of %zu particles", n);
}

void clp__sph_snapshot_free(clp__sph_snapshot *s) {
    free(s->xyz);
    free(s->id);
    free(s->type);
    free(s->vel);
    free(s->rho);
    free(s->pressure);
    *s = (clp__sph_snapshot){0};
}

clp_status clp__sph_snapshot_summarise(clp__sph_snapshot *s, const clp_sph_case *c, bool centred,
                                       const clp__sph_physics_values *phys, uint64_t step,
                                       clp_error *err) {
    clp_status st = CLP_OK;
    const double tait_b = phys->c0 * phys->c0 * c->rho0 / 7.0;
    for (size_t i = 0; i < s->n; i++) {
        const double density = clp__sph_density_from_stored(c, centred, s->rho[i]);
        double v2 = 0;
        for (int a = 0; a < 3; a++)
            v2 += (double)s->vel[3 * i + a] * s->vel[3 * i + a];
        const char *bad = !isfinite(s->rho[i]) ? "density"
                          : !isfinite(v2)      ? "velocity"
                          : !isfinite(s->xyz[3 * i] + s->xyz[3 * i + 1] + s->xyz[3 * i + 2])
                              ? "position"
                              : NULL;
        s->rho[i] = (float)density;
        s->pressure[i] = (float)(tait_b * (pow(density / c->rho0, 7) - 1));
        s->excluded += s->type[i] == CLP_GRID_EXCLUDED; /* kept as it was when it left */
        CLP_REQUIRE(!bad || s->type[i] == CLP_GRID_EXCLUDED, err, CLP_CHECK,
                    "step %llu: particle %u has a non-finite %s", (unsigned long long)step,
                    s->id[i], bad);
        if (s->type[i] != 0)
            continue;
        s->kinetic += 0.5 * phys->mass * v2;
        s->mass += phys->mass;
        s->vmax = fmax(s->vmax, sqrt(v2));
        s->front = fmax(s->front, s->xyz[3 * i]);
    }
fail:
    return st;
}

/* The values of a run's result (clp_run_result), as the registry lists them. */
const char *const clp__sph_diagnostics[] = {"time",  "kinetic_energy", "mass", "max_velocity",
                                            "front", "excluded",       NULL};

clp_status clp__sph_summary_write(const char *dir, size_t particles, uint64_t step,
                                  const double values[CLP__SPH_DIAGNOSTICS], bool interrupted,
                                  double seconds, clp_error *err) {
    json_t *root = clp__summary_begin("sph", particles, step, interrupted, seconds);
    clp__summary_values(root, clp__sph_diagnostics, values, CLP__SPH_DIAGNOSTICS);
    return clp__summary_write(dir, "summary.json", root, err);
}

static const char *const diagnostics_columns[] = {"time", "step",         "dt",    "kinetic_energy",
                                                  "mass", "max_velocity", "front", "excluded"};
enum { DIAGNOSTICS_COLUMNS = 8 };

clp_status clp__sph_outputs_open(clp__sph_outputs *o, const char *dir, clp_error *err) {
    clp_status st = CLP_OK;
    o->last_step = -1;
    CLP_TRY(clp__vtp_series_start(&o->snapshots, dir, err));
    CLP_TRY(clp__csv_open_in(dir, "diagnostics.csv", diagnostics_columns, DIAGNOSTICS_COLUMNS,
                             &o->csv, err));
fail:
    return st;
}

clp_status clp__sph_outputs_continue(clp__sph_outputs *o, const char *dir, uint64_t step,
                                     clp_error *err) {
    clp_status st = CLP_OK;
    double *kept = NULL;
    size_t n_kept = 0;
    o->last_step = -1;
    CLP_TRY(clp__vtp_series_open(&o->snapshots, dir, err));
    CLP_TRY(clp__csv_continue_in(dir, "diagnostics.csv", diagnostics_columns, DIAGNOSTICS_COLUMNS,
                                 1, (double)step, &kept, &n_kept, &o->csv, err));
    for (size_t i = 0; i < n_kept; i++)
        CLP_TRY(clp__vtp_series_remember(&o->snapshots, kept[i * DIAGNOSTICS_COLUMNS], err));
    if (n_kept > 0) {
        o->last_step = (int64_t)kept[(n_kept - 1) * DIAGNOSTICS_COLUMNS + 1];
        CLP_TRY(clp__vtp_series_index(&o->snapshots, err));
    }
fail:
    free(kept);
    return st;
}

clp_status clp__sph_outputs_write(clp__sph_outputs *o, const clp__sph_snapshot *s, double time,
                                  uint64_t step, double dt, clp_error *err) {
    clp_status st = CLP_OK;
    const double row[] = {time,    (double)step, dt,       s->kinetic,
                          s->mass, s->vmax,      s->front, (double)s->excluded};
    CLP_TRY(clp__csv_row(o->csv, row, err));
    o->last_step = (int64_t)step;
    const clp__vtp_fields f = {.n = s->n,
                               .position = s->xyz,
                               .velocity = s->vel,
                               .density = s->rho,
                               .pressure = s->pressure,
                               .type = s->type,
                               .id = s->id,
                               .time = time};
    CLP_TRY(clp__vtp_series_add(&o->snapshots, &f, err));
fail:
    return st;
}

void clp__sph_outputs_close(clp__sph_outputs *o) {
    clp_error ignored = CLP_ERROR_INIT;
    clp__csv_close(o->csv, &ignored);
    clp__vtp_series_close(&o->snapshots);
}

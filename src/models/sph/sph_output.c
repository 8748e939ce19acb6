/* Snapshots and the files of an SPH run's output folder. */
#include "models/sph/sph_output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        const double density = clp__sph_density(c, centred, s->rho[i]);
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

static const char *const diagnostics_columns[] = {"time", "step",         "dt",    "kinetic_energy",
                                                  "mass", "max_velocity", "front", "excluded"};
enum { DIAGNOSTICS_COLUMNS = 8 };

clp_status clp__sph_outputs_open(clp__sph_outputs *o, const char *dir, clp_error *err) {
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    o->last_step = -1;
    return clp__csv_open_in(dir, "diagnostics.csv", diagnostics_columns, DIAGNOSTICS_COLUMNS,
                            &o->csv, err);
}

/* Adds the next snapshot's file name and time to the index. */
static clp_status outputs_remember(clp__sph_outputs *o, double time, clp_error *err) {
    clp_status st = CLP_OK;
    if (o->count == o->capacity) {
        size_t cap = o->capacity ? 2 * o->capacity : 64;
        double *times = realloc(o->times, cap * sizeof *times);
        CLP_REQUIRE_ALLOC(times, err);
        o->times = times;
        char **files = realloc(o->files, cap * sizeof *files);
        CLP_REQUIRE_ALLOC(files, err);
        o->files = files;
        o->capacity = cap;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/particles_%05zu.vtp", o->dir, o->count);
    o->files[o->count] = strdup(path);
    CLP_REQUIRE_ALLOC(o->files[o->count], err);
    o->times[o->count++] = time;
fail:
    return st;
}

clp_status clp__sph_outputs_continue(clp__sph_outputs *o, const char *dir, uint64_t step,
                                     clp_error *err) {
    clp_status st = CLP_OK;
    double *kept = NULL;
    size_t n_kept = 0;
    snprintf(o->dir, sizeof o->dir, "%s", dir);
    o->last_step = -1;
    CLP_TRY(clp__csv_continue_in(dir, "diagnostics.csv", diagnostics_columns, DIAGNOSTICS_COLUMNS,
                                 1, (double)step, &kept, &n_kept, &o->csv, err));
    for (size_t i = 0; i < n_kept; i++)
        CLP_TRY(outputs_remember(o, kept[i * DIAGNOSTICS_COLUMNS], err));
    if (n_kept > 0) {
        o->last_step = (int64_t)kept[(n_kept - 1) * DIAGNOSTICS_COLUMNS + 1];
        char path[1024];
        snprintf(path, sizeof path, "%s/particles.pvd", o->dir);
        CLP_TRY(clp__pvd_write(path, o->times, (const char *const *)o->files, o->count, err));
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
    CLP_TRY(outputs_remember(o, time, err));
    clp__vtp_fields f = {s->n, s->xyz, s->vel, s->rho, s->pressure, s->type, time};
    CLP_TRY(clp__vtp_write(o->files[o->count - 1], &f, err));
    char path[1024];
    snprintf(path, sizeof path, "%s/particles.pvd", o->dir);
    CLP_TRY(clp__pvd_write(path, o->times, (const char *const *)o->files, o->count, err));
fail:
    return st;
}

void clp__sph_outputs_close(clp__sph_outputs *o) {
    clp_error ignored = CLP_ERROR_INIT;
    clp__csv_close(o->csv, &ignored);
    for (size_t i = 0; i < o->count; i++)
        free(o->files[i]);
    free(o->files);
    free(o->times);
}
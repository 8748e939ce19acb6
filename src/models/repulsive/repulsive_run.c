/* The repulsive-particle design run: the case's start design on the device, damped steps in
 * chunks of check_every until the kinetic energy falls below the tolerance or the step limit
 * is reached, and the outputs: the start and the optimised design (start.csv, design.csv), the
 * energies and criteria after every chunk (energy.csv) and a one-line summary (summary.json). */
#include "io/io.h"
#include "run/pacer.h"
#include "models/repulsive/repulsive_case.h"
#include "models/models.h"
#include "run/run_flags.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The most pair components, N (N - 1) / 2 x D, that the automatic step's all-pairs pass on
 * the host may take: about a minute on one core. Beyond it a run would seem to hang. */
static const double auto_dt_most_pair_components = 5e10;

/* Host bytes a point takes in D dimensions: the start design and its read-back in double, and
 * its energy and its stratum in a Latin start. */
static double host_bytes(const clp__rep_case *c) {
    return (double)c->points * (2.0 * 8 * c->dim + 8 + 8);
}

/* The case at `path` with its start design and its time step: the automatic one comes from
 * the start's nearest distance (an all-pairs pass on the host). A linear damping too strong
 * for the step is refused. */
static clp_status prepare(const char *path, clp__rep_case *c, clp__rep_design *start,
                          clp_error *err) {
    clp_status st = CLP_OK;
    *start = (clp__rep_design){0};
    CLP_TRY(clp__rep_case_load(path, c, err));
    const double pair_components = 0.5 * (double)c->points * (c->points - 1.0) * c->dim;
    if (c->dt_auto && pair_components > auto_dt_most_pair_components)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'repulsive.dt' \"auto\" measures the start's nearest pair on the "
                           "host: %.3g pair components for %zu points in %d dimensions, more "
                           "than the %.0e it does in about a minute: give a number",
                           path, pair_components, c->points, c->dim, auto_dt_most_pair_components);
    char what[96];
    snprintf(what, sizeof what, "%zu points in %d dimensions", c->points, c->dim);
    CLP_TRY(clp__host_memory_check(host_bytes(c), what, err));
    CLP_TRY(clp__rep_case_design(c, start, err));
    double ae, nearest = 0;
    if (c->dt_auto)
        clp__rep_criteria(start, &ae, &nearest);
    clp__rep_case_resolve(c, nearest);
    if (!(c->params.dt > 0) || !isfinite(c->params.dt))
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'repulsive.dt' is \"auto\", and the start's nearest distance %g "
                           "gives no usable step (%g): give a number",
                           path, nearest, c->params.dt);
    if (c->dt_auto)
        CLP_INFO(CLP_LOG_RUN,
                 "dt %.6g: a twentieth of the period of the closest start pair, at %.6g",
                 c->params.dt, nearest);
    if (c->damping_auto)
        CLP_INFO(CLP_LOG_RUN, "damping c %.6g |v|^0 v: c dt = %g", c->params.damping_c[0],
                 CLP__REP_AUTO_DAMPING);
    /* the semi-implicit step multiplies v by 1 - c dt for the linear terms */
    double linear = 0;
    for (int k = 0; k < c->params.n_damping; k++)
        if (c->params.damping_p[k] == 1)
            linear += c->params.damping_c[k];
    if (linear * c->params.dt >= 2)
        return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                           "%s: 'repulsive.damping': the linear terms (p 1) sum to c %g, and with "
                           "dt %g each step multiplies the velocity by 1 - c dt = %g, which "
                           "amplifies it instead of damping: c dt must stay below 2",
                           path, linear, c->params.dt, 1 - linear * c->params.dt);
fail:
    return st;
}

clp_status clp_repulsive_source(const clp_options *opts, const clp_device_info *dev,
                                const char *case_path, char **out, clp_error *err) {
    clp__rep_case c;
    clp__rep_design start;
    clp_status st = prepare(case_path, &c, &start, err);
    if (st == CLP_OK && !dev && strcmp(clp_options_enum(opts, "repulsive.impl"), "tiled") == 0)
        st = CLP_FAIL_AT(err, CLP_USAGE, case_path, -1, -1,
                         "model repulsive with repulsive.impl=tiled: the program's tile is sized "
                         "from a device's local memory, so its source needs a device");
    if (st == CLP_OK)
        st = clp__rep_source(opts, dev, c.points, c.dim, &c.params, out, err);
    clp__rep_design_free(&start);
    return st;
}

/* `name` in `dir`: one row per point, columns x0 to x{D-1}, each coordinate in [0, 1) (the
 * device wraps into [0, 1] in float, and 1 is the same place as 0). */
static clp_status write_design(const char *dir, const char *name, double *x, size_t n, int dim,
                               clp_error *err) {
    clp_status st = CLP_OK;
    char **columns = calloc((size_t)dim, sizeof *columns);
    CLP_REQUIRE_ALLOC(columns, err);
    for (int v = 0; v < dim; v++) {
        char column[16];
        snprintf(column, sizeof column, "x%d", v);
        columns[v] = strdup(column);
        CLP_REQUIRE_ALLOC(columns[v], err);
    }
    for (size_t i = 0; i < n * (size_t)dim; i++) {
        x[i] -= floor(x[i]);
        if (x[i] >= 1)
            x[i] = 0;
    }
    st = clp__csv_write_table(dir, name, (const char *const *)columns, (size_t)dim, x, n, err);
fail:
    for (int v = 0; columns && v < dim; v++)
        free(columns[v]);
    free(columns);
    return st;
}

/* Steps with no check of the kinetic energy: the run reads it after each chunk. */
static clp_status run_steps(void *sys, uint64_t steps, clp_error *err) {
    uint64_t done;
    return clp__rep_system_run(sys, steps, 0, 0.0, &done, err);
}

/* What summary.json holds. */
typedef struct summary {
    size_t points;
    int dim, q;
    double dt;
    uint64_t steps;
    bool by_tolerance, interrupted;
    double kinetic, ae_start, maximin_start, ae_end, maximin_end, seconds;
} summary;

static clp_status write_summary(const char *dir, const summary *s, clp_error *err) {
    json_t *root = clp__summary_begin("repulsive", s->points, s->steps, s->interrupted, s->seconds);
    json_object_set_new(root, "dimensions", json_integer(s->dim));
    json_object_set_new(root, "q", json_integer(s->q));
    json_object_set_new(root, "dt", json_real(s->dt));
    json_object_set_new(root, "stopped_by",
                        json_string(s->interrupted    ? "request"
                                    : s->by_tolerance ? "tolerance"
                                                      : "steps"));
    clp__summary_number(root, "kinetic", s->kinetic);
    clp__summary_number(root, "ae_start", s->ae_start);
    clp__summary_number(root, "ae", s->ae_end);
    clp__summary_number(root, "maximin_start", s->maximin_start);
    clp__summary_number(root, "maximin", s->maximin_end);
    return clp__summary_write(dir, "summary.json", root, err);
}

/* One row of energy.csv from the system's state after `step` steps; *kinetic is its kinetic
 * energy, which must be finite. The criteria take an all-pairs pass as long as a step: their
 * seconds are added to *checks, which the rate leaves out (a bench's run of two steps would
 * otherwise time four passes and count two). */
static clp_status measure(clp__rep_system *sys, uint64_t step, double *energy, size_t n,
                          double row[6], double *checks, clp_error *err) {
    clp_status st = CLP_OK;
    double kinetic, potential = 0, ae, maximin;
    CLP_TRY(clp__rep_system_kinetic(sys, &kinetic, err));
    CLP_REQUIRE(isfinite(kinetic), err, CLP_CHECK,
                "the kinetic energy is %g at step %llu: use a smaller dt or more damping", kinetic,
                (unsigned long long)step);
    CLP_TRY(clp__rep_system_read(sys, NULL, NULL, energy, NULL, err));
    for (size_t i = 0; i < n; i++)
        potential += energy[i];
    const double start = clp__now(); /* the reads above waited for the steps */
    CLP_TRY(clp__rep_system_criteria(sys, &ae, &maximin, err));
    *checks += clp__now() - start;
    row[0] = (double)step;
    row[1] = kinetic;
    row[2] = potential;
    row[3] = kinetic + potential;
    row[4] = ae;
    row[5] = maximin;
fail:
    return st;
}

/* The columns of energy.csv, one row per check. */
/* energy.csv's columns; after "step", the values of a run's result (the registry's). */
const char *const clp__rep_columns[] = {"step", "kinetic", "potential", "total",
                                        "ae",   "maximin", NULL};

clp_status clp_repulsive_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    clp__rep_case c = {0};
    clp__rep_design start = {0};
    clp__rep_system *sys = NULL;
    clp__csv *csv = NULL;
    double *x = NULL, *energy = NULL;
    clp__progress progress;
    CLP_TRY(clp__run_check_flags(config, "repulsive", err));
    CLP_TRY(prepare(case_path, &c, &start, err));
    c.steps = clp__run_steps(config, c.steps);
    const clp__rep_params *p = &c.params;
    if (p->q < c.dim + 1)
        CLP_WARN(CLP_LOG_RUN,
                 "%s: 'repulsive.q' is %d, below dimensions + 1 = %d, which Masek and "
                 "Vorechovsky (2018) advise against",
                 case_path, p->q, c.dim + 1);
    CLP_INFO(CLP_LOG_RUN,
             "%zu points in %d dimensions, %s start (seed %llu), q %d, dt %.6g, %d damping "
             "terms, at most %llu steps",
             c.points, c.dim, c.start == CLP__REP_START_LATIN ? "latin" : "random",
             (unsigned long long)c.seed, p->q, p->dt, p->n_damping, (unsigned long long)c.steps);
    const size_t components = c.points * (size_t)c.dim;
    x = malloc(components * sizeof *x);
    energy = malloc(c.points * sizeof *energy);
    CLP_REQUIRE(x && energy, err, CLP_NOMEM, "out of host memory for %zu points in %d dimensions",
                c.points, c.dim);
    CLP_TRY(clp__rep_system_open(worker, opts, config->cache, &start, p, &sys, err));
    clp__rep_design_free(&start);
    if (config->out_dir) {
        CLP_TRY(clp__csv_open_in(config->out_dir, "energy.csv", clp__rep_columns, 6, &csv, err));
        /* the start as the device holds it, in single precision */
        CLP_TRY(clp__rep_system_read(sys, x, NULL, NULL, NULL, err));
        CLP_TRY(write_design(config->out_dir, "start.csv", x, c.points, c.dim, err));
    }
    if (config->progress) {
        clp__progress_init(&progress, config->progress, 0.0, (double)c.steps,
                           CLP__PROGRESS_PLAIN_INTERVAL);
        progress.steps_only = true;
    }
    summary s = {.points = c.points, .dim = c.dim, .q = p->q, .dt = p->dt};
    double row[6], outputs = 0, checks = 0;
    clp__pacer pacer;
    clp__pacer_init(&pacer, worker, config->stop_requested);
    const double begin = clp__now();
    for (uint64_t done = 0;;) {
        CLP_TRY(measure(sys, done, energy, c.points, row, &checks, err));
        if (done == 0) {
            s.ae_start = row[4];
            s.maximin_start = row[5];
        }
        const double outputs_start = clp__now();
        if (csv)
            CLP_TRY(clp__csv_row(csv, row, err));
        outputs += clp__now() - outputs_start;
        s.by_tolerance = row[1] < c.tolerance && done > 0;
        const bool last = s.by_tolerance || done == c.steps || s.interrupted;
        const double seconds = clp__now() - begin - outputs - checks;
        const double rate = done && seconds > 0 ? (double)c.points * (double)done / seconds : 0.0;
        if (config->progress) {
            snprintf(progress.note, sizeof progress.note, "kinetic %.3g  maximin %.4g", row[1],
                     row[5]);
            if (last)
                clp__progress_finish(&progress, done, (double)done, rate);
            else
                clp__progress_update(&progress, done, (double)done, rate);
        }
        if (last) {
            s.steps = done;
            break;
        }
        const uint64_t left = c.steps - done;
        const uint64_t chunk = left < c.check_every ? left : c.check_every;
        /* no check inside the chunk: measure() reads the kinetic energy at its end; the
         * chunk runs in slices after which a stop request is honoured */
        uint64_t ran;
        CLP_TRY(clp__pacer_run(&pacer, run_steps, sys, chunk, &ran, &s.interrupted, err));
        done += ran;
    }
    /* the steps and the reads of the energies, without the criteria and the file writes */
    s.seconds = clp__now() - begin - outputs - checks;
    s.kinetic = row[1];
    s.ae_end = row[4];
    s.maximin_end = row[5];
    if (csv) {
        st = clp__csv_close(csv, err);
        csv = NULL;
        CLP_TRY(st);
    }
    CLP_INFO(CLP_LOG_RUN,
             "%llu steps in %.3f s, stopped by the %s: maximin %.6g -> %.6g, AE %.6g -> %.6g",
             (unsigned long long)s.steps, s.seconds, s.by_tolerance ? "tolerance" : "step limit",
             s.maximin_start, s.maximin_end, s.ae_start, s.ae_end);
    if (config->out_dir) {
        CLP_TRY(clp__rep_system_read(sys, x, NULL, NULL, NULL, err));
        CLP_TRY(write_design(config->out_dir, "design.csv", x, c.points, c.dim, err));
        CLP_TRY(write_summary(config->out_dir, &s, err));
    }
    /* every point's force sums the other points' */
    clp__run_result_set(config, s.seconds, (double)c.points * (double)(c.points - 1) * s.steps,
                        s.steps, clp__rep_columns + 1, row + 1, 5);
    /* the flops of a pair in PAIR_TERMS and its sums (cl/repulsive/repulsive.cl), an add, a
       product, rint, a division or rsqrt 1 and an FMA 2: per component the periodic
       difference (3) and its square added (2) for L^2, then again for the force (3 + 2);
       L^-q (1 / L^2, rsqrt for an odd q, q / 2 products), the factor (2), the energy (2) and
       the stress (4). The few bytes per pair, from local memory or cache, are not counted. */
    const double pair_flops = 10.0 * c.dim + 2 + (p->q & 1) + p->q / 2 + 2 + 2 + 4;
    clp__run_result_cost(config, 0.0,
                         pair_flops * (double)c.points * (double)(c.points - 1) * s.steps);
    if (s.interrupted)
        st = CLP_FAIL(err, CLP_INTERRUPTED, "stopped at step %llu of at most %llu%s",
                      (unsigned long long)s.steps, (unsigned long long)c.steps,
                      config->out_dir ? "; design.csv holds the design at that step, and "
                                        "summary.json marks the run as interrupted"
                                      : "");
fail:
    clp__csv_close(csv, NULL);
    clp__rep_system_close(sys);
    clp__rep_design_free(&start);
    free(x);
    free(energy);
    return st;
}

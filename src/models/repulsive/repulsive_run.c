/* The repulsive-particle design run: the case's start design on the device, damped steps in
 * chunks of check_every until the kinetic energy falls below the tolerance or the step limit
 * is reached, and the outputs: the start and the optimised design (start.csv, design.csv), the
 * energies and criteria after every chunk (energy.csv) and a one-line summary (summary.json). */
#include "io/io.h"
#include "models/repulsive/repulsive_case.h"
#include "models/models.h"
#include "run/driver.h"

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
    if (st == CLP_OK && !dev && clp__repulsive_impl_of(opts) == CLP_REP_IMPL_TILED)
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

/* energy.csv's columns; after "step", the values of a run's result (the registry's). */
const char *const clp__rep_columns[] = {"step", "kinetic", "potential", "total",
                                        "ae",   "maximin", NULL};

/* A run of the case: the design on the device, energy.csv and its last row. */
typedef struct rep_model {
    clp__rep_case c;
    clp__rep_design start;
    clp__rep_system *sys;
    clp__csv *csv;
    double *x, *energy; /* the design and the points' energies, read back */
    double row[6];
    summary s;
} rep_model;

static clp_status measure(void *model, clp__run *run, clp_error *err);

static clp_status open_run(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    rep_model *m = model;
    clp__rep_case *c = &m->c;
    CLP_TRY(prepare(run->case_path, c, &m->start, err));
    c->steps = clp__run_limit_steps(run, c->steps, 0.0);
    const clp__rep_params *p = &c->params;
    if (p->q < c->dim + 1)
        CLP_WARN(CLP_LOG_RUN,
                 "%s: 'repulsive.q' is %d, below dimensions + 1 = %d, which Masek and "
                 "Vorechovsky (2018) advise against",
                 run->case_path, p->q, c->dim + 1);
    CLP_INFO(CLP_LOG_RUN,
             "%zu points in %d dimensions, %s start (seed %llu), q %d, dt %.6g, %d damping "
             "terms, at most %llu steps",
             c->points, c->dim, c->start == CLP__REP_START_LATIN ? "latin" : "random",
             (unsigned long long)c->seed, p->q, p->dt, p->n_damping, (unsigned long long)c->steps);
    m->x = malloc(c->points * (size_t)c->dim * sizeof *m->x);
    m->energy = malloc(c->points * sizeof *m->energy);
    CLP_REQUIRE(m->x && m->energy, err, CLP_NOMEM,
                "out of host memory for %zu points in %d dimensions", c->points, c->dim);
    CLP_TRY(clp__rep_system_open(run->worker, run->opts, run->config->cache, &m->start, p, &m->sys,
                                 err));
    clp__rep_design_free(&m->start);
    m->s = (summary){.points = c->points, .dim = c->dim, .q = p->q, .dt = p->dt};
    run->particles = c->points;
    clp__run_add_output(run, (clp__run_output){.every = c->check_every,
                                               .also = CLP__RUN_AT_LAST | CLP__RUN_ON_STOP,
                                               .write = measure});
fail:
    return st;
}

/* energy.csv, and start.csv: the start as the device holds it, in single precision. */
static clp_status start(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    rep_model *m = model;
    if (!run->out_dir)
        return CLP_OK;
    CLP_TRY(clp__csv_open_in(run->out_dir, "energy.csv", clp__rep_columns, 6, &m->csv, err));
    CLP_TRY(clp__rep_system_read(m->sys, m->x, NULL, NULL, NULL, err));
    CLP_TRY(write_design(run->out_dir, "start.csv", m->x, m->c.points, m->c.dim, err));
fail:
    return st;
}

/* A row of energy.csv from the system's state; a kinetic energy below the tolerance ends the
 * run. The kinetic energy must be finite. */
static clp_status measure(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    rep_model *m = model;
    double *row = m->row, kinetic, potential = 0, ae, maximin;
    CLP_TRY(clp__rep_system_kinetic(m->sys, &kinetic, err));
    CLP_REQUIRE(isfinite(kinetic), err, CLP_CHECK,
                "the kinetic energy is %g at step %llu: use a smaller dt or more damping", kinetic,
                (unsigned long long)run->step);
    CLP_TRY(clp__rep_system_read(m->sys, NULL, NULL, m->energy, NULL, err));
    for (size_t i = 0; i < m->c.points; i++)
        potential += m->energy[i];
    CLP_TRY(clp__rep_system_criteria(m->sys, &ae, &maximin, err));
    const double values[6] = {(double)run->step,   kinetic, potential,
                              kinetic + potential, ae,      maximin};
    memcpy(row, values, sizeof values);
    if (run->step == 0) {
        m->s.ae_start = ae;
        m->s.maximin_start = maximin;
    }
    if (m->csv)
        CLP_TRY(clp__csv_row(m->csv, row, err));
    m->s.by_tolerance = kinetic < m->c.tolerance && run->step > 0;
    run->done = m->s.by_tolerance;
    snprintf(run->note, sizeof run->note, "kinetic %.3g  maximin %.4g", kinetic, maximin);
fail:
    return st;
}

/* Steps with no check of the kinetic energy: the run reads it after each chunk. */
static clp_status run_steps(void *sys, uint64_t steps, clp_error *err) {
    uint64_t done;
    return clp__rep_system_run(sys, steps, 0, 0.0, &done, err);
}

static clp_status advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                          clp_error *err) {
    rep_model *m = model;
    return clp__run_paced(run, run_steps, m->sys, steps, ran, err);
}

/* design.csv, summary.json and the result. */
static clp_status finish(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    rep_model *m = model;
    const clp__rep_case *c = &m->c;
    summary *s = &m->s;
    *s = (summary){.points = s->points,
                   .dim = s->dim,
                   .q = s->q,
                   .dt = s->dt,
                   .steps = run->step,
                   .by_tolerance = s->by_tolerance,
                   .interrupted = run->stopping,
                   .kinetic = m->row[1],
                   .ae_start = s->ae_start,
                   .maximin_start = s->maximin_start,
                   .ae_end = m->row[4],
                   .maximin_end = m->row[5],
                   .seconds = run->seconds};
    if (m->csv) {
        st = clp__csv_close(m->csv, err);
        m->csv = NULL;
        CLP_TRY(st);
    }
    CLP_INFO(CLP_LOG_RUN,
             "%llu steps in %.3f s, stopped by the %s: maximin %.6g -> %.6g, AE %.6g -> %.6g",
             (unsigned long long)s->steps, s->seconds, s->by_tolerance ? "tolerance" : "step limit",
             s->maximin_start, s->maximin_end, s->ae_start, s->ae_end);
    if (run->out_dir) {
        CLP_TRY(clp__rep_system_read(m->sys, m->x, NULL, NULL, NULL, err));
        CLP_TRY(write_design(run->out_dir, "design.csv", m->x, c->points, c->dim, err));
        CLP_TRY(write_summary(run->out_dir, s, err));
    }
    /* every point's force sums the other points'; the flops of a pair in PAIR_TERMS and its
       sums (cl/repulsive/repulsive.cl), an add, a product, rint, a division or rsqrt 1 and an
       FMA 2: per component the periodic difference (3) and its square added (2) for L^2, then
       again for the force (3 + 2); L^-q (1 / L^2, rsqrt for an odd q, q / 2 products), the
       factor (2), the energy (2) and the stress (4). The few bytes per pair, from local
       memory or cache, are not counted. */
    const double pairs = (double)c->points * (double)(c->points - 1) * s->steps;
    const double pair_flops = 10.0 * c->dim + 2 + (c->params.q & 1) + c->params.q / 2 + 2 + 2 + 4;
    clp__run_report(run, pairs, 0.0, pair_flops * pairs, m->row + 1, 5);
fail:
    return st;
}

static void close_run(void *model) {
    rep_model *m = model;
    clp__csv_close(m->csv, NULL);
    clp__rep_system_close(m->sys);
    clp__rep_design_free(&m->start);
    free(m->x);
    free(m->energy);
}

static const clp__run_model rep_model_ops = {
    .name = "repulsive",
    .size = sizeof(rep_model),
    .open = open_run,
    .start = start,
    .advance = advance,
    .finish = finish,
    .close = close_run,
    .stopped_note = "design.csv holds the design at that step, and summary.json marks the run "
                    "as interrupted"};

clp_status clp_repulsive_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err) {
    return clp__model_drive(&rep_model_ops, worker, NULL, NULL, opts, case_path, config, err);
}

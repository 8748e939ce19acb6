/* The Lennard-Jones run, on one device or as a rank of a split run (lj_dist.c): the case's
 * initial state on the device, velocity-Verlet steps in chunks of output_every, and after each
 * chunk the energies, temperature, pressure and total momentum in diagnostics.csv (their
 * sums and rows are lj_diagnostics.c's). Reduced units, mass 1. */
#include "io/io.h"
#include "models/lj/lj.h"
#include "models/lj/lj_case.h"
#include "models/lj/lj_dist.h"
#include "models/models.h"
#include "run/driver.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>

static void sample_free(clp__lj_sample *b) {
    free(b->force);
    free(b->energy);
    free(b->velocity);
}

static clp_status initial_state(const clp__lj_case *c, clp__lj_state *s, clp_error *err) {
    clp_status st = CLP_OK;
    *s = (clp__lj_state){0};
    if (c->init == CLP__LJ_INIT_FCC)
        CLP_TRY(clp__lj_fcc(c->fcc_cells, c->density, s, err));
    else
        CLP_TRY(clp__lj_random(c->n, c->box, c->seed, s, err));
    /* Velocities from a stream half the generator's period away from the positions', so the
     * two never share draws. */
    if (c->temperature > 0)
        CLP_TRY(clp__lj_maxwell(s, c->temperature, c->seed + (UINT64_C(1) << 63), err));
fail:
    return st;
}

/* The periodic grid needs 3 cells of the search radius per axis: said here in the case's
 * terms, before anything is built. */
static clp_status check_box(const clp__lj_case *c, const clp_options *opts, const char *path,
                            clp_error *err) {
    const double search = c->rc * (1.0 + clp__neighbors_skin_of(opts));
    if (floor(c->box / (search * (1 + 1e-6))) >= 3)
        return CLP_OK;
    return CLP_FAIL_AT(err, CLP_CASE, path, -1, -1,
                       "%s: the box (side %g, %zu atoms) is narrower than the 3 cells of the "
                       "search radius rc (1 + neighbors.skin) = %g that a periodic grid needs: "
                       "use more atoms, or a smaller lj.rc or neighbors.skin",
                       path, c->box, c->n, search);
}

clp_status clp_lj_source(const clp_options *opts, const clp_device_info *dev, const char *case_path,
                         char **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__lj_state s = {0};
    const clp__lj_strategy strategy = clp__lj_strategy_of(opts);
    if (strategy == CLP_LJ_STRATEGY_AUTO)
        return CLP_FAIL_AT(err, CLP_CASE, case_path, -1, -1,
                           "lj.strategy=auto chooses its program by timing each strategy on the "
                           "device when the run starts; name one (-s lj.strategy=...) to print "
                           "or build its program");
    clp__lj_case c;
    CLP_TRY(clp__lj_case_load(case_path, &c, err));
    CLP_TRY(check_box(&c, opts, case_path, err));
    CLP_TRY(initial_state(&c, &s, err));
    const clp__lj_params params = {.rc = c.rc, .softening = c.softening};
    clp_grid_geometry geo;
    clp__lj_layout layout;
    CLP_TRY(clp__lj_geometry(opts, &s, &params, &geo, err));
    CLP_TRY(clp__lj_program(opts, dev, &geo, &s, &params, c.dt, strategy, &layout, out, err));
fail:
    clp__lj_state_free(&s);
    return st;
}

/* A snapshot's arrays, n atoms each in the state's order. */
typedef struct lj_snapshot {
    double *xyz, *vel; /* n x 3 */
    float *vel32;      /* n x 3 */
    uint32_t *id;
} lj_snapshot;

static clp_status snapshot_alloc(lj_snapshot *s, size_t n, clp_error *err) {
    *s = (lj_snapshot){.xyz = malloc(3 * n * sizeof(double)),
                       .vel = malloc(3 * n * sizeof(double)),
                       .vel32 = malloc(3 * n * sizeof(float)),
                       .id = malloc(n * sizeof(uint32_t))};
    if (s->xyz && s->vel && s->vel32 && s->id)
        return CLP_OK;
    return CLP_FAIL(err, CLP_NOMEM, "out of host memory for a snapshot of %zu atoms", n);
}

static void snapshot_free(lj_snapshot *s) {
    free(s->xyz);
    free(s->vel);
    free(s->vel32);
    free(s->id);
}

/* `x` in [0, box): a periodic image of it. */
static double wrapped(double x, double box) {
    const double w = x - box * floor(x / box);
    return w < box ? w : 0.0; /* rounded up to the far face: that is the near one */
}

/* diagnostics.csv's columns; after "step", the values of a run's result (the registry's). */
const char *const clp__lj_columns[] = {"step",        "time",     "kinetic",  "potential", "total",
                                       "temperature", "pressure", "momentum", NULL};

/* A run of the case: the whole box on one device, or (comm set) a rank's slab of it, and its
 * outputs. */
typedef struct lj_model {
    clp__lj_case c;
    clp__lj_state s;
    clp__lj_system *sys;
    clp__lj_rank *rank;
    clp__lj_sample sample; /* one device's read-back */
    clp_run_timing timing; /* --timing: the phases' device time */
    clp__csv *csv;
    clp__vtp_series series;
    lj_snapshot snap;
    double row[8]; /* the last diagnostics */
} lj_model;

/* One diagnostics row from the device, or from every rank's, in diagnostics.csv. */
static clp_status measure(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    lj_model *m = model;
    clp__lj_sums sums = {0};
    clp__lj_sample *s = &m->sample;
    if (m->rank) {
        CLP_TRY(clp__lj_rank_sums(m->rank, &m->c, run->step, &sums, err));
    } else {
        CLP_TRY(clp__lj_system_read(m->sys, s->force, s->energy, s->velocity, &s->virial, err));
        CLP_TRY(clp__lj_sums_add(s, NULL, &m->c, run->step, &sums, err));
    }
    CLP_TRY(clp__lj_row(&sums, &m->c, run->step, m->row, err));
    if (m->csv)
        CLP_TRY(clp__csv_row(m->csv, m->row, err));
fail:
    return st;
}

/* particles_NNNNN.vtp: every atom at its index in the initial state, which is its ID, with its
 * position wrapped into the box and its velocity. A split run gathers the ranks' atoms on rank
 * 0, which writes. */
static clp_status snapshot(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    lj_model *m = model;
    lj_snapshot *s = &m->snap;
    const size_t n = m->c.n;
    const bool writes = run->out_dir != NULL;
    if (m->rank) {
        CLP_TRY(
            clp__lj_rank_gather(m->rank, n, writes ? s->xyz : NULL, writes ? s->vel : NULL, err));
    } else {
        clp__lj_sample *b = &m->sample;
        CLP_TRY(clp__lj_system_positions(m->sys, s->xyz, err));
        CLP_TRY(clp__lj_system_read(m->sys, b->force, b->energy, s->vel, &b->virial, err));
    }
    if (!writes)
        return CLP_OK;
    for (size_t i = 0; i < n; i++) {
        s->id[i] = (uint32_t)i;
        for (int a = 0; a < 3; a++) {
            s->xyz[3 * i + a] = wrapped(s->xyz[3 * i + a], m->c.box);
            s->vel32[3 * i + a] = (float)s->vel[3 * i + a];
        }
    }
    const double box[3] = {m->c.box, m->c.box, m->c.box};
    const clp__vtp_fields f = {.n = n,
                               .position = s->xyz,
                               .velocity = s->vel32,
                               .id = s->id,
                               .time = run->time,
                               .period = box};
    CLP_TRY(clp__vtp_series_add(&m->series, &f, err));
fail:
    return st;
}

/* The case's atoms on this device, or this rank's slab of them; the outputs at step 0, every
 * output_every (and snapshot_every) steps and at the end. */
static clp_status open_run(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    lj_model *m = model;
    clp__lj_case *c = &m->c;
    clp__lj_state *s = &m->s;
    CLP_REQUIRE(!run->comm || !run->config->timing, err, CLP_USAGE,
                "--timing profiles a Lennard-Jones run on one device only");
    CLP_TRY(clp__lj_case_load(run->case_path, c, err));
    CLP_TRY(check_box(c, run->opts, run->case_path, err));
    c->steps = clp__run_limit_steps(run, c->steps, c->dt);
    const clp__lj_params params = {.rc = c->rc, .softening = c->softening};
    CLP_TRY(clp__lj_check_memory(run->worker, run->comm != NULL, run->opts, c->n, c->box, &params,
                                 err));
    CLP_TRY(initial_state(c, s, err));
    if (run->writer)
        CLP_INFO(CLP_LOG_RUN, "%zu atoms in a periodic box of side %.9g, density %g", s->n, s->box,
                 clp__lj_density(s));
    if (run->comm) {
        CLP_TRY(clp__lj_rank_open(run->worker, run->comm, run->opts, run->config->cache, s, &params,
                                  c->dt, run->weights, &m->rank, err));
    } else {
        m->sample = (clp__lj_sample){.n = s->n,
                                     .force = malloc(3 * s->n * sizeof(double)),
                                     .energy = malloc(s->n * sizeof(double)),
                                     .velocity = malloc(3 * s->n * sizeof(double))};
        CLP_REQUIRE(m->sample.force && m->sample.energy && m->sample.velocity, err, CLP_NOMEM,
                    "out of host memory for the diagnostics of %zu atoms", s->n);
        CLP_TRY(clp__lj_system_open(run->worker, run->opts, run->config->cache, s, &params, c->dt,
                                    &m->sys, err));
        if (run->config->timing)
            clp__lj_system_time(m->sys, &m->timing);
    }
    run->particles = s->n;
    run->dt = c->dt;
    const unsigned final = CLP__RUN_AT_LAST | CLP__RUN_ON_STOP;
    clp__run_add_output(
        run, (clp__run_output){.every = c->output_every, .also = final, .write = measure});
    if (run->config->out_dir && c->snapshot_every) /* the same on all ranks */
        clp__run_add_output(
            run, (clp__run_output){.every = c->snapshot_every, .also = final, .write = snapshot});
fail:
    return st;
}

static clp_status start(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    lj_model *m = model;
    if (!run->out_dir)
        return CLP_OK;
    CLP_TRY(clp__csv_open_in(run->out_dir, "diagnostics.csv", clp__lj_columns, 8, &m->csv, err));
    if (m->c.snapshot_every) {
        CLP_TRY(clp__vtp_series_start(&m->series, run->out_dir, err));
        CLP_TRY(snapshot_alloc(&m->snap, m->s.n, err));
    }
fail:
    return st;
}

static clp_status run_steps(void *sys, uint64_t steps, clp_error *err) {
    return clp__lj_system_run(sys, steps, err);
}

/* Steps to the next output. One device runs them in slices, after each of which a stop
 * request is honoured; ranks run them whole, and agree on stopping at the next turn. */
static clp_status advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                          clp_error *err) {
    lj_model *m = model;
    if (!m->rank)
        return clp__run_paced(run, run_steps, m->sys, steps, ran, err);
    *ran = steps;
    return clp__lj_rank_run(m->rank, steps, err);
}

/* Whether any rank was asked to stop: all stop at the same step. */
static clp_status requests(void *model, clp__run *run, bool *stop, bool *checkpoint,
                           clp_error *err) {
    (void)model;
    double asked = *stop;
    const clp_status st = clp__comm_allreduce(run->comm, &asked, 1, CLP_COMM_MAX, err);
    *stop = asked > 0;
    *checkpoint = false; /* LJ writes none */
    return st;
}

/* The least device-memory traffic of the steps so far, of every rank's together. */
static clp_status traffic(const lj_model *m, clp__comm *comm, double listed, double *bytes,
                          clp_error *err) {
    if (!m->rank) {
        *bytes = clp__lj_system_bytes(m->sys, listed);
        return CLP_OK;
    }
    *bytes = clp__lj_rank_bytes(m->rank, listed);
    return clp__comm_allreduce(comm, bytes, 1, CLP_COMM_SUM, err);
}

/* What lj.strategy=auto chose, for the sweep's and bench's records. */
static void report_chosen(const lj_model *m, const clp__run *run) {
    if (!m->sys || clp__lj_strategy_of(run->opts) != CLP_LJ_STRATEGY_AUTO)
        return;
    char chosen[96];
    snprintf(chosen, sizeof chosen, "lj.strategy=%s neighbors.mode=%s",
             clp__lj_strategy_name(clp__lj_system_layout(m->sys)->strategy),
             clp__lj_system_mode(m->sys));
    clp__run_result_chosen(run->config, chosen);
}

/* summary.json (the keys every model's starts with, then the last row's values by their
 * column names, from "time" on), the timing and the result. */
static clp_status finish(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    lj_model *m = model;
    const clp_run_config *config = run->config;
    if (config->timing && !run->comm) {
        m->timing.wall = run->seconds + run->outputs;
        m->timing.outputs = run->outputs;
        m->timing.particles = m->s.n;
        *config->timing = m->timing;
    }
    if (m->csv) {
        st = clp__csv_close(m->csv, err);
        m->csv = NULL;
        CLP_TRY(st);
    }
    if (run->out_dir) {
        json_t *root =
            clp__summary_begin("lj", m->s.n, (uint64_t)m->row[0], run->stopping, run->seconds);
        clp__summary_values(root, clp__lj_columns + 1, m->row + 1, 7);
        CLP_TRY(clp__summary_write(run->out_dir, "summary.json", root, err));
    }
    /* the atoms within the search radius rc (1 + skin) of one, at the case's density */
    const double search = m->c.rc * (1.0 + clp__neighbors_skin_of(run->opts));
    const double listed = 4.0 / 3.0 * M_PI * search * search * search * clp__lj_density(&m->s);
    double bytes;
    CLP_TRY(traffic(m, run->comm, listed, &bytes, err));
    clp__run_report(run, (double)m->s.n * (double)run->step, bytes, 0.0, m->row + 1, 7);
    if (run->writer)
        report_chosen(m, run);
fail:
    return st;
}

static void close_run(void *model) {
    lj_model *m = model;
    clp__csv_close(m->csv, NULL);
    clp__vtp_series_close(&m->series);
    snapshot_free(&m->snap);
    clp__lj_system_close(m->sys);
    clp__lj_rank_close(m->rank);
    sample_free(&m->sample);
    clp__lj_state_free(&m->s);
}

static const clp__run_model lj_model_ops = {
    .name = "lj",
    .size = sizeof(lj_model),
    .open = open_run,
    .start = start,
    .advance = advance,
    .requests = requests,
    .finish = finish,
    .close = close_run,
    .stopped_note = "diagnostics.csv ends with that step's row, and summary.json marks the run as "
                    "interrupted"};

clp_status clp_lj_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                      const clp_run_config *config, clp_error *err) {
    return clp__model_drive(&lj_model_ops, worker, NULL, NULL, opts, case_path, config, err);
}

clp_status clp__lj_run_rank(clp_worker *worker, clp_comm *comm, const double *weights,
                            const clp_options *opts, const char *case_path,
                            const clp_run_config *config, clp_error *err) {
    return clp__model_drive(&lj_model_ops, worker, comm, weights, opts, case_path, config, err);
}

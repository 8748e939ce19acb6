/* The Lennard-Jones run, on one device or as a rank of a split run (lj_dist.c): the case's
 * initial state on the device, velocity-Verlet steps in chunks of output_every, and after each
 * chunk the energies, temperature, pressure and total momentum in diagnostics.csv. Reduced
 * units, mass 1. */
#include "io/io.h"
#include "models/lj/lj.h"
#include "models/lj/lj_case.h"
#include "models/lj/lj_dist.h"
#include "run/pacer.h"
#include "models/models.h"
#include "run/run_flags.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    const double search = c->rc * (1.0 + clp_options_float(opts, "neighbors.skin"));
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
    clp__lj_strategy strategy;
    if (!clp__lj_strategy_from_name(clp_options_enum(opts, "lj.strategy"), &strategy))
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

void clp__lj_sums_pack(const clp__lj_sums *s, double out[CLP__LJ_SUMS]) {
    const double values[CLP__LJ_SUMS] = {s->atoms,       s->kinetic,     s->potential,  s->virial,
                                         s->momentum[0], s->momentum[1], s->momentum[2]};
    memcpy(out, values, sizeof values);
}

void clp__lj_sums_unpack(const double in[CLP__LJ_SUMS], clp__lj_sums *out) {
    *out = (clp__lj_sums){in[0], in[1], in[2], in[3], {in[4], in[5], in[6]}};
}

clp_status clp__lj_sums_add(const clp__lj_sample *s, const uint32_t *ids, const clp__lj_case *c,
                            uint64_t step, clp__lj_sums *sums, clp_error *err) {
    for (size_t i = 0; i < s->n; i++) {
        const double *v = s->velocity + 3 * i, *f = s->force + 3 * i;
        const char *bad = !isfinite(s->energy[i])         ? "potential energy"
                          : !isfinite(v[0] + v[1] + v[2]) ? "velocity"
                          : !isfinite(f[0] + f[1] + f[2]) ? "force"
                                                          : NULL;
        if (bad)
            return CLP_FAIL(err, CLP_CHECK,
                            "atom %zu has a non-finite %s at step %llu (checked every "
                            "output_every = %llu steps); a smaller lj.dt or a larger "
                            "lj.softening may help",
                            ids ? (size_t)ids[i] : i, bad, (unsigned long long)step,
                            (unsigned long long)c->output_every);
        sums->kinetic += 0.5 * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        sums->potential += s->energy[i];
        for (int a = 0; a < 3; a++)
            sums->momentum[a] += v[a];
    }
    sums->atoms += (double)s->n;
    sums->virial += s->virial;
    return CLP_OK;
}

clp_status clp__lj_row(const clp__lj_sums *sums, const clp__lj_case *c, uint64_t step,
                       double row[8], clp_error *err) {
    const double kinetic = sums->kinetic, potential = sums->potential, *momentum = sums->momentum;
    if (!isfinite(kinetic + potential + sums->virial))
        return CLP_FAIL(err, CLP_CHECK,
                        "a non-finite total at step %llu: kinetic %g, potential %g, virial %g",
                        (unsigned long long)step, kinetic, potential, sums->virial);
    const double n = sums->atoms, volume = c->box * c->box * c->box;
    const double temperature = 2.0 * kinetic / (3.0 * n - 3.0);
    row[0] = (double)step;
    row[1] = (double)step * c->dt;
    row[2] = kinetic;
    row[3] = potential;
    row[4] = kinetic + potential;
    row[5] = temperature;
    /* The kinetic part over the 3N - 3 degrees of freedom that zero total momentum leaves,
     * (N - 1) T / V = 2 KE / 3V, as LAMMPS computes it. */
    row[6] = ((n - 1.0) * temperature + sums->virial / 3.0) / volume;
    row[7] =
        sqrt(momentum[0] * momentum[0] + momentum[1] * momentum[1] + momentum[2] * momentum[2]);
    return CLP_OK;
}

clp_status clp__lj_diagnostics(const clp__lj_sample *s, const clp__lj_case *c, uint64_t step,
                               double row[8], clp_error *err) {
    clp__lj_sums sums = {0};
    clp_status st = clp__lj_sums_add(s, NULL, c, step, &sums, err);
    return st != CLP_OK ? st : clp__lj_row(&sums, c, step, row, err);
}

/* What a run steps: the whole box on one device, or (comm set) a rank's slab of it. */
typedef struct lj_runner {
    clp__comm *comm;
    clp__lj_system *sys;
    clp__lj_rank *rank;
    clp__lj_sample sample; /* one device's read-back */
    clp__pacer pacer;
} lj_runner;

/* One diagnostics row from the device, or from every rank's. */
static clp_status measure(lj_runner *r, const clp__lj_case *c, uint64_t step, double row[8],
                          clp_error *err) {
    clp_status st = CLP_OK;
    clp__lj_sums sums = {0};
    clp__lj_sample *s = &r->sample;
    if (r->rank) {
        CLP_TRY(clp__lj_rank_sums(r->rank, c, step, &sums, err));
    } else {
        CLP_TRY(clp__lj_system_read(r->sys, s->force, s->energy, s->velocity, &s->virial, err));
        CLP_TRY(clp__lj_sums_add(s, NULL, c, step, &sums, err));
    }
    CLP_TRY(clp__lj_row(&sums, c, step, row, err));
fail:
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

/* particles_NNNNN.vtp at `step`: every atom at its index in the initial state, which is its
 * ID, with its position wrapped into the box and its velocity. A split run gathers the ranks'
 * atoms on rank 0, which writes (`series` NULL on the others). */
static clp_status snapshot(lj_runner *r, const clp__lj_case *c, uint64_t step, lj_snapshot *s,
                           clp__vtp_series *series, clp_error *err) {
    clp_status st = CLP_OK;
    const size_t n = c->n;
    if (r->rank) {
        CLP_TRY(
            clp__lj_rank_gather(r->rank, n, series ? s->xyz : NULL, series ? s->vel : NULL, err));
    } else {
        clp__lj_sample *b = &r->sample;
        CLP_TRY(clp__lj_system_positions(r->sys, s->xyz, err));
        CLP_TRY(clp__lj_system_read(r->sys, b->force, b->energy, s->vel, &b->virial, err));
    }
    if (!series)
        return CLP_OK;
    for (size_t i = 0; i < n; i++) {
        s->id[i] = (uint32_t)i;
        for (int a = 0; a < 3; a++) {
            s->xyz[3 * i + a] = wrapped(s->xyz[3 * i + a], c->box);
            s->vel32[3 * i + a] = (float)s->vel[3 * i + a];
        }
    }
    const double box[3] = {c->box, c->box, c->box};
    const clp__vtp_fields f = {.n = n,
                               .position = s->xyz,
                               .velocity = s->vel32,
                               .id = s->id,
                               .time = (double)step * c->dt,
                               .period = box};
    CLP_TRY(clp__vtp_series_add(series, &f, err));
fail:
    return st;
}

static clp_status run_steps(void *sys, uint64_t steps, clp_error *err) {
    return clp__lj_system_run(sys, steps, err);
}

/* A chunk of steps. One device runs it in slices, after each of which a stop request is
 * honoured; ranks run it whole and then agree whether any was asked to stop, so that all
 * stop at the same step. */
static clp_status advance(lj_runner *r, uint64_t chunk, volatile sig_atomic_t *stop, uint64_t *ran,
                          bool *stopped, clp_error *err) {
    clp_status st = CLP_OK;
    if (!r->rank)
        return clp__pacer_run(&r->pacer, run_steps, r->sys, chunk, ran, stopped, err);
    CLP_TRY(clp__lj_rank_run(r->rank, chunk, err));
    *ran = chunk;
    double asked = stop && *stop;
    CLP_TRY(clp__comm_allreduce(r->comm, &asked, 1, CLP_COMM_MAX, err));
    *stopped = asked > 0;
fail:
    return st;
}

/* The least device-memory traffic of the steps so far, of every rank's together. */
static clp_status traffic(lj_runner *r, double listed, double *bytes, clp_error *err) {
    if (!r->rank) {
        *bytes = clp__lj_system_bytes(r->sys, listed);
        return CLP_OK;
    }
    *bytes = clp__lj_rank_bytes(r->rank, listed);
    return clp__comm_allreduce(r->comm, bytes, 1, CLP_COMM_SUM, err);
}

/* diagnostics.csv's columns; after "step", the values of a run's result (the registry's). */
const char *const clp__lj_columns[] = {"step",        "time",     "kinetic",  "potential", "total",
                                       "temperature", "pressure", "momentum", NULL};

/* summary.json: the keys every model's starts with, then the last row's values by their
 * column names, from "time" on. */
static clp_status write_summary(const char *dir, size_t atoms, const double row[8],
                                bool interrupted, double seconds, clp_error *err) {
    json_t *root = clp__summary_begin("lj", atoms, (uint64_t)row[0], interrupted, seconds);
    clp__summary_values(root, clp__lj_columns + 1, row + 1, 7);
    return clp__summary_write(dir, "summary.json", root, err);
}

static clp_status open_diagnostics(const char *dir, clp__csv **out, clp_error *err) {
    return clp__csv_open_in(dir, "diagnostics.csv", clp__lj_columns, 8, out, err);
}

/* The run on one device (comm NULL), or as one rank of a split run, where every rank calls it
 * and rank 0 alone writes the outputs and the progress. */
static clp_status run(clp_worker *worker, clp__comm *comm, const double *weights,
                      const clp_options *opts, const char *case_path, const clp_run_config *config,
                      clp_error *err) {
    clp_status st = CLP_OK;
    clp__lj_case c;
    clp__lj_state s = {0};
    lj_runner r = {.comm = comm};
    clp_run_timing timing = {0}; /* --timing: the phases' device time */
    clp__csv *csv = NULL;
    clp__vtp_series series = {0};
    lj_snapshot snap = {0};
    clp__progress progress;
    const bool writer = !comm || clp__comm_rank(comm) == 0;
    const char *out_dir = writer ? config->out_dir : NULL;
    FILE *progress_file = writer ? config->progress : NULL;
    CLP_TRY(clp__run_check_flags(config, "lj", err));
    CLP_REQUIRE(!comm || !config->timing, err, CLP_USAGE,
                "--timing profiles a Lennard-Jones run on one device only");
    CLP_TRY(clp__lj_case_load(case_path, &c, err));
    CLP_TRY(check_box(&c, opts, case_path, err));
    c.steps = clp__run_steps(config, c.steps);
    if (config->max_time > 0 && config->max_time < (double)c.steps * c.dt)
        c.steps = (uint64_t)floor(config->max_time / c.dt + 1e-9);
    const clp__lj_params params = {.rc = c.rc, .softening = c.softening};
    CLP_TRY(clp__lj_check_memory(worker, comm != NULL, opts, c.n, c.box, &params, err));
    CLP_TRY(initial_state(&c, &s, err));
    if (writer)
        CLP_INFO(CLP_LOG_RUN, "%zu atoms in a periodic box of side %.9g, density %g", s.n, s.box,
                 clp__lj_density(&s));
    if (comm) {
        CLP_TRY(clp__lj_rank_open(worker, comm, opts, config->cache, &s, &params, c.dt, weights,
                                  &r.rank, err));
    } else {
        r.sample = (clp__lj_sample){.n = s.n,
                                    .force = malloc(3 * s.n * sizeof(double)),
                                    .energy = malloc(s.n * sizeof(double)),
                                    .velocity = malloc(3 * s.n * sizeof(double))};
        CLP_REQUIRE(r.sample.force && r.sample.energy && r.sample.velocity, err, CLP_NOMEM,
                    "out of host memory for the diagnostics of %zu atoms", s.n);
        CLP_TRY(clp__lj_system_open(worker, opts, config->cache, &s, &params, c.dt, &r.sys, err));
        CLP_TRY(clp__run_stop_check(config, err)); /* alone: ranks stop at a step */
        clp__pacer_init(&r.pacer, worker, config->stop_requested);
        if (config->timing)
            clp__lj_system_time(r.sys, &timing);
    }
    if (out_dir)
        CLP_TRY(open_diagnostics(out_dir, &csv, err));
    const uint64_t snapshot_every = config->out_dir ? c.snapshot_every : 0; /* same on all ranks */
    if (out_dir && snapshot_every) {
        CLP_TRY(clp__vtp_series_start(&series, out_dir, err));
        CLP_TRY(snapshot_alloc(&snap, s.n, err));
    }
    const double end_time = (double)c.steps * c.dt;
    if (progress_file)
        clp__progress_init(&progress, progress_file, 0.0, end_time, CLP__PROGRESS_PLAIN_INTERVAL);
    double row[8], outputs = 0;
    bool stopped = false;
    const double start = clp__now();
    uint64_t done = 0;
    for (;;) {
        const double outputs_start = clp__now();
        const bool final = done == c.steps || stopped;
        if (done % c.output_every == 0 || final) {
            CLP_TRY(measure(&r, &c, done, row, err));
            if (csv)
                CLP_TRY(clp__csv_row(csv, row, err));
        }
        if (snapshot_every && (done % snapshot_every == 0 || final))
            CLP_TRY(snapshot(&r, &c, done, &snap, out_dir ? &series : NULL, err));
        outputs += clp__now() - outputs_start;
        /* the stepping rate leaves out the read-back and the file */
        const double stepping = clp__now() - start - outputs;
        const double rate = done && stepping > 0 ? (double)s.n * (double)done / stepping : 0.0;
        if (progress_file)
            clp__progress_update(&progress, done, (double)done * c.dt, rate);
        if (final) {
            if (progress_file)
                clp__progress_finish(&progress, done, (double)done * c.dt, rate);
            break;
        }
        /* a chunk to the next row or snapshot */
        uint64_t next = (done / c.output_every + 1) * c.output_every;
        if (snapshot_every && (done / snapshot_every + 1) * snapshot_every < next)
            next = (done / snapshot_every + 1) * snapshot_every;
        const uint64_t chunk = (next < c.steps ? next : c.steps) - done;
        uint64_t ran;
        CLP_TRY(advance(&r, chunk, config->stop_requested, &ran, &stopped, err));
        done += ran;
    }
    const double seconds = clp__now() - start - outputs;
    if (config->timing && !comm) {
        timing.wall = seconds + outputs;
        timing.outputs = outputs;
        timing.particles = s.n;
        *config->timing = timing;
    }
    if (csv) {
        st = clp__csv_close(csv, err);
        csv = NULL;
        CLP_TRY(st);
    }
    if (out_dir)
        CLP_TRY(write_summary(out_dir, s.n, row, stopped, seconds, err));
    /* the atoms within the search radius rc (1 + skin) of one, at the case's density */
    const double search = c.rc * (1.0 + clp_options_float(opts, "neighbors.skin"));
    const double listed = 4.0 / 3.0 * M_PI * search * search * search * clp__lj_density(&s);
    double bytes;
    CLP_TRY(traffic(&r, listed, &bytes, err));
    if (writer) {
        clp__run_result_set(config, seconds, (double)s.n * (double)done, done, clp__lj_columns + 1,
                            row + 1, 7);
        clp__run_result_cost(config, bytes, 0.0);
        clp__lj_strategy named;
        if (r.sys && !clp__lj_strategy_from_name(clp_options_enum(opts, "lj.strategy"), &named)) {
            char chosen[96]; /* what lj.strategy=auto chose, for the sweep's and bench's records */
            snprintf(chosen, sizeof chosen, "lj.strategy=%s neighbors.mode=%s",
                     clp__lj_strategy_name(clp__lj_system_layout(r.sys)->strategy),
                     clp__lj_system_mode(r.sys));
            clp__run_result_chosen(config, chosen);
        }
    }
    if (stopped)
        st = CLP_FAIL(err, CLP_INTERRUPTED, "stopped at step %llu of %llu%s",
                      (unsigned long long)done, (unsigned long long)c.steps,
                      out_dir ? "; diagnostics.csv ends with that step's row, and "
                                "summary.json marks the run as interrupted"
                              : "");
fail:
    clp__csv_close(csv, NULL);
    clp__vtp_series_close(&series);
    snapshot_free(&snap);
    clp__lj_system_close(r.sys);
    clp__lj_rank_close(r.rank);
    sample_free(&r.sample);
    clp__lj_state_free(&s);
    return st;
}

clp_status clp_lj_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                      const clp_run_config *config, clp_error *err) {
    return run(worker, NULL, NULL, opts, case_path, config, err);
}

clp_status clp__lj_run_rank(clp_worker *worker, clp_comm *comm, const double *weights,
                            const clp_options *opts, const char *case_path,
                            const clp_run_config *config, clp_error *err) {
    return run(worker, comm, weights, opts, case_path, config, err);
}

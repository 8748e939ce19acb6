/* The harmonic model, clpart's smallest: N independent particles in 3 dimensions, each an
 * oscillator x'' = -omega^2 x, integrated by velocity Verlet on the device (cl/harmonic). Its
 * buffers are its own, made by name; the driver runs it (src/run/driver.c), writing energy.csv
 * every output_every steps, then particles.csv and summary.json. The example of
 * docs/adding-a-model.md. */
#include "io/io.h"
#include "models/models.h"
#include "run/case_json.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const modules[] = {"core", "harmonic", NULL};
static const char *const files[] = {"harmonic/harmonic.cl"};
static const char *const columns[] = {"step", "time", "kinetic", "potential", "total", NULL};
static const char *const start_and_end[] = {
    "x0", "y0", "z0", "vx0", "vy0", "vz0", "x_end", "y_end", "z_end", "vx_end", "vy_end", "vz_end"};

typedef struct harmonic {
    clp_worker *worker;
    long long particles, steps, every, seed;
    size_t n;
    double omega, dt;
    float *x0, *v0, *x, *v, *energy; /* host copies: a float4 per particle, 2 energies */
    clp_buffer *pos, *vel, *energies;
    clp__csv *csv;
    double row[5], first_total, drift;
} harmonic;

static clp_status source(const clp_options *opts, const clp_device_info *dev, const char *case_path,
                         char **out, clp_error *err) {
    (void)dev, (void)case_path; /* the program depends on the options alone */
    const clp_program_spec spec = {"harmonic", modules, 2, files, 1, NULL, 0};
    return clp_source_assemble(opts, clp_data_dir(), &spec, out, err);
}

static clp_status read_case(const char *path, harmonic *m, clp_error *err) {
    static const char *const keys[] = {"model", "options", "presets",     "particles",
                                       "steps", "seed",    "output_every"};
    clp_status st = CLP_OK;
    json_t *root = NULL;
    m->seed = 1;
    m->every = 100;
    CLP_TRY(clp__case_parse(path, NULL, &root, err));
    CLP_TRY(clp__case_known_keys(root, "", keys, 7, path, err));
    CLP_TRY(clp__case_integer(root, "particles", "particles", 1, 100000000, true, NULL,
                              &m->particles, path, err));
    CLP_TRY(clp__case_integer(root, "steps", "steps", 1, 1000000000000LL, true, NULL, &m->steps,
                              path, err));
    CLP_TRY(clp__case_integer(root, "output_every", "output_every", 1, 1000000000000LL, false, NULL,
                              &m->every, path, err));
    CLP_TRY(
        clp__case_integer(root, "seed", "seed", 0, INT64_MAX, false, NULL, &m->seed, path, err));
fail:
    json_decref(root);
    return st;
}

/* Each particle's start: x0 and v0 uniform in [-1, 1]^3 and [-omega, omega]^3, from the seed. */
static void place(harmonic *m) {
    uint64_t counter = (uint64_t)m->seed;
    for (size_t i = 0; i < 4 * m->n; i++) {
        const bool w = i % 4 == 3; /* the fourth component stays 0 */
        m->x0[i] = w ? 0.0f : (float)(2.0 * clp__uniform01(&counter) - 1.0);
        m->v0[i] = w ? 0.0f : (float)(m->omega * (2.0 * clp__uniform01(&counter) - 1.0));
    }
}

/* The program, the buffers from the start, and the arguments that stay: all but the steps. */
static clp_status make_system(harmonic *m, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker *w = run->worker;
    char *text = NULL;
    const cl_uint n = (cl_uint)m->n;
    CLP_TRY(source(run->opts, NULL, NULL, &text, err));
    CLP_TRY(clp_worker_build_for(w, text, run->opts, run->config->cache, NULL, err));
    CLP_TRY(clp_worker_buffer_create(w, "harmonic.pos", 16 * m->n, &m->pos, err));
    CLP_TRY(clp_worker_buffer_create(w, "harmonic.vel", 16 * m->n, &m->vel, err));
    CLP_TRY(clp_worker_buffer_create(w, "harmonic.energy", 8 * m->n, &m->energies, err));
    CLP_TRY(clp_worker_buffer_write(w, m->pos, m->x0, err));
    CLP_TRY(clp_worker_buffer_write(w, m->vel, m->v0, err));
    CLP_TRY(clp_worker_set_arg_buffer(w, "harmonic_verlet", 0, m->pos, err));
    CLP_TRY(clp_worker_set_arg_buffer(w, "harmonic_verlet", 1, m->vel, err));
    CLP_TRY(clp_worker_set_arg(w, "harmonic_verlet", 2, sizeof n, &n, err));
    CLP_TRY(clp_worker_set_arg_buffer(w, "harmonic_energy", 0, m->pos, err));
    CLP_TRY(clp_worker_set_arg_buffer(w, "harmonic_energy", 1, m->vel, err));
    CLP_TRY(clp_worker_set_arg_buffer(w, "harmonic_energy", 2, m->energies, err));
    CLP_TRY(clp_worker_set_arg(w, "harmonic_energy", 3, sizeof n, &n, err));
fail:
    free(text);
    return st;
}

static clp_status write_energy(void *model, clp__run *run, clp_error *err);

static clp_status open_run(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    harmonic *m = model;
    CLP_TRY(read_case(run->case_path, m, err));
    m->worker = run->worker;
    m->n = (size_t)m->particles;
    m->omega = (float)clp__harmonic_omega_of(run->opts); /* as the device has them */
    m->dt = (float)clp__harmonic_dt_of(run->opts);
    CLP_REQUIRE(m->omega * m->dt < 2.0, err, CLP_CASE,
                "harmonic.omega x harmonic.dt is %g: velocity Verlet is stable below 2 only",
                m->omega * m->dt);
    clp__run_limit_steps(run, (uint64_t)m->steps, m->dt);
    const size_t field = 4 * m->n * sizeof(float); /* a float4 per particle */
    m->x0 = malloc(field);
    m->v0 = malloc(field);
    m->x = malloc(field);
    m->v = malloc(field);
    m->energy = malloc(field / 2);
    CLP_REQUIRE(m->x0 && m->v0 && m->x && m->v && m->energy, err, CLP_NOMEM,
                "out of host memory for %zu particles", m->n);
    place(m);
    CLP_TRY(make_system(m, run, err));
    run->particles = m->n;
    run->dt = m->dt;
    clp__run_add_output(run, (clp__run_output){.every = (uint64_t)m->every,
                                               .also = CLP__RUN_AT_LAST | CLP__RUN_ON_STOP,
                                               .write = write_energy});
fail:
    return st;
}

static clp_status start(void *model, clp__run *run, clp_error *err) {
    harmonic *m = model;
    return run->out_dir ? clp__csv_open_in(run->out_dir, "energy.csv", columns, 5, &m->csv, err)
                        : CLP_OK;
}

/* A row of energy.csv: the particles' energies from the device, summed in double. */
static clp_status write_energy(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    harmonic *m = model;
    double kinetic = 0, potential = 0;
    CLP_TRY(clp_launch(run->worker, "harmonic_energy", m->n, 0, NULL, err));
    CLP_TRY(clp_worker_buffer_read(run->worker, m->energies, m->energy, err));
    for (size_t i = 0; i < m->n; i++) {
        kinetic += m->energy[2 * i];
        potential += m->energy[2 * i + 1];
    }
    const double row[5] = {(double)run->step, run->time, kinetic, potential, kinetic + potential};
    memcpy(m->row, row, sizeof row);
    if (run->step == run->first)
        m->first_total = row[4];
    m->drift = fmax(m->drift, fabs(row[4] / m->first_total - 1.0));
    if (m->csv)
        CLP_TRY(clp__csv_row(m->csv, row, err));
    snprintf(run->note, sizeof run->note, "energy %.9g", row[4]);
fail:
    return st;
}

/* `steps` steps on the device, in launches of at most 65536 each. */
static clp_status verlet(void *model, uint64_t steps, clp_error *err) {
    clp_status st = CLP_OK;
    harmonic *m = model;
    for (uint64_t done = 0; done < steps;) {
        const cl_uint k = steps - done < 65536 ? (cl_uint)(steps - done) : 65536;
        CLP_TRY(clp_worker_set_arg(m->worker, "harmonic_verlet", 3, sizeof k, &k, err));
        CLP_TRY(clp_launch(m->worker, "harmonic_verlet", m->n, 0, NULL, err));
        done += k;
    }
fail:
    return st;
}

static clp_status advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                          clp_error *err) {
    return clp__run_paced(run, verlet, model, steps, ran, err);
}

/* particles.csv: each particle's start and end, one row each. */
static clp_status write_particles(const harmonic *m, const char *dir, clp_error *err) {
    double *rows = malloc(12 * m->n * sizeof *rows);
    if (!rows)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory for particles.csv");
    const float *from[4] = {m->x0, m->v0, m->x, m->v};
    for (size_t i = 0; i < m->n; i++)
        for (int f = 0; f < 4; f++)
            for (int c = 0; c < 3; c++)
                rows[12 * i + 3 * (size_t)f + (size_t)c] = from[f][4 * i + (size_t)c];
    const clp_status st =
        clp__csv_write_table(dir, "particles.csv", start_and_end, 12, rows, m->n, err);
    free(rows);
    return st;
}

static clp_status write_summary(const harmonic *m, const clp__run *run, clp_error *err) {
    json_t *root = clp__summary_begin("harmonic", m->n, run->step, run->stopping, run->seconds);
    clp__summary_values(root, columns + 1, m->row + 1, 4);
    clp__summary_number(root, "omega", m->omega);
    clp__summary_number(root, "dt", m->dt);
    clp__summary_number(root, "energy_drift", m->drift);
    return clp__summary_write(run->out_dir, "summary.json", root, err);
}

/* The last state read back, particles.csv, summary.json and the result. */
static clp_status finish(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    harmonic *m = model;
    st = clp__csv_close(m->csv, err);
    m->csv = NULL;
    CLP_TRY(st);
    CLP_TRY(clp_worker_buffer_read(run->worker, m->pos, m->x, err));
    CLP_TRY(clp_worker_buffer_read(run->worker, m->vel, m->v, err));
    CLP_INFO(CLP_LOG_RUN, "%zu oscillators, %llu steps of %g: energy %.9g, drift %.3g", m->n,
             (unsigned long long)run->step, m->dt, m->row[4], m->drift);
    if (run->out_dir) {
        CLP_TRY(write_particles(m, run->out_dir, err));
        CLP_TRY(write_summary(m, run, err));
    }
    clp__run_report(run, (double)m->n * (double)(run->step - run->first), 0, 0, m->row + 1, 4);
fail:
    return st;
}

/* The host's copies; the buffers stay with the worker, which releases them. */
static void close_run(void *model) {
    harmonic *m = model;
    clp__csv_close(m->csv, NULL);
    free(m->x0), free(m->v0), free(m->x), free(m->v), free(m->energy);
}

static const clp__run_model ops = {.name = "harmonic",
                                   .size = sizeof(harmonic),
                                   .open = open_run,
                                   .start = start,
                                   .advance = advance,
                                   .finish = finish,
                                   .close = close_run,
                                   .stopped_note = "energy.csv, particles.csv and summary.json "
                                                   "hold the run so far, marked as interrupted"};

static clp_status run(clp_worker *worker, const clp_options *opts, const char *case_path,
                      const clp_run_config *config, clp_error *err) {
    return clp__model_drive(&ops, worker, NULL, NULL, opts, case_path, config, err);
}

static const char *const outputs[] = {"energy.csv", "particles.csv", "summary.json", NULL};
static const char *const buffers[] = {"harmonic.pos", "harmonic.vel", "harmonic.energy", NULL};
static const clp_model_stage stages[] = {CLP__STAGE("harmonic_verlet",
                                                    "velocity Verlet steps: kick, drift, kick",
                                                    CLP_PHASE_INTEGRATION),
                                         CLP__STAGES_END};

const clp_model clp__harmonic_entry = {.name = "harmonic",
                                       .throughput_unit = "oscillator-steps/s",
                                       .steps_name = "steps",
                                       .simulated_time = true,
                                       .modules = modules,
                                       .owned_buffers = buffers,
                                       .stages = stages,
                                       .diagnostics = columns + 1,
                                       .outputs = outputs,
                                       .source = source,
                                       .run = run};

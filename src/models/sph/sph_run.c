/* The SPH model's part of the run driver (src/run/driver.c) on one device: the case set up on
 * the device (sph_setup.c), a step at a time (sph_step.c), with gauges, diagnostics and VTK
 * snapshots at their output times, and checkpoints. A split run's rank runs these through its
 * hooks (sph_split_run.c). */
#include "models/models.h"
#include "models/sph/sph_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How often a particle forced an early rebuild: a run where most rebuilds come early would
 * go faster with a wider skin. */
static void report_rebuilds(const sph_run *r) {
    const clp_run_timing *t = &r->timing;
    if (t->forced_rebuilds == 0)
        return;
    CLP_LOG(2 * t->forced_rebuilds > t->rebuilds ? CLP_LOG_WARN : CLP_LOG_INFO, CLP_LOG_RUN,
            "%llu of the %llu neighbour-list rebuilds came early, when the largest moves of "
            "the steps since the last added up to more than half the skin (%g m); a wider "
            "neighbors.skin or a smaller neighbors.every rebuilds on schedule",
            (unsigned long long)t->forced_rebuilds, (unsigned long long)t->rebuilds, r->half_skin);
}

static clp_status sample_gauges(void *model, clp__run *run, clp_error *err) {
    clp__sph_model *m = model;
    return clp__sph_gauges_sample(m->gauges, clp_grid_iteration_buffers(m->r.opts), run->time,
                                  run->step, err);
}

/* A snapshot in the output folder, unless the run continued wrote that step's. */
static clp_status write_snapshot(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_model *m = model;
    if (m->out.last_step == (int64_t)run->step)
        return CLP_OK;
    CLP_TRY(clp__sph_take_snapshot(&m->r, run->step, &m->snap, err));
    m->snapped = run->step;
    if (run->out_dir)
        CLP_TRY(clp__sph_outputs_write(&m->out, &m->snap, run->time, run->step, m->clock.dt, err));
fail:
    return st;
}

static clp_status write_checkpoint(void *model, clp__run *run, clp_error *err) {
    (void)run;
    clp__sph_model *m = model;
    return m->r.hooks->checkpoint(&m->r, m->checkpoint, m->identity, &m->clock, err);
}

/* The outputs in their order: gauges (every rank samples, rank 0 writes), snapshots, and
 * checkpoints at their interval, on request, on a stop and at the end. */
static void add_outputs(clp__sph_model *m, clp__run *run, double checkpoint_interval) {
    const clp_sph_case *c = &m->r.c;
    if (c->gauges.interval > 0 && m->r.hooks->samples_gauges(&m->r, run->out_dir))
        clp__run_add_output(run, (clp__run_output){.interval = c->gauges.interval,
                                                   .next = &m->clock.next_gauge,
                                                   .also = CLP__RUN_AT_LAST,
                                                   .write = sample_gauges});
    clp__run_add_output(run, (clp__run_output){.interval = c->output_interval,
                                               .next = &m->clock.next_output,
                                               .also = CLP__RUN_AT_LAST,
                                               .write = write_snapshot});
    if (run->config->out_dir)
        clp__run_add_output(run,
                            (clp__run_output){.interval = checkpoint_interval,
                                              .next = &m->clock.next_checkpoint,
                                              .also = CLP__RUN_AT_LAST | CLP__RUN_ON_STOP |
                                                      CLP__RUN_ON_REQUEST | CLP__RUN_AFTER_FIRST,
                                              .write = write_checkpoint});
}

/* The case (or the checkpoint continued) on this device, or this rank's slab of it. */
clp_status clp__sph_model_open(clp__sph_model *m, clp__run *run, const clp__sph_hooks *hooks,
                               struct clp__sph_split *split, clp_error *err) {
    clp_status st = CLP_OK;
    sph_run *r = &m->r;
    const clp_run_config *config = run->config;
    *r = (sph_run){.w = run->worker,
                   .opts = run->opts,
                   .timed = config->timing != NULL,
                   .writer = run->writer,
                   .hooks = hooks,
                   .split = split};
    m->restart.how = CLP__SPH_RESTART_NONE;
    m->out.last_step = -1;
    m->snapped = UINT64_MAX;
    CLP_TRY(clp__sph_load(r, run->case_path, err));
    CLP_TRY(clp__sph_fit_device(r, hooks->bound_device(r), err));
    /* a split run's identity names no device: its checkpoint may continue on others */
    CLP_TRY(clp__sph_identity(&r->c, &r->phys, r->opts, hooks->bound_device(r), r->particles,
                              &m->identity, err));
    if (config->restart)
        CLP_TRY(hooks->restart_open(r, config->restart, m->identity, &m->restart, err));
    CLP_TRY(clp__sph_setup(r, &m->restart, config, err));
    if (r->left_out) {
        run->quit = true;
        goto fail;
    }
    clp_worker_set_profiling(r->w, r->timed);
    const double interval = r->c.checkpoint_interval > 0 ? r->c.checkpoint_interval : INFINITY;
    m->clock = (clp__sph_clock){.dt = r->phys.dt, .next_checkpoint = interval};
    CLP_TRY(r->hooks->restart_apply(r, &m->restart, m->identity, &m->clock, err));
    clp__sph_restart_close(&m->restart);
    run->first = run->step = m->clock.step;
    run->time = m->clock.time;
    run->dt = m->clock.dt;
    run->variable_dt = true;
    run->particles = r->particles;
    clp__run_limit_time(run, r->c.end_time);
    clp__run_limit_steps(run, UINT64_MAX, 0.0);
    if (config->out_dir)
        snprintf(m->checkpoint, sizeof m->checkpoint, "%s/" CLP__SPH_CHECKPOINT, config->out_dir);
    add_outputs(m, run, interval);
fail:
    return st;
}

/* The output files, new or those of the run continued, and the gauges. */
clp_status clp__sph_model_start(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_model *m = model;
    sph_run *r = &m->r;
    const bool restarted = run->config->restart != NULL;
    if (run->out_dir && restarted)
        CLP_TRY(clp__sph_outputs_continue(&m->out, run->out_dir, run->step, err));
    else if (run->out_dir)
        CLP_TRY(clp__sph_outputs_open(&m->out, run->out_dir, err));
    if (r->c.gauges.interval > 0 && r->hooks->samples_gauges(r, run->out_dir))
        CLP_TRY(clp__sph_gauges_open(&r->c, r->w, clp__sph_gauge_dry_of(r->opts), run->out_dir,
                                     restarted, run->step, &m->gauges, err));
fail:
    return st;
}

/* Whether the turn after the coming step will only step, whatever that step's size (at most
 * the largest step, with a margin for its rounding to float on the device): no end, output,
 * gauge, checkpoint, step limit or request due then. `slack` as the driver's. */
static bool next_turn_only_steps(const clp__sph_model *m, const clp__run *run) {
    const clp__sph_clock *clock = &m->clock;
    const clp_run_config *config = run->config;
    const double slack = 1e-9 * clock->dt, next = clock->time + 1.001 * m->r.phys.dt;
    return next < run->end_time - slack && next < clock->next_output - slack &&
           (!m->gauges || next < clock->next_gauge - slack) &&
           (!config->out_dir || next < clock->next_checkpoint - slack) &&
           clock->step + 1 < run->end_step &&
           !(config->stop_requested && *config->stop_requested) &&
           !(config->checkpoint_requested && *config->checkpoint_requested);
}

clp_status clp__sph_model_step(clp__sph_model *m, clp__run *run, bool next_plain, uint64_t *ran,
                               clp_error *err) {
    clp_status st = CLP_OK;
    *ran = 0;
    CLP_TRY(clp__sph_step(&m->r, &m->clock, next_plain, err));
    m->clock.time += m->clock.dt;
    m->clock.step++;
    run->time = m->clock.time;
    run->dt = m->clock.dt;
    *ran = 1;
fail:
    return st;
}

/* One step: the steps vary. */
clp_status clp__sph_model_advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                                  clp_error *err) {
    (void)steps;
    clp__sph_model *m = model;
    return clp__sph_model_step(m, run, next_turn_only_steps(m, run), ran, err);
}

/* The timing, the report on rebuilds, summary.json and the result, of the state where the
 * run ended: read again when the last snapshot was not of it, after a stop or when the last
 * row was the continued run's (every rank, when split). */
clp_status clp__sph_model_finish(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_model *m = model;
    sph_run *r = &m->r;
    const clp_run_config *config = run->config;
    r->timing.wall = run->seconds + run->outputs;
    r->timing.outputs = run->outputs;
    r->timing.particles = r->particles;
    if (run->writer)
        report_rebuilds(r);
    if (r->timed) /* the phases' bytes, or every rank's times */
        CLP_TRY(r->hooks->timing(r, err));
    if (config->timing && run->writer)
        *config->timing = r->timing;
    /* the same on every rank: only rank 0 has config->result, and a run that ended at its
       last step has its snapshot */
    const bool summed = config->out_dir || (run->last && config->result);
    if (m->snapped != run->step && summed)
        CLP_TRY(clp__sph_take_snapshot(r, run->step, &m->snap, err));
    const clp__sph_snapshot *snap = &m->snap;
    const double values[] = {run->time,  snap->kinetic, snap->mass,
                             snap->vmax, snap->front,   (double)snap->excluded};
    if (run->out_dir)
        CLP_TRY(clp__sph_summary_write(run->out_dir, r->particles, run->step, values, run->stopping,
                                       run->seconds, err));
    const uint64_t steps = run->step - run->first;
    if (run->last) /* a stopped run may not have read its state */
        clp__run_report(run, (double)r->particles * (double)steps,
                        clp__sph_run_bytes(r->opts, &r->geo, r->particles,
                                           clp__sph_listed_neighbours(r), steps,
                                           r->timing.rebuilds),
                        0.0, values, sizeof values / sizeof values[0]);
fail:
    return st;
}

void clp__sph_model_close(void *model) {
    clp__sph_model *m = model;
    free(m->identity);
    clp__sph_restart_close(&m->restart);
    clp__sph_snapshot_free(&m->snap);
    clp__sph_gauges_close(m->gauges);
    clp__sph_outputs_close(&m->out);
    clp_grid_destroy(m->r.grid);
    clp_options_destroy(m->r.fitted_opts);
}

static clp_status open_alone(void *model, clp__run *run, clp_error *err) {
    return clp__sph_model_open(model, run, &clp__sph_alone, NULL, err);
}

static const clp__run_model sph_model_ops = {.name = "sph",
                                             .size = sizeof(clp__sph_model),
                                             .open = open_alone,
                                             .start = clp__sph_model_start,
                                             .advance = clp__sph_model_advance,
                                             .finish = clp__sph_model_finish,
                                             .close = clp__sph_model_close};

clp_status clp_sph_run(clp_worker *w, const clp_options *opts, const char *case_path,
                       const clp_run_config *config, clp_error *err) {
    clp_options *resolved = NULL;
    clp_status st = clp__sph_resolve_format(opts, &resolved, err);
    if (st == CLP_OK)
        st = clp__model_drive(&sph_model_ops, w, NULL, NULL, resolved, case_path, config, err);
    clp_options_destroy(resolved);
    return st;
}

/* The one time loop: the model's outputs when their triggers fire, the progress line, then
 * the steps to the next trigger, until the run reaches a limit, its goal or a stop request. */
#include "run/driver.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* CLP_USAGE when the config asks of the model what its registry entry says it cannot do: a
 * restart (no checkpoint), timings (not profiled), a simulated-time limit. */
static clp_status check_flags(const clp_run_config *config, const clp_model *model,
                              clp_error *err) {
    if (config->restart && !model->checkpoint)
        return CLP_FAIL(err, CLP_USAGE,
                        "--restart is not supported for model %s: its runs write no checkpoints",
                        model->name);
    if (config->timing && !model->profiled)
        return CLP_FAIL(err, CLP_USAGE,
                        "--timing is not supported for model %s: its steps are not profiled; the "
                        "rate line at the end gives its speed",
                        model->name);
    if (config->max_time > 0 && !model->simulated_time)
        return CLP_FAIL(err, CLP_USAGE,
                        "--time is not supported for model %s: it has no simulated time; limit "
                        "its %s with --steps",
                        model->name, model->steps_name);
    return CLP_OK;
}

uint64_t clp__run_limit_steps(clp__run *run, uint64_t steps, double dt) {
    const clp_run_config *config = run->config;
    if (config->max_steps && config->max_steps < steps - run->first)
        steps = run->first + config->max_steps;
    if (dt > 0 && config->max_time > 0 && config->max_time < (double)steps * dt)
        steps = (uint64_t)floor(config->max_time / dt + 1e-9);
    return run->end_step = steps;
}

void clp__run_limit_time(clp__run *run, double end_time) {
    const double limit = run->config->max_time;
    run->end_time = limit > 0 && limit < end_time ? limit : end_time;
}

void clp__run_add_output(clp__run *run, clp__run_output output) {
    if (run->n_outputs < CLP__RUN_MOST_OUTPUTS)
        run->output[run->n_outputs++] = output;
}

clp_status clp__run_paced(clp__run *run, clp__pacer_steps step, void *system, uint64_t steps,
                          uint64_t *ran, clp_error *err) {
    bool stopped = false;
    const clp_status st = clp__pacer_run(&run->pacer, step, system, steps, ran, &stopped, err);
    run->stopping = run->stopping || stopped;
    return st;
}

void clp__run_report(const clp__run *run, double work, double bytes, double flops,
                     const double *values, size_t n) {
    clp_run_result *r = run->config->result;
    if (!r || !run->writer)
        return;
    *r = (clp_run_result){.seconds = run->seconds,
                          .work = work,
                          .steps = run->step - run->first,
                          .bytes = bytes,
                          .flops = flops};
    const char *const *names = run->entry->diagnostics;
    for (size_t i = 0; i < n && i < CLP_RUN_MAX_VALUES && names[i]; i++) {
        snprintf(r->values[r->n_values].name, sizeof r->values[0].name, "%s", names[i]);
        r->values[r->n_values++].value = values[i];
    }
}

void clp__run_result_chosen(const clp_run_config *config, const char *chosen) {
    if (config->result)
        snprintf(config->result->chosen, sizeof config->result->chosen, "%s", chosen);
}

/* A hair of simulated time, so that rounding in a sum of steps never skips a time due. */
static double slack(const clp__run *run) {
    return 1e-9 * run->dt;
}

/* The first time after `time` on the schedule next, next + interval, next + 2 interval, ...
 * Computed, not stepped through: an interval far below the time (1e-300) would otherwise loop
 * for ever. Where the interval is under the time's resolution, the next step is due. */
static double schedule_after(double next, double interval, double time) {
    if (next > time)
        return next;
    const double after = next + (floor((time - next) / interval) + 1) * interval;
    return after > time ? after : nextafter(time, INFINITY);
}

static bool output_due(const clp__run *run, const clp__run_output *o) {
    if ((o->also & CLP__RUN_ON_STOP) && run->stopping)
        return true;
    if ((o->also & CLP__RUN_AFTER_FIRST) && run->step == run->first)
        return false;
    return (o->every && run->step % o->every == 0) ||
           (o->next && run->time >= *o->next - slack(run)) ||
           ((o->also & CLP__RUN_AT_LAST) && run->last) ||
           ((o->also & CLP__RUN_ON_REQUEST) && run->checkpoint);
}

/* This turn's requests, and the outputs they and the schedules call for. */
static clp_status write_outputs(const clp__run_model *model, void *state, clp__run *run,
                                clp_error *err) {
    clp_status st = CLP_OK;
    const clp_run_config *config = run->config;
    bool stop = config->stop_requested && *config->stop_requested;
    run->checkpoint = config->checkpoint_requested && *config->checkpoint_requested;
    if (run->comm && model->requests)
        CLP_TRY(model->requests(state, run, &stop, &run->checkpoint, err));
    run->last = run->step >= run->end_step || run->time >= run->end_time - slack(run);
    run->stopping = (run->stopping || stop) && !run->last; /* a run at its end is complete */
    for (size_t i = 0; i < run->n_outputs; i++) {
        clp__run_output *o = &run->output[i];
        if (!output_due(run, o))
            continue;
        if (o->next) /* first: a checkpoint records the schedule */
            *o->next = schedule_after(*o->next, o->interval, run->time + slack(run));
        CLP_TRY(o->write(state, run, err));
        if ((o->also & CLP__RUN_ON_REQUEST) && run->checkpoint && config->checkpoint_requested)
            *config->checkpoint_requested = 0;
    }
    if (run->done) { /* at its goal: complete, even if a stop was asked meanwhile */
        run->last = true;
        run->stopping = false;
    }
fail:
    return st;
}

/* Steps to the next output due by steps, or to the end: one where the steps vary. */
static uint64_t steps_to_next(const clp__run *run) {
    if (run->variable_dt)
        return 1;
    uint64_t next = run->end_step;
    for (size_t i = 0; i < run->n_outputs; i++) {
        const uint64_t every = run->output[i].every;
        if (every && (run->step / every + 1) * every < next)
            next = (run->step / every + 1) * every;
    }
    return next - run->step;
}

/* The stepping rate, outputs left out. */
static double rate(const clp__run *run) {
    const double seconds = clp__now() - run->started - run->outputs;
    const uint64_t steps = run->step - run->first;
    return steps && seconds > 0 ? (double)run->particles * (double)steps / seconds : 0.0;
}

static void progress_start(const clp__run *run, clp__progress *p) {
    const double end = !run->entry->simulated_time ? (double)run->end_step
                       : run->variable_dt          ? run->end_time
                                                   : (double)run->end_step * run->dt;
    clp__progress_init(p, run->config->progress, run->time, end, CLP__PROGRESS_PLAIN_INTERVAL);
    p->steps_only = !run->entry->simulated_time;
}

static void progress_show(const clp__run *run, clp__progress *p) {
    snprintf(p->note, sizeof p->note, "%s", run->note);
    if (run->last || run->stopping)
        clp__progress_finish(p, run->step, run->time, rate(run));
    else
        clp__progress_update(p, run->step, run->time, rate(run));
}

/* Turns of outputs and steps until the run ends (or, on a split rank, its part does). */
static clp_status loop(const clp__run_model *model, void *state, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    clp__progress progress;
    const bool shows = run->writer && run->config->progress;
    if (shows)
        progress_start(run, &progress);
    run->started = clp__now();
    for (;;) {
        const double outputs_start = clp__now();
        CLP_TRY(write_outputs(model, state, run, err));
        run->outputs += clp__now() - outputs_start;
        if (shows)
            progress_show(run, &progress);
        if (run->last || run->stopping)
            break;
        uint64_t ran;
        CLP_TRY(model->advance(state, run, steps_to_next(run), &ran, err));
        if (run->quit)
            break;
        run->step += ran;
        if (!run->variable_dt)
            run->time = run->entry->simulated_time ? (double)run->step * run->dt : run->step;
    }
    run->seconds = clp__now() - run->started - run->outputs;
fail:
    return st;
}

/* CLP_INTERRUPTED, saying where the run stopped and what it has written. */
static clp_status interrupted(const clp__run_model *model, const clp__run *run, clp_error *err) {
    const clp_run_config *config = run->config;
    char where[160], wrote[2048] = "";
    const char *steps = run->entry->steps_name;
    if (run->variable_dt)
        snprintf(where, sizeof where, "step %llu, t = %.9g s of %g", (unsigned long long)run->step,
                 run->time, run->end_time);
    else /* "iterations" -> "iteration" */
        snprintf(where, sizeof where, "%.*s %llu of %llu", (int)strlen(steps) - 1, steps,
                 (unsigned long long)run->step, (unsigned long long)run->end_step);
    if (config->out_dir && run->entry->checkpoint)
        snprintf(wrote, sizeof wrote,
                 "; checkpoint written to %s/%s: continue with --restart %s/%s", config->out_dir,
                 run->entry->checkpoint, config->out_dir, run->entry->checkpoint);
    else if (config->out_dir && model->stopped_note)
        snprintf(wrote, sizeof wrote, "; %s", model->stopped_note);
    return CLP_FAIL(err, CLP_INTERRUPTED, "stopped at %s%s", where, wrote);
}

static clp_status stop_check(const clp_run_config *config, clp_error *err) {
    if (!config->stop_requested || !*config->stop_requested)
        return CLP_OK;
    return CLP_FAIL(err, CLP_INTERRUPTED,
                    "stopped while setting up, before the first step: no output");
}

clp_status clp__run_drive(const clp__run_model *model, const clp_model *entry, clp_worker *worker,
                          clp__comm *comm, const double *weights, const clp_options *opts,
                          const char *case_path, const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    const bool writer = !comm || clp__comm_rank(comm) == 0;
    clp__run run = {.worker = worker,
                    .comm = comm,
                    .weights = weights,
                    .opts = opts,
                    .case_path = case_path,
                    .config = config,
                    .entry = entry,
                    .writer = writer,
                    .out_dir = writer ? config->out_dir : NULL,
                    .end_step = UINT64_MAX,
                    .end_time = INFINITY};
    void *state = calloc(1, model->size);
    CLP_REQUIRE_ALLOC(state, err);
    CLP_TRY(check_flags(config, entry, err));
    CLP_TRY(model->open(state, &run, err));
    if (run.quit)
        goto fail;
    if (!comm) /* ranks stop together, at a step */
        CLP_TRY(stop_check(config, err));
    clp__pacer_init(&run.pacer, worker, config->stop_requested);
    if (model->start)
        CLP_TRY(model->start(state, &run, err));
    CLP_TRY(loop(model, state, &run, err));
    if (run.quit)
        goto fail;
    CLP_TRY(model->finish(state, &run, err));
    if (run.stopping)
        st = interrupted(model, &run, err);
fail:
    if (state)
        model->close(state);
    free(state);
    clp_worker_set_profiling(worker, false); /* as a model's --timing may have set it */
    return st;
}

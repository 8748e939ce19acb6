/* clpart run CASE: runs a case (model sph, lj, pso, repulsive or search) on the selected device
 * to its end, writing diagnostics (for PSO the convergence, the best position and a summary;
 * for repulsive particles the start and optimised designs, the energies and a summary; for
 * the neighbour search a summary), and for SPH snapshots and checkpoints, to --out DIR
 * (default: out/<case name>); --restart FILE continues an SPH run from a checkpoint; --timing
 * prints the device time of each phase per step (SPH, neighbour search); --steps N and
 * --time T end it sooner. It ends with the rate in the model's throughput unit. SIGUSR1 asks
 * for an SPH checkpoint at the next step. The first SIGINT or SIGTERM stops the run after its
 * current step with a checkpoint (SPH) or the outputs so far, and the exit status is 128 +
 * the signal's number; a second one ends the process at once. --devices SEL,...|all[:NAME] splits
 * an SPH case among several devices (a thread each), --weights W,... (or auto) by their speeds;
 * under mpirun each process runs one device's part. The output folder gets run.json, the record of
 * how it was made (run_record.h). */
#include "cli_case.h"
#include "run_devices.h"
#include "run_record.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The device time per step of each phase that the model's stages have under these options,
 * in milliseconds, its share, and where the model counts its least memory traffic, the rate
 * that traffic ran at (to set against the device's copy bandwidth: clpart bench). */
static void print_timing(const clp_model *model, const clp_options *opts, const clp_run_timing *t) {
    const struct {
        const char *name;
        double seconds;
    } phases[CLP_PHASE_COUNT] = {
        [CLP_PHASE_SORT] = {"sort (keys, sort, reorder)", t->keys + t->sort + t->reorder},
        [CLP_PHASE_LIST] = {"neighbour list", t->list},
        [CLP_PHASE_BOUNDARY] = {"boundary (mDBC)", t->boundary},
        [CLP_PHASE_DENSITY] = {"density", t->density},
        [CLP_PHASE_FORCES] = {"forces", t->forces},
        [CLP_PHASE_TIME_STEP] = {"time step", t->time_step},
        [CLP_PHASE_INTEGRATION] = {"integration", t->integration},
    };
    bool shown[CLP_PHASE_COUNT] = {false};
    for (const clp_model_stage *s = model->stages; s->kernel || s->what; s++)
        shown[s->phase] |= clp_model_stage_runs(s, opts);
    double device = 0;
    for (int i = 0; i < CLP_PHASE_COUNT; i++)
        device += phases[i].seconds;
    const double steps = t->steps ? (double)t->steps : 1.0;
    printf("timing: %llu steps of %llu particles, %llu rebuilds (%llu early); device ms per "
           "step:\n",
           (unsigned long long)t->steps, (unsigned long long)t->particles,
           (unsigned long long)t->rebuilds, (unsigned long long)t->forced_rebuilds);
    for (int i = 0; i < CLP_PHASE_COUNT; i++) {
        if (!shown[i])
            continue;
        printf("timing: %-28s %10.4f ms %5.1f %%", phases[i].name, 1e3 * phases[i].seconds / steps,
               device > 0 ? 100 * phases[i].seconds / device : 0.0);
        if (t->bytes[i] > 0 && phases[i].seconds > 0)
            printf(" %8.1f GB/s (%.0f B a particle)", 1e-9 * t->bytes[i] / phases[i].seconds,
                   t->bytes[i] / (steps * (double)t->particles));
        printf("\n");
        if (i == CLP_PHASE_SORT)
            printf("timing:   keys %.4f, sort %.4f, reorder %.4f ms\n", 1e3 * t->keys / steps,
                   1e3 * t->sort / steps, 1e3 * t->reorder / steps);
    }
    printf("timing: %-28s %10.4f ms\n", "device total", 1e3 * device / steps);
    printf("timing: %-28s %10.4f ms (profiled; outputs excluded)\n", "wall",
           1e3 * (t->wall - t->outputs) / steps);
    if (t->exchange > 0) /* split: rank 0's host time in halo refreshes, device work overlapping */
        printf("timing: %-28s %10.4f ms (host)\n", "halo exchange", 1e3 * t->exchange / steps);
    printf("timing: %-28s %10.4f s in all\n", "outputs and checkpoints", t->outputs);
    if (t->ranks > 0)
        printf("timing: rank  particles  device ms  forces ms  lists ms  exchange ms  waited ms "
               " rebuilds ms (per step; the last three on the host)\n");
    for (int k = 0; k < t->ranks; k++) {
        const clp_rank_timing *r = &t->rank[k];
        printf("timing: %4d %10llu %10.4f %10.4f %9.4f %12.4f %10.4f %12.4f\n", k,
               (unsigned long long)r->particles, 1e3 * r->device / steps, 1e3 * r->forces / steps,
               1e3 * r->list / steps, 1e3 * r->exchange / steps, 1e3 * r->waited / steps,
               1e3 * r->rebuilds / steps);
    }
}

/* "done: DIR/a, DIR/b": the model's outputs that the run wrote (LJ snapshots are optional). */
static void print_outputs(const clp_model *model, const char *out_dir) {
    printf("done:");
    for (int i = 0, shown = 0; model->outputs[i]; i++) {
        const size_t size = strlen(out_dir) + strlen(model->outputs[i]) + 2;
        char *path = malloc(size);
        if (path)
            snprintf(path, size, "%s/%s", out_dir, model->outputs[i]);
        if (!path || access(path, F_OK) == 0)
            printf("%s %s/%s", shown++ ? "," : "", out_dir, model->outputs[i]);
        free(path);
    }
    printf("\n");
}

/* run_devices_request.started: run.json names the devices of a split run. */
static clp_status record_started(void *rec, const clp_device_info *const *devices, size_t n,
                                 clp_error *err) {
    return run_record_start(rec, devices, n, true, err);
}

/* The models clpart run runs, as "sph, lj, pso, repulsive and search". */
static const char *runnable_models(void) {
    static char list[128];
    size_t count, n = 0, listed = 0;
    const clp_model *models = clp_models(&count);
    for (size_t i = 0; i < count; i++)
        n += models[i].run != NULL;
    list[0] = '\0';
    for (size_t i = 0; i < count; i++)
        if (models[i].run) {
            const char *sep = listed == 0 ? "" : listed + 1 == n ? " and " : ", ";
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", sep, models[i].name);
            listed++;
        }
    return list;
}

/* An MPI job whose run failed ends on every rank once this one has said why (MPI_Finalize
 * would wait for ever on a rank that hangs); nothing for a run that went well or alone. */
static void end_failed_job(int rc) {
    if (rc == CLP_EXIT_OK)
        return;
    fflush(stdout);
    clp_comm_mpi_end_failed(rc);
}

int cmd_run(int argc, char **argv, const clp_cli *cli) {
    clp_error err = CLP_ERROR_INIT;
    const char *out_dir = NULL, *restart = NULL;
    bool timed = false;
    run_devices_request split = {0};
    uint64_t max_steps = 0;
    double max_time = 0;
    /* --out DIR, --restart FILE, --timing, --steps N and --time T are this command's own; the
     * rest is the case and options */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out_dir = argv[++i];
        else if (!strcmp(argv[i], "--restart") && i + 1 < argc)
            restart = argv[++i];
        else if (!strcmp(argv[i], "--devices") && i + 1 < argc)
            split.devices = argv[++i];
        else if (!strcmp(argv[i], "--weights") && i + 1 < argc)
            split.weights = argv[++i];
        else if (!strcmp(argv[i], "--timing"))
            timed = true;
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) {
            if (cli_positive("--steps", argv[++i], true, &max_steps, NULL, &err) != CLP_OK)
                return cli_report(&err);
        } else if (!strcmp(argv[i], "--time") && i + 1 < argc) {
            if (cli_positive("--time", argv[++i], false, NULL, &max_time, &err) != CLP_OK)
                return cli_report(&err);
        } else
            argv[kept++] = argv[i];
    }
    /* flags that would change nothing are refused, not ignored */
    if (split.devices && !run_devices_wanted(&split))
        CLP_FAIL_AT(&err, CLP_USAGE, "command line", -1, -1,
                    "--devices '%s' names no split: it takes two or more devices (or all); one "
                    "device is --device",
                    split.devices);
    else if (split.weights && !run_devices_wanted(&split))
        CLP_FAIL_AT(&err, CLP_USAGE, "command line", -1, -1,
                    "--weights shares a case out among the devices of --devices (or MPI ranks), "
                    "and there are none");
    if (err.status != CLP_OK)
        return cli_report(&err);
    cli_case c;
    if (cli_case_load(kept, argv, true, &c, &err) != CLP_OK)
        return cli_report(&err);
    /* the model's entry runs it; anything else is refused before a device is opened */
    const char *model_name = clp_options_model(c.options);
    const clp_model *model = NULL;
    if (clp_model_find(model_name, &model, &err) != CLP_OK || !model->run) {
        clp_error_clear(&err);
        if (model)
            CLP_FAIL_AT(&err, CLP_CASE, c.case_path, -1, -1,
                        "clpart run runs models %s, not '%s' (use %s)", runnable_models(),
                        model->name, model->runner);
        else if (model_name)
            CLP_FAIL_AT(&err, CLP_CASE, c.case_path, -1, -1, "clpart run runs models %s, not '%s'",
                        runnable_models(), model_name);
        else
            CLP_FAIL_AT(&err, CLP_CASE, c.case_path, -1, -1,
                        "the case names no model; clpart run runs models %s", runnable_models());
        cli_case_free(&c);
        return cli_report(&err);
    }
    char *default_dir = NULL;
    if (!out_dir) { /* out/<case file name without .json> */
        char *stem = cli_file_stem(c.case_path);
        const size_t size = stem ? strlen(stem) + 5 : 0;
        default_dir = stem ? malloc(size) : NULL;
        if (default_dir)
            snprintf(default_dir, size, "out/%s", stem);
        free(stem);
        if (!default_dir) {
            cli_case_free(&c);
            CLP_FAIL(&err, CLP_NOMEM, "out of host memory");
            return cli_report(&err);
        }
        out_dir = default_dir;
    }
    cli_handle_signals(); /* before the device is opened: a stop asked during the build counts */
    cli_session s = {0};
    const bool several = run_devices_wanted(&split);
    clp_status st = several ? CLP_OK : cli_session_open(cli, &s, &err);
    cli_keep_checkpoint_signal();
    clp_run_timing timing = {0};
    clp_run_result result = {0};
    clp_run_config config = {.out_dir = out_dir,
                             .max_steps = max_steps,
                             .max_time = max_time,
                             .result = &result,
                             .progress = stderr,
                             .restart = restart,
                             .cache = s.cache,
                             .checkpoint_requested = &cli_checkpoint_requested,
                             .stop_requested = &cli_stop_signal,
                             .timing = timed ? &timing : NULL};
    bool reports = true; /* under mpirun, rank 0 speaks for the run */
    run_record record = {0};
    if (st == CLP_OK && !several) /* a split run takes the defaults on every device */
        st = cli_case_tune(&c, cli, clp_worker_device(s.worker), &err);
    if (st == CLP_OK)
        st = run_record_begin(&record, out_dir, cli, &c, model, &config, &err);
    split.started = record_started;
    split.user = &record;
    if (st == CLP_OK && several) {
        st = run_devices(model, &c, cli, &split, &config, &reports, &err);
    } else if (st == CLP_OK) {
        const clp_device_info *dev = clp_worker_device(s.worker);
        st = run_record_start(&record, &dev, 1, false, &err);
        if (st == CLP_OK)
            st = model->run(s.worker, c.options, c.case_path, &config, &err);
    }
    clp_error record_err = CLP_ERROR_INIT; /* the run's own error comes first */
    if (run_record_end(&record, st, &err, &result, model->throughput_unit, &record_err) != CLP_OK &&
        st == CLP_OK) {
        err = record_err;
        st = err.status;
    }
    if (!reports) {
        const int rc = st == CLP_OK || st == CLP_INTERRUPTED ? CLP_EXIT_OK : cli_report(&err);
        cli_case_free(&c);
        free(default_dir);
        end_failed_job(rc);
        return st == CLP_INTERRUPTED ? 128 + cli_stop_signal : rc;
    }
    if (st == CLP_OK)
        print_outputs(model, out_dir);
    if (st == CLP_OK && result.seconds > 0)
        printf("rate: %.4g %s (%llu steps in %.3f s, outputs excluded)\n",
               result.work / result.seconds, model->throughput_unit,
               (unsigned long long)result.steps, result.seconds);
    if (st == CLP_OK && timed)
        print_timing(model, c.options, &timing);
    if (st == CLP_INTERRUPTED) { /* not an error: what was asked, and where it stands */
        fprintf(stderr, "clpart: interrupted by %s: %s\n",
                cli_stop_signal == SIGINT ? "SIGINT" : "SIGTERM", err.message);
        cli_session_close(&s);
        cli_case_free(&c);
        free(default_dir);
        return 128 + cli_stop_signal;
    }
    int rc = cli_finish(st, &err, &s, cli);
    cli_session_close(&s);
    cli_case_free(&c);
    free(default_dir);
    end_failed_job(rc);
    return rc;
}

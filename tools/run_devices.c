/* clpart run on several devices. In one process each device gets a worker and a thread; under
 * mpirun each process takes the device of its place among the processes on its host, from
 * --devices or else every device of the type --device selects. */
#include "run_devices.h"

#include "dist/comm.h"
#include "sweep_engine.h"

#include <stdlib.h>
#include <string.h>

bool run_devices_wanted(const run_devices_request *req) {
    return (req->devices && (strchr(req->devices, ',') || sweep_selects_all(req->devices))) ||
           clp_comm_mpi_launched();
}

/* --weights: one positive number per rank (or auto: probed). */
static clp_status parse_weights(const char *text, int ranks, double *weights, clp_error *err) {
    clp_status st = CLP_OK;
    char *copy = strdup(text), *save = NULL, *end;
    int n = 0;
    CLP_REQUIRE_ALLOC(copy, err);
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        const double value = strtod(w, &end);
        CLP_REQUIRE(n < ranks, err, CLP_USAGE, "--weights gives more weights than the %d devices",
                    ranks);
        CLP_REQUIRE(*end == '\0' && value > 0, err, CLP_USAGE,
                    "--weights: \"%s\" is not a positive number", w);
        weights[n++] = value;
    }
    CLP_REQUIRE(n == ranks, err, CLP_USAGE, "--weights gives %d weights for %d devices", n, ranks);
fail:
    free(copy);
    return st;
}

static bool automatic(const run_devices_request *req) {
    return req->weights && strcmp(req->weights, "auto") == 0;
}

/* --weights auto: the device's copy bandwidth, from a short probe. */
static clp_status probe_weight(clp_worker *worker, const cli_case *c, clp_cache *cache, int rank,
                               double *weight, clp_error *err) {
    clp_status st = clp_probe_speed(worker, c->options, cache, weight, err);
    if (st == CLP_OK)
        CLP_INFO(CLP_LOG_RUN, "device rank %d (%s): copy bandwidth %.0f GB/s (--weights auto)",
                 rank, clp_worker_device(worker)->name, 1e-9 * *weight);
    return st;
}

/* The devices an MPI process chooses from: --devices, else those of the selected one's type
 * and platform (one implementation: CLPART_DEVICE=pocl must not give rank 1 rusticl's CPU). */
static clp_status mpi_pool(const run_devices_request *req, const clp_cli *cli, sweep_devices *d,
                           clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(sweep_devices_select(d, req->devices, false, cli, err));
    cli_keep_checkpoint_signal();
    if (req->devices)
        return CLP_OK;
    const clp_device_info *chosen = d->devices[0];
    d->n = 0;
    for (size_t i = 0; i < clp_device_list_count(d->list) && d->n < SWEEP_MAX_DEVICES; i++) {
        const clp_device_info *other = clp_device_list_get(d->list, i);
        if (other->type == chosen->type && other->platform == chosen->platform)
            d->devices[d->n++] = other;
    }
fail:
    return st;
}

/* req->started on rank 0 with every rank's device, gathered: a copy of each rank's
 * description, its handles and extensions left out. */
static clp_status mpi_started(const run_devices_request *req, clp_comm *comm,
                              const clp_device_info *mine, clp_error *err) {
    clp_status st = CLP_OK;
    clp_device_info own = *mine, *all = NULL;
    const clp_device_info *devices[CLP_MAX_RANKS];
    size_t offsets[CLP_MAX_RANKS + 1];
    own.platform = NULL;
    own.device = NULL;
    own.extensions = NULL;
    CLP_TRY(clp__comm_gather(comm, &own, sizeof own, (void **)&all, offsets, err));
    if (clp_comm_rank(comm) == 0) {
        const size_t n = offsets[clp_comm_size(comm)] / sizeof *all;
        for (size_t i = 0; i < n; i++)
            devices[i] = &all[i];
        st = req->started(req->user, devices, n, err);
    }
fail:
    free(all);
    return st;
}

static clp_status run_mpi(const clp_model *model, const cli_case *c, const clp_cli *cli,
                          const run_devices_request *req, const clp_run_config *config, bool *rank0,
                          clp_error *err) {
    clp_status st = CLP_OK;
    clp_comm *comm = NULL;
    clp_worker *worker = NULL;
    clp_cache *cache = NULL;
    sweep_devices d = {0};
    double weights[CLP_MAX_RANKS];
    CLP_TRY(clp_comm_mpi_open(&comm, err));
    *rank0 = clp_comm_rank(comm) == 0;
    st = mpi_pool(req, cli, &d, err);
    if (st == CLP_OK && req->weights && !automatic(req))
        st = parse_weights(req->weights, clp_comm_size(comm), weights, err);
    int local_rank, local_size;
    clp_comm_local(comm, &local_rank, &local_size);
    if (st == CLP_OK)
        st = clp_worker_create(d.devices[(size_t)local_rank % d.n], &worker, err);
    if (st == CLP_OK)
        st = cli_open_cache(cli, &cache, err);
    double speed = 0;
    if (st == CLP_OK && automatic(req))
        st = probe_weight(worker, c, cache, clp_comm_rank(comm), &speed, err);
    if (st != CLP_OK) { /* the other ranks must not wait for this one */
        clp_comm_abort(comm, err);
        goto fail;
    }
    if (automatic(req))
        CLP_TRY(clp_comm_share(comm, speed, weights, err));
    if (req->started) {
        st = mpi_started(req, comm, clp_worker_device(worker), err);
        if (st != CLP_OK) { /* as above: on rank 0, which the others would wait for */
            clp_comm_abort(comm, err);
            goto fail;
        }
    }
    clp_run_config mine = *config;
    mine.cache = cache;
    if (!*rank0)
        mine.progress = NULL;
    st = clp_run_rank(model, comm, worker, req->weights ? weights : NULL, c->options, c->case_path,
                      &mine, err);
fail:
    clp_cache_close(cache);
    clp_worker_destroy(worker);
    sweep_devices_free(&d);
    clp_comm_close(comm);
    return st;
}

static clp_status run_threads(const clp_model *model, const cli_case *c, const clp_cli *cli,
                              const run_devices_request *req, const clp_run_config *config,
                              clp_error *err) {
    clp_status st = CLP_OK;
    sweep_devices d = {0};
    clp_worker *workers[SWEEP_MAX_DEVICES] = {NULL};
    clp_cache *cache = NULL;
    double weights[SWEEP_MAX_DEVICES];
    CLP_TRY(sweep_devices_select(&d, req->devices, true, cli, err));
    cli_keep_checkpoint_signal();
    if (req->weights && !automatic(req))
        CLP_TRY(parse_weights(req->weights, (int)d.n, weights, err));
    for (size_t k = 0; k < d.n; k++)
        CLP_TRY(clp_worker_create(d.devices[k], &workers[k], err));
    CLP_TRY(cli_open_cache(cli, &cache, err));
    for (size_t k = 0; automatic(req) && k < d.n; k++)
        CLP_TRY(probe_weight(workers[k], c, cache, (int)k, &weights[k], err));
    if (req->started)
        CLP_TRY(req->started(req->user, d.devices, d.n, err));
    clp_run_config shared = *config;
    shared.cache = cache;
    st = clp_run_split(model, workers, (int)d.n, req->weights ? weights : NULL, c->options,
                       c->case_path, &shared, err);
fail:
    clp_cache_close(cache);
    for (size_t k = 0; k < d.n; k++)
        clp_worker_destroy(workers[k]);
    sweep_devices_free(&d);
    return st;
}

clp_status run_devices(const clp_model *model, const cli_case *c, const clp_cli *cli,
                       const run_devices_request *req, const clp_run_config *config, bool *rank0,
                       clp_error *err) {
    *rank0 = true;
    if (clp_comm_mpi_launched())
        return run_mpi(model, c, cli, req, config, rank0, err);
    return run_threads(model, c, cli, req, config, err);
}

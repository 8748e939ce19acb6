/* A case run by several ranks: the public face of the comm, one rank's run, and the threads
 * that run one rank per device in this process. */
#include "dist/comm.h"
#include "dist/slabs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

bool clp_comm_mpi_launched(void) {
    return clp__comm_mpi_launched();
}

clp_status clp_comm_mpi_open(clp_comm **out, clp_error *err) {
    return clp__comm_mpi_create(0, out, err);
}

void clp_comm_close(clp_comm *comm) {
    clp__comm_destroy(comm);
}

void clp_comm_abort(clp_comm *comm, const clp_error *why) {
    clp__comm_abort(comm, why);
}

int clp_comm_rank(const clp_comm *comm) {
    return clp__comm_rank(comm);
}

int clp_comm_size(const clp_comm *comm) {
    return clp__comm_size(comm);
}

void clp_comm_local(const clp_comm *comm, int *local_rank, int *local_size) {
    clp__comm_local(comm, local_rank, local_size);
}

clp_status clp_comm_share(clp_comm *comm, double mine, double *all, clp_error *err) {
    const int size = clp__comm_size(comm);
    for (int r = 0; r < size; r++)
        all[r] = r == clp__comm_rank(comm) ? mine : 0.0;
    return clp__comm_allreduce(comm, all, (size_t)size, CLP_COMM_SUM, err);
}

clp_status clp_run_rank(const clp_model *model, clp_comm *comm, clp_worker *worker,
                        const double *weights, const clp_options *opts, const char *case_path,
                        const clp_run_config *config, clp_error *err) {
    if (!model->run_rank) {
        clp_status st = CLP_FAIL(err, CLP_USAGE,
                                 "model '%s' runs on one device only; run it without --devices "
                                 "or mpirun",
                                 model->name);
        clp__comm_abort(comm, err);
        return st;
    }
    clp_status st = model->run_rank(worker, comm, weights, opts, case_path, config, err);
    if (st != CLP_OK && st != CLP_INTERRUPTED)
        clp__comm_abort(comm, err); /* the others stop waiting for this rank at once */
    return st;
}

typedef struct rank_thread {
    pthread_t thread;
    const clp_model *model;
    clp__comm *comm;
    clp_worker *worker;
    const double *weights;
    const clp_options *opts;
    const char *case_path;
    clp_run_config config;
    clp_run_timing timing; /* a rank's but rank 0's: it times its steps for rank 0's report */
    clp_status status;
    clp_error err;
} rank_thread;

static void *run_thread(void *arg) {
    rank_thread *t = arg;
    t->status = clp_run_rank(t->model, t->comm, t->worker, t->weights, t->opts, t->case_path,
                             &t->config, &t->err);
    return NULL;
}

clp_status clp_run_split(const clp_model *model, clp_worker *const *workers, int n,
                         const double *weights, const clp_options *opts, const char *case_path,
                         const clp_run_config *config, clp_error *err) {
    clp_status st = CLP_OK;
    clp__comm *comms[CLP_DIST_MAX_RANKS] = {NULL};
    rank_thread *threads = calloc((size_t)(n > 0 ? n : 1), sizeof *threads);
    int started = 0;
    CLP_REQUIRE_ALLOC(threads, err);
    CLP_REQUIRE(n >= 1 && n <= CLP_DIST_MAX_RANKS, err, CLP_USAGE,
                "a case splits among 1 to %d devices in one process, not %d", CLP_DIST_MAX_RANKS,
                n);
    CLP_TRY(clp__comm_threads_create(n, 0, comms, err));
    for (int r = 0; r < n; r++) {
        rank_thread *t = &threads[r];
        *t = (rank_thread){.model = model,
                           .comm = comms[r],
                           .worker = workers[r],
                           .weights = weights,
                           .opts = opts,
                           .case_path = case_path,
                           .config = *config,
                           .err = CLP_ERROR_INIT};
        if (r > 0) { /* rank 0 writes and reports */
            t->config.progress = NULL;
            t->config.result = NULL;
            if (config->timing)
                t->config.timing = &t->timing;
        }
        CLP_REQUIRE(pthread_create(&t->thread, NULL, run_thread, t) == 0, err, CLP_NOMEM,
                    "cannot start the thread of device rank %d", r);
        started++;
    }
fail:
    if (st != CLP_OK && started > 0)
        clp__comm_abort(comms[0], err);
    for (int r = 0; r < started; r++)
        pthread_join(threads[r].thread, NULL);
    /* the first failure is the cause; the other ranks' CLP_COMM errors only report it */
    for (int pass = 0; pass < 2 && st == CLP_OK; pass++)
        for (int r = 0; r < started && st == CLP_OK; r++)
            if (threads[r].status != CLP_OK && (pass == 1 || threads[r].status != CLP_COMM)) {
                *err = threads[r].err;
                st = threads[r].status;
            }
    for (int r = 0; r < n && r < CLP_DIST_MAX_RANKS; r++)
        clp__comm_destroy(comms[r]);
    free(threads);
    return st;
}

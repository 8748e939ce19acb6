/* clpart sweep's devices in groups by the hardware they run on, and a thread per group (see
 * sweep_groups.h). */
#include "sweep_groups.h"

#include "internal.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Parts of platform names (lower case) whose devices are emulated on the host's cores. */
static const char *const host_emulators[] = {
    "oclgrind",  /* Oclgrind, a simulator: reports CL_DEVICE_TYPE_GPU */
    "emulation", /* Intel(R) FPGA Emulation Platform: reports CL_DEVICE_TYPE_ACCELERATOR */
};

bool sweep_device_on_host(const clp_device_info *dev) {
    if (dev->type & CL_DEVICE_TYPE_CPU)
        return true;
    char platform[sizeof dev->platform_name];
    size_t i = 0;
    for (; dev->platform_name[i] && i + 1 < sizeof platform; i++)
        platform[i] = (char)tolower((unsigned char)dev->platform_name[i]);
    platform[i] = '\0';
    for (size_t k = 0; k < sizeof host_emulators / sizeof host_emulators[0]; k++)
        if (strstr(platform, host_emulators[k]))
            return true;
    return false;
}

size_t sweep_group_devices(const clp_device_info *const *devices, size_t n, sweep_schedule schedule,
                           size_t *group_of) {
    size_t groups = 0, host_group = n; /* n: no host device yet */
    for (size_t d = 0; d < n; d++) {
        if (schedule == SWEEP_SERIAL)
            group_of[d] = 0, groups = 1;
        else if (schedule == SWEEP_BY_HARDWARE && sweep_device_on_host(devices[d])) {
            if (host_group == n)
                host_group = groups++;
            group_of[d] = host_group;
        } else
            group_of[d] = groups++;
    }
    return groups;
}

/* What the threads share: the first failure, under `lock`. */
typedef struct shared {
    pthread_mutex_t lock;
    clp_status first;
    clp_error err;
    atomic_bool *stop;
} shared;

typedef struct group_run {
    const size_t *group_of;
    size_t n, group;
    sweep_device_fn run;
    void *user;
    shared *shared;
} group_run;

static void *run_group(void *arg) {
    const group_run *g = arg;
    for (size_t d = 0; d < g->n && !atomic_load(g->shared->stop); d++) {
        if (g->group_of[d] != g->group)
            continue;
        clp_error err = CLP_ERROR_INIT;
        const clp_status st = g->run(d, g->user, &err);
        if (st == CLP_OK)
            continue;
        pthread_mutex_lock(&g->shared->lock);
        if (g->shared->first == CLP_OK) {
            g->shared->first = st;
            g->shared->err = err;
        }
        pthread_mutex_unlock(&g->shared->lock);
        atomic_store(g->shared->stop, true);
        break;
    }
    return NULL;
}

clp_status sweep_groups_run(const size_t *group_of, size_t n, size_t n_groups, sweep_device_fn run,
                            void *user, atomic_bool *stop, clp_error *err) {
    shared s = {.lock = PTHREAD_MUTEX_INITIALIZER, .first = CLP_OK, .stop = stop};
    group_run *runs = calloc(n_groups ? n_groups : 1, sizeof *runs);
    pthread_t *threads = calloc(n_groups ? n_groups : 1, sizeof *threads);
    bool *started = calloc(n_groups ? n_groups : 1, sizeof *started);
    clp_status st = CLP_OK;
    CLP_REQUIRE(runs && threads && started, err, CLP_NOMEM, "out of host memory for %zu threads",
                n_groups);
    for (size_t g = 0; g < n_groups; g++) {
        runs[g] = (group_run){group_of, n, g, run, user, &s};
        started[g] = pthread_create(&threads[g], NULL, run_group, &runs[g]) == 0;
    }
    for (size_t g = 0; g < n_groups; g++) /* a thread that could not start: its group here */
        if (!started[g])
            run_group(&runs[g]);
    for (size_t g = 0; g < n_groups; g++)
        if (started[g])
            pthread_join(threads[g], NULL);
    st = s.first;
    if (st != CLP_OK && err && err->status == CLP_OK) /* the first error wins */
        *err = s.err;
fail:
    free(runs);
    free(threads);
    free(started);
    pthread_mutex_destroy(&s.lock);
    return st;
}

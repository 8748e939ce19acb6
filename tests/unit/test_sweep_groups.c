/* clpart sweep's device groups (tools/sweep_groups.c) on hand-made device infos: the host's
 * devices (CPU devices, and Oclgrind and Intel's FPGA emulator whatever type they report) in
 * one group, every other device alone, --serial and --parallel; and the thread per group:
 * different groups run at the same time, a group's devices never do, and a failure stops the
 * other threads and is the error returned. No OpenCL device is needed. */
#include "../../tools/sweep_groups.h"
#include "internal.h"
#include "test.h"

#include <pthread.h>
#include <time.h>

static clp_device_info device(size_t index, const char *platform, const char *name,
                              cl_device_type type) {
    clp_device_info d = {.index = index, .type = type};
    snprintf(d.platform_name, sizeof d.platform_name, "%s", platform);
    snprintf(d.name, sizeof d.name, "%s", name);
    return d;
}

enum { N = 7 };
static clp_device_info infos[N];
static const clp_device_info *devices[N];

static void check_grouping(void) {
    infos[0] = device(0, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU);
    infos[1] = device(1, "Portable Computing Language", "pthread-znver4", CL_DEVICE_TYPE_CPU);
    infos[2] = device(2, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", CL_DEVICE_TYPE_GPU);
    infos[3] = device(3, "Oclgrind", "Oclgrind Simulator", CL_DEVICE_TYPE_GPU);
    infos[4] = device(4, "Intel(R) FPGA Emulation Platform for OpenCL(TM)",
                      "Intel(R) FPGA Emulation Device", CL_DEVICE_TYPE_ACCELERATOR);
    infos[5] = device(5, "Xilinx", "xilinx_u250", CL_DEVICE_TYPE_ACCELERATOR);
    infos[6] = device(6, "Portable Computing Language", "pthread-znver4",
                      CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT);
    for (size_t d = 0; d < N; d++)
        devices[d] = &infos[d];
    const bool on_host[N] = {false, true, false, true, true, false, true};
    for (size_t d = 0; d < N; d++)
        if (sweep_device_on_host(devices[d]) != on_host[d])
            CLP_TEST_FAIL("device %zu (%s): on the host should be %d", d, infos[d].platform_name,
                          on_host[d]);

    size_t group_of[N];
    /* the GPUs and the accelerator alone, numbered by their first device; the four host
       devices in the group of the first of them */
    CLP_ASSERT_EQ(sweep_group_devices(devices, N, SWEEP_BY_HARDWARE, group_of), 4);
    const size_t by_hardware[N] = {0, 1, 2, 1, 1, 3, 1};
    for (size_t d = 0; d < N; d++)
        CLP_ASSERT_EQ(group_of[d], by_hardware[d]);
    CLP_ASSERT_EQ(sweep_group_devices(devices, N, SWEEP_SERIAL, group_of), 1);
    for (size_t d = 0; d < N; d++)
        CLP_ASSERT_EQ(group_of[d], 0);
    CLP_ASSERT_EQ(sweep_group_devices(devices, N, SWEEP_PARALLEL, group_of), N);
    for (size_t d = 0; d < N; d++)
        CLP_ASSERT_EQ(group_of[d], d);
    /* only the host's devices: one group; only GPUs: one each */
    CLP_ASSERT_EQ(sweep_group_devices(devices + 3, 2, SWEEP_BY_HARDWARE, group_of), 1);
    CLP_ASSERT_EQ(sweep_group_devices(devices, 1, SWEEP_BY_HARDWARE, group_of), 1);
}

/* ---- The threads */

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct trial {
    const size_t *group_of;
    size_t fails;          /* this device fails (N: none) */
    double hold;           /* each device runs this long (0: as below) */
    atomic_bool stop;      /* the runner's stop flag */
    atomic_int running[N]; /* per group: its devices running now */
    atomic_int together;   /* most groups seen running at once */
    atomic_int in_flight;  /* devices running now, over all groups */
    atomic_bool ran[N];
    atomic_bool saw_stop; /* a device ended because of the stop flag */
    int order[N];         /* the order in which devices started */
    atomic_int started;
} trial;

/* A device's "sweep": `hold` seconds, else up to 2 s of 1 ms sleeps, cut short once two
 * groups have been seen running at once, or (for the device that fails) once another device
 * runs beside it; any device ends when it sees the stop flag. */
static clp_status fake_device(size_t d, void *user, clp_error *err) {
    trial *t = user;
    const size_t g = t->group_of[d];
    if (atomic_fetch_add(&t->running[g], 1) != 0)
        CLP_TEST_FAIL("device %zu ran beside another device of its group %zu", d, g);
    t->order[atomic_fetch_add(&t->started, 1)] = (int)d;
    atomic_store(&t->ran[d], true);
    const int in_flight = atomic_fetch_add(&t->in_flight, 1) + 1;
    int seen = atomic_load(&t->together);
    while (in_flight > seen && !atomic_compare_exchange_weak(&t->together, &seen, in_flight)) {
    }
    clp_status st = CLP_OK;
    for (const double end = now() + (t->hold > 0 ? t->hold : 2); now() < end;) {
        if (d == t->fails && atomic_load(&t->in_flight) > 1) {
            st = CLP_FAIL(err, CLP_IO, "device %zu: cannot append", d);
            break;
        }
        if (atomic_load(&t->stop)) {
            atomic_store(&t->saw_stop, true);
            break;
        }
        if (t->fails == N && !t->hold && atomic_load(&t->together) >= 2)
            break;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    atomic_fetch_sub(&t->in_flight, 1);
    atomic_fetch_sub(&t->running[g], 1);
    return st;
}

static void check_threads(void) {
    size_t group_of[N];
    const size_t groups = sweep_group_devices(devices, N, SWEEP_BY_HARDWARE, group_of);
    /* every device runs; the groups overlap; a group's devices run in their order */
    trial t = {.group_of = group_of, .fails = N};
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(sweep_groups_run(group_of, N, groups, fake_device, &t, &t.stop, &err), &err);
    for (size_t d = 0; d < N; d++)
        CLP_ASSERT(atomic_load(&t.ran[d]));
    CLP_ASSERT(atomic_load(&t.together) >= 2);
    int host_seen = 0; /* the host group's devices 1, 3, 4, 6 started in that order */
    for (size_t i = 0; i < N; i++)
        if (group_of[t.order[i]] == 1) {
            const int expected[] = {1, 3, 4, 6};
            CLP_ASSERT_EQ(t.order[i], expected[host_seen++]);
        }
    CLP_ASSERT_EQ(host_seen, 4);

    /* --serial: never two at once, though each device runs long enough to be seen */
    const size_t one = sweep_group_devices(devices, N, SWEEP_SERIAL, group_of);
    trial serial = {.group_of = group_of, .fails = N, .hold = 0.02};
    CLP_ASSERT_OK(sweep_groups_run(group_of, N, one, fake_device, &serial, &serial.stop, &err),
                  &err);
    CLP_ASSERT_EQ(atomic_load(&serial.together), 1);

    /* the host group's first device fails once another runs beside it: the other threads see
       the stop flag, the host group's later devices never start, and its error comes back */
    sweep_group_devices(devices, N, SWEEP_BY_HARDWARE, group_of);
    trial failing = {.group_of = group_of, .fails = 1};
    const clp_status st =
        sweep_groups_run(group_of, N, groups, fake_device, &failing, &failing.stop, &err);
    CLP_ASSERT_STATUS(st, CLP_IO, &err);
    CLP_ASSERT_STR_EQ(err.message, "device 1: cannot append");
    CLP_ASSERT(atomic_load(&failing.stop) && atomic_load(&failing.saw_stop));
    CLP_ASSERT(!atomic_load(&failing.ran[3]) && !atomic_load(&failing.ran[4]) &&
               !atomic_load(&failing.ran[6]));
}

int main(void) {
    check_grouping();
    check_threads();
    printf("sweep groups: ok\n");
    return 0;
}

/* Kernels and launches: kernels created on first use, the work-group size chosen from the
 * device and kernel, steps whose arguments are buffer sets, every call checked and named. */
#include "worker/worker_private.h"

#include <string.h>

/* The slot of kernel `name` of the current program, its kernel created on first use. */
static clp_status kernel_slot(clp_worker *w, const char *name, clp_worker_kernel_slot **out,
                              clp_error *err) {
    clp_status st = CLP_OK;
    for (size_t i = 0; i < w->n_kernels; i++) {
        if (strcmp(w->kernels[i].name, name) == 0) {
            *out = &w->kernels[i];
            return CLP_OK;
        }
    }
    CLP_REQUIRE(w->program != NULL, err, CLP_USAGE, "kernel '%s': no program is built", name);
    CLP_REQUIRE(w->n_kernels < CLP_WORKER_MAX_KERNELS, err, CLP_USAGE,
                "kernel '%s': more than %d kernels in one program", name, CLP_WORKER_MAX_KERNELS);
    cl_int rc;
    cl_kernel kernel = clCreateKernel(w->program, name, &rc);
    CLP_CL_CHECK(rc, err, "kernel '%s': clCreateKernel", name);
    char *copy = strdup(name);
    if (!copy) {
        clReleaseKernel(kernel);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    }
    w->kernels[w->n_kernels] = (clp_worker_kernel_slot){copy, kernel, 0};
    *out = &w->kernels[w->n_kernels++];
    return CLP_OK;
fail:
    return st;
}

clp_status clp__kernel_limits(clp_worker *w, const char *name, size_t *work_group,
                              cl_ulong *local_bytes, clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker_kernel_slot *slot;
    CLP_TRY(kernel_slot(w, name, &slot, err));
    CLP_CL_CHECK(clGetKernelWorkGroupInfo(slot->kernel, w->device.device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof *work_group, work_group, NULL),
                 err, "kernel '%s': clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)", name);
    CLP_CL_CHECK(clGetKernelWorkGroupInfo(slot->kernel, w->device.device, CL_KERNEL_LOCAL_MEM_SIZE,
                                          sizeof *local_bytes, local_bytes, NULL),
                 err, "kernel '%s': clGetKernelWorkGroupInfo(CL_KERNEL_LOCAL_MEM_SIZE)", name);
fail:
    return st;
}

clp_status clp_worker_kernel(clp_worker *w, const char *name, cl_kernel *out, clp_error *err) {
    clp_worker_kernel_slot *slot;
    clp_status st = kernel_slot(w, name, &slot, err);
    if (st == CLP_OK)
        *out = slot->kernel;
    return st;
}

/* The largest multiple of the kernel's preferred work-group size multiple that the kernel
 * and device allow, at most 256: enough to fill a GPU's SIMD lanes without starving the
 * register file of bigger kernels. */
clp_status clp_launch_local_size(clp_worker *w, const char *kernel_name, size_t *local,
                                 clp_error *err) {
    clp_status st = CLP_OK;
    clp_worker_kernel_slot *slot;
    size_t kernel_max = 0, multiple = 1;
    CLP_TRY(kernel_slot(w, kernel_name, &slot, err));
    if (slot->local) { /* asked before: every launch of a small system would ask the driver */
        *local = slot->local;
        return CLP_OK;
    }
    CLP_CL_CHECK(clGetKernelWorkGroupInfo(slot->kernel, w->device.device, CL_KERNEL_WORK_GROUP_SIZE,
                                          sizeof kernel_max, &kernel_max, NULL),
                 err, "kernel '%s': clGetKernelWorkGroupInfo(CL_KERNEL_WORK_GROUP_SIZE)",
                 kernel_name);
    CLP_CL_CHECK(clGetKernelWorkGroupInfo(slot->kernel, w->device.device,
                                          CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
                                          sizeof multiple, &multiple, NULL),
                 err,
                 "kernel '%s': "
                 "clGetKernelWorkGroupInfo(CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE)",
                 kernel_name);
    size_t cap = kernel_max < 256 ? kernel_max : 256;
    if (multiple == 0 || multiple > cap)
        multiple = 1;
    *local = slot->local = cap / multiple * multiple;
    return CLP_OK;
fail:
    return st;
}

/* The device time of a timed launch: its profiling events' span, or where a device's events
 * prove untimed, the wall time from the enqueue to the end of the wait. A launch that took
 * over a millisecond on the wall is untimed when its events give it under 1 % of that (a
 * launch's overhead is microseconds). */
static double launch_seconds(clp_worker *w, const char *name, double events, double wall) {
    if (!w->events_untimed && wall > 1e-3 && events < 0.01 * wall) {
        w->events_untimed = true;
        CLP_WARN(CLP_LOG_RUN,
                 "device '%s' (%s %s) timed kernel '%s' at %.3g ms by its profiling events "
                 "where it took %.3g ms: its events are not used, and device times are the "
                 "wall time of each launch to its end",
                 w->device.name, w->device.platform_name, w->device.driver_version, name,
                 1e3 * events, 1e3 * wall);
    }
    return w->events_untimed ? wall : events;
}

/* Enqueues `global` work-items from global id `first` in groups of `local`; with profiling
 * on and `seconds`, adds the kernel's device time to it. */
static clp_status enqueue_groups(clp_worker *w, const char *name, cl_kernel kernel, size_t first,
                                 size_t global, size_t local, double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    cl_event event = NULL;
    const bool timed = w->profiling && seconds;
    if (clp__worker_stop_requested(w))
        return CLP_FAIL(err, CLP_INTERRUPTED, "stopped by a request before kernel '%s'", name);
    const double enqueued = timed ? clp__now() : 0.0;
    CLP_CL_CHECK(clEnqueueNDRangeKernel(w->queue, kernel, 1, first ? &first : NULL, &global, &local,
                                        0, NULL, timed ? &event : NULL),
                 err, "kernel '%s' (global %zu from %zu, local %zu): clEnqueueNDRangeKernel", name,
                 global, first, local);
    if (timed) {
        cl_ulong start = 0, end = 0;
        CLP_CL_CHECK(clWaitForEvents(1, &event), err, "kernel '%s' (global %zu, local %zu)", name,
                     global, local);
        CLP_CL_CHECK(
            clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL),
            err, "kernel '%s': clGetEventProfilingInfo", name);
        CLP_CL_CHECK(
            clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL), err,
            "kernel '%s': clGetEventProfilingInfo", name);
        *seconds += launch_seconds(w, name, 1e-9 * (double)(end - start), clp__now() - enqueued);
    }
fail:
    if (event)
        clReleaseEvent(event);
    return st;
}

/* From global id `first`, `global` work-items rounded up to a multiple of local, or with
 * `ranged` exactly that many: the whole groups, then the rest as one group on a GPU. A CPU
 * device takes the rest in groups of one work-item: PoCL compiles a kernel anew for every
 * group size it meets, and a split run's ranges change at every rebuild: groups of the
 * rest's size, or of each of its binary digits, would have a cold split run compile each
 * ranged kernel four to eight times, not twice. On a GPU groups of one would each take
 * a whole warp, for the slowest work-item's time (some 30 us for the SPH forces on an H100). */
static clp_status enqueue(clp_worker *w, const char *name, cl_kernel kernel, bool ranged,
                          size_t first, size_t global, size_t local, double *seconds,
                          clp_error *err) {
    clp_status st = CLP_OK;
    if (seconds)
        *seconds = 0;
    if (local == 0)
        CLP_TRY(clp_launch_local_size(w, name, &local, err));
    if (!ranged) {
        const size_t rounded = (global + local - 1) / local * local;
        return enqueue_groups(w, name, kernel, first, rounded, local, seconds, err);
    }
    const size_t whole = global / local * local;
    if (whole)
        CLP_TRY(enqueue_groups(w, name, kernel, first, whole, local, seconds, err));
    const size_t rest = global - whole;
    if (rest)
        return enqueue_groups(w, name, kernel, first + whole, rest,
                              w->device.type & CL_DEVICE_TYPE_CPU ? 1 : rest, seconds, err);
fail:
    return st;
}

clp_status clp_launch(clp_worker *w, const char *kernel_name, size_t global, size_t local,
                      double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel kernel;
    CLP_TRY(clp_worker_kernel(w, kernel_name, &kernel, err));
    CLP_TRY(enqueue(w, kernel_name, kernel, false, 0, global, local, seconds, err));
fail:
    return st;
}

clp_status clp_launch_range(clp_worker *w, const char *kernel_name, size_t first, size_t count,
                            size_t local, double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel kernel;
    CLP_TRY(clp_worker_kernel(w, kernel_name, &kernel, err));
    CLP_TRY(enqueue(w, kernel_name, kernel, true, first, count, local, seconds, err));
fail:
    return st;
}

/* A step's kernel with its arguments set, and which of them is the neighbour list (NO_LIST:
 * none). */
enum { NO_LIST = UINT32_MAX };
typedef struct bound_step {
    cl_kernel kernel;
    cl_uint list_arg;
} bound_step;

/* Passes buffer `i` as the next argument when the step takes it and it is allocated. */
static clp_status set_buffer_arg(clp_worker *w, const clp_step *step, bound_step *b, int i,
                                 cl_uint *arg, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel kernel = b->kernel;
    if (!(step->buffers & (1ull << i)) || !w->buffers[i])
        return CLP_OK;
    if (1ull << i == CLP_BUF_NEIB_LIST)
        b->list_arg = *arg;
    CLP_CL_CHECK(clSetKernelArg(kernel, *arg, sizeof(cl_mem), &w->buffers[i]), err,
                 "kernel '%s' argument %u (buffer \"%s\"): clSetKernelArg", step->kernel, *arg,
                 clp_buffer_traits_of(1ull << i)->name);
    ++*arg;
fail:
    return st;
}

/* Sets the step's buffers as its kernel's arguments: in bit order, the constants last, where
 * CLP_CONSTANTS_PARAM puts them. */
static clp_status bind_step(clp_worker *w, const clp_step *step, bound_step *b, clp_error *err) {
    clp_status st = CLP_OK;
    *b = (bound_step){NULL, NO_LIST};
    CLP_TRY(clp_worker_kernel(w, step->kernel, &b->kernel, err));
    const int constants = clp__buffer_index(CLP_BUF_CONSTANTS);
    cl_uint arg = 0;
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        if (i != constants)
            CLP_TRY(set_buffer_arg(w, step, b, i, &arg, err));
    CLP_TRY(set_buffer_arg(w, step, b, constants, &arg, err));
fail:
    return st;
}

clp_status clp__launch_list_pieces(clp_worker *w, const char *name, cl_kernel kernel,
                                   cl_uint list_arg, size_t first, size_t count, size_t local,
                                   double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    double total = 0, each = 0;
    for (size_t p = 0; p < w->n_list_pieces; p++) {
        const size_t lo = p * w->list_stride, hi = lo + w->list_stride;
        const size_t from = first > lo ? first : lo;
        const size_t to = first + count < hi ? first + count : hi;
        if (from >= to)
            continue;
        const cl_mem piece =
            p ? w->list_pieces[p - 1] : w->buffers[clp__buffer_index(CLP_BUF_NEIB_LIST)];
        CLP_CL_CHECK(clSetKernelArg(kernel, list_arg, sizeof piece, &piece), err,
                     "kernel '%s' argument %u (piece %zu of buffer \"neib_list\"): clSetKernelArg",
                     name, list_arg, p);
        /* the last piece in whole groups, whose work-items past the particles return at once,
           rather than ending in a group of the rest: a launch of its own, which on a GPU takes
           as long as a full wave of groups */
        const bool to_the_end = to >= w->list_particles;
        CLP_TRY(enqueue(w, name, kernel, !to_the_end, from, to - from, local,
                        seconds ? &each : NULL, err));
        total += each;
    }
    if (seconds)
        *seconds = total;
fail:
    return st;
}

/* A step over first .. first + count - 1 (`ranged`), or over its global size; with a list in
 * pieces, a launch a piece over the particles the piece holds. */
static clp_status run_bound(clp_worker *w, const clp_step *step, const bound_step *b, bool ranged,
                            size_t first, size_t count, double *seconds, clp_error *err) {
    if (b->list_arg == NO_LIST || w->n_list_pieces <= 1)
        return enqueue(w, step->kernel, b->kernel, ranged, first, count, step->local, seconds, err);
    if (!ranged) /* the kernels that take a list are a work-item a particle */
        count = count < w->list_particles ? count : w->list_particles;
    return clp__launch_list_pieces(w, step->kernel, b->kernel, b->list_arg, first, count,
                                   step->local, seconds, err);
}

clp_status clp_worker_run_step(clp_worker *w, const clp_step *step, double *seconds,
                               clp_error *err) {
    clp_status st = CLP_OK;
    bound_step b;
    CLP_TRY(bind_step(w, step, &b, err));
    CLP_TRY(run_bound(w, step, &b, false, 0, step->global, seconds, err));
fail:
    return st;
}

clp_status clp_worker_run_step_range(clp_worker *w, const clp_step *step, size_t first,
                                     size_t count, double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    bound_step b;
    CLP_TRY(bind_step(w, step, &b, err));
    CLP_TRY(run_bound(w, step, &b, true, first, count, seconds, err));
fail:
    return st;
}

/* A kernel's argument that the model sets: a value, or a buffer it owns (model_buffers.c). */
clp_status clp_worker_set_arg(clp_worker *w, const char *kernel, cl_uint index, size_t size,
                              const void *value, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel k;
    CLP_TRY(clp_worker_kernel(w, kernel, &k, err));
    CLP_CL_CHECK(clSetKernelArg(k, index, size, value), err,
                 "kernel '%s' argument %u (%zu bytes): clSetKernelArg", kernel, index, size);
fail:
    return st;
}

/* Sets buffer `buffer` of the worker's as argument `index` of kernel `k`, named `name`. */
static clp_status set_buffer(clp_worker *w, const char *name, cl_kernel k, cl_uint index,
                             const clp_buffer *buffer, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__buffer_check_owner(w, buffer, err));
    const cl_mem mem = clp_buffer_mem(buffer);
    CLP_CL_CHECK(clSetKernelArg(k, index, sizeof(cl_mem), &mem), err,
                 "kernel '%s' argument %u (buffer \"%s\", %zu bytes): clSetKernelArg", name, index,
                 clp_buffer_name(buffer), clp_buffer_size(buffer));
fail:
    return st;
}

clp_status clp_worker_set_arg_buffer(clp_worker *w, const char *kernel, cl_uint index,
                                     const clp_buffer *buffer, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel k;
    CLP_TRY(clp_worker_kernel(w, kernel, &k, err));
    CLP_TRY(set_buffer(w, kernel, k, index, buffer, err));
fail:
    return st;
}

/* One look-up of the step's kernel, as a step runs every time step. */
clp_status clp_worker_set_step_buffers(clp_worker *w, const clp_step *step,
                                       clp_buffer *const *buffers, size_t count, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel k;
    CLP_TRY(clp_worker_kernel(w, step->kernel, &k, err));
    /* the arguments bind_step sets: the step's bits that are allocated */
    cl_uint first = 0;
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        first += (step->buffers & (1ull << i)) && w->buffers[i];
    for (size_t b = 0; b < count; b++)
        CLP_TRY(set_buffer(w, step->kernel, k, first + (cl_uint)b, buffers[b], err));
fail:
    return st;
}

clp_status clp_worker_bind_buffers(clp_worker *w, const clp_kernel_buffers *table, size_t rows,
                                   unsigned variant, clp_buffer *const *buffers, clp_error *err) {
    clp_status st = CLP_OK;
    for (size_t k = 0; k < rows; k++) {
        if (table[k].variants != 0 && !(table[k].variants & variant))
            continue;
        for (cl_uint a = 0; a < CLP_MOST_BUFFER_ARGS && table[k].args[a] != CLP_ARGS_END; a++)
            CLP_TRY(
                clp_worker_set_arg_buffer(w, table[k].kernel, a, buffers[table[k].args[a]], err));
    }
fail:
    return st;
}

/* The worker's fields, shared by the files that implement it (worker.c: context, queue and
 * program, its kernels released with it; buffer.c: buffers; launch.c: kernels and launches). */
#ifndef CLPART_WORKER_PRIVATE_H
#define CLPART_WORKER_PRIVATE_H

#include "internal.h"

enum { CLP_WORKER_MAX_KERNELS = 32 };

typedef struct clp_worker_kernel_slot {
    char *name;
    cl_kernel kernel;
    size_t local; /* its chosen work-group size (clp_launch_local_size); 0 until asked */
} clp_worker_kernel_slot;

struct clp_worker {
    clp_device_info device; /* a copy; extensions points into the device list */
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    char *build_log;
    char *source, *flags; /* the program's, for clp__worker_rebuild_with */
    clp_worker_kernel_slot kernels[CLP_WORKER_MAX_KERNELS];
    size_t n_kernels;
    bool profiling;
    /* The device's profiling events gave a launch far less time than it took (Mesa's
     * rusticl 22.3 gives every kernel 1 ns): timed launches count their wall time instead. */
    bool events_untimed;
    volatile sig_atomic_t *stop;   /* clp_worker_set_stop */
    cl_mem buffers[CLP_BUF_COUNT]; /* by bit index */
    size_t buffer_bytes[CLP_BUF_COUNT];
    clp_buffer_set aliases; /* buffers that live in another's memory (clp__worker_alias) */
    /* A neighbour list in pieces (clp__worker_list_pieces): the pieces after the first, which
     * is buffers[] of CLP_BUF_NEIB_LIST, and the particles each holds. */
    cl_mem list_pieces[CLP_LIST_MOST_PIECES - 1];
    size_t n_list_pieces, list_stride, list_particles;
    clp_buffer *owned; /* the buffers models own, by name (model_buffers.c), in the order made */
};

/* Whether a stop was requested (clp_worker_set_stop): launches and the probes' transfer
 * rounds look before each. */
static inline bool clp__worker_stop_requested(const clp_worker *worker) {
    return worker->stop && *worker->stop;
}

/* Builds the program again from its source with the integer constant `name` of its prelude
 * set to `value` (bypassing the binary cache, which the caller may have closed): for a run
 * that outgrows a constant its kernels were compiled with. Kernels are created anew on their
 * next launch, which sets every argument. */
clp_status clp__worker_rebuild_with(clp_worker *worker, const char *name, long long value,
                                    clp_error *err);
/* A device buffer outside the named set (scratch of scans and sorts), checked against the
 * device's limits and zeroed; errors name it and its bytes. NULL-safe release. */
clp_status clp__buffer_create(clp_worker *worker, const char *name, size_t bytes, cl_mem *out,
                              clp_error *err);
void clp__buffer_release(cl_mem mem);
/* Releases every buffer. */
void clp__worker_release_buffers(clp_worker *worker);
/* Releases the buffers of `set` that are allocated. */
void clp__worker_release(clp_worker *worker, clp_buffer_set set);
/* Replaces the named buffer `bit` by one of `bytes` bytes (zeroed), whether the options asked
 * for it before or not: for a buffer whose size the run decides, as the neighbour list's. */
clp_status clp__worker_realloc(clp_worker *worker, clp_buffer_set bit, size_t bytes,
                               clp_error *err);
/* Makes buffer `bit` the first `bytes` of buffer `host`'s memory (allocated, and at least that
 * large), in place of its own: for a buffer only used while the host's contents are dead. */
clp_status clp__worker_alias(clp_worker *worker, clp_buffer_set bit, clp_buffer_set host,
                             size_t bytes, clp_error *err);
/* The same in `host`, memory of `held` bytes named `name` (buffer.c), and in a model's own
 * buffer of this worker's (model_buffers.c). */
clp_status clp__worker_alias_mem(clp_worker *worker, clp_buffer_set bit, cl_mem host, size_t held,
                                 const char *name, size_t bytes, clp_error *err);
clp_status clp__worker_alias_owned(clp_worker *worker, clp_buffer_set bit, const clp_buffer *host,
                                   size_t bytes, clp_error *err);
/* Makes the neighbour list `pieces` buffers of `piece_bytes`, each the list of `stride`
 * particles of `particles` (the last the rest), in place of the one it was: every step that
 * takes the list then runs once a piece, the piece its list argument, over the piece's
 * particles. One piece is a list like any buffer. */
clp_status clp__worker_list_pieces(clp_worker *worker, size_t pieces, size_t stride,
                                   size_t particles, size_t piece_bytes, clp_error *err);
/* Launches `kernel` (its arguments set but its list, argument `list_arg`) once a piece of
 * the worker's list, over the particles of first .. first + count - 1 the piece holds;
 * `seconds` (when profiling) gets their device time together. */
clp_status clp__launch_list_pieces(clp_worker *worker, const char *name, cl_kernel kernel,
                                   cl_uint list_arg, size_t first, size_t count, size_t local,
                                   double *seconds, clp_error *err);
/* Releases every buffer that models own (model_buffers.c). */
void clp__worker_release_owned(clp_worker *worker);
/* CLP_USAGE unless `buffer` is one of the worker's own (model_buffers.c). */
clp_status clp__buffer_check_owner(const clp_worker *worker, const clp_buffer *buffer,
                                   clp_error *err);
/* The bytes of every buffer allocated, the CLP_BUF_* set's (aliases left out, buffer.c) and the
 * models' own (model_buffers.c). */
unsigned long long clp__worker_allocated_bytes(const clp_worker *worker);
unsigned long long clp__worker_bit_bytes(const clp_worker *worker);
/* The bytes of the buffers models own (model_buffers.c). */
unsigned long long clp__worker_owned_bytes(const clp_worker *worker);

#endif

/* Internals of the grid: device prefix sums and radix sort used by the sort (scan.c,
 * radix.c), and the grid handle shared by grid.c, sort.c and neighbors.c. */
#ifndef CLPART_GRID_PRIVATE_H
#define CLPART_GRID_PRIVATE_H

#include "worker/worker_private.h"

enum { CLP_SCAN_MAX_LEVELS = 8 };
/* Work-items per scan work-group, emitted into the prelude; cl/grid/scan.cl's default. */
enum { CLP_GRID_SCAN_GROUP = 256 };
/* Work-items per group of the pencil list build (cl/grid/list_pencil.cl). */
enum { CLP_GRID_LIST_GROUP = 128 };

/* Scratch for exclusive scans of up to `capacity` uints: one buffer of block sums per level,
 * so millions of elements take a few levels of work-group scans. */
typedef struct clp__scan {
    clp_worker *worker;
    size_t capacity;
    size_t n_levels;
    cl_mem levels[CLP_SCAN_MAX_LEVELS];
} clp__scan;

clp_status clp__scan_create(clp_worker *w, size_t capacity, clp__scan *out, clp_error *err);
void clp__scan_destroy(clp__scan *s);
/* out[i] = in[0] + ... + in[i-1] over n <= capacity uints, on the device; in == out allowed. */
clp_status clp__scan_exclusive(clp__scan *s, cl_mem in, cl_mem out, size_t n, clp_error *err);

/* Scratch for a stable LSD radix sort of (key, value) uint pairs. */
typedef struct clp__radix {
    clp__scan scan;
    size_t capacity;
    cl_mem flags, keys_tmp, values_tmp;
} clp__radix;

clp_status clp__radix_create(clp_worker *w, size_t capacity, clp__radix *out, clp_error *err);
void clp__radix_destroy(clp__radix *r);
/* Sorts n pairs by the low `bits` bits of the key, stably (equal keys keep their order);
 * the result is in `keys` and `values`. */
clp_status clp__radix_sort(clp__radix *r, cl_mem keys, cl_mem values, size_t n, unsigned bits,
                           clp_error *err);

/* Sets kernel `name`'s arguments, the buffers then the uints in order, each checked and named,
 * and enqueues it over `global` work-items in groups of `local` (0: chosen) on the queue. */
clp_status clp__grid_launch(clp_worker *w, const char *name, const cl_mem *buffers,
                            size_t n_buffers, const cl_uint *uints, size_t n_uints, size_t global,
                            size_t local, clp_error *err);

/* The same over exactly the work-items first .. first + count - 1. */
clp_status clp__grid_launch_range(clp_worker *w, const char *name, const cl_mem *buffers,
                                  size_t n_buffers, const cl_uint *uints, size_t n_uints,
                                  size_t first, size_t count, clp_error *err);
/* The same over a list in pieces: a launch a piece, buffer `list_arg` the piece. */
clp_status clp__grid_launch_pieces(clp_worker *w, const char *name, const cl_mem *buffers,
                                   size_t n_buffers, const cl_uint *uints, size_t n_uints,
                                   cl_uint list_arg, size_t first, size_t count, clp_error *err);
/* Enqueues a fill of a whole buffer of the grid's worker with one uint value (grid_fill). */
clp_status clp__grid_fill(clp_grid *g, clp_buffer_set bit, cl_uint value, clp_error *err);

/* The grid handle (grid.c); sort.c and neighbors.c do its update's phases. */
/* How a list is built (neighbors.build, cl/grid): a work-item per particle, by pencils
 * where the device's fit is not checked yet or is, or a work-item per particle with 8
 * candidates at a time. */
typedef enum clp__list_build {
    CLP__BUILD_PARTICLE,
    CLP__BUILD_PENCIL_UNCHECKED,
    CLP__BUILD_PENCIL,
    CLP__BUILD_SIMD
} clp__list_build;

struct clp_grid {
    clp_worker *worker;
    clp_grid_geometry geo;
    size_t particles;
    bool local;              /* grid.positions=local */
    bool list;               /* neighbors.mode=list */
    bool split;              /* neighbors.split */
    bool radix;              /* grid.sort=radix */
    bool morton;             /* grid.key=morton */
    int axis_order[3];       /* linear keys: axes from the fastest-varying one */
    uint64_t every;          /* neighbors.every */
    bool check_moves;        /* neighbors.check: also rebuild once a move passes half the skin */
    uint64_t since;          /* steps counted (clp_grid_step_done) since the last rebuild */
    bool has_reference;      /* pos_rebuilt holds the positions of the last rebuild */
    bool check_displacement; /* a rebuild fails after a move of more than half the skin */
    clp_buffer_set buffers;
    /* a model's own per-particle buffers that follow the sort too (clp_grid_carry) */
    const clp_buffer *carried[CLP_GRID_MOST_CARRIED];
    size_t n_carried;
    clp__scan scan;    /* counting sort: the scans of the cell counts and outside flags */
    clp__radix sorter; /* radix sort */
    uint32_t max_seen;
    uint32_t capacity; /* list mode: neighbours (bits: candidates) the list holds per particle */
    bool fitted;       /* neighbors.max 0: the list has been sized from a build's counts */
    size_t list_first, list_count; /* the slots whose lists are built (count 0: all) */
    clp__list_build build;         /* how lists are built */
    clp_grid_timing timing;
};

/* Phases of clp_grid_update. */
clp_status clp__grid_sort_by_key(clp_grid *g, clp_error *err);
clp_status clp__grid_reorder(clp_grid *g, clp_error *err);
clp_status clp__grid_build_list(clp_grid *g, clp_error *err);
/* (geometry.c) The words of a list of bits in `dim` dimensions with `cell_words` a cell. */
size_t clp__grid_bits_words(int dim, uint32_t cell_words);
/* (neighbors.c) Allocates the list for `capacity` neighbours a particle, refused with the
 * figures when the device cannot hold it beside the other buffers. */
clp_status clp__grid_allocate_list(clp_grid *g, uint32_t capacity, clp_error *err);
/* (neighbors.c) After a list build whose status was read into `status`: with neighbors.max
 * 0, sizes the list from the largest count at the first build, or grows it when a later
 * build found more than it holds, and then builds it again and reads the status anew. */
clp_status clp__grid_fit_list(clp_grid *g, cl_uint status[8], clp_error *err);

#endif

/* What an SPH case takes of the device's memory, the fallback modes sph.fit_device takes where
 * the stored list does not fit, and the refusal, with the figures, of a case that does not. */
#include "models/models.h"
#include "models/sph/sph_gauges.h"
#include "models/sph/sph_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The model's bits beyond the grid's: the constants, when the options pass them as an
 * argument. The rest are its own (clp__sph_buffers_need, the ghost nodes, clp__sph_gauge_need). */
#define MODEL_BUFFERS CLP_BUF_CONSTANTS

/* The model's bits and their sizes into *counts; `arguments` gets the constants passed as a
 * kernel argument. */
clp_buffer_set clp__sph_model_buffers(const sph_run *r, clp_buffer_counts *counts,
                                      cl_float arguments[64]) {
    clp__sph_program_parts parts;
    clp__sph_program_spec(r, &parts);
    *counts = (clp_buffer_counts){.particles = r->n};
    counts->custom[clp__buffer_index(CLP_BUF_CONSTANTS)] =
        clp_constant_arguments(r->opts, &parts.spec, arguments);
    return MODEL_BUFFERS;
}

/* What the case's buffers take under r's options: the grid's and the model's, each in all and
 * its largest. A list sized from the counts is counted as the first clp__sph_build will size it,
 * from the lattice the particles start on. */
typedef struct memory_use {
    clp_memory_need grid, model;
    clp_grid_geometry sized; /* the geometry with that list size */
} memory_use;

static memory_use memory_of(const sph_run *r) {
    memory_use m = {.sized = r->geo};
    cl_float arguments[64];
    clp_buffer_counts counts;
    const clp_buffer_set buffers = clp__sph_model_buffers(r, &counts, arguments);
    if (clp__neighbors_mode_of(r->opts) == CLP_NEIGHBORS_MODE_LIST && !m.sized.max_neighbors)
        m.sized.max_neighbors =
            clp_grid_list_room(clp__sph_lattice_neighbours(&r->c, r->geo.search_radius));
    m.grid = clp_grid_memory_need(&m.sized, r->opts, r->n);
    const unsigned long long ghosts =
        clp__sph_boundary_of(r->opts) == CLP_SPH_BOUNDARY_MDBC ? r->n * sizeof(cl_float4) : 0;
    const clp_memory_need ghost = {ghosts, ghosts, ghosts ? CLP__SPH_GHOST : NULL};
    const clp_memory_need own =
        clp__memory_need_add(clp__sph_buffers_need(r->opts, r->n),
                             clp__memory_need_add(ghost, clp__sph_gauge_need(&r->c, r->n)));
    m.model = clp__memory_need_add(own, clp_buffers_need(buffers, r->opts, &counts));
    return m;
}

/* The bytes of the list that memory_of sized. */
static double list_bytes(const memory_use *m, size_t particles) {
    const double words =
        m->sized.bits ? (double)clp_grid_bits_words(&m->sized) : m->sized.max_neighbors + 1.0;
    return 4.0 * words * (double)particles;
}

static const clp_memory_need *largest_of(const memory_use *m) {
    return m->grid.largest >= m->model.largest ? &m->grid : &m->model;
}

static bool fits(const memory_use *m, const clp_device_info *d) {
    const clp_memory_need all = clp__memory_need_add(m->grid, m->model);
    return clp__memory_need_fits(&all, d);
}

/* The modes sph.fit_device falls back to from a list of indices, in order: a list of bits,
 * a quarter of its size and faster in the 3D dam break on an H200; on one device, a list of bits in
 * as many buffers as the device's largest allocation calls for; then no list at all, at half the
 * rate (docs/benchmarks/sph.md). */
typedef enum fallback { FALLBACK_BITS, FALLBACK_PIECES, FALLBACK_NO_LIST, FALLBACKS } fallback;

/* Sets `opts` to a fallback's mode, a list in `pieces` buffers: without a list, x-pencils on
 * the whole grid and a work-item per particle on a split run's slab (x-pencils run on one
 * device only). */
static clp_status fall_back(clp_options *opts, fallback f, unsigned pieces, bool whole_grid,
                            clp_error *err) {
    clp_status st = CLP_OK;
    if (f == FALLBACK_BITS)
        return clp__neighbors_format_set(opts, CLP_NEIGHBORS_FORMAT_BITS, err);
    if (f == FALLBACK_PIECES) {
        CLP_TRY(clp__neighbors_format_set(opts, CLP_NEIGHBORS_FORMAT_BITS, err));
        return clp__neighbors_pieces_set(opts, pieces, err);
    }
    CLP_TRY(clp__neighbors_mode_set(opts, CLP_NEIGHBORS_MODE_JIT, err));
    if (whole_grid)
        CLP_TRY(clp__sph_strategy_set(opts, CLP_SPH_STRATEGY_X_PENCIL, err));
fail:
    return st;
}

/* r in a fallback's mode, its options in `opts`. */
static sph_run with_fallback(const sph_run *r, clp_options *opts, fallback f, unsigned pieces) {
    sph_run fitted = *r;
    fitted.opts = opts;
    fitted.geo.bits = f != FALLBACK_NO_LIST;
    fitted.geo.list_pieces = f == FALLBACK_PIECES ? pieces
                             : f == FALLBACK_BITS ? r->geo.list_pieces
                                                  : 0;
    fitted.pencils = clp__sph_strategy_of(opts) == CLP_SPH_STRATEGY_X_PENCIL; /* fall_back's */
    fitted.geo.max_neighbors = 0;
    return fitted;
}

/* The buffers a list of bits of r's case takes on `dev`, with a quarter more room for cells
 * that fill up as the run goes: 1 where it fits one. */
static unsigned pieces_for(const sph_run *r, const clp_device_info *dev) {
    sph_run bits = *r;
    bits.geo.bits = true;
    bits.geo.list_pieces = 1;
    bits.geo.max_neighbors = 0;
    const memory_use m = memory_of(&bits);
    const double need = 1.25 * list_bytes(&m, r->n) / (double)dev->max_mem_alloc_size;
    return need <= 1.0                    ? 1
           : need >= CLP_LIST_MOST_PIECES ? CLP_LIST_MOST_PIECES
                                          : (unsigned)ceil(need);
}

/* sph.fit_device: where the stored list of indices would not fit the device and a list of
 * bits (unless neighbors.max fixes the list's size), or else no list, would, the run takes
 * that mode and says so; where none fits, the
 * refusal comes with the list's figures (clp__sph_check_device_memory). A split run decides after
 * its cut, from each rank's slots, and its ranks agree on the first mode that fits them all, so
 * that they step alike. */
clp_status clp__sph_fit_device(sph_run *r, const clp_device_info *dev, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *fitted = NULL;
    if (!dev || r->pencils || !clp__sph_fit_device_of(r->opts) ||
        clp__neighbors_mode_of(r->opts) != CLP_NEIGHBORS_MODE_LIST)
        return CLP_OK;
    const memory_use with_list = memory_of(r);
    double refused = !fits(&with_list, dev);
    CLP_TRY(r->hooks->most(r, &refused, 1, err)); /* a split run's ranks agree */
    if (!refused)
        return CLP_OK;
    const bool whole_grid = r->hooks->whole_grid;
    static const char *const modes[FALLBACKS] = {
        "with a list of bits (neighbors.format=bits)",
        "with a list of bits in %u buffers (neighbors.format=bits, neighbors.pieces=%u)",
        "without one (neighbors.mode=jit%s)"};
    static const char *const rates[FALLBACKS] = {"about the same", "about the same",
                                                 "about half the"};
    /* a list of indices of a fixed size (neighbors.max) is the user's: no bits for it, nor a
       number of pieces asked for */
    const bool indices_asked = r->geo.max_neighbors > 0;
    const bool pieces_asked = r->geo.list_pieces > 0;
    const unsigned pieces = pieces_for(r, dev);
    fallback f = indices_asked ? FALLBACK_NO_LIST : !r->geo.bits ? FALLBACK_BITS : FALLBACK_PIECES;
    for (; f < FALLBACKS; f++) {
        if (f == FALLBACK_PIECES && (!whole_grid || pieces_asked || pieces <= 1))
            continue;
        clp_options_destroy(fitted);
        fitted = NULL;
        CLP_TRY(clp_options_dup(r->opts, &fitted, err));
        CLP_TRY(fall_back(fitted, f, pieces, whole_grid, err));
        const sph_run candidate = with_fallback(r, fitted, f, pieces);
        const memory_use need = memory_of(&candidate);
        double refused_too = !fits(&need, dev);
        CLP_TRY(r->hooks->most(r, &refused_too, 1, err));
        if (refused_too)
            continue;
        const double gib = 1024.0 * 1024.0 * 1024.0;
        char rank[32], mode[96];
        r->hooks->label(r, rank, sizeof rank);
        if (f == FALLBACK_PIECES)
            snprintf(mode, sizeof mode, modes[f], pieces, pieces);
        else
            snprintf(mode, sizeof mode, modes[f],
                     candidate.pencils ? ", sph.strategy=x_pencil" : " on every rank");
        if (!fits(&with_list, dev))
            CLP_WARN(CLP_LOG_BUFFER,
                     "%s%zu particles with a stored neighbour list would take %.2f GiB (the "
                     "list %.2f GiB in one buffer) where device '%s' has %.2f GiB and allows "
                     "%.2f GiB in one buffer: running %s in %.2f GiB, at %s "
                     "rate; -s sph.fit_device=false refuses the case instead",
                     rank, r->n, (with_list.grid.total + with_list.model.total) / gib,
                     list_bytes(&with_list, r->n) / gib, dev->name, dev->global_mem_size / gib,
                     dev->max_mem_alloc_size / gib, mode,
                     (need.grid.total + need.model.total) / gib, rates[f]);
        clp_options_destroy(r->fitted_opts);
        r->fitted_opts = fitted;
        fitted = NULL;
        const sph_run done = with_fallback(r, r->fitted_opts, f, pieces);
        r->opts = done.opts;
        r->pencils = done.pencils;
        r->geo.bits = r->global.bits = done.geo.bits;
        r->geo.list_pieces = r->global.list_pieces = done.geo.list_pieces;
        r->geo.max_neighbors = r->global.max_neighbors = 0;
        break;
    }
fail:
    clp_options_destroy(fitted);
    return st;
}

/* Refuses a case whose buffers do not fit the device, in all or one by one, before anything
 * is allocated. */
clp_status clp__sph_check_device_memory(const sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_device_info *d = clp_worker_device(r->w);
    const memory_use m = memory_of(r);
    const clp_memory_need *largest = largest_of(&m);
    const double gib = 1024.0 * 1024.0 * 1024.0, total = (m.grid.total + m.model.total) / gib;
    /* the list's share, and the mode that needs none */
    if (total > d->global_mem_size / gib && m.sized.max_neighbors)
        CLP_WARN(CLP_LOG_BUFFER,
                 "the neighbour list would take %.2f GiB; -s neighbors.mode=jit -s "
                 "sph.strategy=x_pencil needs none",
                 list_bytes(&m, r->n) / gib);
    CLP_REQUIRE(total <= d->global_mem_size / gib, err, CLP_DEVICE_MEMORY,
                "the case needs %.2f GiB of device memory for %zu particles (neighbour search "
                "%.2f GiB, SPH %.2f GiB), more than the %.2f GiB of device '%s'",
                total, r->n, m.grid.total / gib, m.model.total / gib, d->global_mem_size / gib,
                d->name);
    CLP_REQUIRE(largest->largest <= d->max_mem_alloc_size, err, CLP_DEVICE_MEMORY,
                "the case's buffer \"%s\" needs %.2f GiB for %zu particles, more than the "
                "largest allocation device '%s' allows (%.2f GiB)",
                largest->largest_name, largest->largest / gib, r->n, d->name,
                d->max_mem_alloc_size / gib);
    CLP_INFO(CLP_LOG_BUFFER, "%zu particles take %.3f GiB of the %.2f GiB of device '%s'", r->n,
             total, d->global_mem_size / gib, d->name);
    if (d->type & CL_DEVICE_TYPE_CPU) { /* its buffers are this process's memory too */
        char what[256];
        snprintf(what, sizeof what, "%zu particles, with their buffers on CPU device '%s',", r->n,
                 d->name);
        CLP_TRY(clp__host_memory_check(
            (double)r->n * CLP__SPH_HOST_BYTES_PER_PARTICLE + total * gib, what, err));
    }
fail:
    return st;
}

/* Neighbours a particle lists in list mode, for the traffic counts: those of the initial
 * lattice within the search radius; 0 without a list. The counts take 4 bytes a neighbour and
 * one more for the end marker, so a list of bits counts as its words less one. */
double clp__sph_listed_neighbours(const sph_run *r) {
    if (clp__neighbors_mode_of(r->opts) != CLP_NEIGHBORS_MODE_LIST)
        return 0.0;
    if (r->geo.bits)
        return (double)clp_grid_bits_words(&r->geo) - 1;
    return clp__sph_lattice_neighbours(&r->c, r->geo.search_radius);
}

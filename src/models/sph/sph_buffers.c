/* SPH's own buffers of its state, rates and records (sph.h): which the options call for, their
 * sizes, their making, and their place among a kernel's arguments. */
#include "models/sph/sph.h"

const char *const clp__sph_buffer_names[CLP__SPH_BUFFERS + 1] = {CLP__SPH_BUFFER_NAMES, NULL};

/* Bytes a slot, or (slot_bytes 0) of the whole buffer. */
static const struct {
    size_t slot_bytes, whole_bytes;
} sizes[CLP__SPH_BUFFERS] = {
    [CLP__SPH_VEL] = {sizeof(cl_float4), 0},       [CLP__SPH_RHO] = {sizeof(cl_float), 0},
    [CLP__SPH_ACC] = {sizeof(cl_float4), 0},       [CLP__SPH_DRHO] = {sizeof(cl_float), 0},
    [CLP__SPH_LARGEST] = {0, 2 * sizeof(cl_uint)}, [CLP__SPH_STEP] = {0, 5 * sizeof(cl_uint)},
    [CLP__SPH_XSPH] = {sizeof(cl_float4), 0},      [CLP__SPH_POS_OLD] = {sizeof(cl_float4), 0},
    [CLP__SPH_VEL_OLD] = {sizeof(cl_float4), 0},   [CLP__SPH_RHO_OLD] = {sizeof(cl_float), 0},
    [CLP__SPH_SHIFT] = {sizeof(cl_float4), 0}};

/* The cl/sph kernels fence the optional ones with the same conditions (CLP_SPH_SHIFTING,
 * CLP_SPH_XSPH, CLP_SPH_INTEGRATOR). */
bool clp__sph_buffer_needed(clp__sph_buffer b, const clp_options *opts) {
    switch (b) {
    case CLP__SPH_DRHO: /* with shifting, the rate of density goes in shift's w */
        return !clp__sph_shifting_of(opts);
    case CLP__SPH_SHIFT:
        return clp__sph_shifting_of(opts);
    case CLP__SPH_XSPH:
        return clp__sph_xsph_of(opts);
    case CLP__SPH_POS_OLD:
    case CLP__SPH_VEL_OLD:
    case CLP__SPH_RHO_OLD:
        return clp__sph_integrator_of(opts) == CLP_SPH_INTEGRATOR_PREDICTOR_CORRECTOR;
    default:
        return true;
    }
}

size_t clp__sph_buffer_bytes(clp__sph_buffer b, size_t slots) {
    return sizes[b].slot_bytes ? sizes[b].slot_bytes * slots : sizes[b].whole_bytes;
}

clp_memory_need clp__sph_buffers_need(const clp_options *opts, size_t slots) {
    clp_memory_need need = {0, 0, NULL};
    for (int b = 0; b < CLP__SPH_BUFFERS; b++) {
        if (!clp__sph_buffer_needed((clp__sph_buffer)b, opts))
            continue;
        const unsigned long long bytes = clp__sph_buffer_bytes((clp__sph_buffer)b, slots);
        need.total += bytes;
        if (bytes > need.largest) {
            need.largest = bytes;
            need.largest_name = clp__sph_buffer_names[b];
        }
    }
    return need;
}

clp_status clp__sph_buffers_make(clp_worker *w, clp_grid *grid, const clp_options *opts,
                                 size_t slots, clp_buffer *own[CLP__SPH_BUFFERS], clp_error *err) {
    clp_status st = CLP_OK;
    const char *names[CLP__SPH_BUFFERS];
    size_t bytes[CLP__SPH_BUFFERS], n = 0;
    clp_buffer *made[CLP__SPH_BUFFERS];
    for (int b = 0; b < CLP__SPH_BUFFERS; b++) {
        own[b] = NULL;
        if (clp__sph_buffer_needed((clp__sph_buffer)b, opts)) {
            names[n] = clp__sph_buffer_names[b];
            bytes[n++] = clp__sph_buffer_bytes((clp__sph_buffer)b, slots);
        } else {
            clp_worker_buffer_free(w, clp_worker_buffer_find(w, clp__sph_buffer_names[b]));
        }
    }
    CLP_TRY(clp_worker_buffers_create(w, names, bytes, n, made, err));
    for (int b = 0, k = 0; b < CLP__SPH_BUFFERS; b++)
        if (clp__sph_buffer_needed((clp__sph_buffer)b, opts))
            own[b] = made[k++];
    CLP_TRY(clp_grid_carry(grid, own[CLP__SPH_VEL], err));
    CLP_TRY(clp_grid_carry(grid, own[CLP__SPH_RHO], err));
    /* the rates, which a step writes before it reads them */
    CLP_TRY(clp_grid_lend_sort(grid, own[CLP__SPH_ACC],
                               own[CLP__SPH_SHIFT] ? own[CLP__SPH_SHIFT] : own[CLP__SPH_DRHO],
                               err));
fail:
    return st;
}

clp_status clp__sph_set_buffers(clp_worker *w, const clp_step *s, clp_buffer *const *own,
                                clp__sph_buffer_set set, clp_buffer *const *after, size_t n_after,
                                clp_error *err) {
    clp_status st = CLP_OK;
    enum { MOST_AFTER = 4 };
    clp_buffer *args[CLP__SPH_BUFFERS + MOST_AFTER];
    size_t n = 0;
    CLP_REQUIRE(n_after <= MOST_AFTER, err, CLP_USAGE,
                "kernel '%s': at most %d buffers after SPH's own, not %zu", s->kernel, MOST_AFTER,
                n_after);
    for (int b = 0; b < CLP__SPH_BUFFERS; b++)
        if ((set & CLP__SPH_BIT(b)) && own[b])
            args[n++] = own[b];
    for (size_t k = 0; k < n_after; k++)
        args[n++] = after[k];
    CLP_TRY(clp_worker_set_step_buffers(w, s, args, n, err));
fail:
    return st;
}

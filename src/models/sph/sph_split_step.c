/* A split run's rank in the step (sph_step.c's hooks): the rebuild with migration and halo,
 * kernels over its own particles' slots, the halo refreshes (their host time counted as the
 * exchange's), and the forces overlapping the refresh the last step began. */
#include "models/sph/sph_split.h"

clp_status clp__sph_rank_resort(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__dist_rank_rebuild(&r->split->dist, err));
    for (int b = 0; b < CLP__SPH_BUFFERS; b++)
        if ((CLP__SPH_HALO_ZEROED & CLP__SPH_BIT(b)) && r->own[b])
            CLP_TRY(clp__dist_rank_zero_halo(&r->split->dist, r->own[b], err));
fail:
    return st;
}

clp_status clp__sph_rank_rebuild(sph_run *r, clp_grid_timing *t, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_split *s = r->split;
    const double start = clp__now();
    CLP_TRY(clp__sph_rank_resort(r, err));
    s->rebuild_seconds += clp__now() - start;
    *t = s->dist.timing;
fail:
    return st;
}

clp_status clp__sph_rank_run_owned(sph_run *r, const clp_step *s, double *seconds, clp_error *err) {
    const clp__dist_rank *d = &r->split->dist;
    return clp_worker_run_step_range(r->w, s, d->owned_first, clp__dist_rank_owned(d), seconds,
                                     err);
}

/* Begins a halo refresh that the next kernel over the particles ends (the forces): the bits,
 * then SPH's own buffers in their order. */
clp_status clp__sph_rank_exchange_begin(sph_run *r, clp_buffer_set fields, clp__sph_buffer_set own,
                                        clp_error *err) {
    const double start = clp__now();
    const clp_buffer *moved[CLP__SPH_BUFFERS];
    size_t n = 0;
    for (int b = 0; b < CLP__SPH_BUFFERS; b++)
        if ((own & CLP__SPH_BIT(b)) && r->own[b])
            moved[n++] = r->own[b];
    clp_status st = clp__dist_rank_refresh_begin_own(&r->split->dist, fields, moved, n, err);
    r->timing.exchange += clp__now() - start;
    return st;
}

/* Ends the halo refresh the last step began, if any. */
clp_status clp__sph_rank_exchange_end(sph_run *r, clp_error *err) {
    const double start = clp__now();
    clp_status st = clp__dist_rank_refresh_end(&r->split->dist, err);
    r->timing.exchange += clp__now() - start;
    return st;
}

/* The forces over the rank's own particles while the halo refresh the last step began ends:
 * first over the inner layers, which read no halo, then over the edges. Each part reads the
 * packed copies of the slots it reads. */
clp_status clp__sph_rank_forces(sph_run *r, clp_buffer_set bits, clp__sph_buffer_set own,
                                size_t local, clp_error *err) {
    clp_status st = CLP_OK;
    const clp__dist_rank *d = &r->split->dist;
    double *phase = &r->timing.forces;
    size_t first, count;
    if (!clp__dist_rank_refreshing(d)) {
        CLP_TRY(clp__sph_pack(r, 0, d->halo_end, err));
        return clp__sph_run_range(r, "sph_forces", bits, own, d->owned_first,
                                  clp__dist_rank_owned(d), local, phase, err);
    }
    CLP_TRY(clp__sph_pack(r, d->owned_first, clp__dist_rank_owned(d), err));
    clp__dist_rank_inner(d, &first, &count);
    CLP_TRY(clp__sph_run_range(r, "sph_forces", bits, own, first, count, local, phase, err));
    CLP_TRY(clp__sph_rank_exchange_end(r, err));
    CLP_TRY(clp__sph_pack(r, 0, d->owned_first, err));
    CLP_TRY(clp__sph_pack(r, d->owned_end, d->halo_end - d->owned_end, err));
    for (int side = 0; side < 2; side++) {
        clp__dist_rank_edge(d, side, &first, &count);
        CLP_TRY(clp__sph_run_range(r, "sph_forces", bits, own, first, count, local, phase, err));
    }
fail:
    return st;
}

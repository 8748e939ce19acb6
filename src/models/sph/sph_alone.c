/* The one-device model's hooks (sph_run.h): at each point where a split run's rank does more,
 * a run on one device does the work of the whole case alone, or nothing. */
#include "models/sph/sph_restart.h"
#include "models/sph/sph_run.h"

static const clp_device_info *bound_device(const sph_run *r) {
    return clp_worker_device(r->w);
}

static clp_status most(sph_run *r, double *v, size_t n, clp_error *err) {
    (void)r, (void)v, (void)n, (void)err;
    return CLP_OK;
}

static void label(const sph_run *r, char *out, size_t size) {
    (void)r;
    if (size)
        out[0] = '\0';
}

/* The device is known to hold the particles before any is made. */
static clp_status place(sph_run *r, const clp__sph_restart *rs, double **xyz, uint32_t **types,
                        uint32_t **ids, clp_error *err) {
    clp_status st = CLP_OK;
    (void)ids; /* a slot's particle is the case's of its index */
    CLP_TRY(clp__sph_check_device_memory(r, err));
    CLP_TRY(clp__sph_make_particles(r, rs, xyz, types, err));
fail:
    return st;
}

static clp_status placed(sph_run *r, clp_error *err) {
    return clp_grid_update(r->grid, err);
}

static clp_status rebuild(sph_run *r, clp_grid_timing *t, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_grid_update(r->grid, err));
    *t = clp_grid_last_timing(r->grid);
fail:
    return st;
}

static clp_status run_owned(sph_run *r, const clp_step *s, double *seconds, clp_error *err) {
    return clp_worker_run_step(r->w, s, seconds, err);
}

/* Over every slot, from the packed copies, which the integration left packed unless a kernel
 * since wrote a density (r->packed). */
static clp_status forces(sph_run *r, clp_buffer_set bits, clp__sph_buffer_set own, size_t local,
                         clp_error *err) {
    clp_status st = CLP_OK;
    double *phase = &r->timing.forces;
    if (!r->packed)
        CLP_TRY(clp__sph_run_kernel(r, "sph_pack", CLP__SPH_PACK_BUFFERS, CLP__SPH_PACK_OWN, r->n,
                                    0, phase, err));
    r->packed = true;
    return clp__sph_run_kernel(r, "sph_forces", bits, own, r->n, local, phase, err);
fail:
    return st;
}

static clp_status exchange_begin(sph_run *r, clp_buffer_set fields, clp__sph_buffer_set own,
                                 clp_error *err) {
    (void)r, (void)fields, (void)own, (void)err;
    return CLP_OK;
}

static clp_status no_exchange(sph_run *r, clp_error *err) {
    (void)r, (void)err;
    return CLP_OK;
}

static clp_status agree_record(sph_run *r, clp__sph_step_record *rec, clp_error *err) {
    (void)r, (void)rec, (void)err;
    return CLP_OK;
}

static bool samples_gauges(const sph_run *r, const char *out_dir) {
    (void)r;
    return out_dir != NULL;
}

static clp_status checkpoint(sph_run *r, const char *path, const char *identity,
                             const clp__sph_clock *clock, clp_error *err) {
    return clp__sph_checkpoint_write(r->w, path, identity, clock, err);
}

/* The phases' least bytes (a split run's phases are rank 0's, its particles a share). */
static clp_status timing(sph_run *r, clp_error *err) {
    (void)err;
    clp__sph_phase_bytes(r->opts, &r->geo, r->particles, clp__sph_listed_neighbours(r),
                         r->timing.steps, r->timing.rebuilds, r->timing.bytes);
    return CLP_OK;
}

static const char *const no_files[] = {NULL};

const clp__sph_hooks clp__sph_alone = {.whole_grid = true,
                                       .cl_files = no_files,
                                       .bound_device = bound_device,
                                       .most = most,
                                       .label = label,
                                       .place = place,
                                       .placed = placed,
                                       .rebuild = rebuild,
                                       .run_owned = run_owned,
                                       .forces = forces,
                                       .exchange_begin = exchange_begin,
                                       .exchange_end = no_exchange,
                                       .agree_step = no_exchange,
                                       .agree_record = agree_record,
                                       .samples_gauges = samples_gauges,
                                       .snapshot = clp__sph_device_snapshot,
                                       .checkpoint = checkpoint,
                                       .timing = timing,
                                       .restart_open = clp__sph_restart_open,
                                       .restart_apply = clp__sph_restart_apply};

/* One step of the SPH time loop on a device: the rebuild when due, the rates, the device's
 * choice of time step, the integrator; a split run's rank adds its halo exchanges between
 * them through its hooks (sph_split_step.c), the last overlapping the next step's forces. */
#include "models/sph/sph_run.h"

#include <string.h>

clp_status clp__sph_run_kernel(sph_run *r, const char *kernel, clp_buffer_set bits,
                               clp__sph_buffer_set own, size_t global, size_t local, double *phase,
                               clp_error *err) {
    clp_status st = CLP_OK;
    const clp_step s = {kernel, bits, global, local};
    double seconds = 0;
    CLP_TRY(clp__sph_set_buffers(r->w, &s, r->own, own, NULL, 0, err));
    st = clp_worker_run_step(r->w, &s, r->timed ? &seconds : NULL, err);
    *phase += seconds;
fail:
    return st;
}

clp_status clp__sph_run_range(sph_run *r, const char *kernel, clp_buffer_set bits,
                              clp__sph_buffer_set own, size_t first, size_t count, size_t local,
                              double *phase, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_step s = {kernel, bits, 0, local};
    double seconds = 0;
    CLP_TRY(clp__sph_set_buffers(r->w, &s, r->own, own, NULL, 0, err));
    st = clp_worker_run_step_range(r->w, &s, first, count, r->timed ? &seconds : NULL, err);
    *phase += seconds;
fail:
    return st;
}

clp_status clp__sph_pack(sph_run *r, size_t first, size_t count, clp_error *err) {
    return clp__sph_run_range(r, "sph_pack", CLP__SPH_PACK_BUFFERS, CLP__SPH_PACK_OWN, first, count,
                              0, &r->timing.forces, err);
}

/* Runs step s, its arguments set, over the particles this device owns. */
static clp_status run_owned(sph_run *r, const clp_step *s, double *phase, clp_error *err) {
    double seconds = 0;
    clp_status st = r->hooks->run_owned(r, s, r->timed ? &seconds : NULL, err);
    *phase += seconds;
    return st;
}

/* Runs a kernel of one work-item per particle of the `bits` and the `own` buffers after them
 * over the particles this device owns. */
static clp_status run_particles(sph_run *r, const char *kernel, clp_buffer_set bits,
                                clp__sph_buffer_set own, double *phase, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_step s = {kernel, bits, r->n, 0};
    CLP_TRY(clp__sph_set_buffers(r->w, &s, r->own, own, NULL, 0, err));
    CLP_TRY(run_owned(r, &s, phase, err));
fail:
    return st;
}

/* A split run's neighbours get the `fields` and the `own` buffers of this rank's edges into
 * their halos, with nothing to overlap (nothing to do on one device). */
static clp_status refresh_halo(sph_run *r, clp_buffer_set fields, clp__sph_buffer_set own,
                               clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(r->hooks->exchange_begin(r, fields, own, err));
    CLP_TRY(r->hooks->exchange_end(r, err));
fail:
    return st;
}

/* The force kernel's work-group size: sph.group, within what the kernel and device allow. */
static clp_status forces_group(sph_run *r, size_t *local, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_launch_local_size(r->w, "sph_forces", local, err));
    const size_t asked = (size_t)clp__sph_group_of(r->opts);
    if (asked && asked < *local)
        *local = asked;
fail:
    return st;
}

/* Whether the density is a kernel sum (sph.density=summation). */
static bool summed_density(const sph_run *r) {
    return clp__sph_density_of(r->opts) == CLP_SPH_DENSITY_SUMMATION;
}

#define OWN(b)   CLP__SPH_BIT(CLP__SPH_##b)
#define RHO_ONLY OWN(RHO)

/* The boundary particles' density under mDBC: the densities, then the ghost nodes after SPH's
 * own (clp__sph_set_buffers). */
static clp_status mdbc(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_step s = {"sph_mdbc",
                        CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_CELL_START |
                            CLP_BUF_CELL_END | CLP_BUF_CONSTANTS,
                        r->n, 0};
    CLP_TRY(clp__sph_set_buffers(r->w, &s, r->own, RHO_ONLY, &r->ghost, 1, err));
    CLP_TRY(run_owned(r, &s, &r->timing.boundary, err));
fail:
    return st;
}

/* The forces' buffers after the grid's bits and the constants: the state, the rates, the
 * largest |a| and |v|, the XSPH correction and the shifting sums. */
#define FORCES_OWN                                                                                 \
    (OWN(VEL) | OWN(RHO) | OWN(ACC) | OWN(DRHO) | OWN(LARGEST) | OWN(XSPH) | OWN(SHIFT))

/* The particles' rates at the current state: the boundary particles' density first under
 * mDBC, the fluid's when it is a sum. */
static clp_status rates(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    const clp_buffer_set grid = clp_grid_iteration_buffers(r->opts);
    const bool summed = summed_density(r);
    if (r->ghost || summed) {
        CLP_TRY(r->hooks->exchange_end(r, err)); /* their densities need the halo's state */
        r->packed = false;                       /* and they change densities */
    }
    if (r->ghost)
        CLP_TRY(mdbc(r, err));
    if (summed)
        CLP_TRY(run_particles(r, "sph_density", grid | CLP_BUF_CONSTANTS, RHO_ONLY,
                              &r->timing.density, err));
    if (r->ghost || summed) /* the forces read the halo's densities */
        CLP_TRY(refresh_halo(r, 0, RHO_ONLY, err));
    const clp_buffer_set forces = grid | CLP_BUF_CONSTANTS;
    size_t local;
    if (r->pencils) {
        CLP_TRY(clp__sph_run_kernel(r, "sph_forces", forces, FORCES_OWN,
                                    r->pencil.groups * r->pencil.group, r->pencil.group,
                                    &r->timing.forces, err));
    } else {
        CLP_TRY(forces_group(r, &local, err));
        CLP_TRY(r->hooks->forces(r, forces, FORCES_OWN, local, err));
    }
fail:
    return st;
}

/* The device's choice of step from the largest |a| and |v| the forces just recorded, into a
 * new step record. */
static clp_status choose_step(sph_run *r, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__sph_run_kernel(r, "sph_dt", CLP_BUF_CONSTANTS, OWN(LARGEST) | OWN(STEP), 1, 1,
                                &r->timing.time_step, err));
    CLP_TRY(r->hooks->agree_step(r, err)); /* a split run's ranks take the smallest */
fail:
    return st;
}

/* The buffers of the integration kernels: the bits every one takes, and of SPH's own the state
 * every one takes (with the forces' largest |a| and |v|, which the corrector clears), the state
 * at the start of a step (predictor-corrector), and those the end of a step checks. */
#define STATE_BITS (CLP_BUF_POS | CLP_BUF_KEY | CLP_BUF_TYPE | CLP_BUF_ID | CLP_BUF_CONSTANTS)
#define STATE_OWN                                                                                  \
    (OWN(VEL) | OWN(RHO) | OWN(ACC) | OWN(DRHO) | OWN(LARGEST) | OWN(STEP) | OWN(XSPH))
#define OLD_OWN (OWN(POS_OLD) | OWN(VEL_OLD) | OWN(RHO_OLD))
#define END_OWN OWN(SHIFT)

/* What the step record says beyond the step: particles the integration excluded (an error
 * with sph.outliers=stop, else a warning), and the step's largest move, added to the bound
 * that calls for a rebuild before the next force evaluation once past half the skin. */
static clp_status read_step_record(sph_run *r, clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    clp__sph_step_record rec;
    _Static_assert(sizeof rec == 5 * sizeof(cl_uint), "the step record is five words");
    /* the host keeps the clock; a split run's record is every rank's */
    CLP_TRY(clp_worker_buffer_read(r->w, r->own[CLP__SPH_STEP], &rec, err));
    CLP_TRY(r->hooks->agree_record(r, &rec, err));
    clock->dt = rec.dt;
    clock->moved += rec.moved;
    clock->rebuild_due = clock->moved > r->half_skin;
    if (rec.excluded == 0)
        return CLP_OK;
    char why[160];
    clp__sph_outlier_reasons(&r->c, r->opts, &r->phys, rec.reasons, why, sizeof why);
    CLP_REQUIRE(!r->stop_on_outliers, err, CLP_CHECK,
                "step %llu, t = %.6g s: %u fluid particle%s (first: particle %u) %s; "
                "sph.outliers=exclude takes such particles out and goes on",
                (unsigned long long)clock->step, clock->time, rec.excluded,
                rec.excluded == 1 ? "" : "s", rec.first_id, why);
    if (r->writer)
        CLP_WARN(CLP_LOG_RUN,
                 "step %llu, t = %.6g s: excluded %u fluid particle%s (first: particle %u) "
                 "that %s",
                 (unsigned long long)clock->step, clock->time, rec.excluded,
                 rec.excluded == 1 ? "" : "s", rec.first_id, why);
fail:
    return st;
}

/* Whether the next step's rates may be queued before this step's record is read, so that the
 * device computes them while the host waits for the record and queues the rest of the step
 * (the wait left an H200 idle 3 % of a step of the 967k dam break): unprofiled, where the
 * time loop reads nothing of them before the next step (next_plain, never on a split run's
 * rank, whose record waits on the other ranks') and they write no density that it reads (mDBC
 * and summed densities do), and where the next step does not rebuild on schedule. When the
 * record calls for a rebuild, they go. */
static bool rates_may_go_ahead(const sph_run *r, const clp__sph_clock *clock, bool next_plain) {
    return next_plain && !r->timed && !r->ghost && !summed_density(r) &&
           !clp_grid_rebuilds_at(r->grid, clock->step + 1);
}

/* Drops the rates queued ahead, of a list the last record found stale: the largest |a| and
 * |v| they recorded are cleared, and the rates are taken again after the rebuild. */
static clp_status drop_rates_ahead(sph_run *r, clp_error *err) {
    const cl_uint cleared[2] = {0, 0};
    r->rates_ahead = false;
    return clp_worker_buffer_write(r->w, r->own[CLP__SPH_LARGEST], cleared, err);
}

clp_status clp__sph_step(sph_run *r, clp__sph_clock *clock, bool next_plain, clp_error *err) {
    clp_status st = CLP_OK;
    const bool symplectic = clp__sph_integrator_of(r->opts) == CLP_SPH_INTEGRATOR_SYMPLECTIC;
    const bool scheduled = clp_grid_rebuilds_at(r->grid, clock->step);
    if (r->rates_ahead && clock->rebuild_due)
        CLP_TRY(drop_rates_ahead(r, err));
    if (scheduled || clock->rebuild_due) {
        if (!r->listed) {
            clp_grid_timing g;
            CLP_TRY(r->hooks->rebuild(r, &g, err));
            clp__run_timing_add_rebuild(&r->timing, &g);
            r->timing.forced_rebuilds += !scheduled;
        }
        clock->moved = 0;  /* from this rebuild, or the setup's that stood for it */
        r->packed = false; /* with local positions the keys' kernel rewrites pos[] */
    }
    r->listed = false;
    if (!r->rates_ahead)
        CLP_TRY(rates(r, err));
    r->rates_ahead = false;
    CLP_TRY(choose_step(r, err));
    /* the integration kernels write the packed copies with the state (cl/sph/sph.cl) */
    if (symplectic) {
        CLP_TRY(run_particles(r, "sph_integrate", STATE_BITS, STATE_OWN | END_OWN,
                              &r->timing.integration, err));
    } else {
        CLP_TRY(run_particles(r, "sph_predict", STATE_BITS, STATE_OWN | OLD_OWN | OWN(SHIFT),
                              &r->timing.integration, err));
        CLP_TRY(r->hooks->exchange_begin(r, CLP__SPH_HALO_STATE, CLP__SPH_HALO_OWN, err));
        CLP_TRY(rates(r, err));
        CLP_TRY(run_particles(r, "sph_correct", STATE_BITS, STATE_OWN | OLD_OWN | END_OWN,
                              &r->timing.integration, err));
    }
    /* ended by the next step's forces, or dropped by its rebuild */
    CLP_TRY(r->hooks->exchange_begin(r, CLP__SPH_HALO_STATE, CLP__SPH_HALO_OWN, err));
    if (rates_may_go_ahead(r, clock, next_plain)) {
        CLP_TRY(rates(r, err));
        r->rates_ahead = true;
    }
    CLP_TRY(read_step_record(r, clock, err));
    r->timing.steps++;
fail:
    return st;
}

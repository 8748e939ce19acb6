/* A split SPH run's rank: the one-device model's run (sph_run.c) with the rank's hooks and
 * state attached, and around its steps what only a rank does: the re-cut that rebalances the
 * ranks (sph_balance.c), the timing of its busy time, its part in the gauges, and the ranks'
 * agreement on the requests. */
#include "models/models.h"
#include "models/sph/sph_balance.h"

/* A rank's model: the one-device model's state first, as its functions take it. */
typedef struct rank_model {
    clp__sph_model m;
    clp__sph_split split;
} rank_model;

/* The rank's state attached to the one-device model's open. */
static clp_status rank_open(void *model, clp__run *run, clp_error *err) {
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    *s = (clp__sph_split){.comm = run->comm,
                          .cut_weights = run->weights,
                          .stop_flag = run->config->stop_requested,
                          .checkpoint_flag = run->config->checkpoint_requested,
                          .gauges = clp__sph_rank_gauge_share(&rm->m.r)};
    clp__sph_balance_init(s, run->opts, run->weights);
    return clp__sph_model_open(&rm->m, run, &clp__sph_rank_hooks, s, err);
}

/* The files and gauges; rank 0's files say which snapshots the run continued has taken. */
static clp_status rank_start(void *model, clp__run *run, clp_error *err) {
    clp_status st = CLP_OK;
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    CLP_TRY(clp__sph_model_start(model, run, err));
    if (!s->comm) /* alone since the cut */
        return CLP_OK;
    if (rm->m.gauges)
        clp__sph_gauges_share(rm->m.gauges, &s->gauges);
    CLP_TRY(clp__comm_broadcast(s->comm, &rm->m.out.last_step, sizeof rm->m.out.last_step, err));
fail:
    return st;
}

/* One step, after the re-cut that rebalances the ranks when due, its busy time measured; the
 * time loop reads its record before the next (next_plain false). Alone: as on one device. */
static clp_status rank_advance(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                               clp_error *err) {
    clp_status st = CLP_OK;
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    sph_run *r = &rm->m.r;
    *ran = 0;
    if (s->comm) {
        CLP_TRY(clp__sph_rebalance(r, run->opts, &rm->m.clock, run->config, err));
        if (r->left_out) {
            run->quit = true;
            goto fail;
        }
        if (rm->m.gauges) /* on the ranks a re-cut kept (alone: the whole case's) */
            clp__sph_gauges_share(rm->m.gauges, s->comm ? &s->gauges : NULL);
    }
    if (!s->comm)
        return clp__sph_model_advance(model, run, steps, ran, err);
    clp__sph_balance_step_begin(r);
    CLP_TRY(clp__sph_model_step(&rm->m, run, false, ran, err));
    clp__sph_balance_step_end(r);
fail:
    return st;
}

/* The requests, agreed with the last step's record or else here; a rank left alone by a cut
 * takes its own. */
static clp_status rank_requests(void *model, clp__run *run, bool *stop, bool *checkpoint,
                                clp_error *err) {
    (void)run;
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    if (!s->comm)
        return CLP_OK;
    if (!s->flags_agreed)
        return clp__sph_dist_agree_flags(&rm->m.r, stop, checkpoint, err);
    *stop = s->agreed_stop;
    *checkpoint = s->agreed_checkpoint;
    s->flags_agreed = false;
    return CLP_OK;
}

static void rank_close(void *model) {
    rank_model *rm = model;
    clp__sph_split *s = &rm->split;
    if (s->comm) /* before the grid whose buffers it moves */
        clp__dist_rank_destroy(&s->dist);
    clp__sph_model_close(&rm->m);
    clp_options_destroy(s->rank_opts);
    while (s->n_views > 0)
        clp__comm_destroy(s->views[--s->n_views]);
}

static const clp__run_model rank_model_ops = {.name = "sph",
                                              .size = sizeof(rank_model),
                                              .open = rank_open,
                                              .start = rank_start,
                                              .advance = rank_advance,
                                              .requests = rank_requests,
                                              .finish = clp__sph_model_finish,
                                              .close = rank_close};

clp_status clp__sph_run_rank(clp_worker *w, clp__comm *comm, const double *weights,
                             const clp_options *opts, const char *case_path,
                             const clp_run_config *config, clp_error *err) {
    clp_options *resolved = NULL;
    clp_status st = clp__sph_resolve_format(opts, &resolved, err);
    if (st == CLP_OK)
        st = clp__model_drive(&rank_model_ops, w, comm, weights, resolved, case_path, config, err);
    clp_options_destroy(resolved);
    return st;
}

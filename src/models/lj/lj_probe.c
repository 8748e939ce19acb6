/* lj.strategy=auto: a short timing probe of every strategy, with a stored list and with the
 * cell search, that the options and the device allow for the case, run once per device and
 * case shape. Each candidate runs whole steps, a rebuild among them, so that a list is
 * charged for its builds. The choice, with the times, is stored in the binary cache beside the
 * programs, under a key of the device, the options, the constants and the case's shape, so a
 * second run starts with it at once. Opening a system makes these choices first, then
 * lj.fit_device's (lj_fit.c), and opens the one-device system (lj_device.c) with them. */
#include "models/lj/lj.h"

#include <stdlib.h>
#include <string.h>

/* Two runs of a list's life each, median of three rounds: a few milliseconds for the
 * benchmark's cases on a GPU, and it separates candidates that differ by more than the
 * noise. A list lives neighbors.every steps, but in the probe at most PROBE_LIFE: with
 * neighbors.check, lists meant to live 100 steps are rebuilt after 10 or so as the atoms move,
 * and timing 100-step lives made a first probe on a CPU take minutes. */
enum { PROBE_RUNS = 2, PROBE_ROUNDS = 3, PROBE_LIFE = 20 };

/* The cache record of the probe: everything the program of any candidate depends on but its
 * own layout and neighbour mode, and the shape the layouts are sized from. */
static clp_status probe_record(const clp_worker *w, const clp_options *opts,
                               const clp_grid_geometry *geo, const clp__lj_state *s,
                               const clp__lj_params *p, double dt, char **out, clp_error *err) {
    char *source = NULL;
    clp_status st = clp__lj_source(opts, geo, s->n, p, dt, NULL, false, &source, err);
    if (st != CLP_OK)
        return st;
    clp_strbuf text = {0};
    clp__sb_appendf(&text,
                    "lj.strategy=auto probe: %zu atoms, %d x %d x %d cells, up to %u a cell, "
                    "lj.threads_per_atom=%lld, neighbors.every=%lld\n",
                    s->n, geo->cells[0], geo->cells[1], geo->cells[2], clp__lj_max_per_cell(geo, s),
                    clp__lj_threads_per_atom_of(opts), clp__neighbors_every_of(opts));
    clp__sb_append(&text, source);
    free(source);
    char *body = clp__sb_take(&text);
    *out = clp_cache_key_record(body, "", clp_worker_device(w));
    free(body);
    return *out ? CLP_OK : CLP_FAIL(err, CLP_NOMEM, "out of host memory");
}

/* "lj.strategy=S neighbors.mode=M" for a candidate. */
static void choice_text(clp__lj_strategy strategy, clp__neighbors_mode mode, char *out,
                        size_t size) {
    snprintf(out, size, "lj.strategy=%s neighbors.mode=%s", clp__lj_strategy_name(strategy),
             clp__neighbors_mode_name(mode));
}

/* Sets a candidate's strategy and neighbour mode in `opts`. */
static clp_status apply_choice(clp_options *opts, clp__lj_strategy strategy,
                               clp__neighbors_mode mode, clp_error *err) {
    const clp_status st = clp__lj_strategy_set(opts, strategy, err);
    return st != CLP_OK ? st : clp__neighbors_mode_set(opts, mode, err);
}

/* Applies the choice on the first line of a stored probe, if it names one. */
static bool stored_choice(const unsigned char *blob, size_t size, clp_options *resolved) {
    char line[96], strategy[32], mode[8];
    size_t len = 0;
    while (len < size && len + 1 < sizeof line && blob[len] != '\n')
        len++;
    memcpy(line, blob, len);
    line[len] = '\0';
    clp__lj_strategy s;
    clp__neighbors_mode m;
    if (sscanf(line, "lj.strategy=%31s neighbors.mode=%7s", strategy, mode) != 2 ||
        !clp__lj_strategy_parse(strategy, &s) || s == CLP_LJ_STRATEGY_AUTO ||
        !clp__neighbors_mode_parse(mode, &m))
        return false;
    return apply_choice(resolved, s, m, NULL) == CLP_OK;
}

static clp_status run_steps(void *sys, clp_error *err) {
    clp__lj_system *system = sys;
    return clp__lj_system_run(system, (uint64_t)clp__lj_system_every(system), err);
}

/* Opens the system with the candidate's options and times its steps; CLP_CASE when the
 * candidate cannot run for this case on this device, CLP_DEVICE_MEMORY when its buffers do not
 * fit it. */
static clp_status time_candidate(clp_worker *w, const clp_options *opts, const clp__lj_state *s,
                                 const clp__lj_params *p, double dt, clp__lj_strategy strategy,
                                 clp__neighbors_mode mode, double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *fixed = NULL;
    clp__lj_system *sys = NULL;
    CLP_TRY(clp_options_dup(opts, &fixed, err));
    CLP_TRY(apply_choice(fixed, strategy, mode, err));
    /* a list the device cannot hold is left out, not run as the cell search */
    CLP_TRY(clp__lj_fit_device_set(fixed, false, err));
    if (clp__neighbors_every_of(fixed) > PROBE_LIFE)
        CLP_TRY(clp__neighbors_every_set(fixed, PROBE_LIFE, err));
    /* Candidates are built, not stored: only the chosen one runs again, and it is stored when
     * the run builds it. PoCL compiles every kernel of a program to hand out its binary, which
     * made a first probe there four times longer. */
    CLP_TRY(clp__lj_system_open(w, fixed, NULL, s, p, dt, &sys, err));
    double per_run;
    CLP_TRY(clp__time_launches(w, run_steps, sys, PROBE_RUNS, PROBE_ROUNDS, &per_run, err));
    *seconds = per_run / (double)clp__lj_system_every(sys);
fail:
    clp__lj_system_close(sys);
    clp_options_destroy(fixed);
    return st;
}

/* Times every candidate the options allow, applies the fastest to `resolved`, and stores
 * the choice and the times under `record`. */
static clp_status probe_all(clp_worker *w, const clp_options *opts, clp_cache *cache,
                            const clp__lj_state *s, const clp__lj_params *p, double dt,
                            const char *record, clp_options *resolved, clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf report = {0};
    double best = 0;
    int best_strategy = -1;
    clp__neighbors_mode best_mode = CLP_NEIGHBORS_MODE_LIST;
    for (int k = 0; k < CLP_LJ_STRATEGY_AUTO; k++)
        for (int m = 0; m < CLP_NEIGHBORS_MODE_COUNT; m++) {
            if (clp__lj_strategy_searches_cells((clp__lj_strategy)k) && m != CLP_NEIGHBORS_MODE_JIT)
                continue; /* these search the cells themselves */
            char choice[96];
            choice_text((clp__lj_strategy)k, (clp__neighbors_mode)m, choice, sizeof choice);
            clp_error refusal = CLP_ERROR_INIT;
            double seconds;
            clp_status tried = time_candidate(w, opts, s, p, dt, (clp__lj_strategy)k,
                                              (clp__neighbors_mode)m, &seconds, &refusal);
            if (tried == CLP_CASE || tried == CLP_DEVICE_MEMORY) {
                CLP_INFO(CLP_LOG_RUN, "lj.strategy=auto: %s left out: %s", choice, refusal.message);
                continue;
            }
            if (tried != CLP_OK) {
                *err = refusal;
                st = tried;
                goto fail;
            }
            clp__sb_appendf(&report, "%s %.6e\n", choice, seconds);
            if (best_strategy < 0 || seconds < best) {
                best = seconds;
                best_strategy = k;
                best_mode = (clp__neighbors_mode)m;
            }
        }
    CLP_REQUIRE(best_strategy >= 0, err, CLP_CASE,
                "lj.strategy=auto: no strategy can run this case");
    CLP_TRY(apply_choice(resolved, (clp__lj_strategy)best_strategy, best_mode, err));
    char best_choice[96];
    choice_text((clp__lj_strategy)best_strategy, best_mode, best_choice, sizeof best_choice);
    char *times = clp__sb_take(&report);
    CLP_INFO(CLP_LOG_RUN, "lj.strategy=auto chose %s; seconds per step:\n%s", best_choice,
             times ? times : "");
    clp_strbuf stored = {0};
    clp__sb_appendf(&stored, "%s\n%s", best_choice, times ? times : "");
    free(times);
    char *text = clp__sb_take(&stored);
    if (cache && text)
        st = clp_cache_store(cache, record, (const unsigned char *)text, strlen(text), "", err);
    free(text);
fail:
    free(clp__sb_take(&report));
    return st;
}

clp_status clp__lj_probe(clp_worker *w, const clp_options *opts, clp_cache *cache,
                         const clp__lj_state *s, const clp__lj_params *p, double dt,
                         const clp_grid_geometry *geo, clp_options *resolved, clp_error *err) {
    clp_status st = CLP_OK;
    char *record = NULL, *log = NULL;
    unsigned char *blob = NULL;
    size_t size = 0;
    bool hit = false;
    CLP_TRY(probe_record(w, opts, geo, s, p, dt, &record, err));
    if (cache)
        CLP_TRY(clp_cache_load(cache, record, &blob, &size, &log, &hit, err));
    if (hit && stored_choice(blob, size, resolved))
        CLP_INFO(CLP_LOG_RUN,
                 "lj.strategy=auto: lj.strategy=%s neighbors.mode=%s, as probed "
                 "before on this device",
                 clp__lj_strategy_name(clp__lj_strategy_of(resolved)),
                 clp__neighbors_mode_name(clp__neighbors_mode_of(resolved)));
    else
        CLP_TRY(probe_all(w, opts, cache, s, p, dt, record, resolved, err));
fail:
    free(record);
    free(blob);
    free(log);
    return st;
}

clp_status clp__lj_system_open(clp_worker *w, const clp_options *opts, clp_cache *cache,
                               const clp__lj_state *s, const clp__lj_params *p, double dt,
                               clp__lj_system **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *resolved = NULL;
    clp_grid_geometry geo;
    CLP_TRY(clp__lj_geometry(opts, s, p, &geo, err));
    CLP_TRY(clp_options_dup(opts, &resolved, err));
    clp__lj_strategy strategy = clp__lj_strategy_of(opts);
    if (strategy == CLP_LJ_STRATEGY_AUTO) {
        CLP_TRY(clp__lj_probe(w, opts, cache, s, p, dt, &geo, resolved, err));
        strategy = clp__lj_strategy_of(resolved);
        CLP_TRY(clp__lj_geometry(resolved, s, p, &geo, err)); /* the mode chosen with it */
    }
    CLP_TRY(clp__lj_fit_device(w, NULL, resolved, &geo, s->n, clp__lj_density(s), err));
    return clp__lj_system_open_resolved(w, resolved, cache, s, p, dt, &geo, strategy, out, err);
fail:
    clp_options_destroy(resolved);
    return st;
}

/* lj.strategy=auto: a short timing probe of every strategy that the options and the device
 * allow for the case, run once per device and case shape. The choice, with the times, is
 * stored in the binary cache beside the programs, under a key of the device, the options,
 * the constants and the case's shape, so a second run starts with it at once. */
#include "models/lj/lj.h"

#include <stdlib.h>
#include <string.h>

/* Ten launches, median of three rounds: a few milliseconds for the benchmark's cases on a
 * GPU, and it separates strategies that differ by more than the noise. */
enum { PROBE_LAUNCHES = 10, PROBE_ROUNDS = 3 };

/* The cache record of the probe: everything the program of any strategy depends on but the
 * strategy's own layout, and the shape the layouts are sized from. */
static clp_status probe_record(const clp_worker *w, const clp_options *opts,
                               const clp_grid_geometry *geo, const clp__lj_state *s,
                               const clp__lj_params *p, double dt, char **out, clp_error *err) {
    char *source = NULL;
    clp_status st = clp__lj_source(opts, geo, s->n, p, dt, NULL, false, &source, err);
    if (st != CLP_OK)
        return st;
    clp_strbuf text = {0};
    clp__sb_appendf(
        &text, "lj.strategy=auto probe: %zu atoms, %d x %d x %d cells, up to %u a cell\n", s->n,
        geo->cells[0], geo->cells[1], geo->cells[2], clp__lj_max_per_cell(geo, s));
    clp__sb_append(&text, source);
    free(source);
    char *body = clp__sb_take(&text);
    *out = clp_cache_key_record(body, "", clp_worker_device(w));
    free(body);
    return *out ? CLP_OK : CLP_FAIL(err, CLP_NOMEM, "out of host memory");
}

/* The strategy named on the first line of a stored probe, if it is one. */
static bool stored_choice(const unsigned char *blob, size_t size, clp__lj_strategy *out) {
    char name[32];
    size_t len = 0;
    while (len < size && len + 1 < sizeof name && blob[len] != '\n')
        len++;
    memcpy(name, blob, len);
    name[len] = '\0';
    return clp__lj_strategy_from_name(name, out);
}

/* Opens the system with `strategy` and times its force kernel; CLP_CASE when the strategy
 * cannot run for this case on this device. */
static clp_status time_strategy(clp_worker *w, const clp_options *opts, clp_cache *cache,
                                const clp__lj_state *s, const clp__lj_params *p, double dt,
                                clp__lj_strategy strategy, double *seconds, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *fixed = NULL;
    clp__lj_system *sys = NULL;
    char assignment[64];
    snprintf(assignment, sizeof assignment, "lj.strategy=%s", clp__lj_strategy_name(strategy));
    CLP_TRY(clp_options_dup(opts, &fixed, err));
    CLP_TRY(clp_options_apply_assignment(fixed, assignment, err));
    CLP_TRY(clp__lj_system_open(w, fixed, cache, s, p, dt, &sys, err));
    CLP_TRY(clp__lj_system_time_forces(sys, PROBE_LAUNCHES, PROBE_ROUNDS, seconds, err));
fail:
    clp__lj_system_close(sys);
    clp_options_destroy(fixed);
    return st;
}

/* Times every strategy the options allow, picks the fastest, and stores the choice and the
 * times under `record`. */
static clp_status probe_all(clp_worker *w, const clp_options *opts, clp_cache *cache,
                            const clp__lj_state *s, const clp__lj_params *p, double dt,
                            const char *record, clp__lj_strategy *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf report = {0};
    const bool jit = strcmp(clp_options_enum(opts, "neighbors.mode"), "jit") == 0;
    double best = 0;
    bool found = false;
    for (int k = 0; k < CLP__LJ_STRATEGIES; k++) {
        if (!jit && k >= CLP__LJ_PAR_CELL)
            continue; /* these search the cells themselves */
        clp_error refusal = CLP_ERROR_INIT;
        double seconds;
        clp_status tried = time_strategy(w, opts, cache, s, p, dt, k, &seconds, &refusal);
        if (tried == CLP_CASE) {
            CLP_INFO(CLP_LOG_RUN, "lj.strategy=auto: %s left out: %s", clp__lj_strategy_name(k),
                     refusal.message);
            continue;
        }
        if (tried != CLP_OK) {
            *err = refusal;
            st = tried;
            goto fail;
        }
        clp__sb_appendf(&report, "%s %.6e\n", clp__lj_strategy_name(k), seconds);
        if (!found || seconds < best) {
            best = seconds;
            *out = (clp__lj_strategy)k;
            found = true;
        }
    }
    CLP_REQUIRE(found, err, CLP_CASE, "lj.strategy=auto: no strategy can run this case");
    char *times = clp__sb_take(&report);
    clp_strbuf stored = {0};
    clp__sb_appendf(&stored, "%s\n%s", clp__lj_strategy_name(*out), times ? times : "");
    free(times);
    char *text = clp__sb_take(&stored);
    CLP_INFO(CLP_LOG_RUN, "lj.strategy=auto chose %s; seconds per force evaluation:\n%s",
             clp__lj_strategy_name(*out), text);
    if (cache && text)
        st = clp_cache_store(cache, record, (const unsigned char *)text, strlen(text), "", err);
    free(text);
fail:
    free(clp__sb_take(&report));
    return st;
}

clp_status clp__lj_probe(clp_worker *w, const clp_options *opts, clp_cache *cache,
                         const clp__lj_state *s, const clp__lj_params *p, double dt,
                         const clp_grid_geometry *geo, clp__lj_strategy *out, clp_error *err) {
    clp_status st = CLP_OK;
    char *record = NULL, *log = NULL;
    unsigned char *blob = NULL;
    size_t size = 0;
    bool hit = false;
    CLP_TRY(probe_record(w, opts, geo, s, p, dt, &record, err));
    if (cache)
        CLP_TRY(clp_cache_load(cache, record, &blob, &size, &log, &hit, err));
    if (hit && stored_choice(blob, size, out))
        CLP_INFO(CLP_LOG_RUN, "lj.strategy=auto: %s, as probed before on this device",
                 clp__lj_strategy_name(*out));
    else
        CLP_TRY(probe_all(w, opts, cache, s, p, dt, record, out, err));
fail:
    free(record);
    free(blob);
    free(log);
    return st;
}

/* The search strategies of clpart tune (see tune_search.h). */
#include "tune_search.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[TUNE_STRATEGY_COUNT] = {"exhaustive", "random", "anneal", "tpe"};

const char *tune_strategy_name(tune_strategy s) {
    return s < TUNE_STRATEGY_COUNT ? names[s] : "?";
}

bool tune_strategy_parse(const char *text, tune_strategy *out) {
    for (int s = 0; s < TUNE_STRATEGY_COUNT; s++)
        if (!strcmp(text, names[s])) {
            *out = (tune_strategy)s;
            return true;
        }
    return false;
}

/* SplitMix64: a small generator whose stream a seed fixes on every platform. */
static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t random_below(uint64_t *state, size_t n) {
    return (size_t)(next_random(state) % n);
}

static double random_unit(uint64_t *state) {
    return (double)(next_random(state) >> 11) * 0x1.0p-53;
}

/* A search under way: what is measured, and what may still be. */
typedef struct search {
    const tune_grid *g;
    tune_budget budget;
    tune_measure measure;
    void *ctx;
    tune_trace *trace;
    bool *measured;
    double *rate; /* by combination, once measured */
    uint64_t random;
} search;

static bool spent(const search *s) {
    const tune_trace *t = s->trace;
    return t->n == s->g->n || (s->budget.evaluations && t->n >= s->budget.evaluations) ||
           (s->budget.seconds > 0 && t->seconds >= s->budget.seconds);
}

static clp_status measure(search *s, size_t k, clp_error *err) {
    double rate = 0, seconds = 0;
    const clp_status st = s->measure(s->ctx, k, &rate, &seconds, err);
    if (st != CLP_OK)
        return st;
    tune_trace *t = s->trace;
    s->measured[k] = true;
    s->rate[k] = rate;
    t->order[t->n] = k;
    t->rates[t->n] = rate;
    t->n++;
    t->seconds += seconds;
    return CLP_OK;
}

/* The combinations not yet measured in `out`, in order; their count. */
static size_t unmeasured(const search *s, size_t *out) {
    size_t m = 0;
    for (size_t k = 0; k < s->g->n; k++)
        if (!s->measured[k])
            out[m++] = k;
    return m;
}

static size_t distance(const tune_grid *g, size_t a, size_t b) {
    size_t d = 0;
    for (size_t i = 0; i < g->n_axes; i++)
        d += g->at[a * g->n_axes + i] != g->at[b * g->n_axes + i];
    return d;
}

static clp_status in_order(search *s, size_t *pool, bool shuffled, clp_error *err) {
    clp_status st = CLP_OK;
    size_t m = unmeasured(s, pool);
    for (size_t i = 0; shuffled && i + 1 < m; i++) { /* Fisher-Yates */
        const size_t j = i + random_below(&s->random, m - i);
        const size_t t = pool[i];
        pool[i] = pool[j];
        pool[j] = t;
    }
    for (size_t i = 0; i < m && !spent(s); i++)
        CLP_TRY(measure(s, pool[i], err));
fail:
    return st;
}

/* Simulated annealing: from the current combination to one of the nearest not yet measured
 * (one value changed, where any is left), taken as the new current one when it is faster, or
 * with the probability exp((r' / r - 1) / T) when slower; T falls by a factor each step. */
static clp_status anneal(search *s, size_t *pool, clp_error *err) {
    static const double start_temperature = 0.5, cooling = 0.85;
    clp_status st = CLP_OK;
    double temperature = start_temperature;
    size_t current = 0;
    while (!spent(s)) {
        const size_t m = unmeasured(s, pool);
        size_t nearest = SIZE_MAX, n_near = 0;
        for (size_t i = 0; i < m; i++) {
            const size_t d = distance(s->g, current, pool[i]);
            if (d < nearest)
                nearest = d, n_near = 0;
            if (d == nearest)
                pool[n_near++] = pool[i];
        }
        const size_t next = pool[random_below(&s->random, n_near)];
        CLP_TRY(measure(s, next, err));
        const double r = s->rate[next], r_current = s->rate[current];
        if (r >= r_current ||
            (r > 0 && random_unit(&s->random) < exp((r / r_current - 1) / temperature)))
            current = next;
        temperature *= cooling;
    }
fail:
    return st;
}

/* A tree-structured Parzen estimator (Bergstra et al. 2011) over categorical axes: the
 * combinations measured are split into the fastest quarter and the rest; each axis gives
 * each value a frequency in both (smoothed by one), and the next combination is the one not
 * yet measured that maximises the product over the axes of good / rest frequency. The first
 * measurements are random, as many as there are axes (at least 2). */
static clp_status tpe(search *s, size_t *pool, clp_error *err) {
    const tune_grid *g = s->g;
    const size_t start = g->n_axes > 2 ? g->n_axes : 2;
    clp_status st = CLP_OK;
    size_t *sorted = NULL;
    double *good = NULL, *rest = NULL;
    while (!spent(s) && s->trace->n < 1 + start)
        CLP_TRY(measure(s, pool[random_below(&s->random, unmeasured(s, pool))], err));
    const size_t slots = TUNE_MAX_VALUES + 1; /* a slot for "left out", then each value */
    sorted = malloc(g->n * sizeof *sorted);
    good = malloc(g->n_axes * slots * sizeof *good);
    rest = malloc(g->n_axes * slots * sizeof *rest);
    CLP_REQUIRE(sorted && good && rest, err, CLP_NOMEM, "out of host memory");
    while (!spent(s)) {
        const tune_trace *t = s->trace;
        memcpy(sorted, t->order, t->n * sizeof *sorted);
        for (size_t i = 1; i < t->n; i++) /* fastest first, stable */
            for (size_t j = i; j > 0 && s->rate[sorted[j]] > s->rate[sorted[j - 1]]; j--) {
                const size_t k = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = k;
            }
        const size_t n_good = (t->n + 3) / 4;
        memset(good, 0, g->n_axes * slots * sizeof *good);
        memset(rest, 0, g->n_axes * slots * sizeof *rest);
        for (size_t i = 0; i < t->n; i++)
            for (size_t a = 0; a < g->n_axes; a++) {
                const int v = g->at[sorted[i] * g->n_axes + a];
                (i < n_good ? good : rest)[a * slots + (size_t)(v + 1)] += 1;
            }
        const size_t m = unmeasured(s, pool);
        double best_score = -INFINITY;
        size_t chosen = pool[0], ties = 0;
        for (size_t i = 0; i < m; i++) {
            double score = 0;
            for (size_t a = 0; a < g->n_axes; a++) {
                const size_t slot = a * slots + (size_t)(g->at[pool[i] * g->n_axes + a] + 1);
                const double categories = (double)g->n_values[a] + 1;
                score += log((good[slot] + 1) / ((double)n_good + categories)) -
                         log((rest[slot] + 1) / ((double)(t->n - n_good) + categories));
            }
            if (score > best_score + 1e-12)
                best_score = score, chosen = pool[i], ties = 1;
            else if (fabs(score - best_score) <= 1e-12 && random_below(&s->random, ++ties) == 0)
                chosen = pool[i]; /* one of equals, each as likely */
        }
        CLP_TRY(measure(s, chosen, err));
    }
fail:
    free(sorted);
    free(good);
    free(rest);
    return st;
}

clp_status tune_search(const tune_grid *g, tune_strategy strategy, uint64_t seed,
                       tune_budget budget, tune_measure measure_fn, void *ctx, tune_trace *trace,
                       clp_error *err) {
    clp_status st = CLP_OK;
    *trace = (tune_trace){0};
    search s = {.g = g,
                .budget = budget,
                .measure = measure_fn,
                .ctx = ctx,
                .trace = trace,
                .random = seed};
    size_t *pool = malloc((g->n ? g->n : 1) * sizeof *pool);
    s.measured = calloc(g->n ? g->n : 1, sizeof *s.measured);
    s.rate = calloc(g->n ? g->n : 1, sizeof *s.rate);
    trace->order = malloc((g->n ? g->n : 1) * sizeof *trace->order);
    trace->rates = malloc((g->n ? g->n : 1) * sizeof *trace->rates);
    CLP_REQUIRE(pool && s.measured && s.rate && trace->order && trace->rates, err, CLP_NOMEM,
                "out of host memory");
    CLP_REQUIRE(g->n > 0 && g->n_axes <= TUNE_MAX_AXES, err, CLP_USAGE,
                "a search needs a space of at least one combination on at most %d axes",
                TUNE_MAX_AXES);
    for (size_t a = 0; a < g->n_axes; a++)
        CLP_REQUIRE(g->n_values[a] <= TUNE_MAX_VALUES, err, CLP_USAGE,
                    "a search takes at most %d values on an axis", TUNE_MAX_VALUES);
    CLP_TRY(measure(&s, 0, err)); /* the case as it is: what the others are compared with */
    switch (strategy) {
    case TUNE_EXHAUSTIVE:
    case TUNE_RANDOM:
        st = in_order(&s, pool, strategy == TUNE_RANDOM, err);
        break;
    case TUNE_ANNEAL:
        st = anneal(&s, pool, err);
        break;
    default:
        st = tpe(&s, pool, err);
        break;
    }
fail:
    free(pool);
    free(s.measured);
    free(s.rate);
    return st;
}

size_t tune_trace_best(const tune_trace *t) {
    size_t best = 0;
    for (size_t i = 1; i < t->n; i++)
        if (t->rates[i] > t->rates[best])
            best = i;
    return best;
}

size_t tune_trace_reach(const tune_trace *t, double best, double fraction) {
    for (size_t i = 0; i < t->n; i++)
        if (t->rates[i] > 0 && t->rates[i] >= fraction * best)
            return i + 1;
    return 0;
}

void tune_trace_free(tune_trace *t) {
    free(t->order);
    free(t->rates);
    *t = (tune_trace){0};
}

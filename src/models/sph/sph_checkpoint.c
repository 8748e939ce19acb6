/* Checkpoints of an SPH run: every particle buffer that carries state, in the current
 * (sorted) order, with the step, so a restart on the same device continues bit for bit.
 * The identity record ties a checkpoint to the case's geometry and physics, the value of
 * every option of SPH's modules, the device and driver, and the particle count. */
#include "options/options_schema.h"
#include "io/checkpoint.h"
#include "models/sph/sph_checkpoint.h"
#include "models/models.h"
#include "models/sph/sph_pieces.h"

#include <stdlib.h>
#include <string.h>

/* The buffers a step needs from the one before; the rest are recomputed. The cell ranges
 * of the last rebuild let a restart rebuild the neighbour list without a sort (the clock's
 * bound on the moves since then tells when the next one is forced); the ghost nodes follow the
 * particles' order. A buffer the options leave out is left out here too. */
static const struct {
    clp_buffer_set bit; /* 0: the model's own buffer named `own`, `each` bytes a slot */
    const char *name;
    const char *own;
    size_t each;
} state[] = {{CLP_BUF_POS, "pos", NULL, 0},
             {CLP_BUF_KEY, "key", NULL, 0},
             {CLP_BUF_TYPE, "type", NULL, 0},
             {CLP_BUF_CELL_START, "cell_start", NULL, 0},
             {CLP_BUF_CELL_END, "cell_end", NULL, 0},
             {CLP_BUF_ID, "id", NULL, 0},
             {0, "vel", CLP__SPH_VEL_NAME, sizeof(cl_float4)},
             {0, "rho", CLP__SPH_RHO_NAME, sizeof(cl_float)},
             {0, "ghost", CLP__SPH_GHOST, sizeof(cl_float4)}};
enum { STATE_COUNT = sizeof state / sizeof state[0] };

static void append_vector(clp_strbuf *sb, const char *name, const double v[3]) {
    clp__sb_appendf(sb, "%s %.17g %.17g %.17g\n", name, v[0], v[1], v[2]);
}

/* Whether option `name` is of one of the option modules SPH's programs take (the registry's). */
static bool own_option(const char *name) {
    size_t n_modules;
    const char *const *modules = clp__model_modules("sph", &n_modules);
    const size_t len = strcspn(name, ".");
    for (size_t k = 0; k < n_modules; k++)
        if (strlen(modules[k]) == len && strncmp(modules[k], name, len) == 0)
            return true;
    return false;
}

clp_status clp__sph_identity(const clp_sph_case *c, const clp__sph_physics_values *p,
                             const clp_options *opts, const clp_device_info *dev, size_t particles,
                             char **out, clp_error *err) {
    clp_strbuf sb = {0};
    /* What sets the dynamics; end time and output intervals may change on a restart. */
    append_vector(&sb, "domain origin", c->origin);
    append_vector(&sb, "domain size", c->size);
    for (size_t b = 0; b < c->n_fluid; b++) {
        append_vector(&sb, "fluid min", c->fluid[b].min);
        append_vector(&sb, "fluid max", c->fluid[b].max);
    }
    for (size_t b = 0; b < c->n_walls; b++) {
        append_vector(&sb, "wall min", c->walls[b].min);
        append_vector(&sb, "wall max", c->walls[b].max);
    }
    if (c->has_tank) {
        append_vector(&sb, "tank min", c->tank.min);
        append_vector(&sb, "tank max", c->tank.max);
        clp__sb_appendf(&sb, "tank layers %d open_top %d\n", c->layers, c->open_top);
    }
    append_vector(&sb, "gravity", c->gravity);
    clp__sb_appendf(&sb, "dp %.17g h %.17g rho0 %.17g c0 %.17g alpha %.17g nu %.17g dt %.17g\n",
                    c->dp, p->h, c->rho0, p->c0, c->alpha, c->nu, p->dt);
    const clp_schema *schema = clp_options_schema(opts);
    for (size_t i = 0; i < clp_schema_count(schema); i++) {
        char value[128];
        const clp__option_def *def = clp__schema_option(schema, i);
        if (!own_option(def->name)) /* another model's: a new model changes nothing here */
            continue;
        clp__value_format(def, clp__options_value_at(opts, i), value, sizeof value);
        clp__sb_appendf(&sb, "option %s=%s\n", def->name, value);
    }
    if (dev)
        clp__sb_appendf(&sb, "device %s / %s / %s\n", dev->platform_name, dev->name,
                        dev->driver_version);
    clp__sb_appendf(&sb, "particles %zu\n", particles);
    *out = clp__sb_take(&sb);
    return *out ? CLP_OK : CLP_FAIL(err, CLP_NOMEM, "out of host memory");
}

/* The lines of `identity` for which `keep(line, its length, ctx)` holds (new; "" when none,
 * NULL when out of memory). */
static char *kept_lines(const char *identity, bool (*keep)(const char *, size_t, const void *),
                        const void *ctx) {
    clp_strbuf sb = {0};
    clp__sb_appendf(&sb, "%s", "");
    for (const char *line = identity; *line;) {
        const size_t len = strcspn(line, "\n");
        if (keep(line, len, ctx))
            clp__sb_appendf(&sb, "%.*s\n", (int)len, line);
        line += len + (line[len] == '\n');
    }
    return clp__sb_take(&sb);
}

/* Not an option line, or one of SPH's modules. */
static bool own_line(const char *line, size_t len, const void *ctx) {
    (void)len, (void)ctx;
    return strncmp(line, "option ", 7) != 0 || own_option(line + 7);
}

char *clp__sph_identity_own(const char *identity) {
    return kept_lines(identity, own_line, NULL);
}

/* Not the line of an option the schema `ctx` marks as a performance one. */
static bool results_line(const char *line, size_t len, const void *ctx) {
    const clp_schema *schema = ctx;
    char name[128];
    const size_t name_end = strcspn(line, "=");
    if (strncmp(line, "option ", 7) != 0 || name_end >= len || name_end - 7 >= sizeof name)
        return true;
    memcpy(name, line + 7, name_end - 7);
    name[name_end - 7] = '\0';
    const long i = clp_schema_find(schema, name);
    return i < 0 || !clp__schema_option(schema, (size_t)i)->performance;
}

char *clp__sph_identity_results(const char *identity, const clp_schema *schema) {
    return kept_lines(identity, results_line, schema);
}

typedef struct prefix_filter {
    const char *const *prefixes;
    bool keep;
} prefix_filter;

/* Whether the line's start is one of the prefixes is what the filter keeps. */
static bool prefix_line(const char *line, size_t len, const void *ctx) {
    (void)len;
    const prefix_filter *f = ctx;
    bool starts = false;
    for (const char *const *p = f->prefixes; *p && !starts; p++)
        starts = strncmp(line, *p, strlen(*p)) == 0;
    return starts == f->keep;
}

char *clp__sph_identity_filter(const char *identity, const char *const *prefixes, bool keep) {
    return kept_lines(identity, prefix_line, &(prefix_filter){prefixes, keep});
}

clp_status clp__sph_clock_add(clp__checkpoint *cp, const clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__checkpoint_add_scalar(cp, "next_output", clock->next_output, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "next_checkpoint", clock->next_checkpoint, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "next_gauge", clock->next_gauge, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "moved", clock->moved, err));
    CLP_TRY(clp__checkpoint_add_scalar(cp, "rebuild_due", clock->rebuild_due, err));
fail:
    return st;
}

clp_status clp__sph_clock_get(const clp__checkpoint *cp, clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    clock->step = clp__checkpoint_step(cp);
    clock->time = clp__checkpoint_time(cp);
    clock->dt = clp__checkpoint_dt(cp);
    CLP_TRY(clp__checkpoint_scalar(cp, "next_output", &clock->next_output, err));
    CLP_TRY(clp__checkpoint_scalar(cp, "next_checkpoint", &clock->next_checkpoint, err));
    CLP_TRY(clp__checkpoint_scalar(cp, "next_gauge", &clock->next_gauge, err));
    CLP_TRY(clp__checkpoint_scalar(cp, "moved", &clock->moved, err));
    double rebuild_due;
    CLP_TRY(clp__checkpoint_scalar(cp, "rebuild_due", &rebuild_due, err));
    clock->rebuild_due = rebuild_due != 0;
fail:
    return st;
}

/* The bytes of one element of state buffer i. */
static size_t element_bytes(size_t i) {
    const clp_buffer_traits *t = clp_buffer_traits_of(state[i].bit);
    return t ? t->element_size * t->components : state[i].each;
}

/* State buffer i's own buffer on `w` (NULL for a bit, or one the options left out). */
static clp_buffer *own_of(clp_worker *w, size_t i) {
    return state[i].own ? clp_worker_buffer_find(w, state[i].own) : NULL;
}

/* The bytes of state buffer i on `w`, 0 where the options leave it out. */
static size_t held_bytes(clp_worker *w, size_t i) {
    const clp_buffer *own = own_of(w, i);
    if (state[i].own)
        return own ? clp_buffer_size(own) : 0;
    return clp_worker_buffers(w) & state[i].bit ? clp_worker_buffer_bytes(w, state[i].bit) : 0;
}

static bool is_held(clp_worker *w, size_t i) {
    return state[i].own ? own_of(w, i) != NULL : (clp_worker_buffers(w) & state[i].bit) != 0;
}

/* Copies state buffer i between `w` and `data`. */
static clp_status copy_state(clp_worker *w, size_t i, void *data, bool to_device, clp_error *err) {
    clp_buffer *own = own_of(w, i);
    if (own)
        return to_device ? clp_worker_buffer_write(w, own, data, err)
                         : clp_worker_buffer_read(w, own, data, err);
    return to_device ? clp_worker_write(w, state[i].bit, data, err)
                     : clp_worker_read(w, state[i].bit, data, err);
}

clp_status clp__sph_state_add(clp__checkpoint *cp, clp_worker *w, clp__sph_state *held,
                              clp_error *err) {
    clp_status st = CLP_OK;
    _Static_assert(STATE_COUNT <= sizeof held->data / sizeof held->data[0], "room for the state");
    for (size_t i = 0; i < STATE_COUNT; i++) {
        if (!is_held(w, i))
            continue;
        const size_t bytes = held_bytes(w, i), element = element_bytes(i);
        held->data[i] = malloc(bytes ? bytes : 1);
        CLP_REQUIRE_ALLOC(held->data[i], err);
        CLP_TRY(copy_state(w, i, held->data[i], false, err));
        CLP_TRY(clp__checkpoint_add_array(cp, state[i].name, element, bytes / element,
                                          held->data[i], err));
    }
fail:
    return st;
}

void clp__sph_state_free(clp__sph_state *held) {
    for (size_t i = 0; i < sizeof held->data / sizeof held->data[0]; i++) {
        free(held->data[i]);
        held->data[i] = NULL;
    }
}

clp_status clp__sph_state_restore(const clp__checkpoint *cp, clp_worker *w, clp_error *err) {
    clp_status st = CLP_OK;
    for (size_t i = 0; i < STATE_COUNT; i++) {
        if (!is_held(w, i))
            continue;
        const size_t element = element_bytes(i);
        const void *data;
        CLP_TRY(clp__checkpoint_array(cp, state[i].name, element, held_bytes(w, i) / element, &data,
                                      err));
        CLP_TRY(copy_state(w, i, (void *)data, true, err));
    }
fail:
    return st;
}

clp_status clp__sph_checkpoint_write(clp_worker *w, const char *path, const char *identity,
                                     const clp__sph_clock *clock, clp_error *err) {
    clp_status st = CLP_OK;
    clp__checkpoint *cp = NULL;
    clp__sph_state held = {{NULL}};
    CLP_TRY(clp__checkpoint_create(identity, clock->step, clock->time, clock->dt, &cp, err));
    CLP_TRY(clp__sph_clock_add(cp, clock, err));
    CLP_TRY(clp__sph_state_add(cp, w, &held, err));
    CLP_TRY(clp__checkpoint_write(cp, path, err));
    clp__sph_pieces_remove(path, NULL, 0); /* a split run's pieces are stale now */
fail:
    clp__checkpoint_destroy(cp);
    clp__sph_state_free(&held);
    return st;
}

clp_status clp__sph_checkpoint_restore(clp_worker *w, const clp__checkpoint *cp,
                                       const char *identity, clp__sph_clock *clock,
                                       clp_error *err) {
    clp_status st = CLP_OK;
    char *stored = clp__sph_identity_own(clp__checkpoint_identity(cp));
    CLP_REQUIRE_ALLOC(stored, err);
    CLP_TRY(clp__checkpoint_compare_identity(clp__checkpoint_path(cp), stored, identity, err));
    CLP_TRY(clp__sph_state_restore(cp, w, err));
    CLP_TRY(clp__sph_clock_get(cp, clock, err));
fail:
    free(stored);
    return st;
}

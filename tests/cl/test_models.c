/* The registry's entries against what the models do: each model that clpart run runs is run
 * for two steps on a small case, with its defaults and with the options that turn on its
 * optional stages, each on a fresh worker. Its result must hold the entry's diagnostics, by
 * name and in order; the buffers it allocated, by bit or by name, must be among the entry's;
 * every kernel stage that runs under those options must be in the program it built; and every
 * stage's condition must name an option and one of its values. */
#include "common.h"

#include <stdlib.h>
#include <string.h>

typedef struct model_case {
    const char *model, *case_file;
    const char *const optional[4]; /* the assignments that turn on its optional stages */
} model_case;

static const model_case cases[] = {
    {"sph",
     "tests/data/sph/tiny_dam_break.json",
     {"sph.boundary=mdbc", "sph.density=summation", "sph.integrator=predictor_corrector"}},
    {"lj", "cases/lj_liquid_small.json", {"neighbors.mode=jit"}},
    {"pso", "cases/pso_sphere_128.json", {"pso.topology=ring"}},
    {"repulsive", "cases/repulsive_24_2d.json", {"repulsive.impl=global"}},
    {"search", "cases/neighbour_search.json", {"neighbors.mode=jit"}},
    {"harmonic", "cases/harmonic.json", {NULL}},
};

/* A condition names an option of the schema and a value it takes. */
static void check_conditions(const test_env *t, const clp_model *m) {
    clp_error err = CLP_ERROR_INIT;
    for (const clp_model_stage *s = m->stages; s->kernel || s->what; s++) {
        if (!s->needs_option)
            continue;
        clp_options *opts = test_options(t, NULL);
        char assignment[256];
        snprintf(assignment, sizeof assignment, "%s=%s", s->needs_option, s->needs_value);
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, assignment, &err), &err);
        CLP_ASSERT(clp_model_stage_runs(s, opts) != s->needs_not);
        clp_options_destroy(opts);
    }
}

static void check_run(test_env *t, const clp_model *m, const model_case *c, bool optional) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(t, NULL);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", clp_data_dir(), c->case_file);
    CLP_ASSERT_OK(clp_options_apply_case(opts, path, NULL, 0, &err), &err);
    for (size_t i = 0; optional && i < 4 && c->optional[i]; i++)
        CLP_ASSERT_OK(clp_options_apply_assignment(opts, c->optional[i], &err), &err);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    clp_worker *w;
    CLP_ASSERT_OK(clp_worker_create(t->device, &w, &err), &err);
    clp_run_result result = {0};
    const clp_run_config config = {.max_steps = 2, .result = &result};
    CLP_ASSERT_OK(m->run(w, opts, path, &config, &err), &err);

    size_t n = 0;
    while (m->diagnostics[n])
        n++;
    CLP_ASSERT_EQ(result.n_values, n);
    for (size_t i = 0; i < n; i++)
        CLP_ASSERT_STR_EQ(result.values[i].name, m->diagnostics[i]);
    const clp_buffer *owned[16];
    const size_t n_owned = clp_worker_owned_buffers(w, owned, 16);
    for (size_t i = 0; i < n_owned && i < 16; i++) {
        bool listed = false;
        for (size_t k = 0; m->owned_buffers && m->owned_buffers[k]; k++)
            listed = listed || strcmp(m->owned_buffers[k], clp_buffer_name(owned[i])) == 0;
        if (!listed)
            CLP_TEST_FAIL("%s made buffer %s, which its registry entry does not list", m->name,
                          clp_buffer_name(owned[i]));
    }
    const clp_buffer_set outside = clp_worker_buffers(w) & ~m->buffers;
    if (outside) {
        const clp_buffer_set bit = outside & (~outside + 1);
        CLP_TEST_FAIL("%s allocated buffer %s, which its registry entry does not list", m->name,
                      clp_buffer_traits_of(bit)->name);
    }
    size_t kernels = 0;
    for (const clp_model_stage *s = m->stages; s->kernel || s->what; s++) {
        if (!s->kernel || !clp_model_stage_runs(s, opts))
            continue;
        cl_kernel k;
        CLP_ASSERT_OK(clp_worker_kernel(w, s->kernel, &k, &err), &err);
        kernels++;
    }
    printf("ok %s (%s): %zu diagnostics, its buffers listed, %zu kernel stages in its program\n",
           m->name, optional ? "optional stages on" : "defaults", n, kernels);
    clp_worker_destroy(w);
    clp_options_destroy(opts);
}

/* sph.fit_device: the default list is of bits; on a device that holds the case but not a
 * list of indices in one buffer, a run asked for indices takes bits; with room for neither,
 * the list-free program; and the registry says that the source needs the device. With room
 * for the list, or with the option off, it is the list asked for. */
static void check_fit_device(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    const clp_model *m;
    CLP_ASSERT_OK(clp_model_find("sph", &m, &err), &err);
    char path[1024], *with_room = NULL, *cramped = NULL, *tighter = NULL, *full = NULL,
                     *refused = NULL;
    snprintf(path, sizeof path, "%s/%s", clp_data_dir(), cases[0].case_file);
    clp_options *opts = test_options(t, NULL);
    CLP_ASSERT_OK(clp_options_apply_case(opts, path, NULL, 0, &err), &err);
    CLP_ASSERT(m->source_needs_device(opts));
    CLP_ASSERT_OK(m->source(opts, t->device, path, &with_room, &err), &err);
    const char *count = strstr(with_room, "#define CLP_GRID_PARTICLES ");
    CLP_ASSERT(count != NULL);
    const size_t n = strtoull(count + strlen("#define CLP_GRID_PARTICLES "), NULL, 10);
    /* 64 bytes a particle: four float4 arrays, or 10 words of bits (the case is 2D: a first
       word and a word a cell), not a list of 15 indices and its end; 32 bytes: the bits in
       pieces; and in 130 bytes a particle in all, no list at all */
    clp_device_info small = *t->device, smaller = *t->device, filled = *t->device;
    small.max_mem_alloc_size = 64 * n;
    smaller.max_mem_alloc_size = filled.max_mem_alloc_size = 32 * n;
    filled.global_mem_size = 130 * n;
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "neighbors.format=index", &err), &err);
    CLP_ASSERT_OK(m->source(opts, &small, path, &cramped, &err), &err);
    CLP_ASSERT_OK(m->source(opts, &smaller, path, &tighter, &err), &err);
    CLP_ASSERT_OK(m->source(opts, &filled, path, &full, &err), &err);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "sph.fit_device=false", &err), &err);
    CLP_ASSERT_OK(m->source(opts, &small, path, &refused, &err), &err);
    CLP_ASSERT(strstr(with_room, "#define CLP_NEIGHBORS_MODE 0") != NULL);
    CLP_ASSERT(strstr(with_room, "#define CLP_NEIGHBORS_FORMAT 2") != NULL);
    CLP_ASSERT(strstr(cramped, "#define CLP_NEIGHBORS_MODE 0") != NULL);
    CLP_ASSERT(strstr(cramped, "#define CLP_NEIGHBORS_FORMAT 2") != NULL);
    CLP_ASSERT(strstr(tighter, "#define CLP_NEIGHBORS_FORMAT 2") != NULL);
    /* 40 bytes a particle with a quarter more room, in pieces of at most 32 */
    CLP_ASSERT(strstr(tighter, "#define CLP_GRID_LIST_PIECES 2") != NULL);
    CLP_ASSERT(strstr(full, "#define CLP_NEIGHBORS_MODE 1") != NULL);
    CLP_ASSERT(strstr(full, "#define CLP_SPH_STRATEGY 1") != NULL);
    CLP_ASSERT(strstr(refused, "#define CLP_NEIGHBORS_MODE 0") != NULL);
    CLP_ASSERT(strstr(refused, "#define CLP_NEIGHBORS_FORMAT 1") != NULL);
    printf("ok sph.fit_device: %zu particles in buffers of at most %llu bytes take a list of "
           "bits for indices, in buffers of %llu bytes bits in 2 pieces, in %llu bytes in all "
           "the list-free program\n",
           n, (unsigned long long)small.max_mem_alloc_size,
           (unsigned long long)smaller.max_mem_alloc_size,
           (unsigned long long)filled.global_mem_size);
    free(tighter);
    free(full);
    free(with_room);
    free(cramped);
    free(refused);
    clp_options_destroy(opts);
}

int main(void) {
    test_env t = {0};
    test_env_open(&t);
    size_t count, runnable = 0;
    const clp_model *models = clp_models(&count);
    for (size_t i = 0; i < count; i++) {
        const clp_model *m = &models[i];
        if (!m->run)
            continue;
        runnable++;
        const model_case *c = NULL;
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
            if (!strcmp(cases[k].model, m->name))
                c = &cases[k];
        if (!c)
            CLP_TEST_FAIL("model %s has no small case in this test", m->name);
        check_conditions(&t, m);
        check_run(&t, m, c, false);
        check_run(&t, m, c, true);
    }
    CLP_ASSERT_EQ(runnable, sizeof cases / sizeof cases[0]);
    check_fit_device(&t);
    test_env_close(&t);
    return 0;
}

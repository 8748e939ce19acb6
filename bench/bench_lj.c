/* Lennard-Jones benchmarks, one tab-separated line per measurement on stdout.
 *
 * grid: the grid of Algis et al. 2024 (7.1): a walled
 * box of d x d x d cells of side rc, d = 2, 4, 8, 16, 32, with 1, 10 or 100 particles per
 * cell on average, uniformly at random and softened; single precision, plain sums, cells
 * searched each time (neighbors.mode=jit). Each strategy's force kernel is timed as the
 * paper does: launches queued back to back (up to 200, fewer where one takes long), then a
 * wait; the median of the rounds. Interactions per particle are the paper's: the particles
 * in the neighbouring cells (27 inside the box, fewer at the walls), less the particle.
 *   grid  DEVICE d ppc n interactions strategy seconds|-  launches rounds layout|refusal
 *
 * liquid: the LJ liquid (FCC at --density, 0.8442 by default, T 1.44, rc 2.5, dt 0.005) of
 * --cells fcc cells a side ("20 40" by default: 32000 and 256000 atoms), velocity-Verlet
 * steps per second, median of the rounds, and the potential energy per atom of the lattice
 * (shifted to 0 at rc), for a peer's check (bench/lj_peers.py). Two configurations, or the
 * one --configs names: "list", the defaults (a stored list, par_part, the work-items per atom
 * chosen for the device), and "auto" (lj.strategy=auto: strategy and neighbour mode from a
 * timing probe). `run` says what ran: the strategy, the neighbour mode and the work-items
 * per atom; `forces` the seconds of one force evaluation alone (10 launches queued, median
 * of 3 rounds), to set against a step's.
 *   liquid DEVICE n config run atom-steps/s steps rounds density pe_per_atom forces
 *
 * usage: bench-lj grid|liquid [--device SEL] [--max-particles N] [--steps S] [--rounds R]
 *        [--budget SECONDS] [--cells "C ..."] [--density D] [--configs list|auto]
 *        [-s NAME=VALUE]... */
#include "models/lj/lj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct bench {
    clp_worker *worker;
    const clp_device_info *device;
    clp_schema *schema;
    const char *assignments[32];
    size_t n_assignments;
    size_t max_particles;
    int rounds, steps;
    double budget;  /* seconds of timed launches per measurement, at most */
    double density; /* of the liquid */
} bench;

static int fail(const clp_error *err) {
    fprintf(stderr, "bench-lj: %s\n", err->message);
    return 1;
}

/* Options from the defaults, the benchmark's own, then the command line's -s. */
static clp_status options(const bench *b, const char *const *own, clp_options **out,
                          clp_error *err) {
    clp_status st = clp_options_create(b->schema, out, err);
    for (size_t i = 0; st == CLP_OK && own[i]; i++)
        st = clp_options_apply_assignment(*out, own[i], err);
    for (size_t i = 0; st == CLP_OK && i < b->n_assignments; i++)
        st = clp_options_apply_assignment(*out, b->assignments[i], err);
    return st == CLP_OK ? clp_options_check(*out, err) : st;
}

/* The paper's interactions per particle: the particles of the (up to) 27 cells around each
 * particle's cell, itself left out, averaged. */
static double interactions_per_particle(const clp_grid_geometry *geo, const clp__lj_state *s) {
    const int d = geo->cells[0];
    const size_t cells = (size_t)d * d * d;
    size_t *count = calloc(cells, sizeof *count);
    for (size_t i = 0; i < s->n; i++) {
        size_t key = 0;
        for (int a = 2; a >= 0; a--) {
            int c = (int)floor(s->xyz[3 * i + a] / geo->cell_size[a]);
            key = key * (size_t)d + (size_t)(c < 0 ? 0 : c >= d ? d - 1 : c);
        }
        count[key]++;
    }
    double total = 0;
    for (int z = 0; z < d; z++)
        for (int y = 0; y < d; y++)
            for (int x = 0; x < d; x++) {
                size_t around = 0;
                for (int dz = -1; dz <= 1; dz++)
                    for (int dy = -1; dy <= 1; dy++)
                        for (int dx = -1; dx <= 1; dx++) {
                            const int cx = x + dx, cy = y + dy, cz = z + dz;
                            if (cx >= 0 && cy >= 0 && cz >= 0 && cx < d && cy < d && cz < d)
                                around += count[((size_t)cz * d + cy) * d + cx];
                        }
                total += (double)count[((size_t)z * d + y) * d + x] * (double)(around - 1);
            }
    free(count);
    return total / (double)s->n;
}

/* Launches per round and rounds: the paper's 200 calls where the budget allows. */
static void plan(const bench *b, double one, int *launches, int *rounds) {
    *launches = one > 0 ? (int)fmin(200, fmax(1, 0.2 * b->budget / b->rounds / one)) : 200;
    *rounds = (int)fmax(1, fmin(b->rounds, b->budget / (one * *launches + 1e-9)));
}

static clp_status grid_case(const bench *b, int d, int ppc, clp_error *err) {
    clp_status st = CLP_OK;
    clp__lj_state s = {0};
    const size_t n = (size_t)ppc * d * d * d;
    const clp__lj_params p = {1.0, 0.5, true}; /* rc = the cell side; open box */
    /* a hair over d, so the grid takes d cells of at least rc */
    CLP_TRY(clp__lj_random(n, d * (1 + 1e-5), 2024, &s, err));
    for (int k = 0; k < CLP_LJ_STRATEGY_AUTO; k++) {
        char strategy[64];
        snprintf(strategy, sizeof strategy, "lj.strategy=%s", clp__lj_strategy_name(k));
        const char *own[] = {"neighbors.mode=jit", "neighbors.skin=0", "core.summation=naive",
                             strategy, NULL};
        clp_options *opts = NULL;
        clp__lj_system *sys = NULL;
        clp_grid_geometry geo;
        CLP_TRY(options(b, own, &opts, err));
        CLP_TRY(clp__lj_geometry(opts, &s, &p, &geo, err));
        const double interactions = interactions_per_particle(&geo, &s);
        printf("grid\t%s\t%d\t%d\t%zu\t%.1f\t%s\t", b->device->name, d, ppc, n, interactions,
               clp__lj_strategy_name(k));
        if (n > b->max_particles) {
            printf("-\t0\t0\tover --max-particles\n");
            clp_options_destroy(opts);
            continue;
        }
        clp_error refusal = CLP_ERROR_INIT;
        double one = 0, seconds = 0;
        int launches = 0, rounds = 0;
        st = clp__lj_system_open(b->worker, opts, NULL, &s, &p, 0.005, &sys, &refusal);
        if (st == CLP_OK)
            st = clp__lj_system_time_forces(sys, 1, 1, &one, &refusal);
        plan(b, one, &launches, &rounds);
        if (st == CLP_OK)
            st = clp__lj_system_time_forces(sys, launches, rounds, &seconds, &refusal);
        clp__lj_layout layout = {0};
        if (sys)
            layout = *clp__lj_system_layout(sys);
        clp__lj_system_close(sys);
        clp_options_destroy(opts);
        if (st == CLP_CASE) { /* the strategy cannot run this case here: say why */
            printf("-\t0\t0\t%s\n", refusal.message);
            st = CLP_OK;
            continue;
        }
        if (st != CLP_OK) {
            *err = refusal;
            goto fail;
        }
        printf("%.4e\t%d\t%d\tgroup %zu, sub-box %dx%dx%d, M_C %u\n", seconds, launches, rounds,
               layout.local, layout.box[0], layout.box[1], layout.box[2], layout.max_per_cell);
        fflush(stdout);
    }
fail:
    clp__lj_state_free(&s);
    return st;
}

/* Steps per second of the LJ liquid with `own` options. */
static clp_status liquid_case(const bench *b, int cells, const char *config, const char *const *own,
                              clp_error *err) {
    clp_status st = CLP_OK;
    clp__lj_state s = {0};
    clp_options *opts = NULL;
    clp__lj_system *sys = NULL;
    const clp__lj_params p = {2.5, 0, false};
    double seconds[16];
    double *energy = NULL;
    CLP_TRY(clp__lj_fcc(cells, b->density, &s, err));
    CLP_TRY(clp__lj_maxwell(&s, 1.44, 7, err));
    if (s.n > b->max_particles) {
        printf("liquid\t%s\t%zu\t%s\t-\t-\t0\t0\t%g\t-\n", b->device->name, s.n, config,
               b->density);
        goto fail;
    }
    CLP_TRY(options(b, own, &opts, err));
    CLP_TRY(clp__lj_system_open(b->worker, opts, NULL, &s, &p, 0.005, &sys, err));
    energy = malloc(7 * s.n * sizeof *energy); /* energy, then force and velocity */
    CLP_REQUIRE(energy, err, CLP_NOMEM, "out of host memory");
    double pe = 0, virial;
    CLP_TRY(clp__lj_system_read(sys, energy + s.n, energy, energy + 4 * s.n, &virial, err));
    for (size_t i = 0; i < s.n; i++)
        pe += energy[i];
    CLP_TRY(clp__lj_system_run(sys, 10, err)); /* warm up: lists, caches, clocks */
    const int rounds = b->rounds > 16 ? 16 : b->rounds;
    for (int r = 0; r < rounds; r++) {
        const double start = clp__now();
        CLP_TRY(clp__lj_system_run(sys, (uint64_t)b->steps, err));
        CLP_CL_CHECK(clFinish(clp_worker_queue(b->worker)), err, "liquid: clFinish");
        seconds[r] = clp__now() - start;
    }
    const double median = clp__median(seconds, (size_t)rounds);
    double forces;
    CLP_TRY(clp__lj_system_time_forces(sys, 10, 3, &forces, err));
    const clp__lj_layout *layout = clp__lj_system_layout(sys);
    printf("liquid\t%s\t%zu\t%s\t%s %s x%u\t%.4e\t%d\t%d\t%g\t%.6f\t%.4e\n", b->device->name, s.n,
           config, clp__lj_strategy_name(layout->strategy), clp__lj_system_mode(sys), layout->lanes,
           (double)s.n * b->steps / median, b->steps, rounds, b->density, pe / (double)s.n, forces);
    fflush(stdout);
fail:
    free(energy);
    clp__lj_system_close(sys);
    clp_options_destroy(opts);
    clp__lj_state_free(&s);
    return st;
}

int main(int argc, char **argv) {
    bench b = {
        .max_particles = SIZE_MAX, .rounds = 5, .steps = 100, .budget = 10, .density = 0.8442};
    const char *selector = NULL, *what = argc > 1 ? argv[1] : "", *cell_list = "20 40";
    const char *configs = "list auto";
    clp_error err = CLP_ERROR_INIT;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--device"))
            selector = argv[i + 1];
        else if (!strcmp(argv[i], "--max-particles"))
            b.max_particles = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--steps"))
            b.steps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            b.rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--budget"))
            b.budget = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--cells"))
            cell_list = argv[i + 1];
        else if (!strcmp(argv[i], "--density"))
            b.density = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--configs"))
            configs = argv[i + 1];
        else if (!strcmp(argv[i], "-s") && b.n_assignments < 32)
            b.assignments[b.n_assignments++] = argv[i + 1];
    }
    b.rounds = b.rounds < 1 ? 1 : b.rounds;
    b.steps = b.steps < 1 ? 1 : b.steps;
    if (strcmp(what, "grid") != 0 && strcmp(what, "liquid") != 0) {
        fprintf(stderr, "usage: bench-lj grid|liquid [--device SEL] [--max-particles N] "
                        "[--steps S] [--rounds R] [--budget SECONDS] [--cells \"C ...\"] "
                        "[--density D] [--configs list|auto] [-s NAME=VALUE]...\n");
        return 2;
    }
    char dir[1024];
    clp_device_list *list;
    snprintf(dir, sizeof dir, "%s/options", clp_data_dir());
    if (clp_schema_load(dir, &b.schema, &err) || clp_device_list_create(&list, &err) ||
        clp_device_select(list, selector, &b.device, &err) ||
        clp_worker_create(b.device, &b.worker, &err))
        return fail(&err);
    if (!strcmp(what, "grid")) {
        static const int divisions[] = {2, 4, 8, 16, 32}, per_cell[] = {1, 10, 100};
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < 5; i++)
                if (grid_case(&b, divisions[i], per_cell[k], &err))
                    return fail(&err);
    } else {
        static const char *const periodic[] = {"grid.periodic_x=true", "grid.periodic_y=true",
                                               "grid.periodic_z=true"};
        const char *list_mode[] = {periodic[0],          periodic[1],         periodic[2],
                                   "neighbors.skin=0.2", "neighbors.every=5", NULL};
        const char *automatic[] = {
            periodic[0],         periodic[1],        periodic[2], "neighbors.skin=0.2",
            "neighbors.every=5", "lj.strategy=auto", NULL};
        const bool list = strstr(configs, "list") != NULL, probed = strstr(configs, "auto") != NULL;
        char *end;
        for (long cells = strtol(cell_list, &end, 10); end != cell_list;
             cell_list = end, cells = strtol(cell_list, &end, 10))
            if ((list && liquid_case(&b, (int)cells, "list", list_mode, &err)) ||
                (probed && liquid_case(&b, (int)cells, "auto", automatic, &err)))
                return fail(&err);
    }
    clp_worker_destroy(b.worker);
    clp_device_list_destroy(list);
    clp_schema_destroy(b.schema);
    return 0;
}

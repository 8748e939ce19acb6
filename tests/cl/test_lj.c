/* The device's Lennard-Jones forces, energies and virial against the host's all-pairs
 * reference in double precision (src/models/lj/lj_setup.c, itself tested against analysis), for
 * every strategy, summation, position and neighbour mode (each pair of their values, and every
 * combination a strategy refuses): on a softened uniform random set
 * (Algis et al. 2024's set-up) and on a jittered FCC lattice at the LJ liquid's density.
 * With --small, sizes and combinations fit a run under Oclgrind. */
#include "common.h"

#include "models/lj/lj.h"

/* Float against double: a force sums about 40 terms of up to |f| ~ 1e2 in float, so each
 * component may be off by a few 1e-6 of the largest force; 1e-4 of it leaves room for
 * devices that round differently, and still catches a missed or doubled pair. */
enum { COMPONENTS = 3 };
static const double FORCE_BOUND = 1e-4, ENERGY_BOUND = 1e-4;

static void compare(test_env *t, const char *label, const clp__lj_state *s, const clp__lj_params *p,
                    const char *const *assignments) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(t, assignments);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    clp__lj_system *sys;
    const clp_status opened = clp__lj_system_open(t->worker, opts, NULL, s, p, 0.005, &sys, &err);
    /* a device may allow a compiled kernel fewer work-items than par_cell's 64 (rusticl's
       llvmpipe allows 32): a refusal that says so is what a user gets there */
    if (opened == CLP_CASE && strstr(err.message, "the compiled kernel allows")) {
        printf("refused %-55s %s\n", label, err.message);
        clp_options_destroy(opts);
        return;
    }
    CLP_ASSERT_OK(opened, &err);
    const size_t n = s->n;
    double *f_ref = malloc(3 * n * sizeof(double)), *e_ref = malloc(n * sizeof(double));
    double *f_dev = malloc(3 * n * sizeof(double)), *e_dev = malloc(n * sizeof(double));
    double *v_dev = malloc(3 * n * sizeof(double)), w_ref, w_dev;
    clp__lj_reference(s, p, f_ref, e_ref, &w_ref);
    CLP_ASSERT_OK(clp__lj_system_read(sys, f_dev, e_dev, v_dev, &w_dev, &err), &err);
    clp__lj_system_close(sys);
    free(v_dev);
    double largest_f = 0, largest_e = 0, worst_f = 0, worst_e = 0, e_sum_ref = 0, e_sum_dev = 0;
    for (size_t i = 0; i < n; i++) {
        for (int a = 0; a < COMPONENTS; a++) {
            largest_f = fmax(largest_f, fabs(f_ref[3 * i + a]));
            worst_f = fmax(worst_f, fabs(f_dev[3 * i + a] - f_ref[3 * i + a]));
        }
        largest_e = fmax(largest_e, fabs(e_ref[i]));
        worst_e = fmax(worst_e, fabs(e_dev[i] - e_ref[i]));
        e_sum_ref += e_ref[i];
        e_sum_dev += e_dev[i];
    }
    printf("ok %-60s force %.1e, energy %.1e of the largest; virial %.1e relative\n", label,
           worst_f / largest_f, worst_e / largest_e, fabs(w_dev - w_ref) / fabs(w_ref));
    CLP_ASSERT(largest_f > 0 && largest_e > 0);
    CLP_ASSERT(worst_f <= FORCE_BOUND * largest_f);
    CLP_ASSERT(worst_e <= ENERGY_BOUND * largest_e);
    CLP_ASSERT_NEAR(e_sum_dev, e_sum_ref, ENERGY_BOUND * largest_e * sqrt((double)n));
    CLP_ASSERT_NEAR(w_dev, w_ref, FORCE_BOUND * fabs(w_ref));
    free(f_ref);
    free(e_ref);
    free(f_dev);
    free(e_dev);
    clp_options_destroy(opts);
}

/* Options the LJ system refuses, with the fix named in the message. */
static void refused(test_env *t, const char *const *assignments, const char *fix) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(t, assignments);
    clp__lj_state s;
    const clp__lj_params p = {2.5, 0, false};
    CLP_ASSERT_OK(clp__lj_fcc(5, 0.8442, &s, &err), &err);
    clp__lj_system *sys;
    CLP_ASSERT(clp__lj_system_open(t->worker, opts, NULL, &s, &p, 0.005, &sys, &err) == CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, fix);
    clp_options_destroy(opts);
    clp__lj_state_free(&s);
}

/* Total energy and momentum of the device's state. */
static void totals(clp__lj_system *sys, size_t n, double *energy_total, double momentum[3]) {
    clp_error err = CLP_ERROR_INIT;
    double *f = malloc(3 * n * sizeof *f), *e = malloc(n * sizeof *e);
    double *v = malloc(3 * n * sizeof *v), w;
    CLP_ASSERT_OK(clp__lj_system_read(sys, f, e, v, &w, &err), &err);
    *energy_total = 0;
    momentum[0] = momentum[1] = momentum[2] = 0;
    for (size_t i = 0; i < n; i++) {
        *energy_total += e[i];
        for (int a = 0; a < 3; a++) {
            *energy_total += 0.5 * v[3 * i + a] * v[3 * i + a];
            momentum[a] += v[3 * i + a];
        }
    }
    free(f);
    free(e);
    free(v);
}

/* The LJ liquid in NVE (density 0.8442, T 1.44 at the start, rc 2.5, dt 0.005, 864 atoms):
 * over 10k steps the total energy stays within DRIFT_BOUND per atom of its start, and the
 * momentum stays zero. Velocity Verlet conserves a shadow energy, so what is left is the
 * float rounding and the force's jump at the cutoff of the shifted potential. */
static const double DRIFT_BOUND = 2e-3;

static void test_nve(test_env *t, const char *summation, bool small) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_state s;
    const int cells = small ? 4 : 6;
    const clp__lj_params p = {small ? 1.8 : 2.5, 0, false};
    const uint64_t steps = small ? 20 : 10000, every = small ? 10 : 1000;
    CLP_ASSERT_OK(clp__lj_fcc(cells, 0.8442, &s, &err), &err);
    CLP_ASSERT_OK(clp__lj_maxwell(&s, 1.44, 3, &err), &err);
    const char *assignments[] = {summation,
                                 "neighbors.skin=0.2",
                                 "neighbors.every=5",
                                 "grid.periodic_x=true",
                                 "grid.periodic_y=true",
                                 "grid.periodic_z=true",
                                 NULL};
    clp_options *opts = test_options(t, assignments);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    clp__lj_system *sys;
    CLP_ASSERT_OK(clp__lj_system_open(t->worker, opts, NULL, &s, &p, 0.005, &sys, &err), &err);
    double e0, e, momentum[3], worst = 0;
    totals(sys, s.n, &e0, momentum);
    for (uint64_t done = 0; done < steps; done += every) {
        CLP_ASSERT_OK(clp__lj_system_run(sys, every, &err), &err);
        totals(sys, s.n, &e, momentum);
        worst = fmax(worst, fabs(e - e0) / s.n);
        for (int a = 0; a < 3; a++)
            CLP_ASSERT_NEAR(momentum[a], 0.0, 1e-4 * sqrt((double)s.n));
    }
    printf("ok NVE %s, %zu atoms, %llu steps: energy per atom %.4f, largest change %.2e "
           "(bound %.0e)\n",
           summation, s.n, (unsigned long long)steps, e0 / s.n, worst, DRIFT_BOUND);
    CLP_ASSERT(worst <= DRIFT_BOUND);
    clp__lj_system_close(sys);
    clp_options_destroy(opts);
    clp__lj_state_free(&s);
}

/* neighbors.check: lists meant to live 40 steps (20 under Oclgrind), with a skin that the fastest
 * atoms of the liquid cross in fewer. Without the check, the rebuild after those moves fails (pairs
 * may have been missed); with it, the lists are rebuilt as the moves require, and the forces and
 * energies at the end are the host's all-pairs reference's at the positions reached. */
static void test_check_moves(test_env *t, bool small) {
    clp_error err = CLP_ERROR_INIT;
    clp__lj_state s;
    const clp__lj_params p = {small ? 1.8 : 2.5, 0, false};
    CLP_ASSERT_OK(clp__lj_fcc(small ? 4 : 6, 0.8442, &s, &err), &err);
    CLP_ASSERT_OK(clp__lj_maxwell(&s, 1.44, 3, &err), &err);
    /* a list lives `every` steps; the fastest atoms pass half the skin in about ten */
    const int every = small ? 20 : 40;
    char every_opt[32];
    snprintf(every_opt, sizeof every_opt, "neighbors.every=%d", every);
    for (int check = 0; check < 2; check++) {
        const char *assignments[] = {"neighbors.skin=0.2",
                                     every_opt,
                                     check ? "neighbors.check=true" : "neighbors.check=false",
                                     "grid.periodic_x=true",
                                     "grid.periodic_y=true",
                                     "grid.periodic_z=true",
                                     NULL};
        clp_options *opts = test_options(t, assignments);
        clp__lj_system *sys;
        CLP_ASSERT_OK(clp__lj_system_open(t->worker, opts, NULL, &s, &p, 0.005, &sys, &err), &err);
        if (!check) {
            CLP_ASSERT(clp__lj_system_run(sys, 2 * every, &err) == CLP_NEIGHBORS);
            CLP_ASSERT_CONTAINS(err.message, "more than half the skin");
            printf("ok without neighbors.check: %s\n", err.message);
            err = (clp_error)CLP_ERROR_INIT;
        } else {
            CLP_ASSERT_OK(clp__lj_system_run(sys, 2 * every, &err), &err);
            clp__lj_state moved = {.n = s.n, .box = s.box, .xyz = malloc(3 * s.n * sizeof(double))};
            double *f_ref = malloc(3 * s.n * sizeof(double)),
                   *f_dev = malloc(3 * s.n * sizeof(double));
            double *e_ref = malloc(s.n * sizeof(double)), *e_dev = malloc(s.n * sizeof(double));
            double *v_dev = malloc(3 * s.n * sizeof(double)), w_ref, w_dev;
            CLP_ASSERT_OK(clp__lj_system_positions(sys, moved.xyz, &err), &err);
            CLP_ASSERT_OK(clp__lj_system_read(sys, f_dev, e_dev, v_dev, &w_dev, &err), &err);
            clp__lj_reference(&moved, &p, f_ref, e_ref, &w_ref);
            double largest = 0, worst = 0, largest_e = 0, worst_e = 0;
            for (size_t i = 0; i < 3 * s.n; i++) {
                largest = fmax(largest, fabs(f_ref[i]));
                worst = fmax(worst, fabs(f_dev[i] - f_ref[i]));
            }
            for (size_t i = 0; i < s.n; i++) {
                largest_e = fmax(largest_e, fabs(e_ref[i]));
                worst_e = fmax(worst_e, fabs(e_dev[i] - e_ref[i]));
            }
            printf("ok with neighbors.check, %d steps: force %.1e, energy %.1e of the largest\n",
                   2 * every, worst / largest, worst_e / largest_e);
            CLP_ASSERT(largest > 0 && worst <= FORCE_BOUND * largest);
            CLP_ASSERT(largest_e > 0 && worst_e <= ENERGY_BOUND * largest_e);
            free(f_ref);
            free(f_dev);
            free(e_ref);
            free(e_dev);
            free(v_dev);
            clp__lj_state_free(&moved);
        }
        clp__lj_system_close(sys);
        clp_options_destroy(opts);
    }
    clp__lj_state_free(&s);
}

/* The sub-box layouts are sized from the device: a device with too little local memory, or
 * too few work-items a group, for the fullest cell is refused with the reason. */
static void test_layout_refusals(test_env *t) {
    clp_error err = CLP_ERROR_INIT;
    clp_options *opts = test_options(t, NULL);
    const clp_grid_desc desc = {{0, 0, 0}, {16, 16, 16}, 2.0};
    clp_grid_geometry geo;
    CLP_ASSERT_OK(clp_grid_geometry_make(opts, &desc, &geo, &err), &err);
    clp_device_info small = *t->device;
    clp__lj_layout l;
    small.local_mem_size = 3 * 10 * 16 - 1; /* one byte short of a 3-cell pencil's particles */
    CLP_ASSERT(clp__lj_layout_make(&small, &geo, 1000, 10, CLP_LJ_STRATEGY_X_PENCIL, 1, &l, &err) ==
               CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "local memory");
    err = (clp_error)CLP_ERROR_INIT;
    CLP_ASSERT(clp__lj_layout_make(&small, &geo, 1000, 10, CLP_LJ_STRATEGY_ALL_IN_SM, 1, &l,
                                   &err) == CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "3 x 3 x 3 cells");
    small = *t->device;
    small.max_work_group_size = 8; /* a cell of 10 needs 10 work-items */
    err = (clp_error)CLP_ERROR_INIT;
    CLP_ASSERT(clp__lj_layout_make(&small, &geo, 1000, 10, CLP_LJ_STRATEGY_X_PENCIL, 1, &l, &err) ==
               CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "work-items");
    /* A device that holds them: the pencil and the frame fit its local memory, with ghosts */
    small = *t->device;
    small.local_mem_size = 32768;
    small.max_work_group_size = 1024;
    small.compute_units = 1;
    CLP_ASSERT_OK(
        clp__lj_layout_make(&small, &geo, 1000, 10, CLP_LJ_STRATEGY_X_PENCIL, 1, &l, &err), &err);
    CLP_ASSERT(l.local_bytes <= 32768 && l.box[0] >= 1 && l.box[1] == 1 && l.box[2] == 1);
    CLP_ASSERT(l.capacity == 10 * (size_t)(l.box[0] + 2) && l.local >= 10 * (size_t)l.box[0]);
    CLP_ASSERT(l.local <= 256);
    const int pencil = l.box[0];
    CLP_ASSERT_OK(
        clp__lj_layout_make(&small, &geo, 1000, 10, CLP_LJ_STRATEGY_ALL_IN_SM, 1, &l, &err), &err);
    CLP_ASSERT(l.local_bytes <= 32768 && l.local <= 256);
    CLP_ASSERT(l.local >= 10 * (size_t)l.box[0] * l.box[1] * l.box[2]);
    CLP_ASSERT(l.capacity == 10 * (size_t)(l.box[0] + 2) * (l.box[1] + 2) * (l.box[2] + 2));
    printf("ok layouts: refusals name local memory and work-items; at 32 KiB and 10 a cell, "
           "x_pencil %d cells, all_in_sm %d x %d x %d\n",
           pencil, l.box[0], l.box[1], l.box[2]);
    clp_options_destroy(opts);
}

/* lj.strategy=auto probes once and keeps its choice in the cache, beside the chosen program
 * alone: a second open of the same case reads it back (one probe hit and one program hit, no
 * more builds) and agrees. */
static void test_auto(test_env *t, const clp__lj_state *s, const clp__lj_params *p) {
    clp_error err = CLP_ERROR_INIT;
    const char *assignments[] = {"lj.strategy=auto",     "neighbors.mode=jit",
                                 "grid.periodic_x=true", "grid.periodic_y=true",
                                 "grid.periodic_z=true", NULL};
    clp_options *opts = test_options(t, assignments);
    clp_cache *cache;
    CLP_ASSERT_OK(clp_cache_open(t->cache_dir, &cache, &err), &err);
    clp__lj_system *sys;
    clp_cache_stats before, after;
    CLP_ASSERT_OK(clp__lj_system_open(t->worker, opts, cache, s, p, 0.005, &sys, &err), &err);
    const clp__lj_strategy first = clp__lj_system_layout(sys)->strategy;
    clp__lj_system_close(sys);
    /* the choice and its program: the candidates it dropped are not stored */
    clp_cache_entry *entries;
    size_t stored;
    CLP_ASSERT_OK(clp_cache_list(cache, &entries, &stored, &err), &err);
    free(entries);
    CLP_ASSERT(stored == 2);
    CLP_ASSERT_OK(clp_cache_stats_get(cache, &before, &err), &err);
    CLP_ASSERT_OK(clp__lj_system_open(t->worker, opts, cache, s, p, 0.005, &sys, &err), &err);
    CLP_ASSERT_OK(clp_cache_stats_get(cache, &after, &err), &err);
    CLP_ASSERT(clp__lj_system_layout(sys)->strategy == first);
    CLP_ASSERT(after.misses == before.misses && after.hits == before.hits + 2);
    printf("ok auto chose %s, stored it with its program alone, and the second open read the "
           "choice from the cache\n",
           clp__lj_strategy_name(first));
    clp__lj_system_close(sys);
    clp_cache_close(cache);
    clp_options_destroy(opts);
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_env t = {0};
    test_env_open(&t);
    const bool small = test_small_sizes(&t, argc, argv);
    clp_error err = CLP_ERROR_INIT;
    /* Random: 1 particle per cell of rc on average would be the paper's sparsest set-up;
     * 3 cells per side is the least a periodic grid takes. */
    clp__lj_state random, lattice;
    const clp__lj_params soft = {2.5, 0.5, false}, plain = {2.5, 0, false};
    const clp__lj_params open_soft = {2.5, 0.5, true};
    CLP_ASSERT_OK(clp__lj_random(small ? 60 : 400, 7.6, 11, &random, &err), &err);
    CLP_ASSERT_OK(clp__lj_fcc(5, 0.8442, &lattice, &err), &err);
    clp__lj_state jitter;
    CLP_ASSERT_OK(clp__lj_random(lattice.n, 0.2, 5, &jitter, &err), &err);
    for (size_t i = 0; i < 3 * lattice.n; i++)
        lattice.xyz[i] += jitter.xyz[i] - 0.1;
    clp__lj_state_free(&jitter);

    static const char *const strategies[] = {"lj.strategy=par_part", "lj.strategy=par_part_loop",
                                             "lj.strategy=par_cell", "lj.strategy=par_cell_sm",
                                             "lj.strategy=x_pencil", "lj.strategy=all_in_sm",
                                             "lj.strategy=simd"};
    enum { STRATEGIES = sizeof strategies / sizeof strategies[0] };
    static const char *const sums[] = {"core.summation=naive", "core.summation=kahan",
                                       "core.summation=kbn"};
    static const char *const positions[] = {"grid.positions=global", "grid.positions=local"};
    static const char *const modes[] = {"neighbors.mode=list", "neighbors.mode=jit"};
    /* Every pair of option values in 21 runs, one per strategy and summation (a build on PoCL
     * costs seconds; a fault shows in the pair that causes it); the other combinations are
     * checked to be refused where they must be. --small (Oclgrind): both modes of the
     * list strategies, one run of each cell strategy. */
    for (int st = 0; st < STRATEGIES; st++)
        for (int su = 0; su < 3; su++)
            for (int po = 0; po < 2; po++)
                for (int mo = 0; mo < 2; mo++) {
                    const bool per_cell = st >= 2 && st <= 5;
                    const char *assignments[] = {strategies[st],         sums[su],
                                                 positions[po],          modes[mo],
                                                 "grid.periodic_x=true", "grid.periodic_y=true",
                                                 "grid.periodic_z=true", NULL};
                    if (per_cell && mo == 0) { /* these search the cells: jit only */
                        refused(&t, assignments, "neighbors.mode=jit");
                        continue;
                    }
                    if (st == 6 && mo == 0 && po == 1) { /* simd's list: global positions */
                        refused(&t, assignments, "grid.positions=global");
                        continue;
                    }
                    int pick_po = (st + su) % 2, pick_mo = per_cell ? 1 : (su / 2 + st + 1) % 2;
                    if (st == 6 && pick_mo == 0)
                        pick_po = 0;
                    if (po != pick_po || mo != pick_mo ||
                        (small && (per_cell ? su != st % 3 : su == 1)))
                        continue;
                    char label[160];
                    snprintf(label, sizeof label, "random %s %s %s %s", strategies[st] + 12,
                             sums[su] + 15, positions[po] + 15, modes[mo] + 15);
                    compare(&t, label, &random, &soft, assignments);
                    if (small)
                        continue;
                    snprintf(label, sizeof label, "fcc    %s %s %s %s", strategies[st] + 12,
                             sums[su] + 15, positions[po] + 15, modes[mo] + 15);
                    compare(&t, label, &lattice, &plain, assignments);
                }
    /* Algis et al. 2024's benchmark box: walls, no periodic images; and the sub-box strategies
     * sized for 1 particle a cell where cells hold several, so that staging takes several
     * windows and targets several rounds. */
    for (int st = 0; st < STRATEGIES; st++) {
        const char *walled[] = {strategies[st], "neighbors.mode=jit", NULL};
        char label[160];
        snprintf(label, sizeof label, "open box %s", strategies[st] + 12);
        compare(&t, label, &random, &open_soft, walled);
        if (st < 4 || st > 5) /* the sub-box ones */
            continue;
        const char *windows[] = {strategies[st],
                                 "neighbors.mode=jit",
                                 "lj.cell_capacity=1",
                                 "grid.periodic_x=true",
                                 "grid.periodic_y=true",
                                 "grid.periodic_z=true",
                                 NULL};
        snprintf(label, sizeof label, "random %s sized for 1 a cell", strategies[st] + 12);
        compare(&t, label, &random, &soft, windows);
    }
    /* Several work-items per atom, each with every n-th entry of its list: from 2 to more lanes
     * than an atom has neighbours, lists built by both builds. */
    static const char *const lanes[] = {"lj.threads_per_atom=2", "lj.threads_per_atom=4",
                                        "lj.threads_per_atom=32"};
    for (int la = 0; la < 3; la++) {
        if (small && la != 1)
            continue;
        const char *assignments[] = {lanes[la],
                                     sums[la % 3],
                                     positions[la % 2],
                                     la == 1 ? "neighbors.build=pencil"
                                             : "neighbors.build=particle",
                                     "grid.periodic_x=true",
                                     "grid.periodic_y=true",
                                     "grid.periodic_z=true",
                                     NULL};
        char label[160];
        snprintf(label, sizeof label, "random par_part %s %s %s %s", lanes[la] + 3,
                 sums[la % 3] + 15, positions[la % 2] + 15, assignments[3] + 10);
        compare(&t, label, &random, &soft, assignments);
        if (!small) {
            snprintf(label, sizeof label, "fcc    par_part %s %s %s %s", lanes[la] + 3,
                     sums[la % 3] + 15, positions[la % 2] + 15, assignments[3] + 10);
            compare(&t, label, &lattice, &plain, assignments);
        }
    }
    const char *odd_lanes[] = {"lj.threads_per_atom=3", "grid.periodic_x=true",
                               "grid.periodic_y=true", "grid.periodic_z=true", NULL};
    refused(&t, odd_lanes, "a power of two");
    const char *jit_lanes[] = {"lj.threads_per_atom=4", "neighbors.mode=jit",
                               "grid.periodic_x=true",  "grid.periodic_y=true",
                               "grid.periodic_z=true",  NULL};
    refused(&t, jit_lanes, "neighbors.mode=list");
    test_layout_refusals(&t);
    if (!small) /* a probe of ten programs: their kernels are all checked above */
        test_auto(&t, &random, &soft);
    for (int su = 0; su < 2 && !small; su++)
        test_nve(&t, sums[su], small);
    if (small)
        test_nve(&t, sums[1], small);
    test_check_moves(&t, small);
    /* A box periodic on two axes only is refused with the option to set. */
    const char *walled[] = {"grid.periodic_x=true", "grid.periodic_y=true", NULL};
    clp_options *opts = test_options(&t, walled);
    clp__lj_system *sys;
    CLP_ASSERT(clp__lj_system_open(t.worker, opts, NULL, &random, &soft, 0.005, &sys, &err) ==
               CLP_CASE);
    CLP_ASSERT_CONTAINS(err.message, "grid.periodic_z=true");
    clp_options_destroy(opts);
    clp__lj_state_free(&random);
    clp__lj_state_free(&lattice);
    test_env_close(&t);
    return 0;
}

/* clpart's application: the models and their registry, runs and their results and timing,
 * the device probes, one case on several devices, and the self-test, built on the toolkit
 * (clpart_toolkit.h). */
#ifndef CLPART_APP_H
#define CLPART_APP_H

#include "clpart_toolkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== Runs ============================================================================== */

enum { CLP_MAX_RANKS = 64 }; /* devices one case splits among */

/* One device's part of a split run's time loop, summed over its steps. */
typedef struct clp_rank_timing {
    uint64_t particles;  /* the case's particles on the device at the end */
    double device;       /* device seconds of its kernels, all phases */
    double forces, list; /* of which the forces and the neighbour-list builds */
    double exchange;     /* host seconds in its halo refreshes */
    double waited;       /* host seconds it was blocked on the other devices */
    double rebuilds;     /* host seconds in its rebuilds (the migrants' and halos' exchange,
                            and the sorts and lists it waits for) */
} clp_rank_timing;

/* Where a stage's device time goes in clp_run_timing (clpart run --timing). */
typedef enum clp_run_phase {
    CLP_PHASE_SORT, /* keys, sort and reorder of a rebuild */
    CLP_PHASE_LIST,
    CLP_PHASE_BOUNDARY,
    CLP_PHASE_DENSITY,
    CLP_PHASE_FORCES,
    CLP_PHASE_TIME_STEP,
    CLP_PHASE_INTEGRATION,
    CLP_PHASE_COUNT
} clp_run_phase;

/* Device seconds of a run's phases, summed over its steps. */
typedef struct clp_run_timing {
    double keys, sort, reorder, list;  /* neighbour-search rebuilds (clp_grid_timing) */
    double boundary;                   /* boundary conditions (SPH mDBC) */
    double density, forces, time_step; /* density sum, forces (the neighbour-search model: its
                                          neighbour passes), time-step reduction */
    double integration; /* the integrator's kernels (neighbour search: the displacement) */
    double wall;        /* seconds of the whole time loop, outputs included */
    double outputs;     /* of which snapshots, output files and checkpoints */
    double exchange;    /* a multi-device run: host seconds copying edges into the neighbours'
                           halos between rebuilds (the rebuilds' migrations are in the sort) */
    uint64_t steps, rebuilds, particles;
    uint64_t forced_rebuilds; /* of the rebuilds, those a particle forced by moving more than
                                 half the skin (SPH) */
    int ranks;                /* a split run's devices (the phases above are rank 0's) */
    clp_rank_timing rank[CLP_MAX_RANKS];
    /* The least device-memory bytes each phase (clp_phase) moved in the timed steps, by the
     * model's counts; 0 where it does not count them. */
    double bytes[CLP_PHASE_COUNT];
} clp_run_timing;

/* What a run did, for a sweep or a benchmark to compare: the time loop's seconds without the
 * outputs, the work done in that time in the model's throughput unit (particle-steps, ...;
 * clp_model.throughput_unit), and the run's last diagnostics by name. */
enum { CLP_RUN_MAX_VALUES = 16 };
typedef struct clp_run_value {
    char name[32];
    double value;
} clp_run_value;
typedef struct clp_run_result {
    double seconds;
    double work;
    uint64_t steps; /* steps (SPH, LJ, repulsive) or iterations (PSO) taken */
    /* What those steps cost at the least, by the counts documented with each model's
     * kernels: device-memory bytes read and written, and floating-point operations (an FMA
     * counts 2); 0 where the model does not count it. clpart bench divides them by the
     * seconds and compares them with the device probes. */
    double bytes, flops;
    size_t n_values;
    clp_run_value values[CLP_RUN_MAX_VALUES];
    /* What a run that chooses its program when it starts (lj.strategy=auto) chose, as option
     * assignments ("lj.strategy=simd neighbors.mode=list"); "" for the others. */
    char chosen[256];
} clp_run_result;

/* Where a run writes: `out_dir` gets diagnostics.csv, particles_NNNNN.vtp snapshots and the
 * particles.pvd index at each output time, and checkpoint.ckpt at each checkpoint interval of
 * the case, on request and at the end (NULL: nothing is written); `progress` gets the
 * progress line (NULL: none). A restart continues bit for bit on the same device. */
typedef struct clp_run_config {
    const char *out_dir;
    FILE *progress;
    const char *restart; /* a checkpoint to continue from, or NULL */
    clp_cache *cache;    /* the program binary cache, or NULL to build from source */
    /* Set (for example by a signal handler) to ask for an SPH checkpoint at the next step. */
    volatile sig_atomic_t *checkpoint_requested;
    /* Set (for example by the handler of SIGINT or SIGTERM) to stop the run after its current
     * step (LJ, PSO, repulsive: within about 0.1 s of device work): an SPH run writes a
     * checkpoint, the others their outputs so far with the summary marked as interrupted.
     * The run then returns CLP_INTERRUPTED, saying where it stopped and what it wrote. */
    volatile sig_atomic_t *stop_requested;
    /* Shorter than the case: at most this many steps (PSO: iterations; 0: the case's), and
     * for SPH and LJ at most this much simulated time (0: the case's end). A run that ends at
     * a limit is complete, not interrupted. */
    uint64_t max_steps;
    double max_time;
    /* When not NULL: what the run did (clp_run_result), filled when it ends without error. */
    clp_run_result *result;
    /* When not NULL: kernels run with profiling events (each waits for the last, so the run
     * is slower) and their device seconds per phase are summed here. */
    clp_run_timing *timing;
} clp_run_config;

/* The assembled device source of the SPH case at `case_path`; `dev` is not needed (NULL
 * allowed). *out is new. */
CLP_API clp_status clp_sph_source(const clp_options *opts, const clp_device_info *dev,
                                  const char *case_path, char **out, clp_error *err);

/* Runs the SPH case at `case_path` (options already applied) on the worker's device to its
 * end time. A non-finite value stops it with the step, particle and field. */
CLP_API clp_status clp_sph_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                               const clp_run_config *config, clp_error *err);

/* The assembled device source of the Lennard-Jones case at `case_path` for the strategy
 * lj.strategy names, laid out for `dev` (its local memory sizes the sub-box strategies);
 * lj.strategy=auto, which picks its program by timing on the device, is refused (CLP_CASE).
 * *out is new. */
CLP_API clp_status clp_lj_source(const clp_options *opts, const clp_device_info *dev,
                                 const char *case_path, char **out, clp_error *err);

/* Runs the Lennard-Jones case at `case_path` (options already applied) on the worker's device
 * for its `steps` velocity-Verlet steps, writing diagnostics.csv to config->out_dir at step 0
 * and after every `output_every` steps. A non-finite value stops it with the step and the
 * atom. config->restart and config->timing are refused (CLP_USAGE): LJ runs write no
 * checkpoints and are not profiled; config->checkpoint_requested is ignored. */
CLP_API clp_status clp_lj_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                              const clp_run_config *config, clp_error *err);

/* The assembled device source of the particle swarm case at `case_path` (options already
 * applied): it depends on the options and the case's constants only (`dev` may be NULL).
 * *out is new. */
CLP_API clp_status clp_pso_source(const clp_options *opts, const clp_device_info *dev,
                                  const char *case_path, char **out, clp_error *err);

/* Runs the particle swarm optimisation case at `case_path` (options already applied) on the
 * worker's device for its `iterations`, in chunks of `output_every`. In config->out_dir it
 * writes convergence.csv (iteration, best: the swarm's best value after each iteration, 0 the
 * start), and at the end best.csv (component, value: the best position) and summary.json
 * (best, particle, iterations, seconds). A best still +inf at the end (no finite value
 * anywhere) is CLP_CHECK. config->restart and config->timing are refused (CLP_USAGE);
 * config->checkpoint_requested is ignored. */
CLP_API clp_status clp_pso_run(clp_worker *worker, const clp_options *opts, const char *case_path,
                               const clp_run_config *config, clp_error *err);

/* The assembled device source of the repulsive-particle case at `case_path` (options already
 * applied): it depends on the options, the design's size and the run's constants (with "dt":
 * "auto", on the start design, drawn here), and under repulsive.impl=tiled on the device's
 * local memory, which sizes the tile. `dev` may be NULL only under repulsive.impl=global (else
 * CLP_USAGE). *out is new. */
CLP_API clp_status clp_repulsive_source(const clp_options *opts, const clp_device_info *dev,
                                        const char *case_path, char **out, clp_error *err);

/* Runs the repulsive-particle design case at `case_path` (options already applied) on the
 * worker's device: damped semi-implicit Euler steps in chunks of `check_every`, until the
 * kinetic energy falls below `tolerance` or `steps` are done. In config->out_dir it writes
 * start.csv (the start design, columns x0 to x{D-1}), energy.csv (step, kinetic, potential,
 * total, ae, maximin: at step 0 and after every chunk), and at the end design.csv (the
 * optimised design) and summary.json. A non-finite kinetic energy is CLP_CHECK.
 * config->restart and config->timing are refused (CLP_USAGE); config->checkpoint_requested is
 * ignored. */
CLP_API clp_status clp_repulsive_run(clp_worker *worker, const clp_options *opts,
                                     const char *case_path, const clp_run_config *config,
                                     clp_error *err);

/* The assembled device source of the neighbour-search case at `case_path` (options already
 * applied): it depends on the options and the case only (`dev` may be NULL). *out is new. */
CLP_API clp_status clp_search_source(const clp_options *opts, const clp_device_info *dev,
                                     const char *case_path, char **out, clp_error *err);

/* Runs the neighbour-search case at `case_path` (options already applied) on the worker's
 * device: a jittered lattice of side^3 particles in a periodic cube, sorted once, then `steps`
 * steps of a small random displacement of every particle, a grid update (every neighbors.every
 * steps) and `passes` passes over every particle's neighbours. At the end the host checks the
 * sorted state (CLP_CHECK on a violation) and, with config->out_dir, writes summary.json
 * (particles, steps, interrupted, mean_neighbours, min_neighbours, max_neighbours, violations,
 * seconds). config->timing gets the device seconds of the update's phases, of the
 * displacement (integration) and of the passes (forces). config->restart and config->max_time
 * are refused (CLP_USAGE); config->checkpoint_requested is ignored. */
CLP_API clp_status clp_search_run(clp_worker *worker, const clp_options *opts,
                                  const char *case_path, const clp_run_config *config,
                                  clp_error *err);

/* ==== Device probes ===================================================================== */

/* What a device reaches on simple kernels (cl/bench/probe.cl), against which clpart bench
 * states a workload's efficiency, measured as BabelStream (Deakin et al., 2016, 2018) and
 * clpeak do it. One probe's figure over its timed launches: the least, the mean and the
 * largest, and the best, which is the largest for a rate and the least for a time. A rate's
 * mean is its work over the launches' mean time (BabelStream's "Average"). */
typedef struct clp_probe_stat {
    double min, avg, max, best;
} clp_probe_stat;

typedef struct clp_probe_result {
    size_t floats;                  /* per array */
    unsigned long long array_bytes; /* per array */
    unsigned long long cache_bytes; /* the device's CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, 0: none */
    bool beyond_cache;              /* each array at least 4 x cache_bytes, that not 0 */
    int iterations;                 /* timed launches of each probe, after one untimed */
    /* BabelStream's kernels in bytes read plus written per second (device time of each
     * launch): copy c = a and mul b = s c move 2 arrays, add c = a + b and triad
     * a = b + s c 3, dot sum a b 2 */
    clp_probe_stat copy, mul, add, triad, dot;
    double dot_sum; /* the last dot's result: its groups' sums added on the host in double */
    /* flop/s of chains of fused multiply-adds (an FMA counts 2); fp64 all 0 when the device
     * lacks cl_khr_fp64 (has_fp64 false) */
    clp_probe_stat fp32, fp64;
    bool has_fp64;
    /* bytes/s of a blocking clEnqueueWriteBuffer (h2d) and clEnqueueReadBuffer (d2h) of one
     * array from and to pageable host memory, wall clock */
    clp_probe_stat h2d, d2h;
    /* seconds of a launch of an empty kernel of one work-item: from the enqueue to the end of
     * a clFinish (wall clock), and from its start to its end on the device (events) */
    clp_probe_stat launch_wall, launch_device;
} clp_probe_result;
/* The floats per array the probes take on `dev`: `floats`, or with 0 at least 4 times the
 * device's cache (BabelStream's rule) and at least 64 MiB; either at most the device's
 * largest allocation, three arrays at most half its global memory, and a multiple of 4. */
CLP_API size_t clp_probe_floats(const clp_device_info *dev, size_t floats);
/* The probes' source for arrays of `floats` floats (a multiple of 4) on `dev`. *out is new. */
CLP_API clp_status clp_probe_source(const clp_options *opts, const clp_device_info *dev,
                                    size_t floats, char **out, clp_error *err);
/* Builds the probes (through `cache`, which may be NULL), fills three arrays of `floats`
 * floats (a multiple of 4) on the worker's device and times each probe over `iterations`
 * launches (1 to 1000; 0: 100 for 64 MiB arrays, fewer for larger ones, at least 20) after an
 * untimed one: the transfers, then rounds of copy, mul, add, triad and dot, then the FMA
 * chains and the empty kernel. The worker's buffers "probe.a", "probe.b" and "probe.c"
 * (clp_worker_buffer_find) then hold a and b after the last round, and in c the last FMA
 * chains' sums, each kernel's arguments bound to them. */
CLP_API clp_status clp_probe_run(clp_worker *worker, const clp_options *opts, clp_cache *cache,
                                 size_t floats, int iterations, clp_probe_result *out,
                                 clp_error *err);

/* The copy bandwidth of the worker's device in bytes/s (the probes' copy over two 64 MiB
 * arrays, the median of 5 launches), the speed a split run's --weights auto gives it: the
 * particle models are bound by memory traffic. Its buffers are released after. */
CLP_API clp_status clp_probe_speed(clp_worker *worker, const clp_options *opts, clp_cache *cache,
                                   double *bytes_per_s, clp_error *err);

/* Pennycook's performance portability of a workload over a set of `n` devices: the harmonic
 * mean of its efficiencies there (each in (0, 1]), 0 when one of them is 0 or not a number
 * (the device cannot run it) or the set is empty. */
CLP_API double clp_phi(const double *efficiencies, size_t n);
/* The arithmetic mean of the same efficiencies, a device that cannot run the workload (0 or not
 * a number) counting 0; 0 for an empty set. Reported beside Φ: the harmonic mean follows the
 * least efficient device, and a set with one failure has Φ 0 whatever the others reach
 * (Marowka, 2023). */
CLP_API double clp_efficiency_mean(const double *efficiencies, size_t n);

/* ==== Models ============================================================================ */

/* One stage of a model's step: a kernel of its program, or (kernel NULL) a stage the library
 * runs, such as the neighbour search's rebuild. It runs only when the option `needs_option`
 * has the value `needs_value` (with needs_not: any other value); always when NULL. */
typedef struct clp__comm clp_comm; /* the ranks of a multi-device run (below) */

typedef struct clp_model_stage {
    const char *kernel;
    const char *what; /* what it does, in a few words */
    clp_run_phase phase;
    const char *needs_option, *needs_value;
    bool needs_not;
} clp_model_stage;

/* A model, in one entry of the registry (src/models/registry.c): everything `clpart run`,
 * `source`, `build`, `sweep`, `bench` and `models` need of it. Its code sits in one folder per
 * layer: src/models/<name>/, cl/<name>/, options/<name>.json. */
typedef struct clp_model {
    const char *name;            /* as a case's "model" key names it */
    const char *throughput_unit; /* what its runs' rate counts per second */
    const char *steps_name;      /* what --steps counts: "steps" or "iterations" */
    bool simulated_time;         /* whether --time limits it (its steps advance a clock) */
    const char *const *modules;  /* the option modules its programs take, NULL-ended */
    clp_buffer_set buffers;      /* the device buffers its runs may allocate */
    /* The buffers its runs make by name (clp_worker_buffer_create), NULL-ended; NULL: none. */
    const char *const *owned_buffers;
    /* The stages of one step, in order, ended by one with neither kernel nor `what`; NULL
     * for a model that another command runs. */
    const clp_model_stage *stages;
    bool profiled;                  /* whether --timing gives its stages' device time per phase */
    const char *const *diagnostics; /* its clp_run_result's named values, in order, NULL-ended */
    const char *const *outputs;     /* the files a run may write to its output folder, NULL-ended */
    const char *checkpoint;         /* the file it continues from (--restart); NULL: none */
    /* An option value under which the run chooses its program itself, by timing candidates on
     * the device (lj.strategy=auto): `source` refuses it, and a sweep leaves the build to the
     * run. NULL: none. */
    const char *run_chooses_option, *run_chooses_value;
    /* Whether `source` needs the selected device for these options; NULL: never. */
    bool (*source_needs_device)(const clp_options *opts);
    /* The case's assembled device source (`dev` NULL where it is not needed). *out is new. */
    clp_status (*source)(const clp_options *opts, const clp_device_info *dev, const char *case_path,
                         char **out, clp_error *err);
    /* How many particles (atoms, points) the case holds, read from its file before a device is
     * chosen: the size that picks a tuning database's entry. NULL: the model has no
     * performance option to tune. */
    clp_status (*particles)(const clp_options *opts, const char *case_path, size_t *n,
                            clp_error *err);
    /* Runs a case to its end; NULL for a model that another command runs, named by `runner`. */
    clp_status (*run)(clp_worker *worker, const clp_options *opts, const char *case_path,
                      const clp_run_config *config, clp_error *err);
    const char *runner;
    /* Runs this rank's part of a case split among the ranks of `comm` (clp_run_split,
     * clp_run_rank); NULL for a model that runs on one device only. */
    clp_status (*run_rank)(clp_worker *worker, clp_comm *comm, const double *weights,
                           const clp_options *opts, const char *case_path,
                           const clp_run_config *config, clp_error *err);
} clp_model;

/* ==== One case on several devices ======================================================= */

/* The ranks of a multi-device run talk through a comm: threads of this process, or MPI
 * processes. A case is cut into slabs of cell layers, one per rank, sized by the particles in
 * them and each rank's weight (its speed); each rank holds a halo of its neighbours' edge layers.
 * Rank 0 writes the outputs. */

/* Whether mpirun (or another PMI launcher) started this process. */
CLP_API bool clp_comm_mpi_launched(void);
/* This process's rank among those mpirun started (CLP_USAGE in a build without MPI). */
CLP_API clp_status clp_comm_mpi_open(clp_comm **out, clp_error *err);
/* After a run whose MPI comm ended in an abort (a rank failed or timed out) and was closed
 * while a rank did not close it within 10 s, ends every process of the job with exit code
 * `code` (MPI_Abort), once the caller has said why: MPI_Finalize would wait for ever on the
 * rank that hangs. Nothing otherwise. */
CLP_API void clp_comm_mpi_end_failed(int code);
CLP_API void clp_comm_close(clp_comm *comm);
CLP_API int clp_comm_rank(const clp_comm *comm);
CLP_API int clp_comm_size(const clp_comm *comm);
/* This rank's place among the ranks on its host: it picks the host's device by it. */
CLP_API void clp_comm_local(const clp_comm *comm, int *local_rank, int *local_size);
/* Every rank's `mine` into all[0 .. size - 1], on every rank; every rank calls it. */
CLP_API clp_status clp_comm_share(clp_comm *comm, double mine, double *all, clp_error *err);
/* This rank failed before its run began (`why`): the others' runs end at once, naming it. */
CLP_API void clp_comm_abort(clp_comm *comm, const clp_error *why);

/* Runs this rank's part of the case on `worker`; every rank of `comm` calls it. `weights` (one
 * per rank, NULL: equal) size the slabs. A failure on one rank ends the others' runs with an
 * error that names it. config->out_dir and the progress line are rank 0's. */
CLP_API clp_status clp_run_rank(const clp_model *model, clp_comm *comm, clp_worker *worker,
                                const double *weights, const clp_options *opts,
                                const char *case_path, const clp_run_config *config,
                                clp_error *err);
/* Runs the case split among `n` workers (devices), one thread each, as ranks 0 .. n - 1. The
 * error is the first failure's (not the other ranks' notices of it). */
CLP_API clp_status clp_run_split(const clp_model *model, clp_worker *const *workers, int n,
                                 const double *weights, const clp_options *opts,
                                 const char *case_path, const clp_run_config *config,
                                 clp_error *err);

/* Whether a stage runs under these options. */
CLP_API bool clp_model_stage_runs(const clp_model_stage *stage, const clp_options *opts);
/* Whether the model's run chooses its program itself under these options. */
CLP_API bool clp_model_run_chooses(const clp_model *model, const clp_options *opts);
/* The models, in the registry's order; *count their number. */
CLP_API const clp_model *clp_models(size_t *count);
/* The model called `name`; CLP_CASE naming the known ones when there is none (or `name` is
 * NULL: the case names no model). */
CLP_API clp_status clp_model_find(const char *name, const clp_model **out, clp_error *err);

/* ==== Self-test ========================================================================== */

typedef struct clp_selftest_result {
    char name[64];
    double error;     /* measured relative error against the host reference */
    double tolerance; /* the bound it had to meet */
    bool passed;
    bool expect_loss; /* naive summation: passes when it *does* lose digits */
} clp_selftest_result;

/* Builds and runs the self-test kernels (axpy, reduction, and the badly conditioned series in
 * every core.summation mode) on the worker's device, checked against host long-double
 * references. `opts` supplies the sizes; each summation mode is its own program variant.
 * results: up to `max_results` rows; *n_results the count. CLP_CHECK when any row failed. */
CLP_API clp_status clp_selftest_run(clp_worker *worker, const clp_options *opts, clp_cache *cache,
                                    clp_selftest_result *results, size_t max_results,
                                    size_t *n_results, clp_build_report *reports, clp_error *err);

#ifdef __cplusplus
}
#endif

#endif

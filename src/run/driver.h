/* One time loop for every model, as HOOMD-blue's System::run is one loop for every
 * integrator: a model opens its case on the device, advances it some steps at a time and
 * writes its outputs when their triggers fire; the driver owns the rest (the flags check, the
 * limits of --steps and --time, stop and checkpoint requests, pacing, the progress line, the
 * run's result and the interrupted message). Internal to the library. */
#ifndef CLPART_RUN_DRIVER_H
#define CLPART_RUN_DRIVER_H

#include "dist/comm.h"
#include "internal.h"
#include "io/io.h"
#include "run/pacer.h"

enum { CLP__RUN_MOST_OUTPUTS = 4 };

typedef struct clp__run clp__run;

/* When an output is written besides its schedule (clp__run_output.also). */
enum {
    CLP__RUN_AT_LAST = 1u << 0,    /* at the run's last step */
    CLP__RUN_ON_STOP = 1u << 1,    /* at the step where a stop request ends the run early */
    CLP__RUN_ON_REQUEST = 1u << 2, /* when a checkpoint is asked for (clearing the request) */
    CLP__RUN_AFTER_FIRST = 1u << 3 /* never at the step the run started from, unless stopping */
};

/* An output of a model's run (a table's rows, snapshots, gauges, a checkpoint): written
 * every `every` steps (0: not by steps) and at the times of a schedule of simulated time
 * (`interval` apart from *next, which the model keeps: a checkpoint records it; NULL: none),
 * and as `also` says. */
typedef struct clp__run_output {
    uint64_t every;
    double interval;
    double *next;
    unsigned also;
    clp_status (*write)(void *model, clp__run *run, clp_error *err);
} clp__run_output;

/* What a model gives the driver. Each function gets the model's state (size bytes, zeroed by
 * the driver) and the run. */
typedef struct clp__run_model {
    const char *name; /* its registry entry's */
    size_t size;
    /* Reads the case, applies the run's limits (clp__run_limit_steps, _time), makes the system
     * on the device and adds the outputs; sets run->particles and, with simulated time,
     * run->dt. Writes no file: a stop asked meanwhile ends the run with none. */
    clp_status (*open)(void *model, clp__run *run, clp_error *err);
    /* Opens the output files (NULL: none to open). */
    clp_status (*start)(void *model, clp__run *run, clp_error *err);
    /* Runs `steps` steps; *ran gets those taken, fewer when a paced run was asked to stop
     * (run->stopping). With run->variable_dt it takes one step and sets run->time and
     * run->dt. Returns once the device has done them, unless the next turn reads nothing. */
    clp_status (*advance)(void *model, clp__run *run, uint64_t steps, uint64_t *ran,
                          clp_error *err);
    /* Whether a stop or a checkpoint was asked of any rank of a split run, the same answer on
     * every rank (NULL: the requests of this process). */
    clp_status (*requests)(void *model, clp__run *run, bool *stop, bool *checkpoint,
                           clp_error *err);
    /* After the last step: the last outputs, the summary and the result (clp__run_report). */
    clp_status (*finish)(void *model, clp__run *run, clp_error *err);
    void (*close)(void *model);
    /* What a run stopped early has written, for the message (with an output folder). */
    const char *stopped_note;
} clp__run_model;

struct clp__run {
    /* what the run was asked */
    clp_worker *worker;
    clp__comm *comm;       /* a split run's ranks; NULL on one device */
    const double *weights; /* a split run's, NULL: equal */
    const clp_options *opts;
    const char *case_path;
    const clp_run_config *config;
    const clp_model *entry; /* the model's registry entry */
    bool writer;            /* one device, or rank 0: writes the files and the progress */
    const char *out_dir;    /* config->out_dir on the writer, NULL on the other ranks */
    /* what the model's open sets */
    size_t particles;  /* the progress line's rate counts particles x steps */
    uint64_t first;    /* the step the run starts from (a restart's) */
    uint64_t end_step; /* the run ends at this step (UINT64_MAX: by time only) */
    double end_time;   /* or at this simulated time (INFINITY: by steps only) */
    double dt;         /* the step in simulated time: fixed, or the last one (variable_dt) */
    bool variable_dt;
    /* the run's state */
    uint64_t step;
    double time;      /* simulated time (without it: the steps) */
    bool last;        /* this turn's outputs are the run's last: at a limit, or done */
    bool stopping;    /* a stop request ends the run at this turn, before its end */
    bool checkpoint;  /* a checkpoint was asked for at this turn */
    bool done;        /* set by a model's output: the run reached its goal (a tolerance) */
    bool quit;        /* set by a split rank's model: its part in the run is over */
    char note[64];    /* the progress line's note, set by an output */
    double started;   /* clp__now() at the first step */
    double outputs;   /* seconds spent in outputs so far */
    double seconds;   /* at the end: the loop's seconds without the outputs */
    clp__pacer pacer; /* for clp__run_paced */
    clp__run_output output[CLP__RUN_MOST_OUTPUTS];
    size_t n_outputs;
};

/* Runs the case of `model`, whose registry entry is `entry`, on the worker's device (comm
 * NULL), or as one rank of a split run, every rank calling it and rank 0 writing the outputs
 * and the progress. */
clp_status clp__run_drive(const clp__run_model *model, const clp_model *entry, clp_worker *worker,
                          clp__comm *comm, const double *weights, const clp_options *opts,
                          const char *case_path, const clp_run_config *config, clp_error *err);

/* The run's last step from the case's `steps` after run->first, cut by --steps and, with a
 * fixed step `dt` of simulated time (0: none), by --time; also returned. */
uint64_t clp__run_limit_steps(clp__run *run, uint64_t steps, double dt);
/* The run's end from the case's end time, cut by --time (a model whose steps vary). */
void clp__run_limit_time(clp__run *run, double end_time);
/* Adds an output; written in the order added. */
void clp__run_add_output(clp__run *run, clp__run_output output);

/* Runs `steps` steps through `step` in slices after each of which the device is waited for
 * and a stop request honoured (run->stopping); *ran gets the steps run. */
clp_status clp__run_paced(clp__run *run, clp__pacer_steps step, void *system, uint64_t steps,
                          uint64_t *ran, clp_error *err);

/* The run's result for config->result, on the writer: the work of the steps taken in the
 * model's throughput unit, their least bytes and flops (0: not counted), and the last values
 * of the registry's diagnostics. */
void clp__run_report(const clp__run *run, double work, double bytes, double flops,
                     const double *values, size_t n);
/* Adds to config->result, when asked for, what a run that chooses its program chose, as
 * option assignments. */
void clp__run_result_chosen(const clp_run_config *config, const char *chosen);

#endif

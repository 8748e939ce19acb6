/* A particle swarm optimisation case as the runner uses it: the swarm's parameters for the
 * device layer, the iteration counts, and the user objective's code with its place in the
 * case file (read by pso_case.c). */
#ifndef CLPART_PSO_CASE_H
#define CLPART_PSO_CASE_H

#include "models/pso/pso.h"

typedef struct clp__pso_case {
    /* user_code points into `code`; user_origin is the case path given to the loader
     * (borrowed: it must outlive the case) */
    clp__pso_params params;
    uint64_t iterations;   /* 1 to CLP__PSO_MAX_ITERATIONS */
    uint64_t output_every; /* iterations per chunk: convergence rows and progress */
    char *code;            /* new: the user objective's code, lines joined by "\n"; or NULL */
} clp__pso_case;

/* The most iterations a case may ask for: the device keeps the best of every one (4 bytes
 * each), and the host reads them back as doubles. */
#define CLP__PSO_MAX_ITERATIONS 100000000LL
/* The most bytes of user objective code: far above a real objective's. */
#define CLP__PSO_MOST_USER_CODE 65536

/* Reads the "pso" section and "output_every" of the case at `path`. `objective` is the value
 * of the option pso.objective: the section's "objective" key (the user code) is allowed, and
 * then required, only under CLP_PSO_OBJECTIVE_USER. Every error is CLP_CASE (CLP_JSON for malformed
 * JSON) and names the file and the key. Free with clp__pso_case_free. */
clp_status clp__pso_case_load(const char *path, clp__pso_objective objective, clp__pso_case *out,
                              clp_error *err);
void clp__pso_case_free(clp__pso_case *c);

/* The line (from 1) of the JSON `text` where the code under "pso" → "objective" → `key`
 * begins: the line of the value when it is a string, of its first element when it is an
 * array. -1 when the text holds no such key. Jansson gives no positions of values, so this
 * scans the text itself. */
int clp__pso_code_line(const char *text, const char *key);

#endif

/* What an SPH run's program is made of (summation modes, the grid, the model, with their
 * constants), the x-pencil layout it may take, and its build with the options of the device. */
#include "models/models.h"
#include "models/sph/sph_gauges.h"
#include "models/sph/sph_run.h"

#include <stdlib.h>

void clp__sph_program_spec(const sph_run *r, clp__sph_program_parts *p) {
    size_t nc = clp_grid_constants(&r->geo, r->n, p->constants, 64 - CLP_SPH_MAX_CONSTANTS);
    nc += clp__sph_constants(&r->c, r->opts, &r->phys, p->constants + nc);
    p->constants[nc++] = clp__sph_gauge_constant(&r->c);
    size_t nf = 0;
    p->files[nf++] = "common/summation.cl";
    p->files[nf++] = "common/constants.cl";
    for (const char *const *f = clp_grid_cl_files(); *f; f++)
        p->files[nf++] = *f;
    p->files[nf++] = "sph/sph.cl";
    p->files[nf++] = "sph/mdbc.cl";
    p->files[nf++] = "sph/gauges.cl";
    if (r->pencils) {
        nc += clp__sph_pencil_constants(&r->pencil, p->constants + nc);
        p->files[nf++] = "sph/sph_pencil.cl";
    }
    for (const char *const *f = r->hooks->cl_files; *f; f++) /* a rank's: cl/dist */
        p->files[nf++] = *f;
    size_t n_modules;
    const char *const *modules = clp__model_modules("sph", &n_modules);
    p->spec = (clp_program_spec){"sph", modules, n_modules, p->files, nf, p->constants, nc};
}

/* The x-pencil force kernel's layout on the device, when sph.strategy=x_pencil (clp__sph_load
 * checked that it can run). */
clp_status clp__sph_lay_out(sph_run *r, const clp_device_info *dev, clp_error *err) {
    return r->pencils ? clp__sph_pencil_make(dev, &r->geo, &r->c, &r->pencil, err) : CLP_OK;
}

clp_status clp__sph_assemble(const sph_run *r, const clp_options *opts, char **source,
                             clp_error *err) {
    clp__sph_program_parts parts;
    clp__sph_program_spec(r, &parts);
    return clp_source_assemble(opts, clp_data_dir(), &parts.spec, source, err);
}

/* The register cap of SPH's programs where core.nv_maxrregcount is 0 and the device takes
 * NVIDIA's compiler options, with the default force kernel (a stored list, a work-item a
 * particle): at the compiler's 64 registers a multiprocessor of an H200 holds 32 of its
 * warps, at 56 it holds 36, and the forces of the 3D dam break ran 3 % faster (the list
 * clp__sph_build, the sort and the integration no slower; 48 spilled and ran slower,
 * docs/benchmarks/sph.md). */
enum { SPH_NV_REGISTERS = 56 };

/* The options the program is built with, a copy of the run's (*out): with the cap above
 * where it applies. Only the clp__sph_build takes it: the run's options, which its checkpoints
 * record, stay those of any device. */
static clp_status build_options(const sph_run *r, clp_options **out, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp_options_dup(r->opts, out, err));
    if (!r->pencils && clp__neighbors_mode_of(r->opts) == CLP_NEIGHBORS_MODE_LIST &&
        clp__core_nv_maxrregcount_of(r->opts) == 0 &&
        clp_device_has_extension(clp_worker_device(r->w), "cl_nv_compiler_options"))
        CLP_TRY(clp__core_nv_maxrregcount_set(*out, SPH_NV_REGISTERS, err));
fail:
    return st;
}

clp_status clp__sph_build(sph_run *r, clp_cache *cache, clp_error *err) {
    clp_status st = CLP_OK;
    clp_options *opts = NULL;
    char *source = NULL;
    CLP_TRY(build_options(r, &opts, err));
    CLP_TRY(clp__sph_assemble(r, opts, &source, err));
    CLP_TRY(clp_worker_build_for(r->w, source, opts, cache, NULL, err));
fail:
    free(source);
    clp_options_destroy(opts);
    return st;
}

/* The x-pencil layout of the SPH force kernel (sph.strategy=x_pencil, sph_pencil.c). */
#ifndef CLPART_SPH_PENCIL_H
#define CLPART_SPH_PENCIL_H

#include "models/sph/sph_case.h"

typedef struct clp__sph_pencil {
    int cells;          /* target cells of a pencil, along x */
    size_t group;       /* work-items per group, one per target particle */
    size_t capacity;    /* particles staged in local memory at once: a row of cells */
    size_t hits;        /* neighbours a work-item holds between its distance tests and pairs */
    size_t groups;      /* pencils of the grid */
    size_t local_bytes; /* local memory of a group */
} clp__sph_pencil;

/* The layout for this device and grid, from the fullest cell of the case's start lattice;
 * CLP_CASE with the reason where the device cannot hold one pencil cell. */
clp_status clp__sph_pencil_make(const clp_device_info *dev, const clp_grid_geometry *geo,
                                const clp_sph_case *c, clp__sph_pencil *out, clp_error *err);
/* Its CLP_SPH_PENCIL_* constants into out (4). */
size_t clp__sph_pencil_constants(const clp__sph_pencil *p, clp_constant *out);

#endif

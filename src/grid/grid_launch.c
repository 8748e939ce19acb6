/* Launches of the grid's helper kernels, whose arguments are buffers followed by uints rather
 * than a buffer set: every clSetKernelArg is checked and names the kernel and argument. The
 * fill of a whole buffer with one value is one of them. */
#include "grid/grid_private.h"

/* Sets kernel `name`'s arguments: the buffers, then the uints. */
static clp_status set_args(clp_worker *w, const char *name, const cl_mem *buffers, size_t n_buffers,
                           const cl_uint *uints, size_t n_uints, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel kernel;
    CLP_TRY(clp_worker_kernel(w, name, &kernel, err));
    cl_uint arg = 0;
    for (size_t i = 0; i < n_buffers; i++, arg++)
        CLP_CL_CHECK(clSetKernelArg(kernel, arg, sizeof(cl_mem), &buffers[i]), err,
                     "kernel '%s' argument %u (buffer): clSetKernelArg", name, arg);
    for (size_t i = 0; i < n_uints; i++, arg++)
        CLP_CL_CHECK(clSetKernelArg(kernel, arg, sizeof(cl_uint), &uints[i]), err,
                     "kernel '%s' argument %u (uint %u): clSetKernelArg", name, arg, uints[i]);
fail:
    return st;
}

clp_status clp__grid_launch(clp_worker *w, const char *name, const cl_mem *buffers,
                            size_t n_buffers, const cl_uint *uints, size_t n_uints, size_t global,
                            size_t local, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(set_args(w, name, buffers, n_buffers, uints, n_uints, err));
    CLP_TRY(clp_launch(w, name, global, local, NULL, err));
fail:
    return st;
}

clp_status clp__grid_launch_range(clp_worker *w, const char *name, const cl_mem *buffers,
                                  size_t n_buffers, const cl_uint *uints, size_t n_uints,
                                  size_t first, size_t count, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(set_args(w, name, buffers, n_buffers, uints, n_uints, err));
    CLP_TRY(clp_launch_range(w, name, first, count, 0, NULL, err));
fail:
    return st;
}

clp_status clp__grid_launch_pieces(clp_worker *w, const char *name, const cl_mem *buffers,
                                   size_t n_buffers, const cl_uint *uints, size_t n_uints,
                                   cl_uint list_arg, size_t first, size_t count, clp_error *err) {
    clp_status st = CLP_OK;
    cl_kernel kernel;
    CLP_TRY(set_args(w, name, buffers, n_buffers, uints, n_uints, err));
    CLP_TRY(clp_worker_kernel(w, name, &kernel, err));
    CLP_TRY(clp__launch_list_pieces(w, name, kernel, list_arg, first, count, 0, NULL, err));
fail:
    return st;
}

clp_status clp__grid_fill(clp_grid *g, clp_buffer_set bit, cl_uint value, clp_error *err) {
    cl_mem mem = clp_worker_buffer(g->worker, bit);
    const cl_uint args[] = {value,
                            (cl_uint)(clp_worker_buffer_bytes(g->worker, bit) / sizeof(cl_uint))};
    return clp__grid_launch(g->worker, "grid_fill", &mem, 1, args, 2, args[1], 0, err);
}

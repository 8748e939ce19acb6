/* Build flags: -cl-std from the device's OpenCL C version (never its OpenCL version), option
 * flags from the schema, vendor flags only where the device lists their extension. */
#include "internal.h"
#include "test.h"

#include <stdlib.h>

static clp_device_info fake_device(const char *c_version, const char *extensions) {
    clp_device_info d = {0};
    strcpy(d.name, "fake");
    strcpy(d.device_version, "OpenCL 3.0 CUDA");
    strcpy(d.opencl_c_version, c_version);
    d.extensions = (char *)extensions;
    return d;
}

static char *flags_for(const clp_device_info *d, clp_options *opts) {
    clp_error err = CLP_ERROR_INIT;
    char *flags = NULL;
    CLP_ASSERT_OK(clp_build_flags(d, opts, &flags, &err), &err);
    return flags;
}

int main(void) {
    clp_error err = CLP_ERROR_INIT;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/options", getenv("CLPART_DATA_DIR"));
    clp_schema *schema;
    clp_options *opts;
    CLP_ASSERT_OK(clp_schema_load(dir, &schema, &err), &err);
    CLP_ASSERT_OK(clp_options_create(schema, &opts, &err), &err);

    clp_device_info nvidia = fake_device("OpenCL C 1.2 ", "cl_khr_fp64 cl_nv_compiler_options");
    clp_device_info pocl = fake_device("OpenCL C 1.2 PoCL", "cl_khr_fp64");
    clp_device_info newer = fake_device("OpenCL C 3.0", "");
    clp_device_info older = fake_device("OpenCL C 1.1", "");

    char *f = flags_for(&nvidia, opts);
    /* defaults: subnormals flushed, no fast-math, no mad */
    CLP_ASSERT_STR_EQ(f, "-cl-std=CL1.2 -cl-denorms-are-zero");
    free(f);
    f = flags_for(&newer, opts);
    CLP_ASSERT_STR_EQ(f, "-cl-std=CL1.2 -cl-denorms-are-zero"); /* clpart's code is OpenCL C 1.2 */
    free(f);
    f = flags_for(&older, opts);
    CLP_ASSERT_STR_EQ(f, "-cl-std=CL1.1 -cl-denorms-are-zero");
    free(f);

    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.denorms_are_zero=false", &err), &err);
    f = flags_for(&nvidia, opts);
    CLP_ASSERT_STR_EQ(f, "-cl-std=CL1.2");
    free(f);

    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.mad=true", &err), &err);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "core.nv_maxrregcount=64", &err), &err);
    f = flags_for(&nvidia, opts);
    CLP_ASSERT_STR_EQ(f, "-cl-std=CL1.2 -cl-mad-enable -cl-nv-maxrregcount=64");
    free(f);
    f = flags_for(&pocl, opts); /* no cl_nv_compiler_options: the NVIDIA flag stays out */
    CLP_ASSERT_STR_EQ(f, "-cl-std=CL1.2 -cl-mad-enable");
    free(f);

    clp_device_info broken = fake_device("", "");
    char *none = NULL;
    CLP_ASSERT_STATUS(clp_build_flags(&broken, opts, &none, &err), CLP_CL, &err);
    CLP_ASSERT_CONTAINS(err.message, "OpenCL C version");
    CLP_ASSERT(none == NULL);

    clp_options_destroy(opts);
    clp_schema_destroy(schema);
    return 0;
}

/* Status names and messages, filling clp_error (first error wins, long sources cut from the
 * left), and OpenCL codes as names. */
#include "internal.h"
#include "test.h"

int main(void) {
    CLP_ASSERT_STR_EQ(clp_status_name(CLP_OK), "CLP_OK");
    CLP_ASSERT_STR_EQ(clp_status_name(CLP_OPTION_RANGE), "CLP_OPTION_RANGE");
    CLP_ASSERT_STR_EQ(clp_status_str(CLP_OPTION_RANGE), "option value out of range");
    CLP_ASSERT_STR_EQ(clp_status_name((clp_status)999), "CLP_UNKNOWN_STATUS");
    for (int s = 0; s < CLP_STATUS_COUNT; s++)
        CLP_ASSERT(strncmp(clp_status_name((clp_status)s), "CLP_", 4) == 0);

    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_EQ(CLP_FAIL_AT(&err, CLP_JSON, "case.json", 3, 7, "bad %s", "token"), CLP_JSON);
    CLP_ASSERT_EQ(CLP_FAIL(&err, CLP_IO, "second"), CLP_IO); /* returns its status... */
    CLP_ASSERT_EQ(err.status, CLP_JSON);                     /* ...but the first error wins */
    CLP_ASSERT_STR_EQ(err.message, "bad token");
    CLP_ASSERT_STR_EQ(err.source, "case.json");
    CLP_ASSERT_EQ(err.line, 3);
    CLP_ASSERT_EQ(err.column, 7);
    CLP_ASSERT_CONTAINS(err.origin_file, "test_error.c");

    clp_error_clear(&err);
    CLP_FAIL(&err, CLP_CASE, "no position");
    CLP_ASSERT_EQ(err.line, -1);
    CLP_ASSERT_EQ(err.column, -1);
    CLP_ASSERT_STR_EQ(err.source, "");

    /* An over-long source keeps its end, where the file name is. */
    char longpath[400];
    memset(longpath, 'd', sizeof longpath);
    strcpy(longpath + 380, "/name_at_end.json");
    clp_error_clear(&err);
    CLP_FAIL_AT(&err, CLP_IO, longpath, -1, -1, "x");
    CLP_ASSERT_EQ(strlen(err.source), sizeof err.source - 1);
    CLP_ASSERT(strncmp(err.source, "...", 3) == 0);
    CLP_ASSERT_CONTAINS(err.source, "/name_at_end.json");

    /* NULL err is allowed. */
    CLP_ASSERT_EQ(CLP_FAIL(NULL, CLP_IO, "ignored"), CLP_IO);

    CLP_ASSERT_STR_EQ(clp_cl_error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
    CLP_ASSERT_STR_EQ(clp_cl_error_name(CL_INVALID_KERNEL_NAME), "CL_INVALID_KERNEL_NAME");
    CLP_ASSERT_STR_EQ(clp_cl_error_name(-9999), "CL_UNKNOWN_ERROR");

    clp_error_clear(&err);
    CLP_ASSERT_EQ(clp__fail_cl(&err, CL_MEM_OBJECT_ALLOCATION_FAILURE, __FILE__, __LINE__,
                               "buffer \"%s\" (%d bytes): clCreateBuffer", "velocity", 96),
                  CLP_DEVICE_MEMORY);
    CLP_ASSERT_STR_EQ(err.message, "buffer \"velocity\" (96 bytes): clCreateBuffer: "
                                   "CL_MEM_OBJECT_ALLOCATION_FAILURE");
    CLP_ASSERT_EQ(err.cl_code, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    clp_error_clear(&err);
    CLP_ASSERT_EQ(clp__fail_cl(&err, CL_INVALID_VALUE, __FILE__, __LINE__, "x"), CLP_CL);
    return 0;
}

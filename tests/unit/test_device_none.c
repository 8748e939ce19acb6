/* unit/device-none: listing without any platform (OCL_ICD_VENDORS at an empty folder) is
 * CLP_NO_PLATFORM, and a platform without devices (POCL_DEVICES=none) is CLP_NO_DEVICE; both
 * messages say how to install PoCL. Each case runs in a child, since the ICD loader reads its
 * environment once per process. */
#include "test.h"

#include <CL/cl_ext.h>
#include <sys/wait.h>
#include <unistd.h>

enum { EXIT_NOT_APPLICABLE = 77 };

/* Devices on all platforms, counted with plain OpenCL calls; -1 when there is no platform. */
static long ref_device_count(void) {
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &np);
    if (rc == CL_PLATFORM_NOT_FOUND_KHR || (rc == CL_SUCCESS && np == 0))
        return -1;
    CLP_ASSERT_EQ(rc, CL_SUCCESS);
    cl_platform_id *plats = calloc(np, sizeof *plats);
    CLP_ASSERT(plats != NULL);
    CLP_ASSERT_EQ(clGetPlatformIDs(np, plats, NULL), CL_SUCCESS);
    long total = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        CLP_ASSERT(rc == CL_SUCCESS || rc == CL_DEVICE_NOT_FOUND);
        total += rc == CL_SUCCESS ? (long)nd : 0;
    }
    free(plats);
    return total;
}

static void expect_failure(clp_status expected, const char *text) {
    clp_error err = CLP_ERROR_INIT;
    clp_device_list *list = NULL;
    CLP_ASSERT_STATUS(clp_device_list_create(&list, &err), expected, &err);
    CLP_ASSERT(list == NULL);
    CLP_ASSERT_EQ(err.status, expected);
    CLP_ASSERT_CONTAINS(err.message, text);
    CLP_ASSERT_CONTAINS(err.message, "apt-get install pocl-opencl-icd");
}

static int no_platform(void) {
    char dir[] = "/tmp/clpart-empty-icd-XXXXXX";
    CLP_ASSERT(mkdtemp(dir) != NULL);
    setenv("OCL_ICD_VENDORS", dir, 1);
    unsetenv("OCL_ICD_FILENAMES");
    long found = ref_device_count();
    rmdir(dir);
    if (found != -1)
        CLP_TEST_FAIL("the ICD loader ignored OCL_ICD_VENDORS=%s: it still sees a platform", dir);
    expect_failure(CLP_NO_PLATFORM, "no OpenCL platform found");
    return 0;
}

/* PoCL with POCL_DEVICES=none is a platform with no devices; other vendors' devices make the
 * case impossible to set up, which is reported, not failed. */
static int no_device(void) {
    unsetenv("OCL_ICD_VENDORS"); /* the system's ICD list, whatever the caller set */
    setenv("POCL_DEVICES", "none", 1);
    long found = ref_device_count();
    if (found != 0) {
        fprintf(stderr, "note: no-device case not checked: with POCL_DEVICES=none %s\n",
                found < 0 ? "there is no platform" : "devices of other platforms remain");
        return EXIT_NOT_APPLICABLE;
    }
    expect_failure(CLP_NO_DEVICE, "no OpenCL device found on");
    return 0;
}

static int in_child(int (*check)(void)) {
    fflush(NULL);
    pid_t pid = fork();
    CLP_ASSERT(pid >= 0);
    if (pid == 0)
        exit(check());
    int status = 0;
    CLP_ASSERT(waitpid(pid, &status, 0) == pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void) {
    CLP_ASSERT_EQ(in_child(no_platform), 0);
    int rc = in_child(no_device);
    CLP_ASSERT(rc == 0 || rc == EXIT_NOT_APPLICABLE);
    return 0;
}

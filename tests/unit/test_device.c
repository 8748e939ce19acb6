/* unit/device: the device list against an enumeration done here with plain OpenCL calls, and
 * every selector rule (default, index, type, name substring, no match). Needs a platform. */
#include "internal.h"
#include "test.h"

#include <CL/cl_ext.h>
#include <ctype.h>

/* What the test itself reads from OpenCL, independently of the library. */
typedef struct ref_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_device_type type;
    char *name;
    char *extensions;
    bool fp64;
    bool simulator; /* its platform is Oclgrind's */
} ref_device;

static char *ref_string(cl_device_id dev, cl_device_info param) {
    size_t size = 0;
    if (clGetDeviceInfo(dev, param, 0, NULL, &size) != CL_SUCCESS)
        CLP_TEST_FAIL("clGetDeviceInfo(0x%x) size query failed", (unsigned)param);
    char *text = calloc(size + 1, 1);
    CLP_ASSERT(text != NULL);
    if (clGetDeviceInfo(dev, param, size, text, NULL) != CL_SUCCESS)
        CLP_TEST_FAIL("clGetDeviceInfo(0x%x) failed", (unsigned)param);
    return text;
}

/* Whether the space-separated list has `word` as one of its tokens. */
static bool has_token(const char *list, const char *word) {
    char *copy = strdup(list);
    CLP_ASSERT(copy != NULL);
    bool found = false;
    for (char *save = NULL, *tok = strtok_r(copy, " \t\n", &save); tok && !found;
         tok = strtok_r(NULL, " \t\n", &save))
        found = strcmp(tok, word) == 0;
    free(copy);
    return found;
}

static ref_device *ref_enumerate(size_t *count) {
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &np);
    CLP_ASSERT(rc == CL_SUCCESS && np > 0);
    cl_platform_id *plats = calloc(np, sizeof *plats);
    CLP_ASSERT(plats != NULL);
    CLP_ASSERT_EQ(clGetPlatformIDs(np, plats, NULL), CL_SUCCESS);
    ref_device *refs = NULL;
    size_t n = 0;
    for (cl_uint p = 0; p < np; p++) {
        cl_uint nd = 0;
        rc = clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (rc == CL_DEVICE_NOT_FOUND)
            continue;
        CLP_ASSERT_EQ(rc, CL_SUCCESS);
        cl_device_id *ids = calloc(nd, sizeof *ids);
        refs = realloc(refs, (n + nd) * sizeof *refs);
        CLP_ASSERT(ids != NULL && refs != NULL);
        CLP_ASSERT_EQ(clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, ids, NULL), CL_SUCCESS);
        for (cl_uint d = 0; d < nd; d++, n++) {
            ref_device *r = &refs[n];
            r->platform = plats[p];
            r->device = ids[d];
            CLP_ASSERT_EQ(clGetDeviceInfo(ids[d], CL_DEVICE_TYPE, sizeof r->type, &r->type, NULL),
                          CL_SUCCESS);
            r->name = ref_string(ids[d], CL_DEVICE_NAME);
            r->extensions = ref_string(ids[d], CL_DEVICE_EXTENSIONS);
            cl_device_fp_config dfp = 0;
            if (clGetDeviceInfo(ids[d], CL_DEVICE_DOUBLE_FP_CONFIG, sizeof dfp, &dfp, NULL) !=
                CL_SUCCESS)
                dfp = 0;
            r->fp64 = has_token(r->extensions, "cl_khr_fp64") || dfp != 0;
            char platform[256] = "";
            CLP_ASSERT_EQ(
                clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof platform - 1, platform, NULL),
                CL_SUCCESS);
            r->simulator = strstr(platform, "Oclgrind") != NULL;
        }
        free(ids);
    }
    free(plats);
    *count = n;
    return refs;
}

/* Index of the first reference device of `type` that is not a simulator, or n. */
static size_t ref_first(const ref_device *refs, size_t n, cl_device_type type) {
    for (size_t i = 0; i < n; i++)
        if ((refs[i].type & type) && !refs[i].simulator)
            return i;
    return n;
}

static size_t select_index(const clp_device_list *list, const char *sel) {
    clp_error err = CLP_ERROR_INIT;
    const clp_device_info *dev = NULL;
    CLP_ASSERT_OK(clp_device_select(list, sel, &dev, &err), &err);
    CLP_ASSERT(dev != NULL);
    return dev->index;
}

static void expect_no_device(const clp_device_list *list, const char *sel, clp_error *err) {
    const clp_device_info *dev = NULL;
    CLP_ASSERT_STATUS(clp_device_select(list, sel, &dev, err), CLP_NO_DEVICE, err);
    CLP_ASSERT_EQ(err->status, CLP_NO_DEVICE);
    CLP_ASSERT(dev == NULL);
}

/* Selection by type: the first device of that type, or CLP_NO_DEVICE when there is none. */
static void check_type_selector(const clp_device_list *list, const ref_device *refs, size_t n,
                                const char *sel, cl_device_type type) {
    size_t want = ref_first(refs, n, type);
    if (want == n) {
        clp_error err = CLP_ERROR_INIT;
        expect_no_device(list, sel, &err);
        return;
    }
    size_t got = select_index(list, sel);
    CLP_ASSERT_EQ(got, want);
    CLP_ASSERT(clp_device_list_get(list, got)->type & type);
}

/* Short names against the names real drivers report, and the text rule beside them. */
static void check_short_names(void) {
    static const struct {
        const char *platform, *vendor, *name, *matching;
    } drivers[] = {
        {"Portable Computing Language", "AuthenticAMD", "pthread-skylake-avx512-AMD EPYC 7B13",
         "pocl"},
        {"NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H200", "nvidia cuda"},
        {"AMD Accelerated Parallel Processing", "Advanced Micro Devices, Inc.", "gfx90a:sramecc+",
         "amd rocm"},
        {"Intel(R) OpenCL Graphics", "Intel(R) Corporation", "Intel(R) Arc(TM) A770 Graphics",
         "intel neo"},
        {"Intel(R) OpenCL HD Graphics", "Intel(R) Corporation", "Intel(R) UHD Graphics 770",
         "intel neo"},
        {"Intel(R) CPU Runtime for OpenCL(TM) Applications", "Intel(R) Corporation",
         "Intel(R) Xeon(R) Gold 6338", "intel"},
        {"Oclgrind", "University of Bristol", "Oclgrind Simulator", "oclgrind"},
        {"rusticl", "Mesa/X.org", "AMD Radeon RX 7900 (radeonsi)", "rusticl"},
        {"Clover", "Mesa", "AMD Radeon RX 580 (polaris10)", "clover"},
    };
    static const char *const short_names[] = {"pocl",  "nvidia", "cuda",     "amd",     "rocm",
                                              "intel", "neo",    "oclgrind", "rusticl", "clover"};
    for (size_t i = 0; i < sizeof drivers / sizeof drivers[0]; i++) {
        clp_device_info d = {0};
        snprintf(d.platform_name, sizeof d.platform_name, "%s", drivers[i].platform);
        snprintf(d.vendor, sizeof d.vendor, "%s", drivers[i].vendor);
        snprintf(d.name, sizeof d.name, "%s", drivers[i].name);
        for (size_t k = 0; k < sizeof short_names / sizeof short_names[0]; k++) {
            /* a name matches exactly the drivers listed for it, in any case */
            char upper[32];
            snprintf(upper, sizeof upper, "%s", short_names[k]);
            for (char *c = upper; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            const bool want = has_token(drivers[i].matching, short_names[k]);
            if (clp__device_matches_name(&d, short_names[k]) != want ||
                clp__device_matches_name(&d, upper) != want)
                CLP_TEST_FAIL("'%s' %s '%s / %s'", short_names[k], want ? "misses" : "matches",
                              d.platform_name, d.name);
        }
        /* other text: a part of the platform, vendor or device name */
        CLP_ASSERT(clp__device_matches_name(&d, drivers[i].platform + 1));
        CLP_ASSERT(clp__device_matches_name(&d, drivers[i].vendor));
        CLP_ASSERT(clp__device_matches_name(&d, drivers[i].name + 2));
        CLP_ASSERT(!clp__device_matches_name(&d, "no-such-device"));
    }
}

static void check_extensions(const clp_device_info *dev) {
    CLP_ASSERT(!clp_device_has_extension(dev, ""));
    CLP_ASSERT(!clp_device_has_extension(dev, "cl_clpart_no_such_extension"));
    char first[256] = "";
    sscanf(dev->extensions, "%255s", first);
    size_t len = strlen(first);
    if (len < 2)
        return;
    CLP_ASSERT(clp_device_has_extension(dev, first));
    /* A proper prefix or suffix of a token is not an extension unless listed itself. */
    char part[256];
    snprintf(part, sizeof part, "%.*s", (int)(len - 1), first);
    CLP_ASSERT_EQ(clp_device_has_extension(dev, part), has_token(dev->extensions, part));
    CLP_ASSERT_EQ(clp_device_has_extension(dev, first + 1), has_token(dev->extensions, first + 1));
}

/* "NAME:K": the K-th device whose name holds the last device's name, counted here from the
 * reference enumeration; one past the last is CLP_NO_DEVICE naming the selector. */
static void check_nth_selector(const clp_device_list *list, const ref_device *refs, size_t n) {
    const char *name = refs[n - 1].name;
    size_t k = 0;
    char sel[320];
    for (size_t i = 0; i < n; i++) {
        if (!strstr(refs[i].name, name))
            continue;
        snprintf(sel, sizeof sel, "%s:%zu", name, k++);
        CLP_ASSERT_EQ(select_index(list, sel), i);
    }
    CLP_ASSERT(k >= 1);
    snprintf(sel, sizeof sel, "%s:%zu", name, k);
    clp_error err = CLP_ERROR_INIT;
    expect_no_device(list, sel, &err);
    CLP_ASSERT_CONTAINS(err.message, "too few devices match");
}

/* The no-match message lists devices in order, "i: <platform> / <name> (<type>)", and cuts
 * the rest with "..." only where the message is full. */
static void check_no_match(const clp_device_list *list) {
    clp_error err = CLP_ERROR_INIT;
    expect_no_device(list, "no-such-device-xyz", &err);
    CLP_ASSERT_CONTAINS(err.message, "no device matches 'no-such-device-xyz'");
    if (!(strlen(err.message) < sizeof err.message - 1 ||
          strcmp(err.message + strlen(err.message) - 3, "...") == 0))
        CLP_TEST_FAIL("a full message must end in \"...\": \"%s\"", err.message);
    bool cut = false;
    for (size_t i = 0; i < clp_device_list_count(list); i++) {
        const clp_device_info *d = clp_device_list_get(list, i);
        char entry[400];
        snprintf(entry, sizeof entry, "%zu: %s / %s (%s)", i, d->platform_name, d->name,
                 clp_device_type_name(d->type));
        bool listed = strstr(err.message, entry) != NULL;
        CLP_ASSERT(listed || i > 0);
        CLP_ASSERT(!(listed && cut));
        cut = cut || !listed;
    }
    CLP_ASSERT(!cut || strcmp(err.message + strlen(err.message) - 3, "...") == 0);
}

/* The internal query helper: the same text as a direct query, and on failure a message that
 * names the device and the parameter. */
static void check_info_string(const ref_device *ref) {
    clp_error err = CLP_ERROR_INIT;
    char *text = NULL;
    CLP_ASSERT_OK(clp__device_info_string(ref->device, CL_DEVICE_EXTENSIONS, "CL_DEVICE_EXTENSIONS",
                                          &text, &err),
                  &err);
    CLP_ASSERT_STR_EQ(text, ref->extensions);
    free(text);
    text = NULL;
    CLP_ASSERT_STATUS(clp__device_info_string(ref->device, 0x7fff, "bogus 0x7fff", &text, &err),
                      CLP_CL, &err);
    CLP_ASSERT(text == NULL);
    char want[sizeof err.message];
    snprintf(want, sizeof want, "device '%s': clGetDeviceInfo(bogus 0x7fff): CL_INVALID_VALUE",
             ref->name);
    CLP_ASSERT_STR_EQ(err.message, want);
}

int main(void) {
    clp_error err = CLP_ERROR_INIT;
    clp_device_list *list = NULL;
    clp_status st = clp_device_list_create(&list, &err);
    if (st == CLP_NO_PLATFORM)
        CLP_SKIP("%s", err.message);
    CLP_ASSERT_OK(st, &err);
    size_t n_ref = 0;
    ref_device *refs = ref_enumerate(&n_ref);

    size_t n = clp_device_list_count(list);
    CLP_ASSERT(n >= 1);
    CLP_ASSERT_EQ(n, n_ref);
    CLP_ASSERT(clp_device_list_get(list, n) == NULL);
    for (size_t i = 0; i < n; i++) {
        const clp_device_info *d = clp_device_list_get(list, i);
        CLP_ASSERT(d != NULL);
        CLP_ASSERT_EQ(d->index, i);
        CLP_ASSERT(d->platform == refs[i].platform && d->device == refs[i].device);
        for (int f = 0; f < CLP_FIELD_COUNT; f++)
            if (d->query_error[f] != CL_SUCCESS)
                CLP_TEST_FAIL("device %zu field %d: %s", i, f,
                              clp_cl_error_name(d->query_error[f]));
        CLP_ASSERT(d->name[0] != '\0' && d->platform_name[0] != '\0');
        CLP_ASSERT_STR_EQ(d->name, refs[i].name);
        CLP_ASSERT(strncmp(d->opencl_c_version, "OpenCL C ", 9) == 0);
        CLP_ASSERT_EQ(d->type, refs[i].type);
        CLP_ASSERT_STR_EQ(d->extensions, refs[i].extensions);
        CLP_ASSERT_EQ(d->fp64, refs[i].fp64);
        CLP_ASSERT(d->compute_units > 0 && d->global_mem_size > 0 && d->local_mem_size > 0);
        check_extensions(d);
    }
    check_info_string(&refs[0]);

    CLP_ASSERT_STR_EQ(clp_device_type_name(CL_DEVICE_TYPE_GPU), "GPU");
    CLP_ASSERT_STR_EQ(clp_device_type_name(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT), "CPU");
    CLP_ASSERT_STR_EQ(clp_device_type_name(CL_DEVICE_TYPE_ACCELERATOR), "Accelerator");

    /* Default: the first GPU, else the first CPU, else the first device of another type;
     * never a simulator (Oclgrind says it is a GPU). */
    size_t want = ref_first(refs, n, CL_DEVICE_TYPE_GPU);
    if (want == n)
        want = ref_first(refs, n, CL_DEVICE_TYPE_CPU);
    if (want == n)
        want = ref_first(refs, n, CL_DEVICE_TYPE_ALL);
    if (want == n) /* simulators alone (a program run under `oclgrind PROG`): the first */
        want = 0;
    CLP_ASSERT_EQ(select_index(list, NULL), want);
    CLP_ASSERT_EQ(select_index(list, ""), want);
    for (size_t i = 0; i < n; i++)
        CLP_ASSERT_EQ(clp_device_list_get(list, i)->simulator, refs[i].simulator);

    /* Indices. */
    CLP_ASSERT_EQ(select_index(list, "0"), 0);
    if (n >= 2)
        CLP_ASSERT_EQ(select_index(list, "1"), 1);
    char sel[64];
    snprintf(sel, sizeof sel, "%zu", n - 1);
    CLP_ASSERT_EQ(select_index(list, sel), n - 1);
    snprintf(sel, sizeof sel, "%zu", n);
    clp_error range_err = CLP_ERROR_INIT;
    expect_no_device(list, sel, &range_err);
    CLP_ASSERT_CONTAINS(range_err.message, sel);
    clp_error huge_err = CLP_ERROR_INIT;
    expect_no_device(list, "99999999999999999999999", &huge_err);

    check_nth_selector(list, refs, n);

    /* Types, case-insensitive. */
    check_type_selector(list, refs, n, "cpu", CL_DEVICE_TYPE_CPU);
    check_type_selector(list, refs, n, "CPU", CL_DEVICE_TYPE_CPU);
    check_type_selector(list, refs, n, "Gpu", CL_DEVICE_TYPE_GPU);
    check_type_selector(list, refs, n, "accelerator", CL_DEVICE_TYPE_ACCELERATOR);

    /* A middle slice of device 0's platform name with its case flipped: device 0 matches it,
     * so the first match is device 0. */
    const clp_device_info *d0 = clp_device_list_get(list, 0);
    size_t plen = strlen(d0->platform_name);
    size_t start = plen / 4, len = plen / 2 ? plen / 2 : 1;
    snprintf(sel, sizeof sel, "%.*s", (int)len, d0->platform_name + start);
    for (char *c = sel; *c; c++)
        *c = islower((unsigned char)*c) ? (char)toupper((unsigned char)*c)
                                        : (char)tolower((unsigned char)*c);
    size_t got = select_index(list, sel);
    CLP_ASSERT_EQ(got, 0);
    CLP_ASSERT(clp_device_list_get(list, got)->platform == d0->platform);

    check_no_match(list);
    check_short_names();
    /* "pocl" picks the first device of PoCL's platform, whatever its name */
    for (size_t i = 0; i < n; i++) {
        const clp_device_info *d = clp_device_list_get(list, i);
        if (strcmp(d->platform_name, "Portable Computing Language") == 0) {
            CLP_ASSERT_EQ(select_index(list, "pocl"), i);
            break;
        }
    }

    clp_device_list_destroy(list);
    clp_device_list_destroy(NULL);
    for (size_t i = 0; i < n_ref; i++) {
        free(refs[i].name);
        free(refs[i].extensions);
    }
    free(refs);
    return 0;
}

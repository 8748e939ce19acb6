/* Devices: every device of every platform in one indexed list, each field read once with its
 * own query error, the selector rules (index, type, name) and the variable-size query helper. */
#include "internal.h"

#include <CL/cl_ext.h>
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct clp_device_list {
    clp_device_info *devices;
    size_t count;
};

/* How to get a device, for the messages of an empty list. */
#define POCL_HINT "e.g. the PoCL CPU device with 'apt-get install pocl-opencl-icd'"

enum { MESSAGE_CAP = sizeof(((clp_error *)0)->message) };

/* Where each fixed-size field comes from: a platform or device parameter, and where it lands.
 * size is the capacity of a text field or the byte size of a scalar one. */
typedef struct field_source {
    clp_device_field field;
    cl_uint param;
    bool of_platform;
    bool is_text;
    size_t offset;
    size_t size;
} field_source;

#define MEMBER_SIZE(member) sizeof(((clp_device_info *)0)->member)
#define TEXT_FIELD(field, param, of_platform, member)                                              \
    { field, param, of_platform, true, offsetof(clp_device_info, member), MEMBER_SIZE(member) }
#define SCALAR_FIELD(field, param, member)                                                         \
    { field, param, false, false, offsetof(clp_device_info, member), MEMBER_SIZE(member) }

static const field_source field_sources[] = {
    TEXT_FIELD(CLP_FIELD_PLATFORM_NAME, CL_PLATFORM_NAME, true, platform_name),
    TEXT_FIELD(CLP_FIELD_PLATFORM_VERSION, CL_PLATFORM_VERSION, true, platform_version),
    TEXT_FIELD(CLP_FIELD_NAME, CL_DEVICE_NAME, false, name),
    TEXT_FIELD(CLP_FIELD_VENDOR, CL_DEVICE_VENDOR, false, vendor),
    SCALAR_FIELD(CLP_FIELD_TYPE, CL_DEVICE_TYPE, type),
    TEXT_FIELD(CLP_FIELD_DEVICE_VERSION, CL_DEVICE_VERSION, false, device_version),
    TEXT_FIELD(CLP_FIELD_DRIVER_VERSION, CL_DRIVER_VERSION, false, driver_version),
    TEXT_FIELD(CLP_FIELD_OPENCL_C_VERSION, CL_DEVICE_OPENCL_C_VERSION, false, opencl_c_version),
    SCALAR_FIELD(CLP_FIELD_COMPUTE_UNITS, CL_DEVICE_MAX_COMPUTE_UNITS, compute_units),
    SCALAR_FIELD(CLP_FIELD_GLOBAL_MEM, CL_DEVICE_GLOBAL_MEM_SIZE, global_mem_size),
    SCALAR_FIELD(CLP_FIELD_LOCAL_MEM, CL_DEVICE_LOCAL_MEM_SIZE, local_mem_size),
    SCALAR_FIELD(CLP_FIELD_MAX_ALLOC, CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_mem_alloc_size),
    SCALAR_FIELD(CLP_FIELD_MAX_WORK_GROUP, CL_DEVICE_MAX_WORK_GROUP_SIZE, max_work_group_size),
    SCALAR_FIELD(CLP_FIELD_GLOBAL_CACHE, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, global_mem_cache_size),
};

/* Device types in the order the default rule and clp_device_type_name look at them. */
static const struct {
    cl_device_type type;
    const char *name;
} type_names[] = {
    {CL_DEVICE_TYPE_GPU, "GPU"},
    {CL_DEVICE_TYPE_CPU, "CPU"},
    {CL_DEVICE_TYPE_ACCELERATOR, "Accelerator"},
    {CL_DEVICE_TYPE_CUSTOM, "Custom"},
};
enum { TYPE_COUNT = sizeof type_names / sizeof type_names[0] };

/* A variable-size query of a device parameter, or of a platform parameter when dev is NULL:
 * ask the size, allocate, fetch. Returns the OpenCL code; *out is new and NUL-terminated. */
static cl_int info_alloc(cl_platform_id plat, cl_device_id dev, cl_uint param, char **out) {
    size_t size = 0;
    cl_int rc = dev ? clGetDeviceInfo(dev, param, 0, NULL, &size)
                    : clGetPlatformInfo(plat, param, 0, NULL, &size);
    if (rc != CL_SUCCESS)
        return rc;
    char *text = calloc(size + 1, 1);
    if (!text)
        return CL_OUT_OF_HOST_MEMORY;
    if (size > 0)
        rc = dev ? clGetDeviceInfo(dev, param, size, text, NULL)
                 : clGetPlatformInfo(plat, param, size, text, NULL);
    if (rc != CL_SUCCESS) {
        free(text);
        return rc;
    }
    *out = text;
    return CL_SUCCESS;
}

/* The device's (or, when dev is NULL, the platform's) name for messages, "?" if unreadable. */
static void name_for_message(cl_platform_id plat, cl_device_id dev, char *buf, size_t cap) {
    char *text = NULL;
    cl_int rc = info_alloc(plat, dev, dev ? CL_DEVICE_NAME : CL_PLATFORM_NAME, &text);
    snprintf(buf, cap, "%s", rc == CL_SUCCESS ? text : "?");
    free(text);
}

clp_status clp__device_info_string(cl_device_id dev, cl_device_info param, const char *what,
                                   char **out, clp_error *err) {
    char *text = NULL;
    cl_int rc = info_alloc(NULL, dev, param, &text);
    if (rc != CL_SUCCESS) {
        char name[128];
        name_for_message(NULL, dev, name, sizeof name);
        return clp__fail_cl(err, rc, __FILE__, __LINE__, "device '%s': clGetDeviceInfo(%s)", name,
                            what);
    }
    *out = text;
    return CLP_OK;
}

static bool is_simulator(const clp_device_info *d);

/* A CPU device's buffers are this process's memory: it holds no more than the process may
 * (ulimit -v), whatever the implementation reports, so that the models' memory checks refuse
 * a case before an allocation fails inside the implementation (PoCL aborts). */
static void cap_to_host(clp_device_info *d) {
    const double allowed = clp__host_memory_allowed();
    if (allowed <= 0)
        return;
    if ((double)d->global_mem_size > allowed)
        d->global_mem_size = (cl_ulong)allowed;
    if ((double)d->max_mem_alloc_size > allowed)
        d->max_mem_alloc_size = (cl_ulong)allowed;
}

/* $CLPART_DEVICE_MEMORY, "TOTAL" or "TOTAL,LARGEST" (sizes as 512M or 4G), caps the memory
 * every device is taken to have and its largest allocation (TOTAL where LARGEST is not
 * given): to see how a case fits a smaller device, and so that the memory checks of the
 * tests do not depend on the machine. Device memory is never added, only taken away. */
static clp_status cap_to_setting(clp_device_info *d, clp_error *err) {
    const char *text = getenv("CLPART_DEVICE_MEMORY");
    if (!text || !*text)
        return CLP_OK;
    char total_text[32] = "", *largest_text;
    snprintf(total_text, sizeof total_text, "%s", text);
    if ((largest_text = strchr(total_text, ',')))
        *largest_text++ = '\0';
    uint64_t total = 0, largest = 0;
    const bool sizes = strlen(text) < sizeof total_text && clp__parse_size(total_text, &total) &&
                       (!largest_text || clp__parse_size(largest_text, &largest));
    if (!largest_text)
        largest = total;
    if (!sizes || largest > total)
        return CLP_FAIL(err, CLP_USAGE,
                        "CLPART_DEVICE_MEMORY=\"%s\" is not TOTAL or TOTAL,LARGEST: sizes in "
                        "bytes with an optional K, M or G suffix, the largest allocation no "
                        "more than the total (as 1G,256M)",
                        text);
    if (d->global_mem_size > total)
        d->global_mem_size = total;
    if (d->max_mem_alloc_size > largest)
        d->max_mem_alloc_size = largest;
    return CLP_OK;
}

/* Reads every field of d (platform and device already set). A failed query leaves its field
 * empty or zero and records the code; only running out of host memory is an error. */
static clp_status read_fields(clp_device_info *d, clp_error *err) {
    for (size_t i = 0; i < sizeof field_sources / sizeof field_sources[0]; i++) {
        const field_source *s = &field_sources[i];
        char *dst = (char *)d + s->offset;
        cl_int rc;
        if (s->is_text) {
            char *text = NULL;
            rc = info_alloc(d->platform, s->of_platform ? NULL : d->device, s->param, &text);
            if (rc == CL_SUCCESS)
                snprintf(dst, s->size, "%s", text);
            free(text);
        } else {
            rc = clGetDeviceInfo(d->device, s->param, s->size, dst, NULL);
            if (rc != CL_SUCCESS)
                memset(dst, 0, s->size);
        }
        d->query_error[s->field] = rc;
    }
    cl_int rc = info_alloc(NULL, d->device, CL_DEVICE_EXTENSIONS, &d->extensions);
    d->query_error[CLP_FIELD_EXTENSIONS] = rc;
    if (rc != CL_SUCCESS)
        d->extensions = calloc(1, 1);
    if (!d->extensions)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory reading device '%s'", d->name);
    cl_device_fp_config double_config = 0;
    if (clGetDeviceInfo(d->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof double_config, &double_config,
                        NULL) != CL_SUCCESS)
        double_config = 0;
    d->fp64 = clp_device_has_extension(d, "cl_khr_fp64") || double_config != 0;
    d->simulator = is_simulator(d);
    if (d->type & CL_DEVICE_TYPE_CPU)
        cap_to_host(d);
    return cap_to_setting(d, err);
}

/* Appends the devices of platform p (index ip) to the list. A platform whose devices cannot
 * be listed is left out with a warning; one without devices adds nothing. */
static clp_status add_platform(clp_device_list *list, cl_platform_id p, cl_uint ip,
                               clp_error *err) {
    clp_status st = CLP_OK;
    cl_device_id *ids = NULL;
    cl_uint n = 0;
    cl_int rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (rc == CL_SUCCESS && n > 0) {
        ids = malloc(n * sizeof *ids);
        CLP_REQUIRE_ALLOC(ids, err);
        rc = clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, n, ids, NULL);
    }
    if (rc != CL_SUCCESS && rc != CL_DEVICE_NOT_FOUND) {
        char name[128];
        name_for_message(p, NULL, name, sizeof name);
        CLP_WARN(CLP_LOG_DEVICE, "platform %u '%s': clGetDeviceIDs: %s; its devices are left out",
                 ip, name, clp_cl_error_name(rc));
    }
    if (rc != CL_SUCCESS || n == 0)
        goto fail;
    clp_device_info *grown = realloc(list->devices, (list->count + n) * sizeof *grown);
    CLP_REQUIRE_ALLOC(grown, err);
    list->devices = grown;
    for (cl_uint i = 0; i < n; i++) {
        clp_device_info *d = &list->devices[list->count];
        *d = (clp_device_info){.index = list->count, .platform = p, .device = ids[i]};
        list->count++; /* counted before reading, so destroy frees its extensions */
        CLP_TRY(read_fields(d, err));
        CLP_DEBUG(CLP_LOG_DEVICE, "device %zu: %s / %s (%s, %s)", d->index, d->platform_name,
                  d->name, clp_device_type_name(d->type), d->driver_version);
    }
fail:
    free(ids);
    return st;
}

clp_status clp_device_list_create(clp_device_list **out, clp_error *err) {
    clp_status st = CLP_OK;
    cl_platform_id *platforms = NULL;
    clp_device_list *list = NULL;
    cl_uint n_platforms = 0;
    cl_int rc = clGetPlatformIDs(0, NULL, &n_platforms);
    CLP_REQUIRE(rc != CL_PLATFORM_NOT_FOUND_KHR && (rc != CL_SUCCESS || n_platforms > 0), err,
                CLP_NO_PLATFORM,
                "no OpenCL platform found: install a driver, " POCL_HINT
                " (see also 'clinfo -l' and OCL_ICD_VENDORS)");
    CLP_CL_CHECK(rc, err, "OpenCL platforms: clGetPlatformIDs");
    platforms = malloc(n_platforms * sizeof *platforms);
    CLP_REQUIRE_ALLOC(platforms, err);
    CLP_CL_CHECK(clGetPlatformIDs(n_platforms, platforms, NULL), err,
                 "%u OpenCL platforms: clGetPlatformIDs", n_platforms);
    list = calloc(1, sizeof *list);
    CLP_REQUIRE_ALLOC(list, err);
    for (cl_uint ip = 0; ip < n_platforms; ip++)
        CLP_TRY(add_platform(list, platforms[ip], ip, err));
    CLP_REQUIRE(list->count > 0, err, CLP_NO_DEVICE,
                "no OpenCL device found on %u platform%s: install a device driver, " POCL_HINT
                " (see also 'clinfo -l' and POCL_DEVICES)",
                n_platforms, n_platforms == 1 ? "" : "s");
    *out = list;
    list = NULL;
fail:
    clp_device_list_destroy(list);
    free(platforms);
    return st;
}

void clp_device_list_destroy(clp_device_list *list) {
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free(list->devices[i].extensions);
    free(list->devices);
    free(list);
}

size_t clp_device_list_count(const clp_device_list *list) {
    return list ? list->count : 0;
}

const clp_device_info *clp_device_list_get(const clp_device_list *list, size_t i) {
    return list && i < list->count ? &list->devices[i] : NULL;
}

const char *clp_device_type_name(cl_device_type type) {
    for (size_t i = 0; i < TYPE_COUNT; i++)
        if (type & type_names[i].type)
            return type_names[i].name;
    return "Unknown";
}

bool clp_device_has_extension(const clp_device_info *dev, const char *ext) {
    if (!dev || !dev->extensions || !ext || !*ext)
        return false;
    size_t n = strlen(ext);
    for (const char *p = dev->extensions; (p = strstr(p, ext)) != NULL; p += n) {
        bool starts = p == dev->extensions || isspace((unsigned char)p[-1]);
        bool ends = p[n] == '\0' || isspace((unsigned char)p[n]);
        if (starts && ends)
            return true;
    }
    return false;
}

static bool contains_nocase(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (; *haystack; haystack++)
        if (strncasecmp(haystack, needle, n) == 0)
            return true;
    return false;
}

/* The usual short names of OpenCL implementations, each standing for the platform names its
 * drivers report (parts of them, any case). A short name picks only its own platform: "amd"
 * means AMD's driver, not PoCL running on an AMD CPU. */
static const struct {
    const char *name;
    const char *platforms[2];
    bool simulator;   /* runs kernels in an interpreter: never chosen by default or by type */
    const char *hint; /* how to make it appear, for the message when no device matches */
} short_names[] = {
    {"pocl", {"Portable Computing Language"}, false, "apt-get install pocl-opencl-icd"},
    {"nvidia", {"NVIDIA CUDA"}, false, NULL},
    {"cuda", {"NVIDIA CUDA"}, false, NULL},
    {"amd", {"AMD Accelerated Parallel Processing"}, false, NULL},
    {"rocm", {"AMD Accelerated Parallel Processing"}, false, NULL},
    {"intel",
     {"Intel(R) OpenCL", "Intel(R) CPU Runtime"},
     false,
     "Intel's CPU runtime: tools/install-intel-opencl, then . .opencl/intel/env.sh"},
    {"neo", {"Intel(R) OpenCL Graphics", "Intel(R) OpenCL HD Graphics"}, false, NULL},
    {"oclgrind",
     {"Oclgrind"},
     true,
     "its ICD file in an OCL_ICD_VENDORS folder, or the command run under oclgrind (docs/cli.md)"},
    {"rusticl",
     {"rusticl"},
     false,
     "Mesa's rusticl lists devices only for the drivers RUSTICL_ENABLE names: "
     "RUSTICL_ENABLE=llvmpipe for the CPU"},
    {"clover", {"Clover"}, false, NULL},
};
enum { SHORT_NAME_COUNT = sizeof short_names / sizeof short_names[0] };

static int find_short_name(const char *selector) {
    for (int k = 0; k < SHORT_NAME_COUNT; k++)
        if (strcasecmp(selector, short_names[k].name) == 0)
            return k;
    return -1;
}

/* Index of the first device of `type` that is not a simulator, or list->count when there is
 * none. Oclgrind reports itself as a GPU, but runs 300 to 3700 times slower than PoCL on the
 * same cores: a user asking for "a GPU" or for the default never means it. */
static size_t first_of_type(const clp_device_list *list, cl_device_type type) {
    size_t i = 0;
    while (i < list->count && (!(list->devices[i].type & type) || list->devices[i].simulator))
        i++;
    return i;
}

/* Whether d's platform is one that short_names marks as a simulator. */
static bool is_simulator(const clp_device_info *d) {
    for (int k = 0; k < SHORT_NAME_COUNT; k++)
        for (int p = 0; short_names[k].simulator && p < 2 && short_names[k].platforms[p]; p++)
            if (contains_nocase(d->platform_name, short_names[k].platforms[p]))
                return true;
    return false;
}

bool clp__device_matches_name(const clp_device_info *d, const char *selector) {
    const int k = find_short_name(selector);
    if (k < 0)
        return contains_nocase(d->platform_name, selector) ||
               contains_nocase(d->vendor, selector) || contains_nocase(d->name, selector);
    for (int p = 0; p < 2 && short_names[k].platforms[p]; p++)
        if (contains_nocase(d->platform_name, short_names[k].platforms[p]))
            return true;
    return false;
}

/* "NAME:K": the K-th (from 0) device that NAME matches as clp__device_matches_name reads it,
 * so that "pocl:0,pocl:1" names PoCL's first two devices whatever other platforms list before
 * them. Returns false when the selector is not of that form; *found is the device's index, or
 * count when NAME matches K devices or fewer. */
static bool nth_matching(const clp_device_list *list, const char *selector, size_t *found) {
    const char *colon = strrchr(selector, ':');
    if (!colon || colon == selector || !colon[1] ||
        strspn(colon + 1, "0123456789") != strlen(colon + 1))
        return false;
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(colon - selector), selector);
    unsigned long long k = strtoull(colon + 1, NULL, 10);
    for (*found = 0; *found < list->count; (*found)++)
        if (clp__device_matches_name(&list->devices[*found], name) && k-- == 0)
            break;
    return true;
}

/* CLP_NO_DEVICE with "<head>; devices: 0: <platform> / <name> (<type>), ...", cut with "..."
 * where the list does not fit; a complete list stays one character short of the message
 * size, so a message that fills it is always a cut one. */
static clp_status fail_with_list(const clp_device_list *list, const char *head, clp_error *err,
                                 const char *origin_file, int origin_line) {
    static const char more[] = ", ...";
    char msg[MESSAGE_CAP];
    int len = snprintf(msg, sizeof msg, "%s; devices: ", head);
    size_t used = len < 0 ? 0 : (size_t)len < sizeof msg ? (size_t)len : sizeof msg - 1;
    for (size_t i = 0; i < list->count; i++) {
        const clp_device_info *d = &list->devices[i];
        char entry[320];
        int n = snprintf(entry, sizeof entry, "%s%zu: %s / %s (%s)", i ? ", " : "", i,
                         d->platform_name, d->name, clp_device_type_name(d->type));
        size_t reserve = i + 1 < list->count ? sizeof more - 1 : 0;
        if (n < 0 || used + (size_t)n + reserve >= sizeof msg - 1) {
            snprintf(msg + used, sizeof msg - used, "%s", i ? more : "...");
            break;
        }
        memcpy(msg + used, entry, (size_t)n + 1);
        used += (size_t)n;
    }
    return clp__fail(err, CLP_NO_DEVICE, origin_file, origin_line, "%s", msg);
}

clp_status clp_device_select(const clp_device_list *list, const char *selector,
                             const clp_device_info **out, clp_error *err) {
    char head[MESSAGE_CAP];
    size_t count = clp_device_list_count(list);
    size_t found = count;
    bool by_index = selector && *selector && strspn(selector, "0123456789") == strlen(selector);
    bool by_name_index = false;
    if (!selector || !*selector) {
        /* the first GPU, else the first CPU, else the first of any other type; a simulator
           only when there is nothing else (a program run under `oclgrind PROG`) */
        for (size_t t = 0; t < TYPE_COUNT && found == count; t++)
            found = first_of_type(list, type_names[t].type);
        if (found == count && count > 0) {
            found = 0;
            CLP_WARN(CLP_LOG_DEVICE,
                     "every device is a simulator: running on %s, which is "
                     "hundreds of times slower than a CPU driver",
                     list->devices[0].name);
        }
    } else if (by_index) {
        unsigned long long i = strtoull(selector, NULL, 10); /* too big: ULLONG_MAX */
        found = i < count ? (size_t)i : count;
    } else if (nth_matching(list, selector, &found)) {
        by_name_index = true;
    } else {
        size_t t = 0;
        while (t < TYPE_COUNT && strcasecmp(selector, type_names[t].name) != 0)
            t++;
        if (t < TYPE_COUNT) {
            found = first_of_type(list, type_names[t].type);
        } else {
            for (found = 0; found < count; found++)
                if (clp__device_matches_name(&list->devices[found], selector))
                    break;
        }
    }
    if (found >= count) {
        if (by_index)
            snprintf(head, sizeof head, "no device has index %.24s (%zu device%s)", selector, count,
                     count == 1 ? "" : "s");
        else if (by_name_index)
            snprintf(head, sizeof head, "'%.64s' names no device: too few devices match '%.*s'",
                     selector, (int)(strrchr(selector, ':') - selector), selector);
        else if (find_short_name(selector) >= 0) {
            const int k = find_short_name(selector);
            snprintf(head, sizeof head, "no device matches '%.64s' (platform '%s'%s%s)", selector,
                     short_names[k].platforms[0], short_names[k].hint ? "; " : "",
                     short_names[k].hint ? short_names[k].hint : "");
        } else
            snprintf(head, sizeof head, "no device matches '%.64s'", selector ? selector : "");
        return fail_with_list(list, head, err, __FILE__, __LINE__);
    }
    *out = &list->devices[found];
    CLP_DEBUG(CLP_LOG_DEVICE, "selected device %zu (%s) for selector '%s'", found, (*out)->name,
              selector ? selector : "");
    return CLP_OK;
}

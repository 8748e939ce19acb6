/* `clpart devices [--json]`: every device of every platform, as clinfo does it: one table of
 * rows (label, field, formatter) drives both the fixed-width table and the JSON. A failed query
 * shows as "<error: CL_...>" in its cell and the listing goes on. */
#include "cli.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum cell_kind {
    CELL_INDEX, /* size_t */
    CELL_TEXT,  /* char[] */
    CELL_TYPE,  /* cl_device_type */
    CELL_COUNT, /* cl_uint */
    CELL_BYTES, /* cl_ulong: human units in the table, bytes in JSON */
    CELL_BOOL   /* bool */
} cell_kind;

enum { NO_FIELD = -1, CELL_CAP = 192 };

typedef struct row {
    const char *label; /* table heading */
    const char *key;   /* JSON member */
    cell_kind kind;
    size_t offset; /* member of clp_device_info */
    int field;     /* the clp_device_field whose query error shows here, or NO_FIELD */
} row;

#define ROW(label, key, kind, member, field)                                                       \
    { label, key, kind, offsetof(clp_device_info, member), field }

static const row rows[] = {
    ROW("#", "index", CELL_INDEX, index, NO_FIELD),
    ROW("Platform", "platform", CELL_TEXT, platform_name, CLP_FIELD_PLATFORM_NAME),
    ROW("Device", "name", CELL_TEXT, name, CLP_FIELD_NAME),
    ROW("Type", "type", CELL_TYPE, type, CLP_FIELD_TYPE),
    ROW("Vendor", "vendor", CELL_TEXT, vendor, CLP_FIELD_VENDOR),
    ROW("Driver", "driver_version", CELL_TEXT, driver_version, CLP_FIELD_DRIVER_VERSION),
    ROW("OpenCL C", "opencl_c_version", CELL_TEXT, opencl_c_version, CLP_FIELD_OPENCL_C_VERSION),
    ROW("CUs", "compute_units", CELL_COUNT, compute_units, CLP_FIELD_COMPUTE_UNITS),
    ROW("Global mem", "global_mem_bytes", CELL_BYTES, global_mem_size, CLP_FIELD_GLOBAL_MEM),
    ROW("Max alloc", "max_alloc_bytes", CELL_BYTES, max_mem_alloc_size, CLP_FIELD_MAX_ALLOC),
    ROW("Local mem", "local_mem_bytes", CELL_BYTES, local_mem_size, CLP_FIELD_LOCAL_MEM),
    ROW("Cache", "cache_bytes", CELL_BYTES, global_mem_cache_size, CLP_FIELD_GLOBAL_CACHE),
    ROW("fp64", "fp64", CELL_BOOL, fp64, NO_FIELD),
    ROW("Simulator", "simulator", CELL_BOOL, simulator, NO_FIELD),
};
enum { ROW_COUNT = sizeof rows / sizeof rows[0] };

/* The OpenCL code of the row's failed query, or CL_SUCCESS. */
static cl_int row_error(const clp_device_info *d, const row *r) {
    return r->field == NO_FIELD ? CL_SUCCESS : d->query_error[r->field];
}

static void format_bytes(cl_ulong bytes, char *buf, size_t cap) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    snprintf(buf, cap, v == (double)(cl_ulong)v ? "%.0f %s" : "%.1f %s", v, units[u]);
}

static void cell_text(const clp_device_info *d, const row *r, char *buf, size_t cap) {
    const char *p = (const char *)d + r->offset;
    cl_int code = row_error(d, r);
    if (code != CL_SUCCESS) {
        snprintf(buf, cap, "<error: %s>", clp_cl_error_name(code));
        return;
    }
    switch (r->kind) {
    case CELL_INDEX:
        snprintf(buf, cap, "%zu", *(const size_t *)p);
        break;
    case CELL_TEXT:
        snprintf(buf, cap, "%s", p);
        break;
    case CELL_TYPE:
        snprintf(buf, cap, "%s", clp_device_type_name(*(const cl_device_type *)p));
        break;
    case CELL_COUNT:
        snprintf(buf, cap, "%u", *(const cl_uint *)p);
        break;
    case CELL_BYTES:
        format_bytes(*(const cl_ulong *)p, buf, cap);
        break;
    case CELL_BOOL:
        snprintf(buf, cap, "%s", *(const bool *)p ? "yes" : "no");
        break;
    }
}

/* New reference, or NULL when out of memory. */
static json_t *cell_json(const clp_device_info *d, const row *r) {
    const char *p = (const char *)d + r->offset;
    cl_int code = row_error(d, r);
    if (code != CL_SUCCESS)
        return json_pack("{s:s}", "error", clp_cl_error_name(code));
    switch (r->kind) {
    case CELL_INDEX:
        return json_integer((json_int_t) * (const size_t *)p);
    case CELL_TEXT:
        return json_string(p);
    case CELL_TYPE:
        return json_string(clp_device_type_name(*(const cl_device_type *)p));
    case CELL_COUNT:
        return json_integer((json_int_t) * (const cl_uint *)p);
    case CELL_BYTES:
        return json_integer((json_int_t) * (const cl_ulong *)p);
    case CELL_BOOL:
        return json_boolean(*(const bool *)p);
    }
    return NULL;
}

static bool right_aligned(cell_kind kind) {
    return kind == CELL_INDEX || kind == CELL_COUNT || kind == CELL_BYTES;
}

/* The table: a '*' column for the selected device, then one column per row, each as wide as
 * its widest cell. */
static int print_table(const clp_device_list *list, const clp_device_info *selected) {
    size_t count = clp_device_list_count(list);
    char(*cells)[ROW_COUNT][CELL_CAP] = calloc(count, sizeof *cells);
    if (!cells) {
        fprintf(stderr, "clpart: error: out of host memory listing %zu devices\n", count);
        return CLP_EXIT_RUNTIME;
    }
    int width[ROW_COUNT];
    for (size_t c = 0; c < ROW_COUNT; c++)
        width[c] = (int)strlen(rows[c].label);
    for (size_t i = 0; i < count; i++) {
        for (size_t c = 0; c < ROW_COUNT; c++) {
            cell_text(clp_device_list_get(list, i), &rows[c], cells[i][c], CELL_CAP);
            int w = (int)strlen(cells[i][c]);
            width[c] = w > width[c] ? w : width[c];
        }
    }
    for (size_t i = 0; i <= count; i++) { /* line 0 is the heading */
        const clp_device_info *d = i ? clp_device_list_get(list, i - 1) : NULL;
        fputs(d && d == selected ? "*" : " ", stdout);
        for (size_t c = 0; c < ROW_COUNT; c++) {
            const char *text = d ? cells[i - 1][c] : rows[c].label;
            bool last = c + 1 == ROW_COUNT;
            const char *gap = c ? "  " : " ";
            if (right_aligned(rows[c].kind))
                printf("%s%*s", gap, width[c], text);
            else
                printf("%s%-*s", gap, last ? 0 : width[c], text);
        }
        putchar('\n');
    }
    printf("\n* the device other commands use: --device or $CLPART_DEVICE, else the first GPU, "
           "else the first CPU (never a simulator)\n");
    free(cells);
    return CLP_EXIT_OK;
}

/* {"selected": index or null, "devices": [{key: value or {"error": "CL_..."}, ...}, ...]} */
static int print_json(const clp_device_list *list, const clp_device_info *selected) {
    json_t *root = json_object();
    json_t *devices = json_array();
    bool ok = root && devices &&
              json_object_set_new(root, "selected",
                                  selected ? json_integer((json_int_t)selected->index)
                                           : json_null()) == 0 &&
              json_object_set(root, "devices", devices) == 0;
    for (size_t i = 0; ok && i < clp_device_list_count(list); i++) {
        json_t *obj = json_object();
        ok = json_array_append_new(devices, obj) == 0;
        for (size_t c = 0; ok && c < ROW_COUNT; c++)
            ok = json_object_set_new(obj, rows[c].key,
                                     cell_json(clp_device_list_get(list, i), &rows[c])) == 0;
    }
    json_decref(devices);
    char *text = ok ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    if (!text) {
        fprintf(stderr, "clpart: error: out of host memory writing the device list as JSON\n");
        return CLP_EXIT_RUNTIME;
    }
    puts(text);
    free(text);
    return CLP_EXIT_OK;
}

int cmd_devices(int argc, char **argv, const clp_cli *cli) {
    bool json;
    const int usage = cli_json_flag(argc, argv, &json);
    if (usage != CLP_EXIT_OK)
        return usage;
    clp_error err = CLP_ERROR_INIT;
    clp_device_list *list = NULL;
    if (clp_device_list_create(&list, &err) != CLP_OK)
        return cli_report(&err);
    const clp_device_info *selected = NULL;
    if (clp_device_select(list, cli->device, &selected, &err) != CLP_OK)
        fprintf(stderr, "clpart: warning: %s\n", err.message); /* list them all the same */
    int rc = json ? print_json(list, selected) : print_table(list, selected);
    clp_device_list_destroy(list);
    return rc;
}

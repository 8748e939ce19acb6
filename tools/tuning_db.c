/* Reading the tuning database and finding the entry for a run (tuning_db.h). */
#include "tuning_db.h"
#include "base/json_file.h"
#include "internal.h"
#include "io/io.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* cl_nv_device_attribute_query (cl_ext.h): the compute capability of an NVIDIA device */
#define NV_COMPUTE_CAPABILITY_MAJOR 0x4000
#define NV_COMPUTE_CAPABILITY_MINOR 0x4001

static const char project_folder[] = "tuning/v1";
static const char user_file[] = "clpart/tuning/v1.json";

static void copy(char *dst, size_t size, const char *src) {
    snprintf(dst, size, "%s", src ? src : "");
}

/* The CPU that PoCL compiles for, from its device name "cpu-skylake-avx512-AMD EPYC 7B13"
 * (PoCL 5; "pthread-..." before): after the driver's name, up to the CPU's model name, which
 * begins with a capital where LLVM's CPU names are lower case. False when it is not so. */
static bool pocl_cpu(const char *name, char *out, size_t size) {
    const char *start = strchr(name, '-');
    if (!start || !start[1])
        return false;
    start++;
    size_t len = 0;
    while (start[len] && !(start[len] == '-' && isupper((unsigned char)start[len + 1])))
        len++;
    snprintf(out, size, "%.*s", (int)len, start);
    return len > 0;
}

static bool nvidia_capability(const clp_device_info *dev, char *out, size_t size) {
    cl_uint major = 0, minor = 0;
    if (!clp_device_has_extension(dev, "cl_nv_device_attribute_query") ||
        clGetDeviceInfo(dev->device, NV_COMPUTE_CAPABILITY_MAJOR, sizeof major, &major, NULL) !=
            CL_SUCCESS ||
        clGetDeviceInfo(dev->device, NV_COMPUTE_CAPABILITY_MINOR, sizeof minor, &minor, NULL) !=
            CL_SUCCESS)
        return false;
    snprintf(out, size, "sm_%u%u", major, minor);
    return true;
}

/* Types are written as --device takes them: "gpu", "cpu", "accelerator". */
static void lower(char *s) {
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

void tuning_identity_of(const clp_device_info *dev, tuning_identity *out) {
    *out = (tuning_identity){0};
    copy(out->platform, sizeof out->platform, dev->platform_name);
    copy(out->vendor, sizeof out->vendor, dev->vendor);
    copy(out->name, sizeof out->name, dev->name);
    copy(out->type, sizeof out->type, clp_device_type_name(dev->type));
    lower(out->type);
    const bool pocl = strstr(dev->platform_name, "Portable Computing Language") != NULL;
    if (!nvidia_capability(dev, out->architecture, sizeof out->architecture) &&
        !(pocl && pocl_cpu(dev->name, out->architecture, sizeof out->architecture)))
        copy(out->architecture, sizeof out->architecture, dev->name);
}

/* Both given and equal. */
static bool same(const char *a, const char *b) {
    return *a && *b && !strcmp(a, b);
}

tuning_match tuning_compare(const tuning_identity *entry, const tuning_identity *device) {
    if (same(entry->platform, device->platform) && same(entry->vendor, device->vendor) &&
        same(entry->name, device->name))
        return TUNING_SAME_DEVICE;
    if (same(entry->vendor, device->vendor) && same(entry->architecture, device->architecture))
        return TUNING_SAME_ARCHITECTURE;
    return same(entry->type, device->type) ? TUNING_SAME_TYPE : TUNING_NO_MATCH;
}

const char *tuning_match_name(tuning_match m) {
    switch (m) {
    case TUNING_SAME_DEVICE:
        return "the same device";
    case TUNING_SAME_ARCHITECTURE:
        return "the same vendor and architecture";
    case TUNING_SAME_TYPE:
        return "the same type of device";
    default:
        return "no match";
    }
}

char *tuning_db_user_path(void) {
    clp_strbuf sb = {0};
    const char *env;
    if ((env = getenv("CLPART_TUNING_DB")) && *env)
        clp__sb_append(&sb, env);
    else if ((env = getenv("XDG_DATA_HOME")) && *env)
        clp__sb_appendf(&sb, "%s/%s", env, user_file);
    else if ((env = getenv("HOME")) && *env)
        clp__sb_appendf(&sb, "%s/.local/share/%s", env, user_file);
    return clp__sb_take(&sb);
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

clp_status tuning_db_paths(char ***paths, size_t *n, clp_error *err) {
    clp_status st = CLP_OK;
    char **list = NULL;
    size_t count = 0, room = 0;
    char folder[1024];
    snprintf(folder, sizeof folder, "%s/%s", clp_data_dir(), project_folder);
    DIR *dir = opendir(folder); /* none: no shipped entry */
    for (struct dirent *e; dir && (e = readdir(dir));) {
        const size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0 || e->d_name[0] == '.')
            continue;
        if (count + 2 > room) {
            room = room ? 2 * room : 8;
            char **grown = realloc(list, room * sizeof *list);
            CLP_REQUIRE_ALLOC(grown, err);
            list = grown;
        }
        clp_strbuf sb = {0};
        clp__sb_appendf(&sb, "%s/%s", folder, e->d_name);
        CLP_REQUIRE_ALLOC(list[count] = clp__sb_take(&sb), err);
        count++;
    }
    if (count)
        qsort(list, count, sizeof *list, by_name);
    char *user = tuning_db_user_path();
    if (user && *user) {
        if (count + 1 > room) {
            char **grown = realloc(list, (count + 1) * sizeof *list);
            if (!grown)
                free(user);
            CLP_REQUIRE_ALLOC(grown, err);
            list = grown;
        }
        list[count++] = user;
    } else {
        free(user);
    }
    *paths = list;
    *n = count;
    list = NULL;
    count = 0;
fail:
    for (size_t i = 0; i < count; i++)
        free(list[i]);
    free(list);
    if (dir)
        closedir(dir);
    return st;
}

/* The text -s takes for a JSON value of an option: a string as it is, true or false; NULL for
 * any other JSON. */
static const char *value_text(const json_t *v) {
    if (json_is_string(v))
        return json_string_value(v);
    if (json_is_boolean(v))
        return json_is_true(v) ? "true" : "false";
    return NULL;
}

/* Why entry `e` cannot be taken, in `why`, or "" when it can; its fields into *out. */
static void read_entry(const json_t *e, const clp_schema *schema, const char *where,
                       tuning_entry *out, char *why, size_t size) {
    *why = '\0';
    const json_t *device = json_object_get(e, "device");
    const json_t *model = json_object_get(e, "model");
    const json_t *particles = json_object_get(e, "particles");
    const json_t *options = json_object_get(e, "options");
    if (!json_is_object(device) || !json_is_string(model) || !json_is_number(particles) ||
        !(json_number_value(particles) > 0) || !json_is_object(options)) {
        snprintf(why, size,
                 "an entry holds an object \"device\", a string \"model\", a number "
                 "\"particles\" above 0 and an object \"options\"");
        return;
    }
    struct {
        const char *key;
        char *field;
        size_t size;
    } fields[] = {{"platform", out->device.platform, sizeof out->device.platform},
                  {"vendor", out->device.vendor, sizeof out->device.vendor},
                  {"name", out->device.name, sizeof out->device.name},
                  {"type", out->device.type, sizeof out->device.type},
                  {"architecture", out->device.architecture, sizeof out->device.architecture}};
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
        const json_t *v = json_object_get(device, fields[k].key);
        if (v && !json_is_string(v)) {
            snprintf(why, size, "device.%s is not a string", fields[k].key);
            return;
        }
        copy(fields[k].field, fields[k].size, json_string_value(v));
    }
    lower(out->device.type);
    /* each option as a run would take it, on options of their own */
    clp_options *scratch = NULL;
    clp_error err = CLP_ERROR_INIT;
    if (clp_options_create(schema, &scratch, &err) != CLP_OK) {
        snprintf(why, size, "%s", err.message);
        return;
    }
    out->options = json_object(); /* the values as text, as a run hands them on */
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)options, name, value) {
        const char *text = value_text(value);
        bool taken;
        if (!text) {
            snprintf(why, size, "options.%s is not a string, true or false", name);
            break;
        }
        if (clp_options_tune(scratch, name, text, where, &taken, &err) != CLP_OK) {
            snprintf(why, size, "%s", err.message);
            break;
        }
        if (!out->options || json_object_set_new(out->options, name, json_string(text))) {
            snprintf(why, size, "out of host memory");
            break;
        }
    }
    clp_options_destroy(scratch);
    if (*why)
        return;
    out->model = strdup(json_string_value(model));
    out->particles = json_number_value(particles);
    out->where = strdup(where);
    if (!out->model || !out->options || !out->where)
        snprintf(why, size, "out of host memory");
}

static void entry_free(tuning_entry *e) {
    free(e->model);
    json_decref(e->options);
    free(e->where);
    *e = (tuning_entry){0};
}

/* The entries of one file, appended to db; a file that is not whole is left out, named. */
static clp_status load_file(const char *path, const clp_schema *schema, tuning_db *db,
                            clp_error *err) {
    clp_status st = CLP_OK;
    json_t *root = NULL;
    clp_error read_err = CLP_ERROR_INIT;
    FILE *probe = fopen(path, "r");
    if (!probe && errno == ENOENT)
        return CLP_OK; /* no database there yet */
    if (probe)
        fclose(probe);
    if (clp__json_load(path, CLP_JSON, &root, &read_err) != CLP_OK) {
        CLP_WARN(CLP_LOG_OPTIONS, "%s: not read as a tuning database (%s): the defaults stand",
                 path, read_err.message);
        return CLP_OK;
    }
    const json_t *format = json_object_get(root, "clpart_tuning");
    const json_t *entries = json_object_get(root, "entries");
    if (!json_is_integer(format) || json_integer_value(format) != TUNING_FORMAT ||
        !json_is_array(entries)) {
        CLP_WARN(CLP_LOG_OPTIONS,
                 "%s: not a tuning database of format %d (an object with \"clpart_tuning\": %d "
                 "and an array \"entries\"): left out",
                 path, TUNING_FORMAT, TUNING_FORMAT);
        goto fail;
    }
    const size_t count = json_array_size(entries);
    tuning_entry *grown = realloc(db->entries, (db->n + count + 1) * sizeof *grown);
    CLP_REQUIRE_ALLOC(grown, err);
    db->entries = grown;
    for (size_t k = 0; k < count; k++) {
        char where[1100], why[400];
        snprintf(where, sizeof where, "%s, entry %zu", path, k + 1);
        tuning_entry e = {0};
        read_entry(json_array_get(entries, k), schema, where, &e, why, sizeof why);
        if (*why) {
            CLP_WARN(CLP_LOG_OPTIONS, "%s: left out: %s", where, why);
            entry_free(&e);
            continue;
        }
        db->entries[db->n++] = e;
    }
fail:
    json_decref(root);
    return st;
}

clp_status tuning_db_load(const char *const *paths, size_t n, const clp_schema *schema,
                          tuning_db *db, clp_error *err) {
    *db = (tuning_db){0};
    for (size_t i = 0; i < n; i++) {
        const clp_status st = load_file(paths[i], schema, db, err);
        if (st != CLP_OK) {
            tuning_db_free(db);
            return st;
        }
    }
    return CLP_OK;
}

void tuning_db_free(tuning_db *db) {
    for (size_t i = 0; i < db->n; i++)
        entry_free(&db->entries[i]);
    free(db->entries);
    *db = (tuning_db){0};
}

const tuning_entry *tuning_db_lookup(const tuning_db *db, const tuning_identity *id,
                                     const char *model, double particles, tuning_match *match) {
    const tuning_entry *best = NULL;
    tuning_match best_match = TUNING_NO_MATCH;
    double best_distance = INFINITY;
    for (size_t i = 0; model && i < db->n; i++) {
        const tuning_entry *e = &db->entries[i];
        const tuning_match m = tuning_compare(&e->device, id);
        if (m == TUNING_NO_MATCH || strcmp(e->model, model) != 0)
            continue;
        const double distance = particles > 0 ? fabs(log(e->particles / particles)) : 0;
        if (m > best_match || (m == best_match && distance <= best_distance)) {
            best = e;
            best_match = m;
            best_distance = distance;
        }
    }
    *match = best_match;
    return best;
}

static json_t *identity_json(const tuning_identity *id) {
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "platform", id->platform, "vendor", id->vendor,
                     "name", id->name, "type", id->type, "architecture", id->architecture);
}

/* Whether entry `e` of a file is for the same device and model at about the same size. */
static bool same_entry(const json_t *e, const json_t *device, const char *model, double particles) {
    const json_t *size = json_object_get(e, "particles");
    return json_equal(json_object_get(e, "device"), (json_t *)device) &&
           json_is_string(json_object_get(e, "model")) &&
           !strcmp(json_string_value(json_object_get(e, "model")), model) && json_is_number(size) &&
           json_number_value(size) > 0 &&
           fabs(log(json_number_value(size) / particles)) < 0.5 * log(2.0);
}

clp_status tuning_db_save(const char *path, const tuning_identity *device, const char *model,
                          double particles, const json_t *options, const char *note, bool *replaced,
                          clp_error *err) {
    clp_status st = CLP_OK;
    json_t *root = NULL, *entry = NULL;
    char *text = NULL;
    *replaced = false;
    FILE *probe = fopen(path, "r");
    if (probe) {
        fclose(probe);
        CLP_TRY(clp__json_load(path, CLP_JSON, &root, err));
        const json_t *format = json_object_get(root, "clpart_tuning");
        CLP_REQUIRE_FILE(path,
                         json_is_integer(format) && json_integer_value(format) == TUNING_FORMAT &&
                             json_is_array(json_object_get(root, "entries")),
                         err,
                         "%s is not a tuning database of format %d: not overwritten (move it "
                         "away, or name another file with CLPART_TUNING_DB)",
                         path, TUNING_FORMAT);
    } else {
        CLP_REQUIRE_FILE(path, errno == ENOENT, err, "cannot read %s: %s", path, strerror(errno));
        root = json_pack("{s:i, s:[]}", "clpart_tuning", TUNING_FORMAT, "entries");
        char folder[1024], why[256];
        snprintf(folder, sizeof folder, "%s", path);
        char *slash = strrchr(folder, '/');
        if (slash && slash != folder) {
            *slash = '\0';
            CLP_REQUIRE_FILE(path, clp__make_dirs(folder, why, sizeof why), err,
                             "cannot make %s: %s", folder, why);
        }
    }
    /* a count of particles is written as the integer it is */
    json_t *size = particles == floor(particles) && particles < 0x1p53
                       ? json_integer((json_int_t)particles)
                       : json_real(particles);
    entry = json_pack("{s:o, s:s, s:o, s:O}", "device", identity_json(device), "model", model,
                      "particles", size, "options", options);
    CLP_REQUIRE(root && entry, err, CLP_NOMEM, "out of host memory");
    if (note)
        json_object_set_new(entry, "note", json_string(note));
    json_t *entries = json_object_get(root, "entries");
    for (size_t k = 0; k < json_array_size(entries) && !*replaced; k++)
        if (same_entry(json_array_get(entries, k), json_object_get(entry, "device"), model,
                       particles)) {
            json_array_set(entries, k, entry);
            *replaced = true;
        }
    if (!*replaced)
        json_array_append(entries, entry);
    char *dumped = json_dumps(root, JSON_INDENT(2));
    CLP_REQUIRE_ALLOC(dumped, err);
    clp_strbuf sb = {0};
    clp__sb_appendf(&sb, "%s\n", dumped);
    free(dumped);
    text = clp__sb_take(&sb);
    CLP_REQUIRE_ALLOC(text, err);
    CLP_TRY(clp__atomic_write_file(path, text, strlen(text), err));
fail:
    free(text);
    json_decref(entry);
    json_decref(root);
    return st;
}

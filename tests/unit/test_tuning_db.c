/* The tuning database (tools/tuning_db.c) on files written here: which entry a device gets
 * (the same device, else the same vendor and architecture, else the same type; then the
 * closest size; the last file read wins a tie), what is left out with a warning (a file that
 * is not JSON, one of another format, entries that are not whole or set an option that is not
 * a performance option), that reading writes nothing, the architecture a device is known by,
 * that a tuned value never overrides one the case or -s set, and what clpart tune --save writes
 * (a new file in new folders, an entry replaced at the same size and added at another, a file
 * of another kind left as it was). No OpenCL device is needed. */
#include "../../tools/tuning_db.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dir[] = "/tmp/clpart-tuning-XXXXXX";

static char *write_file(const char *name, const char *text) {
    static char paths[8][256];
    static int next;
    char *path = paths[next++];
    snprintf(path, sizeof paths[0], "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        CLP_TEST_FAIL("cannot write %s", path);
    return path;
}

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    CLP_ASSERT(f != NULL);
    static char buf[8192];
    const size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strdup(buf);
}

/* How many warnings the log sink saw, and the last. */
static int warnings;
static char last_warning[1024];
static void sink(clp_log_level level, unsigned category, const char *message, void *user) {
    (void)category, (void)user;
    if (level == CLP_LOG_WARN) {
        warnings++;
        snprintf(last_warning, sizeof last_warning, "%s", message);
    }
}

/* The device of the entries below: a PoCL CPU. */
static const tuning_identity here = {"Portable Computing Language", "AuthenticAMD",
                                     "cpu-znver3-AMD EPYC 7B13", "cpu", "znver3"};

static const char project[] =
    "{\"clpart_tuning\": 1, \"entries\": ["
    /* 1: any CPU */
    " {\"device\": {\"type\": \"cpu\"}, \"model\": \"lj\", \"particles\": 300,"
    "  \"options\": {\"lj.strategy\": \"par_part_loop\"}},"
    /* 2: the same vendor and architecture, another name */
    " {\"device\": {\"vendor\": \"AuthenticAMD\", \"architecture\": \"znver3\","
    "  \"name\": \"cpu-znver3-AMD EPYC 7763\", \"type\": \"cpu\"}, \"model\": \"lj\","
    "  \"particles\": 100000, \"options\": {\"lj.strategy\": \"simd\"}},"
    /* 3, 4: this device, at 1000 and 1000000 atoms */
    " {\"device\": {\"platform\": \"Portable Computing Language\", \"vendor\": \"AuthenticAMD\","
    "  \"name\": \"cpu-znver3-AMD EPYC 7B13\", \"type\": \"cpu\"}, \"model\": \"lj\","
    "  \"particles\": 1000, \"options\": {\"lj.strategy\": \"par_cell\"}},"
    " {\"device\": {\"platform\": \"Portable Computing Language\", \"vendor\": \"AuthenticAMD\","
    "  \"name\": \"cpu-znver3-AMD EPYC 7B13\", \"type\": \"cpu\"}, \"model\": \"lj\","
    "  \"particles\": 1000000, \"options\": {\"lj.strategy\": \"x_pencil\","
    "  \"neighbors.mode\": \"jit\"}},"
    /* 5: another model */
    " {\"device\": {\"type\": \"cpu\"}, \"model\": \"sph\", \"particles\": 1000,"
    "  \"options\": {\"sph.strategy\": \"x_pencil\"}}]}";

/* Each entry but the last is left out, with its reason. */
static const char broken[] =
    "{\"clpart_tuning\": 1, \"entries\": ["
    " {\"device\": {\"type\": \"cpu\"}, \"model\": \"lj\", \"particles\": 1,"
    "  \"options\": {\"sph.kernel\": \"wendland\"}},"
    " {\"device\": {\"type\": \"cpu\"}, \"model\": \"lj\", \"particles\": 1,"
    "  \"options\": {\"lj.stratgy\": \"simd\"}},"
    " {\"device\": {\"type\": \"cpu\"}, \"model\": \"lj\", \"particles\": 1,"
    "  \"options\": {\"lj.strategy\": \"fastest\"}},"
    " {\"device\": {\"type\": \"cpu\"}, \"model\": \"lj\", \"options\": {}},"
    " {\"device\": {\"type\": 3}, \"model\": \"lj\", \"particles\": 1, \"options\": {}},"
    " {\"device\": {\"type\": \"gpu\"}, \"model\": \"lj\", \"particles\": 1,"
    "  \"options\": {\"lj.strategy\": \"all_in_sm\"}}]}";

/* The user's: ties entry 3 of the project's, and comes later. */
static const char user[] =
    "{\"clpart_tuning\": 1, \"entries\": ["
    " {\"device\": {\"platform\": \"Portable Computing Language\", \"vendor\": \"AuthenticAMD\","
    "  \"name\": \"cpu-znver3-AMD EPYC 7B13\", \"type\": \"cpu\"}, \"model\": \"lj\","
    "  \"particles\": 1000, \"options\": {\"lj.strategy\": \"par_cell_sm\"}}]}";

static const char *strategy_of(const tuning_entry *e) {
    return e ? json_string_value(json_object_get(e->options, "lj.strategy")) : "(none)";
}

static void expect(const tuning_db *db, const tuning_identity *id, const char *model,
                   double particles, const char *strategy, tuning_match match) {
    tuning_match got;
    const tuning_entry *e = tuning_db_lookup(db, id, model, particles, &got);
    if (strcmp(strategy_of(e), strategy) != 0 || got != match)
        CLP_TEST_FAIL("%s at %g particles on %s: %s (%s), expected %s (%s)", model, particles,
                      id->name, strategy_of(e), tuning_match_name(got), strategy,
                      tuning_match_name(match));
}

static void identities(void) {
    clp_device_info pocl = {.platform_name = "Portable Computing Language",
                            .name = "pthread-skylake-avx512-AMD EPYC",
                            .vendor = "AuthenticAMD",
                            .type = CL_DEVICE_TYPE_CPU};
    tuning_identity id;
    tuning_identity_of(&pocl, &id);
    CLP_ASSERT_STR_EQ(id.architecture, "skylake-avx512");
    CLP_ASSERT_STR_EQ(id.type, "cpu");
    clp_device_info other = {.platform_name = "Intel(R) OpenCL",
                             .name = "Intel(R) Xeon(R) CPU",
                             .vendor = "Intel(R) Corporation",
                             .type = CL_DEVICE_TYPE_CPU};
    tuning_identity_of(&other, &id);
    CLP_ASSERT_STR_EQ(id.architecture, "Intel(R) Xeon(R) CPU");
    /* a field an entry leaves empty matches nothing */
    const tuning_identity typeless = {"", "AuthenticAMD", "", "", ""};
    CLP_ASSERT_EQ(tuning_compare(&typeless, &here), TUNING_NO_MATCH);
}

/* tuning_db_save, read back as a run reads the file. */
static void saving(const clp_schema *schema) {
    clp_error err = CLP_ERROR_INIT;
    char path[512];
    snprintf(path, sizeof path, "%s/new/folder/v1.json", dir);
    const tuning_identity id = {"Portable Computing Language", "AuthenticAMD",
                                "cpu-znver3-AMD EPYC 7543", "cpu", "znver3"};
    json_t *first = json_pack("{s:s, s:s}", "lj.strategy", "simd", "grid.key", "morton");
    json_t *second = json_pack("{s:s}", "lj.strategy", "par_cell");
    bool replaced = true;
    CLP_ASSERT_OK(tuning_db_save(path, &id, "lj", 32000, first, "first", &replaced, &err), &err);
    CLP_ASSERT(!replaced);
    /* within a factor of sqrt(2): the same size, replaced; 4 times larger: another entry */
    CLP_ASSERT_OK(tuning_db_save(path, &id, "lj", 40000, second, NULL, &replaced, &err), &err);
    CLP_ASSERT(replaced);
    CLP_ASSERT_OK(tuning_db_save(path, &id, "lj", 128000, first, NULL, &replaced, &err), &err);
    CLP_ASSERT(!replaced);
    const char *paths[] = {path};
    tuning_db db;
    const int before = warnings;
    CLP_ASSERT_OK(tuning_db_load(paths, 1, schema, &db, &err), &err);
    CLP_ASSERT_EQ(warnings, before);
    CLP_ASSERT_EQ(db.n, 2);
    expect(&db, &id, "lj", 32000, "par_cell", TUNING_SAME_DEVICE);
    expect(&db, &id, "lj", 100000, "simd", TUNING_SAME_DEVICE);
    tuning_db_free(&db);
    /* a file that is not a database is not overwritten */
    char *other = write_file("other.json", "{\"not\": \"a database\"}\n");
    char *kept = read_all(other);
    CLP_ASSERT_STATUS(tuning_db_save(other, &id, "lj", 32000, first, NULL, &replaced, &err), CLP_IO,
                      &err);
    CLP_ASSERT_CONTAINS(err.message, "not overwritten");
    char *now = read_all(other);
    CLP_ASSERT_STR_EQ(now, kept);
    free(kept);
    free(now);
    remove(other);
    remove(path);
    char folder[512];
    snprintf(folder, sizeof folder, "%s/new/folder", dir);
    remove(folder);
    snprintf(folder, sizeof folder, "%s/new", dir);
    remove(folder);
    json_decref(first);
    json_decref(second);
}

int main(void) {
    CLP_ASSERT(mkdtemp(dir) != NULL);
    clp_log_set_sink(sink, NULL);
    clp_error err = CLP_ERROR_INIT;
    clp_schema *schema = NULL;
    char options_dir[1024];
    snprintf(options_dir, sizeof options_dir, "%s/options", clp_data_dir());
    CLP_ASSERT_OK(clp_schema_load(options_dir, &schema, &err), &err);

    const char *paths[] = {
        write_file("a.json", project),
        write_file("b.json", "{\"clpart_tuning\": 1, \"entries\": [ {\"device\""),
        write_file("c.json", "{\"clpart_tuning\": 2, \"entries\": []}"),
        write_file("d.json", broken),
        write_file("user.json", user),
        "/nonexistent/clpart/tuning/v1.json",
    };
    char *before = read_all(paths[1]);
    tuning_db db;
    CLP_ASSERT_OK(tuning_db_load(paths, sizeof paths / sizeof paths[0], schema, &db, &err), &err);
    /* 5 + the last of d.json + 1; b.json and c.json whole, and five of d.json's, left out */
    CLP_ASSERT_EQ(db.n, 7);
    CLP_ASSERT_EQ(warnings, 7);
    char *after = read_all(paths[1]);
    CLP_ASSERT_STR_EQ(after, before); /* read, never written */

    /* the same device: the closest size, and the user's where it ties the project's */
    expect(&db, &here, "lj", 1000, "par_cell_sm", TUNING_SAME_DEVICE);
    expect(&db, &here, "lj", 900000, "x_pencil", TUNING_SAME_DEVICE);
    expect(&db, &here, "lj", 20000, "par_cell_sm", TUNING_SAME_DEVICE); /* 20x 1e3, 50x below 1e6 */
    /* the same vendor and architecture */
    const tuning_identity sibling = {"Portable Computing Language", "AuthenticAMD",
                                     "cpu-znver3-AMD EPYC 7543", "cpu", "znver3"};
    expect(&db, &sibling, "lj", 1000, "simd", TUNING_SAME_ARCHITECTURE);
    /* the same type: every CPU entry is one, the closest in size taken; d.json's GPU entry
       only for a GPU */
    const tuning_identity xeon = {"Portable Computing Language", "GenuineIntel",
                                  "cpu-sapphirerapids-Intel(R) Xeon(R)", "cpu", "sapphirerapids"};
    expect(&db, &xeon, "lj", 400, "par_part_loop", TUNING_SAME_TYPE);
    expect(&db, &xeon, "lj", 1000, "par_cell_sm", TUNING_SAME_TYPE);
    const tuning_identity gpu = {"NVIDIA CUDA", "NVIDIA Corporation", "NVIDIA H200", "gpu",
                                 "sm_90"};
    expect(&db, &gpu, "lj", 32000, "all_in_sm", TUNING_SAME_TYPE);
    expect(&db, &gpu, "pso", 32000, "(none)", TUNING_NO_MATCH);

    /* a tuned value is taken only where the case and -s left the default */
    clp_options *opts = NULL;
    bool taken;
    CLP_ASSERT_OK(clp_options_create(schema, &opts, &err), &err);
    CLP_ASSERT_OK(clp_options_apply_assignment(opts, "lj.strategy=par_part_loop", &err), &err);
    CLP_ASSERT_OK(clp_options_tune(opts, "lj.strategy", "simd", "test", &taken, &err), &err);
    CLP_ASSERT(!taken);
    CLP_ASSERT_STR_EQ(clp_options_enum(opts, "lj.strategy"), "par_part_loop");
    CLP_ASSERT_OK(clp_options_tune(opts, "neighbors.mode", "jit", "test", &taken, &err), &err);
    CLP_ASSERT(taken);
    CLP_ASSERT_EQ(clp_options_get(opts, "neighbors.mode")->origin, CLP_ORIGIN_TUNING);
    CLP_ASSERT(!clp_option_set_by_user(clp_options_get(opts, "neighbors.mode")));
    /* behind its unmet dependency (neighbors.mode=list) a tuned list format changes nothing */
    CLP_ASSERT_OK(clp_options_tune(opts, "neighbors.format", "bits", "test", &taken, &err), &err);
    CLP_ASSERT_OK(clp_options_check(opts, &err), &err);
    CLP_ASSERT_STATUS(clp_options_tune(opts, "sph.kernel", "wendland", "test", &taken, &err),
                      CLP_OPTION_VALUE, &err);
    clp_options_destroy(opts);

    identities();
    saving(schema);
    tuning_db_free(&db);
    clp_schema_destroy(schema);
    free(before);
    free(after);
    for (size_t i = 0; i + 1 < sizeof paths / sizeof paths[0]; i++)
        remove(paths[i]);
    remove(dir);
    printf("tuning database: lookups, fallbacks, what is left out and why, saving\n");
    return 0;
}

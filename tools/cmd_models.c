/* `clpart models [--json]`: every model of the registry as the commands see it: its option
 * modules, the stages of one step in order (kernel, phase, the option that turns it on),
 * its device buffers, its diagnostics, outputs and checkpoint. One JSON document drives both
 * the text and --json. */
#include "cli.h"

#include <jansson.h>
#include <string.h>

static const char *const phase_names[CLP_PHASE_COUNT] = {
    [CLP_PHASE_SORT] = "sort",
    [CLP_PHASE_LIST] = "list",
    [CLP_PHASE_BOUNDARY] = "boundary",
    [CLP_PHASE_DENSITY] = "density",
    [CLP_PHASE_FORCES] = "forces",
    [CLP_PHASE_TIME_STEP] = "time_step",
    [CLP_PHASE_INTEGRATION] = "integration",
};

static json_t *string_list(const char *const *items) {
    json_t *list = json_array();
    for (size_t i = 0; items && items[i]; i++)
        json_array_append_new(list, json_string(items[i]));
    return list;
}

static json_t *model_json(const clp_model *m) {
    json_t *stages = json_array(), *buffers = json_array();
    for (const clp_model_stage *s = m->stages; s && (s->kernel || s->what); s++) {
        json_t *stage = json_pack("{s:s?, s:s, s:s}", "kernel", s->kernel, "what", s->what, "phase",
                                  phase_names[s->phase]);
        if (s->needs_option)
            json_object_set_new(
                stage, "when",
                json_sprintf("%s%s%s", s->needs_option, s->needs_not ? "!=" : "=", s->needs_value));
        json_array_append_new(stages, stage);
    }
    for (int i = 0; i < CLP_BUF_COUNT; i++)
        if (m->buffers & CLP_BUF_BIT(i))
            json_array_append_new(buffers, json_string(clp_buffer_traits_of(CLP_BUF_BIT(i))->name));
    for (size_t i = 0; m->owned_buffers && m->owned_buffers[i]; i++)
        json_array_append_new(buffers, json_string(m->owned_buffers[i]));
    json_t *doc = json_pack(
        "{s:s, s:s?, s:s?, s:b, s:o, s:o, s:b, s:o, s:o, s:o, s:s?, s:s?}", "name", m->name, "unit",
        m->throughput_unit, "steps", m->steps_name, "simulated_time", m->simulated_time, "modules",
        string_list(m->modules), "stages", stages, "profiled", m->profiled, "buffers", buffers,
        "diagnostics", string_list(m->diagnostics), "outputs", string_list(m->outputs),
        "checkpoint", m->checkpoint, "runner", m->runner);
    if (m->run_chooses_option)
        json_object_set_new(doc, "program_chosen_by_run",
                            json_sprintf("%s=%s", m->run_chooses_option, m->run_chooses_value));
    return doc;
}

/* The strings of `list` after `label`, comma-separated, on one line. */
static void print_list(const char *label, const json_t *list) {
    size_t i;
    json_t *item;
    printf("  %-12s", label);
    json_array_foreach(list, i, item) {
        printf("%s%s", i ? ", " : "", json_string_value(item));
    }
    printf("%s\n", json_array_size(list) ? "" : "none");
}

static void print_model(const json_t *m) {
    const char *runner = json_string_value(json_object_get(m, "runner"));
    printf("%s", json_string_value(json_object_get(m, "name")));
    if (runner)
        printf(" (run by %s)\n", runner);
    else
        printf(": rate in %s; --steps counts %s%s\n", json_string_value(json_object_get(m, "unit")),
               json_string_value(json_object_get(m, "steps")),
               json_is_true(json_object_get(m, "simulated_time")) ? ", --time its simulated time"
                                                                  : "");
    print_list("options", json_object_get(m, "modules"));
    const char *chooses = json_string_value(json_object_get(m, "program_chosen_by_run"));
    if (chooses)
        printf("  %-12sits program chosen by the run, by timing, when %s\n", "program", chooses);
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(m, "stages"), i, s) {
        const char *kernel = json_string_value(json_object_get(s, "kernel"));
        const char *when = json_string_value(json_object_get(s, "when"));
        printf("  %-12s%zu. %s%s%s [%s]%s%s\n", i ? "" : "step", i + 1, kernel ? kernel : "",
               kernel ? ": " : "", json_string_value(json_object_get(s, "what")),
               json_string_value(json_object_get(s, "phase")), when ? " when " : "",
               when ? when : "");
    }
    print_list("buffers", json_object_get(m, "buffers"));
    print_list("diagnostics", json_object_get(m, "diagnostics"));
    print_list("outputs", json_object_get(m, "outputs"));
    const char *checkpoint = json_string_value(json_object_get(m, "checkpoint"));
    printf("  %-12s%s\n", "checkpoint", checkpoint ? checkpoint : "none (no --restart)");
    printf("  %-12s%s\n", "--timing",
           json_is_true(json_object_get(m, "profiled")) ? "device time per phase" : "not profiled");
}

int cmd_models(int argc, char **argv, const clp_cli *cli) {
    (void)cli;
    bool as_json;
    const int usage = cli_json_flag(argc, argv, &as_json);
    if (usage != CLP_EXIT_OK)
        return usage;
    size_t count;
    const clp_model *models = clp_models(&count);
    json_t *doc = json_array();
    for (size_t i = 0; i < count; i++)
        json_array_append_new(doc, model_json(&models[i]));
    if (as_json) {
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("\n");
    } else {
        size_t i;
        json_t *m;
        json_array_foreach(doc, i, m) {
            printf("%s", i ? "\n" : "");
            print_model(m);
        }
    }
    json_decref(doc);
    return CLP_EXIT_OK;
}

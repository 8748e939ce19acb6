/* The library's logger: levels, debug categories as bits, and a replaceable sink. A disabled
 * message costs one branch (CLP_LOG checks clp__log_enabled before formatting). */
#include "internal.h"

#include <string.h>

static clp_log_level max_level = CLP_LOG_WARN;
static unsigned debug_categories;
static clp_log_sink sink;
static void *sink_user;

static const char *const category_names[] = {"device", "options", "build",
                                             "cache",  "buffer",  "run"};
enum { CATEGORY_COUNT = sizeof category_names / sizeof category_names[0] };

void clp_log_configure(clp_log_level level, unsigned categories) {
    max_level = level;
    debug_categories = categories;
}

void clp_log_set_sink(clp_log_sink fn, void *user) {
    sink = fn;
    sink_user = user;
}

const char *clp_log_category_name(unsigned category) {
    for (unsigned i = 0; i < CATEGORY_COUNT; i++)
        if (category == 1u << i)
            return category_names[i];
    return "clpart";
}

clp_status clp_log_parse_categories(const char *spec, unsigned *out, clp_error *err) {
    unsigned bits = 0;
    const char *p = spec;
    while (*p) {
        size_t n = strcspn(p, ",");
        bool found = n == 3 && strncmp(p, "all", 3) == 0;
        if (found)
            bits |= CLP_LOG_ALL;
        for (unsigned i = 0; i < CATEGORY_COUNT && !found; i++) {
            if (strlen(category_names[i]) == n && strncmp(p, category_names[i], n) == 0) {
                bits |= 1u << i;
                found = true;
            }
        }
        if (!found)
            return CLP_FAIL(err, CLP_USAGE,
                            "unknown log category '%.*s' (known: all, device, options, build, "
                            "cache, buffer, run)",
                            (int)n, p);
        p += n;
        if (*p == ',')
            p++;
    }
    *out = bits;
    return CLP_OK;
}

bool clp__log_enabled(clp_log_level level, unsigned category) {
    if (level == CLP_LOG_DEBUG)
        return (debug_categories & category) != 0;
    return level <= max_level;
}

static const char *level_name(clp_log_level level) {
    static const char *const names[] = {"error", "warning", "info", "debug"};
    return names[level];
}

void clp__log(clp_log_level level, unsigned category, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (sink) {
        sink(level, category, text, sink_user);
        return;
    }
    fprintf(stderr, "clpart: %s [%s] %s\n", level_name(level), clp_log_category_name(category),
            text);
}

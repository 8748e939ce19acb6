/* `clpart cache list|stats|clear`: shows and empties the program binary cache, as a table or,
 * for list and stats, as JSON (--json). */
#include "cli.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* "512 B", "1.2 MiB" */
static void format_size(uint64_t bytes, char buf[32]) {
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        snprintf(buf, 32, "%" PRIu64 " B", bytes);
        return;
    }
    double value = (double)bytes / 1024;
    int unit = 0;
    while (value >= 1024 && unit < 3) {
        value /= 1024;
        unit++;
    }
    snprintf(buf, 32, "%.1f %s", value, units[unit]);
}

/* Seconds as "40s", "12m", "5h", "3d"; "?" when unknown. */
static void format_age(int64_t seconds, char buf[32]) {
    if (seconds < 0)
        snprintf(buf, 32, "?");
    else if (seconds < 60)
        snprintf(buf, 32, "%" PRId64 "s", seconds);
    else if (seconds < 3600)
        snprintf(buf, 32, "%" PRId64 "m", seconds / 60);
    else if (seconds < 86400)
        snprintf(buf, 32, "%" PRId64 "h", seconds / 3600);
    else
        snprintf(buf, 32, "%" PRId64 "d", seconds / 86400);
}

static void format_time(int64_t t, char buf[32]) {
    time_t tt = (time_t)t;
    struct tm tm;
    if (!localtime_r(&tt, &tm) || !strftime(buf, 32, "%Y-%m-%d %H:%M:%S", &tm))
        snprintf(buf, 32, "?");
}

/* The 32-digit key from ".../<2 digits>/<30 digits>.clpbin". */
static void entry_key(const char *path, char key[33]) {
    const char *file = strrchr(path, '/');
    snprintf(key, 33, "%.2s%.30s", file - 2, file + 1);
}

/* Prints `root` (stolen; NULL when building it ran out of memory) as the command's result. */
static int print_json(json_t *root, const char *what) {
    bool ok = root && json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
              putchar('\n') != EOF;
    json_decref(root);
    if (ok)
        return CLP_EXIT_OK;
    clp_error err = {.status = CLP_IO, .line = -1, .column = -1};
    snprintf(err.message, sizeof err.message,
             "cannot write the %s as JSON (out of memory or stdout failed)", what);
    return cli_report(&err);
}

static json_t *entry_json(const clp_cache_entry *e) {
    char key[33];
    entry_key(e->path, key);
    return json_pack("{s:s, s:s, s:I, s:o, s:I, s:s}", "key", key, "path", e->path, "bytes",
                     (json_int_t)e->bytes, "created",
                     e->created < 0 ? json_null() : json_integer(e->created), "last_used",
                     (json_int_t)e->last_used, "device", e->device);
}

static int cache_list(clp_cache *cache, bool json) {
    clp_error err = CLP_ERROR_INIT;
    clp_cache_entry *entries;
    size_t n;
    if (clp_cache_list(cache, &entries, &n, &err) != CLP_OK)
        return cli_report(&err);
    uint64_t total = 0;
    int device_width = (int)strlen("DEVICE");
    for (size_t i = 0; i < n; i++) {
        total += entries[i].bytes;
        if ((int)strlen(entries[i].device) > device_width)
            device_width = (int)strlen(entries[i].device);
    }
    if (json) {
        json_t *list = json_array();
        for (size_t i = 0; list && i < n; i++) {
            if (json_array_append_new(list, entry_json(&entries[i])) != 0) {
                json_decref(list);
                list = NULL;
            }
        }
        free(entries);
        return print_json(json_pack("{s:s, s:o, s:I, s:I}", "folder", clp_cache_dir(cache),
                                    "entries", list, "count", (json_int_t)n, "bytes",
                                    (json_int_t)total),
                          "cache list");
    }
    char key[33], size[32], age[32], when[32];
    if (n > 0)
        printf("%-19s  %5s  %10s  %-*s  %s\n", "LAST USED", "AGE", "SIZE", device_width, "DEVICE",
               "KEY");
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++) {
        const clp_cache_entry *e = &entries[i];
        format_time(e->last_used, when);
        format_age(e->created < 0 ? -1 : now - e->created, age);
        format_size(e->bytes, size);
        entry_key(e->path, key);
        printf("%-19s  %5s  %10s  %-*s  %s\n", when, age, size, device_width, e->device, key);
    }
    format_size(total, size);
    printf("%zu %s, %s in %s\n", n, n == 1 ? "entry" : "entries", size, clp_cache_dir(cache));
    free(entries);
    return CLP_EXIT_OK;
}

static int cache_stats(clp_cache *cache, bool json) {
    clp_error err = CLP_ERROR_INIT;
    clp_cache_stats s;
    if (clp_cache_stats_get(cache, &s, &err) != CLP_OK)
        return cli_report(&err);
    uint64_t lookups = s.hits + s.misses;
    double rate = lookups ? 100.0 * (double)s.hits / (double)lookups : 0.0;
    if (json)
        return print_json(json_pack("{s:s, s:b, s:I, s:I, s:I, s:I, s:I, s:o}", "folder",
                                    clp_cache_dir(cache), "enabled", clp_cache_enabled(cache),
                                    "entries", (json_int_t)s.entries, "bytes", (json_int_t)s.bytes,
                                    "max_bytes", (json_int_t)s.max_bytes, "hits",
                                    (json_int_t)s.hits, "misses", (json_int_t)s.misses, "hit_rate",
                                    lookups ? json_real(rate / 100.0) : json_null()),
                          "cache statistics");
    char size[32], cap[32];
    format_size(s.bytes, size);
    format_size(s.max_bytes, cap);
    printf("folder:     %s%s\n", clp_cache_dir(cache),
           clp_cache_enabled(cache) ? "" : " (not usable: the cache is off)");
    printf("entries:    %" PRIu64 "\n", s.entries);
    printf("total size: %s (%" PRIu64 " bytes)\n", size, s.bytes);
    printf("cap:        %s (%" PRIu64 " bytes)\n", cap, s.max_bytes);
    printf("hits:       %" PRIu64 "\n", s.hits);
    printf("misses:     %" PRIu64 "\n", s.misses);
    if (lookups)
        printf("hit rate:   %.1f%%\n", rate);
    else
        printf("hit rate:   - (no lookups yet)\n");
    return CLP_EXIT_OK;
}

static int cache_clear(clp_cache *cache, bool json) {
    (void)json;
    clp_error err = CLP_ERROR_INIT;
    clp_cache_stats before;
    if (clp_cache_stats_get(cache, &before, &err) != CLP_OK ||
        clp_cache_clear(cache, &err) != CLP_OK)
        return cli_report(&err);
    char size[32];
    format_size(before.bytes, size);
    printf("removed %" PRIu64 " %s (%s) from %s\n", before.entries,
           before.entries == 1 ? "entry" : "entries", size, clp_cache_dir(cache));
    return CLP_EXIT_OK;
}

static const struct {
    const char *name;
    int (*run)(clp_cache *cache, bool json);
    bool takes_json;
} actions[] = {
    {"list", cache_list, true},
    {"stats", cache_stats, true},
    {"clear", cache_clear, false},
};

int cmd_cache(int argc, char **argv, const clp_cli *cli) {
    if (argc < 2)
        return cli_usage_error("cache", "missing subcommand: list, stats or clear");
    size_t a = 0;
    while (a < sizeof actions / sizeof actions[0] && strcmp(argv[1], actions[a].name) != 0)
        a++;
    if (a == sizeof actions / sizeof actions[0])
        return cli_usage_error("cache", "unknown subcommand '%s' (list, stats or clear)", argv[1]);
    bool json = false;
    for (int i = 2; i < argc; i++) {
        if (actions[a].takes_json && strcmp(argv[i], "--json") == 0)
            json = true;
        else
            return cli_usage_error("cache", "unexpected argument '%s' for 'cache %s'", argv[i],
                                   actions[a].name);
    }
    clp_error err = CLP_ERROR_INIT;
    clp_cache *cache = NULL;
    if (cli_open_cache(cli, &cache, &err) != CLP_OK)
        return cli_report(&err);
    if (!cache) {
        printf("the binary cache is disabled (--no-cache or CLPART_NO_CACHE)\n");
        return CLP_EXIT_OK;
    }
    int rc = actions[a].run(cache, json);
    clp_cache_close(cache);
    return rc;
}

/* The binary cache's key: a text record of every input of a build (clpart version, platform,
 * device, driver, flags, source), its XXH3-128 hash, and reading the device back from it. */
#include "cache_internal.h"

#include <string.h>
#include <xxhash.h>

/* One "name: value" line; backslashes and newlines in the value are escaped so that every
 * field stays on its line and different inputs never give the same record. */
static void append_field(clp_strbuf *sb, const char *name, const char *value) {
    clp__sb_appendf(sb, "%s: ", name);
    for (const char *p = value; *p; p++) {
        if (*p == '\\')
            clp__sb_append(sb, "\\\\");
        else if (*p == '\n')
            clp__sb_append(sb, "\\n");
        else
            clp__sb_append_n(sb, p, 1);
    }
    clp__sb_append(sb, "\n");
}

char *clp_cache_key_record(const char *source, const char *flags, const clp_device_info *dev) {
    clp_strbuf sb = {0};
    append_field(&sb, "clpart", clp_version());
    append_field(&sb, "platform", dev->platform_name);
    append_field(&sb, "platform-version", dev->platform_version);
    append_field(&sb, "device", dev->name);
    append_field(&sb, "device-version", dev->device_version);
    append_field(&sb, "driver", dev->driver_version);
    append_field(&sb, "flags", flags ? flags : "");
    clp__sb_append(&sb, "source:\n");
    clp__sb_append(&sb, source);
    return clp__sb_take(&sb);
}

void clp_cache_key_hash(const char *record, char hex[33]) {
    static const char digits[] = "0123456789abcdef";
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits(record, strlen(record)));
    for (size_t i = 0; i < sizeof canonical.digest; i++) {
        hex[2 * i] = digits[canonical.digest[i] >> 4];
        hex[2 * i + 1] = digits[canonical.digest[i] & 15];
    }
    hex[32] = '\0';
}

/* The value of line "<name>: ..." among the fields before "source:", as a length; NULL when
 * the record has no such field. */
static const char *find_field(const char *record, size_t len, const char *name, int *value_len) {
    size_t name_len = strlen(name);
    const char *end = record + len;
    for (const char *line = record; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        size_t n = (size_t)(eol - line);
        if (n == strlen("source:") && memcmp(line, "source:", n) == 0)
            return NULL;
        if (n > name_len + 1 && memcmp(line, name, name_len) == 0 && line[name_len] == ':' &&
            line[name_len + 1] == ' ') {
            *value_len = (int)(n - name_len - 2);
            return line + name_len + 2;
        }
        line = eol + 1;
    }
    return NULL;
}

void clp__cache_record_device(const char *record, size_t len, char *out, size_t out_size) {
    static const char *const names[] = {"platform", "device", "driver"};
    const char *value[3];
    int value_len[3];
    for (int i = 0; i < 3; i++) {
        value[i] = find_field(record, len, names[i], &value_len[i]);
        if (!value[i]) {
            value[i] = "?";
            value_len[i] = 1;
        }
    }
    snprintf(out, out_size, "%.*s / %.*s / %.*s", value_len[0], value[0], value_len[1], value[1],
             value_len[2], value[2]);
}

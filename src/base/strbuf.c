/* A growable NUL-terminated string for assembling source, records and messages. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static bool reserve(clp_strbuf *sb, size_t extra) {
    if (sb->failed)
        return false;
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return true;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < need)
        cap *= 2;
    char *data = realloc(sb->data, cap);
    if (!data) {
        sb->failed = true;
        return false;
    }
    sb->data = data;
    sb->cap = cap;
    return true;
}

void clp__sb_append_n(clp_strbuf *sb, const char *text, size_t n) {
    if (!reserve(sb, n))
        return;
    memcpy(sb->data + sb->len, text, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void clp__sb_append(clp_strbuf *sb, const char *text) {
    clp__sb_append_n(sb, text, strlen(text));
}

void clp__sb_appendf(clp_strbuf *sb, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(sb, (size_t)n)) {
        sb->failed = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

char *clp__sb_take(clp_strbuf *sb) {
    char *text = NULL;
    if (!sb->failed) {
        text = sb->data ? sb->data : calloc(1, 1);
        sb->data = NULL;
    }
    clp__sb_free(sb);
    return text;
}

void clp__sb_free(clp_strbuf *sb) {
    free(sb->data);
    *sb = (clp_strbuf){0};
}

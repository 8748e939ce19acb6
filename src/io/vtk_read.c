/* Reading back the VTK files clp__vtp_write and clp__pvd_write make: a snapshot's arrays by
 * name, as doubles, and a collection's times and file names. Only that layout is read
 * (appended raw little-endian data behind UInt64 byte counts), not VTK files at large. */
#include "io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The value of attribute `name` in the tag that starts at `tag` (up to its '>'), copied into
 * buf; false when the tag lacks it. */
static bool attribute(const char *tag, const char *name, char *buf, size_t size) {
    const char *end = strchr(tag, '>');
    const size_t n = strlen(name);
    for (const char *p = tag; (p = strstr(p, name)) && (!end || p < end); p += n) {
        if ((p > tag && p[-1] != ' ') || strncmp(p + n, "=\"", 2) != 0)
            continue;
        const char *v = p + n + 2, *q = strchr(v, '"');
        if (!q)
            return false;
        snprintf(buf, size, "%.*s", (int)(q - v), v);
        return true;
    }
    return false;
}

/* Bytes per value of a VTK type name, and whether it is a float, signed or unsigned. */
static int type_width(const char *type, char *kind) {
    static const struct {
        const char *name;
        int width;
        char kind;
    } types[] = {{"Float64", 8, 'f'}, {"Float32", 4, 'f'}, {"Int64", 8, 'i'}, {"UInt64", 8, 'u'},
                 {"Int32", 4, 'i'},   {"UInt32", 4, 'u'},  {"Int8", 1, 'i'},  {"UInt8", 1, 'u'}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(type, types[i].name)) {
            *kind = types[i].kind;
            return types[i].width;
        }
    return 0;
}

/* The little-endian value at p as a double. */
static double decode(const unsigned char *p, int width, char kind) {
    uint64_t bits = 0;
    for (int i = 0; i < width; i++)
        bits |= (uint64_t)p[i] << (8 * i);
    if (kind == 'f' && width == 8) {
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    if (kind == 'f') {
        const uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        return f;
    }
    if (kind == 'i' && width < 8 && (bits >> (8 * width - 1)) & 1)
        bits |= ~(uint64_t)0 << (8 * width); /* sign-extended */
    return kind == 'i' ? (double)(int64_t)bits : (double)bits;
}

/* Reads the array of the <DataArray> tag at `tag` from the appended block that starts at
 * file offset `base`. */
static clp_status read_array(FILE *f, const char *path, const char *tag, long base,
                             clp__vtp_array *a, clp_error *err) {
    clp_status st = CLP_OK;
    unsigned char *raw = NULL;
    char type[32], name[256], components[32] = "1", offset[32];
    CLP_REQUIRE_FILE(
        path,
        attribute(tag, "type", type, sizeof type) && attribute(tag, "Name", name, sizeof name) &&
            attribute(tag, "offset", offset, sizeof offset),
        err, "%s: a DataArray lacks its type, Name or offset (not a clpart snapshot)", path);
    attribute(tag, "NumberOfComponents", components, sizeof components);
    char kind;
    const int width = type_width(type, &kind);
    CLP_REQUIRE_FILE(path, width > 0, err, "%s: array %s has the unknown type %s", path, name,
                     type);
    a->name = strdup(name);
    CLP_REQUIRE_ALLOC(a->name, err);
    a->components = atoi(components);
    CLP_REQUIRE_FILE(path, a->components >= 1, err, "%s: array %s has %s components", path, name,
                     components);
    unsigned char head[8];
    CLP_REQUIRE_FILE(path,
                     fseek(f, base + atol(offset), SEEK_SET) == 0 && fread(head, 1, 8, f) == 8, err,
                     "%s: array %s: its block is past the end of the file", path, name);
    const uint64_t bytes = (uint64_t)decode(head, 8, 'u');
    const uint64_t values = bytes / (uint64_t)width;
    CLP_REQUIRE_FILE(path, bytes % ((uint64_t)width * (uint64_t)a->components) == 0, err,
                     "%s: array %s: %llu bytes are not whole tuples", path, name,
                     (unsigned long long)bytes);
    a->tuples = (size_t)(values / (uint64_t)a->components);
    raw = malloc(bytes + 1);
    a->values = malloc(values * sizeof *a->values + 1);
    CLP_REQUIRE_FILE(path, raw && a->values, err,
                     "out of host memory for array %s of %s (%llu bytes)", name, path,
                     (unsigned long long)bytes);
    CLP_REQUIRE_FILE(path, fread(raw, 1, bytes, f) == bytes, err, "%s: array %s is cut short", path,
                     name);
    for (uint64_t i = 0; i < values; i++)
        a->values[i] = decode(raw + i * (uint64_t)width, width, kind);
fail:
    free(raw);
    return st;
}

/* Reads the XML part of the file, up to the '_' that starts the appended data, into a new
 * string; *base is the file offset just after the '_'. */
static clp_status read_xml(FILE *f, const char *path, char **xml, long *base, clp_error *err) {
    clp_status st = CLP_OK;
    clp_strbuf sb = {0};
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        clp__sb_append(&sb, line);
        found = strstr(line, "<AppendedData") != NULL;
    }
    CLP_REQUIRE_FILE(path, found && !sb.failed, err,
                     "%s is not a VTK PolyData file with appended data as clpart writes them",
                     path);
    int c;
    while ((c = fgetc(f)) != EOF && c != '_')
        ;
    CLP_REQUIRE_FILE(path, c == '_', err, "%s: its appended data has no '_' mark", path);
    *base = ftell(f);
    *xml = sb.data;
    return CLP_OK;
fail:
    clp__sb_free(&sb);
    return st;
}

clp_status clp__vtp_read(const char *path, clp__vtp_data *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__vtp_data d = {.path = strdup(path)};
    char *xml = NULL;
    long base = 0;
    FILE *f = fopen(path, "rb");
    CLP_REQUIRE_ALLOC(d.path, err);
    CLP_REQUIRE_FILE(path, f, err, "cannot read %s: %s", path, strerror(errno));
    CLP_TRY(read_xml(f, path, &xml, &base, err));
    char points[32] = "";
    const char *piece = strstr(xml, "<Piece");
    CLP_REQUIRE_FILE(path, piece && attribute(piece, "NumberOfPoints", points, sizeof points), err,
                     "%s: no <Piece NumberOfPoints=...>", path);
    d.n = (size_t)strtoull(points, NULL, 10);
    size_t cap = 0;
    for (const char *tag = xml; (tag = strstr(tag, "<DataArray")); tag++) {
        char name[256] = "";
        attribute(tag, "Name", name, sizeof name);
        if (!strcmp(name, "connectivity") || !strcmp(name, "offsets"))
            continue; /* one vertex per point: nothing to read */
        if (d.n_arrays == cap) {
            cap = cap ? 2 * cap : 8;
            clp__vtp_array *grown = realloc(d.arrays, cap * sizeof *grown);
            CLP_REQUIRE_ALLOC(grown, err);
            d.arrays = grown;
        }
        clp__vtp_array *a = &d.arrays[d.n_arrays++];
        *a = (clp__vtp_array){0};
        CLP_TRY(read_array(f, path, tag, base, a, err));
        const bool field_data = !strcmp(name, "TimeValue") || !strcmp(name, "Period");
        CLP_REQUIRE_FILE(path, field_data || a->tuples == d.n, err,
                         "%s: array %s has %zu tuples for %zu points", path, name, a->tuples, d.n);
    }
    const clp__vtp_array *time = clp__vtp_find(&d, "TimeValue");
    d.time = time && time->tuples ? time->values[0] : 0.0;
    *out = d;
    d = (clp__vtp_data){0};
fail:
    if (f)
        fclose(f);
    free(xml);
    clp__vtp_data_free(&d);
    return st;
}

const clp__vtp_array *clp__vtp_find(const clp__vtp_data *d, const char *name) {
    for (size_t i = 0; i < d->n_arrays; i++)
        if (!strcmp(d->arrays[i].name, name))
            return &d->arrays[i];
    return NULL;
}

void clp__vtp_data_free(clp__vtp_data *d) {
    for (size_t i = 0; i < d->n_arrays; i++) {
        free(d->arrays[i].name);
        free(d->arrays[i].values);
    }
    free(d->arrays);
    free(d->path);
    *d = (clp__vtp_data){0};
}

/* Undoes append_xml_escaped (vtk.c) in place. */
static void xml_unescape(char *s) {
    static const struct {
        const char *entity;
        char c;
    } entities[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}};
    char *w = s;
    for (const char *r = s; *r;) {
        size_t k = 0;
        while (k < 4 && strncmp(r, entities[k].entity, strlen(entities[k].entity)))
            k++;
        if (k < 4) {
            *w++ = entities[k].c;
            r += strlen(entities[k].entity);
        } else
            *w++ = *r++;
    }
    *w = '\0';
}

clp_status clp__pvd_read(const char *path, clp__pvd_list *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__pvd_list l = {0};
    size_t cap = 0;
    char line[4096];
    FILE *f = fopen(path, "r");
    CLP_REQUIRE_FILE(path, f, err, "cannot read %s: %s", path, strerror(errno));
    const char *slash = strrchr(path, '/');
    const int dir = slash ? (int)(slash - path) + 1 : 0;
    while (fgets(line, sizeof line, f)) {
        const char *tag = strstr(line, "<DataSet");
        if (!tag)
            continue;
        char time[64], file[2048];
        CLP_REQUIRE_FILE(path,
                         attribute(tag, "timestep", time, sizeof time) &&
                             attribute(tag, "file", file, sizeof file),
                         err, "%s: a DataSet lacks its timestep or file", path);
        xml_unescape(file);
        if (l.count == cap) {
            cap = cap ? 2 * cap : 32;
            double *times = realloc(l.times, cap * sizeof *times);
            CLP_REQUIRE_ALLOC(times, err);
            l.times = times;
            char **files = realloc(l.files, cap * sizeof *files);
            CLP_REQUIRE_ALLOC(files, err);
            l.files = files;
        }
        locale_t previous = clp__c_numeric_begin();
        l.times[l.count] = strtod(time, NULL);
        clp__c_numeric_end(previous);
        /* names are relative to the collection's folder */
        const size_t size = (size_t)dir + strlen(file) + 1;
        l.files[l.count] = malloc(size);
        CLP_REQUIRE_ALLOC(l.files[l.count], err);
        snprintf(l.files[l.count], size, "%.*s%s", file[0] == '/' ? 0 : dir, path, file);
        l.count++;
    }
    *out = l;
    l = (clp__pvd_list){0};
fail:
    if (f)
        fclose(f);
    clp__pvd_list_free(&l);
    return st;
}

void clp__pvd_list_free(clp__pvd_list *l) {
    for (size_t i = 0; i < l->count; i++)
        free(l->files[i]);
    free(l->files);
    free(l->times);
    *l = (clp__pvd_list){0};
}

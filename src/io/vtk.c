/* VTK XML PolyData snapshots (appended raw little-endian data behind UInt64 byte counts, one
 * vertex cell per particle) and the .pvd collection indexing them, both written atomically. */
#include "io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- PolyData */

typedef enum value_kind {
    VALUES_F64,       /* doubles from data */
    VALUES_F32,       /* floats from data */
    VALUES_U32,       /* uint32_t from data */
    VALUES_INDEX,     /* 0, 1, 2, ... */
    VALUES_INDEX_END, /* 1, 2, 3, ...: where each single-point cell ends */
} value_kind;

typedef struct vtk_array {
    const char *name;
    const char *type; /* VTK type name */
    int width;        /* bytes per value */
    int components;
    size_t tuples;
    value_kind kind;
    const void *data;
} vtk_array;

static uint64_t block_bytes(const vtk_array *a) {
    return (uint64_t)a->tuples * (uint64_t)a->components * (uint64_t)a->width;
}

/* One <DataArray> tag; advances *offset past the array's block (byte count and data). */
static void array_tag(clp_strbuf *sb, int indent, const vtk_array *a, const char *extra,
                      uint64_t *offset) {
    clp__sb_appendf(sb,
                    "%*s<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"%s "
                    "format=\"appended\" offset=\"%llu\"/>\n",
                    indent, "", a->type, a->name, a->components, extra,
                    (unsigned long long)*offset);
    *offset += 8 + block_bytes(a);
}

/* Whether this host stores numbers little-endian, as the file does. */
static bool host_little_endian(void) {
    const uint16_t one = 1;
    unsigned char low;
    memcpy(&low, &one, 1);
    return low == 1;
}

/* Element j of an array, as the integer whose low `width` bytes the file holds. */
static uint64_t value_bits(const vtk_array *a, size_t j) {
    uint64_t bits = 0;
    switch (a->kind) {
    case VALUES_F64:
        memcpy(&bits, (const double *)a->data + j, 8);
        break;
    case VALUES_F32: {
        uint32_t u;
        memcpy(&u, (const float *)a->data + j, 4);
        bits = u;
        break;
    }
    case VALUES_U32:
        bits = ((const uint32_t *)a->data)[j];
        break;
    case VALUES_INDEX:
        bits = j;
        break;
    case VALUES_INDEX_END:
        bits = (uint64_t)j + 1;
        break;
    }
    return bits;
}

/* An array's block: its byte count, then its values. On a little-endian host the arrays
 * from data are already the file's bytes and go as they are, and the indices a chunk at a
 * time: a snapshot of 127M particles is 8 GB, which byte by byte took seconds. */
static void write_block(clp__atomic_file *f, const vtk_array *a) {
    clp__atomic_put_le(f, block_bytes(a), 8);
    const size_t count = a->tuples * (size_t)a->components;
    if (!host_little_endian()) {
        for (size_t j = 0; j < count && !clp__atomic_failed(f); j++)
            clp__atomic_put_le(f, value_bits(a, j), a->width);
        return;
    }
    if (a->kind != VALUES_INDEX && a->kind != VALUES_INDEX_END) {
        clp__atomic_write(f, a->data, count * (size_t)a->width);
        return;
    }
    uint64_t chunk[4096]; /* the index arrays are Int64 */
    for (size_t j = 0; j < count && !clp__atomic_failed(f);) {
        size_t k = 0;
        for (; k < sizeof chunk / sizeof chunk[0] && j < count; k++, j++)
            chunk[k] = value_bits(a, j);
        clp__atomic_write(f, chunk, k * sizeof chunk[0]);
    }
}

clp_status clp__vtp_write(const char *path, const clp__vtp_fields *f, clp_error *err) {
    if (!path || !f)
        return CLP_FAIL(err, CLP_USAGE, "VTK output: no path or no fields");
    if (f->n > 0 && !f->position)
        return CLP_FAIL(err, CLP_USAGE, "VTK output %s: %zu particles without positions", path,
                        f->n);
    size_t n = f->n;
    /* In file order: field data, point data, points, verts. */
    vtk_array arrays[10];
    size_t count = 0;
    arrays[count++] = (vtk_array){"TimeValue", "Float64", 8, 1, 1, VALUES_F64, &f->time};
    if (f->period)
        arrays[count++] = (vtk_array){"Period", "Float64", 8, 3, 1, VALUES_F64, f->period};
    const size_t fields = count;
    if (f->velocity)
        arrays[count++] = (vtk_array){"velocity", "Float32", 4, 3, n, VALUES_F32, f->velocity};
    if (f->density)
        arrays[count++] = (vtk_array){"density", "Float32", 4, 1, n, VALUES_F32, f->density};
    if (f->pressure)
        arrays[count++] = (vtk_array){"pressure", "Float32", 4, 1, n, VALUES_F32, f->pressure};
    if (f->type)
        arrays[count++] = (vtk_array){"type", "UInt32", 4, 1, n, VALUES_U32, f->type};
    if (f->id)
        arrays[count++] = (vtk_array){"id", "UInt32", 4, 1, n, VALUES_U32, f->id};
    size_t points = count;
    arrays[count++] = (vtk_array){"position", "Float64", 8, 3, n, VALUES_F64, f->position};
    arrays[count++] = (vtk_array){"connectivity", "Int64", 8, 1, n, VALUES_INDEX, NULL};
    arrays[count++] = (vtk_array){"offsets", "Int64", 8, 1, n, VALUES_INDEX_END, NULL};

    clp_strbuf sb = {0};
    uint64_t offset = 0;
    clp__sb_append(&sb, "<?xml version=\"1.0\"?>\n"
                        "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\" "
                        "header_type=\"UInt64\">\n"
                        "  <PolyData>\n"
                        "    <FieldData>\n");
    for (size_t i = 0; i < fields; i++)
        array_tag(&sb, 6, &arrays[i], " NumberOfTuples=\"1\"", &offset);
    clp__sb_appendf(&sb,
                    "    </FieldData>\n"
                    "    <Piece NumberOfPoints=\"%zu\" NumberOfVerts=\"%zu\" NumberOfLines=\"0\" "
                    "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n"
                    "      <PointData%s%s>\n",
                    n, n, f->density ? " Scalars=\"density\"" : "",
                    f->velocity ? " Vectors=\"velocity\"" : "");
    for (size_t i = fields; i < points; i++)
        array_tag(&sb, 8, &arrays[i], "", &offset);
    clp__sb_append(&sb, "      </PointData>\n      <Points>\n");
    array_tag(&sb, 8, &arrays[points], "", &offset);
    clp__sb_append(&sb, "      </Points>\n      <Verts>\n");
    array_tag(&sb, 8, &arrays[points + 1], "", &offset);
    array_tag(&sb, 8, &arrays[points + 2], "", &offset);
    clp__sb_append(&sb, "      </Verts>\n"
                        "    </Piece>\n"
                        "  </PolyData>\n"
                        "  <AppendedData encoding=\"raw\">\n"
                        "   _");
    if (sb.failed) {
        clp__sb_free(&sb);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory writing %s", path);
    }

    clp__atomic_file *file;
    clp_status st = clp__atomic_open(path, &file, err);
    if (st == CLP_OK) {
        clp__atomic_write(file, sb.data, sb.len);
        for (size_t i = 0; i < count; i++)
            write_block(file, &arrays[i]);
        static const char tail[] = "\n  </AppendedData>\n</VTKFile>\n";
        clp__atomic_write(file, tail, sizeof tail - 1);
        st = clp__atomic_commit(file, err);
    }
    clp__sb_free(&sb);
    return st;
}

/* ---- Collection */

static void append_xml_escaped(clp_strbuf *sb, const char *text) {
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&':
            clp__sb_append(sb, "&amp;");
            break;
        case '<':
            clp__sb_append(sb, "&lt;");
            break;
        case '>':
            clp__sb_append(sb, "&gt;");
            break;
        case '"':
            clp__sb_append(sb, "&quot;");
            break;
        default:
            clp__sb_append_n(sb, p, 1);
        }
    }
}

/* `file` without the leading "<folder of pvd>/", when it has it. */
static const char *relative_to_pvd(const char *pvd, const char *file) {
    const char *slash = strrchr(pvd, '/');
    if (!slash)
        return file;
    size_t dir = (size_t)(slash - pvd) + 1;
    return strncmp(file, pvd, dir) == 0 && file[dir] ? file + dir : file;
}

clp_status clp__pvd_write(const char *path, const double *times, const char *const *files,
                          size_t count, clp_error *err) {
    if (!path || (count > 0 && (!times || !files)))
        return CLP_FAIL(err, CLP_USAGE, "VTK collection: no path, times or files");
    for (size_t i = 0; i < count; i++) {
        if (!files[i] || !isfinite(times[i]))
            return CLP_FAIL_AT(err, CLP_USAGE, path, -1, -1, "VTK collection %s: entry %zu has %s",
                               path, i, files[i] ? "a non-finite time" : "no file name");
    }
    clp_strbuf sb = {0};
    clp__sb_append(&sb, "<?xml version=\"1.0\"?>\n"
                        "<VTKFile type=\"Collection\" version=\"0.1\" "
                        "byte_order=\"LittleEndian\">\n"
                        "  <Collection>\n");
    for (size_t i = 0; i < count; i++) {
        char number[32];
        clp__sb_appendf(&sb, "    <DataSet timestep=\"%s\" group=\"\" part=\"0\" file=\"",
                        clp__csv_format_number(times[i], number));
        append_xml_escaped(&sb, relative_to_pvd(path, files[i]));
        clp__sb_append(&sb, "\"/>\n");
    }
    clp__sb_append(&sb, "  </Collection>\n</VTKFile>\n");
    if (sb.failed) {
        clp__sb_free(&sb);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory writing %s", path);
    }
    clp_status st = clp__atomic_write_file(path, sb.data, sb.len, err);
    clp__sb_free(&sb);
    return st;
}

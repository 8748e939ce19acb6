/* VTK output read back independently: the XML header's attributes, then every value of the raw
 * appended blocks bit for bit; empty and partial field sets, the .pvd index, write errors.
 * With a folder argument the files stay there (tests/unit/check_vtk.py checks their XML). */
#include "io/io.h"
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Reading, from the VTK XML format description, not from the writer's code */

typedef struct file_data {
    unsigned char *bytes;
    size_t size;
} file_data;

static file_data read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        CLP_TEST_FAIL("cannot open %s: %s", path, strerror(errno));
    file_data d = {NULL, 0};
    size_t cap = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (d.size + 1 >= cap) {
            cap = cap ? 2 * cap : 4096;
            d.bytes = realloc(d.bytes, cap);
            CLP_ASSERT(d.bytes != NULL);
        }
        d.bytes[d.size++] = (unsigned char)c;
    }
    fclose(f);
    if (!d.bytes)
        d.bytes = calloc(1, 1);
    d.bytes[d.size] = '\0';
    return d;
}

/* The value of attribute `name` in the tag starting at `tag` (up to its '>'), or "". */
static void attribute(const char *tag, const char *name, char *out, size_t size) {
    const char *end = strchr(tag, '>');
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *at = strstr(tag, key);
    out[0] = '\0';
    if (!at || at > end)
        return;
    at += strlen(key);
    const char *close = strchr(at, '"');
    size_t len = (size_t)(close - at) < size - 1 ? (size_t)(close - at) : size - 1;
    memcpy(out, at, len);
    out[len] = '\0';
}

/* The tag `<element` in the header, which must occur exactly once. */
static const char *only_tag(const char *header, const char *element) {
    const char *at = strstr(header, element);
    if (!at)
        CLP_TEST_FAIL("no %s in the header", element);
    CLP_ASSERT(strstr(at + 1, element) == NULL);
    return at;
}

typedef struct vtp_file {
    file_data d;
    char *header;              /* NUL-terminated copy of the XML before the raw data */
    const unsigned char *base; /* first byte after '_' */
} vtp_file;

static vtp_file open_vtp(const char *path) {
    vtp_file v = {read_all(path), NULL, NULL};
    const char *text = (const char *)v.d.bytes;
    const char *appended = strstr(text, "<AppendedData encoding=\"raw\">");
    CLP_ASSERT(appended != NULL);
    const char *p = appended + strlen("<AppendedData encoding=\"raw\">");
    while (*p == ' ' || *p == '\n')
        p++;
    CLP_ASSERT(*p == '_');
    v.base = (const unsigned char *)p + 1;
    size_t header_len = (size_t)(appended - text);
    v.header = malloc(header_len + 1);
    CLP_ASSERT(v.header != NULL);
    memcpy(v.header, text, header_len);
    v.header[header_len] = '\0';
    const char *vtk = only_tag(v.header, "<VTKFile ");
    char value[64];
    attribute(vtk, "type", value, sizeof value);
    CLP_ASSERT_STR_EQ(value, "PolyData");
    attribute(vtk, "byte_order", value, sizeof value);
    CLP_ASSERT_STR_EQ(value, "LittleEndian");
    attribute(vtk, "header_type", value, sizeof value);
    CLP_ASSERT_STR_EQ(value, "UInt64");
    return v;
}

static void close_vtp(vtp_file *v) {
    free(v->d.bytes);
    free(v->header);
}

static uint64_t get_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* The <DataArray> named `name`, or NULL. */
static const char *array_tag(const vtp_file *v, const char *name) {
    char key[64];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *at = strstr(v->header, key);
    if (!at)
        return NULL;
    while (at > v->header && strncmp(at, "<DataArray", 10) != 0)
        at--;
    return at;
}

/* Checks the array's type, components and byte count and returns its first value's bytes. */
static const unsigned char *array_data(const vtp_file *v, const char *name, const char *type,
                                       int components, size_t count, int width) {
    const char *tag = array_tag(v, name);
    if (!tag)
        CLP_TEST_FAIL("no array %s", name);
    char value[64];
    attribute(tag, "type", value, sizeof value);
    CLP_ASSERT_STR_EQ(value, type);
    attribute(tag, "format", value, sizeof value);
    CLP_ASSERT_STR_EQ(value, "appended");
    attribute(tag, "NumberOfComponents", value, sizeof value);
    CLP_ASSERT_EQ(atoi(value), components);
    attribute(tag, "offset", value, sizeof value);
    CLP_ASSERT(value[0] != '\0');
    unsigned long long offset = strtoull(value, NULL, 10);
    const unsigned char *block = v->base + offset;
    CLP_ASSERT(block + 8 <= v->d.bytes + v->d.size);
    uint64_t bytes = get_le(block, 8);
    CLP_ASSERT_EQ(bytes, (uint64_t)count * (uint64_t)components * (uint64_t)width);
    CLP_ASSERT(block + 8 + bytes <= v->d.bytes + v->d.size);
    return block + 8;
}

/* The `arrays` blocks must tile the appended data exactly, in offset order, followed by the
 * closing tags. */
static void check_layout(const vtp_file *v, size_t arrays) {
    size_t found = 0;
    uint64_t expected = 0;
    while (found < arrays) {
        char key[48];
        snprintf(key, sizeof key, "offset=\"%llu\"", (unsigned long long)expected);
        const char *at = strstr(v->header, key);
        if (!at)
            CLP_TEST_FAIL("no array at offset %llu after %zu arrays", (unsigned long long)expected,
                          found);
        expected += 8 + get_le(v->base + expected, 8);
        found++;
    }
    const char *tail = "\n  </AppendedData>\n</VTKFile>\n";
    CLP_ASSERT_EQ((size_t)(v->base + expected - v->d.bytes) + strlen(tail), v->d.size);
    CLP_ASSERT(memcmp(v->base + expected, tail, strlen(tail)) == 0);
}

static size_t count_arrays(const char *header) {
    size_t n = 0;
    for (const char *p = strstr(header, "<DataArray"); p; p = strstr(p + 1, "<DataArray"))
        n++;
    return n;
}

static void check_count_attribute(const vtp_file *v, const char *name, size_t expected) {
    char value[64];
    attribute(only_tag(v->header, "<Piece "), name, value, sizeof value);
    CLP_ASSERT(value[0] != '\0');
    CLP_ASSERT_EQ(strtoull(value, NULL, 10), expected);
}

static void check_f64(const unsigned char *p, const double *expected, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint64_t bits;
        memcpy(&bits, &expected[i], 8);
        if (get_le(p + 8 * i, 8) != bits)
            CLP_TEST_FAIL("double %zu: %016llx in the file, %016llx expected", i,
                          (unsigned long long)get_le(p + 8 * i, 8), (unsigned long long)bits);
    }
}

static void check_f32(const unsigned char *p, const float *expected, size_t count) {
    for (size_t i = 0; i < count; i++) {
        uint32_t bits;
        memcpy(&bits, &expected[i], 4);
        if (get_le(p + 4 * i, 4) != bits)
            CLP_TEST_FAIL("float %zu: %08llx in the file, %08x expected", i,
                          (unsigned long long)get_le(p + 4 * i, 4), (unsigned)bits);
    }
}

/* Connectivity 0..n-1 and offsets 1..n: one vertex cell per point. */
static void check_verts(const vtp_file *v, size_t n) {
    check_count_attribute(v, "NumberOfPoints", n);
    check_count_attribute(v, "NumberOfVerts", n);
    check_count_attribute(v, "NumberOfPolys", 0);
    const unsigned char *conn = array_data(v, "connectivity", "Int64", 1, n, 8);
    const unsigned char *offs = array_data(v, "offsets", "Int64", 1, n, 8);
    for (size_t i = 0; i < n; i++) {
        CLP_ASSERT_EQ(get_le(conn + 8 * i, 8), i);
        CLP_ASSERT_EQ(get_le(offs + 8 * i, 8), i + 1);
    }
}

/* ---- Tests */

static char dir[256];

static void path_in(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

static void test_full(void) {
    enum { N = 5 };
    uint64_t nan_bits = 0x7ff8000000000123u;
    double nan_payload;
    memcpy(&nan_payload, &nan_bits, 8);
    const double position[3 * N] = {0.0, -0.0, 1.0,  1000.0 + 1e-12, 5e-324,      -1e300, 0.1, 0.2,
                                    0.3, 1.5,  -2.5, 3.25,           nan_payload, 7.0,    -8.0};
    const float velocity[3 * N] = {1.0f, -1.0f, 0.5f,  1e-45f, 3.4e38f, -0.0f, 0.1f, 0.2f,
                                   0.3f, 9.0f,  -9.0f, 1e-3f,  2.0f,    4.0f,  8.0f};
    const float density[N] = {1000.0f, 999.5f, 1001.25f, 1e-30f, 0.0f};
    const float pressure[N] = {0.0f, -12.5f, 101325.0f, 3.0e5f, -0.0f};
    const uint32_t type[N] = {0, 1, 2, 0xffffffffu, 7};
    const uint32_t id[N] = {4, 0, 3, 1, 2}; /* a permutation, as after a sort */
    clp__vtp_fields f = {.n = N,
                         .position = position,
                         .velocity = velocity,
                         .density = density,
                         .pressure = pressure,
                         .type = type,
                         .id = id,
                         .time = 0.125};
    char path[512];
    path_in(path, sizeof path, "full.vtp");
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__vtp_write(path, &f, &err), &err);

    vtp_file v = open_vtp(path);
    CLP_ASSERT_EQ(count_arrays(v.header), 9);
    check_layout(&v, 9);
    check_f64(array_data(&v, "TimeValue", "Float64", 1, 1, 8), &f.time, 1);
    check_f64(array_data(&v, "position", "Float64", 3, N, 8), position, 3 * N);
    check_f32(array_data(&v, "velocity", "Float32", 3, N, 4), velocity, 3 * N);
    check_f32(array_data(&v, "density", "Float32", 1, N, 4), density, N);
    check_f32(array_data(&v, "pressure", "Float32", 1, N, 4), pressure, N);
    const unsigned char *t = array_data(&v, "type", "UInt32", 1, N, 4);
    for (size_t i = 0; i < N; i++)
        CLP_ASSERT_EQ(get_le(t + 4 * i, 4), type[i]);
    const unsigned char *ids = array_data(&v, "id", "UInt32", 1, N, 4);
    for (size_t i = 0; i < N; i++)
        CLP_ASSERT_EQ(get_le(ids + 4 * i, 4), id[i]);
    /* a point-data array, after type */
    CLP_ASSERT(array_tag(&v, "id") > array_tag(&v, "type"));
    CLP_ASSERT(array_tag(&v, "id") < only_tag(v.header, "</PointData>"));
    check_verts(&v, N);
    /* The position array is the one inside <Points>. */
    const char *points = only_tag(v.header, "<Points>");
    CLP_ASSERT(array_tag(&v, "position") > points);
    CLP_ASSERT(array_tag(&v, "position") < only_tag(v.header, "</Points>"));
    close_vtp(&v);
}

static void test_empty(void) {
    clp__vtp_fields f = {.n = 0, .time = -3.5};
    char path[512];
    path_in(path, sizeof path, "empty.vtp");
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__vtp_write(path, &f, &err), &err);
    vtp_file v = open_vtp(path);
    CLP_ASSERT_EQ(count_arrays(v.header), 4);
    check_layout(&v, 4);
    check_f64(array_data(&v, "TimeValue", "Float64", 1, 1, 8), &f.time, 1);
    array_data(&v, "position", "Float64", 3, 0, 8);
    check_verts(&v, 0);
    CLP_ASSERT(array_tag(&v, "velocity") == NULL);
    CLP_ASSERT(array_tag(&v, "density") == NULL);
    CLP_ASSERT(array_tag(&v, "id") == NULL);
    close_vtp(&v);
}

static void test_partial_and_overwrite(void) {
    const double position[6] = {1, 2, 3, 4, 5, 6};
    const uint32_t type[2] = {3, 4};
    const float pressure[2] = {2.5f, -2.5f};
    char path[512];
    path_in(path, sizeof path, "partial.vtp");
    clp_error err = CLP_ERROR_INIT;
    clp__vtp_fields first = {.n = 1, .position = position, .pressure = pressure, .time = 1};
    CLP_ASSERT_OK(clp__vtp_write(path, &first, &err), &err);
    /* The second write replaces the first completely. */
    clp__vtp_fields f = {.n = 2, .position = position, .type = type, .time = 2};
    CLP_ASSERT_OK(clp__vtp_write(path, &f, &err), &err);
    vtp_file v = open_vtp(path);
    CLP_ASSERT_EQ(count_arrays(v.header), 5);
    check_layout(&v, 5);
    check_f64(array_data(&v, "TimeValue", "Float64", 1, 1, 8), &f.time, 1);
    check_f64(array_data(&v, "position", "Float64", 3, 2, 8), position, 6);
    const unsigned char *t = array_data(&v, "type", "UInt32", 1, 2, 4);
    CLP_ASSERT_EQ(get_le(t, 4), 3);
    CLP_ASSERT_EQ(get_le(t + 4, 4), 4);
    CLP_ASSERT(array_tag(&v, "pressure") == NULL);
    CLP_ASSERT(array_tag(&v, "velocity") == NULL);
    check_verts(&v, 2);
    close_vtp(&v);
}

static void test_pvd(void) {
    char path[512], first[512];
    path_in(path, sizeof path, "series.pvd");
    path_in(first, sizeof first, "full.vtp");
    const double times[4] = {0.0, 0.1, 2.5, 1e-7};
    const char *const files[4] = {first, "b&c\".vtp", "sub/d.vtp", "/abs/e.vtp"};
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp__pvd_write(path, times, files, 4, &err), &err);
    file_data d = read_all(path);
    const char *expected =
        "<?xml version=\"1.0\"?>\n"
        "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
        "  <Collection>\n"
        "    <DataSet timestep=\"0\" group=\"\" part=\"0\" file=\"full.vtp\"/>\n"
        "    <DataSet timestep=\"0.10000000000000001\" group=\"\" part=\"0\" "
        "file=\"b&amp;c&quot;.vtp\"/>\n"
        "    <DataSet timestep=\"2.5\" group=\"\" part=\"0\" file=\"sub/d.vtp\"/>\n"
        "    <DataSet timestep=\"9.9999999999999995e-08\" group=\"\" part=\"0\" "
        "file=\"/abs/e.vtp\"/>\n"
        "  </Collection>\n"
        "</VTKFile>\n";
    CLP_ASSERT_STR_EQ((const char *)d.bytes, expected);
    free(d.bytes);
}

/* How many entries `folder` has, besides . and .. */
static int count_entries(const char *folder) {
    DIR *dp = opendir(folder);
    CLP_ASSERT(dp != NULL);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(dp);
    return n;
}

static void check_io_error(const clp_error *err, const char *path, int code) {
    CLP_ASSERT_EQ(err->status, CLP_IO);
    CLP_ASSERT_STR_EQ(err->source, path);
    CLP_ASSERT_EQ(err->line, -1);
    CLP_ASSERT_EQ(err->column, -1);
    CLP_ASSERT_EQ(err->cl_code, 0);
    CLP_ASSERT_CONTAINS(err->message, path);
    CLP_ASSERT_CONTAINS(err->message, strerror(code));
}

static void test_errors(void) {
    const double position[3] = {1, 2, 3};
    clp__vtp_fields f = {.n = 1, .position = position};
    char path[512];
    path_in(path, sizeof path, "missing-folder/x.vtp");
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_STATUS(clp__vtp_write(path, &f, &err), CLP_IO, &err);
    check_io_error(&err, path, ENOENT);

    path_in(path, sizeof path, "missing-folder/x.pvd");
    const double times[1] = {0};
    const char *const files[1] = {"x.vtp"};
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__pvd_write(path, times, files, 1, &err), CLP_IO, &err);
    check_io_error(&err, path, ENOENT);

    /* A folder in the way: the rename fails, and the temporary file must not stay behind. */
    char sub[512];
    path_in(sub, sizeof sub, "in-the-way");
    CLP_ASSERT(mkdir(sub, 0777) == 0);
    char inner[600];
    snprintf(inner, sizeof inner, "%s/file", sub);
    FILE *keep = fopen(inner, "w");
    CLP_ASSERT(keep != NULL);
    fclose(keep);
    int before = count_entries(dir);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__vtp_write(sub, &f, &err), CLP_IO, &err);
    CLP_ASSERT_STR_EQ(err.source, sub);
    CLP_ASSERT_CONTAINS(err.message, sub);
    CLP_ASSERT_CONTAINS(err.message, "rename");
    CLP_ASSERT_EQ(count_entries(dir), before);
    CLP_ASSERT(unlink(inner) == 0);
    CLP_ASSERT(rmdir(sub) == 0);

    clp__vtp_fields no_positions = {.n = 2};
    path_in(path, sizeof path, "never.vtp");
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__vtp_write(path, &no_positions, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "2 particles");
    CLP_ASSERT(access(path, F_OK) != 0);
}

static void remove_outputs(void) {
    static const char *const names[] = {"full.vtp", "empty.vtp", "partial.vtp", "series.pvd"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        path_in(path, sizeof path, names[i]);
        CLP_ASSERT(unlink(path) == 0);
    }
    CLP_ASSERT_EQ(count_entries(dir), 0);
    CLP_ASSERT(rmdir(dir) == 0);
}

int main(int argc, char **argv) {
    bool keep = argc > 1;
    if (keep)
        snprintf(dir, sizeof dir, "%s", argv[1]);
    else
        CLP_ASSERT(mkdtemp(strcpy(dir, "/tmp/clpart-test-vtk-XXXXXX")) != NULL);
    test_full();
    test_empty();
    test_partial_and_overwrite();
    test_pvd();
    test_errors();
    if (!keep)
        remove_outputs();
    printf("vtk: all checks passed\n");
    return 0;
}

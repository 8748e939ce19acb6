/* Checkpoint files: a little-endian header, the run's identity, step and time, named scalars
 * and named arrays, then an XXH3-64 checksum. Atomic writes; reads that check every byte. */
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* Layout, every number little-endian, a double as its IEEE-754 bits in a u64, a string as a
 * u32 byte count then the bytes without terminator:
 *   magic "CLPCKPT\0", u32 format version, u32 reserved (0), u64 size of the whole file;
 *   string clpart version, string identity, u64 step, f64 time, f64 dt;
 *   u32 scalar count, then per scalar: string name, f64 value;
 *   u32 array count, then per array: string name, u32 element size, u64 element count, the
 *   element bytes as they were in memory;
 *   u64 XXH3-64 of every byte before it. */
static const unsigned char magic[8] = {'C', 'L', 'P', 'C', 'K', 'P', 'T', '\0'};
enum { FORMAT_VERSION = 1, HEADER_SIZE = 24, CHECKSUM_SIZE = 8, NAME_MAX_LEN = 255 };

#define TMP_SUFFIX ".tmp-XXXXXX"

typedef struct scalar {
    char *name;
    double value;
} scalar;

typedef struct array {
    char *name;
    size_t elem_size;
    size_t count;
    const void *data; /* borrowed, or `owned` */
    void *owned;      /* read from a file */
} array;

struct clp__checkpoint {
    char *identity;
    char *path; /* the file it was read from, for messages; NULL while being built */
    uint64_t step;
    double time;
    double dt;
    scalar *scalars;
    size_t scalar_count, scalar_cap;
    array *arrays;
    size_t array_count, array_cap;
    uint64_t checksum; /* of the file it was read from */
};

static const char *label(const clp__checkpoint *cp) {
    return cp->path ? cp->path : "(not yet written)";
}

static char *dup_n(const char *text, size_t n) {
    char *copy = malloc(n + 1);
    if (copy) {
        memcpy(copy, text, n);
        copy[n] = '\0';
    }
    return copy;
}

/* Makes room for one more of `*count` items of `size` bytes; false when out of memory. */
static bool grow(void **items, size_t *cap, size_t count, size_t size) {
    if (count < *cap)
        return true;
    size_t cap2 = *cap ? 2 * *cap : 8;
    void *p = realloc(*items, cap2 * size);
    if (!p)
        return false;
    *items = p;
    *cap = cap2;
    return true;
}

/* Appends the scalar, taking `name`, which is freed when out of memory. */
static bool push_scalar(clp__checkpoint *cp, char *name, double value) {
    if (!grow((void **)&cp->scalars, &cp->scalar_cap, cp->scalar_count, sizeof *cp->scalars)) {
        free(name);
        return false;
    }
    cp->scalars[cp->scalar_count++] = (scalar){.name = name, .value = value};
    return true;
}

/* Appends the array, taking `name` and `owned`, which are freed when out of memory. */
static bool push_array(clp__checkpoint *cp, char *name, size_t elem_size, size_t count,
                       const void *data, void *owned) {
    if (!grow((void **)&cp->arrays, &cp->array_cap, cp->array_count, sizeof *cp->arrays)) {
        free(name);
        free(owned);
        return false;
    }
    cp->arrays[cp->array_count++] =
        (array){.name = name, .elem_size = elem_size, .count = count, .data = data, .owned = owned};
    return true;
}

static const scalar *find_scalar(const clp__checkpoint *cp, const char *name) {
    for (size_t i = 0; i < cp->scalar_count; i++)
        if (strcmp(cp->scalars[i].name, name) == 0)
            return &cp->scalars[i];
    return NULL;
}

static const array *find_array(const clp__checkpoint *cp, const char *name) {
    for (size_t i = 0; i < cp->array_count; i++)
        if (strcmp(cp->arrays[i].name, name) == 0)
            return &cp->arrays[i];
    return NULL;
}

clp_status clp__checkpoint_create(const char *identity, uint64_t step, double time, double dt,
                                  clp__checkpoint **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__checkpoint *cp = NULL;
    size_t len = strlen(identity);
    CLP_REQUIRE(len <= UINT32_MAX, err, CLP_USAGE,
                "checkpoint identity of %zu bytes is longer than the %u bytes a file holds", len,
                (unsigned)UINT32_MAX);
    cp = calloc(1, sizeof *cp);
    CLP_REQUIRE_ALLOC(cp, err);
    cp->identity = dup_n(identity, len);
    CLP_REQUIRE_ALLOC(cp->identity, err);
    cp->step = step;
    cp->time = time;
    cp->dt = dt;
    *out = cp;
    cp = NULL;
fail:
    clp__checkpoint_destroy(cp);
    return st;
}

void clp__checkpoint_destroy(clp__checkpoint *cp) {
    if (!cp)
        return;
    for (size_t i = 0; i < cp->scalar_count; i++)
        free(cp->scalars[i].name);
    for (size_t i = 0; i < cp->array_count; i++) {
        free(cp->arrays[i].name);
        free(cp->arrays[i].owned);
    }
    free(cp->scalars);
    free(cp->arrays);
    free(cp->identity);
    free(cp->path);
    free(cp);
}

/* A name of 1 to NAME_MAX_LEN bytes, not yet used by a `kind` ("scalar", "array"). */
static clp_status check_name(const char *name, const char *kind, bool taken, clp_error *err) {
    size_t len = strlen(name);
    if (len == 0 || len > NAME_MAX_LEN)
        return CLP_FAIL(err, CLP_USAGE, "checkpoint %s name \"%.40s\" has %zu bytes, not 1 to %d",
                        kind, name, len, NAME_MAX_LEN);
    if (taken)
        return CLP_FAIL(err, CLP_USAGE, "checkpoint %s \"%s\" added twice", kind, name);
    return CLP_OK;
}

clp_status clp__checkpoint_add_scalar(clp__checkpoint *cp, const char *name, double value,
                                      clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(check_name(name, "scalar", find_scalar(cp, name) != NULL, err));
    char *copy = dup_n(name, strlen(name));
    CLP_REQUIRE(copy && push_scalar(cp, copy, value), err, CLP_NOMEM,
                "out of host memory adding checkpoint scalar \"%s\"", name);
fail:
    return st;
}

clp_status clp__checkpoint_add_array(clp__checkpoint *cp, const char *name, size_t elem_size,
                                     size_t count, const void *data, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(check_name(name, "array", find_array(cp, name) != NULL, err));
    CLP_REQUIRE(elem_size >= 1 && elem_size <= UINT32_MAX, err, CLP_USAGE,
                "checkpoint array \"%s\": element size %zu bytes, not 1 to %u", name, elem_size,
                (unsigned)UINT32_MAX);
    CLP_REQUIRE(count <= SIZE_MAX / elem_size, err, CLP_USAGE,
                "checkpoint array \"%s\": %zu elements of %zu bytes overflow a size_t", name, count,
                elem_size);
    CLP_REQUIRE(data || count == 0, err, CLP_USAGE,
                "checkpoint array \"%s\": %zu elements but no data", name, count);
    char *copy = dup_n(name, strlen(name));
    CLP_REQUIRE(copy && push_array(cp, copy, elem_size, count, data, NULL), err, CLP_NOMEM,
                "out of host memory adding checkpoint array \"%s\"", name);
fail:
    return st;
}

uint64_t clp__checkpoint_step(const clp__checkpoint *cp) {
    return cp->step;
}

double clp__checkpoint_time(const clp__checkpoint *cp) {
    return cp->time;
}

double clp__checkpoint_dt(const clp__checkpoint *cp) {
    return cp->dt;
}

const char *clp__checkpoint_path(const clp__checkpoint *cp) {
    return label(cp);
}

const char *clp__checkpoint_identity(const clp__checkpoint *cp) {
    return cp->identity;
}

uint64_t clp__checkpoint_checksum(const clp__checkpoint *cp) {
    return cp->checksum;
}

bool clp__checkpoint_has_scalar(const clp__checkpoint *cp, const char *name) {
    return find_scalar(cp, name) != NULL;
}

bool clp__checkpoint_has_array(const clp__checkpoint *cp, const char *name) {
    return find_array(cp, name) != NULL;
}

clp_status clp__checkpoint_scalar(const clp__checkpoint *cp, const char *name, double *out,
                                  clp_error *err) {
    const scalar *s = find_scalar(cp, name);
    if (!s)
        return CLP_FAIL_AT(err, CLP__CHECKPOINT_MISMATCH, cp->path, -1, -1,
                           "checkpoint %s has no scalar \"%s\"", label(cp), name);
    *out = s->value;
    return CLP_OK;
}

clp_status clp__checkpoint_array(const clp__checkpoint *cp, const char *name, size_t elem_size,
                                 size_t count, const void **data, clp_error *err) {
    const array *a = find_array(cp, name);
    if (!a)
        return CLP_FAIL_AT(err, CLP__CHECKPOINT_MISMATCH, cp->path, -1, -1,
                           "checkpoint %s has no array \"%s\"", label(cp), name);
    if (a->elem_size != elem_size || a->count != count)
        return CLP_FAIL_AT(err, CLP__CHECKPOINT_MISMATCH, cp->path, -1, -1,
                           "array \"%s\" in checkpoint %s holds %zu elements of %zu bytes, this "
                           "run expects %zu elements of %zu bytes",
                           name, label(cp), a->count, a->elem_size, count, elem_size);
    *data = a->data;
    return CLP_OK;
}

/* ---- Writing */

static void encode_le(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t decode_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static uint64_t double_bits(double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

static double bits_double(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* A stream into the temporary file that hashes what it writes; the first failure's errno is
 * kept and later writes are skipped. */
typedef struct writer {
    FILE *f; /* NULL: hash only */
    XXH3_state_t *hash;
    int error; /* errno of the first failed write, 0 while none failed */
} writer;

static void put(writer *w, const void *data, size_t n) {
    if (n == 0 || w->error)
        return;
    XXH3_64bits_update(w->hash, data, n);
    if (w->f && fwrite(data, 1, n, w->f) != n)
        w->error = errno ? errno : EIO;
}

static void put_le(writer *w, uint64_t v, int bytes) {
    unsigned char b[8];
    encode_le(b, v, bytes);
    put(w, b, (size_t)bytes);
}

static void put_string(writer *w, const char *text) {
    size_t len = strlen(text);
    put_le(w, len, 4);
    put(w, text, len);
}

static uint64_t string_size(const char *text) {
    return 4 + (uint64_t)strlen(text);
}

static uint64_t file_size(const clp__checkpoint *cp) {
    uint64_t size = HEADER_SIZE + string_size(clp_version()) + string_size(cp->identity) + 3 * 8;
    size += 4;
    for (size_t i = 0; i < cp->scalar_count; i++)
        size += string_size(cp->scalars[i].name) + 8;
    size += 4;
    for (size_t i = 0; i < cp->array_count; i++) {
        const array *a = &cp->arrays[i];
        size += string_size(a->name) + 4 + 8 + (uint64_t)a->elem_size * a->count;
    }
    return size + CHECKSUM_SIZE;
}

/* Everything but the checksum, which is not hashed itself. */
static void encode(const clp__checkpoint *cp, writer *w) {
    put(w, magic, sizeof magic);
    put_le(w, FORMAT_VERSION, 4);
    put_le(w, 0, 4);
    put_le(w, file_size(cp), 8);
    put_string(w, clp_version());
    put_string(w, cp->identity);
    put_le(w, cp->step, 8);
    put_le(w, double_bits(cp->time), 8);
    put_le(w, double_bits(cp->dt), 8);
    put_le(w, cp->scalar_count, 4);
    for (size_t i = 0; i < cp->scalar_count; i++) {
        put_string(w, cp->scalars[i].name);
        put_le(w, double_bits(cp->scalars[i].value), 8);
    }
    put_le(w, cp->array_count, 4);
    for (size_t i = 0; i < cp->array_count; i++) {
        const array *a = &cp->arrays[i];
        put_string(w, a->name);
        put_le(w, a->elem_size, 4);
        put_le(w, a->count, 8);
        put(w, a->data, a->elem_size * a->count);
    }
}

clp_status clp__checkpoint_digest(const clp__checkpoint *cp, uint64_t *out, clp_error *err) {
    XXH3_state_t *hash = XXH3_createState();
    if (!hash)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory hashing a checkpoint");
    XXH3_64bits_reset(hash);
    writer w = {.hash = hash};
    encode(cp, &w);
    *out = XXH3_64bits_digest(hash);
    XXH3_freeState(hash);
    return CLP_OK;
}

/* Makes the rename of a file in `path`'s folder durable; a failure is only logged. */
static void sync_folder(const char *path) {
    const char *slash = strrchr(path, '/');
    char *folder = slash ? dup_n(path, slash == path ? 1 : (size_t)(slash - path)) : dup_n(".", 1);
    int fd = folder ? open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd < 0 || fsync(fd) != 0)
        CLP_DEBUG(CLP_LOG_RUN, "cannot sync the folder of checkpoint %s: %s", path,
                  folder ? strerror(errno) : "out of host memory");
    if (fd >= 0)
        close(fd);
    free(folder);
}

static clp_status write_failed(clp_error *err, const char *path, const char *step, const char *tmp,
                               int errnum) {
    return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "checkpoint %s not written: %s %s: %s", path,
                       step, tmp, strerror(errnum));
}

clp_status clp__checkpoint_write(const clp__checkpoint *cp, const char *path, clp_error *err) {
    clp_status st = CLP_OK;
    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof TMP_SUFFIX);
    XXH3_state_t *hash = XXH3_createState();
    FILE *f = NULL;
    bool created = false;
    CLP_REQUIRE(tmp && hash, err, CLP_NOMEM, "out of host memory writing checkpoint %s", path);
    memcpy(tmp, path, len);
    memcpy(tmp + len, TMP_SUFFIX, sizeof TMP_SUFFIX);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        st = write_failed(err, path, "create", tmp, errno);
        goto fail;
    }
    created = true;
    f = fdopen(fd, "wb");
    if (!f) {
        st = write_failed(err, path, "open", tmp, errno);
        close(fd);
        goto fail;
    }
    XXH3_64bits_reset(hash);
    writer w = {.f = f, .hash = hash};
    encode(cp, &w);
    unsigned char sum[CHECKSUM_SIZE];
    encode_le(sum, XXH3_64bits_digest(hash), CHECKSUM_SIZE);
    if (!w.error && fwrite(sum, 1, sizeof sum, f) != sizeof sum)
        w.error = errno ? errno : EIO;
    if (!w.error && fflush(f) != 0)
        w.error = errno;
    if (w.error) {
        st = write_failed(err, path, "write", tmp, w.error);
        goto fail;
    }
    if (fsync(fileno(f)) != 0) {
        st = write_failed(err, path, "fsync", tmp, errno);
        goto fail;
    }
    int rc = fclose(f);
    f = NULL;
    if (rc != 0) {
        st = write_failed(err, path, "close", tmp, errno);
        goto fail;
    }
    if (rename(tmp, path) != 0) {
        st = write_failed(err, path, "rename", tmp, errno);
        goto fail;
    }
    created = false;
    sync_folder(path);
fail:
    if (f)
        fclose(f);
    if (created)
        unlink(tmp);
    free(tmp);
    XXH3_freeState(hash);
    return st;
}

/* ---- Reading */

/* A stream from the file that hashes what it reads and refuses to read past the checksum.
 * The first problem is kept in `why` (or `nomem`) and later reads fail at once. */
typedef struct reader {
    FILE *f;
    XXH3_state_t *hash;
    uint64_t left; /* bytes before the checksum not read yet */
    bool nomem;
    char why[200];
} reader;

/* Whether `n` more bytes of `what` can be read: none has failed and they are in the file. */
static bool fits(reader *r, uint64_t n, const char *what) {
    if (r->why[0] || r->nomem)
        return false;
    if (n <= r->left)
        return true;
    snprintf(r->why, sizeof r->why,
             "corrupt: its %s takes %llu bytes, only %llu remain before the checksum", what,
             (unsigned long long)n, (unsigned long long)r->left);
    return false;
}

static bool take(reader *r, void *dst, uint64_t n, const char *what) {
    if (!fits(r, n, what))
        return false;
    if (n > 0 && fread(dst, 1, n, r->f) != n) {
        snprintf(r->why, sizeof r->why, "cannot read its %s: %s", what,
                 ferror(r->f) ? strerror(errno) : "the file shrank while being read");
        return false;
    }
    XXH3_64bits_update(r->hash, dst, n);
    r->left -= n;
    return true;
}

static uint64_t take_le(reader *r, int bytes, const char *what) {
    unsigned char b[8];
    return take(r, b, (uint64_t)bytes, what) ? decode_le(b, bytes) : 0;
}

/* A new NUL-terminated string, or NULL once reading has failed. */
static char *take_string(reader *r, const char *what) {
    uint64_t len = take_le(r, 4, what);
    if (!fits(r, len, what))
        return NULL;
    char *text = malloc(len + 1);
    if (!text) {
        r->nomem = true;
        return NULL;
    }
    if (!take(r, text, len, what)) {
        free(text);
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* Reads the header: magic, version and the size it gives, which must be the file's own. */
static bool read_header(reader *r, uint64_t size) {
    unsigned char head[HEADER_SIZE];
    size_t want = size < HEADER_SIZE ? (size_t)size : HEADER_SIZE;
    if (fread(head, 1, want, r->f) != want) {
        snprintf(r->why, sizeof r->why, "cannot read its header: %s",
                 ferror(r->f) ? strerror(errno) : "the file shrank while being read");
        return false;
    }
    if (memcmp(head, magic, want < sizeof magic ? want : sizeof magic) != 0) {
        snprintf(r->why, sizeof r->why, "not a clpart checkpoint (no CLPCKPT magic)");
        return false;
    }
    if (size < HEADER_SIZE + CHECKSUM_SIZE) {
        snprintf(r->why, sizeof r->why,
                 "truncated: %llu bytes, fewer than the %d of header and checksum",
                 (unsigned long long)size, HEADER_SIZE + CHECKSUM_SIZE);
        return false;
    }
    uint32_t version = (uint32_t)decode_le(head + 8, 4);
    if (version != FORMAT_VERSION) {
        snprintf(r->why, sizeof r->why, "format version %u, this clpart reads version %d", version,
                 FORMAT_VERSION);
        return false;
    }
    uint64_t declared = decode_le(head + 16, 8);
    if (declared != size) {
        snprintf(r->why, sizeof r->why, "%s: %llu bytes, its header says %llu",
                 size < declared ? "truncated" : "corrupt", (unsigned long long)size,
                 (unsigned long long)declared);
        return false;
    }
    XXH3_64bits_update(r->hash, head, sizeof head);
    r->left = size - HEADER_SIZE - CHECKSUM_SIZE;
    return true;
}

/* Reads the scalars and arrays into `cp`; a problem is left in `r`. */
static void read_entries(reader *r, clp__checkpoint *cp) {
    uint64_t n = take_le(r, 4, "scalar count");
    for (uint64_t i = 0; i < n && !r->why[0] && !r->nomem; i++) {
        char *name = take_string(r, "scalar name");
        double value = bits_double(take_le(r, 8, "scalar value"));
        if (name && !r->why[0])
            r->nomem = !push_scalar(cp, name, value);
        else
            free(name);
    }
    n = take_le(r, 4, "array count");
    for (uint64_t i = 0; i < n && !r->why[0] && !r->nomem; i++) {
        char *name = take_string(r, "array name");
        uint64_t elem_size = take_le(r, 4, "array element size");
        uint64_t count = take_le(r, 8, "array element count");
        bool ok = name && !r->why[0];
        if (ok && (elem_size == 0 || count > r->left / elem_size)) {
            snprintf(r->why, sizeof r->why,
                     "corrupt: array \"%.40s\" of %llu elements of %llu bytes does not fit in "
                     "the %llu bytes left",
                     name, (unsigned long long)count, (unsigned long long)elem_size,
                     (unsigned long long)r->left);
            ok = false;
        }
        void *data = ok ? malloc(elem_size * count + 1) : NULL;
        r->nomem = ok && !data;
        if (data && take(r, data, elem_size * count, "array data")) {
            r->nomem = !push_array(cp, name, elem_size, count, data, data);
            continue;
        }
        free(name);
        free(data);
    }
}

/* The first line where the two texts differ (1-based), with both lines (NULL past the end). */
static int first_difference(const char *a, const char *b, const char **line_a, size_t *len_a,
                            const char **line_b, size_t *len_b) {
    for (int line = 1;; line++) {
        *len_a = a ? strcspn(a, "\n") : 0;
        *len_b = b ? strcspn(b, "\n") : 0;
        *line_a = a;
        *line_b = b;
        if (!a || !b || *len_a != *len_b || memcmp(a, b, *len_a) != 0)
            return line;
        a = a[*len_a] ? a + *len_a + 1 : NULL;
        b = b[*len_b] ? b + *len_b + 1 : NULL;
    }
}

/* `line` quoted and cut to 60 bytes, or "no such line" for NULL. */
static void quote_line(char out[72], const char *line, size_t len) {
    if (!line)
        snprintf(out, 72, "no such line");
    else if (len > 60)
        snprintf(out, 72, "\"%.57s...\"", line);
    else
        snprintf(out, 72, "\"%.*s\"", (int)len, line);
}

/* Whether the checkpoint was written by this build. */
static clp_status check_version(const char *path, const char *version, clp_error *err) {
    if (strcmp(version, clp_version()) != 0)
        return CLP_FAIL_AT(err, CLP__CHECKPOINT_MISMATCH, path, -1, -1,
                           "checkpoint %s was written by clpart %s, this is clpart %s: a restart "
                           "is bit for bit only with the same version",
                           path, version, clp_version());
    return CLP_OK;
}

clp_status clp__checkpoint_compare_identity(const char *path, const char *identity,
                                            const char *expected, clp_error *err) {
    if (strcmp(identity, expected) == 0)
        return CLP_OK;
    const char *line_a, *line_b;
    size_t len_a, len_b;
    int line = first_difference(identity, expected, &line_a, &len_a, &line_b, &len_b);
    char stored[72], wanted[72];
    quote_line(stored, line_a, len_a);
    quote_line(wanted, line_b, len_b);
    return CLP_FAIL_AT(err, CLP__CHECKPOINT_MISMATCH, path, -1, -1,
                       "checkpoint %s was written for a different run: line %d differs: the "
                       "checkpoint has %s, this run has %s",
                       path, line, stored, wanted);
}

clp_status clp__checkpoint_read(const char *path, const char *expected_identity,
                                clp__checkpoint **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp__checkpoint *cp = NULL;
    char *version = NULL;
    reader r = {.hash = XXH3_createState()};
    r.f = fopen(path, "rb");
    if (!r.f) {
        st = CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot open checkpoint %s: %s", path,
                         strerror(errno));
        goto fail;
    }
    cp = calloc(1, sizeof *cp);
    if (cp)
        cp->path = dup_n(path, strlen(path));
    CLP_REQUIRE(r.hash && cp && cp->path, err, CLP_NOMEM,
                "out of host memory reading checkpoint %s", path);
    struct stat info;
    if (fstat(fileno(r.f), &info) != 0) {
        st = CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot stat checkpoint %s: %s", path,
                         strerror(errno));
        goto fail;
    }
    XXH3_64bits_reset(r.hash);
    if (read_header(&r, (uint64_t)info.st_size)) {
        version = take_string(&r, "clpart version");
        cp->identity = take_string(&r, "identity");
        cp->step = take_le(&r, 8, "step");
        cp->time = bits_double(take_le(&r, 8, "time"));
        cp->dt = bits_double(take_le(&r, 8, "time step"));
        read_entries(&r, cp);
    }
    CLP_REQUIRE(!r.nomem, err, CLP_NOMEM, "out of host memory reading checkpoint %s", path);
    if (!r.why[0] && r.left > 0)
        snprintf(r.why, sizeof r.why, "corrupt: %llu unexpected bytes before the checksum",
                 (unsigned long long)r.left);
    unsigned char sum[CHECKSUM_SIZE];
    if (!r.why[0] && fread(sum, 1, sizeof sum, r.f) != sizeof sum)
        snprintf(r.why, sizeof r.why, "cannot read its checksum: %s",
                 ferror(r.f) ? strerror(errno) : "the file shrank while being read");
    uint64_t computed = r.why[0] ? 0 : XXH3_64bits_digest(r.hash);
    if (!r.why[0] && computed != decode_le(sum, CHECKSUM_SIZE))
        snprintf(r.why, sizeof r.why, "corrupt: checksum %016llx differs from the stored %016llx",
                 (unsigned long long)computed, (unsigned long long)decode_le(sum, CHECKSUM_SIZE));
    if (r.why[0]) {
        st = CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "checkpoint %s refused: %s", path, r.why);
        goto fail;
    }
    cp->checksum = computed;
    CLP_TRY(check_version(path, version, err));
    if (expected_identity)
        CLP_TRY(clp__checkpoint_compare_identity(path, cp->identity, expected_identity, err));
    *out = cp;
    cp = NULL;
fail:
    if (r.f)
        fclose(r.f);
    XXH3_freeState(r.hash);
    free(version);
    clp__checkpoint_destroy(cp);
    return st;
}

/* Unit tests of checkpoint files: a bit-exact round trip, the documented layout, truncated and
 * corrupted files, another identity or version, wrong array sizes, atomic replacement, the
 * checksum known before writing and an identity compared after reading. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "test.h"

#include "io/checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

/* ---- Helpers, written from the documented format, independently of the library's code */

enum { HEADER = 24, CHECKSUM = 8 };

static char dir[64];

static void path_in_dir(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

static unsigned char *read_whole(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    CLP_ASSERT(f != NULL);
    CLP_ASSERT(fseek(f, 0, SEEK_END) == 0);
    long size = ftell(f);
    CLP_ASSERT(size >= 0);
    rewind(f);
    unsigned char *data = malloc((size_t)size + 1);
    CLP_ASSERT(data != NULL);
    CLP_ASSERT(fread(data, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return data;
}

static void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    CLP_ASSERT(f != NULL);
    CLP_ASSERT(fwrite(data, 1, n, f) == n);
    CLP_ASSERT(fclose(f) == 0);
}

static uint64_t le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void set_le(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static double from_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static bool same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

/* How many temporary files ("*.tmp-*") the test folder holds. */
static int temporaries(void) {
    DIR *d = opendir(dir);
    CLP_ASSERT(d != NULL);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strstr(e->d_name, ".tmp-") != NULL;
    closedir(d);
    return n;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* ---- A small checkpoint used throughout */

static const char identity[] = "case cases/dam_break.json xxh3 0123456789abcdef\n"
                               "option sph.kernel=wendland\n"
                               "option core.summation=kahan\n"
                               "device pthread-cpu / PoCL 5.0\n";

typedef struct payload {
    float pos[5][4];
    double extra[6];
    unsigned char type[7];
    uint64_t id[3];
} payload;

static void fill_payload(payload *p) {
    for (int i = 0; i < 5; i++)
        for (int c = 0; c < 4; c++)
            p->pos[i][c] = (float)(i * 4 + c) * 0.1f - 0.7f;
    p->pos[2][3] = -0.0f;
    const uint64_t extra_bits[6] = {
        0x7ff8deadbeef0001ull, /* quiet NaN with a payload */
        0xfff4000000000123ull, /* negative signalling NaN with a payload */
        0x8000000000000000ull, /* -0.0 */
        0x0000000000000001ull, /* smallest subnormal */
        0x7ff0000000000000ull, /* +infinity */
        0x3fb999999999999aull, /* 0.1 */
    };
    memcpy(p->extra, extra_bits, sizeof extra_bits);
    for (int i = 0; i < 7; i++)
        p->type[i] = (unsigned char)(i * 37 + 1);
    p->id[0] = 0;
    p->id[1] = 0xfedcba9876543210ull;
    p->id[2] = UINT64_MAX;
}

static const uint64_t step = 0x0123456789abcdefull;
static const uint64_t time_bits = 0x40091eb851eb851full; /* 3.14 */
static const uint64_t dt_bits = 0x3ee4f8b588e368f1ull;   /* 1e-5 */
static const uint64_t nan_scalar_bits = 0x7ff80000cafe0042ull;

static void write_sample(const char *path, const char *id, const payload *p) {
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_OK(
        clp__checkpoint_create(id, step, from_bits(time_bits), from_bits(dt_bits), &cp, &err),
        &err);
    CLP_ASSERT_OK(clp__checkpoint_add_scalar(cp, "next_output_time", 3.25, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_add_scalar(cp, "nan_payload", from_bits(nan_scalar_bits), &err),
                  &err);
    CLP_ASSERT_OK(clp__checkpoint_add_scalar(cp, "minus_zero", -0.0, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, "pos", 16, 5, p->pos, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, "extra", 8, 6, p->extra, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, "type", 1, 7, p->type, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, "id", 8, 3, p->id, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, "empty", 4, 0, NULL, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_write(cp, path, &err), &err);
    clp__checkpoint_destroy(cp);
}

static void expect_array(const clp__checkpoint *cp, const char *name, size_t elem, size_t count,
                         const void *want) {
    clp_error err = CLP_ERROR_INIT;
    const void *data = NULL;
    CLP_ASSERT_OK(clp__checkpoint_array(cp, name, elem, count, &data, &err), &err);
    if (count > 0) {
        CLP_ASSERT(memcmp(data, want, elem * count) == 0);
        CLP_ASSERT((uintptr_t)data % 16 == 0);
    }
}

/* ---- Tests */

static void test_round_trip(void) {
    char path[128];
    path_in_dir(path, sizeof path, "round.ckpt");
    payload p;
    fill_payload(&p);
    write_sample(path, identity, &p);

    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_OK(clp__checkpoint_read(path, identity, &cp, &err), &err);
    CLP_ASSERT(clp__checkpoint_step(cp) == step);
    CLP_ASSERT(same_bits(clp__checkpoint_time(cp), from_bits(time_bits)));
    CLP_ASSERT(same_bits(clp__checkpoint_dt(cp), from_bits(dt_bits)));
    double v;
    CLP_ASSERT_OK(clp__checkpoint_scalar(cp, "next_output_time", &v, &err), &err);
    CLP_ASSERT(v == 3.25);
    CLP_ASSERT_OK(clp__checkpoint_scalar(cp, "nan_payload", &v, &err), &err);
    CLP_ASSERT(same_bits(v, from_bits(nan_scalar_bits)));
    CLP_ASSERT_OK(clp__checkpoint_scalar(cp, "minus_zero", &v, &err), &err);
    CLP_ASSERT(same_bits(v, -0.0) && !same_bits(v, 0.0));

    payload q; /* a fresh copy, in case the library wrote through the borrowed arrays */
    fill_payload(&q);
    expect_array(cp, "pos", 16, 5, q.pos);
    expect_array(cp, "extra", 8, 6, q.extra);
    expect_array(cp, "type", 1, 7, q.type);
    expect_array(cp, "id", 8, 3, q.id);
    expect_array(cp, "empty", 4, 0, NULL);
    clp__checkpoint_destroy(cp);
    CLP_ASSERT_EQ(temporaries(), 0);
}

/* The layout the header comment of checkpoint.c documents, checked byte by byte. */
static void test_layout(void) {
    char path[128];
    path_in_dir(path, sizeof path, "layout.ckpt");
    payload p;
    fill_payload(&p);
    write_sample(path, identity, &p);
    size_t n;
    unsigned char *f = read_whole(path, &n);
    CLP_ASSERT(memcmp(f, "CLPCKPT\0", 8) == 0);
    CLP_ASSERT_EQ(le(f + 8, 4), 1);
    CLP_ASSERT_EQ(le(f + 12, 4), 0);
    CLP_ASSERT_EQ(le(f + 16, 8), n);
    CLP_ASSERT(le(f + n - CHECKSUM, 8) == XXH3_64bits(f, n - CHECKSUM));

    size_t at = HEADER;
    const char *version = clp_version();
    CLP_ASSERT_EQ(le(f + at, 4), strlen(version));
    CLP_ASSERT(memcmp(f + at + 4, version, strlen(version)) == 0);
    at += 4 + strlen(version);
    CLP_ASSERT_EQ(le(f + at, 4), strlen(identity));
    CLP_ASSERT(memcmp(f + at + 4, identity, strlen(identity)) == 0);
    at += 4 + strlen(identity);
    CLP_ASSERT(le(f + at, 8) == step);
    CLP_ASSERT(le(f + at + 8, 8) == time_bits);
    CLP_ASSERT(le(f + at + 16, 8) == dt_bits);
    at += 24;
    CLP_ASSERT_EQ(le(f + at, 4), 3); /* scalars */
    at += 4;
    CLP_ASSERT_EQ(le(f + at, 4), strlen("next_output_time"));
    CLP_ASSERT(memcmp(f + at + 4, "next_output_time", 16) == 0);
    CLP_ASSERT(le(f + at + 20, 8) == 0x400a000000000000ull); /* 3.25 */
    at += 4 + 16 + 8;
    CLP_ASSERT(memcmp(f + at + 4, "nan_payload", 11) == 0);
    CLP_ASSERT(le(f + at + 15, 8) == nan_scalar_bits);
    at += 4 + 11 + 8;
    at += 4 + 10 + 8;                /* minus_zero */
    CLP_ASSERT_EQ(le(f + at, 4), 5); /* arrays */
    at += 4;
    CLP_ASSERT_EQ(le(f + at, 4), 3);
    CLP_ASSERT(memcmp(f + at + 4, "pos", 3) == 0);
    CLP_ASSERT_EQ(le(f + at + 7, 4), 16);
    CLP_ASSERT_EQ(le(f + at + 11, 8), 5);
    CLP_ASSERT(memcmp(f + at + 19, p.pos, sizeof p.pos) == 0);
    at += 19 + sizeof p.pos;
    CLP_ASSERT(memcmp(f + at + 4, "extra", 5) == 0);
    CLP_ASSERT(le(f + at + 21, 8) == 0x7ff8deadbeef0001ull);
    at += 21 + sizeof p.extra;
    at += 4 + 4 + 4 + 8 + sizeof p.type; /* type */
    at += 4 + 2 + 4 + 8 + sizeof p.id;   /* id */
    CLP_ASSERT(memcmp(f + at + 4, "empty", 5) == 0);
    CLP_ASSERT_EQ(le(f + at + 13, 8), 0);
    at += 4 + 5 + 4 + 8;
    CLP_ASSERT_EQ(at + CHECKSUM, n);
    free(f);
}

static void expect_refused(const char *path, clp_status want, const char *needle) {
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_STATUS(clp__checkpoint_read(path, identity, &cp, &err), want, &err);
    CLP_ASSERT(cp == NULL);
    CLP_ASSERT_CONTAINS(err.message, path);
    CLP_ASSERT_STR_EQ(err.source, path);
    CLP_ASSERT_EQ(err.line, -1);
    if (needle)
        CLP_ASSERT_CONTAINS(err.message, needle);
}

static void test_truncated(void) {
    char path[128], cut[128];
    path_in_dir(path, sizeof path, "full.ckpt");
    path_in_dir(cut, sizeof cut, "cut.ckpt");
    payload p;
    fill_payload(&p);
    write_sample(path, identity, &p);
    size_t n;
    unsigned char *f = read_whole(path, &n);
    for (size_t len = 0; len < n; len++) {
        write_file(cut, f, len);
        expect_refused(cut, CLP_IO, "truncated");
    }
    /* Cut and then padded back to its size: the header agrees, the checksum does not. */
    unsigned char *padded = calloc(n, 1);
    CLP_ASSERT(padded != NULL);
    memcpy(padded, f, n / 2);
    write_file(cut, padded, n);
    expect_refused(cut, CLP_IO, "corrupt");
    /* One byte too many. */
    unsigned char *longer = malloc(n + 1);
    CLP_ASSERT(longer != NULL);
    memcpy(longer, f, n);
    longer[n] = 0;
    write_file(cut, longer, n + 1);
    expect_refused(cut, CLP_IO, "its header says");
    free(longer);
    free(padded);
    free(f);
}

static void test_flipped_bytes(void) {
    char path[128], bad[128];
    path_in_dir(path, sizeof path, "good.ckpt");
    path_in_dir(bad, sizeof bad, "bad.ckpt");
    payload p;
    fill_payload(&p);
    write_sample(path, identity, &p);
    size_t n;
    unsigned char *f = read_whole(path, &n);
    const unsigned char masks[] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < n; i++)
        for (size_t m = 0; m < sizeof masks; m++) {
            f[i] ^= masks[m];
            write_file(bad, f, n);
            expect_refused(bad, CLP_IO, NULL);
            f[i] ^= masks[m];
        }
    /* A byte of array data (the last of "id", before "empty") gives the checksum message. */
    f[n - CHECKSUM - (4 + 5 + 4 + 8) - 1] ^= 1;
    write_file(bad, f, n);
    expect_refused(bad, CLP_IO, "checksum");
    /* Another file altogether. */
    write_file(bad, "{\"case\": 1}\n", 12);
    expect_refused(bad, CLP_IO, "not a clpart checkpoint");
    free(f);
}

static void test_other_identity(void) {
    char path[128];
    path_in_dir(path, sizeof path, "other.ckpt");
    payload p;
    fill_payload(&p);
    write_sample(path, identity, &p);

    const char *cubic = "case cases/dam_break.json xxh3 0123456789abcdef\n"
                        "option sph.kernel=cubic\n"
                        "option core.summation=kahan\n"
                        "device pthread-cpu / PoCL 5.0\n";
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_STATUS(clp__checkpoint_read(path, cubic, &cp, &err), CLP__CHECKPOINT_MISMATCH, &err);
    CLP_ASSERT(cp == NULL);
    CLP_ASSERT_CONTAINS(err.message, path);
    CLP_ASSERT_CONTAINS(err.message, "line 2 differs");
    CLP_ASSERT_CONTAINS(err.message, "\"option sph.kernel=wendland\"");
    CLP_ASSERT_CONTAINS(err.message, "\"option sph.kernel=cubic\"");
    CLP_ASSERT_STR_EQ(err.source, path);

    /* This run's identity has one more line. */
    char longer[512];
    snprintf(longer, sizeof longer, "%soption extra=1\n", identity);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_read(path, longer, &cp, &err), CLP__CHECKPOINT_MISMATCH,
                      &err);
    CLP_ASSERT_CONTAINS(err.message, "line 5 differs");
    CLP_ASSERT_CONTAINS(err.message, "the checkpoint has \"\"");
    CLP_ASSERT_CONTAINS(err.message, "this run has \"option extra=1\"");

    /* A line without its final newline: past the end on one side. */
    char shorter[512];
    snprintf(shorter, sizeof shorter, "%s", identity);
    shorter[strlen(shorter) - 1] = '\0';
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_read(path, shorter, &cp, &err), CLP__CHECKPOINT_MISMATCH,
                      &err);
    CLP_ASSERT_CONTAINS(err.message, "line 5 differs");
    CLP_ASSERT_CONTAINS(err.message, "this run has no such line");

    /* A long differing line is cut in the message. */
    char wide[512];
    snprintf(wide, sizeof wide, "%.*soption %0200d\n", 48, identity, 7);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_read(path, wide, &cp, &err), CLP__CHECKPOINT_MISMATCH, &err);
    CLP_ASSERT_CONTAINS(err.message, "line 2 differs");
    CLP_ASSERT_CONTAINS(err.message, "...\"");
}

/* Rewrites the stored clpart version (same length, last byte changed) and the checksum. */
static void test_other_version(void) {
    char path[128];
    path_in_dir(path, sizeof path, "version.ckpt");
    payload p;
    fill_payload(&p);
    write_sample(path, identity, &p);
    size_t n;
    unsigned char *f = read_whole(path, &n);
    size_t len = le(f + HEADER, 4);
    CLP_ASSERT(len > 0);
    f[HEADER + 4 + len - 1] ^= 0x01;
    set_le(f + n - CHECKSUM, XXH3_64bits(f, n - CHECKSUM), 8);
    write_file(path, f, n);
    free(f);
    expect_refused(path, CLP__CHECKPOINT_MISMATCH, "was written by clpart");
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    clp__checkpoint_read(path, identity, &cp, &err);
    CLP_ASSERT_CONTAINS(err.message, clp_version());
}

static void test_wrong_sizes(void) {
    char path[128];
    path_in_dir(path, sizeof path, "sizes.ckpt");
    payload p;
    fill_payload(&p);
    write_sample(path, identity, &p);
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_OK(clp__checkpoint_read(path, identity, &cp, &err), &err);
    const void *data = NULL;

    CLP_ASSERT_STATUS(clp__checkpoint_array(cp, "pos", 8, 5, &data, &err), CLP__CHECKPOINT_MISMATCH,
                      &err);
    CLP_ASSERT(data == NULL);
    CLP_ASSERT_CONTAINS(err.message, "array \"pos\"");
    CLP_ASSERT_CONTAINS(err.message, "holds 5 elements of 16 bytes");
    CLP_ASSERT_CONTAINS(err.message, "expects 5 elements of 8 bytes");
    CLP_ASSERT_STR_EQ(err.source, path);

    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_array(cp, "id", 8, 4, &data, &err), CLP__CHECKPOINT_MISMATCH,
                      &err);
    CLP_ASSERT_CONTAINS(err.message, "holds 3 elements of 8 bytes");
    CLP_ASSERT_CONTAINS(err.message, "expects 4 elements of 8 bytes");

    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_array(cp, "vel", 16, 5, &data, &err),
                      CLP__CHECKPOINT_MISMATCH, &err);
    CLP_ASSERT_CONTAINS(err.message, "no array \"vel\"");
    CLP_ASSERT_CONTAINS(err.message, path);

    clp_error_clear(&err);
    double v = 1.0;
    CLP_ASSERT_STATUS(clp__checkpoint_scalar(cp, "next_checkpoint_time", &v, &err),
                      CLP__CHECKPOINT_MISMATCH, &err);
    CLP_ASSERT_CONTAINS(err.message, "no scalar \"next_checkpoint_time\"");
    CLP_ASSERT(v == 1.0);
    clp__checkpoint_destroy(cp);
}

static void test_bad_additions(void) {
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_OK(clp__checkpoint_create("x", 0, 0.0, 0.0, &cp, &err), &err);
    float one = 1.0f;
    CLP_ASSERT_OK(clp__checkpoint_add_scalar(cp, "t", 1.0, &err), &err);
    CLP_ASSERT_STATUS(clp__checkpoint_add_scalar(cp, "t", 2.0, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "scalar \"t\" added twice");
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_add_scalar(cp, "", 2.0, &err), CLP_USAGE, &err);
    clp_error_clear(&err);
    char long_name[300];
    memset(long_name, 'a', 256);
    long_name[256] = '\0';
    CLP_ASSERT_STATUS(clp__checkpoint_add_array(cp, long_name, 4, 1, &one, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "256 bytes");
    clp_error_clear(&err);
    long_name[255] = '\0';
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, long_name, 4, 1, &one, &err), &err);
    CLP_ASSERT_STATUS(clp__checkpoint_add_array(cp, long_name, 4, 1, &one, &err), CLP_USAGE, &err);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_add_array(cp, "zero", 0, 1, &one, &err), CLP_USAGE, &err);
    CLP_ASSERT_CONTAINS(err.message, "element size 0");
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_add_array(cp, "null", 4, 2, NULL, &err), CLP_USAGE, &err);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(clp__checkpoint_add_array(cp, "huge", 16, SIZE_MAX / 8, &one, &err),
                      CLP_USAGE, &err);
    clp__checkpoint_destroy(cp);
    clp__checkpoint_destroy(NULL);
}

/* Writes step `s` of the sample checkpoint to `path` with the given status. */
static clp_status write_step(const char *path, uint64_t s, const payload *p, clp_error *err) {
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_OK(clp__checkpoint_create(identity, s, 1.0, 0.5, &cp, err), err);
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, "pos", 16, 5, p->pos, err), err);
    clp_status st = clp__checkpoint_write(cp, path, err);
    clp__checkpoint_destroy(cp);
    return st;
}

static uint64_t stored_step(const char *path) {
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_OK(clp__checkpoint_read(path, identity, &cp, &err), &err);
    uint64_t s = clp__checkpoint_step(cp);
    clp__checkpoint_destroy(cp);
    return s;
}

static void test_atomic_write(void) {
    char path[128];
    path_in_dir(path, sizeof path, "run.ckpt");
    payload p;
    fill_payload(&p);
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(write_step(path, 10, &p, &err), &err);
    CLP_ASSERT_OK(write_step(path, 20, &p, &err), &err); /* replaces it */
    CLP_ASSERT(stored_step(path) == 20);
    size_t old_n;
    unsigned char *old = read_whole(path, &old_n);

    /* A write that fails half way (file size limit): the old file stays, no temporary. */
    struct rlimit saved, small = {.rlim_cur = 64};
    CLP_ASSERT(getrlimit(RLIMIT_FSIZE, &saved) == 0);
    small.rlim_max = saved.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    CLP_ASSERT(setrlimit(RLIMIT_FSIZE, &small) == 0);
    clp_status st = write_step(path, 30, &p, &err);
    CLP_ASSERT(setrlimit(RLIMIT_FSIZE, &saved) == 0);
    CLP_ASSERT_STATUS(st, CLP_IO, &err);
    CLP_ASSERT_CONTAINS(err.message, path);
    CLP_ASSERT_CONTAINS(err.message, strerror(EFBIG));
    CLP_ASSERT_STR_EQ(err.source, path);
    size_t now_n;
    unsigned char *now = read_whole(path, &now_n);
    CLP_ASSERT(now_n == old_n && memcmp(now, old, old_n) == 0);
    free(now);
    CLP_ASSERT_EQ(temporaries(), 0);

    /* An unwritable folder: only meaningful when not root, who may write anyway. */
    if (geteuid() != 0) {
        CLP_ASSERT(chmod(dir, 0555) == 0);
        clp_error_clear(&err);
        st = write_step(path, 40, &p, &err);
        CLP_ASSERT(chmod(dir, 0755) == 0);
        CLP_ASSERT_STATUS(st, CLP_IO, &err);
        CLP_ASSERT_CONTAINS(err.message, strerror(EACCES));
        now = read_whole(path, &now_n);
        CLP_ASSERT(now_n == old_n && memcmp(now, old, old_n) == 0);
        free(now);
        CLP_ASSERT_EQ(temporaries(), 0);
    }

    /* A folder that is a regular file. */
    char under_file[160];
    snprintf(under_file, sizeof under_file, "%s/run.ckpt", path);
    clp_error_clear(&err);
    CLP_ASSERT_STATUS(write_step(under_file, 50, &p, &err), CLP_IO, &err);
    CLP_ASSERT_CONTAINS(err.message, under_file);
    CLP_ASSERT_CONTAINS(err.message, strerror(ENOTDIR));
    CLP_ASSERT(stored_step(path) == 20);
    free(old);
}

/* The checksum computed before writing is the one the file ends with and a read reports; a
 * read with no expected identity takes any, which the caller compares later. */
static void test_digest_and_later_identity(void) {
    char path[128];
    path_in_dir(path, sizeof path, "digest.ckpt");
    payload p;
    fill_payload(&p);
    clp_error err = CLP_ERROR_INIT;
    clp__checkpoint *cp = NULL;
    CLP_ASSERT_OK(clp__checkpoint_create(identity, step, 1.0, 0.5, &cp, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_add_array(cp, "pos", 16, 5, p.pos, &err), &err);
    uint64_t digest = 0;
    CLP_ASSERT_OK(clp__checkpoint_digest(cp, &digest, &err), &err);
    CLP_ASSERT_OK(clp__checkpoint_write(cp, path, &err), &err);
    clp__checkpoint_destroy(cp);
    size_t n;
    unsigned char *data = read_whole(path, &n);
    CLP_ASSERT(le(data + n - CHECKSUM, CHECKSUM) == digest);
    CLP_ASSERT(XXH3_64bits(data, n - CHECKSUM) == digest);
    free(data);

    cp = NULL;
    CLP_ASSERT_OK(clp__checkpoint_read(path, NULL, &cp, &err), &err);
    CLP_ASSERT(clp__checkpoint_checksum(cp) == digest);
    CLP_ASSERT(strcmp(clp__checkpoint_identity(cp), identity) == 0);
    CLP_ASSERT(strcmp(clp__checkpoint_path(cp), path) == 0);
    CLP_ASSERT(clp__checkpoint_has_array(cp, "pos") && !clp__checkpoint_has_array(cp, "vel"));
    CLP_ASSERT(!clp__checkpoint_has_scalar(cp, "pos"));
    CLP_ASSERT_OK(
        clp__checkpoint_compare_identity(path, clp__checkpoint_identity(cp), identity, &err), &err);
    CLP_ASSERT_STATUS(clp__checkpoint_compare_identity(path, "case a\nkernel wendland\n",
                                                       "case a\nkernel cubic\n", &err),
                      CLP__CHECKPOINT_MISMATCH, &err);
    CLP_ASSERT(strstr(err.message, "line 2 differs") && strstr(err.message, "kernel cubic"));
    clp__checkpoint_destroy(cp);
}

static void test_missing_file(void) {
    char path[128];
    path_in_dir(path, sizeof path, "absent.ckpt");
    expect_refused(path, CLP_IO, strerror(ENOENT));
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/clpart-test-checkpoint-XXXXXX");
    CLP_ASSERT(mkdtemp(dir) != NULL);
    test_round_trip();
    test_layout();
    test_truncated();
    test_flipped_bytes();
    test_other_identity();
    test_other_version();
    test_wrong_sizes();
    test_bad_additions();
    test_atomic_write();
    test_missing_file();
    test_digest_and_later_identity();
    CLP_ASSERT(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
    return 0;
}

/* Unit tests of the program binary cache: key record and hash, hits and misses, counters that
 * persist, damaged entries, an unusable folder, eviction, listing, clearing, folder choice. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "test.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

/* ---- Helpers, written from the documented format, independently of the library's code */

enum { HEADER = 56 };

static int warnings;
static char last_warning[1024];

static void count_warnings(clp_log_level level, unsigned category, const char *text, void *user) {
    (void)user;
    if (level != CLP_LOG_WARN)
        return;
    CLP_ASSERT_EQ(category, CLP_LOG_CACHE);
    warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", text);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void remove_tree(const char *path) {
    CLP_ASSERT(nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
}

static void make_tmpdir(char dir[64]) {
    snprintf(dir, 64, "/tmp/clpart-test-cache-XXXXXX");
    CLP_ASSERT(mkdtemp(dir) != NULL);
}

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static long long file_size(const char *path) {
    struct stat st;
    CLP_ASSERT(stat(path, &st) == 0);
    return (long long)st.st_size;
}

static void set_mtime(const char *path, time_t seconds) {
    struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
    CLP_ASSERT(utimensat(AT_FDCWD, path, times, 0) == 0);
}

static void write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    CLP_ASSERT(f != NULL);
    CLP_ASSERT(fwrite(data, 1, n, f) == n);
    CLP_ASSERT(fclose(f) == 0);
}

static unsigned char *read_whole(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    CLP_ASSERT(f != NULL);
    static unsigned char buf[1 << 20];
    *n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static void make_device(clp_device_info *dev, const char *platform, const char *name,
                        const char *driver) {
    memset(dev, 0, sizeof *dev);
    snprintf(dev->platform_name, sizeof dev->platform_name, "%s", platform);
    snprintf(dev->platform_version, sizeof dev->platform_version, "OpenCL 3.0 %s", platform);
    snprintf(dev->name, sizeof dev->name, "%s", name);
    snprintf(dev->device_version, sizeof dev->device_version, "OpenCL 1.2 %s", name);
    snprintf(dev->driver_version, sizeof dev->driver_version, "%s", driver);
}

/* XXH3-128 as high then low 64 bits, in hex. */
static void expected_hash(const char *record, char hex[33]) {
    XXH128_hash_t h = XXH3_128bits(record, strlen(record));
    snprintf(hex, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}

static void expected_path(const char *dir, const char *record, char path[512]) {
    char hex[33];
    expected_hash(record, hex);
    snprintf(path, 512, "%s/%.2s/%s.clpbin", dir, hex, hex + 2);
}

static void put_le(unsigned char *p, unsigned long long v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Writes an entry by hand: header, then `stored_record`, log and binary. */
static void write_entry(const char *path, unsigned version, const char *stored_record,
                        const char *log, const unsigned char *bin, size_t n) {
    size_t r = strlen(stored_record), l = strlen(log), total = HEADER + r + l + n;
    unsigned char *buf = calloc(1, total);
    CLP_ASSERT(buf != NULL);
    memcpy(buf + HEADER, stored_record, r);
    memcpy(buf + HEADER + r, log, l);
    memcpy(buf + HEADER + r + l, bin, n);
    memcpy(buf, "CLPCACHE", 8);
    put_le(buf + 8, version, 4);
    put_le(buf + 16, r, 8);
    put_le(buf + 24, l, 8);
    put_le(buf + 32, n, 8);
    put_le(buf + 40, XXH3_64bits(buf + HEADER, total - HEADER), 8);
    put_le(buf + 48, 1700000000, 8);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    mkdir(dir, 0755);
    write_file(path, buf, total);
    free(buf);
}

static void fill_binary(unsigned char *bin, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++)
        bin[i] = (unsigned char)((i * 2654435761u + seed) >> 13);
}

static clp_cache_stats get_stats(clp_cache *cache) {
    clp_error err = CLP_ERROR_INIT;
    clp_cache_stats stats;
    CLP_ASSERT_OK(clp_cache_stats_get(cache, &stats, &err), &err);
    return stats;
}

/* Loads `record` and checks a hit gives exactly `bin` and `log`. */
static bool load_check(clp_cache *cache, const char *record, const unsigned char *bin, size_t n,
                       const char *log) {
    clp_error err = CLP_ERROR_INIT;
    unsigned char *got = NULL;
    size_t size = 0;
    char *got_log = NULL;
    bool hit = true;
    CLP_ASSERT_OK(clp_cache_load(cache, record, &got, &size, &got_log, &hit, &err), &err);
    if (!hit)
        return false;
    CLP_ASSERT_EQ(size, n);
    CLP_ASSERT(memcmp(got, bin, n) == 0);
    CLP_ASSERT_STR_EQ(got_log, log);
    free(got);
    free(got_log);
    return true;
}

static void store(clp_cache *cache, const char *record, const unsigned char *bin, size_t n,
                  const char *log) {
    clp_error err = CLP_ERROR_INIT;
    CLP_ASSERT_OK(clp_cache_store(cache, record, bin, n, log, &err), &err);
}

static clp_cache *open_cache(const char *dir) {
    clp_error err = CLP_ERROR_INIT;
    clp_cache *cache = NULL;
    CLP_ASSERT_OK(clp_cache_open(dir, &cache, &err), &err);
    CLP_ASSERT(cache != NULL);
    return cache;
}

static const char *source = "#define CLP_CORE_SUMMATION 1\n#line 1 \"cl/common/types.cl\"\n"
                            "kernel void k(global float *x) { x[0] = 1.0f; }\n";

/* ---- Tests */

static void test_key(void) {
    clp_device_info dev;
    make_device(&dev, "Portable Computing Language", "cpu-haswell", "5.0+debian");
    char *record = clp_cache_key_record(source, "-cl-std=CL1.2", &dev);
    char line[512];
    snprintf(line, sizeof line, "clpart: %s\n", clp_version());
    CLP_ASSERT_CONTAINS(record, line);
    CLP_ASSERT_CONTAINS(record, "platform: Portable Computing Language\n");
    CLP_ASSERT_CONTAINS(record, "platform-version: OpenCL 3.0 Portable Computing Language\n");
    CLP_ASSERT_CONTAINS(record, "\ndevice: cpu-haswell\n");
    CLP_ASSERT_CONTAINS(record, "device-version: OpenCL 1.2 cpu-haswell\n");
    CLP_ASSERT_CONTAINS(record, "driver: 5.0+debian\n");
    CLP_ASSERT_CONTAINS(record, "flags: -cl-std=CL1.2\n");
    const char *src = strstr(record, "\nsource:\n");
    CLP_ASSERT(src != NULL);
    CLP_ASSERT_STR_EQ(src + strlen("\nsource:\n"), source);

    char hex[33], want[33];
    clp_cache_key_hash(record, hex);
    expected_hash(record, want);
    CLP_ASSERT_STR_EQ(hex, want);

    /* The same inputs give the same record and hash. */
    char *again = clp_cache_key_record(source, "-cl-std=CL1.2", &dev);
    CLP_ASSERT_STR_EQ(again, record);
    char hex_again[33];
    clp_cache_key_hash(again, hex_again);
    CLP_ASSERT_STR_EQ(hex_again, hex);
    free(again);

    /* Any changed input gives another record and hash. */
    for (int change = 0; change < 7; change++) {
        clp_device_info other = dev;
        const char *src2 = source, *flags2 = "-cl-std=CL1.2";
        switch (change) {
        case 0:
            src2 = "kernel void k(global float *x) { x[0] = 2.0f; }\n";
            break;
        case 1:
            flags2 = "-cl-std=CL1.2 -cl-mad-enable";
            break;
        case 2:
            other.platform_name[0] = 'Q';
            break;
        case 3:
            strcat(other.platform_version, "x");
            break;
        case 4:
            strcat(other.name, "x");
            break;
        case 5:
            strcat(other.device_version, "x");
            break;
        case 6:
            strcat(other.driver_version, "x");
            break;
        }
        char *changed = clp_cache_key_record(src2, flags2, &other);
        char hex2[33];
        clp_cache_key_hash(changed, hex2);
        if (strcmp(changed, record) == 0 || strcmp(hex2, hex) == 0)
            CLP_TEST_FAIL("change %d gives the same record or hash", change);
        free(changed);
    }

    /* A newline in a field cannot fake another field: "source:" stays the one last line. */
    char *tricky = clp_cache_key_record("", "-DX\nsource:", &dev);
    CLP_ASSERT_CONTAINS(tricky, "flags: -DX\\nsource:\n");
    const char *last = strstr(tricky, "\nsource:\n");
    CLP_ASSERT(last != NULL && strcmp(last, "\nsource:\n") == 0);
    free(tricky);
    free(record);
}

static void test_store_load(void) {
    char dir[64];
    make_tmpdir(dir);
    warnings = 0;
    clp_device_info dev;
    make_device(&dev, "Plat", "Dev", "1.0");
    char *record = clp_cache_key_record(source, "", &dev);
    unsigned char bin[10000];
    fill_binary(bin, sizeof bin, 1);
    const char *log = "warning: unused variable\n";

    clp_cache *cache = open_cache(dir);
    CLP_ASSERT(clp_cache_enabled(cache));
    CLP_ASSERT_STR_EQ(clp_cache_dir(cache), dir);
    CLP_ASSERT(!load_check(cache, record, bin, sizeof bin, log));

    time_t t0 = time(NULL);
    store(cache, record, bin, sizeof bin, log);
    time_t t1 = time(NULL);
    char path[512];
    expected_path(dir, record, path);
    CLP_ASSERT_EQ(file_size(path), HEADER + strlen(record) + strlen(log) + sizeof bin);
    CLP_ASSERT(load_check(cache, record, bin, sizeof bin, log));

    /* The header, decoded by hand. */
    size_t n;
    const unsigned char *file = read_whole(path, &n);
    CLP_ASSERT(memcmp(file, "CLPCACHE", 8) == 0);
    unsigned long long v[5]; /* record, log, binary sizes, checksum, created */
    for (int i = 0; i < 5; i++) {
        v[i] = 0;
        for (int b = 7; b >= 0; b--)
            v[i] = v[i] << 8 | file[16 + 8 * i + b];
    }
    CLP_ASSERT_EQ(file[8] | file[9] << 8 | file[10] << 16 | file[11] << 24, 1);
    CLP_ASSERT_EQ(v[0], strlen(record));
    CLP_ASSERT_EQ(v[1], strlen(log));
    CLP_ASSERT_EQ(v[2], sizeof bin);
    CLP_ASSERT(v[3] == XXH3_64bits(file + HEADER, n - HEADER));
    CLP_ASSERT((time_t)v[4] >= t0 && (time_t)v[4] <= t1);
    CLP_ASSERT(memcmp(file + HEADER, record, strlen(record)) == 0);

    /* Another device is another key: a miss. */
    clp_device_info other = dev;
    snprintf(other.driver_version, sizeof other.driver_version, "1.1");
    char *record2 = clp_cache_key_record(source, "", &other);
    CLP_ASSERT(!load_check(cache, record2, bin, sizeof bin, log));
    /* No log is stored as an empty one. */
    store(cache, record2, bin, 100, NULL);
    CLP_ASSERT(load_check(cache, record2, bin, 100, ""));
    char path2[512];
    expected_path(dir, record2, path2);

    /* Counters persist across handles (and processes: they live in a file). */
    clp_cache_stats s = get_stats(cache);
    CLP_ASSERT_EQ(s.hits, 2);
    CLP_ASSERT_EQ(s.misses, 2);
    clp_cache_close(cache);
    cache = open_cache(dir);
    s = get_stats(cache);
    CLP_ASSERT_EQ(s.hits, 2);
    CLP_ASSERT_EQ(s.misses, 2);
    CLP_ASSERT_EQ(s.entries, 2);
    CLP_ASSERT_EQ(s.bytes, file_size(path) + file_size(path2));
    CLP_ASSERT_EQ(s.max_bytes, 1ull << 30);
    CLP_ASSERT(load_check(cache, record, bin, sizeof bin, log));
    CLP_ASSERT_EQ(get_stats(cache).hits, 3);

    /* A hand-written entry in the documented format is a hit. */
    char *record3 = clp_cache_key_record("kernel void h(void) {}\n", "", &dev);
    char path3[512];
    expected_path(dir, record3, path3);
    write_entry(path3, 1, record3, "hand log", bin, 777);
    CLP_ASSERT(load_check(cache, record3, bin, 777, "hand log"));

    CLP_ASSERT_EQ(warnings, 0);
    clp_cache_close(cache);
    free(record);
    free(record2);
    free(record3);
    remove_tree(dir);
}

typedef enum damage {
    TRUNCATE_ONE,
    TRUNCATE_HALF_HEADER,
    APPEND_BYTE,
    FLIP_BINARY_BYTE,
    FOREIGN_FILE,
    OTHER_RECORD,
    OTHER_VERSION,
    DAMAGE_COUNT
} damage;

static void test_damaged(void) {
    static const char *const names[] = {"truncated by one byte", "truncated to half the header",
                                        "one byte appended",     "flipped binary byte",
                                        "foreign file",          "other stored record",
                                        "other format version"};
    char dir[64];
    make_tmpdir(dir);
    clp_device_info dev;
    make_device(&dev, "Plat", "Dev", "1.0");
    char *record = clp_cache_key_record(source, "-DA=1", &dev);
    char path[512];
    expected_path(dir, record, path);
    unsigned char bin[4096];
    fill_binary(bin, sizeof bin, 7);
    clp_cache *cache = open_cache(dir);

    for (int d = 0; d < DAMAGE_COUNT; d++) {
        store(cache, record, bin, sizeof bin, "log");
        long long size = file_size(path);
        switch ((damage)d) {
        case TRUNCATE_ONE:
            CLP_ASSERT(truncate(path, size - 1) == 0);
            break;
        case TRUNCATE_HALF_HEADER:
            CLP_ASSERT(truncate(path, HEADER / 2) == 0);
            break;
        case APPEND_BYTE: {
            FILE *f = fopen(path, "ab");
            CLP_ASSERT(f != NULL && fputc(0, f) == 0 && fclose(f) == 0);
            break;
        }
        case FLIP_BINARY_BYTE: {
            int fd = open(path, O_RDWR);
            unsigned char c;
            CLP_ASSERT(pread(fd, &c, 1, size - 100) == 1);
            c ^= 0x10;
            CLP_ASSERT(pwrite(fd, &c, 1, size - 100) == 1);
            close(fd);
            break;
        }
        case FOREIGN_FILE: {
            static const char text[] = "This is somebody else's file, long enough to have a "
                                       "header's worth of bytes and more.\n";
            write_file(path, text, strlen(text));
            break;
        }
        case OTHER_RECORD: {
            char *other = strdup(record);
            other[strlen(other) - 2] ^= 1;
            write_entry(path, 1, other, "log", bin, sizeof bin);
            free(other);
            break;
        }
        case OTHER_VERSION:
            write_entry(path, 2, record, "log", bin, sizeof bin);
            break;
        case DAMAGE_COUNT:
            break;
        }
        uint64_t misses = get_stats(cache).misses;
        warnings = 0;
        if (load_check(cache, record, bin, sizeof bin, "log"))
            CLP_TEST_FAIL("%s: a hit", names[d]);
        if (warnings != 1)
            CLP_TEST_FAIL("%s: %d warnings, expected 1", names[d], warnings);
        CLP_ASSERT_CONTAINS(last_warning, path);
        if (exists(path))
            CLP_TEST_FAIL("%s: the entry was not removed", names[d]);
        CLP_ASSERT_EQ(get_stats(cache).misses, misses + 1);
        /* A store afterwards gives a valid hit again. */
        store(cache, record, bin, sizeof bin, "log");
        if (!load_check(cache, record, bin, sizeof bin, "log"))
            CLP_TEST_FAIL("%s: no hit after storing again", names[d]);
        CLP_ASSERT_EQ(warnings, 1);
    }
    clp_cache_close(cache);
    free(record);
    remove_tree(dir);
}

/* Opens `dir`, which cannot be used: one warning naming it, a disabled cache that never counts
 * and writes nothing. */
static void check_unusable(const char *dir, const char *watch, int files_in_watch) {
    warnings = 0;
    clp_cache *cache = open_cache(dir);
    CLP_ASSERT_EQ(warnings, 1);
    CLP_ASSERT_CONTAINS(last_warning, dir);
    CLP_ASSERT(!clp_cache_enabled(cache));
    clp_device_info dev;
    make_device(&dev, "Plat", "Dev", "1.0");
    char *record = clp_cache_key_record(source, "", &dev);
    unsigned char bin[64] = {1, 2, 3};
    CLP_ASSERT(!load_check(cache, record, bin, sizeof bin, ""));
    store(cache, record, bin, sizeof bin, "");
    CLP_ASSERT(!load_check(cache, record, bin, sizeof bin, ""));
    clp_cache_stats s = get_stats(cache);
    CLP_ASSERT_EQ(s.hits + s.misses + s.entries, 0);
    CLP_ASSERT_EQ(warnings, 1);
    clp_cache_close(cache);
    free(record);
    /* Nothing was written in the folder that holds it. */
    int files = 0;
    DIR *d = opendir(watch);
    CLP_ASSERT(d != NULL);
    for (struct dirent *e; (e = readdir(d));)
        files += e->d_name[0] != '.';
    closedir(d);
    CLP_ASSERT_EQ(files, files_in_watch);
}

static void test_unusable_folder(void) {
    char tmp[64];
    make_tmpdir(tmp);
    char file[128], under_file[160];
    snprintf(file, sizeof file, "%s/file", tmp);
    snprintf(under_file, sizeof under_file, "%s/cache", file);
    write_file(file, "x", 1);
    check_unusable(under_file, tmp, 1);

    /* Permission bits stop only a non-root user. */
    if (geteuid() != 0) {
        char ro[128], below[160];
        snprintf(ro, sizeof ro, "%s/ro", tmp);
        CLP_ASSERT(mkdir(ro, 0555) == 0);
        check_unusable(ro, ro, 0);
        snprintf(below, sizeof below, "%s/cache", ro);
        check_unusable(below, ro, 0);
        CLP_ASSERT(chmod(ro, 0755) == 0);
    }
    remove_tree(tmp);
}

static void test_eviction(void) {
    char dir[64];
    make_tmpdir(dir);
    warnings = 0;
    clp_device_info dev;
    make_device(&dev, "Plat", "Dev", "1.0");
    unsigned char bin[1000];
    fill_binary(bin, sizeof bin, 3);
    char *records[5];
    char paths[5][512];
    for (int i = 0; i < 5; i++) {
        char src[64];
        snprintf(src, sizeof src, "kernel void k%d(void) {}\n", i);
        records[i] = clp_cache_key_record(src, "", &dev);
        expected_path(dir, records[i], paths[i]);
    }
    clp_cache *cache = open_cache(dir);
    for (int i = 0; i < 3; i++) {
        store(cache, records[i], bin, sizeof bin, "");
        set_mtime(paths[i], 1000 * (i + 1));
    }
    /* A hit makes entry 0 the most recently used. */
    CLP_ASSERT(load_check(cache, records[0], bin, sizeof bin, ""));
    struct stat st;
    CLP_ASSERT(stat(paths[0], &st) == 0);
    CLP_ASSERT(st.st_mtime > 3000);

    /* Entry 3 pushes the total over the cap: entries 1 and 2 (oldest use) must go. */
    long long size3 = HEADER + strlen(records[3]) + sizeof bin;
    long long cap = file_size(paths[0]) + size3 + file_size(paths[1]) / 2;
    clp_cache_set_max_bytes(cache, (uint64_t)cap);
    store(cache, records[3], bin, sizeof bin, "");
    CLP_ASSERT(exists(paths[0]));
    CLP_ASSERT(!exists(paths[1]));
    CLP_ASSERT(!exists(paths[2]));
    CLP_ASSERT(exists(paths[3]));
    CLP_ASSERT_EQ(file_size(paths[3]), size3);
    CLP_ASSERT_EQ(warnings, 0);
    CLP_ASSERT(get_stats(cache).bytes <= (uint64_t)cap);

    /* An entry larger than the cap alone is not kept, with one warning; others stay. */
    clp_cache_set_max_bytes(cache, 500);
    store(cache, records[4], bin, sizeof bin, "");
    CLP_ASSERT_EQ(warnings, 1);
    CLP_ASSERT_CONTAINS(last_warning, "cap");
    CLP_ASSERT(!exists(paths[4]));
    CLP_ASSERT(exists(paths[0]));
    CLP_ASSERT(exists(paths[3]));

    /* The entry just stored stays even when every other one was used later. */
    set_mtime(paths[0], time(NULL) + 100000);
    set_mtime(paths[3], time(NULL) + 100000);
    long long size1 = HEADER + strlen(records[1]) + sizeof bin;
    clp_cache_set_max_bytes(cache, (uint64_t)(file_size(paths[0]) + size3 + size1 - 1));
    store(cache, records[1], bin, sizeof bin, "");
    CLP_ASSERT(exists(paths[1]));
    CLP_ASSERT_EQ(exists(paths[0]) + exists(paths[3]), 1);
    CLP_ASSERT_EQ(warnings, 1);

    clp_cache_close(cache);
    for (int i = 0; i < 5; i++)
        free(records[i]);
    remove_tree(dir);
}

static void test_cap_from_env(void) {
    static const struct {
        const char *text;
        unsigned long long bytes;
        int warnings;
    } cases[] = {
        {"8K", 8192, 0},
        {"3M", 3ull << 20, 0},
        {"2g", 2ull << 30, 0},
        {"12345", 12345, 0},
        {"junk", 1ull << 30, 1},
        {"10X", 1ull << 30, 1},
        {"0", 1ull << 30, 1},
        {"-5", 1ull << 30, 1},
        {"5KB", 1ull << 30, 1},
        {"99999999999999999999", 1ull << 30, 1},
        {"17179869184G", 1ull << 30, 1},
    };
    char dir[64];
    make_tmpdir(dir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("CLPART_CACHE_MAX", cases[i].text, 1);
        warnings = 0;
        clp_cache *cache = open_cache(dir);
        if (get_stats(cache).max_bytes != cases[i].bytes || warnings != cases[i].warnings)
            CLP_TEST_FAIL("CLPART_CACHE_MAX=%s: cap %llu with %d warnings", cases[i].text,
                          (unsigned long long)get_stats(cache).max_bytes, warnings);
        clp_cache_close(cache);
    }
    unsetenv("CLPART_CACHE_MAX");
    remove_tree(dir);
}

static void test_list_clear(void) {
    char dir[64];
    make_tmpdir(dir);
    warnings = 0;
    unsigned char bin[2000];
    fill_binary(bin, sizeof bin, 5);
    char *records[3];
    char paths[3][512];
    static const time_t mtimes[3] = {1000, 3000, 2000};
    clp_cache *cache = open_cache(dir);
    time_t t0 = time(NULL);
    for (int i = 0; i < 3; i++) {
        clp_device_info dev;
        char platform[32], name[32], driver[32];
        snprintf(platform, sizeof platform, "Platform %d", i);
        snprintf(name, sizeof name, "Device %d", i);
        snprintf(driver, sizeof driver, "%d.0", i);
        make_device(&dev, platform, name, driver);
        records[i] = clp_cache_key_record(source, "", &dev);
        expected_path(dir, records[i], paths[i]);
        store(cache, records[i], bin, 500u * (i + 1), "log");
        set_mtime(paths[i], mtimes[i]);
    }
    time_t t1 = time(NULL);
    CLP_ASSERT(!load_check(cache, source, bin, sizeof bin, "")); /* creates the counters */

    /* A foreign file under an entry's name is listed as invalid, and last (oldest use). */
    char foreign_leaf[512], foreign[600];
    snprintf(foreign_leaf, sizeof foreign_leaf, "%s/00", dir);
    mkdir(foreign_leaf, 0755);
    snprintf(foreign, sizeof foreign, "%s/%030d.clpbin", foreign_leaf, 0);
    write_file(foreign, "not an entry", 12);
    set_mtime(foreign, 500);
    /* Files the cache did not make, and a temporary it did. */
    char notes[128], other_dir[128], other_file[160], leaf_file[512], temp[600];
    snprintf(notes, sizeof notes, "%s/notes.txt", dir);
    write_file(notes, "keep", 4);
    snprintf(other_dir, sizeof other_dir, "%s/zz", dir);
    CLP_ASSERT(mkdir(other_dir, 0755) == 0);
    snprintf(other_file, sizeof other_file, "%s/keep.clpbin", other_dir);
    write_file(other_file, "keep", 4);
    snprintf(leaf_file, sizeof leaf_file, "%.*s/README", (int)(strrchr(paths[0], '/') - paths[0]),
             paths[0]);
    write_file(leaf_file, "keep", 4);
    snprintf(temp, sizeof temp, "%s.tmp-a1b2c3", paths[1]);
    write_file(temp, "partial", 7);

    clp_error err = CLP_ERROR_INIT;
    clp_cache_entry *entries = NULL;
    size_t count = 0;
    CLP_ASSERT_OK(clp_cache_list(cache, &entries, &count, &err), &err);
    CLP_ASSERT_EQ(count, 4);
    static const int order[3] = {1, 2, 0};
    for (int k = 0; k < 3; k++) {
        int i = order[k];
        const clp_cache_entry *e = &entries[k];
        CLP_ASSERT_STR_EQ(e->path, paths[i]);
        CLP_ASSERT_EQ(e->bytes, file_size(paths[i]));
        CLP_ASSERT_EQ(e->last_used, mtimes[i]);
        CLP_ASSERT(e->created >= t0 && e->created <= t1);
        char device[128];
        snprintf(device, sizeof device, "Platform %d / Device %d / %d.0", i, i, i);
        CLP_ASSERT_STR_EQ(e->device, device);
    }
    CLP_ASSERT_STR_EQ(entries[3].path, foreign);
    CLP_ASSERT_EQ(entries[3].created, -1);
    CLP_ASSERT_CONTAINS(entries[3].device, "<invalid: ");
    free(entries);

    clp_cache_stats s = get_stats(cache);
    CLP_ASSERT_EQ(s.entries, 4);
    CLP_ASSERT_EQ(s.misses, 1);

    CLP_ASSERT_OK(clp_cache_clear(cache, &err), &err);
    CLP_ASSERT_OK(clp_cache_list(cache, &entries, &count, &err), &err);
    CLP_ASSERT_EQ(count, 0);
    free(entries);
    s = get_stats(cache);
    CLP_ASSERT_EQ(s.entries + s.bytes + s.hits + s.misses, 0);
    for (int i = 0; i < 3; i++)
        CLP_ASSERT(!exists(paths[i]));
    CLP_ASSERT(!exists(foreign));
    CLP_ASSERT(!exists(temp));
    char stats_file[512];
    snprintf(stats_file, sizeof stats_file, "%s/stats", dir);
    CLP_ASSERT(!exists(stats_file));
    CLP_ASSERT(exists(notes));
    CLP_ASSERT(exists(other_file));
    CLP_ASSERT(exists(leaf_file));
    /* Leaf folders left empty are gone; the one holding README stays. */
    for (int i = 1; i < 3; i++) {
        char leaf[512];
        snprintf(leaf, sizeof leaf, "%.*s", (int)(strrchr(paths[i], '/') - paths[i]), paths[i]);
        if (strncmp(leaf, leaf_file, strlen(leaf)) != 0)
            CLP_ASSERT(!exists(leaf));
    }
    CLP_ASSERT_EQ(warnings, 0);
    clp_cache_close(cache);
    for (int i = 0; i < 3; i++)
        free(records[i]);
    remove_tree(dir);
}

static void check_default_dir(const char *expected, bool enabled) {
    warnings = 0;
    clp_cache *cache = open_cache(NULL);
    CLP_ASSERT_STR_EQ(clp_cache_dir(cache), expected);
    CLP_ASSERT(clp_cache_enabled(cache) == enabled);
    CLP_ASSERT_EQ(warnings, enabled ? 0 : 1);
    if (enabled) {
        struct stat st;
        CLP_ASSERT(stat(expected, &st) == 0 && S_ISDIR(st.st_mode));
    }
    clp_cache_close(cache);
}

static void test_folder_choice(void) {
    char tmp[64];
    make_tmpdir(tmp);
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char want[256], arg[256];

    snprintf(want, sizeof want, "%s/env/a/b", tmp);
    setenv("CLPART_CACHE_DIR", want, 1);
    setenv("XDG_CACHE_HOME", "/nonexistent-xdg", 1);
    check_default_dir(want, true);

    /* An argument wins over the environment; trailing slashes are dropped. */
    snprintf(arg, sizeof arg, "%s/arg//", tmp);
    clp_cache *cache = open_cache(arg);
    snprintf(want, sizeof want, "%s/arg", tmp);
    CLP_ASSERT_STR_EQ(clp_cache_dir(cache), want);
    clp_cache_close(cache);

    unsetenv("CLPART_CACHE_DIR");
    snprintf(want, sizeof want, "%s/xdg", tmp);
    setenv("XDG_CACHE_HOME", want, 1);
    snprintf(want, sizeof want, "%s/xdg/clpart", tmp);
    check_default_dir(want, true);

    unsetenv("XDG_CACHE_HOME");
    snprintf(want, sizeof want, "%s/home", tmp);
    setenv("HOME", want, 1);
    snprintf(want, sizeof want, "%s/home/.cache/clpart", tmp);
    check_default_dir(want, true);

    unsetenv("HOME");
    check_default_dir("", false);

    if (home)
        setenv("HOME", home, 1);
    free(home);
    remove_tree(tmp);
}

int main(void) {
    unsetenv("CLPART_CACHE_MAX");
    clp_log_set_sink(count_warnings, NULL);
    test_key();
    test_store_load();
    test_damaged();
    test_unusable_folder();
    test_eviction();
    test_cap_from_env();
    test_list_clear();
    test_folder_choice();
    return 0;
}

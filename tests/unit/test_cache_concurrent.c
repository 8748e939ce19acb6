/* Concurrency test of the program binary cache: processes store and load one multi-megabyte
 * entry at the same time. Every load is a miss or a complete, identical hit; the counters
 * add up; one valid entry remains. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "test.h"

#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { CHILDREN = 8, PAYLOAD = 3 << 20 };
#define RUN_SECONDS  1.5 /* each child's busy time */
#define WAIT_SECONDS 8.0 /* a loader that has seen no hit yet keeps trying this long */

static const char *log_text = "build log: 0 warnings\n";
static int warnings;

static void count_warnings(clp_log_level level, unsigned category, const char *text, void *user) {
    (void)category, (void)user;
    if (level == CLP_LOG_WARN) {
        warnings++;
        fprintf(stderr, "child %d: warning: %s\n", (int)getpid(), text);
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fill_payload(unsigned char *p) {
    unsigned x = 12345;
    for (size_t i = 0; i < PAYLOAD; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        p[i] = (unsigned char)x;
    }
}

/* What each child reports back through the pipe. */
typedef struct report {
    unsigned long long hits, misses;
} report;

/* Even children store and load; odd ones only load. Exit 0 when every load was a miss or an
 * exact hit and nothing was warned about. */
static int child(int id, const char *dir, const char *record, const unsigned char *payload,
                 int out) {
    clp_log_set_sink(count_warnings, NULL);
    clp_error err = CLP_ERROR_INIT;
    clp_cache *cache = NULL;
    if (clp_cache_open(dir, &cache, &err) != CLP_OK || !clp_cache_enabled(cache))
        return 2;
    report r = {0, 0};
    double start = now();
    while (now() - start < RUN_SECONDS || (r.hits == 0 && now() - start < WAIT_SECONDS)) {
        if (id % 2 == 0 &&
            clp_cache_store(cache, record, payload, PAYLOAD, log_text, &err) != CLP_OK)
            return 3;
        unsigned char *bin = NULL;
        size_t size = 0;
        char *log = NULL;
        bool hit = false;
        if (clp_cache_load(cache, record, &bin, &size, &log, &hit, &err) != CLP_OK)
            return 4;
        if (hit) {
            if (size != PAYLOAD || memcmp(bin, payload, PAYLOAD) != 0 ||
                strcmp(log, log_text) != 0) {
                fprintf(stderr, "child %d: partial or wrong hit (%zu bytes)\n", id, size);
                return 5;
            }
            r.hits++;
        } else {
            r.misses++;
        }
        free(bin);
        free(log);
    }
    clp_cache_close(cache);
    if (r.hits == 0)
        return 6;
    if (write(out, &r, sizeof r) != (ssize_t)sizeof r)
        return 7;
    return warnings ? 8 : 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

/* Counts the files under the cache's two folder levels: entries and anything else. */
static void count_files(const char *dir, int *entries, int *others) {
    *entries = *others = 0;
    DIR *root = opendir(dir);
    CLP_ASSERT(root != NULL);
    for (struct dirent *e; (e = readdir(root));) {
        if (strlen(e->d_name) != 2 || e->d_name[0] == '.')
            continue;
        char leaf[512];
        snprintf(leaf, sizeof leaf, "%s/%s", dir, e->d_name);
        DIR *d = opendir(leaf);
        CLP_ASSERT(d != NULL);
        for (struct dirent *f; (f = readdir(d));) {
            if (f->d_name[0] == '.')
                continue;
            size_t n = strlen(f->d_name);
            if (n == 37 && strcmp(f->d_name + 30, ".clpbin") == 0)
                ++*entries;
            else
                ++*others;
        }
        closedir(d);
    }
    closedir(root);
}

int main(void) {
    unsetenv("CLPART_CACHE_MAX");
    char dir[] = "/tmp/clpart-test-cache-concurrent-XXXXXX";
    CLP_ASSERT(mkdtemp(dir) != NULL);
    clp_device_info dev = {0};
    snprintf(dev.platform_name, sizeof dev.platform_name, "Plat");
    snprintf(dev.name, sizeof dev.name, "Dev");
    snprintf(dev.driver_version, sizeof dev.driver_version, "1.0");
    char *record = clp_cache_key_record("kernel void k(void) {}\n", "-cl-std=CL1.2", &dev);
    unsigned char *payload = malloc(PAYLOAD);
    CLP_ASSERT(record != NULL && payload != NULL);
    fill_payload(payload);

    int fds[2];
    CLP_ASSERT(pipe(fds) == 0);
    pid_t pids[CHILDREN];
    for (int i = 0; i < CHILDREN; i++) {
        pids[i] = fork();
        CLP_ASSERT(pids[i] >= 0);
        if (pids[i] == 0) {
            close(fds[0]);
            _exit(child(i, dir, record, payload, fds[1]));
        }
    }
    close(fds[1]);
    for (int i = 0; i < CHILDREN; i++) {
        int status;
        CLP_ASSERT(waitpid(pids[i], &status, 0) == pids[i]);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            CLP_TEST_FAIL("child %d failed: status %d", i, status);
    }
    unsigned long long hits = 0, misses = 0;
    report r;
    for (int i = 0; i < CHILDREN; i++) {
        CLP_ASSERT(read(fds[0], &r, sizeof r) == (ssize_t)sizeof r);
        hits += r.hits;
        misses += r.misses;
    }
    close(fds[0]);

    /* Exactly one entry and no temporary is left, and it is a valid hit. */
    int entries, others;
    count_files(dir, &entries, &others);
    CLP_ASSERT_EQ(entries, 1);
    CLP_ASSERT_EQ(others, 0);
    clp_error err = CLP_ERROR_INIT;
    clp_cache *cache = NULL;
    CLP_ASSERT_OK(clp_cache_open(dir, &cache, &err), &err);
    /* The counters were updated by every process without losing one. */
    clp_cache_stats stats;
    CLP_ASSERT_OK(clp_cache_stats_get(cache, &stats, &err), &err);
    CLP_ASSERT_EQ(stats.hits, hits);
    CLP_ASSERT_EQ(stats.misses, misses);
    CLP_ASSERT_EQ(stats.entries, 1);
    unsigned char *bin = NULL;
    size_t size = 0;
    char *log = NULL;
    bool hit = false;
    CLP_ASSERT_OK(clp_cache_load(cache, record, &bin, &size, &log, &hit, &err), &err);
    CLP_ASSERT(hit);
    CLP_ASSERT_EQ(size, PAYLOAD);
    CLP_ASSERT(memcmp(bin, payload, PAYLOAD) == 0);
    CLP_ASSERT_STR_EQ(log, log_text);
    printf("%llu hits, %llu misses in %d processes\n", hits, misses, CHILDREN);

    free(bin);
    free(log);
    clp_cache_close(cache);
    free(payload);
    free(record);
    CLP_ASSERT(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0);
    return 0;
}

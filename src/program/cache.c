/* The program binary cache's folder: choosing and checking it, entry paths, hit and miss
 * counters shared between processes, lookups, stores, eviction above the size cap, listing
 * and clearing. The entry file format is in cache_file.c, the key in cache_key.c. */
#include "cache_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_MAX_BYTES ((uint64_t)1 << 30)

struct clp_cache {
    char *dir;          /* no trailing slash; "" when nothing names a folder */
    bool enabled;       /* false: loads miss without counting, stores do nothing */
    char *unusable;     /* why a named folder cannot be used, new; NULL when it can */
    uint64_t max_bytes; /* size cap on the sum of entry file sizes */
    /* A failing counter file is reported once per handle; atomic because threads may share
     * the handle (the rest is only read after clp_cache_open and clp_cache_set_max_bytes). */
    atomic_bool stats_warned;
};

/* ---- Opening */

static uint64_t max_bytes_from_env(void) {
    const char *text = getenv("CLPART_CACHE_MAX");
    uint64_t value;
    if (!text || !*text)
        return DEFAULT_MAX_BYTES;
    if (clp__parse_size(text, &value))
        return value;
    CLP_WARN(CLP_LOG_CACHE,
             "CLPART_CACHE_MAX=\"%s\" is not a size (a positive number of bytes with an "
             "optional K, M or G suffix); the cache cap stays at 1 GiB",
             text);
    return DEFAULT_MAX_BYTES;
}

/* The folder: `dir`, else $CLPART_CACHE_DIR, else $XDG_CACHE_HOME/clpart, else
 * $HOME/.cache/clpart, without trailing slashes. New; "" when nothing names one, NULL when out
 * of memory. */
static char *choose_dir(const char *dir) {
    clp_strbuf sb = {0};
    const char *env;
    if (dir && *dir)
        clp__sb_append(&sb, dir);
    else if ((env = getenv("CLPART_CACHE_DIR")) && *env)
        clp__sb_append(&sb, env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        clp__sb_appendf(&sb, "%s/clpart", env);
    else if ((env = getenv("HOME")) && *env)
        clp__sb_appendf(&sb, "%s/.cache/clpart", env);
    while (sb.len > 1 && sb.data[sb.len - 1] == '/')
        sb.data[--sb.len] = '\0';
    return clp__sb_take(&sb);
}

/* The Cache Directory Tagging Specification's tag (bford.info/cachedir), with clpart named:
 * backup tools skip the folder, and clpart writes only into a folder that holds its tag. */
static const char tag_name[] = "CACHEDIR.TAG";
static const char tag_text[] = "Signature: 8a477f597d28d172789f06886806bc55\n"
                               "# This file is a cache directory tag created by clpart.\n"
                               "# For information about cache directory tags, see:\n"
                               "#\thttps://bford.info/cachedir/\n";

static bool is_lower_hex(const char *s, size_t n);
static bool stats_read_fd(int fd, uint64_t *hits, uint64_t *misses, bool *malformed);

/* Whether `name` in the cache folder `dir` is one clpart makes: an entry's leaf folder (two
 * hex digits), a writability probe, its tag, its counters (a file "stats" that reads as them:
 * a user's own file of that name does not). */
static bool own_name(const char *dir, const char *name) {
    if (!strcmp(name, ".") || !strcmp(name, "..") || (is_lower_hex(name, 2) && !name[2]) ||
        !strncmp(name, ".probe-", 7) || !strcmp(name, tag_name)) /* another clpart's, just now */
        return true;
    if (strcmp(name, "stats") != 0)
        return false;
    char path[CLP__CACHE_PATH_MAX];
    snprintf(path, sizeof path, "%s/stats", dir);
    const int fd = open(path, O_RDONLY);
    uint64_t hits, misses;
    bool malformed = true;
    const bool read = fd >= 0 && stats_read_fd(fd, &hits, &misses, &malformed);
    if (fd >= 0)
        close(fd);
    return read && !malformed;
}

/* Whether the folder is clpart's: it holds clpart's tag, or holds nothing clpart did not make
 * (a new folder, or one of a clpart before the tag), and then gets the tag. A user's folder
 * given by mistake is left alone: `cache clear` would remove a file of it named "stats". */
static bool folder_claimed(const char *dir, char *why, size_t why_size) {
    char path[CLP__CACHE_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, tag_name);
    char held[sizeof tag_text] = "";
    FILE *tag = fopen(path, "rb");
    if (tag) {
        const size_t n = fread(held, 1, sizeof held - 1, tag);
        fclose(tag);
        held[n] = '\0';
        if (strstr(held, "created by clpart"))
            return true;
        snprintf(why, why_size, "it is another program's cache (its %s does not name clpart)",
                 tag_name);
        return false;
    }
    DIR *d = opendir(dir);
    const struct dirent *e = NULL;
    while (d && (e = readdir(d)) && own_name(dir, e->d_name)) {
    }
    if (d && e) {
        snprintf(why, why_size,
                 "it holds files clpart did not make (such as '%.64s') and no %s of clpart's: "
                 "give clpart a folder of its own",
                 e->d_name, tag_name);
        closedir(d);
        return false;
    }
    if (d)
        closedir(d);
    /* written whole under another name, then renamed: two processes claiming a new folder
       at once each put the same tag in place, and neither reads half of one */
    char temporary[CLP__CACHE_PATH_MAX];
    snprintf(temporary, sizeof temporary, "%s/.probe-tag-XXXXXX", dir);
    const int fd = mkstemp(temporary);
    const size_t length = sizeof tag_text - 1;
    const bool written = fd >= 0 && write(fd, tag_text, length) == (ssize_t)length;
    if ((fd >= 0 && close(fd) != 0) || !written || rename(temporary, path) != 0) {
        snprintf(why, why_size, "cannot write %s in it: %s", tag_name, strerror(errno));
        if (fd >= 0)
            unlink(temporary);
        return false;
    }
    return true;
}

/* Whether entries can be written under `dir`: short enough, created, writable, a probe file can
 * really be made (permission bits do not stop root, a read-only mount does), and clpart's. */
static bool folder_usable(char *dir, char *why, size_t why_size) {
    size_t longest = strlen("/ab/") + 30 + strlen(CLP__CACHE_SUFFIX CLP__CACHE_TMP_SUFFIX);
    if (strlen(dir) + longest >= CLP__CACHE_PATH_MAX) {
        snprintf(why, why_size, "the path is longer than %zu characters",
                 CLP__CACHE_PATH_MAX - 1 - longest);
        return false;
    }
    if (!clp__make_dirs(dir, why, why_size))
        return false;
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(why, why_size, "not writable: %s", strerror(errno));
        return false;
    }
    char probe[CLP__CACHE_PATH_MAX];
    snprintf(probe, sizeof probe, "%s/.probe-XXXXXX", dir);
    int fd = mkstemp(probe);
    if (fd < 0) {
        snprintf(why, why_size, "cannot create a file in it: %s", strerror(errno));
        return false;
    }
    close(fd);
    unlink(probe);
    return folder_claimed(dir, why, why_size);
}

clp_status clp_cache_open(const char *dir, clp_cache **out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_cache *cache = calloc(1, sizeof *cache);
    CLP_REQUIRE_ALLOC(cache, err);
    cache->dir = choose_dir(dir);
    CLP_REQUIRE_ALLOC(cache->dir, err);
    cache->max_bytes = max_bytes_from_env();
    char why[CLP__CACHE_PATH_MAX + 128];
    if (!cache->dir[0])
        CLP_WARN(CLP_LOG_CACHE, "no cache folder: none was given and CLPART_CACHE_DIR, "
                                "XDG_CACHE_HOME and HOME are unset; the binary cache is off");
    else if (!(cache->enabled = folder_usable(cache->dir, why, sizeof why))) {
        CLP_WARN(CLP_LOG_CACHE, "cache folder %s cannot be used (%s); the binary cache is off",
                 cache->dir, why);
        cache->unusable = strdup(why);
    }
    *out = cache;
    return CLP_OK;
fail:
    clp_cache_close(cache);
    return st;
}

void clp_cache_close(clp_cache *cache) {
    if (!cache)
        return;
    free(cache->dir);
    free(cache->unusable);
    free(cache);
}

bool clp_cache_enabled(const clp_cache *cache) {
    return cache->enabled;
}

const char *clp_cache_dir(const clp_cache *cache) {
    return cache->dir;
}

void clp_cache_set_max_bytes(clp_cache *cache, uint64_t max_bytes) {
    cache->max_bytes = max_bytes;
}

/* ---- Hit and miss counters: "<dir>/stats", text, updated under an exclusive flock */

static void stats_path(const clp_cache *cache, char path[CLP__CACHE_PATH_MAX]) {
    snprintf(path, CLP__CACHE_PATH_MAX, "%s/stats", cache->dir);
}

/* Reads the counters from the open, locked file; an empty or malformed file counts zero. */
static bool stats_read_fd(int fd, uint64_t *hits, uint64_t *misses, bool *malformed) {
    char text[128];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    if (n < 0)
        return false;
    text[n] = '\0';
    *malformed = n > 0 && sscanf(text, "hits %" SCNu64 " misses %" SCNu64, hits, misses) != 2;
    if (n == 0 || *malformed)
        *hits = *misses = 0;
    return true;
}

static void stats_count(clp_cache *cache, bool hit) {
    char path[CLP__CACHE_PATH_MAX];
    stats_path(cache, path);
    const char *step = "open";
    uint64_t hits, misses;
    bool malformed;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        goto fail;
    step = "lock";
    if (flock(fd, LOCK_EX) != 0)
        goto fail;
    step = "read";
    if (!stats_read_fd(fd, &hits, &misses, &malformed))
        goto fail;
    if (malformed)
        CLP_WARN(CLP_LOG_CACHE, "cache counters %s are malformed; counting from zero", path);
    *(hit ? &hits : &misses) += 1;
    char text[128];
    int n = snprintf(text, sizeof text, "hits %" PRIu64 "\nmisses %" PRIu64 "\n", hits, misses);
    step = "write";
    ssize_t written = pwrite(fd, text, (size_t)n, 0);
    if (written >= 0 && written != n)
        errno = EIO;
    if (written != n || ftruncate(fd, n) != 0)
        goto fail;
    close(fd);
    return;
fail:
    if (!atomic_exchange(&cache->stats_warned, true))
        CLP_WARN(CLP_LOG_CACHE, "cannot count a cache %s in %s: %s failed: %s",
                 hit ? "hit" : "miss", path, step, strerror(errno));
    if (fd >= 0)
        close(fd);
}

static clp_status stats_read(const clp_cache *cache, uint64_t *hits, uint64_t *misses,
                             clp_error *err) {
    char path[CLP__CACHE_PATH_MAX];
    stats_path(cache, path);
    *hits = *misses = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return CLP_OK;
    bool malformed;
    bool ok = fd >= 0 && flock(fd, LOCK_SH) == 0 && stats_read_fd(fd, hits, misses, &malformed);
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (!ok)
        return CLP_FAIL(err, CLP_IO, "cannot read cache counters %s: %s", path, strerror(saved));
    return CLP_OK;
}

/* ---- Walking the two folder levels */

typedef enum name_kind { NAME_OTHER, NAME_ENTRY, NAME_TEMP } name_kind;

static bool is_lower_hex(const char *s, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!s[i] || !strchr("0123456789abcdef", s[i]))
            return false;
    return true;
}

/* Only names the cache itself makes are ever touched: "<30 hex>.clpbin" and its temporaries. */
static name_kind classify(const char *name) {
    static const char tmp_prefix[] = CLP__CACHE_SUFFIX ".tmp-";
    if (!is_lower_hex(name, 30))
        return NAME_OTHER;
    const char *rest = name + 30;
    if (strcmp(rest, CLP__CACHE_SUFFIX) == 0)
        return NAME_ENTRY;
    if (strlen(rest) == strlen(CLP__CACHE_SUFFIX CLP__CACHE_TMP_SUFFIX) &&
        strncmp(rest, tmp_prefix, strlen(tmp_prefix)) == 0)
        return NAME_TEMP;
    return NAME_OTHER;
}

typedef clp_status (*visit_fn)(const char *path, name_kind kind, const struct stat *st, void *user,
                               clp_error *err);

static clp_status walk_leaf(const char *leaf, visit_fn visit, void *user, clp_error *err) {
    DIR *d = opendir(leaf);
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR)
            return CLP_OK;
        return CLP_FAIL(err, CLP_IO, "cannot read cache folder %s: %s", leaf, strerror(errno));
    }
    clp_status st = CLP_OK;
    struct dirent *e;
    while (st == CLP_OK && (e = readdir(d))) {
        name_kind kind = classify(e->d_name);
        if (kind == NAME_OTHER)
            continue;
        char path[CLP__CACHE_PATH_MAX];
        int n = snprintf(path, sizeof path, "%s/%s", leaf, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path) /* the folder's length is checked at open */
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) /* ENOENT: another process removed it meanwhile */
                st = CLP_FAIL(err, CLP_IO, "cannot stat %s: %s", path, strerror(errno));
            continue;
        }
        if (S_ISREG(sb.st_mode))
            st = visit(path, kind, &sb, user, err);
    }
    closedir(d);
    return st;
}

/* Calls `visit` for every entry and temporary file under `dir`; with `prune`, then removes
 * each leaf folder that became empty. */
static clp_status walk(const char *dir, bool prune, visit_fn visit, void *user, clp_error *err) {
    DIR *d = opendir(dir);
    if (!d) {
        if (errno == ENOENT)
            return CLP_OK;
        return CLP_FAIL(err, CLP_IO, "cannot read cache folder %s: %s", dir, strerror(errno));
    }
    clp_status st = CLP_OK;
    struct dirent *e;
    while (st == CLP_OK && (e = readdir(d))) {
        if (!is_lower_hex(e->d_name, 2) || e->d_name[2])
            continue;
        char leaf[CLP__CACHE_PATH_MAX];
        snprintf(leaf, sizeof leaf, "%s/%s", dir, e->d_name);
        st = walk_leaf(leaf, visit, user, err);
        if (st == CLP_OK && prune && rmdir(leaf) != 0 && errno != ENOTEMPTY && errno != EEXIST &&
            errno != ENOENT && errno != ENOTDIR)
            st = CLP_FAIL(err, CLP_IO, "cannot remove %s: %s", leaf, strerror(errno));
    }
    closedir(d);
    return st;
}

typedef struct item {
    char path[CLP__CACHE_PATH_MAX];
    uint64_t bytes;
    struct timespec mtime; /* last use */
} item;

typedef struct item_list {
    item *v;
    size_t n, cap;
    uint64_t bytes;
} item_list;

static clp_status add_item(const char *path, name_kind kind, const struct stat *st, void *user,
                           clp_error *err) {
    item_list *list = user;
    if (kind != NAME_ENTRY)
        return CLP_OK;
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 64;
        item *v = realloc(list->v, cap * sizeof *v);
        if (!v)
            return CLP_FAIL(err, CLP_NOMEM, "out of host memory listing the cache");
        list->v = v;
        list->cap = cap;
    }
    item *it = &list->v[list->n++];
    snprintf(it->path, sizeof it->path, "%s", path);
    it->bytes = (uint64_t)st->st_size;
    it->mtime = st->st_mtim;
    list->bytes += it->bytes;
    return CLP_OK;
}

/* Least recently used first; equal times in path order, so the order is reproducible. */
static int by_last_use(const void *pa, const void *pb) {
    const item *a = pa, *b = pb;
    if (a->mtime.tv_sec != b->mtime.tv_sec)
        return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
    if (a->mtime.tv_nsec != b->mtime.tv_nsec)
        return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : 1;
    return strcmp(a->path, b->path);
}

/* Every entry, least recently used first. */
static clp_status collect(const clp_cache *cache, item_list *list, clp_error *err) {
    clp_status st = walk(cache->dir, false, add_item, list, err);
    if (st == CLP_OK && list->n > 1)
        qsort(list->v, list->n, sizeof *list->v, by_last_use);
    return st;
}

/* ---- Lookups and stores */

static void entry_path(const clp_cache *cache, const char *hex, char path[CLP__CACHE_PATH_MAX]) {
    snprintf(path, CLP__CACHE_PATH_MAX, "%s/%.2s/%s" CLP__CACHE_SUFFIX, cache->dir, hex, hex + 2);
}

clp_status clp_cache_load(clp_cache *cache, const char *record, unsigned char **binary,
                          size_t *size, char **log, bool *hit, clp_error *err) {
    *hit = false;
    if (!cache->enabled)
        return CLP_OK;
    char hex[33], path[CLP__CACHE_PATH_MAX];
    clp_cache_key_hash(record, hex);
    entry_path(cache, hex, path);
    clp_status st = clp__cache_file_load(path, record, binary, size, log, hit, err);
    if (st != CLP_OK)
        return st;
    CLP_DEBUG(CLP_LOG_CACHE, "cache %s: %s", *hit ? "hit" : "miss", path);
    stats_count(cache, *hit);
    return CLP_OK;
}

/* Removes least recently used entries until the total fits the cap, never `keep`. */
static void evict(const clp_cache *cache, const char *keep) {
    clp_error err = CLP_ERROR_INIT;
    item_list list = {0};
    if (collect(cache, &list, &err) != CLP_OK) {
        CLP_WARN(CLP_LOG_CACHE, "cache size cap not enforced: %s", err.message);
        free(list.v);
        return;
    }
    uint64_t total = list.bytes;
    for (size_t i = 0; i < list.n && total > cache->max_bytes; i++) {
        const item *it = &list.v[i];
        if (strcmp(it->path, keep) == 0)
            continue;
        if (unlink(it->path) != 0 && errno != ENOENT) {
            CLP_WARN(CLP_LOG_CACHE, "cannot evict cache entry %s: %s", it->path, strerror(errno));
            continue;
        }
        CLP_DEBUG(CLP_LOG_CACHE, "evicted %s (%" PRIu64 " bytes): cache above %" PRIu64 " bytes",
                  it->path, it->bytes, cache->max_bytes);
        total -= it->bytes;
    }
    free(list.v);
}

clp_status clp_cache_store(clp_cache *cache, const char *record, const unsigned char *binary,
                           size_t size, const char *log, clp_error *err) {
    (void)err; /* storing can only warn */
    if (!cache->enabled)
        return CLP_OK;
    if (!log)
        log = "";
    char hex[33], path[CLP__CACHE_PATH_MAX];
    clp_cache_key_hash(record, hex);
    entry_path(cache, hex, path);
    uint64_t bytes = CLP__CACHE_HEADER_SIZE + strlen(record) + strlen(log) + (uint64_t)size;
    if (bytes > cache->max_bytes) {
        CLP_WARN(CLP_LOG_CACHE,
                 "cache entry %s not stored: its %" PRIu64 " bytes alone exceed the cache "
                 "cap of %" PRIu64 " bytes",
                 path, bytes, cache->max_bytes);
        return CLP_OK;
    }
    char leaf[CLP__CACHE_PATH_MAX];
    snprintf(leaf, sizeof leaf, "%s/%.2s", cache->dir, hex);
    if (mkdir(leaf, 0755) != 0 && errno != EEXIST) {
        CLP_WARN(CLP_LOG_CACHE, "cache entry %s not stored: mkdir %s: %s", path, leaf,
                 strerror(errno));
        return CLP_OK;
    }
    if (!clp__cache_file_write(path, record, log, binary, size))
        return CLP_OK;
    CLP_DEBUG(CLP_LOG_CACHE, "stored %s (%" PRIu64 " bytes)", path, bytes);
    evict(cache, path);
    return CLP_OK;
}

/* ---- Listing and clearing */

clp_status clp_cache_stats_get(clp_cache *cache, clp_cache_stats *out, clp_error *err) {
    clp_status st = CLP_OK;
    clp_cache_stats stats = {.max_bytes = cache->max_bytes};
    item_list list = {0};
    if (cache->enabled) {
        CLP_TRY(walk(cache->dir, false, add_item, &list, err));
        CLP_TRY(stats_read(cache, &stats.hits, &stats.misses, err));
        stats.entries = list.n;
        stats.bytes = list.bytes;
    }
    *out = stats;
fail:
    free(list.v);
    return st;
}

clp_status clp_cache_list(clp_cache *cache, clp_cache_entry **out, size_t *count, clp_error *err) {
    clp_status st = CLP_OK;
    item_list list = {0};
    clp_cache_entry *entries = NULL;
    if (cache->enabled)
        CLP_TRY(collect(cache, &list, err));
    entries = calloc(list.n ? list.n : 1, sizeof *entries);
    CLP_REQUIRE_ALLOC(entries, err);
    for (size_t i = 0; i < list.n; i++) {
        const item *it = &list.v[list.n - 1 - i]; /* most recently used first */
        clp_cache_entry *e = &entries[i];
        memcpy(e->path, it->path, sizeof e->path);
        e->bytes = it->bytes;
        e->last_used = (int64_t)it->mtime.tv_sec;
        CLP_TRY(clp__cache_file_describe(it->path, &e->created, e->device, sizeof e->device, err));
    }
    *out = entries;
    *count = list.n;
    entries = NULL;
fail:
    free(entries);
    free(list.v);
    return st;
}

static clp_status remove_file(const char *path, name_kind kind, const struct stat *st, void *user,
                              clp_error *err) {
    (void)kind, (void)st, (void)user;
    if (unlink(path) != 0 && errno != ENOENT)
        return CLP_FAIL(err, CLP_IO, "cannot remove %s: %s", path, strerror(errno));
    return CLP_OK;
}

clp_status clp_cache_clear(clp_cache *cache, clp_error *err) {
    if (cache->unusable) /* entries may be there: saying "removed 0" would not be true */
        return CLP_FAIL(err, CLP_IO, "cache folder %s cannot be cleared: %s", cache->dir,
                        cache->unusable);
    if (!cache->enabled)
        return CLP_OK;
    clp_status st = walk(cache->dir, true, remove_file, NULL, err);
    if (st != CLP_OK)
        return st;
    char path[CLP__CACHE_PATH_MAX];
    stats_path(cache, path);
    if (unlink(path) != 0 && errno != ENOENT)
        return CLP_FAIL(err, CLP_IO, "cannot remove %s: %s", path, strerror(errno));
    return CLP_OK;
}

/* The binary cache's entry file: a fixed little-endian header, then the key record, the build
 * log and the program binary. Atomic writes, and reads that check every byte before a hit. */
#include "cache_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

/* Header, little-endian: magic "CLPCACHE", u32 format version, u32 reserved (0), u64 record
 * size, u64 log size, u64 binary size, u64 XXH3-64 of everything after the header, u64
 * creation time (Unix seconds). The three parts follow in that order, without terminators. */
static const unsigned char magic[8] = {'C', 'L', 'P', 'C', 'A', 'C', 'H', 'E'};
enum { FORMAT_VERSION = 1 };
enum {
    OFF_VERSION = 8,
    OFF_RESERVED = 12,
    OFF_RECORD = 16,
    OFF_LOG = 24,
    OFF_BINARY = 32,
    OFF_CHECKSUM = 40,
    OFF_CREATED = 48
};

typedef struct header {
    uint32_t version;
    uint64_t record_size;
    uint64_t log_size;
    uint64_t binary_size;
    uint64_t checksum;
    int64_t created;
} header;

static void put_le(unsigned char *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void encode_header(const header *h, unsigned char out[CLP__CACHE_HEADER_SIZE]) {
    memcpy(out, magic, sizeof magic);
    put_le(out + OFF_VERSION, h->version, 4);
    put_le(out + OFF_RESERVED, 0, 4);
    put_le(out + OFF_RECORD, h->record_size, 8);
    put_le(out + OFF_LOG, h->log_size, 8);
    put_le(out + OFF_BINARY, h->binary_size, 8);
    put_le(out + OFF_CHECKSUM, h->checksum, 8);
    put_le(out + OFF_CREATED, (uint64_t)h->created, 8);
}

static void decode_header(const unsigned char in[CLP__CACHE_HEADER_SIZE], header *h) {
    h->version = (uint32_t)get_le(in + OFF_VERSION, 4);
    h->record_size = get_le(in + OFF_RECORD, 8);
    h->log_size = get_le(in + OFF_LOG, 8);
    h->binary_size = get_le(in + OFF_BINARY, 8);
    h->checksum = get_le(in + OFF_CHECKSUM, 8);
    h->created = (int64_t)get_le(in + OFF_CREATED, 8);
}

/* XXH3-64 of the record, log and binary as one stream; false when out of memory. */
static bool payload_checksum(const void *const parts[3], const size_t sizes[3], uint64_t *out) {
    XXH3_state_t *state = XXH3_createState();
    if (!state)
        return false;
    XXH3_64bits_reset(state);
    for (int i = 0; i < 3; i++)
        XXH3_64bits_update(state, parts[i], sizes[i]);
    *out = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return true;
}

static bool write_all(int fd, const void *data, size_t n) {
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Reads exactly `n` bytes of the entry's `what`; false with the reason in `why`. */
static bool read_part(int fd, void *buf, size_t n, const char *what, char *why, size_t why_size) {
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(why, why_size, "cannot read its %s: %s", what, strerror(errno));
            return false;
        }
        if (r == 0) {
            snprintf(why, why_size, "truncated inside its %s", what);
            return false;
        }
        p += r;
        n -= (size_t)r;
    }
    return true;
}

/* Reads the header of the open entry `fd` and checks magic, version, and sizes that add up to
 * the file's size exactly. False with the reason in `why`. */
static bool read_header(int fd, header *h, char *why, size_t why_size) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(why, why_size, "fstat failed: %s", strerror(errno));
        return false;
    }
    uint64_t file_size = (uint64_t)st.st_size;
    if (file_size < CLP__CACHE_HEADER_SIZE) {
        snprintf(why, why_size, "truncated: %llu bytes, shorter than the %u-byte header",
                 (unsigned long long)file_size, CLP__CACHE_HEADER_SIZE);
        return false;
    }
    unsigned char head[CLP__CACHE_HEADER_SIZE];
    if (!read_part(fd, head, sizeof head, "header", why, why_size))
        return false;
    if (memcmp(head, magic, sizeof magic) != 0) {
        snprintf(why, why_size, "not a clpart cache entry (no CLPCACHE magic)");
        return false;
    }
    decode_header(head, h);
    if (h->version != FORMAT_VERSION) {
        snprintf(why, why_size, "entry format version %u, expected %d", (unsigned)h->version,
                 FORMAT_VERSION);
        return false;
    }
    uint64_t room = file_size - CLP__CACHE_HEADER_SIZE;
    if (h->record_size > room || h->log_size > room - h->record_size ||
        h->binary_size != room - h->record_size - h->log_size) {
        snprintf(why, why_size,
                 "sizes in the header (record %llu, log %llu, binary %llu bytes) do not add "
                 "up to the file's %llu bytes",
                 (unsigned long long)h->record_size, (unsigned long long)h->log_size,
                 (unsigned long long)h->binary_size, (unsigned long long)file_size);
        return false;
    }
    return true;
}

bool clp__cache_file_write(const char *path, const char *record, const char *log,
                           const unsigned char *binary, size_t size) {
    const void *const parts[3] = {record, log, binary};
    const size_t sizes[3] = {strlen(record), strlen(log), size};
    header h = {.version = FORMAT_VERSION,
                .record_size = sizes[0],
                .log_size = sizes[1],
                .binary_size = sizes[2],
                .created = (int64_t)time(NULL)};
    if (!payload_checksum(parts, sizes, &h.checksum)) {
        CLP_WARN(CLP_LOG_CACHE, "cache entry %s not stored: out of host memory", path);
        return false;
    }
    unsigned char head[CLP__CACHE_HEADER_SIZE];
    encode_header(&h, head);

    char tmp[CLP__CACHE_PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s" CLP__CACHE_TMP_SUFFIX, path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        CLP_WARN(CLP_LOG_CACHE, "cache entry %s not stored: cannot create %s: %s", path, tmp,
                 strerror(errno));
        return false;
    }
    const char *step = "write";
    bool ok = write_all(fd, head, sizeof head);
    for (int i = 0; i < 3 && ok; i++)
        ok = write_all(fd, parts[i], sizes[i]);
    if (ok) {
        step = "fsync";
        ok = fsync(fd) == 0;
    }
    int saved = errno;
    if (close(fd) != 0 && ok) {
        step = "close";
        ok = false;
        saved = errno;
    }
    if (ok) {
        step = "rename";
        ok = rename(tmp, path) == 0;
        saved = errno;
    }
    if (!ok) {
        CLP_WARN(CLP_LOG_CACHE, "cache entry %s not stored: %s %s: %s", path, step, tmp,
                 strerror(saved));
        unlink(tmp);
    }
    return ok;
}

/* Removes the bad entry `path` (open as `fd`) with one warning, unless another process has
 * already put a new file in its place. */
static void discard(const char *path, int fd, const char *why) {
    struct stat opened, now;
    bool replaced = fstat(fd, &opened) == 0 && stat(path, &now) == 0 &&
                    (opened.st_dev != now.st_dev || opened.st_ino != now.st_ino);
    if (replaced || unlink(path) == 0 || errno == ENOENT)
        CLP_WARN(CLP_LOG_CACHE, "cache entry %s: %s; removed", path, why);
    else
        CLP_WARN(CLP_LOG_CACHE, "cache entry %s: %s; cannot remove it: %s", path, why,
                 strerror(errno));
}

clp_status clp__cache_file_load(const char *path, const char *record, unsigned char **binary,
                                size_t *size, char **log, bool *hit, clp_error *err) {
    *hit = false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            CLP_WARN(CLP_LOG_CACHE, "cache entry %s cannot be opened: %s; treated as a miss", path,
                     strerror(errno));
        return CLP_OK;
    }
    clp_status st = CLP_OK;
    char why[256] = "";
    char *stored = NULL, *log_text = NULL;
    unsigned char *bin = NULL;
    header h;
    if (!read_header(fd, &h, why, sizeof why))
        goto fail;
    stored = malloc(h.record_size + 1);
    log_text = malloc(h.log_size + 1);
    bin = malloc(h.binary_size + 1);
    CLP_REQUIRE(stored && log_text && bin, err, CLP_NOMEM,
                "out of host memory reading cache entry %s (%llu bytes)", path,
                (unsigned long long)(h.record_size + h.log_size + h.binary_size));
    if (!read_part(fd, stored, h.record_size, "key record", why, sizeof why) ||
        !read_part(fd, log_text, h.log_size, "build log", why, sizeof why) ||
        !read_part(fd, bin, h.binary_size, "binary", why, sizeof why))
        goto fail;
    const void *const parts[3] = {stored, log_text, bin};
    const size_t sizes[3] = {h.record_size, h.log_size, h.binary_size};
    uint64_t sum;
    CLP_REQUIRE(payload_checksum(parts, sizes, &sum), err, CLP_NOMEM,
                "out of host memory checking cache entry %s", path);
    if (sum != h.checksum) {
        snprintf(why, sizeof why, "checksum %016llx differs from the stored %016llx (corrupt)",
                 (unsigned long long)sum, (unsigned long long)h.checksum);
        goto fail;
    }
    if (h.record_size != strlen(record) || memcmp(stored, record, h.record_size) != 0) {
        snprintf(why, sizeof why,
                 "its key record differs from the requested one (hash collision or foreign "
                 "entry)");
        goto fail;
    }
    /* The last use is the file's mtime, which eviction reads. */
    if (futimens(fd, NULL) != 0)
        CLP_DEBUG(CLP_LOG_CACHE, "cannot update the last use of %s: %s", path, strerror(errno));
    log_text[h.log_size] = '\0';
    *binary = bin;
    *size = h.binary_size;
    *log = log_text;
    *hit = true;
    bin = NULL;
    log_text = NULL;
fail:
    if (why[0])
        discard(path, fd, why);
    close(fd);
    free(stored);
    free(log_text);
    free(bin);
    return st;
}

clp_status clp__cache_file_describe(const char *path, int64_t *created, char *device,
                                    size_t device_size, clp_error *err) {
    *created = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(device, device_size, "<unreadable: %s>", strerror(errno));
        return CLP_OK;
    }
    clp_status st = CLP_OK;
    char why[256] = "";
    char *stored = NULL;
    header h;
    if (!read_header(fd, &h, why, sizeof why))
        goto fail;
    stored = malloc(h.record_size + 1);
    CLP_REQUIRE(stored, err, CLP_NOMEM, "out of host memory reading cache entry %s", path);
    if (!read_part(fd, stored, h.record_size, "key record", why, sizeof why))
        goto fail;
    clp__cache_record_device(stored, h.record_size, device, device_size);
    *created = h.created;
fail:
    if (why[0])
        snprintf(device, device_size, "<invalid: %s>", why);
    close(fd);
    free(stored);
    return st;
}

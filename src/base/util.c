/* Small helpers: whole-file reads, edit distance for suggestions, a monotonic clock. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* The most a text input (case, schema, device source) may hold: far above any real one, and
 * an end to reading /dev/zero or a runaway pipe. */
static const size_t most_file_bytes = (size_t)256 << 20;

clp_status clp__file_read(const char *path, char **out, size_t *size, clp_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot open %s: %s", path, strerror(errno));
    struct stat info;
    if (fstat(fileno(f), &info) == 0 && S_ISDIR(info.st_mode)) {
        fclose(f);
        return CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "%s is a folder, not a file", path);
    }
    clp_strbuf sb = {0};
    char chunk[65536];
    size_t n;
    while (sb.len <= most_file_bytes && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        clp__sb_append_n(&sb, chunk, n);
    const bool read_error = ferror(f), too_long = sb.len > most_file_bytes;
    fclose(f);
    if (read_error || too_long) {
        clp__sb_free(&sb);
        return too_long ? CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "%s holds more than %zu MiB", path,
                                      most_file_bytes >> 20)
                        : CLP_FAIL_AT(err, CLP_IO, path, -1, -1, "cannot read %s", path);
    }
    size_t len = sb.len;
    char *text = clp__sb_take(&sb);
    if (!text)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory reading %s", path);
    *out = text;
    if (size)
        *size = len;
    return CLP_OK;
}

size_t clp__edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = malloc((lb + 1) * sizeof *row);
    if (!row)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

double clp__now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

uint64_t clp__splitmix64(uint64_t *counter) {
    uint64_t z = (*counter += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double clp__uniform01(uint64_t *counter) {
    return (double)(clp__splitmix64(counter) >> 11) * 0x1.0p-53;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double clp__median(double *values, size_t n) {
    if (n == 0)
        return 0;
    qsort(values, n, sizeof *values, by_value);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

/* mkdir -p; false with the failing step in `why`. */
char *clp__path_join(const char *dir, const char *name) {
    const size_t d = dir ? strlen(dir) : 0, size = d + strlen(name) + 2;
    char *path = malloc(size);
    if (path)
        snprintf(path, size, "%s%s%s", d ? dir : "", d && dir[d - 1] != '/' ? "/" : "", name);
    return path;
}

bool clp__make_dirs(char *path, char *why, size_t why_size) {
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            snprintf(why, why_size, "mkdir %s: %s", path, strerror(errno));
            *p = saved;
            return false;
        }
        *p = saved;
        if (!saved)
            break;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, why_size, "stat %s: %s", path, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "%s is not a folder", path);
        return false;
    }
    return true;
}

size_t clp__warp_group(size_t items, size_t cap) {
    const size_t warps = (items + 31) / 32 * 32;
    return warps <= cap ? warps : items;
}

bool clp__parse_size(const char *text, uint64_t *out) {
    if (*text < '0' || *text > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno == ERANGE)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    case 'G':
    case 'g':
        shift = 30;
        break;
    }
    if (shift)
        end++;
    if (*end || value == 0 || value > (UINT64_MAX >> shift))
        return false;
    *out = (uint64_t)value << shift;
    return true;
}

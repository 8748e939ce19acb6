/* An output file that appears complete or not at all: buffered writes into a temporary file
 * beside the target, then fsync and rename over it. The first failure is kept with its step
 * and reported once, at the commit. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct clp__atomic_file {
    const char *path;
    char *tmp;
    int fd;
    int error;        /* errno of the first failure, 0 while all went well */
    const char *step; /* what failed: create, write, fsync, close, rename */
    size_t len;
    unsigned char buf[1 << 16];
};

static void af_fail(clp__atomic_file *f, const char *step) {
    if (f->error)
        return;
    f->error = errno ? errno : EIO;
    f->step = step;
}

static void af_flush(clp__atomic_file *f) {
    const unsigned char *p = f->buf;
    size_t n = f->error ? 0 : f->len;
    while (n > 0) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            af_fail(f, "write");
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    f->len = 0;
}

void clp__atomic_write(clp__atomic_file *f, const void *data, size_t n) {
    const unsigned char *p = data;
    while (n > 0) {
        if (f->len == sizeof f->buf)
            af_flush(f);
        size_t chunk = sizeof f->buf - f->len < n ? sizeof f->buf - f->len : n;
        memcpy(f->buf + f->len, p, chunk);
        f->len += chunk;
        p += chunk;
        n -= chunk;
    }
}

void clp__atomic_put_le(clp__atomic_file *f, uint64_t v, int bytes) {
    if (f->len + (size_t)bytes > sizeof f->buf)
        af_flush(f);
    for (int i = 0; i < bytes; i++)
        f->buf[f->len++] = (unsigned char)(v >> (8 * i));
}

bool clp__atomic_failed(const clp__atomic_file *f) {
    return f->error != 0;
}

clp_status clp__atomic_open(const char *path, clp__atomic_file **out, clp_error *err) {
    static atomic_uint counter;
    clp__atomic_file *f = malloc(sizeof *f);
    size_t tmp_size = strlen(path) + 48;
    char *tmp = malloc(tmp_size);
    if (!f || !tmp) {
        free(f);
        free(tmp);
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory writing %s", path);
    }
    *f = (clp__atomic_file){.path = path, .tmp = tmp, .fd = -1};
    do {
        snprintf(tmp, tmp_size, "%s.%ld-%u.tmp", path, (long)getpid(),
                 atomic_fetch_add(&counter, 1));
        f->fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    } while (f->fd < 0 && errno == EEXIST);
    if (f->fd < 0)
        af_fail(f, "create");
    *out = f;
    return CLP_OK;
}

clp_status clp__atomic_commit(clp__atomic_file *f, clp_error *err) {
    if (f->fd >= 0) {
        af_flush(f);
        if (!f->error && fsync(f->fd) != 0)
            af_fail(f, "fsync");
        if (close(f->fd) != 0)
            af_fail(f, "close");
        if (!f->error && rename(f->tmp, f->path) != 0)
            af_fail(f, "rename");
        if (f->error)
            unlink(f->tmp);
    }
    clp_status st = CLP_OK;
    if (f->error)
        st = CLP_FAIL_AT(err, CLP_IO, f->path, -1, -1, "cannot write %s: %s %s: %s", f->path,
                         f->step, f->tmp, strerror(f->error));
    free(f->tmp);
    free(f);
    return st;
}

clp_status clp__atomic_write_file(const char *path, const void *data, size_t n, clp_error *err) {
    clp__atomic_file *f;
    clp_status st = clp__atomic_open(path, &f, err);
    if (st != CLP_OK)
        return st;
    clp__atomic_write(f, data, n);
    return clp__atomic_commit(f, err);
}

/* A run's series of snapshots in its output folder: particles_NNNNN.vtp, numbered from 0 in
 * the order they are taken, and the particles.pvd index of all of them, rewritten after
 * each, so that ParaView can open a run that is still going or was stopped. */
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

clp_status clp__vtp_series_open(clp__vtp_series *s, const char *dir, clp_error *err) {
    *s = (clp__vtp_series){.dir = strdup(dir)};
    return s->dir ? CLP_OK : CLP_FAIL(err, CLP_NOMEM, "out of host memory");
}

/* "<dir>/<name>", new; NULL when out of memory. */
static char *in_dir(const clp__vtp_series *s, const char *name) {
    const size_t size = strlen(s->dir) + strlen(name) + 2;
    char *path = malloc(size);
    if (path)
        snprintf(path, size, "%s/%s", s->dir, name);
    return path;
}

/* Whether `name` is one of a series' files: particles.pvd or particles_<digits>.vtp. */
static bool series_file(const char *name) {
    static const char prefix[] = "particles_", suffix[] = ".vtp";
    if (!strcmp(name, "particles.pvd"))
        return true;
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *digits = name + sizeof prefix - 1;
    const size_t n = strspn(digits, "0123456789");
    return n > 0 && !strcmp(digits + n, suffix);
}

clp_status clp__vtp_series_start(clp__vtp_series *s, const char *dir, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__vtp_series_open(s, dir, err));
    DIR *folder = opendir(dir);
    if (!folder) /* made by the first write */
        return errno == ENOENT ? CLP_OK
                               : CLP_FAIL_AT(err, CLP_IO, dir, -1, -1, "cannot read folder %s: %s",
                                             dir, strerror(errno));
    const struct dirent *entry;
    while (st == CLP_OK && (entry = readdir(folder))) {
        if (!series_file(entry->d_name))
            continue;
        char *path = in_dir(s, entry->d_name);
        if (!path)
            st = CLP_FAIL(err, CLP_NOMEM, "out of host memory");
        else if (unlink(path) != 0 && errno != ENOENT)
            st = CLP_FAIL_AT(err, CLP_IO, path, -1, -1,
                             "cannot remove %s, an earlier run's snapshot: %s", path,
                             strerror(errno));
        free(path);
    }
    closedir(folder);
fail:
    return st;
}

clp_status clp__vtp_series_remember(clp__vtp_series *s, double time, clp_error *err) {
    clp_status st = CLP_OK;
    if (s->count == s->capacity) {
        const size_t cap = s->capacity ? 2 * s->capacity : 64;
        double *times = realloc(s->times, cap * sizeof *times);
        CLP_REQUIRE_ALLOC(times, err);
        s->times = times;
        char **files = realloc(s->files, cap * sizeof *files);
        CLP_REQUIRE_ALLOC(files, err);
        s->files = files;
        s->capacity = cap;
    }
    char name[48];
    snprintf(name, sizeof name, "particles_%05zu.vtp", s->count);
    s->files[s->count] = in_dir(s, name);
    CLP_REQUIRE_ALLOC(s->files[s->count], err);
    s->times[s->count++] = time;
fail:
    return st;
}

clp_status clp__vtp_series_index(const clp__vtp_series *s, clp_error *err) {
    char *path = in_dir(s, "particles.pvd");
    if (!path)
        return CLP_FAIL(err, CLP_NOMEM, "out of host memory");
    const clp_status st =
        clp__pvd_write(path, s->times, (const char *const *)s->files, s->count, err);
    free(path);
    return st;
}

clp_status clp__vtp_series_add(clp__vtp_series *s, const clp__vtp_fields *f, clp_error *err) {
    clp_status st = CLP_OK;
    CLP_TRY(clp__vtp_series_remember(s, f->time, err));
    CLP_TRY(clp__vtp_write(s->files[s->count - 1], f, err));
    CLP_TRY(clp__vtp_series_index(s, err));
fail:
    return st;
}

void clp__vtp_series_close(clp__vtp_series *s) {
    for (size_t i = 0; i < s->count; i++)
        free(s->files[i]);
    free(s->files);
    free(s->times);
    free(s->dir);
    *s = (clp__vtp_series){0};
}

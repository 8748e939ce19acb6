/* The files beside a split SPH run's checkpoint: the name of each rank's piece, and the
 * removal of stale pieces and of the temporary files that killed writes left. Both a split
 * run's checkpoint and a one-device one (which makes a split run's pieces stale) remove them. */
#include "models/sph/sph_pieces.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { PATH_SIZE = 1024 };

void clp__sph_piece_path(const char *manifest, uint64_t step, int rank, int ranks, uint64_t digest,
                         char *out, size_t size) {
    snprintf(out, size, "%s.%" PRIu64 ".r%dof%d.%016" PRIx64, manifest, step, rank, ranks, digest);
}

/* Whether `name` (in the checkpoint's folder) is a piece of checkpoint `base`. */
static bool is_piece(const char *name, const char *base) {
    const size_t len = strlen(base);
    if (strncmp(name, base, len) != 0 || name[len] != '.')
        return false;
    uint64_t step, digest;
    int rank, ranks, used = 0;
    if (sscanf(name + len + 1, "%" SCNu64 ".r%dof%d.%16" SCNx64 "%n", &step, &rank, &ranks, &digest,
               &used) != 4)
        return false;
    char again[PATH_SIZE];
    clp__sph_piece_path(base, step, rank, ranks, digest, again, sizeof again);
    return strcmp(again, name) == 0;
}

/* Whether `name` is the temporary file of checkpoint `base` or of one of its pieces, as a
 * process killed while writing it leaves (clp__checkpoint_write's name.tmp-XXXXXX). */
static bool is_temporary(const char *name, const char *base) {
    const size_t len = strlen(name), suffix = strlen(".tmp-XXXXXX");
    if (len <= suffix || strncmp(name + len - suffix, ".tmp-", 5) != 0)
        return false;
    char stem[PATH_SIZE];
    snprintf(stem, sizeof stem, "%.*s", (int)(len - suffix), name);
    return strcmp(stem, base) == 0 || is_piece(stem, base);
}

void clp__sph_pieces_remove(const char *path, char *const *keep, int n) {
    char folder[PATH_SIZE], file[2 * PATH_SIZE];
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    snprintf(folder, sizeof folder, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path)
        snprintf(folder, sizeof folder, "/");
    DIR *dir = opendir(folder);
    if (!dir) {
        CLP_DEBUG(CLP_LOG_RUN, "cannot list %s for stale checkpoint pieces: %s", folder,
                  strerror(errno));
        return;
    }
    for (struct dirent *e; (e = readdir(dir));) {
        if (!is_piece(e->d_name, base) && !is_temporary(e->d_name, base))
            continue;
        snprintf(file, sizeof file, "%s/%s", folder, e->d_name);
        bool kept = false;
        for (int k = 0; k < n && !kept; k++) {
            const char *kb = strrchr(keep[k], '/');
            kept = strcmp(kb ? kb + 1 : keep[k], e->d_name) == 0;
        }
        if (!kept && unlink(file) != 0)
            CLP_WARN(CLP_LOG_RUN, "cannot remove stale checkpoint piece %s: %s", file,
                     strerror(errno));
    }
    closedir(dir);
}

/* Shared by the binary cache's files: the entry file (cache_file.c) and the key record
 * (cache_key.c), used by the folder and its bookkeeping (cache.c). Internal. */
#ifndef CLPART_CACHE_INTERNAL_H
#define CLPART_CACHE_INTERNAL_H

#include "internal.h"

/* Longest path of an entry or of its temporary file, the size of clp_cache_entry.path. */
#define CLP__CACHE_PATH_MAX sizeof(((clp_cache_entry *)0)->path)

/* Entry files: "<30 hex digits>.clpbin"; their temporaries add this and six random letters. */
#define CLP__CACHE_SUFFIX     ".clpbin"
#define CLP__CACHE_TMP_SUFFIX ".tmp-XXXXXX"

/* Fixed size of an entry file's header. */
#define CLP__CACHE_HEADER_SIZE 56u

/* Reads the entry at `path` for `record`. A valid entry whose stored record is `record` is a
 * hit: *binary, *size and *log (new) are set, the file's mtime becomes now and *hit is true.
 * A missing file is a quiet miss. An unreadable, truncated, corrupt, foreign or mismatching
 * entry is a miss with one warning, and is removed. Only lack of memory is an error. */
clp_status clp__cache_file_load(const char *path, const char *record, unsigned char **binary,
                                size_t *size, char **log, bool *hit, clp_error *err);

/* Writes an entry atomically: a temporary file beside `path`, fsync, rename over `path`.
 * A failure is one warning naming the file and the reason, leaves no temporary file behind,
 * and returns false. */
bool clp__cache_file_write(const char *path, const char *record, const char *log,
                           const unsigned char *binary, size_t size);

/* What `clpart cache list` shows of an entry, reading only its header and record: the
 * creation time and "platform / device / driver". An unreadable or invalid entry gives
 * created -1 and the reason in `device`. Only lack of memory is an error. */
clp_status clp__cache_file_describe(const char *path, int64_t *created, char *device,
                                    size_t device_size, clp_error *err);

/* "platform / device / driver" from the fields of a key record of `len` bytes. */
void clp__cache_record_device(const char *record, size_t len, char *out, size_t out_size);

#endif

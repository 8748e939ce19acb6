/* Status names and messages, and filling a clp_error: the first error wins, an over-long
 * source is cut from the left so the file name survives. */
#include "internal.h"

#include <string.h>

static const char *const status_names[] = {
#define CLP_STATUS_NAME(name, msg) "CLP_" #name,
    CLP_STATUS_MAP(CLP_STATUS_NAME)
#undef CLP_STATUS_NAME
};

static const char *const status_messages[] = {
#define CLP_STATUS_MSG(name, msg) msg,
    CLP_STATUS_MAP(CLP_STATUS_MSG)
#undef CLP_STATUS_MSG
};

const char *clp_status_name(clp_status st) {
    return (unsigned)st < CLP_STATUS_COUNT ? status_names[st] : "CLP_UNKNOWN_STATUS";
}

const char *clp_status_str(clp_status st) {
    return (unsigned)st < CLP_STATUS_COUNT ? status_messages[st] : "unknown status";
}

void clp_error_clear(clp_error *err) {
    if (err)
        memset(err, 0, sizeof *err);
}

static void set_source(clp_error *err, const char *source) {
    size_t len = strlen(source);
    size_t room = sizeof err->source - 1;
    if (len <= room) {
        memcpy(err->source, source, len + 1);
        return;
    }
    /* Keep the tail, where the file name is. */
    memcpy(err->source, "...", 3);
    memcpy(err->source + 3, source + len - (room - 3), room - 3 + 1);
}

static clp_status fill(clp_error *err, clp_status st, cl_int cl_code, const char *source, int line,
                       int column, const char *origin_file, int origin_line, const char *fmt,
                       va_list ap) {
    if (!err || err->status != CLP_OK)
        return st;
    err->status = st;
    err->cl_code = cl_code;
    err->source[0] = '\0';
    if (source)
        set_source(err, source);
    err->line = line;
    err->column = column;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    err->origin_file = origin_file;
    err->origin_line = origin_line;
    return st;
}

clp_status clp__fail(clp_error *err, clp_status st, const char *origin_file, int origin_line,
                     const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fill(err, st, 0, NULL, -1, -1, origin_file, origin_line, fmt, ap);
    va_end(ap);
    return st;
}

clp_status clp__fail_at(clp_error *err, clp_status st, const char *source, int line, int column,
                        const char *origin_file, int origin_line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fill(err, st, 0, source, line, column, origin_file, origin_line, fmt, ap);
    va_end(ap);
    return st;
}

static clp_status fill_args(clp_error *err, clp_status st, cl_int cl_code, const char *origin_file,
                            int origin_line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fill(err, st, cl_code, NULL, -1, -1, origin_file, origin_line, fmt, ap);
    va_end(ap);
    return st;
}

clp_status clp__fail_cl(clp_error *err, cl_int code, const char *origin_file, int origin_line,
                        const char *fmt, ...) {
    clp_status st = (code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES ||
                     code == CL_OUT_OF_HOST_MEMORY || code == CL_INVALID_BUFFER_SIZE)
                        ? CLP_DEVICE_MEMORY
                        : CLP_CL;
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fill_args(err, st, code, origin_file, origin_line, "%s: %s", what,
                     clp_cl_error_name(code));
}

/* Minimal assertions for clpart's test programs: each failure prints file, line, the
 * expression, both values and the error message, then ends the program with exit code 1.
 * CLP_SKIP exits 77 (meson's skip), except under CI=true, where a missing platform fails. */
#ifndef CLPART_TEST_H
#define CLPART_TEST_H

#include "clpart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLP_TEST_FAIL(...)                                                                         \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                            \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

#define CLP_ASSERT(cond)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            CLP_TEST_FAIL("assertion failed: %s", #cond);                                          \
    } while (0)

#define CLP_ASSERT_EQ(a, b)                                                                        \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_)                                                                              \
            CLP_TEST_FAIL("%s == %s failed: %lld != %lld", #a, #b, a_, b_);                        \
    } while (0)

#define CLP_ASSERT_STR_EQ(a, b)                                                                    \
    do {                                                                                           \
        const char *a_ = (a), *b_ = (b);                                                           \
        if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                     \
            CLP_TEST_FAIL("%s == %s failed: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)",         \
                          b_ ? b_ : "(null)");                                                     \
    } while (0)

#define CLP_ASSERT_CONTAINS(haystack, needle)                                                      \
    do {                                                                                           \
        const char *h_ = (haystack), *n_ = (needle);                                               \
        if (!h_ || !strstr(h_, n_))                                                                \
            CLP_TEST_FAIL("%s does not contain \"%s\": \"%s\"", #haystack, n_,                     \
                          h_ ? h_ : "(null)");                                                     \
    } while (0)

#define CLP_ASSERT_NEAR(a, b, tol)                                                                 \
    do {                                                                                           \
        double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                             \
        if (!(fabs(a_ - b_) <= t_))                                                                \
            CLP_TEST_FAIL("|%s - %s| <= %s failed: |%.17g - %.17g| = %.3g > %.3g", #a, #b, #tol,   \
                          a_, b_, fabs(a_ - b_), t_);                                              \
    } while (0)

#define CLP_ASSERT_OK(st, err)                                                                     \
    do {                                                                                           \
        clp_status s_ = (st);                                                                      \
        if (s_ != CLP_OK)                                                                          \
            CLP_TEST_FAIL("%s returned %s: %s (source \"%s\" line %d column %d)", #st,             \
                          clp_status_name(s_), (err)->message, (err)->source, (err)->line,         \
                          (err)->column);                                                          \
    } while (0)

#define CLP_ASSERT_STATUS(st, expected, err)                                                       \
    do {                                                                                           \
        clp_status s_ = (st);                                                                      \
        if (s_ != (expected))                                                                      \
            CLP_TEST_FAIL("%s returned %s, expected %s: %s", #st, clp_status_name(s_),             \
                          clp_status_name(expected), (err)->message);                              \
    } while (0)

/* Ends the test as skipped (77), or as failed when CI=true, since CI must have a platform. */
#define CLP_SKIP(...)                                                                              \
    do {                                                                                           \
        fprintf(stderr, "skip: ");                                                                 \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        const char *ci_ = getenv("CI");                                                            \
        exit(ci_ &&strcmp(ci_, "true") == 0 ? 1 : 77);                                             \
    } while (0)

/* A case file load that returned `got` must have failed with `expected_status`, and `err`
 * must name `path` as its source and hold `expected`; a CLP_CASE message also names the path
 * and no line. */
static inline void clp_test_case_refused(clp_status got, const clp_error *err,
                                         clp_status expected_status, const char *path,
                                         const char *expected) {
    CLP_ASSERT_EQ(got, expected_status);
    CLP_ASSERT_CONTAINS(err->message, expected);
    CLP_ASSERT_STR_EQ(err->source, path);
    if (expected_status == CLP_CASE) {
        CLP_ASSERT_CONTAINS(err->message, path);
        CLP_ASSERT_EQ(err->line, -1);
    }
}

/* Writes `text` to the file case.json in the folder `dir` and returns its path (static
 * storage, the same for every call). */
static inline const char *clp_test_write_case(const char *dir, const char *text) {
    static char path[512];
    snprintf(path, sizeof path, "%s/case.json", dir);
    FILE *f = fopen(path, "w");
    CLP_ASSERT(f && fputs(text, f) >= 0 && fclose(f) == 0);
    return path;
}

#endif

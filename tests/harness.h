/*
** A minimal test harness: CHECK macros count passes and failures, and
** TEST_REPORT() prints the tally and yields main()'s exit status.
** Include once per test executable.
*/
#ifndef SIMLAB_TESTS_HARNESS_H
#define SIMLAB_TESTS_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int h_pass, h_fail;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (cond) {                                                            \
            h_pass++;                                                          \
        } else {                                                               \
            h_fail++;                                                          \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
        }                                                                      \
    } while (0)

#define CHECK_INT(a, b)                                                        \
    do {                                                                       \
        long long a_ = (long long)(a), b_ = (long long)(b);                    \
        if (a_ == b_) {                                                        \
            h_pass++;                                                          \
        } else {                                                               \
            h_fail++;                                                          \
            fprintf(stderr, "%s:%d: %s = %lld, want %lld\n", __FILE__,         \
                    __LINE__, #a, a_, b_);                                     \
        }                                                                      \
    } while (0)

#define CHECK_STR(a, b)                                                        \
    do {                                                                       \
        const char *a_ = (a), *b_ = (b);                                       \
        if (a_ && b_ && strcmp(a_, b_) == 0) {                                 \
            h_pass++;                                                          \
        } else {                                                               \
            h_fail++;                                                          \
            fprintf(stderr, "%s:%d: %s = \"%s\", want \"%s\"\n", __FILE__,     \
                    __LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");     \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(a, b, eps)                                                  \
    do {                                                                       \
        double a_ = (a), b_ = (b);                                             \
        if (fabs(a_ - b_) <= (eps)) {                                          \
            h_pass++;                                                          \
        } else {                                                               \
            h_fail++;                                                          \
            fprintf(stderr, "%s:%d: %s = %.17g, want %.17g\n", __FILE__,       \
                    __LINE__, #a, a_, b_);                                     \
        }                                                                      \
    } while (0)

#define TEST_REPORT()                                                          \
    (printf("%d passed, %d failed\n", h_pass, h_fail), h_fail != 0)

/* Tests that need ../shared call this when it is absent: prints why and
** returns the ctest skip code. */
#define SIM_TEST_SKIP 77

#endif

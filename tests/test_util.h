/*
** Helpers for tests: temporary directories, removing them, checking that a
** path exists. libc and POSIX only. Include after harness.h.
*/
#ifndef SIMLAB_TESTS_TEST_UTIL_H
#define SIMLAB_TESTS_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes a fresh temporary directory named after tag (under $TMPDIR or
** /tmp), writes its path to buf (256 bytes or more) and returns buf; aborts
** when it cannot. */
static inline const char *test_tmpdir(char *buf, size_t size, const char *tag)
{
    const char *base = getenv("TMPDIR");
    snprintf(buf, size, "%s/simlab-%s-XXXXXX", base ? base : "/tmp", tag);
    if (!mkdtemp(buf)) {
        perror("mkdtemp");
        abort();
    }
    return buf;
}

/* Removes a directory tree (tests only). */
static inline void test_rmtree(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "warning: could not remove %s\n", dir);
    }
}

static inline int test_path_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

#endif

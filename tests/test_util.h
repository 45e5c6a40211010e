/*
** Helpers for tests: temporary directories and files, loading fixture
** bundles, paths to shared data. Include after harness.h.
*/
#ifndef SIM_TEST_UTIL_H
#define SIM_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Makes a fresh temporary directory; returns its path (static buffer per
** call site is the caller's: pass buf of at least 256 bytes). */
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

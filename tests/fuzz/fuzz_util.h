/*
** Helpers shared by the fuzz harnesses: a private scratch directory per
** process (under $TMPDIR, or /dev/shm when it exists: the harnesses write
** every input to a file), writing bytes to a file, copying fixture
** bundles. Test code only; libc and POSIX.
*/
#ifndef SIMLAB_TESTS_FUZZ_UTIL_H
#define SIMLAB_TESTS_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* libFuzzer's entry points; every harness defines both. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fuzz_dir[512];

static inline void fuzz_cleanup(void)
{
    if (fuzz_dir[0]) {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir);
        if (system(cmd) != 0) {
            fprintf(stderr, "warning: could not remove %s\n", fuzz_dir);
        }
        fuzz_dir[0] = '\0';
    }
}

/* Makes this process's scratch directory (once) and returns it; aborts
** when it cannot. Removed at exit (not after a crash: look in $TMPDIR or
** /dev/shm for simlab-fuzz-* then). */
static inline const char *fuzz_scratch(void)
{
    if (fuzz_dir[0]) {
        return fuzz_dir;
    }
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (!base && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
        access("/dev/shm", W_OK) == 0) {
        base = "/dev/shm";
    }
    snprintf(fuzz_dir, sizeof fuzz_dir, "%s/simlab-fuzz-XXXXXX",
             base ? base : "/tmp");
    if (!mkdtemp(fuzz_dir)) {
        perror("mkdtemp");
        abort();
    }
    atexit(fuzz_cleanup);
    return fuzz_dir;
}

/* Writes size bytes to path (replacing it); aborts on failure. */
static inline void fuzz_write(const char *path, const uint8_t *data,
                              size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size > 0 && fwrite(data, 1, size, f) != size) || fclose(f)) {
        perror(path);
        abort();
    }
}

/* Copies the fixture bundle tests/data/bundles/NAME into dir (merging with
** what is there); aborts on failure. */
static inline void fuzz_copy_fixture(const char *name, const char *dir)
{
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp -R '%s/bundles/%s/.' '%s/'", SIMLAB_TEST_DATA,
             name, dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot copy fixture: %s\n", cmd);
        abort();
    }
}

/* A NUL-terminated copy of the input; free with free(). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) {
        abort();
    }
    if (size > 0) {
        memcpy(s, data, size);
    }
    s[size] = '\0';
    return s;
}

#endif

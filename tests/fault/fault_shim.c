/*
** An LD_PRELOAD shim that makes file writes fail, for fault-injection
** tests: after a chosen number of calls to write/pwrite/pwrite64 and
** fsync/fdatasync on files whose path matches a pattern, every further such
** call fails with a chosen errno (a disk that filled up, went bad or was
** remounted read-only stays that way). Test code only.
**
** Environment:
**   SIMLAB_FAULT_PATTERN   fnmatch(3) pattern on the file's path; calls on
**                          other files pass (unset: the shim does nothing)
**   SIMLAB_FAULT_OPS       which calls count and fail: any of "write",
**                          "pwrite", "fsync" (fdatasync too), comma
**                          separated; default all three
**   SIMLAB_FAULT_AFTER     matching calls that succeed first (unset or
**                          negative: never fail, only count)
**   SIMLAB_FAULT_ERRNO     ENOSPC (default), EIO, EROFS or a number
**   SIMLAB_FAULT_TIMES     failures injected before calls pass again (space
**                          freed, disk back); unset: every call fails
**   SIMLAB_FAULT_COUNT     file to which the number of matching calls is
**                          written at exit (calibration)
**   SIMLAB_FAULT_SNAPSHOT  FILE: after each successful fsync/fdatasync of a
**   SIMLAB_FAULT_SOURCE    matching file shortly before the fault (the last
**                          SNAPSHOT_WINDOW matching calls), SOURCE and
**                          SOURCE-wal are copied to FILE and FILE-wal: what
**                          was durable -- every commit SQLite had
**                          acknowledged -- when the fault hit. (Bytes written
**                          but not yet synced belong to a commit that fails
**                          and is not acknowledged, so they are not in it.)
** The first injected failure is announced on stderr as
** "fault shim: CALL #N on PATH fails with NAME".
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum { OP_WRITE = 1, OP_PWRITE = 2, OP_FSYNC = 4 };

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, off64_t);
typedef int (*fsync_fn)(int);

static write_fn real_write;
static pwrite_fn real_pwrite;
static pwrite64_fn real_pwrite64;
static fsync_fn real_fsync, real_fdatasync;

static int configured;
static const char *pattern;
static unsigned ops = OP_WRITE | OP_PWRITE | OP_FSYNC;
static long after = -1;
static int fail_errno = ENOSPC;
static long times = -1;
static long calls;
static long injected;

/* Writes s to stderr with the raw system call (never through the shim). */
static void say(const char *s)
{
    size_t n = strlen(s);
    while (n > 0) {
        long w = syscall(SYS_write, 2, s, n);
        if (w <= 0) {
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        say("fault shim: cannot find the real ");
        say(name);
        say("\n");
        abort();
    }
    return f;
}

static const char *errno_name(int e)
{
    switch (e) {
    case ENOSPC:
        return "ENOSPC";
    case EIO:
        return "EIO";
    case EROFS:
        return "EROFS";
    case EDQUOT:
        return "EDQUOT";
    default:
        return "an errno";
    }
}

static void write_count(void)
{
    const char *path = getenv("SIMLAB_FAULT_COUNT");
    if (!path) {
        return;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", calls);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        if (real_write(fd, buf, (size_t)n) != n) {
            say("fault shim: cannot write the call count\n");
        }
        close(fd);
    }
}

static void configure(void)
{
    if (configured) {
        return;
    }
    configured = 1;
    real_write = (write_fn)next("write");
    real_pwrite = (pwrite_fn)next("pwrite");
    real_pwrite64 = (pwrite64_fn)next("pwrite64");
    real_fsync = (fsync_fn)next("fsync");
    real_fdatasync = (fsync_fn)next("fdatasync");
    pattern = getenv("SIMLAB_FAULT_PATTERN");
    const char *v = getenv("SIMLAB_FAULT_OPS");
    if (v) {
        ops = 0;
        char list[256];
        snprintf(list, sizeof list, "%s", v);
        char *save = NULL;
        for (char *t = strtok_r(list, ",", &save); t;
             t = strtok_r(NULL, ",", &save)) {
            ops |= strcmp(t, "write") == 0    ? OP_WRITE
                   : strcmp(t, "pwrite") == 0 ? OP_PWRITE
                   : strcmp(t, "fsync") == 0  ? OP_FSYNC
                                              : 0;
        }
    }
    v = getenv("SIMLAB_FAULT_AFTER");
    if (v) {
        after = strtol(v, NULL, 10);
    }
    v = getenv("SIMLAB_FAULT_TIMES");
    if (v) {
        times = strtol(v, NULL, 10);
    }
    v = getenv("SIMLAB_FAULT_ERRNO");
    if (v) {
        fail_errno = strcmp(v, "ENOSPC") == 0  ? ENOSPC
                     : strcmp(v, "EIO") == 0   ? EIO
                     : strcmp(v, "EROFS") == 0 ? EROFS
                                               : atoi(v);
    }
    atexit(write_count);
}

/* Copies src to dst with the real calls; missing src: no dst. */
static void copy_file(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY);
    if (in < 0) {
        unlink(dst);
        return;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[65536];
    ssize_t n;
    while (out >= 0 && (n = read(in, buf, sizeof buf)) > 0) {
        if (real_write(out, buf, (size_t)n) != n) {
            say("fault shim: snapshot write failed\n");
            break;
        }
    }
    close(in);
    if (out >= 0) {
        close(out);
    }
}

static void snapshot(void)
{
    const char *dst = getenv("SIMLAB_FAULT_SNAPSHOT");
    const char *src = getenv("SIMLAB_FAULT_SOURCE");
    if (!dst || !src) {
        return;
    }
    char s[4096], d[4096];
    copy_file(src, dst);
    snprintf(s, sizeof s, "%s-wal", src);
    snprintf(d, sizeof d, "%s-wal", dst);
    copy_file(s, d);
}

/* Matching calls before the fault after which a successful sync
** snapshots the files (the last such snapshot is what was durable). */
enum { SNAPSHOT_WINDOW = 400 };

/* 1 when fd's path matches the pattern; path gets it (size 4096). */
static int matches(int fd, char *path)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, 4095);
    if (n <= 0) {
        return 0;
    }
    path[n] = '\0';
    return fnmatch(pattern, path, 0) == 0;
}

/* After a successful sync of fd: snapshot what is now durable, when the
** fault is near and has not hit yet. */
static void synced(int fd)
{
    char path[4096];
    if (pattern && injected == 0 && after >= 0 &&
        calls + SNAPSHOT_WINDOW >= after && matches(fd, path)) {
        snapshot();
    }
}

/* 1 when this call on fd must fail (errno set), 0 when it passes. */
static int fault(int fd, unsigned op, const char *call)
{
    configure();
    if (!pattern || !(ops & op)) {
        return 0;
    }
    char path[4096];
    if (!matches(fd, path)) {
        return 0;
    }
    calls++;
    if (after < 0 || calls <= after || (times >= 0 && injected >= times)) {
        return 0;
    }
    if (injected++ == 0) {
        char msg[4400];
        snprintf(msg, sizeof msg, "fault shim: %s #%ld on %s fails with %s\n",
                 call, calls, path, errno_name(fail_errno));
        say(msg);
    }
    errno = fail_errno;
    return 1;
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (fault(fd, OP_WRITE, "write")) {
        return -1;
    }
    return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    if (fault(fd, OP_PWRITE, "pwrite")) {
        return -1;
    }
    return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
    if (fault(fd, OP_PWRITE, "pwrite")) {
        return -1;
    }
    return real_pwrite64(fd, buf, n, off);
}

int fsync(int fd)
{
    if (fault(fd, OP_FSYNC, "fsync")) {
        return -1;
    }
    int rc = real_fsync(fd);
    if (rc == 0) {
        synced(fd);
    }
    return rc;
}

int fdatasync(int fd)
{
    if (fault(fd, OP_FSYNC, "fdatasync")) {
        return -1;
    }
    int rc = real_fdatasync(fd);
    if (rc == 0) {
        synced(fd);
    }
    return rc;
}

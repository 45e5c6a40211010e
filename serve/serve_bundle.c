/*
** The bundle's files as they were at start (serve_bundle.h): a sorted
** table of real paths and identities; files opened with openat2's
** RESOLVE_NO_SYMLINKS (O_NOFOLLOW where the kernel lacks it).
*/
#define _GNU_SOURCE
#include "serve/serve_bundle.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/sim_alloc.h"
#include "stimuli/hash.h"

typedef struct Ident {
    char *path;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    int told; /* its change was reported */
} Ident;

struct ServeBundle {
    Ident *v;
    size_t n, cap;
    int64_t newest_s; /* the latest change time seen */
};

static int add(ServeBundle *b, const char *path, const struct stat *sb)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        Ident *v = sim_realloc(b->v, cap * sizeof *v);
        if (!v) {
            return -1;
        }
        b->v = v;
        b->cap = cap;
    }
    Ident *id = &b->v[b->n];
    memset(id, 0, sizeof *id);
    if (!(id->path = sim_strdup(path))) {
        return -1;
    }
    id->dev = sb->st_dev;
    id->ino = sb->st_ino;
    id->size = sb->st_size;
    id->mtime = sb->st_mtim;
    id->ctime = sb->st_ctim;
    if ((int64_t)sb->st_ctim.tv_sec > b->newest_s) {
        b->newest_s = (int64_t)sb->st_ctim.tv_sec;
    }
    b->n++;
    return 0;
}

/* The regular files below dir (links are not followed: a file is listed
** under its real path). */
static int walk(ServeBundle *b, const char *dir, int depth, SimError *err)
{
    if (depth > 64) {
        return SIM_OK;
    }
    DIR *d = opendir(dir);
    if (!d) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", dir, strerror(errno));
    }
    int rc = SIM_OK;
    struct dirent *e;
    while (rc == SIM_OK && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        char path[PATH_MAX];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >=
            sizeof path) {
            continue;
        }
        struct stat sb;
        if (lstat(path, &sb) != 0) {
            continue;
        }
        if (S_ISDIR(sb.st_mode)) {
            rc = walk(b, path, depth + 1, err);
        } else if (S_ISREG(sb.st_mode) && add(b, path, &sb) != 0) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    closedir(d);
    return rc;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const Ident *)a)->path, ((const Ident *)b)->path);
}

int serve_bundle_open(const char *dir, const char *hash, int64_t loaded_s,
                      ServeBundle **out, SimError *err)
{
    *out = NULL;
    ServeBundle *b = sim_calloc(1, sizeof *b);
    char *root = realpath(dir, NULL);
    int rc = !b      ? sim_fail(err, SIM_ERR_NOMEM, "out of memory")
             : !root ? sim_fail(err, SIM_ERR_IO, "%s: %s", dir, strerror(errno))
                     : walk(b, root, 0, err);
    if (rc == SIM_OK && b->n > 1) {
        qsort(b->v, b->n, sizeof *b->v, by_path);
    }
    if (rc == SIM_OK && b->newest_s >= loaded_s - 1) {
        /* something changed while the bundle was loaded: these identities
        ** are the hashed files' only if the folder still hashes the same */
        char again[65], why[512];
        if (hash_bundle(root, again, why, sizeof why) != 0) {
            rc = sim_fail(err, SIM_ERR_IO, "%s: %s", dir, why);
        } else if (strcmp(again, hash) != 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s: the bundle changed while it was loaded (its "
                          "files were being written); start again once "
                          "they are in place",
                          dir);
        }
    }
    free(root);
    if (rc != SIM_OK) {
        serve_bundle_free(b);
        return rc;
    }
    *out = b;
    return SIM_OK;
}

static int open_nofollow(const char *path)
{
#ifdef SYS_openat2
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW;
    how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) {
        return fd;
    }
#endif
    return open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

int serve_bundle_file(ServeBundle *b, const char *path, int *fd, uint64_t *size)
{
    *fd = -1;
    Ident key = {.path = (char *)path};
    Ident *id = b->n ? bsearch(&key, b->v, b->n, sizeof *b->v, by_path) : NULL;
    if (!id) {
        return -1;
    }
    int f = open_nofollow(path);
    struct stat sb;
    int same = f >= 0 && fstat(f, &sb) == 0 && S_ISREG(sb.st_mode) &&
               sb.st_dev == id->dev && sb.st_ino == id->ino &&
               sb.st_size == id->size &&
               sb.st_mtim.tv_sec == id->mtime.tv_sec &&
               sb.st_mtim.tv_nsec == id->mtime.tv_nsec &&
               sb.st_ctim.tv_sec == id->ctime.tv_sec &&
               sb.st_ctim.tv_nsec == id->ctime.tv_nsec;
    if (!same) {
        if (f >= 0) {
            close(f);
        }
        if (!__atomic_exchange_n(&id->told, 1, __ATOMIC_RELAXED)) {
            fprintf(stderr,
                    "simlab serve: %s is no longer the file of the bundle "
                    "hashed at the start (changed, replaced or a link): it "
                    "is not served; restore it, or start simlab serve again "
                    "(--accept-changed-bundle records the new version)\n",
                    path);
        }
        return -1;
    }
    *fd = f;
    *size = (uint64_t)sb.st_size;
    return 0;
}

void serve_bundle_free(ServeBundle *b)
{
    if (!b) {
        return;
    }
    for (size_t i = 0; i < b->n; i++) {
        sim_free(b->v[i].path);
    }
    sim_free(b->v);
    sim_free(b);
}

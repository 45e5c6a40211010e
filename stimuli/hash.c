/*
** The bundle hash: SHA-256 (nettle) over every regular file and symbolic
** link of the bundle in sorted relative-path order. A regular file adds its
** path, a NUL, its size as 8 big-endian bytes, then its bytes. A symbolic
** link adds its path, a NUL, 8 bytes 0xFF (no file has that size), its
** target string and a NUL, then, when it resolves to a regular file, that
** file's size and bytes, else 8 bytes 0xFF again. Folders that links point
** to are not walked. Bundles without links hash as before links counted.
** Also: whether a path lies inside a bundle, and one file's SHA-256.
*/
#define _XOPEN_SOURCE 700
#include "stimuli/hash.h"

#include <dirent.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/sim_alloc.h"

typedef struct PathList {
    char **paths;
    size_t n, cap;
    int failed;
} PathList;

/* pl->failed: 1 = an error (why), 2 = out of memory */
static void walk(const char *root, const char *rel, PathList *pl, int depth,
                 char *why, size_t why_size)
{
    if (pl->failed || depth > 64) {
        return;
    }
    size_t n = strlen(root) + strlen(rel) + 2;
    char *dirpath = sim_malloc(n);
    if (!dirpath) {
        pl->failed = 2;
        snprintf(why, why_size, "out of memory");
        return;
    }
    snprintf(dirpath, n, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dirpath);
    if (!d) {
        snprintf(why, why_size, "%s: %s", rel[0] ? rel : ".", strerror(errno));
        pl->failed = 1;
        sim_free(dirpath);
        return;
    }
    struct dirent *de;
    while (!pl->failed && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
            continue;
        }
        size_t rn = strlen(rel) + strlen(de->d_name) + 2;
        char *child = sim_malloc(rn);
        size_t an = strlen(dirpath) + strlen(de->d_name) + 2;
        char *abs = sim_malloc(an);
        if (!child || !abs) {
            sim_free(child);
            sim_free(abs);
            pl->failed = 2;
            snprintf(why, why_size, "out of memory");
            break;
        }
        snprintf(child, rn, "%s%s%s", rel, rel[0] ? "/" : "", de->d_name);
        snprintf(abs, an, "%s/%s", dirpath, de->d_name);
        struct stat sb;
        if (lstat(abs, &sb) != 0) {
            sim_free(child);
        } else if (S_ISDIR(sb.st_mode)) {
            walk(root, child, pl, depth + 1, why, why_size);
            sim_free(child);
        } else if (S_ISREG(sb.st_mode) || S_ISLNK(sb.st_mode)) {
            if (sim_grow((void **)&pl->paths, &pl->cap, pl->n + 1,
                         sizeof *pl->paths) != 0) {
                sim_free(child);
                pl->failed = 2;
                snprintf(why, why_size, "out of memory");
            } else {
                pl->paths[pl->n++] = child;
            }
        } else {
            sim_free(child);
        }
        sim_free(abs);
    }
    closedir(d);
    sim_free(dirpath);
}

static int cmp_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void put_be64(struct sha256_ctx *ctx, uint64_t v)
{
    uint8_t be[8];
    for (int i = 0; i < 8; i++) {
        be[i] = (uint8_t)(v >> (56 - 8 * i));
    }
    sha256_update(ctx, sizeof be, be);
}

/* Adds the size (8 bytes big-endian) and the bytes of the regular file at
** abs; rel names it in why. */
static int hash_content(struct sha256_ctx *ctx, const char *abs,
                        const char *rel, char *why, size_t why_size)
{
    FILE *f = fopen(abs, "rb");
    if (!f) {
        snprintf(why, why_size, "%s: %s", rel, strerror(errno));
        return -1;
    }
    struct stat sb;
    uint64_t size = 0;
    if (fstat(fileno(f), &sb) == 0) {
        size = (uint64_t)sb.st_size;
    }
    put_be64(ctx, size);
    uint8_t buf[65536];
    size_t got;
    uint64_t total = 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        sha256_update(ctx, got, buf);
        total += got;
    }
    int rc = ferror(f) || total != size ? -1 : 0;
    if (rc) {
        snprintf(why, why_size, "%s: read error or changed while hashing", rel);
    }
    fclose(f);
    return rc;
}

/* A symbolic link: its target string, then what it resolves to when that
** is a regular file (see the top of the file). */
static int hash_link(struct sha256_ctx *ctx, const char *abs, const char *rel,
                     char *why, size_t why_size)
{
    char target[4096];
    ssize_t n = readlink(abs, target, sizeof target - 1);
    if (n < 0) {
        snprintf(why, why_size, "%s: %s", rel, strerror(errno));
        return -1;
    }
    target[n] = '\0';
    put_be64(ctx, UINT64_MAX);
    sha256_update(ctx, (size_t)n + 1, (const uint8_t *)target);
    struct stat sb;
    if (stat(abs, &sb) == 0 && S_ISREG(sb.st_mode)) {
        return hash_content(ctx, abs, rel, why, why_size);
    }
    put_be64(ctx, UINT64_MAX);
    return 0;
}

static int hash_entry(struct sha256_ctx *ctx, const char *root, const char *rel,
                      char *why, size_t why_size)
{
    size_t n = strlen(root) + strlen(rel) + 2;
    char *abs = sim_malloc(n);
    if (!abs) {
        snprintf(why, why_size, "out of memory");
        return -2;
    }
    snprintf(abs, n, "%s/%s", root, rel);
    struct stat sb;
    int rc;
    if (lstat(abs, &sb) != 0) {
        snprintf(why, why_size, "%s: %s", rel, strerror(errno));
        rc = -1;
    } else {
        sha256_update(ctx, strlen(rel) + 1, (const uint8_t *)rel);
        rc = S_ISLNK(sb.st_mode) ? hash_link(ctx, abs, rel, why, why_size)
                                 : hash_content(ctx, abs, rel, why, why_size);
    }
    sim_free(abs);
    return rc;
}

static void hex_digest(struct sha256_ctx *ctx, char out[65])
{
    uint8_t digest[SHA256_DIGEST_SIZE];
    sha256_digest(ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
        snprintf(out + 2 * i, 3, "%02x", digest[i]);
    }
}

int hash_bundle(const char *root, char out[65], char *why, size_t why_size)
{
    out[0] = '\0';
    PathList pl = {NULL, 0, 0, 0};
    walk(root, "", &pl, 0, why, why_size);
    int rc = pl.failed == 2 ? -2 : pl.failed ? -1 : 0;
    if (rc == 0) {
        if (pl.n > 1) {
            qsort(pl.paths, pl.n, sizeof *pl.paths, cmp_paths);
        }
        struct sha256_ctx ctx;
        sha256_init(&ctx);
        for (size_t i = 0; i < pl.n && rc == 0; i++) {
            rc = hash_entry(&ctx, root, pl.paths[i], why, why_size);
        }
        if (rc == 0) {
            hex_digest(&ctx, out);
        }
    }
    for (size_t i = 0; i < pl.n; i++) {
        sim_free(pl.paths[i]);
    }
    sim_free(pl.paths);
    return rc;
}

int hash_file_sha256(const char *path, char out[65], char *why, size_t why_size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
        return -1;
    }
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    uint8_t buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        sha256_update(&ctx, got, buf);
    }
    int rc = ferror(f) ? -1 : 0;
    fclose(f);
    if (rc) {
        snprintf(why, why_size, "%s: read error", path);
        return -1;
    }
    hex_digest(&ctx, out);
    return 0;
}

/* Appends "/" comp to the absolute path in buf (capacity size), or removes
** its last part for "..". */
static void join_part(char *buf, size_t size, const char *comp, size_t n)
{
    if (n == 0 || (n == 1 && comp[0] == '.')) {
        return;
    }
    size_t len = strlen(buf);
    if (n == 2 && comp[0] == '.' && comp[1] == '.') {
        while (len > 1 && buf[len - 1] != '/') {
            len--;
        }
        buf[len > 1 ? len - 1 : 1] = '\0';
        return;
    }
    if (len + n + 2 > size) {
        return;
    }
    if (len > 1) {
        buf[len++] = '/';
    }
    memcpy(buf + len, comp, n);
    buf[len + n] = '\0';
}

/* The absolute form of path: its longest existing leading part with
** symbolic links resolved, the rest joined by name ('.' dropped, '..'
** removing the part before). sim_malloc'd, or NULL. */
static char *resolve_path(const char *path)
{
    char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
    if (path[0] != '/' && !cwd) {
        return NULL;
    }
    size_t n = (cwd ? strlen(cwd) + 1 : 0) + strlen(path) + 1;
    char *abs = sim_malloc(n);
    if (!abs) {
        free(cwd);
        return NULL;
    }
    snprintf(abs, n, "%s%s%s", cwd ? cwd : "", cwd ? "/" : "", path);
    free(cwd);
    size_t cut = strlen(abs);
    char *real = NULL;
    for (;;) {
        char keep = abs[cut];
        abs[cut] = '\0';
        real = realpath(cut ? abs : "/", NULL);
        abs[cut] = keep;
        if (real || cut == 0) {
            break;
        }
        while (cut > 0 && abs[cut - 1] != '/') {
            cut--;
        }
        if (cut > 0) {
            cut--;
        }
    }
    size_t size = (real ? strlen(real) : 1) + strlen(abs + cut) + 2;
    char *out = real ? sim_malloc(size) : NULL;
    if (out) {
        snprintf(out, size, "%s", real);
        const char *p = abs + cut;
        while (*p) {
            while (*p == '/') {
                p++;
            }
            const char *e = strchr(p, '/');
            size_t k = e ? (size_t)(e - p) : strlen(p);
            join_part(out, size, p, k);
            p += k;
        }
    }
    free(real);
    sim_free(abs);
    return out;
}

static int is_below(const char *path, const char *root)
{
    size_t n = strlen(root);
    return strncmp(path, root, n) == 0 &&
           (path[n] == '/' || path[n] == '\0' || n == 1);
}

int hash_path_in_bundle(const char *bundle_dir, const char *path, char *why,
                        size_t why_size)
{
    char *root = realpath(bundle_dir, NULL);
    if (!root) {
        snprintf(why, why_size, "%s: %s", bundle_dir, strerror(errno));
        return -1;
    }
    /* where the name sits (its folder resolved) and, when it exists, what
    ** it resolves to */
    size_t n = strlen(path) + 4;
    char *parent = sim_malloc(n);
    char *target = resolve_path(path);
    char *name = NULL;
    if (parent && target) {
        snprintf(parent, n, "%s", path);
        size_t len = strlen(parent);
        while (len > 1 && parent[len - 1] == '/') {
            parent[--len] = '\0';
        }
        char *slash = strrchr(parent, '/');
        const char *base = slash ? slash + 1 : parent;
        if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
            name = resolve_path(path);
        } else {
            const char *dir = slash ? parent : NULL;
            if (slash == parent) {
                dir = "/";
            } else if (slash) {
                *slash = '\0';
            }
            char *rd = resolve_path(dir ? dir : ".");
            size_t m = rd ? strlen(rd) + strlen(base) + 2 : 0;
            name = rd ? sim_malloc(m) : NULL;
            if (name) {
                snprintf(name, m, "%s%s%s", rd, strcmp(rd, "/") ? "/" : "",
                         base);
            }
            sim_free(rd);
        }
    }
    int rc;
    if (!name || !target) {
        snprintf(why, why_size, "%s: cannot resolve the path", path);
        rc = -1;
    } else {
        rc = is_below(name, root) || is_below(target, root);
    }
    sim_free(name);
    sim_free(target);
    sim_free(parent);
    free(root);
    return rc;
}

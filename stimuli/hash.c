/*
** The bundle hash: SHA-256 (nettle) over every regular file of the bundle
** in sorted relative-path order; for each file its path, a NUL, its size as
** 8 big-endian bytes, then its bytes. Symbolic links are not followed.
*/
#define _XOPEN_SOURCE 700
#include "stimuli/study_int.h"

#include <dirent.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        } else if (S_ISREG(sb.st_mode)) {
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

static int hash_file(struct sha256_ctx *ctx, const char *root, const char *rel,
                     char *why, size_t why_size)
{
    size_t n = strlen(root) + strlen(rel) + 2;
    char *abs = sim_malloc(n);
    if (!abs) {
        snprintf(why, why_size, "out of memory");
        return -2;
    }
    snprintf(abs, n, "%s/%s", root, rel);
    FILE *f = fopen(abs, "rb");
    sim_free(abs);
    if (!f) {
        snprintf(why, why_size, "%s: %s", rel, strerror(errno));
        return -1;
    }
    struct stat sb;
    uint64_t size = 0;
    if (fstat(fileno(f), &sb) == 0) {
        size = (uint64_t)sb.st_size;
    }
    sha256_update(ctx, strlen(rel) + 1, (const uint8_t *)rel);
    uint8_t be[8];
    for (int i = 0; i < 8; i++) {
        be[i] = (uint8_t)(size >> (56 - 8 * i));
    }
    sha256_update(ctx, sizeof be, be);
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

int bundle_hash(const char *root, char out[65], char *why, size_t why_size)
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
            rc = hash_file(&ctx, root, pl.paths[i], why, why_size);
        }
        if (rc == 0) {
            uint8_t digest[SHA256_DIGEST_SIZE];
            sha256_digest(&ctx, sizeof digest, digest);
            for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
                snprintf(out + 2 * i, 3, "%02x", digest[i]);
            }
        }
    }
    for (size_t i = 0; i < pl.n; i++) {
        sim_free(pl.paths[i]);
    }
    sim_free(pl.paths);
    return rc;
}

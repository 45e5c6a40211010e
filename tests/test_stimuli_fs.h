/*
** File helpers for the stimuli tests: scratch folders in the working
** directory, recursive copy and removal, whole-file read and write, and
** running check_bundle() into a string. POSIX only; tests only.
*/
#ifndef SIMLAB_TESTS_TEST_STIMULI_FS_H
#define SIMLAB_TESTS_TEST_STIMULI_FS_H

#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stimuli/check.h"

/* Makes a new empty folder "<prefix>-XXXXXX" under the current directory
** and returns its path (in buf) or NULL. */
static inline char *fs_temp_dir(char *buf, size_t size, const char *prefix)
{
    snprintf(buf, size, "%s-XXXXXX", prefix);
    return mkdtemp(buf);
}

/* "a/b" in a malloc'd string. */
static inline char *fs_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s/%s", a, b);
    }
    return p;
}

static inline int fs_copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb");
    if (!in) {
        return -1;
    }
    FILE *out = fopen(dst, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    char buf[65536];
    size_t n;
    int rc = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
        if (fwrite(buf, 1, n, out) != n) {
            rc = -1;
            break;
        }
    }
    fclose(in);
    if (fclose(out) != 0) {
        rc = -1;
    }
    return rc;
}

/* Copies the tree src to dst (created). Symbolic links are recreated as
** links with the same target. */
static inline int fs_copy_tree(const char *src, const char *dst)
{
    if (mkdir(dst, 0755) != 0) {
        return -1;
    }
    DIR *d = opendir(src);
    if (!d) {
        return -1;
    }
    struct dirent *de;
    int rc = 0;
    while (rc == 0 && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
            continue;
        }
        char *s = fs_join(src, de->d_name), *t = fs_join(dst, de->d_name);
        struct stat sb;
        if (!s || !t || lstat(s, &sb) != 0) {
            rc = -1;
        } else if (S_ISDIR(sb.st_mode)) {
            rc = fs_copy_tree(s, t);
        } else if (S_ISLNK(sb.st_mode)) {
            char target[4096];
            ssize_t n = readlink(s, target, sizeof target - 1);
            if (n < 0) {
                rc = -1;
            } else {
                target[n] = '\0';
                rc = symlink(target, t);
            }
        } else {
            rc = fs_copy_file(s, t);
        }
        free(s);
        free(t);
    }
    closedir(d);
    return rc;
}

static inline void fs_remove_tree(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0) {
        return;
    }
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *de;
            while ((de = readdir(d)) != NULL) {
                if (strcmp(de->d_name, ".") == 0 ||
                    strcmp(de->d_name, "..") == 0) {
                    continue;
                }
                char *c = fs_join(path, de->d_name);
                if (c) {
                    fs_remove_tree(c);
                }
                free(c);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static inline int fs_write(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        return -1;
    }
    size_t w = fwrite(data, 1, n, f);
    return fclose(f) == 0 && w == n ? 0 : -1;
}

/* Whole file as a malloc'd NUL-terminated string, or NULL. */
static inline char *fs_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
            }
            buf = p;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
    }
    if (len) {
        *len = n;
    }
    return buf;
}

/* Runs check_bundle on dir; *out gets its output (malloc'd). */
static inline int fs_check(const char *dir, int json, char **out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        *out = NULL;
        return -1;
    }
    int rc = check_bundle(dir, json, f);
    fclose(f);
    *out = buf;
    return rc;
}

#endif

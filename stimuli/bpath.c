/*
** Bundle paths: every path a study names is relative to the bundle folder
** and must stay inside it, also after symbolic links are resolved.
** POSIX file functions only.
*/
#define _XOPEN_SOURCE 700
#include "stimuli/bpath.h"
#include "stimuli/bpath_int.h"
#include "stimuli/loader.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sim_alloc.h"

static int has_dotdot(const char *rel)
{
    const char *p = rel;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            return 1;
        }
        if (!e) {
            break;
        }
        p = e + 1;
    }
    return 0;
}

int bpath_check(const char *rel, char *why, size_t why_size)
{
    if (!rel || !rel[0]) {
        snprintf(why, why_size, "empty path");
        return -1;
    }
    size_t len = strlen(rel);
    if (len >= BUNDLE_PATH_MAX) {
        snprintf(why, why_size,
                 "'%.40s...': the path is %zu bytes long; the limit is %d", rel,
                 len, BUNDLE_PATH_MAX - 1);
        return -1;
    }
    if (rel[0] == '/' || rel[0] == '~' || strchr(rel, '\\') ||
        (rel[0] && rel[1] == ':')) {
        snprintf(why, why_size,
                 "'%s': absolute paths are not allowed (paths are relative "
                 "to the bundle)",
                 rel);
        return -1;
    }
    if (has_dotdot(rel)) {
        snprintf(why, why_size, "'%s': '..' may not leave the bundle", rel);
        return -1;
    }
    return 0;
}

int bpath_file(Loader *L, const char *rel, char **abs_out, char *why,
               size_t why_size)
{
    if (abs_out) {
        *abs_out = NULL;
    }
    if (bpath_check(rel, why, why_size) != 0) {
        return -1;
    }
    size_t n = L->root_len + 1 + strlen(rel) + 1;
    char *joined = sim_malloc(n);
    if (!joined) {
        L->oom = 1;
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    snprintf(joined, n, "%s/%s", L->root, rel);
    char *real = realpath(joined, NULL);
    int saved = errno;
    sim_free(joined);
    if (!real) {
        snprintf(why, why_size, "'%s': %s", rel,
                 saved == ENOENT ? "no such file" : strerror(saved));
        return -1;
    }
    int inside = strncmp(real, L->root, L->root_len) == 0 &&
                 (real[L->root_len] == '/' || L->root_len == 1);
    if (!inside) {
        snprintf(why, why_size,
                 "'%s': resolves outside the bundle (symbolic link?)", rel);
        free(real);
        return -1;
    }
    size_t real_len = strlen(real);
    if (real_len >= BUNDLE_PATH_MAX) {
        snprintf(why, why_size,
                 "'%.60s%s': the resolved path is %zu bytes long; the "
                 "runner's limit is %d",
                 rel, strlen(rel) > 60 ? "..." : "", real_len,
                 BUNDLE_PATH_MAX - 1);
        free(real);
        return -1;
    }
    struct stat sb;
    if (stat(real, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        snprintf(why, why_size, "'%s': not a regular file", rel);
        free(real);
        return -1;
    }
    if (abs_out) {
        /* realpath() allocates with malloc; hand out a sim_ copy. */
        *abs_out = sim_strdup(real);
        if (!*abs_out) {
            L->oom = 1;
            free(real);
            snprintf(why, why_size, "out of memory");
            return -1;
        }
    }
    free(real);
    return 0;
}

/* Reads a whole file (up to 1 GiB) into a NUL-terminated buffer. Returns 0,
** -1 with the reason in why, or -2 when memory ran out. */
static int read_whole_file(const char *abs, char **data, size_t *len, char *why,
                           size_t why_size)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(abs, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return -1;
    }
    size_t cap = 0, n = 0;
    char *buf = NULL;
    int rc = 0;
    for (;;) {
        if (n + 65536 + 1 > cap) {
            if (cap > ((size_t)1 << 30)) {
                snprintf(why, why_size, "file larger than 1 GiB");
                rc = -1;
                break;
            }
            size_t ncap = cap ? cap * 2 : 65536 * 2;
            char *p = sim_realloc(buf, ncap);
            if (!p) {
                snprintf(why, why_size, "out of memory");
                rc = -2;
                break;
            }
            buf = p;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) {
                snprintf(why, why_size, "read error: %s", strerror(errno));
                rc = -1;
            }
            break;
        }
    }
    fclose(f);
    if (rc != 0) {
        sim_free(buf);
        return rc;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

/* Records in Study.text_files that the bundle file at abs (resolved by
** bpath_file) was read, once per file; *index (may be NULL) gets its
** entry's index (SIZE_MAX when none). Sets L->oom when memory runs out. */
static void note_text_file(Loader *L, const char *abs, size_t *index)
{
    if (index) {
        *index = SIZE_MAX;
    }
    if (!L->st) {
        return;
    }
    const char *norm = abs + L->root_len + (L->root_len > 1);
    Study *st = L->st;
    size_t i = 0;
    while (i < st->n_text_files && strcmp(st->text_files[i].rel, norm) != 0) {
        i++;
    }
    if (i == st->n_text_files) {
        StudyTextFile *p = sim_realloc(
            st->text_files, (st->n_text_files + 1) * sizeof *st->text_files);
        char *copy = p ? sim_strdup(norm) : NULL;
        if (!copy) {
            if (p) {
                st->text_files = p;
            }
            L->oom = 1;
            return;
        }
        st->text_files = p;
        StudyTextFile *f = &p[st->n_text_files++];
        memset(f, 0, sizeof *f);
        f->rel = copy;
        f->delim = ',';
        sim_encoding_utf8(&f->encoding);
    }
    if (index) {
        *index = i;
    }
}

static int read_text_file(Loader *L, const char *rel, size_t *index,
                          char **data, size_t *len, char *why, size_t why_size)
{
    *data = NULL;
    *len = 0;
    if (index) {
        *index = SIZE_MAX;
    }
    char *abs = NULL;
    if (bpath_file(L, rel, &abs, why, why_size) != 0) {
        return -2;
    }
    char read_why[512];
    int rc = read_whole_file(abs, data, len, read_why, sizeof read_why);
    if (rc == -2) {
        L->oom = 1;
    } else if (rc != 0) {
        ld_diag(L, 0, rel, 0, 0, NULL, NULL, "%s", read_why);
    } else {
        note_text_file(L, abs, index);
    }
    sim_free(abs);
    return rc != 0 ? -1 : 0;
}

int bpath_read(Loader *L, const char *rel, char **data, size_t *len, char *why,
               size_t why_size)
{
    return read_text_file(L, rel, NULL, data, len, why, why_size);
}

int bpath_read_csv(Loader *L, const char *rel, char **data, size_t *len,
                   size_t *file, char *why, size_t why_size)
{
    return read_text_file(L, rel, file, data, len, why, why_size);
}

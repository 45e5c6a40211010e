/*
** The browser's JSON is the screen model serialised: every member of every
** struct of experiment/screen_model.h that the JSON's tables name is a row
** of its table (serialised, or marked as not for the browser), and every
** row reads a member that exists. A member added to the model without its
** row, or a row left after its member went, fails here.
**   test_serve_view SOURCE_DIR
*/
#include "tests/harness.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve_view.h"

/* The text of path, or NULL. */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) {
        s[n] = 0;
    }
    fclose(f);
    return s;
}

/* Removes the comments of C text in place. */
static void strip_comments(char *s)
{
    char *w = s;
    for (char *r = s; *r;) {
        if (r[0] == '/' && r[1] == '*') {
            char *e = strstr(r + 2, "*/");
            r = e ? e + 2 : r + strlen(r);
            *w++ = ' ';
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
}

/* The members of struct type in the header text: their names, written
** into names (up to cap), separated by NULs. Returns how many, -1 when the
** struct is not in the header. */
static int members(const char *text, const char *type, char names[][48],
                   int cap)
{
    char open1[128], open2[128];
    snprintf(open1, sizeof open1, "typedef struct %s {", type);
    snprintf(open2, sizeof open2, "struct %s {", type);
    /* "typedef struct X {", or "struct X {" after "typedef struct X X;" */
    const char *p = strstr(text, open1);
    if (!p) {
        p = strstr(text, open2);
    }
    if (!p) {
        return -1;
    }
    p = strchr(p, '{') + 1;
    const char *end = strchr(p, '}');
    if (!end) {
        return -1;
    }
    int n = 0;
    /* each declaration up to ';': declarators separated by commas, each
    ** name the last identifier before '[' or its end */
    while (p < end) {
        const char *semi = memchr(p, ';', (size_t)(end - p));
        if (!semi) {
            break;
        }
        const char *d = p;
        while (d < semi) {
            const char *comma = memchr(d, ',', (size_t)(semi - d));
            const char *stop = comma ? comma : semi;
            const char *br = memchr(d, '[', (size_t)(stop - d));
            const char *q = br ? br : stop;
            while (q > d && !(isalnum((unsigned char)q[-1]) || q[-1] == '_')) {
                q--;
            }
            const char *b = q;
            while (b > d && (isalnum((unsigned char)b[-1]) || b[-1] == '_')) {
                b--;
            }
            if (q > b && n < cap) {
                snprintf(names[n++], 48, "%.*s", (int)(q - b), b);
            }
            d = stop + 1;
        }
        p = semi + 1;
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *src = argc > 1 ? argv[1] : SIMLAB_SOURCE_DIR;
    char path[1024];
    snprintf(path, sizeof path, "%s/experiment/screen_model.h", src);
    char *text = read_all(path);
    CHECK(text != NULL);
    if (!text) {
        return TEST_REPORT();
    }
    strip_comments(text);
    int tables = 0;
    for (size_t t = 0;; t++) {
        const char *type = NULL, *member = NULL, *count = NULL;
        if (serve_view_field(t, 0, &type, &member, &count) < 0) {
            break;
        }
        tables++;
        char names[64][48];
        int n = members(text, type, names, 64);
        CHECK(n > 0);
        if (n <= 0) {
            fprintf(stderr, "%s: no struct %s\n", path, type);
            continue;
        }
        int seen[64] = {0};
        for (size_t k = 0; serve_view_field(t, k, &type, &member, &count) == 1;
             k++) {
            int found = 0;
            for (int i = 0; i < n; i++) {
                if (strcmp(names[i], member) == 0 ||
                    (count && strcmp(names[i], count) == 0)) {
                    seen[i] = 1;
                    found += strcmp(names[i], member) == 0;
                }
            }
            CHECK(found == 1);
            if (found != 1) {
                fprintf(stderr, "%s: the JSON's row %s.%s names no member\n",
                        path, type, member);
            }
        }
        for (int i = 0; i < n; i++) {
            CHECK(seen[i]);
            if (!seen[i]) {
                fprintf(stderr,
                        "%s: %s.%s has no row in serve/serve_view.c's "
                        "table of %s (written, or marked T_UNWRITTEN with "
                        "why)\n",
                        path, type, names[i], type);
            }
        }
    }
    /* the model and every struct it holds */
    CHECK(tables >= 20);
    free(text);
    return TEST_REPORT();
}

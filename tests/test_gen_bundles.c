/*
** The committed demo bundles (assets/studies) are exactly what simlab-gen
** writes from its default seed: the generator runs into a temporary folder
** and every file is compared by size and 64-bit hash with the committed
** tree, in both directions. Also checks the 10 MB size budget.
*/
#define _POSIX_C_SOURCE 200809L

#include "tests/harness.h"
#include "tests/test_util.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stimuli/gen/gen.h"

#define MAX_FILES 1024

typedef struct FileList {
    char *path[MAX_FILES]; /* relative to the root, sorted */
    int n;
} FileList;

static void list_files(const char *root, const char *rel, FileList *out)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s%s%s", root, rel[0] ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        char sub[2048], full[4096];
        snprintf(sub, sizeof sub, "%s%s%s", rel, rel[0] ? "/" : "", e->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (lstat(full, &st) != 0) {
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            list_files(root, sub, out);
        } else if (out->n < MAX_FILES) {
            out->path[out->n] = malloc(strlen(sub) + 1);
            memcpy(out->path[out->n], sub, strlen(sub) + 1);
            out->n++;
        }
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_list(FileList *l)
{
    for (int i = 0; i < l->n; i++) {
        free(l->path[i]);
    }
    l->n = 0;
}

/* FNV-1a over the bytes; size through *size. 0 and size -1 when unreadable.
 */
static uint64_t file_hash(const char *path, long long *size)
{
    FILE *f = fopen(path, "rb");
    uint64_t h = 0xcbf29ce484222325ULL;
    *size = -1;
    if (!f) {
        return 0;
    }
    int c;
    long long n = 0;
    while ((c = fgetc(f)) != EOF) {
        h ^= (unsigned char)c;
        h *= 0x100000001b3ULL;
        n++;
    }
    fclose(f);
    *size = n;
    return h;
}

int main(void)
{
    char tmp[256];
    test_tmpdir(tmp, sizeof tmp, "gen");
    SimError err = {0};
    int rc = gen_write_all(tmp, GEN_DEFAULT_SEED, NULL, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "gen_write_all: %s\n", err.msg);
    }
    CHECK_INT(rc, SIM_OK);

    char committed[2048];
    snprintf(committed, sizeof committed, "%s/assets/studies",
             SIMLAB_SOURCE_DIR);
    FileList want = {{0}, 0}, got = {{0}, 0};
    list_files(committed, "", &want);
    list_files(tmp, "", &got);
    qsort(want.path, (size_t)want.n, sizeof(char *), cmp_str);
    qsort(got.path, (size_t)got.n, sizeof(char *), cmp_str);
    CHECK(want.n > 0);
    CHECK_INT(got.n, want.n);

    /* merge the sorted lists: files on one side only, then content */
    long long total = 0;
    int i = 0, j = 0, differ = 0;
    while (i < want.n || j < got.n) {
        int c = i >= want.n  ? 1
                : j >= got.n ? -1
                             : strcmp(want.path[i], got.path[j]);
        if (c < 0) {
            fprintf(stderr, "committed but not generated: %s\n",
                    want.path[i++]);
            differ++;
        } else if (c > 0) {
            fprintf(stderr, "generated but not committed: %s\n", got.path[j++]);
            differ++;
        } else {
            char a[4096], b[4096];
            long long sa, sb;
            snprintf(a, sizeof a, "%s/%s", committed, want.path[i]);
            snprintf(b, sizeof b, "%s/%s", tmp, got.path[j]);
            uint64_t ha = file_hash(a, &sa), hb = file_hash(b, &sb);
            if (ha != hb || sa != sb || sa < 0) {
                fprintf(stderr,
                        "differs: %s (committed %lld bytes %016llx, "
                        "generated %lld bytes %016llx)\n",
                        want.path[i], sa, (unsigned long long)ha, sb,
                        (unsigned long long)hb);
                differ++;
            }
            total += sa > 0 ? sa : 0;
            i++;
            j++;
        }
    }
    CHECK_INT(differ, 0);
    printf("%d files, %lld bytes\n", want.n, total);
    CHECK(total < 10LL * 1024 * 1024);

    /* every bundle the generator names is there */
    for (int k = 0; k < GEN_N_BUNDLES; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s/study.json", committed,
                 GEN_BUNDLES[k]);
        CHECK(test_path_exists(path));
    }

    free_list(&want);
    free_list(&got);
    test_rmtree(tmp);
    return TEST_REPORT();
}

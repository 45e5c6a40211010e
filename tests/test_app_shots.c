/*
** Piloting screenshots (`simlab run --screenshot-one-per-condition` on
** examples/within in a small window, dummy video driver): one fresh
** autopilot participant per condition, each starting with its condition
** (an override); files named <participant>-<condition>-<block>-<nn>.png
** with nn counting the screens of the block, for every condition of the
** within-subject run; screens taller than the window captured whole (taller
** images, the window's width). Without --screenshot-dir the option is a
** usage error. The verify, decide (with options) and distinction screens
** of tests/data/experiment/mini-protocols in en, de, ar and ja at
** 1280x720, each condition's (kept with SIMLAB_KEEP_TMP, to be looked at).
*/
#include "tests/harness.h"
#include "tests/test_util.h"

#include <dirent.h>
#include <regex.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <string.h>

static int query_int(const char *db_path, const char *sql)
{
    sqlite3 *db;
    int v = -999;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) ==
        SQLITE_OK) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

/* Width and height of a PNG from its IHDR; 0 when it is not one. */
static int png_size(const char *path, unsigned *w, unsigned *h)
{
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(b, 1, sizeof b, f) : 0;
    if (f) {
        fclose(f);
    }
    if (n != sizeof b || memcmp(b, "\x89PNG", 4) != 0) {
        return 0;
    }
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 |
         b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 |
         b[23];
    return 1;
}

static int exists(const char *dir, const char *pid, const char *cond,
                  const char *block, int nn)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s-%s-%s-%02d.png", dir, pid, cond, block,
             nn);
    return test_path_exists(path);
}

/* Copies the mini-protocols bundle into dir with "language": lang. */
static int protocols_copy(const char *dir, const char *lang)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -R '%s/experiment/mini-protocols' '%s'",
             SIMLAB_TEST_DATA, dir);
    if (system(cmd) != 0) {
        return -1;
    }
    char path[800];
    snprintf(path, sizeof path, "%s/study.json", dir);
    FILE *f = fopen(path, "r");
    char text[8192];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    text[n] = '\0';
    const char *at = strstr(text, "\"simlab_study\": 1,");
    f = at ? fopen(path, "w") : NULL;
    if (!f) {
        return -1;
    }
    fprintf(f, "%.*s\"language\": \"%s\", %s", (int)(at - text), text, lang,
            at);
    return fclose(f);
}

/* A file <pid>-<cond>-<block>-01.png of some participant in dir. */
static int shot_of(const char *dir, const char *cond, const char *block)
{
    char tail[200];
    snprintf(tail, sizeof tail, "-%s-%s-01.png", cond, block);
    DIR *d = opendir(dir);
    int found = 0;
    struct dirent *de;
    while (d && !found && (de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name), t = strlen(tail);
        found = n == 8 + t && strcmp(de->d_name + 8, tail) == 0;
    }
    if (d) {
        closedir(d);
    }
    return found;
}

/* The other protocols' screens in four languages, one participant per
** condition: a verify, a decide and a distinction screen of each. */
static void test_protocols(const char *simlab, const char *tmp)
{
    static const char *const langs[] = {"en", "de", "ar", "ja"};
    for (size_t l = 0; l < 4; l++) {
        char bundle[512], db[512], shots[512], cmd[4096];
        snprintf(bundle, sizeof bundle, "%s/protocols-%s", tmp, langs[l]);
        snprintf(db, sizeof db, "%s/protocols-%s.db", tmp, langs[l]);
        snprintf(shots, sizeof shots, "%s/shots-protocols-%s", tmp, langs[l]);
        CHECK_INT(protocols_copy(bundle, langs[l]), 0);
        snprintf(cmd, sizeof cmd,
                 "'%s' run '%s' --db '%s' --screenshot-dir '%s' "
                 "--screenshot-one-per-condition --size 1280x720",
                 simlab, bundle, db, shots);
        CHECK_INT(system(cmd), 0);
        CHECK_INT(query_int(db, "SELECT COUNT(*) FROM participant WHERE "
                                "status = 'completed'"),
                  2);
        static const char *const conds[] = {"human", "grad"};
        static const char *const blocks[] = {"check", "team", "distinction"};
        for (size_t c = 0; c < 2; c++) {
            for (size_t b = 0; b < 3; b++) {
                int ok = shot_of(shots, conds[c], blocks[b]);
                if (!ok) {
                    fprintf(stderr, "%s: no %s %s screen\n", langs[l], conds[c],
                            blocks[b]);
                }
                CHECK(ok);
            }
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_app_shots SIMLAB\n");
        return 2;
    }
    char tmp[256], db[512], shots[512], cmd[4096];
    test_tmpdir(tmp, sizeof tmp, "app-shots");
    snprintf(db, sizeof db, "%s/run.db", tmp);
    snprintf(shots, sizeof shots, "%s/shots", tmp);
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    setenv("SDL_AUDIODRIVER", "dummy", 1);

    snprintf(cmd, sizeof cmd,
             "'%s' run '%s/../../examples/within' --db '%s' "
             "--screenshot-one-per-condition 2>/dev/null",
             argv[1], SIMLAB_TEST_DATA, db);
    CHECK_INT(WEXITSTATUS(system(cmd)), 2); /* needs --screenshot-dir */

    snprintf(cmd, sizeof cmd,
             "'%s' run '%s/../../examples/within' --db '%s' "
             "--screenshot-dir '%s' --screenshot-one-per-condition "
             "--size 640x360 --font-scale 1.6",
             argv[1], SIMLAB_TEST_DATA, db, shots);
    CHECK_INT(system(cmd), 0);

    /* one fresh participant per condition, starting with it */
    CHECK_INT(query_int(db, "SELECT COUNT(*) FROM participant"), 3);
    CHECK_INT(query_int(db, "SELECT COUNT(DISTINCT condition) FROM "
                            "participant WHERE assigned_by = 'override' AND "
                            "status = 'completed'"),
              3);

    regex_t re;
    CHECK_INT(regcomp(&re,
                      "^[0-9a-f]{8}-(baseline|LIME|SHAP)-[A-Za-z0-9._+-]+-"
                      "[0-9]{2}(-[a-z]+)?\\.png$",
                      REG_EXTENDED | REG_NOSUB),
              0);
    char pids[4][9];
    int n_pids = 0, n_files = 0, bad_names = 0, tall = 0, bad_size = 0;
    DIR *d = opendir(shots);
    CHECK(d != NULL);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') {
            continue;
        }
        n_files++;
        if (regexec(&re, de->d_name, 0, NULL, 0) != 0) {
            fprintf(stderr, "bad name: %s\n", de->d_name);
            bad_names++;
            continue;
        }
        int known = 0;
        for (int k = 0; k < n_pids; k++) {
            known |= strncmp(pids[k], de->d_name, 8) == 0;
        }
        if (!known && n_pids < 4) {
            snprintf(pids[n_pids++], 9, "%.8s", de->d_name);
        }
        char path[800];
        unsigned w = 0, h = 0;
        snprintf(path, sizeof path, "%s/%s", shots, de->d_name);
        if (!png_size(path, &w, &h) || w != 640 || h < 360) {
            fprintf(stderr, "%s: %ux%u\n", de->d_name, w, h);
            bad_size++;
        }
        tall += h > 360;
    }
    if (d) {
        closedir(d);
    }
    regfree(&re);
    CHECK_INT(bad_names, 0);
    CHECK_INT(bad_size, 0);
    CHECK_INT(n_pids, 3);
    CHECK(n_files > 3 * 3 * 11);
    CHECK(tall > 0); /* the learn screens do not fit 640x360 at 1.6 */

    /* every participant: every condition's blocks, nn per block */
    static const char *const conds[] = {"baseline", "LIME", "SHAP"};
    int complete = 1;
    for (int p = 0; p < n_pids; p++) {
        for (int c = 0; c < 3; c++) {
            complete &= exists(shots, pids[p], conds[c], "learn", 1) &&
                        exists(shots, pids[p], conds[c], "learn", 4) &&
                        !exists(shots, pids[p], conds[c], "learn", 5) &&
                        exists(shots, pids[p], conds[c], "test", 6) &&
                        !exists(shots, pids[p], conds[c], "test", 7) &&
                        !exists(shots, pids[p], conds[c], "next", 2);
        }
    }
    CHECK(complete);
    /* the break between conditions: twice per participant, not at the end */
    int breaks = 0;
    for (int p = 0; p < n_pids; p++) {
        for (int c = 0; c < 3; c++) {
            breaks += exists(shots, pids[p], conds[c], "next", 1);
        }
    }
    CHECK_INT(breaks, 2 * n_pids);
    test_protocols(argv[1], tmp);
    if (getenv("SIMLAB_KEEP_TMP")) {
        fprintf(stderr, "kept %s\n", tmp);
    } else {
        test_rmtree(tmp);
    }
    return TEST_REPORT();
}

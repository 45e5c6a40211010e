/*
** What a lab can do by mistake must not harm its data: export refuses the
** database (and its -wal, a symbolic link, another spelling, a hard link,
** any SQLite file) as output and leaves it intact; the sidecar's rows and
** sha256 describe the CSV (sha256sum), no stale sidecar or temporary file
** is left; formula-like cells and control characters are neutralised
** unless raw (a NUL is escaped, never cut); station names;
** symbolic links count in the bundle hash; a NUL byte in an item bank CSV
** is a located error.
*/
#include "tests/harness.h"
#include "tests/test_util.h"

#include "experiment/export.h"
#include "experiment/simulate.h"
#include "stimuli/hash.h"
#include "stimuli/study.h"
#include "stimuli/hash.h"

#include <dirent.h>
#include <sqlite3.h>

static char tmp[256];

static int sql_int(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) ==
            SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

static int simulate(const char *bundle, const char *db, int n)
{
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = bundle;
    o.db_path = db;
    o.participants = n;
    o.policy = POLICY_MODEL;
    o.seed = 7;
    o.station = "test";
    o.durability = DURABILITY_FAST;
    o.participant_sd = -1;
    o.item_sd = -1;
    o.wall_ms = 1700000000000LL;
    SimError err;
    int rc = simulate_run(&o, NULL, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "simulate %s: %s\n", bundle, err.msg);
    }
    return rc;
}

/* The whole file in a malloc'd string (NULL if unreadable). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n < 2) {
            char *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                buf = NULL;
                break;
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

static void write_file(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static int count_lines(const char *path)
{
    size_t n = 0;
    char *s = slurp(path, &n);
    int lines = 0;
    for (size_t i = 0; s && i < n; i++) {
        lines += s[i] == '\n';
    }
    free(s);
    return s ? lines : -1;
}

/* SHA-256 of a file as sha256sum (coreutils) prints it; "" when absent. */
static void sha256sum(const char *path, char out[65])
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p) {
        return;
    }
    if (fscanf(p, "%64s", out) != 1) {
        out[0] = '\0';
    }
    pclose(p);
}

/* The value of "key": in a JSON text (integers and strings, enough for the
** sidecar's top-level keys) into out. */
static void json_value(const char *json, const char *key, char *out,
                       size_t size)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = json ? strstr(json, pat) : NULL;
    out[0] = '\0';
    if (!p) {
        return;
    }
    p += strlen(pat);
    p += *p == '"';
    size_t n = strcspn(p, "\",\n");
    snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), p);
}

/* Number of entries of dir whose name contains part. */
static int count_names(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        n += strstr(de->d_name, part) != NULL;
    }
    if (d) {
        closedir(d);
    }
    return n;
}

static void copy_bundle(const char *src, const char *dst)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp -R '%s' '%s'", src, dst);
    CHECK_INT(system(cmd), 0);
}

/* Replaces the first occurrence of from by to in the file at path. */
static void edit_file(const char *path, const char *from, const char *to)
{
    size_t n;
    char *s = slurp(path, &n);
    char *at = s ? strstr(s, from) : NULL;
    CHECK(at != NULL);
    if (at) {
        FILE *f = fopen(path, "wb");
        fwrite(s, 1, (size_t)(at - s), f);
        fputs(to, f);
        fputs(at + strlen(from), f);
        fclose(f);
    }
    free(s);
}

/* ------------------------------------------------------------- refusals */

static void test_refuses_database(const char *db)
{
    const char *count = "SELECT COUNT(*) FROM response";
    int before = sql_int(db, count);
    CHECK(before > 0);
    char sha_before[65], sha_after[65];
    sha256sum(db, sha_before);
    char path[600], wal[600], side[600];
    SimError err;

    /* the database itself, its -wal and -journal (existing or not) */
    CHECK_INT(export_long_csv(db, db, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "refusing") != NULL);
    snprintf(wal, sizeof wal, "%s-wal", db);
    CHECK_INT(export_long_csv(db, wal, &err), SIM_ERR_USAGE);
    snprintf(path, sizeof path, "%s-journal", db);
    CHECK_INT(export_long_csv(db, path, &err), SIM_ERR_USAGE);
    CHECK(!test_path_exists(path));
    /* another spelling, a symbolic link, a hard link */
    snprintf(path, sizeof path, "%s/./sub/../s.db", tmp);
    char sub[300];
    snprintf(sub, sizeof sub, "%s/sub", tmp);
    mkdir(sub, 0755);
    CHECK_INT(export_long_csv(db, path, &err), SIM_ERR_USAGE);
    snprintf(path, sizeof path, "%s/link.csv", tmp);
    CHECK_INT(symlink("s.db", path), 0);
    CHECK_INT(export_long_csv(db, path, &err), SIM_ERR_USAGE);
    snprintf(path, sizeof path, "%s/hard.csv", tmp);
    CHECK_INT(link(db, path), 0);
    CHECK_INT(export_long_csv(db, path, &err), SIM_ERR_USAGE);
    /* a sidecar path onto the database: --csv X where X.json is the db */
    snprintf(path, sizeof path, "%s/sidecar-db.csv.json", tmp);
    CHECK_INT(symlink("s.db", path), 0);
    snprintf(path, sizeof path, "%s/sidecar-db.csv", tmp);
    CHECK_INT(export_long_csv(db, path, &err), SIM_ERR_USAGE);
    CHECK(!test_path_exists(path)); /* nothing written */

    /* the database is intact: same rows, same bytes */
    CHECK_INT(sql_int(db, count), before);
    sha256sum(db, sha_after);
    CHECK(sha_before[0] != '\0');
    CHECK_STR(sha_after, sha_before);

    /* any other SQLite file is refused too */
    snprintf(path, sizeof path, "%s/other.db", tmp);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", db, path);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(export_long_csv(db, path, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "SQLite") != NULL);
    CHECK_INT(sql_int(path, count), before);
    /* a refused export leaves an earlier export and its sidecar alone */
    snprintf(path, sizeof path, "%s/keep.csv", tmp);
    snprintf(side, sizeof side, "%s/keep.csv.json", tmp);
    write_file(path, "old\r\n", 5);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", db, side);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(export_long_csv(db, path, &err), SIM_ERR_USAGE);
    char *old = slurp(path, NULL);
    CHECK_STR(old, "old\r\n");
    free(old);
    CHECK_INT(count_names(tmp, ".tmp-"), 0);
}

/* ------------------------------------------------------- sidecar and sha */

static void check_sidecar(const char *csv, int want_rows)
{
    char side[700], value[128], sha[65];
    snprintf(side, sizeof side, "%s.json", csv);
    char *json = slurp(side, NULL);
    CHECK(json != NULL);
    json_value(json, "rows", value, sizeof value);
    CHECK_INT(atoi(value), want_rows);
    CHECK_INT(count_lines(csv) - 1, want_rows);
    json_value(json, "sha256", value, sizeof value);
    sha256sum(csv, sha);
    CHECK_INT(strlen(sha), 64);
    CHECK_STR(value, sha);
    char mine[65], why[256];
    CHECK_INT(hash_file_sha256(csv, mine, why, sizeof why), 0);
    CHECK_STR(mine, sha);
    free(json);
}

static void test_sidecar(const char *db, const char *db2)
{
    char csv[600], side[700];
    snprintf(csv, sizeof csv, "%s/out.csv", tmp);
    snprintf(side, sizeof side, "%s.json", csv);
    /* a stale sidecar of an earlier export (no sha256) and an old CSV */
    write_file(csv, "participant\r\nx\r\n", 16);
    write_file(side, "{\"rows\": 1}\n", 12);
    SimError err;
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    int rows = sql_int(db, "SELECT COUNT(*) FROM long_format");
    CHECK(rows > 1);
    check_sidecar(csv, rows);
    /* exporting another database onto it: the sidecar follows the CSV */
    CHECK_INT(export_long_csv(db2, csv, &err), SIM_OK);
    int rows2 = sql_int(db2, "SELECT COUNT(*) FROM long_format");
    CHECK(rows2 != rows);
    check_sidecar(csv, rows2);
    CHECK_INT(count_names(tmp, ".tmp-"), 0);
    /* an output folder that does not exist: an error, nothing left */
    snprintf(csv, sizeof csv, "%s/none/out.csv", tmp);
    CHECK_INT(export_long_csv(db, csv, &err), SIM_ERR_IO);
    CHECK(strstr(err.msg, "none/out.csv") != NULL);
}

/* --------------------------------------------------- spreadsheet safety */

static void test_cell_guard(void)
{
    CHECK(export_cell_needs_guard("=1+1"));
    CHECK(export_cell_needs_guard("@SUM(1+1)"));
    CHECK(export_cell_needs_guard("+A1"));
    CHECK(export_cell_needs_guard("-1+2"));
    CHECK(export_cell_needs_guard("-"));
    CHECK(export_cell_needs_guard("\tx"));
    CHECK(export_cell_needs_guard("\rx"));
    CHECK(export_cell_needs_guard("-1e"));
    CHECK(!export_cell_needs_guard("-1"));
    CHECK(!export_cell_needs_guard("+2.5"));
    CHECK(!export_cell_needs_guard("-1.5e-3"));
    CHECK(!export_cell_needs_guard("LIME"));
    CHECK(!export_cell_needs_guard("a=b"));
    CHECK(!export_cell_needs_guard(""));
    CHECK(!export_cell_needs_guard(NULL));
}

static void test_neutralise(void)
{
    char bundle[600], db[600], csv[600], raw[600], path[700];
    snprintf(bundle, sizeof bundle, "%s/formula", tmp);
    copy_bundle(SIMLAB_TEST_DATA "/experiment/mini-forward", bundle);
    snprintf(path, sizeof path, "%s/study.json", bundle);
    /* a condition id that a spreadsheet would run */
    const char *id = "=HYPERLINK(\\\"http://x\\\",\\\"a,b\\\")";
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"id\": \"%s\"", id);
    edit_file(path, "\"id\": \"LIME\"", quoted);
    snprintf(quoted, sizeof quoted, "\"condition\": \"%s\"", id);
    edit_file(path, "\"condition\": \"LIME\"", quoted);
    snprintf(db, sizeof db, "%s/formula.db", tmp);
    CHECK_INT(simulate(bundle, db, 4), SIM_OK);
    snprintf(csv, sizeof csv, "%s/formula.csv", tmp);
    snprintf(raw, sizeof raw, "%s/formula-raw.csv", tmp);
    SimError err;
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    ExportOptions opt = {.raw = 1};
    CHECK_INT(export_long_csv_opt(db, raw, &opt, &err), SIM_OK);
    char *safe = slurp(csv, NULL), *kept = slurp(raw, NULL);
    const char *guarded = ",\"'=HYPERLINK(\"\"http://x\"\",\"\"a,b\"\")\",";
    const char *plain = ",\"=HYPERLINK(\"\"http://x\"\",\"\"a,b\"\")\",";
    CHECK(safe && strstr(safe, guarded) != NULL);
    CHECK(safe && strstr(safe, plain) == NULL);
    CHECK(kept && strstr(kept, plain) != NULL);
    CHECK(kept && strstr(kept, guarded) == NULL);
    /* numbers stay numbers: rt_ms is never quoted or prefixed */
    CHECK(safe && strstr(safe, ",'") == NULL);
    CHECK(safe && strstr(safe, "\"'-") == NULL);
    free(safe);
    free(kept);
    char side[700], value[64];
    snprintf(side, sizeof side, "%s.json", csv);
    char *json = slurp(side, NULL);
    json_value(json, "spreadsheet_safe", value, sizeof value);
    CHECK_STR(value, "true");
    free(json);
    snprintf(side, sizeof side, "%s.json", raw);
    json = slurp(side, NULL);
    json_value(json, "spreadsheet_safe", value, sizeof value);
    CHECK_STR(value, "false");
    free(json);
}

/* 1 when needle[0..m) occurs in hay[0..n). */
static int has_bytes(const char *hay, size_t n, const char *needle, size_t m)
{
    for (size_t i = 0; i + m <= n; i++) {
        if (memcmp(hay + i, needle, m) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Control characters in the data (a hand-edited file): an escape sequence,
** a right-to-left override, a tab and a NUL byte. Neutralised as visible
** escapes, the tab kept in a quoted cell, the NUL neither cut nor written;
** --raw keeps every byte. */
static void test_controls(const char *db0)
{
    char db[600], csv[600], raw[600];
    snprintf(db, sizeof db, "%s/controls.db", tmp);
    char *bytes;
    size_t n;
    bytes = slurp(db0, &n);
    write_file(db, bytes, n);
    free(bytes);
    sqlite3 *h;
    CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
    CHECK_INT(sqlite3_exec(h,
                           "UPDATE response SET station = 'st' || char(27) || "
                           "'[31m' || char(8238) || 'x' || char(9) || 'y', "
                           "response_id = CAST(x'610062' AS TEXT) WHERE "
                           "rowid = (SELECT min(r.rowid) FROM response r "
                           "JOIN trial t ON t.participant = r.participant "
                           "AND t.seq = r.seq WHERE r.done = 1 AND t.phase "
                           "IS NOT NULL)",
                           NULL, NULL, NULL),
              SQLITE_OK);
    sqlite3_close(h);
    snprintf(csv, sizeof csv, "%s/controls.csv", tmp);
    snprintf(raw, sizeof raw, "%s/controls-raw.csv", tmp);
    SimError err;
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    ExportOptions opt = {.raw = 1};
    CHECK_INT(export_long_csv_opt(db, raw, &opt, &err), SIM_OK);
    size_t ns, nr;
    char *safe = slurp(csv, &ns), *kept = slurp(raw, &nr);
    CHECK(safe && kept);
    if (!safe || !kept) {
        free(safe);
        free(kept);
        return;
    }
    CHECK(memchr(safe, 0x1b, ns) == NULL);
    CHECK(memchr(safe, '\0', ns) == NULL);
    CHECK(!has_bytes(safe, ns, "\xE2\x80\xAE", 3));
    CHECK(strstr(safe, ",\"st\\x1B[31m\\u202Ex\ty\",") != NULL);
    CHECK(strstr(safe, ",a\\x00b,") != NULL);
    CHECK(has_bytes(kept, nr, "st\x1b[31m\xE2\x80\xAEx\ty", 13));
    CHECK(has_bytes(kept, nr, ",a\0b,", 5));
    free(safe);
    free(kept);
}

static void test_station_names(void)
{
    CHECK(export_station_name_valid("lab-1.pc_2"));
    CHECK(export_station_name_valid("7"));
    CHECK(!export_station_name_valid("@SUM(1+1)"));
    CHECK(!export_station_name_valid("=HYPERLINK(\"x\")"));
    CHECK(!export_station_name_valid("-cmd"));
    CHECK(!export_station_name_valid(".hidden"));
    CHECK(!export_station_name_valid("a b"));
    CHECK(!export_station_name_valid(""));
    CHECK(!export_station_name_valid(NULL));
    char long_name[80];
    memset(long_name, 'a', sizeof long_name);
    long_name[EXPORT_STATION_NAME_MAX] = '\0';
    CHECK(export_station_name_valid(long_name));
    long_name[EXPORT_STATION_NAME_MAX] = 'a';
    long_name[EXPORT_STATION_NAME_MAX + 1] = '\0';
    CHECK(!export_station_name_valid(long_name));
}

/* ------------------------------------------------------ bundle integrity */

static void test_link_hash(void)
{
    /* golden values: tests/data/hash_bundle.py, the format of stimuli/hash.c
    ** written independently */
    char dir[600], path[700], sub[700], out[65], why[256];
    snprintf(dir, sizeof dir, "%s/hashed", tmp);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK_INT(mkdir(dir, 0755), 0);
    CHECK_INT(mkdir(sub, 0755), 0);
    snprintf(path, sizeof path, "%s/a.txt", dir);
    write_file(path, "hello\n", 6);
    snprintf(path, sizeof path, "%s/sub/b.txt", dir);
    write_file(path, "x", 1);
    CHECK_INT(hash_bundle(dir, out, why, sizeof why), 0);
    /* no links: the hash every earlier version computed */
    CHECK_STR(
        out,
        "0fc6a2d7b0c799fe836bd2b5fa20569f1dd5cbf452a259cf40ab6f5dd64ef260");
    snprintf(path, sizeof path, "%s/l", dir);
    CHECK_INT(symlink("a.txt", path), 0);
    CHECK_INT(hash_bundle(dir, out, why, sizeof why), 0);
    CHECK_STR(
        out,
        "15c11060daff555a5a45851a799094c272551441a81f0eb8530be6b8e27f358a");
    /* retargeting the link changes the hash */
    CHECK_INT(unlink(path), 0);
    CHECK_INT(symlink("sub/b.txt", path), 0);
    CHECK_INT(hash_bundle(dir, out, why, sizeof why), 0);
    CHECK_STR(
        out,
        "cff08e529d6ca7b785d3f455356def67256878e758b5db819032ccc1d7746de4");
    /* so does a changed byte of what it points to */
    char before[65];
    memcpy(before, out, sizeof before);
    snprintf(sub, sizeof sub, "%s/sub/b.txt", dir);
    write_file(sub, "y", 1);
    CHECK_INT(hash_bundle(dir, out, why, sizeof why), 0);
    CHECK(strcmp(out, before) != 0);
    /* links to folders and dangling links count by their target only */
    snprintf(path, sizeof path, "%s/dirlink", dir);
    CHECK_INT(symlink("sub", path), 0);
    snprintf(path, sizeof path, "%s/dangling", dir);
    CHECK_INT(symlink("nowhere", path), 0);
    memcpy(before, out, sizeof before);
    CHECK_INT(hash_bundle(dir, out, why, sizeof why), 0);
    CHECK(strcmp(out, before) != 0);

    /* through study_load, on a real bundle */
    char bundle[600];
    snprintf(bundle, sizeof bundle, "%s/linked", tmp);
    copy_bundle(SIMLAB_TEST_DATA "/experiment/mini-forward", bundle);
    snprintf(path, sizeof path, "%s/notes.md", bundle);
    CHECK_INT(symlink("pages/consent.md", path), 0);
    Study *a = NULL, *b = NULL;
    SimError err;
    CHECK_INT(study_load(bundle, &a, NULL, &err), SIM_OK);
    CHECK_INT(unlink(path), 0);
    CHECK_INT(symlink("pages/debrief.md", path), 0);
    CHECK_INT(study_load(bundle, &b, NULL, &err), SIM_OK);
    CHECK(a && b && strcmp(a->hash, b->hash) != 0);
    study_free(a);
    study_free(b);
}

static void test_path_in_bundle(void)
{
    char bundle[600], path[700], why[256];
    snprintf(bundle, sizeof bundle, "%s/linked", tmp); /* from above */
    snprintf(path, sizeof path, "%s/simlab-data/x.db", bundle);
    CHECK_INT(hash_path_in_bundle(bundle, path, why, sizeof why), 1);
    snprintf(path, sizeof path, "%s/../linked.db", bundle);
    CHECK_INT(hash_path_in_bundle(bundle, path, why, sizeof why), 0);
    snprintf(path, sizeof path, "%s/no/such/../../x.db", bundle);
    CHECK_INT(hash_path_in_bundle(bundle, path, why, sizeof why), 1);
    snprintf(path, sizeof path, "%s/pages/../../elsewhere.db", bundle);
    CHECK_INT(hash_path_in_bundle(bundle, path, why, sizeof why), 0);
    /* a folder outside that is a link into the bundle */
    char link_dir[600];
    snprintf(link_dir, sizeof link_dir, "%s/into", tmp);
    CHECK_INT(symlink("linked/pages", link_dir), 0);
    snprintf(path, sizeof path, "%s/x.db", link_dir);
    CHECK_INT(hash_path_in_bundle(bundle, path, why, sizeof why), 1);
    /* an existing file outside that is a link to a file inside */
    snprintf(path, sizeof path, "%s/to-consent.db", tmp);
    CHECK_INT(symlink("linked/pages/consent.md", path), 0);
    CHECK_INT(hash_path_in_bundle(bundle, path, why, sizeof why), 1);
    CHECK_INT(hash_path_in_bundle("/no/such/bundle", path, why, sizeof why),
              -1);
}

static void test_nul_in_csv(void)
{
    char bundle[600], path[700];
    snprintf(bundle, sizeof bundle, "%s/nul", tmp);
    copy_bundle(SIMLAB_TEST_DATA "/bundles/valid-hase-fwd", bundle);
    snprintf(path, sizeof path, "%s/items.csv", bundle);
    size_t n;
    char *s = slurp(path, &n);
    char *at = s ? strstr(s, "d2,dev,bad") : NULL;
    CHECK(at != NULL);
    if (!at) {
        free(s);
        return;
    }
    at[9] = '\0'; /* "ba\0" in the text cell of line 3 */
    write_file(path, s, n);
    free(s);
    StudyReport rep;
    study_report_init(&rep);
    Study *st = NULL;
    SimError err;
    CHECK(study_load(bundle, &st, &rep, &err) != SIM_OK);
    int found = 0;
    for (size_t i = 0; i < rep.n_errors; i++) {
        const Diag *d = &rep.errors[i];
        if (strstr(d->message, "NUL byte")) {
            found++;
            CHECK_STR(d->file, "items.csv");
            CHECK_INT(d->line, 3);
            CHECK_STR(d->field, "text");
            CHECK(strstr(d->message, "column 3") != NULL);
        }
    }
    CHECK_INT(found, 1);
    study_report_free(&rep);
    study_free(st);
}

int main(void)
{
    test_tmpdir(tmp, sizeof tmp, "export");
    char db[600], db2[600];
    snprintf(db, sizeof db, "%s/s.db", tmp);
    snprintf(db2, sizeof db2, "%s/t.db", tmp);
    CHECK_INT(simulate(SIMLAB_TEST_DATA "/experiment/mini-forward", db, 3),
              SIM_OK);
    CHECK_INT(simulate(SIMLAB_TEST_DATA "/experiment/mini-forward", db2, 1),
              SIM_OK);
    test_refuses_database(db);
    test_sidecar(db, db2);
    test_cell_guard();
    test_neutralise();
    test_controls(db);
    test_station_names();
    test_link_hash();
    test_path_in_bundle();
    test_nul_in_csv();
    test_rmtree(tmp);
    return TEST_REPORT();
}

/*
** Export: the database's long_format view written as simlab long format v1
** (RFC 4180 CSV with CRLF row ends, quoting through libcsv) plus a JSON
** sidecar describing the columns, the study, the software and the timing
** setup. Files are written beside their destination, synced and renamed
** into place, the CSV first and the sidecar last; the database and any
** other SQLite file are never overwritten. SQLite, libcsv, jansson, POSIX
** files; no clock.
*/
#define _XOPEN_SOURCE 700
#include "experiment/export.h"
#include "experiment/export_int.h"

#include "common/sim_alloc.h"
#include "common/sim_columns.h"
#include "common/sim_escape.h"
#include "common/sim_text.h"
#include "experiment/store.h"
#include "stimuli/hash.h"

#include <csv.h>
#include <jansson.h>
#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A plain decimal number ("-1", "+2.5", "1e-3"): a spreadsheet reads it
** as a number, never as a formula. */
static int is_plain_number(const char *v)
{
    const char *p = v + (*v == '+' || *v == '-');
    size_t digits = strspn(p, "0123456789");
    p += digits;
    if (*p == '.') {
        size_t frac = strspn(p + 1, "0123456789");
        digits += frac;
        p += 1 + frac;
    }
    if (digits == 0) {
        return 0;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        size_t exp = strspn(p, "0123456789");
        if (exp == 0) {
            return 0;
        }
        p += exp;
    }
    return *p == '\0';
}

int export_cell_needs_guard(const char *v)
{
    return v && v[0] && strchr("=+-@\t\r", v[0]) && !is_plain_number(v);
}

/* A text cell of n bytes. Unless raw: control characters (C0 but tab, CR
** and LF; DEL; C1; the bidirectional controls U+202A-U+202E and
** U+2066-U+2069) are written as visible escapes (\x1B, \u202E; a NUL byte
** as \x00, never an end), and a cell a spreadsheet would run as a formula
** gets a leading '. A cell with a comma, a quote, tab, CR or LF is quoted
** (RFC 4180). */
static void write_field(FILE *f, const char *v, size_t n, int raw)
{
    if (!v) {
        return;
    }
    SimBuf clean;
    sim_buf_init(&clean);
    if (!raw && sim_escape_needed(v, n, SIM_ESC_KEEP_WS)) {
        sim_escape_append(&clean, v, n, SIM_ESC_KEEP_WS);
        if (!clean.oom) {
            v = sim_buf_cstr(&clean);
            n = clean.len;
        }
    }
    /* a leading ' makes spreadsheets show the text instead of running it
    ** as a formula; such a cell is quoted whole */
    if (!raw && export_cell_needs_guard(v)) {
        SimBuf g;
        sim_buf_init(&g);
        sim_buf_puts(&g, "'");
        sim_buf_append(&g, v, n);
        csv_fwrite(f, sim_buf_cstr(&g), g.len);
        sim_buf_free(&g);
    } else if (memchr(v, ',', n) || memchr(v, '"', n) || memchr(v, '\r', n) ||
               memchr(v, '\n', n) || memchr(v, '\t', n)) {
        csv_fwrite(f, v, n);
    } else {
        fwrite(v, 1, n, f);
    }
    sim_buf_free(&clean);
}

void export_write_text(FILE *f, sqlite3_stmt *s, int c, int raw)
{
    const char *v = (const char *)sqlite3_column_text(s, c);
    write_field(f, v, v ? (size_t)sqlite3_column_bytes(s, c) : 0, raw);
}

int export_station_name_valid(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > EXPORT_STATION_NAME_MAX) {
        return 0;
    }
    char c = name[0];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9'))) {
        return 0;
    }
    return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789-_.") == n;
}

/* 1 when the long_format view of db has a column name. */
static int view_has(sqlite3 *db, const char *name)
{
    sqlite3_stmt *s;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT * FROM long_format LIMIT 0", -1, &s,
                           NULL) != SQLITE_OK) {
        return 0;
    }
    for (int c = 0; c < sqlite3_column_count(s) && !found; c++) {
        const char *n = sqlite3_column_name(s, c);
        found = n && strcmp(n, name) == 0;
    }
    sqlite3_finalize(s);
    return found;
}

static int write_csv(sqlite3 *db, const char *db_path, FILE *f,
                     const char *csv_path, int raw, int *n_rows, SimError *err)
{
    /* the exported columns of common/sim_columns.h; a file from before a
    ** column (opened read-only, not migrated) gives its stated value */
    SimBuf sql;
    sim_buf_init(&sql);
    sim_buf_puts(&sql, "SELECT ");
    int n_cols = 0;
    for (int i = 0; i < SIM_COL_COUNT; i++) {
        const SimColumn *c = sim_column((SimColumnId)i);
        if (!(c->where & SIM_COL_EXPORT)) {
            continue;
        }
        if (c->missing && !view_has(db, c->name)) {
            sim_buf_printf(&sql, "%s%s AS %s", n_cols ? ", " : "", c->missing,
                           c->name);
        } else {
            sim_buf_printf(&sql, "%s%s", n_cols ? ", " : "", c->name);
        }
        n_cols++;
    }
    sim_buf_puts(&sql, " FROM long_format");
    sqlite3_stmt *s;
    if (sql.oom ||
        sqlite3_prepare_v2(db, sim_buf_cstr(&sql), -1, &s, NULL) != SQLITE_OK) {
        sim_buf_free(&sql);
        return sim_fail(err, SIM_ERR_DB, "%s: read long_format: %s", db_path,
                        sqlite3_errmsg(db));
    }
    sim_buf_free(&sql);
    for (int i = 0, k = 0; i < SIM_COL_COUNT; i++) {
        const SimColumn *c = sim_column((SimColumnId)i);
        if (c->where & SIM_COL_EXPORT) {
            fprintf(f, "%s%s", k++ ? "," : "", c->name);
        }
    }
    fputs("\r\n", f);
    int step, rows = 0;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        for (int c = 0; c < n_cols; c++) {
            if (c) {
                fputc(',', f);
            }
            int type = sqlite3_column_type(s, c);
            if (type == SQLITE_NULL) {
                continue;
            } else if (type == SQLITE_FLOAT) {
                fprintf(f, "%.3f", sqlite3_column_double(s, c));
            } else {
                export_write_text(f, s, c, raw);
            }
        }
        fputs("\r\n", f);
        rows++;
    }
    int rc = SIM_OK;
    if (step != SQLITE_DONE) {
        rc = sim_fail(err, SIM_ERR_DB, "%s: read long_format: %s", db_path,
                      sqlite3_errmsg(db));
    } else if (ferror(f)) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: write failed", csv_path);
    }
    sqlite3_finalize(s);
    *n_rows = rows;
    return rc;
}

static json_t *query_objects(sqlite3 *db, const char *sql)
{
    json_t *arr = json_array();
    sqlite3_stmt *s;
    if (!arr || sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        return arr;
    }
    while (sqlite3_step(s) == SQLITE_ROW) {
        json_t *o = json_object();
        for (int c = 0; c < sqlite3_column_count(s); c++) {
            const char *name = sqlite3_column_name(s, c);
            switch (sqlite3_column_type(s, c)) {
            case SQLITE_INTEGER:
                json_object_set_new(o, name,
                                    json_integer(sqlite3_column_int64(s, c)));
                break;
            case SQLITE_FLOAT:
                json_object_set_new(o, name,
                                    json_real(sqlite3_column_double(s, c)));
                break;
            case SQLITE_NULL:
                json_object_set_new(o, name, json_null());
                break;
            default: {
                const char *v = (const char *)sqlite3_column_text(s, c);
                /* details of display events are JSON themselves */
                json_t *parsed = NULL;
                if (strcmp(name, "detail") == 0 && v && v[0] == '{') {
                    parsed = json_loads(v, 0, NULL);
                }
                json_object_set_new(o, name, parsed ? parsed : json_string(v));
            }
            }
        }
        json_array_append_new(arr, o);
    }
    sqlite3_finalize(s);
    return arr;
}

/* The sidecar's JSON: rows and sha256 describe the CSV written with it. */
static json_t *sidecar_json(sqlite3 *db, const char *db_path, int n_rows,
                            const char *sha256, int raw)
{
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string("simlab long format v1"));
    json_object_set_new(root, "software",
                        json_string("simlab " SIMLAB_VERSION));
    const char *base = strrchr(db_path, '/');
    json_object_set_new(root, "database",
                        json_string(base ? base + 1 : db_path));
    json_object_set_new(root, "rows", json_integer(n_rows));
    json_object_set_new(root, "sha256", json_string(sha256));
    json_object_set_new(root, "spreadsheet_safe", json_boolean(!raw));

    json_t *cols = json_array();
    for (int i = 0; i < SIM_COL_COUNT; i++) {
        const SimColumn *c = sim_column((SimColumnId)i);
        if (c->where & SIM_COL_EXPORT) {
            json_array_append_new(
                cols, json_pack("{s:s, s:s, s:b, s:s}", "name", c->name, "type",
                                c->type, "required", c->required, "description",
                                c->meaning));
        }
    }
    json_object_set_new(root, "columns", cols);

    json_t *studies = json_array();
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db,
                           "SELECT study_id, title, hash, definition, software,"
                           " created_ms FROM study ORDER BY id",
                           -1, &s, NULL) == SQLITE_OK) {
        while (sqlite3_step(s) == SQLITE_ROW) {
            const char *def = (const char *)sqlite3_column_text(s, 3);
            json_t *parsed = def ? json_loads(def, 0, NULL) : NULL;
            json_array_append_new(
                studies,
                json_pack("{s:s?, s:s?, s:s?, s:o, s:s?, s:I}", "id",
                          (const char *)sqlite3_column_text(s, 0), "title",
                          (const char *)sqlite3_column_text(s, 1), "hash",
                          (const char *)sqlite3_column_text(s, 2), "definition",
                          parsed ? parsed : json_null(), "software",
                          (const char *)sqlite3_column_text(s, 4), "created_ms",
                          (json_int_t)sqlite3_column_int64(s, 5)));
        }
        sqlite3_finalize(s);
    }
    json_object_set_new(root, "studies", studies);
    json_object_set_new(
        root, "participants",
        query_objects(db, "SELECT id, code, condition, assigned_by, station, "
                          "pilot, simulated, status, excluded, "
                          "exclusion_reason, seed, created_ms, finished_ms "
                          "FROM participant ORDER BY created_ms, id"));
    /* within-subject orders (schema 6; an older file has none) */
    json_object_set_new(
        root, "condition_orders",
        query_objects(db, "SELECT id AS participant, condition_order AS "
                          "conditions, order_row AS latin_square_row FROM "
                          "participant WHERE condition_order IS NOT NULL "
                          "ORDER BY created_ms, id"));
    json_object_set_new(
        root, "screening",
        query_objects(db, "SELECT participant, rule, passed, detail FROM "
                          "screening ORDER BY rowid"));
    json_t *timing = json_object();
    json_object_set_new(
        timing, "clock",
        json_string("onset_ns and response_ns come from the station's "
                    "monotonic high-resolution clock; onset is taken right "
                    "after the first present that shows the stimulus, the "
                    "response when the input event is taken from the OS"));
    json_object_set_new(
        timing, "display",
        query_objects(db, "SELECT participant, detail, wall_ms FROM event "
                          "WHERE kind = 'display' ORDER BY id"));
    json_object_set_new(
        timing, "missed_frames",
        query_objects(db, "SELECT participant, COUNT(*) AS n FROM event "
                          "WHERE kind = 'missed_frame' GROUP BY participant"));
    /* `simlab selftest --db` reports (schema 8; none in older files) */
    json_object_set_new(
        timing, "stations",
        query_objects(db, "SELECT station, created_ms, virtual_display, "
                          "report AS detail FROM station_timing ORDER BY "
                          "id"));
    json_object_set_new(root, "timing", timing);

    return root;
}

/* ------------------------------------------------------- safe destinations */

static const char *const DB_FILES[] = {"", "-wal", "-shm", "-journal"};
#define N_DB_FILES (sizeof DB_FILES / sizeof DB_FILES[0])

/* path with its folder's symbolic links resolved ("dir/name" -> "/real/
** dir/name"); malloc'd, or NULL when the folder does not resolve. */
static char *resolved_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dn = slash ? (size_t)(slash - path) : 1;
    char *dir = malloc(dn + 2);
    if (!dir) {
        return NULL;
    }
    if (slash) {
        memcpy(dir, path, dn);
        dir[dn] = '\0';
        if (dn == 0) {
            dir[0] = '/', dir[1] = '\0';
        }
    } else {
        dir[0] = '.', dir[1] = '\0';
    }
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real) {
        return NULL;
    }
    size_t n = strlen(real) + strlen(base) + 2;
    char *out = malloc(n);
    if (out) {
        snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base);
    }
    free(real);
    return out;
}

static int same_name(const char *a, const char *b, const char *suffix)
{
    if (!a || !b) {
        return 0;
    }
    size_t n = strlen(b);
    return strncmp(a, b, n) == 0 && strcmp(a + n, suffix) == 0;
}

/* 1 if the open file or path (stat'ed as st) is the database or one of its
** companion files. */
static int is_db_file(const char *db_path, const struct stat *st)
{
    char name[4200];
    for (size_t i = 0; i < N_DB_FILES; i++) {
        struct stat ds;
        snprintf(name, sizeof name, "%s%s", db_path, DB_FILES[i]);
        if (stat(name, &ds) == 0 && ds.st_dev == st->st_dev &&
            ds.st_ino == st->st_ino) {
            return 1;
        }
    }
    return 0;
}

/* Refuses (SIM_ERR_USAGE) an output path that names or resolves to the
** database, its -wal, -shm or -journal file, or any existing SQLite
** database, and one that cannot be replaced by a file. */
static int check_destination(const char *db_path, const char *out,
                             SimError *err)
{
    int bad = 0;
    char *out_names[2] = {resolved_name(out), realpath(out, NULL)};
    char *db_names[2] = {resolved_name(db_path), realpath(db_path, NULL)};
    for (size_t i = 0; i < N_DB_FILES && !bad; i++) {
        for (int a = 0; a < 2; a++) {
            for (int b = 0; b < 2; b++) {
                bad |= same_name(out_names[a], db_names[b], DB_FILES[i]);
            }
        }
    }
    for (int k = 0; k < 2; k++) {
        free(out_names[k]);
        free(db_names[k]);
    }
    struct stat st;
    int sqlite_file = 0;
    if (!bad && stat(out, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            return sim_fail(err, SIM_ERR_USAGE, "%s: is a folder", out);
        }
        bad = is_db_file(db_path, &st);
        FILE *f = bad ? NULL : fopen(out, "rb");
        if (f) {
            char head[16];
            sqlite_file = fread(head, 1, sizeof head, f) == sizeof head &&
                          memcmp(head, "SQLite format 3", sizeof head) == 0;
            fclose(f);
        }
    }
    if (bad) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: is the database %s (or its -wal, -shm or "
                        "-journal file); refusing to overwrite it, choose "
                        "another output file",
                        out, db_path);
    }
    if (sqlite_file) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "%s: is an SQLite database; refusing to overwrite it, "
                        "choose another output file",
                        out);
    }
    return SIM_OK;
}

/* A new empty file beside dest, named ".<name>.tmp-<pid>-<k>", opened for
** writing with the permissions a new file gets (0666 less the umask). */
static FILE *open_temp(const char *dest, char **tmp_out, SimError *err)
{
    *tmp_out = NULL;
    const char *slash = strrchr(dest, '/');
    int dn = slash ? (int)(slash - dest) + 1 : 0;
    const char *base = slash ? slash + 1 : dest;
    size_t n = strlen(dest) + 48;
    char *tmp = sim_malloc(n);
    if (!tmp) {
        sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    for (int k = 0; k < 100; k++) {
        snprintf(tmp, n, "%.*s.%s.tmp-%ld-%d", dn, dest, base, (long)getpid(),
                 k);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd >= 0) {
            FILE *f = fdopen(fd, "wb");
            if (!f) {
                close(fd);
                unlink(tmp);
                break;
            }
            *tmp_out = tmp;
            return f;
        }
        if (errno != EEXIST) {
            break;
        }
    }
    sim_fail(err, SIM_ERR_IO, "%s: cannot create a file beside it: %s", dest,
             strerror(errno));
    sim_free(tmp);
    return NULL;
}

/* Flushes, syncs and closes f (written to tmp). */
static int finish_temp(FILE *f, const char *tmp, const char *dest,
                       SimError *err)
{
    int bad = fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
    int saved = errno;
    bad |= fclose(f) != 0;
    if (bad) {
        return sim_fail(err, SIM_ERR_IO, "%s: write failed (%s): %s", dest, tmp,
                        strerror(saved ? saved : errno));
    }
    return SIM_OK;
}

/* Makes the last renames and removals in dest's folder durable. */
static void sync_folder(const char *dest)
{
    char *dir = resolved_name(dest);
    if (!dir) {
        return;
    }
    char *slash = strrchr(dir, '/');
    if (slash) {
        slash[slash == dir ? 1 : 0] = '\0';
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    free(dir);
}

static int write_json(json_t *root, FILE *f, const char *path, SimError *err)
{
    if (json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0 ||
        fputc('\n', f) == EOF) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot write sidecar", path);
    }
    return SIM_OK;
}

static int export_to_stdout(Store *store, const char *db_path, int raw,
                            SimError *err)
{
    struct stat st;
    if (fstat(STDOUT_FILENO, &st) == 0 && is_db_file(db_path, &st)) {
        return sim_fail(err, SIM_ERR_USAGE,
                        "standard output is the database %s; refusing to "
                        "write there",
                        db_path);
    }
    int n_rows = 0;
    int rc =
        write_csv(store_db(store), db_path, stdout, "-", raw, &n_rows, err);
    if (rc == SIM_OK && fflush(stdout) != 0) {
        rc = sim_fail(err, SIM_ERR_IO, "standard output: write failed: %s",
                      strerror(errno));
    }
    return rc;
}

int export_long_csv_opt(const char *db_path, const char *csv_path,
                        const ExportOptions *opt, SimError *err)
{
    int raw = opt && opt->raw;
    Store *store;
    int rc = store_open_readonly(db_path, &store, err);
    if (rc != SIM_OK) {
        return rc;
    }
    if (strcmp(csv_path, "-") == 0) {
        rc = export_to_stdout(store, db_path, raw, err);
        store_close(store);
        return rc;
    }
    char *side = NULL, *csv_tmp = NULL, *side_tmp = NULL;
    char *spath[EXPORT_N_SIDES] = {NULL}, *s_tmp[EXPORT_N_SIDES] = {NULL};
    int present[EXPORT_N_SIDES];
    for (size_t k = 0; k < EXPORT_N_SIDES; k++) {
        present[k] = EXPORT_SIDES[k].present(store_db(store));
    }
    json_t *root = NULL;
    size_t n = strlen(csv_path) + 6;
    side = sim_malloc(n);
    if (!side) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        goto cleanup;
    }
    snprintf(side, n, "%s.json", csv_path);
    rc = check_destination(db_path, csv_path, err);
    if (rc == SIM_OK) {
        rc = check_destination(db_path, side, err);
    }
    for (size_t k = 0; rc == SIM_OK && k < EXPORT_N_SIDES; k++) {
        if (!present[k]) {
            continue;
        }
        spath[k] = export_side_path(csv_path, EXPORT_SIDES[k].suffix);
        rc = spath[k] ? check_destination(db_path, spath[k], err)
                      : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        if (rc == SIM_OK && strcmp(spath[k], csv_path) == 0) {
            rc = sim_fail(err, SIM_ERR_USAGE,
                          "%s: the %s would be written over the long "
                          "format; name the CSV *.csv",
                          csv_path, EXPORT_SIDES[k].what);
        }
    }
    if (rc != SIM_OK) {
        goto cleanup;
    }
    /* 1. the CSV, beside its destination, synced */
    FILE *f = open_temp(csv_path, &csv_tmp, err);
    if (!f) {
        rc = err->code;
        goto cleanup;
    }
    int n_rows = 0;
    rc = write_csv(store_db(store), db_path, f, csv_path, raw, &n_rows, err);
    if (rc != SIM_OK) {
        fclose(f);
        goto cleanup;
    }
    rc = finish_temp(f, csv_tmp, csv_path, err);
    if (rc != SIM_OK) {
        goto cleanup;
    }
    /* 2. its sidecar, describing exactly those bytes, synced */
    char sha[65], why[512];
    if (hash_file_sha256(csv_tmp, sha, why, sizeof why) != 0) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: %s", csv_path, why);
        goto cleanup;
    }
    root = sidecar_json(store_db(store), db_path, n_rows, sha, raw);
    for (size_t k = 0; k < EXPORT_N_SIDES; k++) {
        /* 2b. the questionnaire answers, the interactions: each described
        ** in the sidecar too */
        if (!present[k]) {
            continue;
        }
        const ExportSide *x = &EXPORT_SIDES[k];
        int rows = 0;
        f = open_temp(spath[k], &s_tmp[k], err);
        if (!f) {
            rc = err->code;
            goto cleanup;
        }
        rc = x->write(store_db(store), db_path, f, spath[k], raw, &rows, err);
        if (rc != SIM_OK) {
            fclose(f);
            goto cleanup;
        }
        rc = finish_temp(f, s_tmp[k], spath[k], err);
        if (rc == SIM_OK &&
            hash_file_sha256(s_tmp[k], sha, why, sizeof why) != 0) {
            rc = sim_fail(err, SIM_ERR_IO, "%s: %s", spath[k], why);
        }
        if (rc != SIM_OK) {
            goto cleanup;
        }
        const char *base = strrchr(spath[k], '/');
        json_t *q = json_object();
        json_object_set_new(q, "file", json_string(base ? base + 1 : spath[k]));
        json_object_set_new(q, "rows", json_integer(rows));
        json_object_set_new(q, "sha256", json_string(sha));
        json_object_set_new(q, "columns", export_side_columns(x));
        json_object_set_new(root, x->key, q);
    }
    f = open_temp(side, &side_tmp, err);
    if (!f) {
        rc = err->code;
        goto cleanup;
    }
    rc = write_json(root, f, side, err);
    if (rc != SIM_OK) {
        fclose(f);
        goto cleanup;
    }
    rc = finish_temp(f, side_tmp, side, err);
    if (rc != SIM_OK) {
        goto cleanup;
    }
    /* 3. into place: no old sidecar may describe the new CSV, so it goes
    ** first; then the CSV; the new sidecar last */
    if (unlink(side) != 0 && errno != ENOENT) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: cannot remove the old sidecar: %s",
                      side, strerror(errno));
        goto cleanup;
    }
    sync_folder(side);
    if (rename(csv_tmp, csv_path) != 0) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: cannot rename %s into place: %s",
                      csv_path, csv_tmp, strerror(errno));
        goto cleanup;
    }
    sim_free(csv_tmp);
    csv_tmp = NULL;
    sync_folder(csv_path);
    for (size_t k = 0; k < EXPORT_N_SIDES; k++) {
        if (s_tmp[k] && rename(s_tmp[k], spath[k]) != 0) {
            rc =
                sim_fail(err, SIM_ERR_IO, "%s: cannot rename %s into place: %s",
                         spath[k], s_tmp[k], strerror(errno));
            goto cleanup;
        }
        sim_free(s_tmp[k]);
        s_tmp[k] = NULL;
    }
    if (rename(side_tmp, side) != 0) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: cannot rename %s into place: %s",
                      side, side_tmp, strerror(errno));
        goto cleanup;
    }
    sim_free(side_tmp);
    side_tmp = NULL;
    sync_folder(side);
cleanup:
    if (csv_tmp) {
        unlink(csv_tmp);
    }
    if (side_tmp) {
        unlink(side_tmp);
    }
    for (size_t k = 0; k < EXPORT_N_SIDES; k++) {
        if (s_tmp[k]) {
            unlink(s_tmp[k]);
        }
        sim_free(s_tmp[k]);
        sim_free(spath[k]);
    }
    sim_free(csv_tmp);
    sim_free(side_tmp);
    sim_free(side);
    json_decref(root);
    store_close(store);
    return rc;
}

int export_long_csv(const char *db_path, const char *csv_path, SimError *err)
{
    return export_long_csv_opt(db_path, csv_path, NULL, err);
}

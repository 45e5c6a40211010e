/*
** CSV files read whole with libcsv into a table of strings, each record
** tagged with the physical line on which it starts (quoted fields may span
** lines; CRLF and LF row ends). A NUL byte in a cell is an error (the cell
** would be cut short there). libc and libcsv only.
*/
#include "stimuli/study_int.h"

#include <csv.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

typedef struct CsvState {
    Loader *L;
    const char *rel; /* the file, bundle-relative */
    int line;        /* physical line being parsed */
    CsvTable *t;
    char **cells; /* fields of the record being read */
    size_t n_cells, cap_cells;
    int rec_line;
    int awaiting; /* between records: the next non-blank line starts one */
    size_t cap_rows;
    int failed;
} CsvState;

/* Copies a field, turning CRLF inside quoted cells into LF. */
static char *copy_field(const char *s, size_t n)
{
    char *d = sim_malloc(n + 1);
    if (!d) {
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\r' && i + 1 < n && s[i + 1] == '\n') {
            continue;
        }
        d[k++] = s[i];
    }
    d[k] = '\0';
    return d;
}

/* A NUL byte at offset at of the cell that just ended on line cs->line:
** located error, naming the column (by its header name once known). */
static void nul_in_cell(CsvState *cs, const char *field, size_t len, size_t at)
{
    int line = cs->line;
    for (size_t i = at + 1; i < len; i++) {
        line -= field[i] == '\n';
    }
    size_t col = cs->n_cells; /* 0-based */
    const CsvTable *t = cs->t;
    if (t->header && col < t->n_cols) {
        ld_diag(cs->L, 0, cs->rel, line, 0, NULL, t->header[col],
                "NUL byte in the cell (column %zu, byte %zu of the cell)",
                col + 1, at + 1);
    } else {
        ld_diag(cs->L, 0, cs->rel, line, 0, NULL, NULL,
                "NUL byte in column %zu of the %s (byte %zu of the cell)",
                col + 1, t->header ? "record" : "header", at + 1);
    }
    cs->failed = 1;
}

static void on_field(void *field, size_t len, void *data)
{
    CsvState *cs = data;
    if (cs->failed) {
        return;
    }
    const char *nul = field ? memchr(field, '\0', len) : NULL;
    if (nul) {
        nul_in_cell(cs, field, len, (size_t)(nul - (const char *)field));
        return;
    }
    if (ld_grow(cs->L, (void **)&cs->cells, &cs->cap_cells, cs->n_cells + 1,
                sizeof *cs->cells) != 0) {
        cs->failed = 1;
        return;
    }
    char *f = copy_field(field ? field : "", field ? len : 0);
    if (!f) {
        cs->L->oom = 1;
        cs->failed = 1;
        return;
    }
    cs->cells[cs->n_cells++] = f;
}

static void free_cells(char **cells, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(cells[i]);
    }
    sim_free(cells);
}

static void on_record(int c, void *data)
{
    (void)c;
    CsvState *cs = data;
    cs->awaiting = 1;
    if (cs->failed) {
        return;
    }
    CsvTable *t = cs->t;
    if (!t->header) {
        t->header = cs->cells;
        t->n_cols = cs->n_cells;
        t->header_line = cs->rec_line;
    } else {
        if (ld_grow(cs->L, (void **)&t->rows, &cs->cap_rows, t->n_rows + 1,
                    sizeof *t->rows) != 0) {
            free_cells(cs->cells, cs->n_cells);
            cs->failed = 1;
        } else {
            CsvRow *r = &t->rows[t->n_rows++];
            r->cells = cs->cells;
            r->n = cs->n_cells;
            r->line = cs->rec_line;
        }
    }
    cs->cells = NULL;
    cs->n_cells = cs->cap_cells = 0;
}

/* A line that libcsv skips between records: it ignores blanks before a
** record and line ends without one. */
static int is_blank_line(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n') {
            return 0;
        }
    }
    return 1;
}

static int line_of_offset(const char *s, size_t off)
{
    int line = 1;
    for (size_t i = 0; i < off; i++) {
        line += s[i] == '\n';
    }
    return line;
}

int csv_table_read(Loader *L, const char *rel, CsvTable *t, char *path_why,
                   size_t path_why_size)
{
    memset(t, 0, sizeof *t);
    char *data = NULL;
    size_t len = 0;
    int rc = read_bundle_file(L, rel, &data, &len, path_why, path_why_size);
    if (rc != 0) {
        return rc; /* -2: the caller reports where the path was named */
    }
    size_t bad;
    if (!sim_utf8_valid(data, len, &bad)) {
        ld_diag(L, 0, rel, line_of_offset(data, bad), 0, NULL, NULL,
                "invalid UTF-8 (byte %zu)", bad);
        sim_free(data);
        return -1;
    }
    const char *p = data;
    size_t left = len;
    if (left >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
        p += 3; /* byte order mark */
        left -= 3;
    }
    struct csv_parser parser;
    if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) !=
        0) {
        L->oom = 1;
        sim_free(data);
        return -1;
    }
    csv_set_realloc_func(&parser, sim_realloc);
    csv_set_free_func(&parser, sim_free);
    CsvState cs = {.L = L, .rel = rel, .t = t, .awaiting = 1};
    int line = 1;
    rc = 0;
    while (left > 0 && !cs.failed) {
        const char *nl = memchr(p, '\n', left);
        size_t n = nl ? (size_t)(nl - p) + 1 : left;
        cs.line = line;
        if (cs.awaiting && !is_blank_line(p, n)) {
            cs.rec_line = line;
            cs.awaiting = 0;
        }
        if (csv_parse(&parser, p, n, on_field, on_record, &cs) != n) {
            if (csv_error(&parser) == CSV_ENOMEM) {
                L->oom = 1;
                rc = -1;
                break;
            }
            ld_diag(L, 0, rel, line, 0, NULL, NULL, "malformed CSV: %s",
                    csv_strerror(csv_error(&parser)));
            rc = -1;
            break;
        }
        p += n;
        left -= n;
        line++;
    }
    if (rc == 0 && !cs.failed &&
        csv_fini(&parser, on_field, on_record, &cs) != 0) {
        ld_diag(L, 0, rel, cs.rec_line, 0, NULL, NULL,
                "malformed CSV: %s (a quoted field is not closed)",
                csv_strerror(csv_error(&parser)));
        rc = -1;
    }
    csv_free(&parser);
    free_cells(cs.cells, cs.n_cells);
    sim_free(data);
    if (cs.failed) {
        rc = -1;
    }
    if (rc == 0 && !t->header) {
        ld_diag(L, 0, rel, 1, 0, NULL, NULL, "empty CSV file (no header row)");
        rc = -1;
    }
    return rc;
}

void csv_table_free(CsvTable *t)
{
    if (!t) {
        return;
    }
    free_cells(t->header, t->n_cols);
    for (size_t i = 0; i < t->n_rows; i++) {
        free_cells(t->rows[i].cells, t->rows[i].n);
    }
    sim_free(t->rows);
    memset(t, 0, sizeof *t);
}

long csv_col(const CsvTable *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++) {
        if (strcmp(t->header[i], name) == 0) {
            return (long)i;
        }
    }
    return -1;
}

/*
** The writers of report.md, report.tex (booktabs), the CSV tables and
** report.json: a frame (the run's settings) around the report's tables,
** each rendered from its column list alone. Proportions print as
** percentages in md/tex and as fractions in CSV and JSON; text cells of
** CSV files are neutralised against spreadsheet formulas. The output folder
** is written beside the target and swapped into place in one step. libc
** (POSIX, Linux renameat2) and jansson.
*/
#define _GNU_SOURCE /* renameat2 */
#include "analysis/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "common/sim_alloc.h"
#include "common/sim_escape.h"
#include "common/sim_text.h"

static void free_strs(char **a, int n)
{
    for (int i = 0; a && i < n; i++) {
        sim_free(a[i]);
    }
    sim_free(a);
}

void report_free(Report *r)
{
    if (!r) {
        return;
    }
    free_strs(r->sources, r->n_sources);
    for (int i = 0; i < r->n_exclusions; i++) {
        sim_free(r->exclusions[i].condition);
        sim_free(r->exclusions[i].reason);
    }
    sim_free(r->exclusions);
    for (int i = 0; i < r->n_counts; i++) {
        sim_free(r->counts[i].condition);
    }
    sim_free(r->counts);
    for (int i = 0; i < r->n_change; i++) {
        sim_free(r->change[i].subset);
        sim_free(r->change[i].condition);
    }
    sim_free(r->change);
    for (int i = 0; i < r->n_re; i++) {
        sim_free(r->re[i].subset);
        sim_free(r->re[i].same_as);
    }
    sim_free(r->re);
    sim_free(r->sessions);
    for (int i = 0; i < r->n_utility; i++) {
        UtilityRow *u = &r->utility[i];
        sim_free(u->condition);
        sim_free(u->session_accuracy);
        sim_free(u->utility_k);
        sim_free(u->uk_low);
        sim_free(u->uk_high);
    }
    sim_free(r->utility);
    sim_free(r->utility_note);
    sim_free(r->accuracy);
    sim_free(r->warnings);
    sim_free(r->baseline);
    sim_free(r->baseline_from);
    sim_free(r->items);
    sim_free(r->anova_outcome);
    for (int i = 0; i < r->n_groups; i++) {
        sim_free(r->groups[i].condition);
    }
    sim_free(r->groups);
    for (int i = 0; i < r->n_tukey; i++) {
        sim_free(r->tukey[i].a);
        sim_free(r->tukey[i].b);
    }
    sim_free(r->tukey);
    for (int i = 0; i < r->n_ratings; i++) {
        sim_free(r->ratings[i].condition);
    }
    sim_free(r->ratings);
    for (int i = 0; i < r->n_rt; i++) {
        sim_free(r->rt[i].condition);
    }
    sim_free(r->rt);
    sim_free(r->glmm.fallback);
    sim_free(r->glmm.note);
    sim_free(r->glmm.terms);
    sim_free(r->glmm.corr);
    sim_free(r->verify_glmm.terms);
    sim_free(r->glmm.theta);
    sim_free(r->glmm.r_script);
    sim_free(r->primary.rows);
    sim_free(r->primary.note);
    for (int i = 0; i < r->primary.n_deviations; i++) {
        sim_free(r->primary.deviations[i]);
    }
    sim_free(r->primary.deviations);
    sim_free(r->calibration);
    for (int i = 0; i < r->n_tables; i++) {
        table_free(r->tables[i]);
    }
    sim_free(r->tables);
    memset(r, 0, sizeof *r);
}

Table *report_table(const Report *r, const char *key)
{
    for (int i = 0; i < r->n_tables; i++) {
        if (strcmp(r->tables[i]->key, key) == 0) {
            return r->tables[i];
        }
    }
    return NULL;
}

const char *report_utility_rule_name(int rule)
{
    return rule == UTILITY_TRAPEZOID ? "trapezoid"
           : rule == UTILITY_RATIO   ? "ratio"
                                     : "mean";
}

Table *report_add_table(Report *r, const char *key, unsigned formats,
                        const TableColumn *cols, int n_cols)
{
    if ((size_t)r->n_tables == r->cap_tables &&
        sim_grow((void **)&r->tables, &r->cap_tables, (size_t)r->n_tables + 1,
                 sizeof *r->tables) != 0) {
        return NULL;
    }
    Table *t = table_new(key, formats, cols, n_cols);
    if (t) {
        r->tables[r->n_tables++] = t;
    }
    return t;
}

/* ------------------------------------------------------------------ */
/* Output files                                                        */

static int write_file(const char *dir, const char *name, SimBuf *b,
                      SimError *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        return sim_fail(err, SIM_ERR_IO, "%s/%s: path too long", dir, name);
    }
    if (b->oom) {
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot write: %s", path,
                        strerror(errno));
    }
    size_t n = b->len;
    int bad = fwrite(sim_buf_cstr(b), 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? sim_fail(err, SIM_ERR_IO, "%s: write failed", path) : SIM_OK;
}

/* Fails when a table of r is broken (a bug, or out of memory while it was
** built). */
static int check_tables(const Report *r, SimError *err)
{
    for (int i = 0; i < r->n_tables; i++) {
        if (r->tables[i]->bad) {
            return sim_fail(err, SIM_ERR_NOMEM,
                            "table '%s': out of memory, or its cells do not "
                            "match its columns",
                            r->tables[i]->key);
        }
    }
    return SIM_OK;
}

static int is_interval(const TableColumn *c)
{
    return c->type == TABLE_INTERVAL || c->type == TABLE_PERCENT_INTERVAL;
}

static int is_percent(const TableColumn *c)
{
    return c->type == TABLE_PERCENT || c->type == TABLE_PERCENT_INTERVAL;
}

/* How many md/tex columns c takes (series: one per element). */
static int text_width(const Table *t, const TableColumn *c)
{
    return (c->flags & TABLE_SERIES) ? t->n_series : 1;
}

static void put_label(SimBuf *b, const Table *t, const TableColumn *c, int e)
{
    const char *label = c->label ? c->label : c->name;
    if (!(c->flags & TABLE_SERIES)) {
        sim_buf_puts(b, label);
    } else if (label[0]) {
        sim_buf_printf(b, "%s %d", label, t->series[e]);
    } else {
        sim_buf_printf(b, "%d", t->series[e]);
    }
}

/* One md/tex value: x (and y for intervals) of column c. */
static void put_text_value(SimBuf *b, const TableColumn *c, const char *text,
                           double x, double y, int plus, const char *missing)
{
    double scale = is_percent(c) ? 100.0 : 1.0;
    switch (c->type) {
    case TABLE_TEXT:
        sim_buf_puts(b, text ? text : missing);
        break;
    case TABLE_INT:
    case TABLE_BOOL:
    case TABLE_SERIES_AXIS:
        if (isfinite(x)) {
            sim_buf_printf(b, "%lld", (long long)x);
        } else {
            sim_buf_puts(b, missing);
        }
        break;
    case TABLE_PVALUE:
        table_fmt_p(b, x, missing);
        break;
    case TABLE_INTERVAL:
    case TABLE_PERCENT_INTERVAL:
        if (!isfinite(x)) {
            sim_buf_puts(b, missing);
            break;
        }
        sim_buf_puts(b, "[");
        table_fmt_num(b, scale * x, c->digits, plus, missing);
        sim_buf_puts(b, ", ");
        table_fmt_num(b, scale * y, c->digits, plus, missing);
        sim_buf_puts(b, "]");
        break;
    default:
        table_fmt_num(b, scale * x, c->digits, plus, missing);
    }
}

/* Cell (i, j), series element e, as md (tex = 0) or tex text. */
static void put_text_cell(SimBuf *b, const Table *t, int i, int j, int e,
                          int tex)
{
    const TableColumn *c = &t->cols[j];
    const TableCell *cell = table_cell(t, i, j);
    const char *missing = tex ? "--" : "-";
    if (cell->flags & (tex ? TABLE_CELL_NOT_TEX : TABLE_CELL_NOT_MD)) {
        sim_buf_puts(b, tex ? "" : missing);
        return;
    }
    double x = cell->x, y = cell->y;
    if (c->flags & TABLE_SERIES) {
        x = cell->series ? cell->series[e] : NAN;
        y = cell->series && is_interval(c) ? cell->series[t->n_series + e]
                                           : NAN;
    }
    if (tex && c->type == TABLE_TEXT && cell->text) {
        table_tex_escape(b, cell->text);
        return;
    }
    int plus = !tex && (c->flags & TABLE_SIGNED);
    put_text_value(b, c, cell->text, x, y, plus, missing);
}

/* ------------------------------------------------------------------ */
/* Markdown                                                            */

/* "\n", the heading, the note, the table, the paragraph after it. */
static void md_table(SimBuf *b, const Table *t)
{
    sim_buf_puts(b, "\n");
    if (t->title) {
        for (int i = 0; i < t->level; i++) {
            sim_buf_puts(b, "#");
        }
        sim_buf_printf(b, " %s\n\n", t->title);
    }
    if (t->note) {
        sim_buf_printf(b, "%s\n", t->note);
    }
    int any = 0;
    for (int j = 0; j < t->n_cols; j++) {
        any |= table_column_in(&t->cols[j], TABLE_MD) &&
               t->cols[j].type != TABLE_SERIES_AXIS;
    }
    if (any) {
        sim_buf_puts(b, t->note ? "\n|" : "|");
        for (int j = 0; j < t->n_cols; j++) {
            const TableColumn *c = &t->cols[j];
            if (!table_column_in(c, TABLE_MD) || c->type == TABLE_SERIES_AXIS) {
                continue;
            }
            for (int e = 0; e < text_width(t, c); e++) {
                sim_buf_puts(b, " ");
                put_label(b, t, c, e);
                sim_buf_puts(b, " |");
            }
        }
        sim_buf_puts(b, "\n|");
        for (int j = 0; j < t->n_cols; j++) {
            const TableColumn *c = &t->cols[j];
            if (!table_column_in(c, TABLE_MD) || c->type == TABLE_SERIES_AXIS) {
                continue;
            }
            int left = c->type == TABLE_TEXT || is_interval(c);
            for (int e = 0; e < text_width(t, c); e++) {
                sim_buf_puts(b, left ? " --- |" : " ---: |");
            }
        }
        sim_buf_puts(b, "\n");
        for (int i = 0; i < t->n_rows; i++) {
            sim_buf_puts(b, "|");
            for (int j = 0; j < t->n_cols; j++) {
                const TableColumn *c = &t->cols[j];
                if (!table_column_in(c, TABLE_MD) ||
                    c->type == TABLE_SERIES_AXIS) {
                    continue;
                }
                for (int e = 0; e < text_width(t, c); e++) {
                    sim_buf_puts(b, " ");
                    put_text_cell(b, t, i, j, e, 0);
                    sim_buf_puts(b, " |");
                }
            }
            sim_buf_puts(b, "\n");
        }
    }
    if (t->after) {
        sim_buf_printf(b, "\n%s\n", t->after);
    }
}

int report_write_md(const Report *r, const char *dir, SimError *err)
{
    int rc = check_tables(r, err);
    if (rc != SIM_OK) {
        return rc;
    }
    SimBuf b;
    sim_buf_init(&b);
    const AnalyzeOptions *o = &r->opt;
    sim_buf_printf(&b,
                   "# simlab-analyze report\n\nsimlab %s; %d responses "
                   "read; seed %llu; %d bootstrap replicates (%s, items "
                   "%s); p: %s.\n",
                   SIMLAB_VERSION, r->n_rows_read, (unsigned long long)o->seed,
                   o->replicates,
                   o->boot_hase2020 ? "Hase & Bansal 2020 procedure"
                                    : "crossed users x items",
                   o->items_fixed           ? "not resampled"
                   : o->items_per_condition ? "per condition"
                                            : "global",
                   o->p_hase ? "Hase & Bansal's rule" : "percentile inversion");
    sim_buf_printf(&b, "Reference condition: %s%s%s (%s).\n",
                   r->baseline ? "'" : "", r->baseline ? r->baseline : "none",
                   r->baseline ? "'" : "",
                   r->baseline_from ? r->baseline_from : "none");
    for (int i = 0; i < r->n_tables; i++) {
        if (r->tables[i]->formats & TABLE_MD) {
            md_table(&b, r->tables[i]);
        }
    }
    rc = write_file(dir, "report.md", &b, err);
    sim_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ */
/* LaTeX (booktabs)                                                    */

static int tex_column(const TableColumn *c)
{
    return table_column_in(c, TABLE_TEX) && c->type != TABLE_SERIES_AXIS;
}

static void tex_table(SimBuf *b, const Table *t)
{
    sim_buf_puts(b, "\n\\begin{table}[t]\n\\centering\n\\small\n"
                    "\\begin{tabular}{");
    for (int j = 0; j < t->n_cols; j++) {
        const TableColumn *c = &t->cols[j];
        if (!tex_column(c)) {
            continue;
        }
        int left = (c->flags & TABLE_TEX_LEFT) ||
                   (!(c->flags & TABLE_TEX_RIGHT) &&
                    (c->type == TABLE_TEXT || is_interval(c)));
        for (int e = 0; e < text_width(t, c); e++) {
            sim_buf_puts(b, left ? "l" : "r");
        }
    }
    sim_buf_puts(b, "}\n\\toprule\n");
    const char *sep = "";
    for (int j = 0; j < t->n_cols; j++) {
        const TableColumn *c = &t->cols[j];
        for (int e = 0; tex_column(c) && e < text_width(t, c); e++) {
            sim_buf_puts(b, sep);
            put_label(b, t, c, e);
            sep = " & ";
        }
    }
    sim_buf_puts(b, " \\\\\n\\midrule\n");
    SimBuf cell;
    sim_buf_init(&cell);
    for (int i = 0; i < t->n_rows; i++) {
        int first = 1;
        for (int j = 0; j < t->n_cols; j++) {
            const TableColumn *c = &t->cols[j];
            for (int e = 0; tex_column(c) && e < text_width(t, c); e++) {
                cell.len = 0;
                put_text_cell(&cell, t, i, j, e, 1);
                /* "a & b", and "a & & c" around an empty cell */
                if (!first) {
                    sim_buf_puts(b, cell.len > 0 ? " & " : " &");
                }
                sim_buf_append(b, cell.data ? cell.data : "", cell.len);
                first = 0;
            }
        }
        sim_buf_puts(b, " \\\\\n");
    }
    b->oom |= cell.oom;
    sim_buf_free(&cell);
    sim_buf_printf(b,
                   "\\bottomrule\n\\end{tabular}\n\\caption{%s}\n"
                   "\\end{table}\n",
                   t->caption ? t->caption : "");
}

int report_write_tex(const Report *r, const char *dir, SimError *err)
{
    int rc = check_tables(r, err);
    if (rc != SIM_OK) {
        return rc;
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "% simlab-analyze tables; needs \\usepackage{booktabs}\n");
    for (int i = 0; i < r->n_tables; i++) {
        if (r->tables[i]->formats & TABLE_TEX) {
            tex_table(&b, r->tables[i]);
        }
    }
    rc = write_file(dir, "report.tex", &b, err);
    sim_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                  */

/* A text cell; one that a spreadsheet would take for a formula (= + - @,
** tab, CR first) gets a leading single quote, and control characters (C0
** but tab, CR and LF, DEL, C1, bidirectional controls) are written as
** visible escapes (sim_escape.h), unless raw. A cell with a comma, a quote,
** tab, CR or LF is quoted. */
static void csv_str(SimBuf *b, const char *s, int raw)
{
    SimBuf clean;
    sim_buf_init(&clean);
    if (!raw && sim_escape_needed(s, strlen(s), SIM_ESC_KEEP_WS)) {
        sim_escape_append(&clean, s, strlen(s), SIM_ESC_KEEP_WS);
        s = sim_buf_cstr(&clean);
    }
    char first[2] = {0, 0};
    if (!raw && s[0] && strchr("=+-@\t\r", s[0])) {
        first[0] = '\'';
    }
    if (strpbrk(s, ",\"\n\r\t")) {
        sim_buf_puts(b, "\"");
        sim_buf_puts(b, first);
        for (; *s; s++) {
            if (*s == '"') {
                sim_buf_puts(b, "\"");
            }
            sim_buf_append(b, s, 1);
        }
        sim_buf_puts(b, "\"");
    } else {
        sim_buf_puts(b, first);
        sim_buf_puts(b, s);
    }
    sim_buf_free(&clean);
}

static void csv_value(SimBuf *b, const TableColumn *c, double x)
{
    if (!isfinite(x)) {
        return;
    }
    if (c->type == TABLE_INT || c->type == TABLE_BOOL ||
        c->type == TABLE_SERIES_AXIS) {
        sim_buf_printf(b, "%lld", (long long)x);
    } else {
        sim_buf_printf(b, "%.10g", x);
    }
}

/* One csv line of row i; e is the series element (long format). */
static void csv_line(SimBuf *b, const Table *t, int i, int e, int raw)
{
    const char *sep = "";
    for (int j = 0; j < t->n_cols; j++) {
        const TableColumn *c = &t->cols[j];
        if (!table_column_in(c, TABLE_CSV)) {
            continue;
        }
        const TableCell *cell = table_cell(t, i, j);
        double x = cell->x, y = cell->y;
        if (c->type == TABLE_SERIES_AXIS) {
            x = t->series[e];
        } else if (c->flags & TABLE_SERIES) {
            x = cell->series ? cell->series[e] : NAN;
            y = cell->series && is_interval(c) ? cell->series[t->n_series + e]
                                               : NAN;
        }
        sim_buf_puts(b, sep);
        sep = ",";
        if (c->type == TABLE_TEXT) {
            csv_str(b, cell->text ? cell->text : "", raw);
        } else if (is_interval(c)) {
            csv_value(b, c, x);
            sim_buf_puts(b, ",");
            csv_value(b, c, y);
        } else {
            csv_value(b, c, x);
        }
    }
    sim_buf_puts(b, "\n");
}

/* Header, then one line per row, or with series columns one line per row
** and series element (long format). */
static int csv_table(const Table *t, const char *dir, int raw, SimError *err)
{
    SimBuf b;
    sim_buf_init(&b);
    int long_format = 0;
    const char *sep = "";
    for (int j = 0; j < t->n_cols; j++) {
        const TableColumn *c = &t->cols[j];
        if (!table_column_in(c, TABLE_CSV)) {
            continue;
        }
        long_format |=
            c->type == TABLE_SERIES_AXIS || (c->flags & TABLE_SERIES) != 0;
        if (is_interval(c)) {
            sim_buf_printf(&b, "%s%s_low,%s_high", sep, c->name, c->name);
        } else {
            sim_buf_printf(&b, "%s%s", sep, c->name);
        }
        sep = ",";
    }
    sim_buf_puts(&b, "\n");
    for (int i = 0; i < t->n_rows; i++) {
        if (!long_format) {
            csv_line(&b, t, i, 0, raw);
        }
        for (int e = 0; long_format && e < t->n_series; e++) {
            csv_line(&b, t, i, e, raw);
        }
    }
    char name[300];
    snprintf(name, sizeof name, "%s.csv", t->key);
    int rc = write_file(dir, name, &b, err);
    sim_buf_free(&b);
    return rc;
}

int report_write_csv(const Report *r, const char *dir, SimError *err)
{
    int rc = check_tables(r, err);
    for (int i = 0; rc == SIM_OK && i < r->n_tables; i++) {
        if (r->tables[i]->formats & TABLE_CSV) {
            rc = csv_table(r->tables[i], dir, r->opt.raw, err);
        }
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *json_settings(const Report *r)
{
    const AnalyzeOptions *o = &r->opt;
    json_t *s = json_object();
    json_object_set_new(s, "version", json_string(SIMLAB_VERSION));
    json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(s, "replicates", json_integer(o->replicates));
    json_object_set_new(s, "threads", json_integer(o->threads));
    json_object_set_new(s, "baseline",
                        r->baseline ? json_string(r->baseline) : json_null());
    json_object_set_new(s, "baseline_from",
                        json_string(r->baseline_from ? r->baseline_from : ""));
    json_object_set_new(s, "items",
                        json_string(o->items_fixed           ? "none"
                                    : o->items_per_condition ? "per-condition"
                                                             : "global"));
    json_object_set_new(s, "p_method",
                        json_string(o->p_hase ? "hase" : "percentile"));
    json_object_set_new(s, "bootstrap",
                        json_string(o->boot_hase2020 ? "hase2020" : "crossed"));
    json_object_set_new(s, "drop_singular", json_boolean(o->drop_singular));
    json_object_set_new(
        s, "accuracy",
        json_string(o->accuracy_participant ? "participant" : "pooled"));
    json_object_set_new(s, "utility",
                        json_string(report_utility_rule_name(o->utility_rule)));
    json_object_set_new(s, "max_catch_failures",
                        o->max_catch_failures >= 0
                            ? json_integer(o->max_catch_failures)
                            : json_null());
    json_object_set_new(s, "include_pilot", json_boolean(o->include_pilot));
    json_object_set_new(s, "include_simulated",
                        json_boolean(o->include_simulated));
    json_object_set_new(s, "raw", json_boolean(o->raw));
    json_t *fmt = json_array();
    const char *fnames[4] = {"md", "tex", "csv", "json"};
    for (int i = 0; i < 4; i++) {
        if (o->formats & (1u << i)) {
            json_array_append_new(fmt, json_string(fnames[i]));
        }
    }
    json_object_set_new(s, "format", fmt);
    json_t *pl = json_array();
    const char *pnames[3] = {"png", "svg", "pdf"};
    for (int i = 0; i < 3; i++) {
        if (o->plots & (1u << i)) {
            json_array_append_new(pl, json_string(pnames[i]));
        }
    }
    json_object_set_new(s, "plots", pl);
    json_t *src = json_array();
    for (int i = 0; i < r->n_sources; i++) {
        json_array_append_new(src, json_string(r->sources[i]));
    }
    json_object_set_new(s, "sources", src);
    json_object_set_new(s, "responses_read", json_integer(r->n_rows_read));
    return s;
}

static json_t *json_value(const TableColumn *c, const char *text, double x)
{
    switch (c->type) {
    case TABLE_TEXT:
        return text ? json_string(text) : json_null();
    case TABLE_INT:
    case TABLE_SERIES_AXIS:
        return isfinite(x) ? json_integer((json_int_t)x) : json_null();
    case TABLE_BOOL:
        return isfinite(x) ? json_boolean(x != 0) : json_null();
    default:
        return jnum(x);
    }
}

static void json_set_key(json_t *o, const char *name, const char *suffix,
                         json_t *v)
{
    char key[200];
    snprintf(key, sizeof key, "%s%s", name, suffix);
    json_object_set_new(o, key, v);
}

/* Row i as an object with the json columns of t. */
static json_t *json_row(const Table *t, int i)
{
    json_t *o = json_object();
    for (int j = 0; j < t->n_cols; j++) {
        const TableColumn *c = &t->cols[j];
        if (!table_column_in(c, TABLE_JSON)) {
            continue;
        }
        const char *name = table_column_json(c);
        const TableCell *cell = table_cell(t, i, j);
        int n = t->n_series;
        if (c->type == TABLE_SERIES_AXIS) {
            json_t *a = json_array();
            for (int e = 0; e < n; e++) {
                json_array_append_new(a, json_integer(t->series[e]));
            }
            json_object_set_new(o, name, a);
        } else if (c->flags & TABLE_SERIES) {
            int parts = is_interval(c) ? 2 : 1;
            for (int k = 0; k < parts; k++) {
                json_t *a = json_array();
                for (int e = 0; e < n; e++) {
                    double x = cell->series ? cell->series[k * n + e] : NAN;
                    json_array_append_new(a, json_value(c, NULL, x));
                }
                json_set_key(o, name,
                             parts == 1 ? ""
                             : k == 0   ? "_low"
                                        : "_high",
                             a);
            }
        } else if (is_interval(c) && (c->flags & TABLE_JSON_PAIR)) {
            json_object_set_new(
                o, name, json_pack("[o, o]", jnum(cell->x), jnum(cell->y)));
        } else if (is_interval(c)) {
            json_set_key(o, name, "_low", jnum(cell->x));
            json_set_key(o, name, "_high", jnum(cell->y));
        } else {
            json_object_set_new(o, name, json_value(c, cell->text, cell->x));
        }
    }
    return o;
}

/* The table as json: its rows, its first row (object tables; null without
** rows), or its note (tables without columns). */
static json_t *json_table(const Table *t)
{
    if (t->n_cols == 0) {
        return t->note ? json_string(t->note) : json_null();
    }
    if (t->object) {
        return t->n_rows > 0 ? json_row(t, 0) : json_null();
    }
    if (t->scalars) {
        json_t *a = json_array();
        for (int i = 0; i < t->n_rows; i++) {
            const TableCell *c = table_cell(t, i, 0);
            json_array_append_new(a, json_value(&t->cols[0], c->text, c->x));
        }
        return a;
    }
    json_t *a = json_array();
    for (int i = 0; i < t->n_rows; i++) {
        json_array_append_new(a, json_row(t, i));
    }
    return a;
}

/* Puts v at path ("a.b.c") under root, making the objects on the way. */
static int json_put(json_t *root, const char *path, json_t *v)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *at = root;
    char *name = buf;
    for (char *dot = strchr(name, '.'); dot; dot = strchr(name, '.')) {
        *dot = '\0';
        json_t *next = json_object_get(at, name);
        if (!next) {
            next = json_object();
            json_object_set_new(at, name, next);
        }
        if (!json_is_object(next)) {
            json_decref(v);
            return -1;
        }
        at = next;
        name = dot + 1;
    }
    return json_object_set_new(at, name, v);
}

static const char *type_name(TableType type)
{
    static const char *const names[] = {
        "text",    "integer",  "boolean",          "real",       "percent",
        "p-value", "interval", "percent interval", "series axis"};
    return names[type];
}

/* What each csv/json table holds: key, where it is, its columns. */
static json_t *json_table_list(const Report *r)
{
    json_t *list = json_array();
    for (int i = 0; i < r->n_tables; i++) {
        const Table *t = r->tables[i];
        if (!(t->formats & (TABLE_CSV | TABLE_JSON)) || t->n_cols == 0) {
            continue;
        }
        json_t *cols = json_array();
        for (int j = 0; j < t->n_cols; j++) {
            const TableColumn *c = &t->cols[j];
            if (!table_column_in(c, TABLE_CSV | TABLE_JSON)) {
                continue;
            }
            json_t *x = json_pack("{s:s, s:s, s:s}", "name", c->name, "type",
                                  type_name(c->type), "unit", c->unit);
            if (c->json) {
                json_object_set_new(x, "json", json_string(c->json));
            }
            if (c->flags & TABLE_SERIES) {
                json_object_set_new(x, "series", json_true());
            }
            json_array_append_new(cols, x);
        }
        json_t *o = json_object();
        json_object_set_new(o, "key", json_string(t->key));
        json_object_set_new(
            o, "json",
            (t->formats & TABLE_JSON)
                ? json_string(t->json_path ? t->json_path : t->key)
                : json_null());
        json_object_set_new(o, "csv",
                            (t->formats & TABLE_CSV)
                                ? json_sprintf("%s.csv", t->key)
                                : json_null());
        json_object_set_new(o, "note",
                            t->note ? json_string(t->note) : json_null());
        json_object_set_new(o, "columns", cols);
        json_array_append_new(list, o);
    }
    return list;
}

int report_write_json(const Report *r, const char *dir, SimError *err)
{
    int rc = check_tables(r, err);
    if (rc != SIM_OK) {
        return rc;
    }
    json_t *root = json_object();
    json_object_set_new(root, "settings", json_settings(r));
    for (int i = 0; i < r->n_tables && rc == SIM_OK; i++) {
        const Table *t = r->tables[i];
        if ((t->formats & TABLE_JSON) &&
            json_put(root, t->json_path ? t->json_path : t->key,
                     json_table(t)) != 0) {
            rc = sim_fail(err, SIM_ERR_INVALID,
                          "report.json: table '%s' cannot go to '%s'", t->key,
                          t->json_path ? t->json_path : t->key);
        }
    }
    json_object_set_new(root, "tables", json_table_list(r));
    char *text = rc == SIM_OK
                     ? json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                            JSON_REAL_PRECISION(12))
                     : NULL;
    json_decref(root);
    if (rc != SIM_OK) {
        return rc;
    }
    if (!text) {
        return sim_fail(err, SIM_ERR_NOMEM, "report.json: out of memory");
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, text);
    sim_buf_puts(&b, "\n");
    free(text);
    rc = write_file(dir, "report.json", &b, err);
    sim_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ */
/* The output folder                                                    */

/* out = "a/b"; -1 when it does not fit. */
static int join(char *out, size_t n, const char *a, const char *b)
{
    return snprintf(out, n, "%s/%s", a, b) >= (int)n ? -1 : 0;
}

/* 1 when the file at path starts with the SQLite header. */
static int is_sqlite_file(const char *path)
{
    char head[16];
    FILE *f = fopen(path, "rb");
    if (!f) {
        return 0;
    }
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

/* 1 when a and b name the same existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* dir's parent ("." when none) and base name. */
static void split_path(const char *dir, char *parent, size_t np, char *base,
                       size_t nb)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", dir);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/') {
        tmp[--n] = '\0';
    }
    char *slash = strrchr(tmp, '/');
    if (!slash) {
        snprintf(parent, np, ".");
        snprintf(base, nb, "%s", tmp);
    } else {
        snprintf(base, nb, "%s", slash + 1);
        if (slash == tmp) {
            snprintf(parent, np, "/");
        } else {
            *slash = '\0';
            snprintf(parent, np, "%s", tmp);
        }
    }
}

/* 1 when a and b name the same path (b may not exist yet): the same
** parent folder and the same last name, trailing slashes aside. */
static int same_name(const char *a, const char *b)
{
    char pa[4096], pb[4096], na[1024], nb[1024];
    split_path(a, pa, sizeof pa, na, sizeof na);
    split_path(b, pb, sizeof pb, nb, sizeof nb);
    return strcmp(na, nb) == 0 && (strcmp(pa, pb) == 0 || same_file(pa, pb));
}

/* 1 when path lies inside the folder dir (both existing). */
static int inside(const char *path, const char *dir)
{
    char *p = realpath(path, NULL), *d = realpath(dir, NULL);
    size_t n = d ? strlen(d) : 0;
    int in = p && d && strncmp(p, d, n) == 0 && p[n] == '/';
    free(p);
    free(d);
    return in;
}

/* An existing output folder is replaced only when it holds nothing but
** files simlab-analyze writes (and no database). */
static int check_old_folder(const char *out, SimError *err)
{
    DIR *d = opendir(out);
    if (!d) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot read the folder: %s", out,
                        strerror(errno));
    }
    static const char *const ours[] = {".md",  ".tex", ".csv", ".json",
                                       ".png", ".svg", ".pdf"};
    int rc = SIM_OK;
    struct dirent *e;
    while (rc == SIM_OK && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        char path[4400];
        struct stat st;
        const char *dot = strrchr(e->d_name, '.');
        int known = 0;
        for (size_t i = 0; dot && i < sizeof ours / sizeof ours[0]; i++) {
            known |= strcmp(dot, ours[i]) == 0;
        }
        if (join(path, sizeof path, out, e->d_name) != 0 ||
            lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || !known ||
            is_sqlite_file(path)) {
            rc = sim_fail(err, SIM_ERR_USAGE,
                          "%s: holds '%s', which is not a simlab-analyze "
                          "output; the folder is replaced as a whole, so "
                          "choose an empty or new folder",
                          out, e->d_name);
        }
    }
    closedir(d);
    return rc;
}

int report_check_output(const char *out, const char *const *inputs, int n,
                        SimError *err)
{
    char side[4200];
    for (int i = 0; i < n; i++) {
        static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
        for (int k = 0; k < 4; k++) {
            snprintf(side, sizeof side, "%s%s", inputs[i], suffix[k]);
            if (same_file(out, side) || same_name(out, side)) {
                return sim_fail(err, SIM_ERR_USAGE,
                                "%s: the output folder is the input %s%s; "
                                "choose another folder",
                                out, inputs[i], suffix[k]);
            }
        }
        if (inside(inputs[i], out)) {
            return sim_fail(err, SIM_ERR_USAGE,
                            "%s: the output folder holds the input %s, and "
                            "it is replaced as a whole; choose another folder",
                            out, inputs[i]);
        }
    }
    struct stat st;
    if (stat(out, &st) == 0 && !S_ISDIR(st.st_mode)) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: %s, not a folder", out,
                        is_sqlite_file(out) ? "an SQLite database" : "a file");
    }
    return stat(out, &st) == 0 ? check_old_folder(out, err) : SIM_OK;
}

/* Removes the regular files of dir, then dir. */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char path[4400];
            if (join(path, sizeof path, dir, e->d_name) == 0) {
                unlink(path);
            }
        }
    }
    if (d) {
        closedir(d);
    }
    rmdir(dir);
}

static int fsync_path(const char *path, int flags)
{
    int fd = open(path, flags);
    if (fd < 0) {
        return -1;
    }
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* fsyncs every file of dir, then dir. */
static int sync_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char path[4400];
            rc |= join(path, sizeof path, dir, e->d_name) != 0 ||
                  fsync_path(path, O_RDONLY) != 0;
        }
    }
    closedir(d);
    return rc | fsync_path(dir, O_RDONLY | O_DIRECTORY);
}

int report_dir_begin(ReportDir *d, const char *out, SimError *err)
{
    memset(d, 0, sizeof *d);
    char base[1024];
    if (strlen(out) >= sizeof d->final - 64) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: path too long", out);
    }
    snprintf(d->final, sizeof d->final, "%s", out);
    split_path(out, d->parent, sizeof d->parent, base, sizeof base);
    struct stat st;
    if (stat(out, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            return sim_fail(err, SIM_ERR_USAGE, "%s: %s, not a folder", out,
                            is_sqlite_file(out) ? "an SQLite database"
                                                : "a file");
        }
        int rc = check_old_folder(out, err);
        if (rc != SIM_OK) {
            return rc;
        }
        d->replace = 1;
    }
    for (int k = 0; k < 1000; k++) {
        if (snprintf(d->tmp, sizeof d->tmp, "%s/.%s.tmp-%ld-%d", d->parent,
                     base, (long)getpid(), k) >= (int)sizeof d->tmp) {
            return sim_fail(err, SIM_ERR_USAGE, "%s: path too long", out);
        }
        if (mkdir(d->tmp, 0777) == 0) {
            d->active = 1;
            return SIM_OK;
        }
        if (errno != EEXIST) {
            break;
        }
    }
    return sim_fail(err, SIM_ERR_IO, "%s: cannot create a folder beside it: %s",
                    out, strerror(errno));
}

void report_dir_abort(ReportDir *d)
{
    if (d->active) {
        remove_folder(d->tmp);
        d->active = 0;
    }
}

int report_dir_commit(ReportDir *d, SimError *err)
{
    if (sync_folder(d->tmp) != 0) {
        report_dir_abort(d);
        return sim_fail(err, SIM_ERR_IO, "%s: cannot sync the outputs: %s",
                        d->final, strerror(errno));
    }
    int rc = -1;
    if (d->replace) {
        /* swap the folders in one step; the old one is then at tmp */
        rc = renameat2(AT_FDCWD, d->tmp, AT_FDCWD, d->final, RENAME_EXCHANGE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
            char old[sizeof d->tmp];
            rc = snprintf(old, sizeof old, "%s.old", d->tmp) >= (int)sizeof old
                     ? -1
                     : rename(d->final, old);
            if (rc == 0 && (rc = rename(d->tmp, d->final)) != 0) {
                rename(old, d->final);
            }
            if (rc == 0) {
                snprintf(d->tmp, sizeof d->tmp, "%s", old);
            }
        }
    } else {
        rc = rename(d->tmp, d->final);
    }
    if (rc != 0) {
        int e = errno;
        report_dir_abort(d);
        return sim_fail(err, SIM_ERR_IO,
                        "%s: cannot move the outputs into "
                        "place: %s",
                        d->final, strerror(e));
    }
    fsync_path(d->parent, O_RDONLY | O_DIRECTORY);
    if (d->replace) {
        remove_folder(d->tmp); /* the previous run's outputs */
    }
    d->active = 0;
    return SIM_OK;
}

int report_write_dir(const Report *r, const char *out, SimError *err)
{
    ReportDir d;
    int rc = report_dir_begin(&d, out, err);
    unsigned f = r->opt.formats;
    if (rc == SIM_OK && (f & FORMAT_MD)) {
        rc = report_write_md(r, d.tmp, err);
    }
    if (rc == SIM_OK && (f & FORMAT_TEX)) {
        rc = report_write_tex(r, d.tmp, err);
    }
    if (rc == SIM_OK && (f & FORMAT_CSV)) {
        rc = report_write_csv(r, d.tmp, err);
    }
    if (rc == SIM_OK && (f & FORMAT_JSON)) {
        rc = report_write_json(r, d.tmp, err);
    }
    if (rc == SIM_OK && r->opt.plots) {
        rc = report_write_plots(r, d.tmp, r->opt.plots, err);
    }
    if (rc == SIM_OK) {
        return report_dir_commit(&d, err);
    }
    report_dir_abort(&d);
    return rc;
}

/*
** `simlab check`: loads a bundle (as far as it can be read), then prints its
** expanded design, item and explanation counts, the balance report, the
** warnings and every located error, as text or as one JSON object.
*/
#include "stimuli/check.h"
#include "stimuli/glyphs.h"
#include "stimuli/blockkind.h"
#include "stimuli/items_int.h"
#include "stimuli/bundle.h"
#include "stimuli/uistrings.h"
#include "stimuli/primary.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "common/sim_metrics.h"
#include "stimuli/metrics.h"
#include "common/sim_text.h"

static const char *const type_names[4] = {"TP", "FP", "TN", "FN"};

static const char *or_dash(const char *s)
{
    return s && s[0] ? s : "-";
}

static void shows_text(const Block *b, char *out, size_t size)
{
    snprintf(out, size, "%s%s%s%s", b->show.label ? "label " : "",
             b->show.prediction ? "prediction " : "",
             b->show.explanation ? "explanation " : "",
             b->show.reservoir ? "reservoir " : "");
    size_t n = strlen(out);
    if (n > 0) {
        out[n - 1] = '\0';
    } else {
        snprintf(out, size, "input");
    }
}

/* "FILE:LINE: field 'NAME': message" (JSON pointer in place of LINE) */
void study_diag_print(FILE *out, const char *prefix, const Diag *d)
{
    fputs(prefix, out);
    if (!d->file[0] && !d->pointer) {
        /* a problem of no file (check's layout report) */
    } else if (d->line > 0 && d->column > 0) {
        fprintf(out, "%s:%d:%d: ", d->file, d->line, d->column);
    } else if (d->line > 0) {
        fprintf(out, "%s:%d: ", d->file, d->line);
    } else if (d->pointer) {
        fprintf(out, "%s:%s: ", d->file, d->pointer);
    } else {
        fprintf(out, "%s: ", d->file);
    }
    if (d->field && d->field[0]) {
        fprintf(out, "field '%s': ", d->field);
    }
    fprintf(out, "%s\n", d->message);
}

int check_report_add(StudyReport *rep, int warn, const char *file,
                     const char *field, const char *message)
{
    Diag **arr = warn ? &rep->warnings : &rep->errors;
    size_t *n = warn ? &rep->n_warnings : &rep->n_errors;
    size_t cap = *n;
    if (sim_grow((void **)arr, &cap, *n + 1, sizeof **arr) != 0) {
        return -1;
    }
    Diag *d = &(*arr)[*n];
    memset(d, 0, sizeof *d);
    d->file = sim_strdup(file);
    d->field = sim_strdup(field);
    d->message = sim_strdup(message);
    if (d->file && d->field && d->message) {
        (*n)++;
        return 0;
    }
    sim_free(d->file);
    sim_free(d->field);
    sim_free(d->message);
    return -1;
}

/* A load that failed without a located problem (e.g. the folder cannot be
** resolved) still gets one error, so that the verdict and the exit status
** agree. */
static void add_unlocated_error(StudyReport *rep, const char *dir,
                                const char *msg)
{
    check_report_add(rep, 0, dir, "",
                     msg[0] ? msg : "the bundle could not be read");
}

static size_t count_method(const Study *st, const char *m)
{
    size_t n = 0;
    for (size_t i = 0; i < st->n_items; i++) {
        n += item_explanation(&st->items[i], m) != NULL;
    }
    return n;
}

static const char *const within_order_names[] = {"latin-square", "random",
                                                 "fixed"};

/* One within-subject order as "a, b, c" into buf. */
static void order_line(const Study *st, const int *order, char *buf,
                       size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < st->n_conditions && len < size; k++) {
        int w = snprintf(buf + len, size - len, "%s%s", k ? ", " : "",
                         st->conditions[order[k]].id);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* The rating question as participants read it (the format's English
** default in the study's language), or that no block asks one. */
static void print_rating(FILE *out, const Study *st)
{
    int asked = 0;
    for (size_t i = 0; i < st->n_blocks; i++) {
        asked |= st->blocks[i].rating;
    }
    if (!asked) {
        fprintf(out, "rating       none (no block asks a rating)\n");
        return;
    }
    fprintf(out, "rating       \"%s\" (%d points)\n",
            or_dash(ui_fmt(st->ui_strings, UI_RATING_QUESTION,
                           st->rating.question)),
            st->rating.points);
}

/* The within-subject lines of the text report: mode, order, what each
** condition gets, and a latin square's rows. */
static void print_within(FILE *out, const Study *st, const CheckOrders *orders)
{
    const Assignment *a = &st->assignment;
    fprintf(out, "assignment   within-subject, order %s; active %d min\n",
            within_order_names[a->order], a->active_minutes);
    size_t first = 0, last = 0;
    int sessions = study_n_sessions(st);
    if (sessions > 0) {
        fprintf(out, "  session t shows the participant's t-th condition\n");
    } else if (study_within_range(st, &first, &last)) {
        size_t items = last;
        while (items > first && st->blocks[items].kind == BLOCK_BREAK) {
            items--;
        }
        fprintf(out,
                "  blocks %s .. %s repeated once per condition, new items "
                "each time",
                or_dash(st->blocks[first].id), or_dash(st->blocks[items].id));
        for (size_t i = items + 1; i <= last; i++) {
            fprintf(out, "%s%s",
                    i == items + 1 ? "; between conditions: " : ", ",
                    or_dash(st->blocks[i].id));
        }
        fprintf(out, "\n  %s\n",
                a->repeat_set ? "(the run of assignment.repeat)"
                              : "(the run from the first to the last item "
                                "block, with the breaks after it; "
                                "assignment.repeat names another)");
    }
    size_t n = st->n_conditions;
    int *order = n ? sim_calloc(n, sizeof *order) : NULL;
    char line[512];
    if (order && a->order == WITHIN_FIXED) {
        for (size_t k = 0; k < n; k++) {
            order[k] = (int)k;
        }
        order_line(st, order, line, sizeof line);
        fprintf(out, "  every participant: %s\n", line);
    } else if (a->order == WITHIN_RANDOM) {
        fprintf(out, "  a random order per participant (from its seed)\n");
    } else if (order && orders) {
        size_t rows = orders->rows(n);
        fprintf(out,
                "  %zu orders (Williams design), handed out in enrollment "
                "order; a dropout's order goes to the next participant\n",
                rows);
        for (size_t r = 0; r < rows; r++) {
            orders->row(n, r, order);
            order_line(st, order, line, sizeof line);
            fprintf(out, "  order %-3zu %s\n", r + 1, line);
        }
    }
    sim_free(order);
}

static void print_text(FILE *out, const char *dir, const Study *st,
                       const StudyReport *rep, const CheckOrders *orders,
                       const char *layout)
{
    fprintf(out, "bundle       %s\n", dir);
    if (st) {
        fprintf(out, "study        %s: %s\n", or_dash(st->id),
                or_dash(st->title));
        fprintf(out, "hash         sha256:%s\n", or_dash(st->hash));
        fprintf(out, "preset       %s",
                st->preset ? st->preset
                           : "(explicit "
                             "blocks)");
        if (st->test_type) {
            fprintf(out, " (test type %s)", st->test_type);
        }
        fprintf(out, "\ndomain       %s\n", or_dash(st->domain));
        if (strcmp(ui_strings_language(st->ui_strings), "en") != 0) {
            fprintf(out, "language     %s%s\n",
                    ui_strings_language(st->ui_strings),
                    ui_strings_rtl(st->ui_strings) ? " (right to left)" : "");
        }
        fprintf(out, "classes      ");
        /* a class set of ImageNet's size: the first ones and the count */
        size_t shown = st->n_classes > 12 ? 8 : st->n_classes;
        for (size_t i = 0; i < shown; i++) {
            const StudyClass *c = &st->classes[i];
            fprintf(out, "%s%s \"%s\" [key %s]%s", i ? "; " : "",
                    or_dash(c->id), or_dash(c->label), or_dash(c->key),
                    i == 0 ? " (positive)" : "");
        }
        if (shown < st->n_classes) {
            fprintf(out, "; ... (%zu classes)", st->n_classes);
        }
        fprintf(out, "\nconditions   %zu\n", st->n_conditions);
        for (size_t i = 0; i < st->n_conditions; i++) {
            const Condition *c = &st->conditions[i];
            fprintf(out, "  %-20s %s%s%s\n", c->id,
                    c->method ? "method " : "no explanation",
                    c->method ? c->method : "",
                    st->baseline && strcmp(st->baseline, c->id) == 0
                        ? "  (baseline)"
                        : "");
        }
        const Assignment *a = &st->assignment;
        if (a->mode == ASSIGN_MODE_WITHIN) {
            print_within(out, st, orders);
        } else if (a->rule == ASSIGN_HASE) {
            fprintf(out,
                    "assignment   hase: every condition to %d complete, then "
                    "'%s'; active %d min\n",
                    a->min_complete, or_dash(a->then_condition),
                    a->active_minutes);
        } else {
            fprintf(out, "assignment   balanced; active %d min\n",
                    a->active_minutes);
        }
        const Screening *s = &st->screening;
        fprintf(out,
                "screening    practice_min_first_try %d, "
                "quiz_all_first_try %s, max_catch_failures %d, "
                "min_total_seconds %g%s\n",
                s->practice_min_first_try, s->quiz_all_first_try ? "yes" : "no",
                s->max_catch_failures, s->min_total_seconds,
                s->stop_on_failure ? ", stop on failure" : "");
        print_rating(out, st);
        char primary[512];
        primary_describe(st, primary, sizeof primary);
        fprintf(out, "primary      %s\n", primary);
        fprintf(out, "blocks       %zu\n", st->n_blocks);
        fprintf(out,
                "  %-3s %-14s %-14s %-8s %-3s %-14s %-4s %-30s %-6s "
                "%-5s %s\n",
                "#", "kind", "id", "phase", "ses", "pool", "n", "shows",
                "rating", "catch", "reservoir");
        for (size_t i = 0; i < st->n_blocks; i++) {
            const Block *b = &st->blocks[i];
            char shows[64], n[24], ses[16], pool[128];
            int item = block_kind_shows_items(b->kind);
            if (item) {
                shows_text(b, shows, sizeof shows);
                if (b->n_items != BLOCK_N_ALL) {
                    snprintf(n, sizeof n, "%d", b->n_items);
                } else {
                    snprintf(n, sizeof n, "all");
                }
            } else if (b->n_survey) {
                /* a questionnaire: its question ids */
                size_t len = 0;
                shows[0] = '\0';
                for (size_t k = 0; k < b->n_survey && len < sizeof shows; k++) {
                    int w = snprintf(shows + len, sizeof shows - len, "%s%s",
                                     k ? " " : "", or_dash(b->survey[k].id));
                    len += w > 0 ? (size_t)w : 0;
                }
                snprintf(n, sizeof n, "%zu", b->n_survey);
            } else {
                snprintf(shows, sizeof shows, "%s",
                         b->n_pages       ? (b->pages[0] ? b->pages[0] : "-")
                         : b->n_questions ? "questions"
                                          : "-");
                snprintf(n, sizeof n, "-");
            }
            snprintf(ses, sizeof ses, "%d", b->session);
            snprintf(pool, sizeof pool, "%s%s%s", or_dash(b->pool),
                     b->same_items_as ? "=" : "",
                     b->same_items_as ? b->same_items_as : "");
            fprintf(out,
                    "  %-3zu %-14s %-14s %-8s %-3s %-14s %-4s %-30s %-6s "
                    "%-5d %s\n",
                    i + 1, block_kind_name(b->kind), or_dash(b->id),
                    or_dash(b->phase), b->session ? ses : "-", pool, n, shows,
                    b->rating ? "yes" : "no", b->n_catch,
                    or_dash(b->reservoir));
            if (b->exclude_items_of) {
                fprintf(out, "      (new items: not those of %s)\n",
                        b->exclude_items_of);
            }
            if (b->time_limit_ms > 0) {
                fprintf(out, "      (time limit %d ms%s%s)\n", b->time_limit_ms,
                        b->timeout_message ? ", with a timeout message" : "",
                        b->deadline_countdown ? ", counted down on screen"
                                              : "");
            }
            if (b->confidence.points > 0) {
                fprintf(out, "      (confidence 1..%d after the choice)\n",
                        b->confidence.points);
            }
        }
        fprintf(out, "items        %zu", st->n_items);
        for (size_t p = 0; p < st->n_pools; p++) {
            fprintf(out, "%s%s %zu", p ? ", " : " (", st->pools[p],
                    items_pool_size(st, st->pools[p]));
        }
        fprintf(out, "%s\n", st->n_pools ? ")" : "");
        fprintf(out, "explanations");
        for (size_t m = 0; m < st->n_methods; m++) {
            fprintf(out, "%s%s %zu", m ? ", " : " ", st->methods[m],
                    count_method(st, st->methods[m]));
        }
        fprintf(out, "%s\n", st->n_methods ? "" : " none");
        if (st->metrics) {
            char mbuf[4000];
            metrics_describe(st, mbuf, sizeof mbuf);
            fprintf(out, "metrics      %d\n%s", st->metrics->n_metrics, mbuf);
        }
    }
    if (rep->n_pools) {
        fprintf(out,
                "balance\n  %-14s %4s %4s %4s %4s %4s %8s %9s %5s %5s  "
                "%s\n",
                "pool", "n", "TP", "FP", "TN", "FN", "correct", "incorrect",
                "same", "flip", "same/flip by type");
        for (size_t i = 0; i < rep->n_pools; i++) {
            const PoolBalance *p = &rep->pools[i];
            fprintf(out, "  %-14s %4d %4d %4d %4d %4d %8d %9d", p->pool, p->n,
                    p->tp, p->fp, p->tn, p->fn, p->correct, p->incorrect);
            if (p->n_cf) {
                fprintf(out, " %5d %5d  ", p->same, p->flip);
                for (int t = 0; t < 4; t++) {
                    fprintf(out, "%s%s %d/%d", t ? ", " : "", type_names[t],
                            p->same_by_type[t], p->flip_by_type[t]);
                }
            } else {
                fprintf(out, " %5s %5s", "-", "-");
            }
            if (p->unlabeled) {
                fprintf(out, "  (%d without label)", p->unlabeled);
            }
            fprintf(out, "\n");
        }
    }
    fputs(layout, out);
    if (rep->n_warnings) {
        fprintf(out, "warnings     %zu\n", rep->n_warnings);
        for (size_t i = 0; i < rep->n_warnings; i++) {
            study_diag_print(out, "  warning: ", &rep->warnings[i]);
        }
    }
    if (rep->n_errors) {
        fprintf(out, "errors       %zu\n", rep->n_errors);
        for (size_t i = 0; i < rep->n_errors; i++) {
            study_diag_print(out, "  error: ", &rep->errors[i]);
        }
    }
    if (rep->n_errors) {
        fprintf(out, "invalid: %zu error%s\n", rep->n_errors,
                rep->n_errors == 1 ? "" : "s");
    } else {
        fprintf(out, "valid\n");
    }
}

/* ------------------------------------------------------------------ JSON */

static json_t *jstr(const char *s)
{
    return s ? json_string(s) : json_null();
}

static json_t *diags_json(const Diag *d, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "file", jstr(d[i].file));
        json_object_set_new(o, "line", json_integer(d[i].line));
        if (d[i].column) {
            json_object_set_new(o, "column", json_integer(d[i].column));
        }
        if (d[i].pointer) {
            json_object_set_new(o, "pointer", jstr(d[i].pointer));
        }
        json_object_set_new(o, "field", jstr(d[i].field));
        json_object_set_new(o, "message", jstr(d[i].message));
        if (d[i].n_more) {
            json_object_set_new(o, "more",
                                json_integer((json_int_t)d[i].n_more));
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

/* "mode", "order" and, for a latin square with orders, "orders" (lists of
** condition ids) added to the assignment object o. */
static void within_json(json_t *o, const Study *st, const CheckOrders *orders)
{
    const Assignment *a = &st->assignment;
    int within = a->mode == ASSIGN_MODE_WITHIN;
    json_object_set_new(o, "mode", json_string(within ? "within" : "between"));
    json_object_set_new(o, "order",
                        within ? json_string(within_order_names[a->order])
                               : json_null());
    size_t first = 0, last = 0;
    if (within && study_n_sessions(st) == 0 &&
        study_within_range(st, &first, &last)) {
        json_t *run = json_array();
        for (size_t i = first; i <= last; i++) {
            json_array_append_new(run, jstr(st->blocks[i].id));
        }
        json_object_set_new(o, "repeat", run);
    }
    size_t n = st->n_conditions;
    if (!within || !n || (a->order == WITHIN_LATIN_SQUARE && !orders) ||
        a->order == WITHIN_RANDOM) {
        return;
    }
    int *order = sim_calloc(n, sizeof *order);
    json_t *rows = json_array();
    size_t n_rows = a->order == WITHIN_FIXED ? 1 : orders->rows(n);
    for (size_t r = 0; order && r < n_rows; r++) {
        for (size_t k = 0; k < n; k++) {
            order[k] = (int)k;
        }
        if (a->order == WITHIN_LATIN_SQUARE) {
            orders->row(n, r, order);
        }
        json_t *row = json_array();
        for (size_t k = 0; k < n; k++) {
            json_array_append_new(row, jstr(st->conditions[order[k]].id));
        }
        json_array_append_new(rows, row);
    }
    sim_free(order);
    json_object_set_new(o, "orders", rows);
}

static json_t *study_json(const Study *st, const CheckOrders *orders)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", jstr(st->id));
    json_object_set_new(o, "title", jstr(st->title));
    json_object_set_new(o, "preset", jstr(st->preset));
    json_object_set_new(o, "test_type", jstr(st->test_type));
    json_object_set_new(o, "domain", jstr(st->domain));
    json_object_set_new(o, "baseline", jstr(st->baseline));
    json_t *classes = json_array();
    for (size_t i = 0; i < st->n_classes; i++) {
        json_array_append_new(
            classes, json_pack("{s:o,s:o,s:o}", "id", jstr(st->classes[i].id),
                               "label", jstr(st->classes[i].label), "key",
                               jstr(st->classes[i].key)));
    }
    json_object_set_new(o, "classes", classes);
    const Assignment *a = &st->assignment;
    json_object_set_new(o, "assignment",
                        json_pack("{s:s,s:i,s:o,s:i}", "rule",
                                  a->rule == ASSIGN_HASE ? "hase" : "balanced",
                                  "min_complete", a->min_complete, "then",
                                  jstr(a->then_condition), "active_minutes",
                                  a->active_minutes));
    within_json(json_object_get(o, "assignment"), st, orders);
    const Screening *s = &st->screening;
    json_object_set_new(
        o, "screening",
        json_pack("{s:i,s:b,s:i,s:f,s:b}", "practice_min_first_try",
                  s->practice_min_first_try, "quiz_all_first_try",
                  s->quiz_all_first_try, "max_catch_failures",
                  s->max_catch_failures, "min_total_seconds",
                  s->min_total_seconds, "stop_on_failure", s->stop_on_failure));
    const SimAnalysisSpec *an = &st->analysis;
    json_t *looks = json_array();
    for (int i = 0; i < an->n_looks; i++) {
        json_array_append_new(looks, json_integer(an->looks[i]));
    }
    json_object_set_new(
        o, "analysis",
        json_pack("{s:s,s:s,s:f,s:s,s:o,s:o}", "primary",
                  sim_primary_name(an->primary), "source",
                  an->primary_set ? "study" : "default for this design",
                  "alpha", an->alpha, "correction", an->holm ? "holm" : "none",
                  "looks", looks, "spending",
                  an->n_looks ? json_string(sim_spending_name(an->spending))
                              : json_null()));
    json_t *items = json_object();
    for (size_t p = 0; p < st->n_pools; p++) {
        json_object_set_new(
            items, st->pools[p],
            json_integer((json_int_t)items_pool_size(st, st->pools[p])));
    }
    json_object_set_new(o, "items", items);
    json_t *ex = json_object();
    for (size_t m = 0; m < st->n_methods; m++) {
        json_object_set_new(
            ex, st->methods[m],
            json_integer((json_int_t)count_method(st, st->methods[m])));
    }
    json_object_set_new(o, "explanations", ex);
    json_object_set_new(o, "metrics", metrics_json(st));
    return o;
}

static json_t *blocks_json(const Study *st)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < st->n_blocks; i++) {
        const Block *b = &st->blocks[i];
        json_t *o = json_object();
        json_object_set_new(o, "kind", json_string(block_kind_name(b->kind)));
        json_object_set_new(o, "id", jstr(b->id));
        json_object_set_new(o, "phase", jstr(b->phase));
        json_object_set_new(o, "session", json_integer(b->session));
        json_object_set_new(o, "pool", jstr(b->pool));
        json_object_set_new(o, "n",
                            b->n_items == BLOCK_N_ALL
                                ? json_string("all")
                                : json_integer(b->n_items));
        json_object_set_new(o, "same_items_as", jstr(b->same_items_as));
        json_object_set_new(o, "exclude_items_of", jstr(b->exclude_items_of));
        json_object_set_new(
            o, "shows",
            json_pack("{s:b,s:b,s:b,s:b}", "label", b->show.label, "prediction",
                      b->show.prediction, "explanation", b->show.explanation,
                      "reservoir", b->show.reservoir));
        json_object_set_new(o, "rating", json_boolean(b->rating));
        json_object_set_new(o, "time_limit_ms", json_integer(b->time_limit_ms));
        json_object_set_new(
            o, "deadline_display",
            json_string(b->deadline_countdown ? "countdown" : "none"));
        json_object_set_new(o, "timeout_message", jstr(b->timeout_message));
        json_object_set_new(o, "confidence_points",
                            json_integer(b->confidence.points));
        json_object_set_new(o, "require_scroll",
                            json_boolean(b->require_scroll));
        json_object_set_new(o, "catch", json_integer(b->n_catch));
        json_object_set_new(o, "reservoir", jstr(b->reservoir));
        json_object_set_new(
            o, "order",
            json_string(b->order == ORDER_FIXED ? "fixed" : "shuffle"));
        json_object_set_new(
            o, "draw",
            json_string(b->draw == DRAW_PARTICIPANT ? "participant" : "study"));
        if (block_kind_desc(b->kind)->fields & BF_PRACTICE) {
            json_object_set_new(o, "feedback", json_boolean(b->feedback));
            json_object_set_new(o, "retry", json_boolean(b->retry));
            json_object_set_new(o, "train_pool", jstr(b->train_pool));
        }
        json_t *pages = json_array();
        for (size_t k = 0; k < b->n_pages; k++) {
            json_array_append_new(pages, jstr(b->pages[k]));
        }
        json_object_set_new(o, "pages", pages);
        json_object_set_new(
            o, "questions",
            json_integer((json_int_t)(b->n_questions + b->n_survey)));
        if (b->kind == BLOCK_QUESTIONNAIRE) {
            json_t *qs = json_array();
            for (size_t k = 0; k < b->n_survey; k++) {
                json_t *q = json_object();
                json_object_set_new(q, "id", jstr(b->survey[k].id));
                json_object_set_new(
                    q, "type",
                    json_string(question_type_name(b->survey[k].type)));
                json_object_set_new(q, "required",
                                    json_boolean(b->survey[k].required));
                json_array_append_new(qs, q);
            }
            json_object_set_new(o, "survey", qs);
        }
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *pools_json(const Study *st, const StudyReport *rep)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < rep->n_pools; i++) {
        const PoolBalance *p = &rep->pools[i];
        json_t *o = json_pack(
            "{s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "pool",
            p->pool, "n", p->n, "TP", p->tp, "FP", p->fp, "TN", p->tn, "FN",
            p->fn, "correct", p->correct, "incorrect", p->incorrect,
            "unlabeled", p->unlabeled, "counterfactuals", p->n_cf, "same",
            p->same, "flip", p->flip);
        json_t *bt = json_object();
        for (int t = 0; t < 4; t++) {
            json_object_set_new(bt, type_names[t],
                                json_pack("{s:i,s:i}", "same",
                                          p->same_by_type[t], "flip",
                                          p->flip_by_type[t]));
        }
        json_object_set_new(o, "by_type", bt);
        json_t *bp = json_object();
        for (size_t c = 0; st && c < st->n_classes; c++) {
            json_object_set_new(bp, st->classes[c].id,
                                json_pack("{s:i,s:i}", "same",
                                          p->same_by_pred[c], "flip",
                                          p->flip_by_pred[c]));
        }
        json_object_set_new(o, "by_prediction", bp);
        json_array_append_new(arr, o);
    }
    return arr;
}

/* The resolved runner strings (key -> text, in key order); {} without a
** study. */
static json_t *ui_strings_json(const Study *st)
{
    json_t *o = json_object();
    for (int k = 0; st && k < UI_KEY_COUNT; k++) {
        json_object_set_new(o, ui_key_name((UiKey)k),
                            json_string(ui_str(st->ui_strings, (UiKey)k)));
    }
    return o;
}

static int print_json(FILE *out, const char *dir, const Study *st,
                      const StudyReport *rep, const CheckOrders *orders)
{
    json_t *o = json_object();
    if (!o) {
        return -1;
    }
    json_object_set_new(o, "valid", json_boolean(rep->n_errors == 0));
    json_object_set_new(o, "bundle", json_string(dir));
    json_object_set_new(o, "errors", diags_json(rep->errors, rep->n_errors));
    json_object_set_new(o, "warnings",
                        diags_json(rep->warnings, rep->n_warnings));
    json_object_set_new(o, "study", st ? study_json(st, orders) : json_null());
    json_object_set_new(
        o, "hash", st && st->hash[0] ? json_string(st->hash) : json_null());
    json_t *conds = json_array();
    for (size_t i = 0; st && i < st->n_conditions; i++) {
        json_array_append_new(
            conds, json_pack("{s:o,s:o}", "id", jstr(st->conditions[i].id),
                             "method", jstr(st->conditions[i].method)));
    }
    json_object_set_new(o, "conditions", conds);
    json_object_set_new(o, "blocks", st ? blocks_json(st) : json_array());
    json_object_set_new(o, "pools", pools_json(st, rep));
    json_object_set_new(o, "language",
                        st ? json_string(ui_strings_language(st->ui_strings))
                           : json_null());
    json_object_set_new(
        o, "direction",
        st ? json_string(ui_strings_rtl(st->ui_strings) ? "rtl" : "ltr")
           : json_null());
    json_object_set_new(o, "ui_strings", ui_strings_json(st));
    int rc = json_dumpf(o, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', out);
    json_decref(o);
    return rc;
}

int check_bundle(const char *dir, int json, FILE *out)
{
    return check_bundle_orders(dir, json, out, NULL);
}

int check_bundle_orders(const char *dir, int json, FILE *out,
                        const CheckOrders *orders)
{
    return check_bundle_with(dir, json, out, orders, NULL);
}

int check_bundle_with(const char *dir, int json, FILE *out,
                      const CheckOrders *orders, CheckLayoutFn layout)
{
    StudyReport rep;
    study_report_init(&rep);
    Study *st = NULL;
    SimError err;
    sim_error_clear(&err);
    int rc = study_load_partial(dir, &st, &rep, &err);
    if (rc == SIM_ERR_NOMEM && !st) {
        if (json) {
            fprintf(out, "{\"valid\": false, \"errors\": [{\"file\": \"\", "
                         "\"line\": 0, \"field\": \"\", \"message\": "
                         "\"out of memory\"}]}\n");
        } else {
            fprintf(out, "%s\ninvalid: 1 error\n", err.msg);
        }
        study_report_free(&rep);
        return 1;
    }
    if (rc != SIM_OK && rep.n_errors == 0) {
        add_unlocated_error(&rep, dir ? dir : "", err.msg);
    }
    /* Characters no installed font can draw would show as empty boxes. */
    const UiStrings *ui = st ? st->ui_strings : NULL;
    GlyphChain *chain = NULL;
    if (dir && glyph_chain_open(ui ? ui_strings_language(ui) : NULL, &chain,
                                &err) == SIM_OK) {
        glyphs_check_bundle(dir, chain, st, &rep);
        glyph_chain_free(chain);
    }
    SimBuf lines;
    sim_buf_init(&lines);
    if (layout && st && rc == SIM_OK && rep.n_errors == 0) {
        layout(st, &lines, &rep);
    }
    if (json) {
        print_json(out, dir ? dir : "", st, &rep, orders);
    } else {
        print_text(out, dir ? dir : "", st, &rep, orders,
                   lines.oom ? "" : sim_buf_cstr(&lines));
    }
    sim_buf_free(&lines);
    int valid = rep.n_errors == 0 && rc == SIM_OK;
    study_free(st);
    study_report_free(&rep);
    return valid ? 0 : 1;
}

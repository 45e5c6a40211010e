/*
** study_load(): read a bundle folder (study.json, item banks, explanations,
** media metadata, pages), check everything, hash the bundle and compute the
** balance report; plus the lookups and destructors of study.h.
** libc, jansson, nettle and common/ only: no SDL, no clock.
*/
#define _XOPEN_SOURCE 700
#include "stimuli/bundle.h"
#include "stimuli/loader.h"
#include "stimuli/bpath_int.h"
#include "stimuli/items_int.h"
#include "stimuli/blocks.h"
#include "stimuli/design.h"
#include "stimuli/balance.h"
#include "stimuli/hash.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/sim_rng.h"
#include "common/sim_alloc.h"
#include "common/sim_metrics.h"
#include "common/sim_text.h"
#include "stimuli/page.h"

void study_report_init(StudyReport *report)
{
    if (report) {
        memset(report, 0, sizeof *report);
    }
}

static void diags_free(Diag *d, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(d[i].file);
        sim_free(d[i].pointer);
        sim_free(d[i].field);
        sim_free(d[i].message);
    }
    sim_free(d);
}

static void pools_free(PoolBalance *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(p[i].pool);
        sim_free(p[i].same_by_pred);
        sim_free(p[i].flip_by_pred);
    }
    sim_free(p);
}

void study_report_free(StudyReport *report)
{
    if (!report) {
        return;
    }
    diags_free(report->errors, report->n_errors);
    diags_free(report->warnings, report->n_warnings);
    pools_free(report->pools, report->n_pools);
    memset(report, 0, sizeof *report);
}

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sim_free(v[i]);
    }
    sim_free(v);
}

void study_free(Study *st)
{
    if (!st) {
        return;
    }
    sim_free(st->dir);
    sim_free(st->id);
    sim_free(st->title);
    sim_free(st->participant_title);
    sim_free(st->online.completion_code);
    sim_free(st->online.completion_url);
    sim_free(st->preset);
    sim_free(st->test_type);
    sim_free(st->domain);
    sim_free(st->json_text);
    sim_metrics_free(st->metrics);
    ui_strings_free(st->ui_strings);
    for (size_t i = 0; i < st->n_text_files; i++) {
        sim_free(st->text_files[i].rel);
    }
    sim_free(st->text_files);
    for (size_t i = 0; i < st->n_classes; i++) {
        sim_free(st->classes[i].id);
        sim_free(st->classes[i].label);
        sim_free(st->classes[i].key);
    }
    sim_free(st->classes);
    for (size_t i = 0; i < st->n_conditions; i++) {
        sim_free(st->conditions[i].id);
        sim_free(st->conditions[i].method);
        sim_free(st->conditions[i].label);
    }
    sim_free(st->conditions);
    sim_free(st->baseline);
    for (size_t i = 0; i < st->n_blocks; i++) {
        block_clear(&st->blocks[i]);
    }
    sim_free(st->blocks);
    for (size_t i = 0; i < st->n_items; i++) {
        item_clear(&st->items[i]);
    }
    sim_free(st->items);
    strv_free(st->methods, st->n_methods);
    sim_free(st->assignment.then_condition);
    for (size_t i = 0; i < st->assignment.n_repeat; i++) {
        sim_free(st->assignment.repeat[i]);
    }
    sim_free(st->assignment.repeat);
    sim_free(st->rating.question);
    sim_free(st->rating.low);
    sim_free(st->rating.high);
    for (size_t i = 0; i < st->simulation.n_cells; i++) {
        sim_free(st->simulation.cells[i].condition);
        sim_free(st->simulation.cells[i].phase);
    }
    sim_free(st->simulation.cells);
    for (size_t i = 0; i < st->n_pages; i++) {
        page_free(st->pages[i]);
    }
    sim_free(st->pages);
    strv_free(st->pools, st->n_pools);
    sim_free(st->class_slots);
    if (st->index) {
        sim_free(st->index->slots);
        sim_free(st->index);
    }
    sim_free(st);
}

/* Reads and parses study.json; reports syntax errors with line and column. */
static json_t *read_study_json(Loader *L)
{
    Study *st = L->st;
    char why[512];
    size_t len = 0;
    int rc = bpath_read(L, "study.json", &st->json_text, &len, why, sizeof why);
    if (rc == -2) {
        ld_diag(L, 0, "study.json", 0, 0, NULL, NULL, "%s",
                strstr(why, "no such file") ? "missing: a bundle needs a "
                                              "study.json"
                                            : why);
    }
    if (rc != 0) {
        return NULL;
    }
    json_error_t jerr;
    json_t *root =
        json_loadb(st->json_text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        ld_diag(L, 0, "study.json", jerr.line > 0 ? jerr.line : 1,
                jerr.column > 0 ? jerr.column : 0, NULL, NULL,
                "invalid JSON: %s", jerr.text);
    }
    return root;
}

int study_load_partial(const char *dir, Study **out, StudyReport *report,
                       SimError *err)
{
    *out = NULL;
    Loader L;
    memset(&L, 0, sizeof L);
    L.rep = report;
    struct stat sb;
    int st_rc = dir ? stat(dir, &sb) : -1;
    if (st_rc != 0 || !S_ISDIR(sb.st_mode)) {
        const char *why = !dir         ? "no directory given"
                          : st_rc != 0 ? strerror(errno)
                                       : "not a directory";
        ld_diag(&L, 0, dir ? dir : "", 0, 0, NULL, NULL,
                "cannot open the study bundle: %s", why);
        ld_repeats_finish(&L);
        return sim_fail(err, SIM_ERR_IO,
                        "%s: cannot open the study bundle: "
                        "%s",
                        dir ? dir : "(null)", why);
    }
    char *real = realpath(dir, NULL);
    if (!real) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", dir, strerror(errno));
    }
    L.root = sim_strdup(real);
    free(real);
    L.st = sim_calloc(1, sizeof *L.st);
    if (!L.root || !L.st) {
        sim_free(L.root);
        sim_free(L.st);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    L.root_len = strlen(L.root);
    Study *st = L.st;
    st->dir = sim_strdup(dir);
    if (!st->dir) {
        L.oom = 1;
    }
    json_t *root = L.oom ? NULL : read_study_json(&L);
    if (root) {
        design_parse(&L, root);
        L.language = NULL; /* borrowed from root */
        json_decref(root);
    }
    char why[512];
    int hrc = L.oom ? 0 : hash_bundle(L.root, st->hash, why, sizeof why);
    if (hrc == -2) {
        L.oom = 1;
    } else if (hrc != 0) {
        ld_diag(&L, 0, ".", 0, 0, NULL, NULL, "cannot hash the bundle: %s",
                why);
    }
    if (!L.oom && report) {
        SimError e2;
        if (study_balance(st, report, &e2) != SIM_OK) {
            L.oom = 1;
        } else {
            /* the balance of items that loaded only in part (a wrong
            ** class in every row) would be a follow-on of those errors */
            if (!L.items_incomplete) {
                balance_warnings(&L, report);
            }
        }
    }
    ld_repeats_finish(&L);
    sim_free(L.root);
    for (size_t i = 0; i < L.n_unread_pools; i++) {
        sim_free(L.unread_pools[i]);
    }
    sim_free(L.unread_pools);
    for (size_t i = 0; i < L.n_failed_methods; i++) {
        sim_free(L.failed_methods[i]);
    }
    sim_free(L.failed_methods);
    if (L.oom) {
        study_free(st);
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory while loading",
                        dir);
    }
    *out = st;
    if (L.n_errors > 0) {
        return sim_fail(err, SIM_ERR_INVALID,
                        "%zu error%s in study bundle "
                        "'%s'",
                        L.n_errors, L.n_errors == 1 ? "" : "s", dir);
    }
    sim_error_clear(err);
    return SIM_OK;
}

int study_load(const char *dir, Study **out, StudyReport *report, SimError *err)
{
    StudyReport local;
    study_report_init(&local);
    StudyReport *rep = report ? report : &local;
    Study *st = NULL;
    int rc = study_load_partial(dir, &st, rep, err);
    study_report_free(&local);
    if (rc != SIM_OK) {
        study_free(st);
        *out = NULL;
        return rc;
    }
    *out = st;
    return SIM_OK;
}

/* --------------------------------------------------------------- lookups */

const Item *study_find_item(const Study *st, const char *key)
{
    if (!st || !key) {
        return NULL;
    }
    long i = items_index_find(st, key);
    return i >= 0 ? &st->items[i] : NULL;
}

const Condition *study_find_condition(const Study *st, const char *id)
{
    int i = study_condition_index(st, id);
    return i >= 0 ? &st->conditions[i] : NULL;
}

int study_condition_index(const Study *st, const char *id)
{
    for (size_t i = 0; st && id && i < st->n_conditions; i++) {
        if (st->conditions[i].id && strcmp(st->conditions[i].id, id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const char *study_condition_suggest(const Study *st, const char *id)
{
    const char *best = NULL;
    size_t best_d = 99;
    for (size_t i = 0; st && id && i < st->n_conditions; i++) {
        const char *c = st->conditions[i].id;
        size_t d = c ? sim_edit_distance(id, c) : 99;
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return id && best_d <= sim_suggest_limit(id) ? best : NULL;
}

int study_class_index_build(Study *st)
{
    sim_free(st->class_slots);
    st->class_slots = NULL;
    st->n_class_slots = 0;
    size_t n = 16;
    while (n < 2 * st->n_classes) {
        n *= 2;
    }
    size_t *slots = sim_calloc(n, sizeof *slots);
    if (!slots) {
        return -1;
    }
    for (size_t i = 0; i < st->n_classes; i++) {
        if (!st->classes[i].id) {
            continue;
        }
        size_t h = (size_t)sim_hash_str(st->classes[i].id) & (n - 1);
        while (slots[h]) {
            h = (h + 1) & (n - 1);
        }
        slots[h] = i + 1;
    }
    st->class_slots = slots;
    st->n_class_slots = n;
    return 0;
}

int study_class_index(const Study *st, const char *class_id)
{
    if (st && class_id && st->class_slots) {
        /* the first of equal ids, as the linear search finds it */
        int found = -1;
        size_t mask = st->n_class_slots - 1;
        for (size_t h = (size_t)sim_hash_str(class_id) & mask;
             st->class_slots[h]; h = (h + 1) & mask) {
            size_t i = st->class_slots[h] - 1;
            if (i < st->n_classes && st->classes[i].id &&
                strcmp(st->classes[i].id, class_id) == 0 &&
                (found < 0 || (int)i < found)) {
                found = (int)i;
            }
        }
        return found;
    }
    for (size_t i = 0; st && class_id && i < st->n_classes; i++) {
        if (st->classes[i].id && strcmp(st->classes[i].id, class_id) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const int *item_block_options(const Item *item, BlockKind k, size_t *n)
{
    int offers = item && item->options && block_kind_offers_options(k);
    *n = offers ? item->n_options : 0;
    return offers ? item->options : NULL;
}

const Block *study_find_block(const Study *st, const char *id)
{
    for (size_t i = 0; st && id && i < st->n_blocks; i++) {
        if (st->blocks[i].id && strcmp(st->blocks[i].id, id) == 0) {
            return &st->blocks[i];
        }
    }
    return NULL;
}

const Block *study_find_phase_block(const Study *st, SimPhase phase)
{
    for (size_t i = 0; st && i < st->n_blocks; i++) {
        if (st->blocks[i].phase_id == phase) {
            return &st->blocks[i];
        }
    }
    return NULL;
}

int study_within_range(const Study *st, size_t *first, size_t *last)
{
    if (st && st->assignment.repeat_set) {
        *first = st->assignment.repeat_first;
        *last = st->assignment.repeat_last;
        return 1;
    }
    int found = 0;
    for (size_t i = 0; st && i < st->n_blocks; i++) {
        BlockKind k = st->blocks[i].kind;
        if (block_kind_shows_items(k) && k != BLOCK_PRACTICE) {
            if (!found) {
                *first = i;
            }
            *last = i;
            found = 1;
        }
    }
    /* breaks right after them pause between conditions */
    while (found && *last + 1 < st->n_blocks &&
           st->blocks[*last + 1].kind == BLOCK_BREAK) {
        (*last)++;
    }
    return found;
}

int study_n_sessions(const Study *st)
{
    int n = 0;
    for (size_t i = 0; st && i < st->n_blocks; i++) {
        if (st->blocks[i].session > n) {
            n = st->blocks[i].session;
        }
    }
    return n;
}

const Explanation *item_explanation(const Item *item, const char *method)
{
    for (size_t i = 0; item && method && i < item->n_expl; i++) {
        if (strcmp(item->expl[i].method, method) == 0) {
            return item->expl[i].e;
        }
    }
    return NULL;
}

/*
** Participant screening: pilot, simulated and engine exclusions (or the
** re-derived catch rule; an unanswered catch trial is a failed one),
** counted per condition and reason, with the Participants and exclusions
** tables; warnings about participants in two conditions; and the check that
** someone is left. No statistics here.
*/
#include <stdio.h>
#include <string.h>

#include "analysis/compute.h"
#include "common/sim_alloc.h"
#include "common/sim_text.h"

static int two_conditions_warning(const Dataset *ds, const Screen *s, Report *r,
                                  SimError *err);

static char *dup_or_empty(const char *s)
{
    return sim_strdup(s ? s : "");
}

static const TableColumn COUNT_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"enrolled", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"analysed", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
};

static const TableColumn EXCLUSION_COLS[] = {
    {"condition", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"reason", NULL, "left out because", TABLE_TEXT, "", 0, 0, 0},
    {"participants", NULL, NULL, TABLE_INT, "participants", 0, 0, 0},
    {"catch_failed", NULL, "failed catch", TABLE_INT, "trials", 0, 0, 0},
    {"catch_unanswered", NULL, "of them unanswered", TABLE_INT, "trials", 0, 0,
     0},
};

/* Participants per condition (md, json exclusions.conditions) and the
** exclusions by condition and reason (md when any, csv, json). */
static int screen_tables(Report *r, SimError *err)
{
    Table *t = report_add_table(r, "participants", TABLE_MD | TABLE_JSON,
                                COUNT_COLS, 3);
    if (!t) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    table_set_title(t, 2, "Participants");
    table_set_json_path(t, "exclusions.conditions");
    table_set_note(t, "%s",
                   "enrolled = participants with any response; analysed = "
                   "those left after the exclusions below.");
    for (int i = 0; i < r->n_counts; i++) {
        table_add_row(t);
        table_put_text(t, r->counts[i].condition);
        table_put_num(t, r->counts[i].enrolled);
        table_put_num(t, r->counts[i].analysed);
    }
    unsigned md = r->n_exclusions > 0 ? TABLE_MD : 0;
    t = report_add_table(r, "exclusions", md | TABLE_CSV | TABLE_JSON,
                         EXCLUSION_COLS, 5);
    if (!t) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    table_set_json_path(t, "exclusions.by_reason");
    table_set_note(t, "%s",
                   "Participants left out per condition and reason (pilot, "
                   "simulated, catch = more failed catch trials than "
                   "--max-catch-failures allows, or the engine's reason). "
                   "A catch trial fails when answered wrongly or not at all; "
                   "failed catch = their failed catch trials, of them "
                   "unanswered = those never answered.");
    for (int i = 0; i < r->n_exclusions; i++) {
        table_add_row(t);
        table_put_text(t, r->exclusions[i].condition);
        table_put_text(t, r->exclusions[i].reason);
        table_put_num(t, r->exclusions[i].participants);
        table_put_num(t, r->exclusions[i].catch_failed);
        table_put_num(t, r->exclusions[i].catch_unanswered);
    }
    if (r->warnings) {
        t = report_add_table(r, "warnings", TABLE_MD | TABLE_JSON, NULL, 0);
        if (!t || table_set_title(t, 2, "Warnings") != 0 ||
            table_set_note(t, "%s", r->warnings) != 0) {
            return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
        }
    }
    return SIM_OK;
}

void screen_free(Screen *s)
{
    sim_free(s->keep);
    sim_free(s->conds);
    sim_free(s->cond_index);
}

static int add_exclusion(Report *r, const char *cond, const char *reason,
                         int failed, int unanswered)
{
    for (int i = 0; i < r->n_exclusions; i++) {
        if (strcmp(r->exclusions[i].condition, cond) == 0 &&
            strcmp(r->exclusions[i].reason, reason) == 0) {
            r->exclusions[i].participants++;
            r->exclusions[i].catch_failed += failed;
            r->exclusions[i].catch_unanswered += unanswered;
            return 0;
        }
    }
    size_t cap = (size_t)r->n_exclusions;
    if (sim_grow((void **)&r->exclusions, &cap, cap + 1,
                 sizeof *r->exclusions) != 0) {
        return -1;
    }
    ExclusionRow *e = &r->exclusions[r->n_exclusions++];
    e->condition = dup_or_empty(cond);
    e->reason = dup_or_empty(reason);
    e->participants = 1;
    e->catch_failed = failed;
    e->catch_unanswered = unanswered;
    return e->condition && e->reason ? 0 : -1;
}

static int condition_rank(const Report *r, const char *cond)
{
    for (int c = 0; c < r->n_counts; c++) {
        if (strcmp(r->counts[c].condition, cond) == 0) {
            return c;
        }
    }
    return r->n_counts;
}

/* Orders the exclusion rows by condition (as in the counts), then reason. */
static void sort_exclusions(Report *r)
{
    for (int i = 1; i < r->n_exclusions; i++) {
        ExclusionRow x = r->exclusions[i];
        int rank = condition_rank(r, x.condition);
        int j = i;
        while (j > 0) {
            const ExclusionRow *y = &r->exclusions[j - 1];
            int ry = condition_rank(r, y->condition);
            if (ry < rank || (ry == rank && strcmp(y->reason, x.reason) <= 0)) {
                break;
            }
            r->exclusions[j] = r->exclusions[j - 1];
            j--;
        }
        r->exclusions[j] = x;
    }
}

/* The conditions of the data, quoted and comma-separated, into b. */
static void list_conditions(const Dataset *ds, const Screen *s, SimBuf *b)
{
    for (int c = 0; c < s->n_conds; c++) {
        sim_buf_printf(b, "%s'%.100s'", c ? ", " : "",
                       dataset_str(ds, s->conds[c]));
    }
}

/* The reference condition of every table, test and plot: --baseline, else
** the baseline the study definitions name, else a condition called
** "baseline"; none when neither. Sets *base to its string id (-1: none or
** no data) and r->baseline, r->baseline_from. A --baseline that names no
** condition of the data, or study definitions that disagree with no
** --baseline to decide, are errors naming the conditions. */
static int screen_baseline(const Dataset *ds, const AnalyzeOptions *o,
                           const Screen *s, Report *r, int *base, SimError *err)
{
    const char *name = NULL;
    char from[600] = "";
    if (o->baseline) {
        name = o->baseline;
        snprintf(from, sizeof from, "--baseline");
    } else if (ds->baseline_conflict) {
        SimBuf b;
        sim_buf_init(&b);
        list_conditions(ds, s, &b);
        int rc = sim_fail(err, SIM_ERR_INVALID,
                          "%s; choose the reference with --baseline NAME "
                          "(conditions: %s)",
                          ds->baseline_conflict, sim_buf_cstr(&b));
        sim_buf_free(&b);
        return rc;
    } else if (ds->baseline) {
        name = ds->baseline;
        snprintf(from, sizeof from, "the study's baseline in %.500s",
                 ds->baseline_from);
    } else if (dataset_find(ds, "baseline") >= 0) {
        name = "baseline";
        snprintf(from, sizeof from,
                 "the condition called 'baseline' (no study definition "
                 "names one)");
    }
    *base = name ? dataset_find(ds, name) : -1;
    if (*base >= 0 && (*base >= s->n_strings || s->cond_index[*base] < 0)) {
        *base = -1; /* a string of the data, but no condition */
    }
    if (name && *base < 0 && o->baseline) {
        SimBuf b;
        sim_buf_init(&b);
        list_conditions(ds, s, &b);
        int rc = sim_fail(err, SIM_ERR_USAGE,
                          "--baseline '%.100s': no such condition in the "
                          "data (conditions: %s)",
                          name, s->n_conds ? sim_buf_cstr(&b) : "none");
        sim_buf_free(&b);
        return rc;
    }
    r->baseline = name ? sim_strdup(name) : NULL;
    r->baseline_from = sim_strdup(
        name ? from
             : "no study definition names a baseline and no condition is "
               "called 'baseline'; choose one with --baseline");
    if ((name && !r->baseline) || !r->baseline_from) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}

int screen_participants(const Dataset *ds, const AnalyzeOptions *o, Report *r,
                        Screen *s, SimError *err)
{
    int np = ds->n_participants;
    memset(s, 0, sizeof *s);
    /* condition ids are string ids: size the lookup by the largest one */
    int max_id = 0;
    for (int p = 0; p < np; p++) {
        max_id = ds->participants[p].condition > max_id
                     ? ds->participants[p].condition
                     : max_id;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        max_id =
            ds->rows[i].condition > max_id ? ds->rows[i].condition : max_id;
    }
    s->n_strings = max_id + 1;
    s->keep = sim_calloc((size_t)np + 1, sizeof(int));
    s->cond_index = sim_malloc((size_t)s->n_strings * sizeof(int));
    s->conds = sim_malloc((size_t)s->n_strings * sizeof(int));
    int *catch_fail = sim_calloc(2 * ((size_t)np + 1), sizeof(int));
    int *catch_unanswered = catch_fail ? catch_fail + np + 1 : NULL;
    if (!s->keep || !s->cond_index || !s->conds || !catch_fail) {
        sim_free(catch_fail);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < s->n_strings; i++) {
        s->cond_index[i] = -1;
    }
    /* conditions: baseline first, then in order of first appearance */
    for (size_t i = 0; i < ds->n_rows; i++) {
        int c = ds->rows[i].condition;
        if (s->cond_index[c] < 0) {
            s->cond_index[c] = s->n_conds;
            s->conds[s->n_conds++] = c;
        }
    }
    int base = -1;
    int rc = screen_baseline(ds, o, s, r, &base, err);
    if (rc != SIM_OK) {
        sim_free(catch_fail);
        return rc;
    }
    s->base = base >= 0 ? s->cond_index[base] : -1;
    if (s->base > 0) {
        memmove(s->conds + 1, s->conds, (size_t)s->base * sizeof(int));
        s->conds[0] = base;
        for (int c = 0; c < s->n_conds; c++) {
            s->cond_index[s->conds[c]] = c;
        }
        s->base = 0;
    }
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *x = &ds->rows[i];
        if (x->is_catch && x->correct != 1) { /* wrong or unanswered */
            catch_fail[x->participant]++;
            catch_unanswered[x->participant] += x->correct < 0;
        }
    }
    r->counts = sim_calloc((size_t)s->n_conds + 1, sizeof *r->counts);
    if (!r->counts) {
        sim_free(catch_fail);
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    r->n_counts = s->n_conds;
    for (int c = 0; c < s->n_conds; c++) {
        r->counts[c].condition = dup_or_empty(dataset_str(ds, s->conds[c]));
    }
    for (int p = 0; p < np && rc == SIM_OK; p++) {
        const Participant *pp = &ds->participants[p];
        int c = s->cond_index[pp->condition];
        const char *cname = dataset_str(ds, pp->condition);
        const char *why = NULL;
        char reason[128];
        if (pp->pilot && !o->include_pilot) {
            why = "pilot";
        } else if (pp->simulated && !o->include_simulated) {
            why = "simulated";
        } else {
            const char *engine = dataset_str(ds, pp->reason);
            int engine_catch = strstr(engine, "catch") != NULL;
            if (pp->excluded && !(o->max_catch_failures >= 0 && engine_catch)) {
                snprintf(reason, sizeof reason, "%s",
                         engine[0] ? engine : "excluded");
                why = reason;
            } else if (o->max_catch_failures >= 0 &&
                       catch_fail[p] > o->max_catch_failures) {
                why = "catch";
            }
        }
        r->counts[c].enrolled++;
        if (why) {
            if (add_exclusion(r, cname, why, catch_fail[p],
                              catch_unanswered[p]) != 0) {
                rc = sim_fail(err, SIM_ERR_NOMEM, "out of memory");
            }
        } else {
            s->keep[p] = 1;
            r->counts[c].analysed++;
        }
    }
    sim_free(catch_fail);
    sort_exclusions(r);
    if (rc == SIM_OK) {
        rc = two_conditions_warning(ds, s, r, err);
    }
    if (rc == SIM_OK) {
        rc = screen_tables(r, err);
    }
    return rc;
}

/* Participants analysed in two or more conditions. In a between-subjects
** study (fewer than half of the analysed participants in several
** conditions) they are a warning naming them: each of their conditions is
** analysed as a separate resampling unit. */
static int two_conditions_warning(const Dataset *ds, const Screen *s, Report *r,
                                  SimError *err)
{
    int analysed = 0, multi = 0;
    for (int p = 0; p < ds->n_participants; p++) {
        analysed += s->keep[p];
        multi += s->keep[p] && ds->participants[p].n_conditions >= 2;
    }
    if (multi == 0 || 2 * multi >= analysed) {
        return SIM_OK;
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(&b,
                   "%d participant%s in two or more conditions of a "
                   "between-subjects study (each condition is analysed as a "
                   "separate participant): ",
                   multi, multi == 1 ? " is" : "s are");
    int shown = 0;
    for (int p = 0; p < ds->n_participants && shown < 10; p++) {
        if (s->keep[p] && ds->participants[p].n_conditions >= 2) {
            sim_buf_printf(&b, "%s%.80s (%d conditions)", shown ? ", " : "",
                           dataset_str(ds, ds->participants[p].name),
                           ds->participants[p].n_conditions);
            shown++;
        }
    }
    sim_buf_printf(&b, "%s.", multi > shown ? ", ..." : "");
    r->warnings = b.oom ? NULL : sim_strdup(sim_buf_cstr(&b));
    sim_buf_free(&b);
    return r->warnings ? SIM_OK : sim_fail(err, SIM_ERR_NOMEM, "out of memory");
}

int screen_none_left(const Report *r, SimError *err)
{
    int analysed = 0, by_flag = 0;
    for (int c = 0; c < r->n_counts; c++) {
        analysed += r->counts[c].analysed;
    }
    if (analysed > 0 || r->n_counts == 0) {
        return 0;
    }
    for (int i = 0; i < r->n_exclusions; i++) {
        by_flag |= strcmp(r->exclusions[i].reason, "pilot") == 0 ||
                   strcmp(r->exclusions[i].reason, "simulated") == 0;
    }
    /* totals per reason, with the flag that keeps them */
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "no participant left to analyse:");
    const char *done[64];
    int n_done = 0;
    for (int i = 0; i < r->n_exclusions && n_done < 64; i++) {
        const char *why = r->exclusions[i].reason;
        int seen = 0;
        for (int k = 0; k < n_done; k++) {
            seen |= strcmp(done[k], why) == 0;
        }
        if (seen) {
            continue;
        }
        done[n_done++] = why;
        int n = 0;
        for (int j = i; j < r->n_exclusions; j++) {
            n += strcmp(r->exclusions[j].reason, why) == 0
                     ? r->exclusions[j].participants
                     : 0;
        }
        const char *keep =
            strcmp(why, "pilot") == 0       ? "keep them with --include-pilot"
            : strcmp(why, "simulated") == 0 ? "keep them with "
                                              "--include-simulated"
            : strcmp(why, "catch") == 0     ? "raise --max-catch-failures"
                                              " to keep them"
                                            : "excluded by the engine; "
                                              "--max-catch-failures N "
                                              "re-derives catch exclusions";
        sim_buf_printf(&b, "%s %d %.60s (%s)", n_done > 1 ? ";" : "", n, why,
                       keep);
    }
    sim_fail(err, SIM_ERR_INVALID, "%s",
             b.oom ? "no participant left to analyse" : sim_buf_cstr(&b));
    sim_buf_free(&b);
    return by_flag ? 1 : 2;
}

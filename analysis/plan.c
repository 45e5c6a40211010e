/*
** preregistration.json (plan.h): written from a Plan and read back by
** simlab-analyze --plan, which lists how the data and the run depart from
** it. One member list for both directions, so writer and reader agree.
** The Markdown of the same plan is plan_md.c. libc and jansson.
*/
#include "analysis/plan.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "common/sim_alloc.h"

void plan_init(Plan *p)
{
    memset(p, 0, sizeof *p);
    p->format = PLAN_FORMAT;
    p->alpha = SIM_ALPHA_DEFAULT;
    p->holm = 1;
    p->analysis_max_catch = -1;
    double *nan_fields[] = {&p->seq_power,
                            &p->seq_fpr,
                            &p->seq_fpr_low,
                            &p->seq_fpr_high,
                            &p->expected_n_h0,
                            &p->expected_n_h1,
                            &p->fixed_n_same_power,
                            &p->target_power,
                            &p->exclusion_rate,
                            &p->power,
                            &p->power_low,
                            &p->power_high,
                            &p->fpr,
                            &p->fpr_low,
                            &p->fpr_high};
    for (size_t i = 0; i < sizeof nan_fields / sizeof nan_fields[0]; i++) {
        *nan_fields[i] = NAN;
    }
}

/* ------------------------------------------------------------ writing */

static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *str_or_null(const char *s)
{
    return s && s[0] ? json_string(s) : json_null();
}

static json_t *pair(double lo, double hi)
{
    return json_pack("[o, o]", num(lo), num(hi));
}

static json_t *lines(const char (*text)[300], int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_array_append_new(a, json_string(text[i]));
    }
    return a;
}

static json_t *direction(int d)
{
    return d > 0   ? json_string("higher")
           : d < 0 ? json_string("lower")
                   : json_null();
}

static json_t *conditions_json(const Plan *p)
{
    json_t *a = json_array();
    for (int c = 0; c < p->n_conds; c++) {
        const PlanCondition *x = &p->conds[c];
        json_array_append_new(a, json_pack("{s:s, s:o, s:o, s:b}", "id", x->id,
                                           "method", str_or_null(x->method),
                                           "label", str_or_null(x->label),
                                           "baseline", x->baseline));
    }
    return a;
}

/* Per tested condition: its hypothesis (power 0) or its power at the
** planned N (power 1). */
static json_t *tested_json(const Plan *p, int power)
{
    json_t *a = json_array();
    for (int c = 0; c < p->n_conds; c++) {
        const PlanCondition *x = &p->conds[c];
        if (!x->tested) {
            continue;
        }
        json_t *o = json_pack("{s:s}", "condition", x->id);
        if (power) {
            json_object_set_new(o, "power", num(x->power));
            json_object_set_new(o, "power_ci",
                                pair(x->power_low, x->power_high));
            json_object_set_new(o, "n_for_target", num(x->n_target));
            json_object_set_new(o, "n_above_sizes", json_boolean(x->n_above));
        } else {
            int change = strcmp(p->test, "change_bootstrap") == 0;
            json_object_set_new(
                o, "against", change ? json_null() : str_or_null(p->baseline));
            json_object_set_new(o, "direction", direction(x->direction));
            json_object_set_new(o, "assumed", num(x->assumed));
            json_object_set_new(o, "assumed_text",
                                str_or_null(x->assumed_text));
            json_object_set_new(o, "null_effect", json_boolean(x->null_effect));
        }
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *sequential_json(const Plan *p)
{
    if (p->n_looks == 0) {
        return json_null();
    }
    json_t *looks = json_array(), *crit = json_array(), *spent = json_array();
    for (int k = 0; k < p->n_looks; k++) {
        json_array_append_new(looks, json_integer(p->looks[k]));
        json_array_append_new(crit, num(p->crit[k]));
        json_array_append_new(spent, num(p->spent[k]));
    }
    return json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o}",
                     "looks", looks, "spending", p->spending, "critical_z",
                     crit, "alpha_spent", spent, "power", num(p->seq_power),
                     "false_positive_rate", num(p->seq_fpr),
                     "false_positive_ci", pair(p->seq_fpr_low, p->seq_fpr_high),
                     "null_rejected", p->seq_null_rejected, "expected_n_h0",
                     num(p->expected_n_h0), "expected_n_h1",
                     num(p->expected_n_h1), "fixed_n_same_power",
                     num(p->fixed_n_same_power));
}

static json_t *published_json(const Plan *p)
{
    json_t *a = json_array();
    for (int i = 0; i < p->n_published; i++) {
        const PlanPublished *x = &p->published[i];
        json_array_append_new(
            a, json_pack("{s:s, s:s, s:i, s:o, s:o, s:i, s:i, s:o, s:o}",
                         "test", x->test, "what", x->what, "participants",
                         x->participants, "size", num(x->size), "size_ci",
                         pair(x->size_low, x->size_high), "null_studies",
                         x->null_studies, "null_rejected", x->null_rejected,
                         "power", num(x->power), "primary_power",
                         num(x->primary_power)));
    }
    return a;
}

static json_t *plan_json(const Plan *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "simlab_plan", json_integer(p->format));
    json_object_set_new(o, "simlab_version", json_string(p->simlab_version));
    json_object_set_new(o, "date", json_string(p->date));
    json_object_set_new(o, "sha256", json_string(p->sha256));
    json_object_set_new(o, "seed", json_integer((json_int_t)p->seed));
    json_object_set_new(
        o, "study",
        json_pack("{s:s, s:s}", "id", p->study_id, "title", p->title));
    json_object_set_new(o, "hypotheses", tested_json(p, 0));
    json_object_set_new(o, "dependent_variable", lines(p->dv, p->n_dv));
    json_object_set_new(o, "design",
                        json_pack("{s:s, s:o, s:o}", "assignment",
                                  p->within ? "within" : "between",
                                  "conditions", conditions_json(p), "text",
                                  lines(p->design, p->n_design)));
    json_object_set_new(
        o, "primary",
        json_pack("{s:s, s:s, s:s, s:f, s:s, s:o, s:o, s:o, s:o}", "test",
                  p->test, "title", p->test_title, "source", p->source, "alpha",
                  p->alpha, "correction", p->holm ? "holm" : "none", "formula",
                  str_or_null(p->formula), "scale", str_or_null(p->scale),
                  "baseline", str_or_null(p->baseline), "baseline_from",
                  str_or_null(p->baseline_from)));
    json_object_set_new(o, "sequential", sequential_json(p));
    json_t *ss = json_pack(
        "{s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:s, "
        "s:s, s:s, s:o}",
        "per_condition", p->per_condition, "enrol_per_condition",
        p->enrol_per_condition, "enrol_range",
        json_pack("[i, i]", p->enrol_low, p->enrol_high), "exclusion_rate",
        num(p->exclusion_rate), "target_power", num(p->target_power), "power",
        num(p->power), "power_ci", pair(p->power_low, p->power_high),
        "false_positive_rate", num(p->fpr), "false_positive_ci",
        pair(p->fpr_low, p->fpr_high), "null_studies", p->null_studies,
        "null_rejected", p->null_rejected, "studies", p->studies, "sizes",
        p->sizes, "from", p->n_from, "effect_from", p->effect_from,
        "by_condition", tested_json(p, 1));
    json_object_set_new(o, "sample_size", ss);
    json_t *scr = json_pack(
        "{s:o, s:b, s:o, s:f, s:b}", "practice_min_first_try",
        p->practice_min_first_try >= 0 ? json_integer(p->practice_min_first_try)
                                       : json_null(),
        "quiz_all_first_try", p->quiz_all_first_try, "max_catch_failures",
        p->max_catch_failures >= 0 ? json_integer(p->max_catch_failures)
                                   : json_null(),
        "min_total_seconds", p->min_total_seconds, "stop_on_failure", 0);
    json_t *an = json_pack(
        "{s:b, s:b, s:o}", "include_pilot", p->include_pilot,
        "include_simulated", p->include_simulated, "max_catch_failures",
        p->analysis_max_catch >= 0 ? json_integer(p->analysis_max_catch)
                                   : json_null());
    json_object_set_new(o, "exclusions",
                        json_pack("{s:o, s:o, s:o}", "screening", scr,
                                  "analysis", an, "text",
                                  lines(p->exclusions, p->n_exclusions)));
    json_object_set_new(o, "secondary",
                        json_pack("{s:o, s:o}", "text",
                                  lines(p->secondary, p->n_secondary),
                                  "published", published_json(p)));
    return o;
}

int plan_write(const Plan *p, const char *dir, SimError *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot create: %s", dir,
                        strerror(errno));
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/preregistration.json", dir);
    json_t *o = plan_json(p);
    int bad = !o || json_dump_file(o, path,
                                   JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                       JSON_REAL_PRECISION(10)) != 0;
    json_decref(o);
    if (bad) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot write", path);
    }
    snprintf(path, sizeof path, "%s/preregistration.md", dir);
    return plan_write_md(p, path, err);
}

/* ------------------------------------------------------------ reading */

/* Member path ("a.b") of root, or NULL. */
static json_t *at(json_t *root, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *v = root;
    for (char *s = buf, *dot; v && s; s = dot ? dot + 1 : NULL) {
        dot = strchr(s, '.');
        if (dot) {
            *dot = '\0';
        }
        v = json_object_get(v, s);
    }
    return v;
}

typedef struct Reader {
    json_t *root;
    const char *file;
    SimError *err;
    int rc;
} Reader;

static int fail_member(Reader *x, const char *path, const char *what)
{
    if (x->rc == SIM_OK) {
        x->rc = sim_fail(x->err, SIM_ERR_INVALID,
                         "%s: member '%s' %s (is this a preregistration.json "
                         "that simlab plan wrote?)",
                         x->file, path, what);
    }
    return x->rc;
}

static void get_str(Reader *x, const char *path, char *out, size_t size)
{
    const char *s = json_string_value(at(x->root, path));
    if (!s) {
        fail_member(x, path, "is missing or not a string");
        return;
    }
    snprintf(out, size, "%s", s);
}

static double get_num(Reader *x, const char *path, int required)
{
    json_t *v = at(x->root, path);
    if (json_is_number(v)) {
        return json_number_value(v);
    }
    if (required || (v && !json_is_null(v))) {
        fail_member(x, path, "is missing or not a number");
    }
    return NAN;
}

static void read_published(Reader *x, Plan *p)
{
    size_t i;
    json_t *e;
    json_array_foreach(at(x->root, "secondary.published"), i, e)
    {
        if (p->n_published == PLAN_MAX_PUBLIC) {
            break;
        }
        PlanPublished *q = &p->published[p->n_published++];
        const char *t = json_string_value(json_object_get(e, "test"));
        snprintf(q->test, sizeof q->test, "%s", t ? t : "");
        q->participants =
            (int)json_integer_value(json_object_get(e, "participants"));
        q->null_studies =
            (int)json_integer_value(json_object_get(e, "null_studies"));
        q->null_rejected =
            (int)json_integer_value(json_object_get(e, "null_rejected"));
        json_t *v = json_object_get(e, "size");
        q->size = json_is_number(v) ? json_number_value(v) : NAN;
        v = json_object_get(e, "power");
        q->power = json_is_number(v) ? json_number_value(v) : NAN;
        v = json_object_get(e, "primary_power");
        q->primary_power = json_is_number(v) ? json_number_value(v) : NAN;
    }
}

int plan_read(const char *path, Plan *p, SimError *err)
{
    plan_init(p);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) {
        return sim_fail(err, SIM_ERR_PARSE, "%s:%d: not JSON: %s", path,
                        je.line, je.text);
    }
    Reader x = {root, path, err, SIM_OK};
    json_t *fmt = json_object_get(root, "simlab_plan");
    if (!json_is_object(root) || !json_is_integer(fmt)) {
        json_decref(root);
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: not a simlab plan (no \"simlab_plan\" member); "
                        "simlab plan STUDY --out DIR writes "
                        "preregistration.json",
                        path);
    }
    if (json_integer_value(fmt) != PLAN_FORMAT) {
        json_decref(root);
        return sim_fail(err, SIM_ERR_INVALID,
                        "%s: plan format %lld; this simlab reads format %d",
                        path, (long long)json_integer_value(fmt), PLAN_FORMAT);
    }
    get_str(&x, "sha256", p->sha256, sizeof p->sha256);
    get_str(&x, "simlab_version", p->simlab_version, sizeof p->simlab_version);
    get_str(&x, "date", p->date, sizeof p->date);
    get_str(&x, "primary.test", p->test, sizeof p->test);
    p->alpha = get_num(&x, "primary.alpha", 1);
    char corr[16] = "";
    get_str(&x, "primary.correction", corr, sizeof corr);
    p->holm = strcmp(corr, "none") != 0;
    const char *s = json_string_value(at(root, "primary.baseline"));
    snprintf(p->baseline, sizeof p->baseline, "%s", s ? s : "");
    s = json_string_value(at(root, "primary.formula"));
    snprintf(p->formula, sizeof p->formula, "%s", s ? s : "");
    p->per_condition = (int)get_num(&x, "sample_size.per_condition", 1);
    p->null_studies = (int)get_num(&x, "sample_size.null_studies", 1);
    p->null_rejected = (int)get_num(&x, "sample_size.null_rejected", 1);
    p->fpr = get_num(&x, "sample_size.false_positive_rate", 0);
    p->power = get_num(&x, "sample_size.power", 0);
    json_t *an = at(root, "exclusions.analysis");
    if (!json_is_object(an)) {
        fail_member(&x, "exclusions.analysis", "is missing");
    }
    p->include_pilot = json_is_true(json_object_get(an, "include_pilot"));
    p->include_simulated =
        json_is_true(json_object_get(an, "include_simulated"));
    json_t *mc = json_object_get(an, "max_catch_failures");
    p->analysis_max_catch =
        json_is_integer(mc) ? (int)json_integer_value(mc) : -1;
    json_t *seq = at(root, "sequential");
    if (json_is_object(seq)) {
        json_t *looks = json_object_get(seq, "looks");
        size_t i;
        json_t *v;
        json_array_foreach(looks, i, v)
        {
            if (p->n_looks < SIM_MAX_LOOKS) {
                p->looks[p->n_looks++] = (int)json_integer_value(v);
            }
        }
        p->seq_fpr = get_num(&x, "sequential.false_positive_rate", 0);
        p->seq_null_rejected = (int)get_num(&x, "sequential.null_rejected", 0);
    }
    read_published(&x, p);
    json_decref(root);
    return x.rc;
}

const PlanPublished *plan_published(const Plan *p, const char *test)
{
    for (int i = 0; p && i < p->n_published; i++) {
        if (strcmp(p->published[i].test, test) == 0) {
            return &p->published[i];
        }
    }
    return NULL;
}

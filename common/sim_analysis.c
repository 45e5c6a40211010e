/*
** study.json "analysis" (sim_analysis.h): the one reader of the primary
** test, alpha, correction, sequential looks, planned N and directions.
** Reports each problem with its path below "analysis"; knows nothing of
** the study's design (stimuli/ checks that the design can have the test).
*/
#include "common/sim_analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_text.h"

const char *const SIM_ANALYSIS_KEYS[] = {
    "primary",   "alpha",        "correction", "sequential",
    "direction", "participants", NULL};
const char *const SIM_SEQUENTIAL_KEYS[] = {"looks", "spending", NULL};

static const char *const PRIMARY_NAMES[SIM_PRIMARY_COUNT] = {
    "glmm",
    "paired_t",
    "anova",
    "change_bootstrap",
    "utility_bootstrap",
    "glmm_error_detection"};
static const char *const SPENDING_NAMES[] = {"obrien-fleming", "pocock"};
static const char *const CORRECTION_NAMES[] = {"holm", "none"};
static const char *const DIRECTION_NAMES[] = {"higher", "lower"};

const char *sim_primary_name(SimPrimaryTest t)
{
    return (unsigned)t < SIM_PRIMARY_COUNT ? PRIMARY_NAMES[t] : "?";
}

const char *sim_primary_title(SimPrimaryTest t)
{
    static const char *const titles[SIM_PRIMARY_COUNT] = {
        "the mixed-effects logistic model (Wald z)",
        "paired t tests",
        "the ANOVA's F test",
        "Change, crossed bootstrap",
        "Utility, crossed bootstrap",
        "the mixed model of error detection (Wald z)"};
    return (unsigned)t < SIM_PRIMARY_COUNT ? titles[t] : "?";
}

int sim_primary_from_name(const char *name)
{
    for (int k = 0; name && k < SIM_PRIMARY_COUNT; k++) {
        if (strcmp(name, PRIMARY_NAMES[k]) == 0) {
            return k;
        }
    }
    return -1;
}

const char *sim_spending_name(SimSpending s)
{
    return s == SIM_SPENDING_POCOCK ? SPENDING_NAMES[1] : SPENDING_NAMES[0];
}

void sim_analysis_default(SimAnalysisSpec *s)
{
    memset(s, 0, sizeof *s);
    s->primary = SIM_PRIMARY_GLMM;
    s->alpha = SIM_ALPHA_DEFAULT;
    s->holm = 1;
    s->spending = SIM_SPENDING_OBRIEN_FLEMING;
}

typedef struct Parse {
    SimAnalysisReport fn;
    void *ctx;
    int n;
} Parse;

static void report(Parse *p, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(Parse *p, const char *where, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->n++;
    if (p->fn) {
        p->fn(p->ctx, where, msg);
    }
}

/* The index of a string member's value among names (n of them), -1 when
** it is absent; a bad value is reported with a "did you mean" or the list,
** and gives -2. */
/* The name among names (n) that s starts, or else the closest one. */
static const char *suggest(const char *s, const char *const *names, size_t n)
{
    size_t len = strlen(s);
    for (size_t k = 0; len >= 3 && k < n; k++) {
        if (strncmp(names[k], s, len) == 0) {
            return names[k];
        }
    }
    return sim_suggest(s, names, n);
}

static int pick_name(Parse *p, json_t *obj, const char *where, const char *key,
                     const char *const *names, size_t n)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        return -1;
    }
    const char *s = json_string_value(v);
    for (size_t k = 0; s && k < n; k++) {
        if (strcmp(s, names[k]) == 0) {
            return (int)k;
        }
    }
    char list[256] = "";
    size_t at = 0;
    for (size_t k = 0; k < n && at < sizeof list; k++) {
        int w = snprintf(list + at, sizeof list - at, "%s%s", k ? ", " : "",
                         names[k]);
        at += w > 0 ? (size_t)w : 0;
    }
    const char *near = s ? suggest(s, names, n) : NULL;
    if (!s) {
        report(p, where, "expected one of %s", list);
    } else if (near) {
        report(p, where, "'%.80s' is not one of %s (did you mean '%s'?)", s,
               list, near);
    } else {
        report(p, where, "'%.80s' is not one of %s", s, list);
    }
    return -2;
}

static void parse_sequential(Parse *p, json_t *seq, SimAnalysisSpec *s)
{
    if (!json_is_object(seq)) {
        report(p, "sequential",
               "expected {\"looks\": [N1, N2, ...], \"spending\": "
               "\"obrien-fleming\" or \"pocock\"}");
        return;
    }
    int k =
        pick_name(p, seq, "sequential/spending", "spending", SPENDING_NAMES, 2);
    if (k >= 0) {
        s->spending = (SimSpending)k;
    }
    json_t *looks = json_object_get(seq, "looks");
    if (!looks) {
        report(p, "sequential",
               "\"looks\" missing: the analysed participants per condition "
               "at each look, e.g. [20, 40, 60]");
        return;
    }
    size_t n = json_array_size(looks);
    if (!json_is_array(looks) || n < 2 || n > SIM_MAX_LOOKS) {
        report(p, "sequential/looks",
               "expected a list of 2 to %d sizes (analysed participants per "
               "condition at each look, increasing)",
               SIM_MAX_LOOKS);
        return;
    }
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(looks, i);
        char where[64];
        snprintf(where, sizeof where, "sequential/looks/%zu", i);
        json_int_t v = json_is_integer(x) ? json_integer_value(x) : -1;
        if (v < 2 || v > 100000) {
            report(p, where,
                   "expected a whole number of participants from 2 to "
                   "100000");
            ok = 0;
        } else if (i > 0 && ok && v <= s->looks[i - 1]) {
            report(p, where,
                   "%lld does not increase on the look before it (%d): looks "
                   "are cumulative analysed participants per condition",
                   (long long)v, s->looks[i - 1]);
            ok = 0;
        }
        s->looks[i] = ok ? (int)v : 0;
    }
    s->n_looks = ok ? (int)n : 0;
}

static void parse_direction(Parse *p, json_t *dir, SimAnalysisSpec *s)
{
    if (!json_is_object(dir)) {
        report(p, "direction",
               "expected {\"CONDITION\": \"higher\" or \"lower\", ...}");
        return;
    }
    const char *key;
    json_t *v;
    json_object_foreach(dir, key, v)
    {
        char where[200];
        snprintf(where, sizeof where, "direction/%.150s", key);
        int k = -1;
        const char *t = json_string_value(v);
        for (int i = 0; t && i < 2; i++) {
            k = strcmp(t, DIRECTION_NAMES[i]) == 0 ? i : k;
        }
        if (k < 0) {
            const char *near = t ? suggest(t, DIRECTION_NAMES, 2) : NULL;
            report(p, where, "expected \"higher\" or \"lower\"%s%s%s",
                   near ? " (did you mean '" : "", near ? near : "",
                   near ? "'?)" : "");
            continue;
        }
        if (s->n_direction == SIM_MAX_DIRECTION || strlen(key) >= 128) {
            report(p, where, "too many directions or too long a name");
            continue;
        }
        SimDirection *d = &s->direction[s->n_direction++];
        snprintf(d->condition, sizeof d->condition, "%s", key);
        d->sign = k == 0 ? 1 : -1;
    }
}

int sim_analysis_parse(json_t *obj, SimAnalysisSpec *s, SimAnalysisReport fn,
                       void *ctx)
{
    sim_analysis_default(s);
    Parse p = {fn, ctx, 0};
    if (!obj) {
        return 0;
    }
    if (!json_is_object(obj)) {
        report(&p, "",
               "expected an object: {\"primary\": \"glmm\", \"alpha\": 0.05, "
               "\"correction\": \"holm\"}");
        return p.n;
    }
    s->present = 1;
    int k = pick_name(&p, obj, "primary", "primary", PRIMARY_NAMES,
                      SIM_PRIMARY_COUNT);
    if (k >= 0) {
        s->primary = (SimPrimaryTest)k;
        s->primary_set = 1;
    }
    json_t *a = json_object_get(obj, "alpha");
    if (a) {
        double x = json_is_number(a) ? json_number_value(a) : NAN;
        if (!(x > 0 && x < 0.5)) {
            report(&p, "alpha",
                   "expected a two-sided level strictly between 0 and 0.5 "
                   "(e.g. 0.05)");
        } else {
            s->alpha = x;
        }
    }
    k = pick_name(&p, obj, "correction", "correction", CORRECTION_NAMES, 2);
    if (k >= 0) {
        s->holm = k == 0;
    }
    json_t *n = json_object_get(obj, "participants");
    if (n) {
        json_int_t v = json_is_integer(n) ? json_integer_value(n) : -1;
        if (v < 2 || v > 100000) {
            report(&p, "participants",
                   "expected the planned analysed participants per "
                   "condition, a whole number from 2 to 100000");
        } else {
            s->participants = (int)v;
        }
    }
    json_t *seq = json_object_get(obj, "sequential");
    if (seq) {
        parse_sequential(&p, seq, s);
    }
    if (s->n_looks > 0 && s->participants > 0) {
        int last = s->looks[s->n_looks - 1];
        for (int i = 0; i < s->n_looks; i++) {
            char where[64];
            snprintf(where, sizeof where, "sequential/looks/%d", i);
            if (s->looks[i] > s->participants) {
                report(&p, where,
                       "look %d (%d participants) exceeds the planned "
                       "participants per condition (%d)",
                       i + 1, s->looks[i], s->participants);
            }
        }
        if (last < s->participants) {
            report(&p, "sequential/looks",
                   "the last look (%d) is the final analysis: it must equal "
                   "the planned participants (%d), or leave "
                   "\"participants\" out",
                   last, s->participants);
        }
    }
    json_t *dir = json_object_get(obj, "direction");
    if (dir) {
        parse_direction(&p, dir, s);
    }
    return p.n;
}

int sim_analysis_direction(const SimAnalysisSpec *s, const char *condition)
{
    for (int i = 0; condition && i < s->n_direction; i++) {
        if (strcmp(s->direction[i].condition, condition) == 0) {
            return s->direction[i].sign;
        }
    }
    return 0;
}

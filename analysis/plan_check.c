/*
** simlab-analyze --plan: how the data and the run depart from a
** preregistration (plan.h) -- the bundle hash, the primary test, alpha,
** correction, the reference, the exclusion flags and the analysed
** participants per condition against the plan's N or the look's; one
** plain sentence each in the report's primary test.
*/
#include "analysis/plan_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

static int add_deviation(PrimaryResult *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int add_deviation(PrimaryResult *r, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char **d =
        sim_realloc(r->deviations, ((size_t)r->n_deviations + 1) * sizeof *d);
    if (!d) {
        return -1;
    }
    r->deviations = d;
    d[r->n_deviations] = sim_strdup(msg);
    return d[r->n_deviations++] ? 0 : -1;
}

/* The data's study against the plan's. */
static int compare_study(const Plan *p, const Dataset *ds, PrimaryResult *r)
{
    int rc = 0;
    if (ds->n_study_hashes == 0) {
        rc |= add_deviation(r,
                            "the data do not name their study (no study "
                            "table, no sidecar), so the plan's study (hash "
                            "%.12s...) cannot be confirmed",
                            p->sha256);
    }
    for (int i = 0; i < ds->n_study_hashes; i++) {
        if (strcmp(ds->study_hashes[i], p->sha256) != 0) {
            rc |= add_deviation(r,
                                "the study was changed after the plan (hash "
                                "%.12s... in the data, %.12s... in the plan)",
                                ds->study_hashes[i], p->sha256);
        }
    }
    return rc;
}

/* The test, alpha, correction and reference of the run against the
** plan's. */
static int compare_test(const Plan *p, const Report *rep, PrimaryResult *r)
{
    int rc = 0;
    const char *test = sim_primary_name(r->test);
    if (strcmp(test, p->test) != 0) {
        rc |= strcmp(r->source, "command line") == 0
                  ? add_deviation(r,
                                  "--primary %s overrides the planned test "
                                  "(%s)",
                                  test, p->test)
                  : add_deviation(r, "the primary test is %s, the plan says %s",
                                  test, p->test);
    }
    if (fabs(r->alpha - p->alpha) > 1e-12) {
        rc |= add_deviation(r, "alpha is %g, the plan says %g", r->alpha,
                            p->alpha);
    }
    if (r->holm != p->holm) {
        rc |=
            add_deviation(r, "the correction is %s, the plan says %s",
                          r->holm ? "holm" : "none", p->holm ? "holm" : "none");
    }
    const char *ref = rep->baseline ? rep->baseline : "";
    if (strcmp(ref, p->baseline) != 0) {
        rc |= add_deviation(r,
                            "the reference condition is '%s', the plan says "
                            "'%s'",
                            ref[0] ? ref : "none",
                            p->baseline[0] ? p->baseline : "none");
    }
    return rc;
}

/* simlab-analyze's exclusion flags against the plan's. */
static int compare_exclusions(const Plan *p, const AnalyzeOptions *o,
                              PrimaryResult *r)
{
    int rc = 0;
    if (o->include_pilot != p->include_pilot) {
        rc |= add_deviation(
            r, "pilot participants are %s; the plan %s",
            o->include_pilot ? "kept (--include-pilot)" : "left out",
            p->include_pilot ? "keeps them" : "leaves them out");
    }
    if (o->include_simulated != p->include_simulated) {
        rc |= add_deviation(
            r, "simulated participants are %s; the plan %s",
            o->include_simulated ? "kept (--include-simulated)" : "left out",
            p->include_simulated ? "keeps them" : "leaves them out");
    }
    if (o->max_catch_failures != p->analysis_max_catch) {
        char run[64], plan[64];
        snprintf(run, sizeof run, "more than %d failed", o->max_catch_failures);
        snprintf(plan, sizeof plan, "more than %d failed",
                 p->analysis_max_catch);
        rc |= add_deviation(
            r,
            "the catch-trial exclusion is %s, the plan's is "
            "%s",
            o->max_catch_failures >= 0 ? run : "the study's own",
            p->analysis_max_catch >= 0 ? plan : "the study's own");
    }
    return rc;
}

/* The analysed participants per condition against the plan's N (or the
** look's). */
static int compare_n(const Plan *p, const Report *rep, PrimaryResult *r)
{
    int rc = 0, want = p->per_condition;
    const char *what = "the plan says";
    char look[64];
    if (p->n_looks > 0 && r->look > 0 && r->look <= p->n_looks) {
        want = p->looks[r->look - 1];
        snprintf(look, sizeof look, "look %d of the plan says", r->look);
        what = look;
    } else if (p->n_looks > 0 && r->look == 0) {
        rc |= add_deviation(r, "the plan has sequential looks, and this report "
                               "is none of them (no --look)");
    }
    for (int c = 0; c < rep->n_counts; c++) {
        if (rep->counts[c].analysed != want) {
            rc |= add_deviation(r,
                                "condition '%s' has %d analysed "
                                "participants, %s %d",
                                rep->counts[c].condition,
                                rep->counts[c].analysed, what, want);
        }
    }
    return rc;
}

int plan_check(const Plan *p, const Dataset *ds, Report *r, SimError *err)
{
    PrimaryResult *pr = &r->primary;
    pr->planned = 1;
    int rc = compare_study(p, ds, pr) | compare_test(p, r, pr) |
             compare_exclusions(p, &r->opt, pr) | compare_n(p, r, pr);
    if (rc != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    pr->matches = pr->n_deviations == 0;
    return SIM_OK;
}

/*
** The primary test of simlab-analyze's report (analysis/primary.c): the
** default mixed model's contrasts (the phase x condition interaction in a
** pre/post design), the study's own test and alpha from a sidecar, each
** --primary, the errors of a test the data cannot have, sequential looks
** at rpact's boundaries, --plan (confirmatory, deviations, bad plans),
** the size from --calibrate, and the report's order: "## Primary test"
** first, the published tables under their own heading, primary.csv, tex,
** report.json "primary" after "settings", the forest plot.
*/
#include "tests/harness.h"
#include "tests/test_report.h"
#include "tests/test_stimuli_fs.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analyze.h"
#include "analysis/plan.h"

#define GLMM SIMLAB_TEST_DATA "/glmm/"

static char g_dir[] = "/tmp/simlab-primary-XXXXXX";

/* Copies a fixture into the temporary folder with a sidecar whose study
** definition holds analysis (JSON text, may be NULL) and hash. */
static void with_sidecar(const char *fixture, const char *name,
                         const char *analysis, const char *hash, char *out,
                         size_t size)
{
    char cmd[1200];
    snprintf(out, size, "%s/%s.csv", g_dir, name);
    snprintf(cmd, sizeof cmd, "cp '%s%s.csv' '%s'", GLMM, fixture, out);
    CHECK(system(cmd) == 0);
    char side[600];
    snprintf(side, sizeof side, "%s.json", out);
    FILE *f = fopen(side, "w");
    fprintf(f,
            "{\"studies\": [{\"id\": \"%s\", \"hash\": \"%s\", "
            "\"definition\": {\"id\": \"%s\", \"baseline\": \"baseline\"%s%s"
            "}}]}\n",
            name, hash, name, analysis ? ", \"analysis\": " : "",
            analysis ? analysis : "");
    fclose(f);
}

static const char HASH_A[] =
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char HASH_B[] =
    "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static int compute(const char *csv, const AnalyzeOptions *o, Report *r,
                   SimError *err)
{
    Dataset *ds;
    dataset_new(&ds, err);
    int rc = dataset_load_csv(ds, csv, err);
    if (rc == SIM_OK) {
        rc = analyze_compute(ds, o, r, err);
    } else {
        memset(r, 0, sizeof *r);
    }
    dataset_free(ds);
    return rc;
}

static void options(AnalyzeOptions *o)
{
    analyze_options_default(o);
    o->replicates = 100;
    o->quiet = 1;
    o->progress = 0;
    o->plots = 0;
}

static const GlmmTermRow *term(const Report *r, const char *name)
{
    for (int j = 0; j < r->glmm.n_terms; j++) {
        if (strcmp(r->glmm.terms[j].name, name) == 0) {
            return &r->glmm.terms[j];
        }
    }
    return NULL;
}

/* The default: the mixed model, each condition's interaction with phase
** against the baseline, Holm over the two. */
static void test_default_prepost(void)
{
    AnalyzeOptions o;
    options(&o);
    Report r;
    SimError err;
    CHECK_INT(compute(GLMM "effect.csv", &o, &r, &err), SIM_OK);
    const PrimaryResult *p = &r.primary;
    CHECK_INT(p->test, SIM_PRIMARY_GLMM);
    CHECK_STR(p->source, "default for this design");
    CHECK_STR(p->scale, "odds ratio");
    CHECK_NEAR(p->alpha, 0.05, 0);
    CHECK_INT(p->n_rows, 2);
    double q[2];
    for (int i = 0; i < p->n_rows && i < 2; i++) {
        char name[200];
        snprintf(name, sizeof name, "phasepost:condition%s",
                 p->rows[i].condition);
        CHECK_STR(p->rows[i].contrast, name);
        const GlmmTermRow *t = term(&r, name);
        CHECK(t != NULL);
        if (t) {
            CHECK_NEAR(p->rows[i].estimate, exp(t->estimate), 1e-12);
            CHECK_NEAR(p->rows[i].ci_low, exp(t->ci_low), 1e-12);
            CHECK_NEAR(p->rows[i].p, t->p, 1e-15);
            CHECK_NEAR(p->rows[i].z, t->z, 1e-15);
        }
        q[i] = p->rows[i].p;
    }
    /* Holm over two: the smaller doubled, the larger at least that */
    double lo = fmin(q[0], q[1]), hi = fmax(q[0], q[1]);
    double adj_lo = fmin(1, 2 * lo), adj_hi = fmax(adj_lo, hi);
    for (int i = 0; i < 2; i++) {
        CHECK_NEAR(p->rows[i].p_adjusted, q[i] == lo ? adj_lo : adj_hi, 1e-15);
        CHECK_STR(p->rows[i].decision,
                  p->rows[i].p_adjusted <= 0.05 ? "reject" : "retain");
    }
    CHECK(strstr(p->formula, "phase * condition") != NULL);
    CHECK(p->note && strstr(p->note, "interaction") != NULL);
    report_free(&r);
}

/* --primary: each test's rows from its table; a test the data cannot
** have is a usage error. */
static void test_command_line(void)
{
    AnalyzeOptions o;
    options(&o);
    Report r;
    SimError err;
    o.primary = SIM_PRIMARY_CHANGE_BOOTSTRAP;
    CHECK_INT(compute(GLMM "effect.csv", &o, &r, &err), SIM_OK);
    CHECK_STR(r.primary.source, "command line");
    CHECK_STR(r.primary.scale, "points");
    int n = 0;
    for (int i = 0; i < r.n_change; i++) {
        const ChangeRow *c = &r.change[i];
        if (strcmp(c->subset, "all") != 0) {
            continue;
        }
        CHECK(n < r.primary.n_rows);
        if (n < r.primary.n_rows) {
            CHECK_STR(r.primary.rows[n].condition, c->condition);
            CHECK_NEAR(r.primary.rows[n].estimate, 100 * c->change, 1e-12);
            CHECK_NEAR(r.primary.rows[n].p, c->p, 0);
        }
        n++;
    }
    CHECK_INT(n, 3); /* every condition, the baseline too */
    report_free(&r);

    o.primary = SIM_PRIMARY_ANOVA;
    CHECK_INT(compute(GLMM "effect.csv", &o, &r, &err), SIM_OK);
    CHECK_INT(r.primary.n_rows, 1);
    CHECK_NEAR(r.primary.rows[0].p, r.anova.p, 1e-15);
    CHECK_NEAR(r.primary.rows[0].estimate, r.anova.eta_sq, 1e-15);
    CHECK_STR(r.primary.formula, "accuracy ~ condition");
    report_free(&r);

    o.primary = SIM_PRIMARY_PAIRED_T;
    CHECK_INT(compute(GLMM "effect.csv", &o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "--primary paired_t") != NULL);
    CHECK(strstr(err.msg, "within-subject") != NULL);
    report_free(&r);
    o.primary = SIM_PRIMARY_UTILITY_BOOTSTRAP;
    CHECK_INT(compute(GLMM "effect.csv", &o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "training sessions") != NULL);
    report_free(&r);

    /* within: the paired t tests, Holm's p as the report's */
    o.primary = SIM_PRIMARY_PAIRED_T;
    CHECK_INT(compute(GLMM "within.csv", &o, &r, &err), SIM_OK);
    const Table *t = test_table(&r, "paired");
    CHECK_INT(r.primary.n_rows, 2);
    for (int i = 0; t && i < r.primary.n_rows; i++) {
        const PrimaryRow *x = &r.primary.rows[i];
        int k = test_row(t, "b", x->condition);
        CHECK(k >= 0);
        CHECK_NEAR(x->p_adjusted, test_num(t, k, "p_holm"), 1e-15);
        CHECK_NEAR(x->estimate, 100 * test_num(t, k, "diff"), 1e-12);
    }
    report_free(&r);
    /* test data in sessions: Utility against the baseline */
    o.primary = SIM_PRIMARY_UTILITY_BOOTSTRAP;
    CHECK_INT(compute(GLMM "testonly.csv", &o, &r, &err), SIM_OK);
    CHECK_INT(r.primary.n_rows, 2);
    CHECK_STR(r.primary.scale, "ratio");
    report_free(&r);
}

/* The study's own test, alpha and correction, read from the sidecar's
** definition; a block the sidecar breaks is an error naming it. */
static void test_study_block(void)
{
    char csv[600];
    with_sidecar("effect", "study",
                 "{\"primary\": \"anova\", \"alpha\": 0.01, "
                 "\"correction\": \"none\"}",
                 HASH_A, csv, sizeof csv);
    AnalyzeOptions o;
    options(&o);
    Report r;
    SimError err;
    CHECK_INT(compute(csv, &o, &r, &err), SIM_OK);
    CHECK_INT(r.primary.test, SIM_PRIMARY_ANOVA);
    CHECK_STR(r.primary.source, "study");
    CHECK_NEAR(r.primary.alpha, 0.01, 0);
    CHECK_INT(r.primary.holm, 0);
    report_free(&r);
    with_sidecar("effect", "bad", "{\"alpha\": 2}", HASH_A, csv, sizeof csv);
    CHECK_INT(compute(csv, &o, &r, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "analysis.alpha") != NULL);
    CHECK(strstr(err.msg, "bad.csv.json") != NULL);
    report_free(&r);
}

/* Sequential looks: --look K against the study's boundaries (rpact's
** 1.993047 at the last of three equal looks), the decisions, the errors. */
static void test_looks(void)
{
    char csv[600];
    with_sidecar("effect", "seq", "{\"sequential\": {\"looks\": [4, 8, 12]}}",
                 HASH_A, csv, sizeof csv);
    AnalyzeOptions o;
    options(&o);
    o.look = 3;
    Report r;
    SimError err;
    CHECK_INT(compute(csv, &o, &r, &err), SIM_OK);
    const PrimaryResult *p = &r.primary;
    CHECK_NEAR(p->critical_z, 1.993047483, 2e-6);
    CHECK_NEAR(p->alpha_spent, 0.05, 1e-12);
    CHECK_INT(p->n_looks, 3);
    for (int i = 0; i < p->n_rows; i++) {
        const char *d = p->rows[i].decision;
        CHECK(d && (strcmp(d, "stop: reject") == 0 ||
                    strcmp(d, "final: retain") == 0));
        /* Holm's step-down: the larger |z| at alpha / 2 */
        CHECK(p->rows[i].critical_z >= p->critical_z);
    }
    CHECK(strcmp(p->decision, "stop: reject") == 0 ||
          strcmp(p->decision, "final: retain") == 0);
    report_free(&r);
    o.look = 1; /* 12 analysed where look 1 plans 4 */
    CHECK_INT(compute(csv, &o, &r, &err), SIM_OK);
    CHECK_NEAR(r.primary.critical_z, 3.710302873, 2e-6);
    CHECK(strstr(r.primary.note, "Look 1 plans 4") != NULL);
    for (int i = 0; i < r.primary.n_rows; i++) {
        const char *d = r.primary.rows[i].decision;
        CHECK(d &&
              (strcmp(d, "stop: reject") == 0 || strcmp(d, "continue") == 0));
    }
    report_free(&r);
    o.look = 4;
    CHECK_INT(compute(csv, &o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "--look 4: the study plans 3 looks (4, 8, 12") !=
          NULL);
    report_free(&r);
    o.look = 0; /* no --look on a sequential study: said */
    CHECK_INT(compute(csv, &o, &r, &err), SIM_OK);
    CHECK(strstr(r.primary.note, "give --look K") != NULL);
    report_free(&r);
    o.look = 1;
    CHECK_INT(compute(GLMM "effect.csv", &o, &r, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "plans no sequential looks") != NULL);
    report_free(&r);
}

/* A plan as simlab plan writes it for effect.csv. */
static void a_plan(Plan *p)
{
    plan_init(p);
    snprintf(p->sha256, sizeof p->sha256, "%s", HASH_A);
    snprintf(p->simlab_version, sizeof p->simlab_version, "%s", SIMLAB_VERSION);
    snprintf(p->date, sizeof p->date, "2025-01-31");
    snprintf(p->study_id, sizeof p->study_id, "plan");
    snprintf(p->title, sizeof p->title, "Plan test");
    snprintf(p->test, sizeof p->test, "glmm");
    snprintf(p->test_title, sizeof p->test_title, "the mixed model");
    snprintf(p->source, sizeof p->source, "default for this design");
    snprintf(p->baseline, sizeof p->baseline, "baseline");
    p->per_condition = 12;
    p->null_studies = 200;
    p->null_rejected = 9;
    p->fpr = 0.045;
    p->n_published = 1;
    PlanPublished *q = &p->published[0];
    snprintf(q->test, sizeof q->test, "change_bootstrap");
    snprintf(q->what, sizeof q->what, "Hase & Bansal's Change");
    q->participants = 12;
    q->null_studies = 600;
    q->null_rejected = 1;
    q->size = 1.0 / 600;
    q->power = 0.3;
    q->primary_power = 0.6;
}

static void write_plan(const Plan *p, const char *name, char *path, size_t size)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, name);
    SimError err;
    CHECK_INT(plan_write(p, dir, &err), SIM_OK);
    snprintf(path, size, "%s/preregistration.json", dir);
}

/* --plan: confirmatory as planned; each deviation a sentence; a plan read
** back as written; bad plans refused. */
static void test_plan(void)
{
    char csv[600], path[700];
    with_sidecar("effect", "plan", NULL, HASH_A, csv, sizeof csv);
    Plan *p = calloc(1, sizeof *p), *back = calloc(1, sizeof *back);
    a_plan(p);
    write_plan(p, "plan-ok", path, sizeof path);
    SimError err;
    CHECK_INT(plan_read(path, back, &err), SIM_OK);
    CHECK_STR(back->sha256, HASH_A);
    CHECK_STR(back->test, "glmm");
    CHECK_INT(back->per_condition, 12);
    CHECK_INT(back->null_rejected, 9);
    CHECK_INT(back->n_published, 1);
    AnalyzeOptions o;
    options(&o);
    o.plan = back;
    o.plan_file = path;
    Report r;
    CHECK_INT(compute(csv, &o, &r, &err), SIM_OK);
    CHECK_INT(r.primary.planned, 1);
    CHECK_INT(r.primary.matches, 1);
    CHECK_INT(r.primary.n_deviations, 0);
    CHECK_STR(r.primary.size_source, "plan");
    CHECK_INT(r.primary.size_studies, 200);
    report_free(&r);

    /* the study changed, another N, --primary and a flag */
    p->per_condition = 20;
    snprintf(p->sha256, sizeof p->sha256, "%s", HASH_B);
    write_plan(p, "plan-off", path, sizeof path);
    CHECK_INT(plan_read(path, back, &err), SIM_OK);
    o.primary = SIM_PRIMARY_ANOVA;
    o.include_pilot = 1;
    CHECK_INT(compute(csv, &o, &r, &err), SIM_OK);
    CHECK_INT(r.primary.matches, 0);
    const char *want[] = {
        "the study was changed after the plan (hash aaaaaaaaaaaa... in the "
        "data, bbbbbbbbbbbb... in the plan)",
        "--primary anova overrides the planned test (glmm)",
        "pilot participants are kept (--include-pilot); the plan leaves "
        "them out",
        "condition 'baseline' has 12 analysed participants, the plan says "
        "20"};
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        int found = 0;
        for (int i = 0; i < r.primary.n_deviations; i++) {
            found |= strcmp(r.primary.deviations[i], want[k]) == 0;
        }
        if (!found) {
            fprintf(stderr, "missing deviation: %s\n", want[k]);
        }
        CHECK(found);
    }
    report_free(&r);

    /* bad plans */
    char bad[700];
    snprintf(bad, sizeof bad, "%s/notjson.json", g_dir);
    FILE *f = fopen(bad, "w");
    fputs("{\"simlab_plan\": 1,", f);
    fclose(f);
    CHECK_INT(plan_read(bad, back, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "notjson.json:1: not JSON") != NULL);
    snprintf(bad, sizeof bad, "%s/report.json", g_dir);
    f = fopen(bad, "w");
    fputs("{\"settings\": {}}", f);
    fclose(f);
    CHECK_INT(plan_read(bad, back, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "not a simlab plan") != NULL);
    f = fopen(bad, "w");
    fputs("{\"simlab_plan\": 1, \"sha256\": \"x\", \"date\": \"d\", "
          "\"simlab_version\": \"v\", \"primary\": {\"test\": \"glmm\"}}",
          f);
    fclose(f);
    CHECK_INT(plan_read(bad, back, &err), SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "member 'primary.alpha'") != NULL);
    free(p);
    free(back);
}

/* --calibrate measures the primary test's size (the share of null
** studies with any contrast rejected). */
static void test_calibrated_size(void)
{
    AnalyzeOptions o;
    options(&o);
    o.replicates = 50;
    o.calibrate = 20;
    Report r;
    SimError err;
    CHECK_INT(compute(GLMM "effect.csv", &o, &r, &err), SIM_OK);
    CHECK_STR(r.primary.size_source, "calibrate");
    CHECK_INT(r.primary.size_studies, 20);
    CHECK(r.primary.size_rejected <= 5);
    CHECK(r.primary.size_low <= r.primary.size_rate &&
          r.primary.size_rate <= r.primary.size_high);
    const Table *pub = test_table(&r, "published");
    CHECK(pub != NULL);
    report_free(&r);
}

/* The written report: the primary test first in every format, the
** published tables under their heading, one level down. */
static void test_files(void)
{
    char csv[600];
    with_sidecar("effect", "files", NULL, HASH_A, csv, sizeof csv);
    AnalyzeOptions o;
    options(&o);
    o.plots = PLOT_PNG;
    char out[700];
    snprintf(out, sizeof out, "%s/out", g_dir);
    const char *csvs[1] = {csv};
    SimError err;
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out, &err), SIM_OK);
    char path[800];
    snprintf(path, sizeof path, "%s/report.md", out);
    char *md = fs_read(path, NULL);
    CHECK(md != NULL);
    const char *first = md ? strstr(md, "\n## ") : NULL;
    CHECK(first && strncmp(first, "\n## Primary test\n", 17) == 0);
    const char *pub =
        md ? strstr(md, "\n## Published methods, with their measured size\n")
           : NULL;
    const char *change =
        md ? strstr(md, "\n### Accuracy change (Post - Pre)\n") : NULL;
    CHECK(pub && change && pub < change);
    CHECK(md && strstr(md, "No preregistration was given") != NULL);
    free(md);
    snprintf(path, sizeof path, "%s/report.tex", out);
    char *tex = fs_read(path, NULL);
    const char *cap = tex ? strstr(tex, "\\caption{") : NULL;
    CHECK(cap && strncmp(cap, "\\caption{Primary test:", 22) == 0);
    free(tex);
    snprintf(path, sizeof path, "%s/primary.csv", out);
    char *pc = fs_read(path, NULL);
    CHECK(pc && strncmp(pc,
                        "condition,contrast,estimate,ci_low,ci_high,z,p,"
                        "p_adjusted,critical_z,decision\n",
                        75) == 0);
    free(pc);
    snprintf(path, sizeof path, "%s/primary_forest.png", out);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size > 1000);
    snprintf(path, sizeof path, "%s/report.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_PRESERVE_ORDER, &je);
    const char *key = NULL;
    int k = 0;
    void *it = json_object_iter(root);
    while (it && k < 2) {
        key = json_object_iter_key(it);
        it = json_object_iter_next(root, it);
        k++;
    }
    CHECK_STR(key, "primary"); /* right after settings */
    json_t *p = json_object_get(root, "primary");
    const char *keys[] = {"test",    "source", "alpha", "correction",
                          "formula", "rows",   "size"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        CHECK(json_object_get(p, keys[i]) != NULL);
    }
    json_t *row = json_array_get(json_object_get(p, "rows"), 0);
    const char *rkeys[] = {"condition", "contrast", "estimate",   "ci_low",
                           "ci_high",   "p",        "p_adjusted", "decision"};
    for (size_t i = 0; i < sizeof rkeys / sizeof *rkeys; i++) {
        CHECK(json_object_get(row, rkeys[i]) != NULL);
    }
    json_t *size = json_object_get(p, "size");
    CHECK(json_is_null(json_object_get(size, "source")));
    CHECK(json_object_get(size, "n_null_studies") != NULL);
    CHECK(json_is_string(json_object_get(json_object_get(root, "glmm"), "r")));
    json_decref(root);
    /* a test the data cannot have: nothing written */
    o.primary = SIM_PRIMARY_PAIRED_T;
    snprintf(out, sizeof out, "%s/never", g_dir);
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out, &err), SIM_ERR_USAGE);
    CHECK(stat(out, &st) != 0);
}

/* No baseline anywhere: the model's reference is named. */
static void test_no_baseline(void)
{
    char csv[600], cmd[1300];
    snprintf(csv, sizeof csv, "%s/nobase.csv", g_dir);
    snprintf(cmd, sizeof cmd,
             "sed 's/,baseline,/,control,/' '%seffect.csv' > '%s'", GLMM, csv);
    CHECK(system(cmd) == 0);
    AnalyzeOptions o;
    options(&o);
    Report r;
    SimError err;
    CHECK_INT(compute(csv, &o, &r, &err), SIM_OK);
    CHECK(r.primary.note &&
          strstr(r.primary.note, "the first condition of the data") != NULL);
    CHECK(r.glmm.fitted);
    report_free(&r);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    test_default_prepost();
    test_command_line();
    test_study_block();
    test_looks();
    test_plan();
    test_calibrated_size();
    test_files();
    test_no_baseline();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
    report_plots_shutdown(); /* the font caches of the plots */
    return TEST_REPORT();
}

/*
** What simlab-analyze counts, checked on the fixture
** tests/data/analysis-semantics/semantics.csv against R
** (make_semantics.R wrote goldens.txt): catch trials inside Pre and Post
** blocks stay out of the change table, the ratings and the participant
** accuracies; participant accuracy with its t interval (t.test); the item
** analysis (accuracy, item-rest cor, binomial test); the rating scale and
** where it came from; unanswered catch trials as failed ones; the
** guard-rails (no participant left, a participant in two conditions); and
** the files and keys of the new tables.
*/
#include "tests/harness.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analyze.h"
#include "analysis/compute.h"
#include "analysis/dataset.h"

#define FIXTURE SIMLAB_SOURCE_DIR "/tests/data/analysis-semantics/"

/* goldens.txt: "KEY WORDS VALUE" lines; the key is all but the last word. */
static char golden_keys[256][256];
static double golden_vals[256];
static int n_goldens;

static void load_goldens(void)
{
    FILE *f = fopen(FIXTURE "goldens.txt", "r");
    char line[256];
    while (f && n_goldens < 256 && fgets(line, sizeof line, f)) {
        char *sp = strrchr(line, ' ');
        if (!sp) {
            continue;
        }
        *sp = '\0';
        snprintf(golden_keys[n_goldens], sizeof golden_keys[0], "%s", line);
        golden_vals[n_goldens++] = strtod(sp + 1, NULL);
    }
    if (f) {
        fclose(f);
    }
}

/* The golden of "NAME A B" (empty parts left out). */
static double golden(const char *name, const char *a, const char *b)
{
    char key[256];
    snprintf(key, sizeof key, "%s%s%s%s%s", name, a[0] ? " " : "", a,
             b[0] ? " " : "", b);
    for (int i = 0; i < n_goldens; i++) {
        if (strcmp(golden_keys[i], key) == 0) {
            return golden_vals[i];
        }
    }
    fprintf(stderr, "no golden '%s'\n", key);
    return -999;
}

/* NaN equals NaN here: an undefined correlation must stay undefined. */
static int same(double a, double b, double eps)
{
    return (isnan(a) && isnan(b)) || fabs(a - b) <= eps;
}

static Dataset *load_fixture(void)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    int rc = dataset_load_csv(ds, FIXTURE "semantics.csv", &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    CHECK_INT(rc, SIM_OK);
    return ds;
}

static void options(AnalyzeOptions *o, int replicates)
{
    analyze_options_default(o);
    o->replicates = replicates;
    o->progress = 0;
    o->quiet = 1;
}

static const ChangeRow *change_row(const Report *r, const char *subset,
                                   const char *cond)
{
    for (int i = 0; i < r->n_change; i++) {
        if (strcmp(r->change[i].subset, subset) == 0 &&
            strcmp(r->change[i].condition, cond) == 0) {
            return &r->change[i];
        }
    }
    return NULL;
}

static const char *const conds[2] = {"baseline", "lime"};
static const char *const phases[2] = {"pre", "post"};

/* The numbers against R. */
static void test_against_r(void)
{
    Dataset *ds = load_fixture();
    AnalyzeOptions o;
    options(&o, 200);
    Report r;
    SimError err;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    /* catch trials inside the blocks are not pairs of the change table */
    for (int c = 0; c < 2; c++) {
        const ChangeRow *row = change_row(&r, "all", conds[c]);
        CHECK(row != NULL);
        if (row) {
            CHECK_INT(row->n_responses, (int)golden("pairs", conds[c], ""));
        }
    }
    /* participant accuracy: mean, SD, SE and t.test's interval */
    CHECK_INT(r.n_accuracy, 4);
    for (int i = 0; i < r.n_accuracy; i++) {
        const AccuracyRow *a = &r.accuracy[i];
        const char *c = a->condition, *ph = a->phase;
        CHECK_INT(a->n_participants, (int)golden("acc_n", c, ph));
        CHECK_NEAR(a->mean, golden("acc_mean", c, ph), 1e-12);
        CHECK_NEAR(a->sd, golden("acc_sd", c, ph), 1e-12);
        CHECK_NEAR(a->se, golden("acc_se", c, ph), 1e-12);
        CHECK_NEAR(a->t_low, golden("acc_t_low", c, ph), 1e-10);
        CHECK_NEAR(a->t_high, golden("acc_t_high", c, ph), 1e-10);
    }
    /* items: accuracy, item-rest correlation, one-sided binomial p */
    CHECK_INT(r.n_items, 20);
    int checked = 0;
    for (int p = 0; p < 2; p++) {
        for (int j = 1; j <= 10; j++) {
            char label[64], item[16];
            snprintf(item, sizeof item, "i%d", j);
            const char *tt = j <= 5 ? "forward" : "counterfactual";
            snprintf(label, sizeof label, "%s/text/%s/%s", phases[p], tt, item);
            for (int k = 0; k < r.n_items; k++) {
                const ItemRow *it = &r.items[k];
                if (strcmp(it->label, label) != 0) {
                    continue;
                }
                checked++;
                CHECK_INT(it->n, (int)golden("item_n", phases[p], item));
                CHECK_NEAR(it->accuracy, golden("item_acc", phases[p], item),
                           1e-12);
                CHECK(same(it->item_rest, golden("item_rest", phases[p], item),
                           1e-12) ||
                      !fprintf(stderr, "item_rest %s: %g\n", label,
                               it->item_rest));
                CHECK(same(it->p_below, golden("item_p", phases[p], item),
                           1e-10));
                /* the flags follow the documented thresholds */
                CHECK_INT((it->flags & ITEM_CEILING) != 0,
                          it->accuracy >= 0.95);
                CHECK_INT((it->flags & ITEM_FLOOR) != 0, it->accuracy <= 0.05);
                CHECK_INT((it->flags & ITEM_BELOW_CHANCE) != 0,
                          it->p_below < 0.05);
            }
        }
    }
    CHECK_INT(checked, 20);
    /* ratings: catch trials (all rated 5) are left out */
    for (int c = 0; c < r.n_ratings && c < 2; c++) {
        CHECK_STR(r.ratings[c].condition, conds[c]);
        CHECK_INT(r.ratings[c].n, (int)golden("rating_n", conds[c], ""));
        CHECK_NEAR(r.ratings[c].mean, golden("rating_mean", conds[c], ""),
                   1e-12);
    }
    CHECK(r.has_logit);
    CHECK_INT(r.logit_n, (int)golden("logit_n", "", ""));
    CHECK_NEAR(r.logit.b1, golden("logit_slope", "", ""), 1e-8);
    /* the readers did not say the scale: 1-5 from the data */
    CHECK_INT(r.rating_points, 5);
    CHECK_STR(r.rating_from, "data");
    CHECK_INT(r.n_pred, 3);
    CHECK_INT(r.pred_rating[0], 2);
    report_free(&r);
    dataset_free(ds);
}

/* Dropping the catch rows from the input changes none of the tables that
** must not count them. */
static void test_catch_rows_do_not_count(void)
{
    Dataset *ds = load_fixture(), *nc;
    SimError err;
    dataset_new(&nc, &err);
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *x = &ds->rows[i];
        if (x->is_catch) {
            continue;
        }
        DatasetRow row = {0};
        row.participant =
            dataset_str(ds, ds->participants[x->participant].name);
        row.condition = dataset_str(ds, x->condition);
        row.phase = dataset_phase_name(x->phase);
        row.item = dataset_str(ds, x->item);
        row.test_type = dataset_str(ds, dataset_test_type(ds, x));
        row.domain = dataset_str(ds, dataset_domain(ds, x));
        row.correct = x->correct;
        row.rating = x->rating;
        row.rt_ms = dataset_rt_ms(ds, i);
        CHECK_INT(dataset_add(nc, &row, &err), SIM_OK);
    }
    AnalyzeOptions o;
    options(&o, 100);
    Report a, b;
    CHECK_INT(analyze_compute(ds, &o, &a, &err), SIM_OK);
    CHECK_INT(analyze_compute(nc, &o, &b, &err), SIM_OK);
    int equal = a.n_change == b.n_change && a.n_change > 0;
    for (int i = 0; equal && i < a.n_change; i++) {
        equal &= a.change[i].n_responses == b.change[i].n_responses &&
                 a.change[i].ci_low == b.change[i].ci_low &&
                 a.change[i].change == b.change[i].change;
    }
    CHECK(equal);
    equal = a.n_accuracy == b.n_accuracy && a.n_ratings == b.n_ratings;
    for (int i = 0; equal && i < a.n_accuracy; i++) {
        equal &= a.accuracy[i].mean == b.accuracy[i].mean;
    }
    for (int i = 0; equal && i < a.n_ratings; i++) {
        equal &= a.ratings[i].mean == b.ratings[i].mean &&
                 a.ratings[i].ci_low == b.ratings[i].ci_low;
    }
    CHECK(equal);
    CHECK(a.logit.b1 == b.logit.b1);
    report_free(&a);
    report_free(&b);
    dataset_free(nc);
    dataset_free(ds);
}

static int exclusion(const Report *r, const char *cond, const char *why)
{
    for (int i = 0; i < r->n_exclusions; i++) {
        if (strcmp(r->exclusions[i].condition, cond) == 0 &&
            strcmp(r->exclusions[i].reason, why) == 0) {
            return i;
        }
    }
    return -1;
}

/* p03 answered a catch trial wrongly, p05 left one unanswered: both fail. */
static void test_unanswered_catch(void)
{
    Dataset *ds = load_fixture();
    AnalyzeOptions o;
    options(&o, 0);
    o.max_catch_failures = 0;
    Report r;
    SimError err;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    int i = exclusion(&r, "baseline", "catch");
    CHECK(i >= 0);
    if (i >= 0) {
        CHECK_INT(r.exclusions[i].participants, 2);
        CHECK_INT(r.exclusions[i].catch_failed, 2);
        CHECK_INT(r.exclusions[i].catch_unanswered, 1);
    }
    CHECK_INT(r.counts[0].analysed, 6);
    report_free(&r);
    dataset_free(ds);
}

/* A declared scale is used and named; the predictions follow it. */
static void test_declared_scale(void)
{
    Dataset *ds = load_fixture();
    ds->rating_points = 7;
    ds->rating_from = "study";
    AnalyzeOptions o;
    options(&o, 0);
    o.formats = FORMAT_MD | FORMAT_JSON;
    o.plots = 0;
    Report r;
    SimError err;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.rating_points, 7);
    CHECK_STR(r.rating_from, "study");
    CHECK_INT(r.n_pred, 5);
    CHECK_INT(r.pred_rating[4], 6);
    CHECK_INT(analyze_write(&r, "analysis_semantics_tmp/scale7", &err), SIM_OK);
    report_free(&r);
    FILE *f = fopen("analysis_semantics_tmp/scale7/report.md", "r");
    static char text[65536];
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    text[n] = '\0';
    CHECK(strstr(text, "## Ratings (1-7)\n") != NULL);
    CHECK(strstr(text, "Scale 1-7, as the study defines it.") != NULL);
    /* a two-point scale: predictions at both points */
    ds->rating_points = 2;
    ds->rating_from = "sidecar";
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.rating_points, 5); /* ratings up to 5 were given */
    CHECK_STR(r.rating_from, "data");
    report_free(&r);
    dataset_free(ds);
}

/* Scales other than 1-7: ratings mapped to 2r + 1 on a 1-11 scale halve
** the slope and map the means; a two-point scale predicts at both points. */
static void test_other_scales(void)
{
    Dataset *ds = load_fixture();
    for (size_t i = 0; i < ds->n_rows; i++) {
        if (ds->rows[i].rating > 0) {
            ds->rows[i].rating = (int8_t)(2 * ds->rows[i].rating + 1);
        }
    }
    ds->rating_points = 11;
    ds->rating_from = "sidecar";
    AnalyzeOptions o;
    options(&o, 0);
    Report r;
    SimError err;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.rating_points, 11);
    CHECK_STR(r.rating_from, "sidecar");
    CHECK_INT(r.n_pred, 9);
    CHECK_INT(r.pred_rating[8], 10);
    CHECK_NEAR(r.ratings[0].mean, 2 * golden("rating_mean", "baseline", "") + 1,
               1e-12);
    CHECK_NEAR(r.logit.b1, golden("logit_slope", "", "") / 2, 1e-8);
    report_free(&r);
    for (size_t i = 0; i < ds->n_rows; i++) {
        if (ds->rows[i].rating > 0) {
            ds->rows[i].rating = (int8_t)(1 + (ds->rows[i].rating > 6));
        }
    }
    ds->rating_points = 0;
    ds->rating_from = "";
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.rating_points, 2);
    CHECK_STR(r.rating_from, "data");
    CHECK_INT(r.n_pred, 2);
    CHECK(r.has_logit && isfinite(r.logit.b1));
    report_free(&r);
    dataset_free(ds);
}

/* The report files, the JSON keys and the md text of the new tables. */
static void test_files(void)
{
    AnalyzeOptions o;
    options(&o, 50);
    const char *csvs[1] = {FIXTURE "semantics.csv"};
    SimError err;
    const char *out = "analysis_semantics_tmp/report";
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out, &err), SIM_OK);
    const char *files[] = {
        "accuracy.csv", "items.csv", "items_by_condition.csv",
        "items.png",    "items.svg", "items.pdf"};
    char path[512];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        CHECK(access(path, R_OK) == 0 || !fprintf(stderr, "no %s\n", path));
    }
    snprintf(path, sizeof path, "%s/accuracy.csv", out);
    FILE *f = fopen(path, "r");
    char line[256] = "";
    if (f) {
        CHECK(fgets(line, sizeof line, f) != NULL);
        fclose(f);
    }
    CHECK_STR(line, "condition,phase,n_participants,mean,sd,se,t_low,t_high\n");
    snprintf(path, sizeof path, "%s/items.csv", out);
    f = fopen(path, "r");
    line[0] = '\0';
    if (f) {
        CHECK(fgets(line, sizeof line, f) != NULL);
        fclose(f);
    }
    CHECK_STR(line, "phase,domain,test_type,item,n,accuracy,item_rest,"
                    "chance,p_below_chance,ceiling,floor,below_chance\n");
    snprintf(path, sizeof path, "%s/report.json", out);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    json_t *acc = json_object_get(root, "accuracy");
    CHECK_INT((int)json_array_size(acc), 4);
    const char *keys[] = {"condition", "phase", "n_participants", "mean",
                          "sd",        "se",    "t_low",          "t_high"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        CHECK(json_object_get(json_array_get(acc, 0), keys[i]) != NULL);
    }
    CHECK_NEAR(
        json_real_value(json_object_get(json_array_get(acc, 0), "t_low")),
        golden("acc_t_low", "baseline", "pre"), 1e-12);
    CHECK_INT((int)json_array_size(json_object_get(root, "items")), 20);
    json_decref(root);
    snprintf(path, sizeof path, "%s/report.md", out);
    f = fopen(path, "r");
    static char md[131072];
    size_t n = f ? fread(md, 1, sizeof md - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    md[n] = '\0';
    CHECK(strstr(md, "## Participant accuracy\n") != NULL);
    CHECK(strstr(md, "## Items (for piloting)\n") != NULL);
    CHECK(strstr(md, "## Ratings (1-5)\n") != NULL);
    CHECK(strstr(md, "Scale 1-5, taken from the data") != NULL);
    CHECK(strstr(md, "n = pairs answered in both phases") != NULL);
    CHECK(strstr(md, "replicates had a singular random-effects fit") != NULL);
    snprintf(path, sizeof path, "%s/report.tex", out);
    f = fopen(path, "r");
    n = f ? fread(md, 1, sizeof md - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    md[n] = '\0';
    CHECK(strstr(md, "Participant accuracy (\\%)") != NULL);
}

static void add(Dataset *ds, const char *part, const char *cond, int sim,
                int pilot)
{
    SimError err;
    for (int ph = 0; ph < 2; ph++) {
        for (int j = 0; j < 3; j++) {
            char item[8];
            snprintf(item, sizeof item, "i%d", j);
            DatasetRow row = {0};
            row.participant = part;
            row.condition = cond;
            row.phase = ph ? "post" : "pre";
            row.item = item;
            row.correct = (j + ph) % 2;
            row.simulated = sim;
            row.pilot = pilot;
            row.rt_ms = NAN;
            CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
        }
    }
}

/* No one left: analyze_main fails and names the flag; a participant in two
** conditions of a between-subjects study is a warning naming them. */
static void test_guard_rails(void)
{
    char csv[] = "analysis_semantics_tmp/all-simulated.csv";
    FILE *f = fopen(csv, "w");
    fputs("participant,condition,phase,item,correct,simulated,pilot\n", f);
    for (int p = 0; p < 4; p++) {
        fprintf(f, "s%d,%s,post,i1,1,%d,%d\n", p, p % 2 ? "a" : "baseline",
                p < 3, p == 3);
    }
    fclose(f);
    AnalyzeOptions o;
    options(&o, 0);
    o.plots = 0;
    const char *csvs[1] = {csv};
    SimError err;
    CHECK_INT(
        analyze_main(&o, NULL, 0, csvs, 1, "analysis_semantics_tmp/none", &err),
        SIM_ERR_INVALID);
    CHECK(strstr(err.msg, "no participant left") != NULL);
    CHECK(strstr(err.msg, "3 simulated (keep them with --include-simulated)") !=
          NULL);
    CHECK(strstr(err.msg, "1 pilot (keep them with --include-pilot)") != NULL);
    o.include_simulated = 1;
    CHECK_INT(
        analyze_main(&o, NULL, 0, csvs, 1, "analysis_semantics_tmp/none", &err),
        SIM_OK);

    /* all excluded by the engine: the exclusions are the report */
    f = fopen(csv, "w");
    fputs("participant,condition,phase,item,correct,excluded,"
          "exclusion_reason\n",
          f);
    for (int p = 0; p < 4; p++) {
        fprintf(f, "e%d,%s,post,i1,1,1,quiz\n", p, p % 2 ? "a" : "baseline");
    }
    fclose(f);
    o.include_simulated = 0;
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1,
                           "analysis_semantics_tmp/engine", &err),
              SIM_OK);
    CHECK(access("analysis_semantics_tmp/engine/exclusions.csv", R_OK) == 0);

    /* between subjects: 6 participants, one of them also in condition a */
    Dataset *ds;
    dataset_new(&ds, &err);
    const char *names[6] = {"b1", "b2", "b3", "a1", "a2", "a3"};
    for (int p = 0; p < 6; p++) {
        add(ds, names[p], p < 3 ? "baseline" : "a", 0, 0);
    }
    add(ds, "b2", "a", 0, 0);
    options(&o, 0);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.warnings && strstr(r.warnings, "b2 (2 conditions)") != NULL);
    report_free(&r);
    dataset_free(ds);
    /* within subjects: everyone in both conditions, no warning */
    dataset_new(&ds, &err);
    for (int p = 0; p < 6; p++) {
        add(ds, names[p], "baseline", 0, 0);
        add(ds, names[p], "a", 0, 0);
    }
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.warnings == NULL);
    report_free(&r);
    dataset_free(ds);
}

/* More than 60 items: md lists the flagged ones, items.csv every one. */
static void test_many_items(void)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    for (int p = 0; p < 4; p++) {
        for (int j = 0; j < 70; j++) {
            char part[8], item[8];
            snprintf(part, sizeof part, "u%d", p);
            snprintf(item, sizeof item, "i%d", j);
            DatasetRow row = {0};
            row.participant = part;
            row.condition = "baseline";
            row.phase = "test";
            row.item = item;
            row.correct = j == 0 || (p + j) % 2;
            row.session = 1;
            row.rt_ms = NAN;
            CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
        }
    }
    AnalyzeOptions o;
    options(&o, 0);
    o.formats = FORMAT_MD | FORMAT_CSV;
    o.plots = 0;
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.n_items, 70);
    CHECK_INT(analyze_write(&r, "analysis_semantics_tmp/many", &err), SIM_OK);
    report_free(&r);
    dataset_free(ds);
    FILE *f = fopen("analysis_semantics_tmp/many/report.md", "r");
    static char md[65536];
    size_t n = f ? fread(md, 1, sizeof md - 1, f) : 0;
    if (f) {
        fclose(f);
    }
    md[n] = '\0';
    CHECK(strstr(md, "| test | - | - | i0 | 4 | 100.0 |") != NULL);
    CHECK(strstr(md, "| i5 |") == NULL);
    CHECK(strstr(md, "1 of 70 items flagged (only those are listed)") != NULL);
    f = fopen("analysis_semantics_tmp/many/items.csv", "r");
    int lines = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        lines++;
    }
    if (f) {
        fclose(f);
    }
    CHECK_INT(lines, 71);
}

/* An item's chance level: 1 / the options offered on trials with per-item
** answer options (four candidates: 25 %), else 1/2; the binomial test and
** the flag against it (R's binom.test, make_semantics.R). */
static void test_item_chance(void)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    for (int p = 0; p < 40; p++) {
        char part[8];
        snprintf(part, sizeof part, "u%d", p);
        for (int k = 0; k < 2; k++) {
            DatasetRow row = {0};
            row.participant = part;
            row.condition = "baseline";
            row.phase = "test";
            row.item = k == 0 ? "four" : "two";
            row.correct = k == 0 ? p < 6 : p < 15;
            row.n_options = k == 0 ? 4 : 0;
            row.session = 1;
            row.rt_ms = NAN;
            CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
        }
    }
    AnalyzeOptions o;
    options(&o, 0);
    o.formats = FORMAT_MD | FORMAT_CSV;
    o.plots = 0;
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.n_items, 2);
    for (int k = 0; k < r.n_items; k++) {
        const ItemRow *it = &r.items[k];
        int four = strstr(it->label, "four") != NULL;
        CHECK_NEAR(it->chance, four ? 0.25 : 0.5, 1e-15);
        CHECK_NEAR(it->p_below,
                   golden("item_chance_p", four ? "four" : "two", ""), 1e-12);
        /* 15 % of four candidates is not below chance at 0.05 (p 0.096),
        ** though it is far below one half */
        CHECK_INT((it->flags & ITEM_BELOW_CHANCE) != 0, 0);
    }
    CHECK_INT(analyze_write(&r, "analysis_semantics_tmp/chance", &err), SIM_OK);
    report_free(&r);
    dataset_free(ds);
    FILE *f = fopen("analysis_semantics_tmp/chance/items.csv", "r");
    char line[256] = "", four[256] = "";
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, ",four,")) {
            snprintf(four, sizeof four, "%s", line);
        }
    }
    if (f) {
        fclose(f);
    }
    CHECK(strstr(four, "test,,,four,40,0.15,") == four ||
          !fprintf(stderr, "items.csv: %s", four));
    CHECK(strstr(four, ",0.25,") != NULL);
}

int main(void)
{
    if (system("mkdir -p analysis_semantics_tmp") != 0) {
        return 1;
    }
    load_goldens();
    CHECK(n_goldens > 100);
    test_against_r();
    test_catch_rows_do_not_count();
    test_unanswered_catch();
    test_declared_scale();
    test_other_scales();
    test_files();
    test_guard_rails();
    test_many_items();
    test_item_chance();
    report_plots_shutdown();
    return TEST_REPORT();
}

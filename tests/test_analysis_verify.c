/*
** Detecting the model's errors, the human-AI team and distinction in
** simlab-analyze: the error_detection table against R (make_fixture.R in
** tests/data/analysis-verify), hit and false-alarm rates, team and
** distinction against hand computations, the trial columns' derivations
** and located errors, the plots, and simulation studies of the intervals'
** coverage (AUROC's with confidence answers, its truth from
** auroc_truth.R).
*/
#include "tests/harness.h"
#include "tests/test_report.h"

#include "analysis/analyze.h"
#include "analysis/compute.h"
#include "analysis/dataset.h"
#include "analysis/report.h"
#include "analysis/verify.h"
#include "common/sim_alloc.h"
#include "common/sim_analysis.h"
#include "common/sim_rng.h"
#include "common/sim_text.h"

#include <cairo.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA SIMLAB_TEST_DATA "/analysis-verify/"

static void options(AnalyzeOptions *o, int B)
{
    analyze_options_default(o);
    o->replicates = B;
    o->progress = 0;
    o->quiet = 1;
    o->plots = 0;
    o->no_glmm = 1;
}

/* d', c and AUROC against base R on the fixture (goldens.txt). */
static void test_fixture(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, DATA "verify.csv", &err), SIM_OK);
    AnalyzeOptions o;
    options(&o, 200);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    const Table *t = test_table(&r, "error_detection");
    CHECK(t != NULL);
    FILE *f = fopen(DATA "goldens.txt", "r");
    CHECK(f != NULL);
    char line[512];
    int rows = 0;
    while (t && f && fgets(line, sizeof line, f)) {
        if (line[0] == '#') {
            continue;
        }
        char cond[64];
        int nr, nw, hits, fas;
        double h, fa, acc, d, c, auc;
        if (sscanf(line, "%63s %d %d %d %d %lf %lf %lf %lf %lf %lf", cond, &nr,
                   &nw, &hits, &fas, &h, &fa, &acc, &d, &c, &auc) != 11) {
            continue;
        }
        int i = test_row(t, "condition", cond);
        CHECK(i >= 0);
        if (i < 0) {
            continue;
        }
        rows++;
        CHECK_INT(test_num(t, i, "n_right"), nr);
        CHECK_INT(test_num(t, i, "n_wrong"), nw);
        CHECK_NEAR(test_num(t, i, "hit_rate"), h, 1e-10);
        CHECK_NEAR(test_num(t, i, "false_alarm_rate"), fa, 1e-10);
        CHECK_NEAR(test_num(t, i, "accuracy"), acc, 1e-10);
        CHECK_NEAR(test_num(t, i, "d_prime"), d, 1e-9);
        CHECK_NEAR(test_num(t, i, "criterion"), c, 1e-9);
        CHECK_NEAR(test_num(t, i, "auroc"), auc, 1e-10);
        CHECK_INT(test_num(t, i, "n_participants"), 8);
        /* a bootstrap interval around each estimate */
        const char *cols[] = {"accuracy", "d_prime", "criterion", "auroc"};
        for (int k = 0; k < 4; k++) {
            char ci[64];
            snprintf(ci, sizeof ci, "%s_ci", cols[k]);
            double lo = test_num(t, i, ci), hi = test_hi(t, i, ci);
            CHECK(lo <= test_num(t, i, cols[k]) + 1e-12);
            CHECK(hi >= test_num(t, i, cols[k]) - 1e-12);
            CHECK(hi > lo);
        }
    }
    CHECK_INT(rows, 3);
    if (f) {
        fclose(f);
    }
    /* oracle rejects every wrong prediction: H = 1, d' still finite */
    int i = t ? test_row(t, "condition", "oracle") : -1;
    CHECK(i >= 0 && test_num(t, i, "hit_rate") == 1.0);
    CHECK(i >= 0 && isfinite(test_num(t, i, "d_prime")));
    /* binary verify trials read as team decisions: team = accuracy */
    const Table *team = test_table(&r, "team");
    CHECK(team != NULL && team->n_rows == 3);
    for (int k = 0; team && t && k < team->n_rows; k++) {
        int j = test_row(t, "condition", test_text(team, k, "condition"));
        CHECK_STR(test_text(team, k, "blocks"), "verify");
        CHECK_NEAR(test_num(team, k, "team_accuracy"),
                   test_num(t, j, "accuracy"), 1e-12);
        CHECK_NEAR(test_num(team, k, "model_accuracy"), 0.5, 1e-12);
        CHECK(isnan(test_num(team, k, "complementarity")));
    }
    report_free(&r);
    dataset_free(ds);
}

static const char *add_phase = "test"; /* the phase add_row gives */

static void add_row(Dataset *ds, const char *part, const char *cond,
                    const char *item, const char *test_type, int correct,
                    const char *response, const char *model_correct,
                    int confidence)
{
    DatasetRow row;
    memset(&row, 0, sizeof row);
    row.participant = part;
    row.condition = cond;
    row.phase = add_phase;
    row.item = item;
    row.test_type = test_type;
    row.correct = correct;
    row.response = response;
    row.model_correct = model_correct;
    row.confidence = confidence;
    row.rt_ms = NAN;
    SimError err;
    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
}

/* Hit and false-alarm rates by hand; the verdict derived from correct and
** model_correct when response is empty; model_correct from label and
** model_output. */
static void test_hand(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    /* participant a: wrong predictions w1..w3 (rejects w1, w2), right
    ** predictions r1..r3 (rejects r1); b: rejects w1 only, accepts all
    ** right ones, its answers given through correct alone */
    add_row(ds, "a", "x", "w1", "verify", 1, "reject", "0", 5);
    add_row(ds, "a", "x", "w2", "verify", 1, "reject", "0", 2);
    add_row(ds, "a", "x", "w3", "verify", 0, "accept", "0", 4);
    add_row(ds, "a", "x", "r1", "verify", 0, "reject", "1", 1);
    add_row(ds, "a", "x", "r2", "verify", 1, "accept", "1", 3);
    add_row(ds, "a", "x", "r3", "verify", 1, "accept", "1", 5);
    add_row(ds, "b", "x", "w1", "verify", 1, NULL, "0", 0);
    add_row(ds, "b", "x", "w2", "verify", 0, NULL, "0", 0);
    add_row(ds, "b", "x", "w3", "verify", 0, NULL, "0", 0);
    add_row(ds, "b", "x", "r1", "verify", 1, NULL, "1", 0);
    add_row(ds, "b", "x", "r2", "verify", 1, NULL, "1", 0);
    add_row(ds, "b", "x", "r3", "verify", 1, NULL, "1", 0);
    /* unanswered and practice trials do not count */
    add_row(ds, "b", "x", "r4", "verify", -1, NULL, "1", 0);
    add_phase = "practice";
    add_row(ds, "b", "x", "p1", "verify", 1, "reject", "0", 5);
    add_row(ds, "b", "x", "p2", "verify", 0, "reject", "1", 5);
    add_phase = "test";
    CHECK(ds->trials != NULL);
    CHECK_INT(ds->trials[6].verdict, DATASET_REJECT);
    CHECK_INT(ds->trials[7].verdict, DATASET_ACCEPT);
    CHECK_INT(ds->trials[9].verdict, DATASET_ACCEPT);
    AnalyzeOptions o;
    options(&o, 0);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    const Table *t = test_table(&r, "error_detection");
    CHECK(t != NULL && t->n_rows == 1);
    if (t && t->n_rows == 1) {
        /* hits 3 of 6 wrong, false alarms 1 of 6 right, right 8 of 12 */
        CHECK_NEAR(test_num(t, 0, "hit_rate"), 3.0 / 6, 1e-15);
        CHECK_NEAR(test_num(t, 0, "false_alarm_rate"), 1.0 / 6, 1e-15);
        CHECK_NEAR(test_num(t, 0, "accuracy"), 8.0 / 12, 1e-15);
        double zh = 0;                    /* (3 + 0.5) / 7 = 0.5 */
        double zf = -0.79163860774337458; /* R: qnorm(1.5 / 7) */
        CHECK_NEAR(test_num(t, 0, "d_prime"), zh - zf, 1e-12);
        CHECK_NEAR(test_num(t, 0, "criterion"), -(zh + zf) / 2, 1e-12);
        /* scores of a: wrong {-5, -2, +4}, right {-1, +3, +5}: pairs with
        ** right > wrong: -1 > -5, -2; +3 > -5, -2; +5 > all 3 = 7 of 9 */
        CHECK_INT(test_num(t, 0, "n_confidence"), 6);
        CHECK_NEAR(test_num(t, 0, "auroc"), 7.0 / 9, 1e-15);
        CHECK(isnan(test_num(t, 0, "d_prime_ci")));
    }
    report_free(&r);
    dataset_free(ds);

    /* the helpers: ties count one half (X at levels 0, 1 and Y at 1, 2:
    ** of 4 pairs one tie, none above), the correction at 0 and 1 */
    double hi[3] = {1, 1, 0}, lo[3] = {0, 1, 1};
    CHECK_NEAR(verify_auroc(hi, lo, 3), 0.5 / 4, 1e-15);
    CHECK_NEAR(verify_auroc(lo, hi, 3), 3.5 / 4, 1e-15);
    double d, c;
    verify_sdt(10, 10, 0, 10, &d, &c);
    CHECK_NEAR(d, 2 * 1.6906216295848984, 1e-12); /* R: qnorm(10.5 / 11) */
    CHECK_NEAR(c, 0, 1e-12);
    verify_sdt(1, 0, 0, 10, &d, &c);
    CHECK(isnan(d) && isnan(c));
}

/* Decide trials with and without advice and trials with answer options
** into ds. */
static void team_rows(Dataset *ds)
{
    SimError err;
    const char *items[4] = {"i1", "i2", "i3", "i4"};
    const char *mc[4] = {"1", "1", "1", "0"}; /* the model: 3 of 4 */
    /* alone: 2 participants, 2 of 4 right each */
    for (int p = 0; p < 2; p++) {
        for (int k = 0; k < 4; k++) {
            DatasetRow row;
            memset(&row, 0, sizeof row);
            row.participant = p ? "n2" : "n1";
            row.condition = "none";
            row.phase = "test";
            row.item = items[k];
            row.test_type = "decide";
            row.correct = k % 2;
            row.model_correct = mc[k];
            row.advice_shown = "0";
            row.rt_ms = NAN;
            CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
        }
    }
    /* advice: 2 participants, 4 of 4 and 3 of 4 right */
    for (int p = 0; p < 2; p++) {
        for (int k = 0; k < 4; k++) {
            DatasetRow row;
            memset(&row, 0, sizeof row);
            row.participant = p ? "a2" : "a1";
            row.condition = "advice";
            row.phase = "test";
            row.item = items[k];
            row.test_type = "decide";
            row.correct = !(p == 1 && k == 3);
            row.model_correct = mc[k];
            row.advice_shown = "1";
            row.followed_advice = k < 3 ? "1" : "0";
            row.rt_ms = NAN;
            CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
        }
    }
    /* distinction: 4 options, 3 of 4 right; 2 options, 1 of 2; two
    ** practice trials (k 6, 7) and a practice decide trial do not count */
    for (int k = 0; k < 8; k++) {
        DatasetRow row;
        memset(&row, 0, sizeof row);
        row.participant = "a1";
        row.condition = "advice";
        row.phase = k < 6 ? "test" : "practice";
        row.item = k < 4 ? items[k] : k == 4 ? "j1" : k == 5 ? "j2" : "p1";
        row.domain = "hive";
        row.test_type = "forward";
        row.correct = k < 4 ? k != 0 : k == 4 || k == 6;
        row.n_options = k < 4 ? 4 : 2;
        row.rt_ms = NAN;
        CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
    }
    DatasetRow practice;
    memset(&practice, 0, sizeof practice);
    practice.participant = "a2";
    practice.condition = "advice";
    practice.phase = "practice";
    practice.item = "p2";
    practice.test_type = "decide";
    practice.correct = 0;
    practice.model_correct = "0";
    practice.advice_shown = "1";
    practice.followed_advice = "1";
    practice.rt_ms = NAN;
    CHECK_INT(dataset_add(ds, &practice, &err), SIM_OK);
}

/* Team accuracy and distinction by hand, from decide trials with and
** without advice and trials with answer options. */
static void test_team(void)
{
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    team_rows(ds);
    AnalyzeOptions o;
    options(&o, 100);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    const Table *t = test_table(&r, "team");
    CHECK(t != NULL && t->n_rows == 1);
    if (t && t->n_rows == 1) {
        CHECK_STR(test_text(t, 0, "condition"), "advice");
        CHECK_STR(test_text(t, 0, "blocks"), "decide");
        CHECK_INT(test_num(t, 0, "n_responses"), 8);
        CHECK_NEAR(test_num(t, 0, "team_accuracy"), 7.0 / 8, 1e-15);
        CHECK_NEAR(test_num(t, 0, "model_accuracy"), 6.0 / 8, 1e-15);
        CHECK_NEAR(test_num(t, 0, "human_accuracy"), 4.0 / 8, 1e-15);
        CHECK_NEAR(test_num(t, 0, "team_minus_model"), 1.0 / 8, 1e-15);
        CHECK_NEAR(test_num(t, 0, "complementarity"), 7.0 / 8 - 6.0 / 8, 1e-15);
        CHECK(test_num(t, 0, "complementarity_ci") <=
              test_hi(t, 0, "complementarity_ci"));
    }
    const Table *d = test_table(&r, "distinction");
    CHECK(d != NULL && d->n_rows == 1);
    if (d && d->n_rows == 1) {
        CHECK_INT(test_num(d, 0, "n_responses"), 6);
        CHECK_STR(test_text(d, 0, "options"), "2-4");
        CHECK_NEAR(test_num(d, 0, "chance"), (4 * 0.25 + 2 * 0.5) / 6, 1e-15);
        CHECK_NEAR(test_num(d, 0, "accuracy"), 4.0 / 6, 1e-15);
    }
    CHECK(test_table(&r, "error_detection") == NULL);
    report_free(&r);
    dataset_free(ds);
}

/* Pixels of colour (r, g, b) in the PNG path below the legend (the first
** 40 points); its size into w, h (0 when it cannot be read). */
static long png_pixels(const char *path, int r, int g, int b, int *w, int *h)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    *w = *h = 0;
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return 0;
    }
    cairo_surface_flush(s);
    *w = cairo_image_surface_get_width(s);
    *h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    const unsigned char *d = cairo_image_surface_get_data(s);
    uint32_t want =
        0xff000000u | (uint32_t)r << 16 | (uint32_t)g << 8 | (uint32_t)b;
    long n = 0;
    for (int y = 40 * 300 / 72; y < *h; y++) {
        const uint32_t *row = (const uint32_t *)(d + (size_t)y * stride);
        for (int x = 0; x < *w; x++) {
            n += row[x] == want;
        }
    }
    cairo_surface_destroy(s);
    return n;
}

/* Writes the plots of ds's report into dir (PNG and SVG). */
static void write_plots(Dataset *ds, const char *dir)
{
    AnalyzeOptions o;
    options(&o, 200);
    Report r;
    SimError err;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(report_write_plots(&r, dir, PLOT_PNG | PLOT_SVG, &err), SIM_OK);
    report_free(&r);
}

/* The plots of error_detection, team and distinction: written when their
** table has rows, a paper column wide at 300 dpi, the estimates in the
** palette's colours (accuracy blue, hits orange, false alarms green; team
** blue, model orange, humans grey) and distinction's chance line. */
static void test_plots(void)
{
    char dir[] = "/tmp/simlab-verify-plots-XXXXXX", path[300];
    CHECK(mkdtemp(dir) != NULL);
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, DATA "verify.csv", &err), SIM_OK);
    write_plots(ds, dir);
    dataset_free(ds);
    int w, h, w2, h2;
    snprintf(path, sizeof path, "%s/error_detection.png", dir);
    CHECK(png_pixels(path, 0, 114, 178, &w, &h) > 20); /* accuracy */
    CHECK(png_pixels(path, 213, 94, 0, &w, &h) > 20);  /* hits */
    CHECK(png_pixels(path, 0, 158, 115, &w, &h) > 20); /* false alarms */
    CHECK_INT(w, 1021); /* 245 points at 300 dpi */
    CHECK(h > w / 2);
    snprintf(path, sizeof path, "%s/error_detection.svg", dir);
    CHECK(access(path, R_OK) == 0);
    /* binary verify trials are team decisions: model orange */
    snprintf(path, sizeof path, "%s/team.png", dir);
    CHECK(png_pixels(path, 213, 94, 0, &w2, &h2) > 20);
    CHECK_INT(w2, 1021);
    snprintf(path, sizeof path, "%s/distinction.png", dir);
    CHECK(access(path, R_OK) != 0); /* no answer options */
    /* decide trials with a no-advice condition and answer options */
    char dir2[] = "/tmp/simlab-verify-plots-XXXXXX";
    CHECK(mkdtemp(dir2) != NULL);
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    team_rows(ds);
    write_plots(ds, dir2);
    dataset_free(ds);
    snprintf(path, sizeof path, "%s/error_detection.png", dir2);
    CHECK(access(path, R_OK) != 0); /* no verify trials */
    snprintf(path, sizeof path, "%s/team.png", dir2);
    CHECK(png_pixels(path, 0, 114, 178, &w, &h) > 20);   /* team */
    CHECK(png_pixels(path, 115, 115, 115, &w, &h) > 20); /* humans */
    CHECK(png_pixels(path, 204, 121, 167, &w, &h) > 20); /* complementarity */
    snprintf(path, sizeof path, "%s/distinction.png", dir2);
    CHECK(png_pixels(path, 76, 76, 76, &w, &h) > 20); /* the chance line */
    CHECK_INT(w, 1021);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, dir2);
    CHECK(system(cmd) == 0);
}

/* Located errors of the trial columns. */
static void test_errors(void)
{
    static const struct {
        const char *csv, *want;
    } cases[] = {
        {"participant,condition,phase,item,correct,test_type,response\n"
         "p,c,test,i,1,verify,yes\n",
         "bad.csv:2: column 'response': expected accept, reject or empty on "
         "a verify trial, got 'yes'"},
        {"participant,condition,phase,item,correct,test_type,model_correct\n"
         "p,c,test,i,1,verify,2\n",
         "bad.csv:2: column 'model_correct': expected 0, 1 or empty, got "
         "'2'"},
        {"participant,condition,phase,item,correct,n_options\n"
         "p,c,test,i,1,1\n",
         "bad.csv:2: column 'n_options': expected an integer 2..255 or "
         "empty, got '1'"},
        {"participant,condition,phase,item,correct,test_type,advice_shown\n"
         "p,c,test,i,1,decide,maybe\n",
         "bad.csv:2: column 'advice_shown': expected 0, 1 or empty, got "
         "'maybe'"},
    };
    char dir[] = "/tmp/simlab-verify-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (!f) {
            continue;
        }
        fputs(cases[k].csv, f);
        fclose(f);
        Dataset *ds = NULL;
        SimError err;
        CHECK_INT(dataset_new(&ds, &err), SIM_OK);
        CHECK(dataset_load_csv(ds, path, &err) != SIM_OK);
        const char *msg = strstr(err.msg, "bad.csv");
        CHECK_STR(msg ? msg : err.msg, cases[k].want);
        dataset_free(ds);
    }
    remove(path);
    remove(dir);
}

/* The mixed model of error detection against lme4 (glmm_goldens.txt, on
** the fixture's baseline and saliency rows) and as the primary test. */
static void test_glmm(void)
{
    char dir[] = "/tmp/simlab-verify-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], line[512];
    snprintf(path, sizeof path, "%s/two.csv", dir);
    FILE *in = fopen(DATA "verify.csv", "r"), *out = fopen(path, "w");
    CHECK(in && out);
    while (in && out && fgets(line, sizeof line, in)) {
        if (!strstr(line, ",oracle,")) {
            fputs(line, out);
        }
    }
    if (in) {
        fclose(in);
    }
    if (out) {
        fclose(out);
    }
    Dataset *ds = NULL;
    SimError err;
    CHECK_INT(dataset_new(&ds, &err), SIM_OK);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_OK);
    AnalyzeOptions o;
    options(&o, 0);
    o.no_glmm = 0;
    o.primary = SIM_PRIMARY_GLMM_ERROR_DETECTION;
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    const Table *t = test_table(&r, "error_detection_glmm");
    CHECK(t != NULL && t->n_rows == 4);
    FILE *f = fopen(DATA "glmm_goldens.txt", "r");
    CHECK(f != NULL);
    int n = 0;
    while (t && f && fgets(line, sizeof line, f)) {
        char term[128];
        double est, se;
        if (line[0] == '#' ||
            sscanf(line, "%127s %lf %lf", term, &est, &se) != 3) {
            continue;
        }
        int i = test_row(t, "term", term);
        CHECK(i >= 0);
        if (i >= 0) {
            n++;
            CHECK_NEAR(test_num(t, i, "estimate"), est, 1e-4);
            CHECK_NEAR(test_num(t, i, "se"), se, 1e-4);
        }
    }
    CHECK_INT(n, 4);
    if (f) {
        fclose(f);
    }
    const PrimaryResult *p = &r.primary;
    CHECK_INT(p->test, SIM_PRIMARY_GLMM_ERROR_DETECTION);
    CHECK_INT(p->n_rows, 1);
    if (p->n_rows == 1 && t) {
        CHECK_STR(p->rows[0].condition, "saliency");
        CHECK_STR(p->rows[0].contrast, "conditionsaliency");
        int i = test_row(t, "term", "conditionsaliency");
        CHECK_NEAR(log(p->rows[0].estimate), test_num(t, i, "estimate"), 1e-12);
        CHECK_STR(p->rows[0].decision, "reject");
    }
    report_free(&r);
    /* without the mixed model the test cannot be had: a clear error */
    o.no_glmm = 1;
    CHECK(analyze_compute(ds, &o, &r, &err) != SIM_OK);
    CHECK(strstr(err.msg, "glmm_error_detection needs") != NULL);
    report_free(&r);
    dataset_free(ds);
    remove(path);
    remove(dir);
}

/* ------------------------------------------------------------------ */
/* Coverage: simulated verify studies with known accept probabilities  */

/* P(accept) = expit(a + u_p + v_i), u and v normal with SD 0.5 each: the
** population accept probability E[expit(a + N(0, 0.5))] by quadrature. */
static double population_accept(double a)
{
    double s = sqrt(0.5), sum = 0, wsum = 0;
    for (int k = -400; k <= 400; k++) {
        double z = k / 50.0, w = exp(-z * z / 2);
        sum += w / (1 + exp(-(a + s * z)));
        wsum += w;
    }
    return sum / wsum;
}

static double logit(double p)
{
    return log(p / (1 - p));
}

/* The error_detection table of a simulated study's ds through r (B
** replicates, seed), ds freed; rc: the simulation's status so far. */
static int detect_errors(Dataset *ds, int rc, int B, uint64_t seed, Report *r)
{
    SimError err;
    AnalyzeOptions o;
    options(&o, B);
    o.seed = seed;
    memset(r, 0, sizeof *r);
    r->opt = o;
    Screen sc;
    if (rc == SIM_OK) {
        rc = screen_participants(ds, &o, r, &sc, &err);
        if (rc == SIM_OK) {
            rc = compute_error_detection(ds, &o, &sc, r, &err);
        }
        screen_free(&sc);
    }
    dataset_free(ds);
    return rc;
}

/* One study: n_part participants, each verifying n_items items (half of
** them wrong predictions); returns the error_detection table's row 0
** through r. */
static int simulate(uint64_t seed, int n_part, int n_items, int B, Report *r)
{
    SimRng g;
    sim_rng_seed_stream(&g, seed, 0);
    Dataset *ds = NULL;
    SimError err;
    if (dataset_new(&ds, &err) != SIM_OK) {
        return -1;
    }
    double a_right = logit(0.8), a_wrong = logit(0.4);
    double *v = sim_malloc((size_t)n_items * sizeof *v);
    for (int i = 0; v && i < n_items; i++) {
        v[i] = 0.5 * sim_rng_normal(&g);
    }
    int rc = v ? SIM_OK : SIM_ERR_NOMEM;
    for (int p = 0; rc == SIM_OK && p < n_part; p++) {
        double u = 0.5 * sim_rng_normal(&g);
        char part[32], item[32];
        snprintf(part, sizeof part, "p%d", p);
        for (int i = 0; rc == SIM_OK && i < n_items; i++) {
            int right = i % 2;
            double a = (right ? a_right : a_wrong) + u + v[i];
            int accept = sim_rng_uniform(&g) < 1 / (1 + exp(-a));
            snprintf(item, sizeof item, "i%d", i);
            DatasetRow row;
            memset(&row, 0, sizeof row);
            row.participant = part;
            row.condition = "c";
            row.phase = "test";
            row.item = item;
            row.test_type = "verify";
            row.correct = accept == right;
            row.response = accept ? "accept" : "reject";
            row.model_correct = right ? "1" : "0";
            row.rt_ms = NAN;
            rc = dataset_add(ds, &row, &err);
        }
    }
    sim_free(v);
    return detect_errors(ds, rc, B, seed, r);
}

/* 200 studies of 20 participants x 20 items: how often the 95 % interval
** covers the population hit rate (1 - accept_p(wrong)), false-alarm rate
** (1 - accept_p(right)), accuracy and d' = z(H) - z(F). */
static void test_coverage(void)
{
    double acc_r = population_accept(logit(0.8));
    double acc_w = population_accept(logit(0.4));
    double truth[4];
    truth[0] = 1 - acc_w;
    truth[1] = 1 - acc_r;
    truth[2] = (truth[0] + acc_r) / 2;
    truth[3] =
        gsl_cdf_ugaussian_Pinv(truth[0]) - gsl_cdf_ugaussian_Pinv(truth[1]);
    const char *cols[4] = {"hit_rate_ci", "false_alarm_rate_ci", "accuracy_ci",
                           "d_prime_ci"};
    int covered[4] = {0}, n = 0;
    const int studies = 200;
    for (int k = 0; k < studies; k++) {
        Report r;
        int rc = simulate(1000 + (uint64_t)k, 20, 20, 200, &r);
        const Table *t =
            rc == SIM_OK ? test_table(&r, "error_detection") : NULL;
        if (t && t->n_rows == 1) {
            n++;
            for (int m = 0; m < 4; m++) {
                covered[m] += test_num(t, 0, cols[m]) <= truth[m] &&
                              truth[m] <= test_hi(t, 0, cols[m]);
            }
        }
        report_free(&r);
    }
    CHECK_INT(n, studies);
    for (int m = 0; m < 4; m++) {
        double rate = (double)covered[m] / studies;
        fprintf(stderr, "coverage of %s (truth %.4f): %.3f of %d studies\n",
                cols[m], truth[m], rate, studies);
        /* 95 % nominal; a binomial SD of 1.5 points at 200 studies */
        CHECK(rate >= 0.90 && rate <= 0.995);
    }
}

/* The levels of a latent evidence s ~ N(a, sigma) that the model is right,
** cut at -1.5, -1, -0.5, 0, 0.5, 1, 1.5 (reject 4..1, accept 1..4). */
static const double CUTS[7] = {-1.5, -1, -0.5, 0, 0.5, 1, 1.5};

static void level_p(double a, double sigma, double *p)
{
    double prev = 0;
    for (int j = 0; j < 8; j++) {
        double c = j < 7 ? gsl_cdf_ugaussian_P((CUTS[j] - a) / sigma) : 1;
        p[j] = c - prev;
        prev = c;
    }
}

/* One study with confidence: participant p verifies items i (even: the
** model wrong, a = -0.3; odd: right, a = 0.8) with evidence s = a + u_p +
** v_i + e (u, v: SD 0.5; e: SD 1); accepts when s > 0, confidence 1..4
** from |s|. Its error_detection table through r. */
static int simulate_confidence(uint64_t seed, int n_part, int n_items, int B,
                               Report *r)
{
    SimRng g;
    sim_rng_seed_stream(&g, seed, 1);
    Dataset *ds = NULL;
    SimError err;
    if (dataset_new(&ds, &err) != SIM_OK) {
        return -1;
    }
    double *v = sim_malloc((size_t)n_items * sizeof *v);
    for (int i = 0; v && i < n_items; i++) {
        v[i] = 0.5 * sim_rng_normal(&g);
    }
    int rc = v ? SIM_OK : SIM_ERR_NOMEM;
    for (int p = 0; rc == SIM_OK && p < n_part; p++) {
        double u = 0.5 * sim_rng_normal(&g);
        char part[32], item[32];
        snprintf(part, sizeof part, "p%d", p);
        for (int i = 0; rc == SIM_OK && i < n_items; i++) {
            int right = i % 2;
            double e = (right ? 0.8 : -0.3) + u + v[i] + sim_rng_normal(&g);
            int accept = e > 0, k = 4;
            while (k > 1 && fabs(e) < CUTS[3 + k - 1]) {
                k--;
            }
            snprintf(item, sizeof item, "i%d", i);
            add_row(ds, part, "c", item, "verify", accept == right,
                    accept ? "accept" : "reject", right ? "1" : "0", k);
        }
    }
    sim_free(v);
    return detect_errors(ds, rc, B, seed, r);
}

/* AUROC's interval: the population AUROC (P(score right > score wrong) +
** P(tie) / 2 for independent draws of the answer with its confidence)
** against base R (auroc_truth.R), then how often the crossed bootstrap's
** 95 % interval covers it in 200 studies of 20 participants x 20 items. */
static void test_auroc_coverage(void)
{
    double sigma = sqrt(0.5 * 0.5 + 0.5 * 0.5 + 1), pr[8], pw[8];
    level_p(0.8, sigma, pr);
    level_p(-0.3, sigma, pw);
    double truth = 0, below = 0;
    for (int j = 0; j < 8; j++) {
        truth += pr[j] * (below + pw[j] / 2);
        below += pw[j];
    }
    FILE *f = fopen(DATA "auroc_truth.txt", "r");
    char line[128];
    double golden = NAN;
    while (f && fgets(line, sizeof line, f)) {
        if (line[0] != '#') {
            golden = atof(line);
        }
    }
    if (f) {
        fclose(f);
    }
    CHECK_NEAR(truth, golden, 1e-12);
    const int studies = 200;
    int covered = 0, n = 0;
    double mean = 0;
    for (int k = 0; k < studies; k++) {
        Report r;
        int rc = simulate_confidence(5000 + (uint64_t)k, 20, 20, 200, &r);
        const Table *t =
            rc == SIM_OK ? test_table(&r, "error_detection") : NULL;
        if (t && t->n_rows == 1) {
            n++;
            CHECK_INT(test_num(t, 0, "n_confidence"), 400);
            mean += test_num(t, 0, "auroc") / studies;
            covered += test_num(t, 0, "auroc_ci") <= truth &&
                       truth <= test_hi(t, 0, "auroc_ci");
        }
        report_free(&r);
    }
    CHECK_INT(n, studies);
    double rate = (double)covered / studies;
    fprintf(stderr,
            "coverage of auroc_ci (truth %.4f, mean estimate %.4f): %.3f of "
            "%d studies\n",
            truth, mean, rate, studies);
    CHECK(fabs(mean - truth) < 0.01); /* the pooled estimate is unbiased */
    CHECK(rate >= 0.90 && rate <= 0.995);
}

int main(void)
{
    test_fixture();
    test_hand();
    test_team();
    test_plots();
    test_errors();
    test_glmm();
    test_coverage();
    test_auroc_coverage();
    report_plots_shutdown(); /* the font caches of the plots */
    return TEST_REPORT();
}

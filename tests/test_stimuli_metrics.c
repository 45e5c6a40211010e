/*
** study.json "metrics" (stimuli/metrics.c, common/sim_metrics.c): a valid
** file read into Study.metrics and described by `simlab check`, a
** condition without metrics warned, and every bad input a located error
** naming the file, line and column, with a "did you mean" where one fits:
** a method or item not in the study, a value that is not a finite number,
** a duplicate row, an unknown or missing column, higher_is_better other
** than 1/0, a description that differs between a metric's rows, a file
** that does not exist. The bundles are copies of examples/within.
*/
#include "tests/harness.h"

#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "common/sim_alloc.h"
#include "common/sim_metrics.h"
#include "common/sim_relevance.h"
#include "stimuli/media.h"
#include "stimuli/check.h"
#include "stimuli/study.h"

static char g_dir[] = "/tmp/simlab-metrics-XXXXXX";

/* A copy of examples/within as name with "metrics": [{"file":
** "metrics.csv"}] and that file holding csv (NULL: no file); its path
** into out. */
static void make(const char *name, const char *csv, char *out, size_t size)
{
    char cmd[1400];
    snprintf(out, size, "%s/%s", g_dir, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/examples/within' '%s'",
             out, SIMLAB_SOURCE_DIR, out);
    CHECK(system(cmd) == 0);
    char path[700];
    snprintf(path, sizeof path, "%s/study.json", out);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_PRESERVE_ORDER, &je);
    CHECK(root != NULL);
    json_object_set_new(root, "metrics",
                        json_pack("[{s:s}]", "file", "metrics.csv"));
    CHECK(json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ==
          0);
    json_decref(root);
    if (csv) {
        snprintf(path, sizeof path, "%s/metrics.csv", out);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        fputs(csv, f);
        fclose(f);
    }
}

/* Loads; errors and warnings as "file:line: field: message" lines. */
static int load(const char *dir, Study **st, char *text, size_t size,
                int *n_warn)
{
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    int rc = study_load(dir, st, &rep, &err);
    size_t at = 0;
    text[0] = '\0';
    for (size_t i = 0; i < rep.n_errors + rep.n_warnings && at < size; i++) {
        const Diag *d =
            i < rep.n_errors ? &rep.errors[i] : &rep.warnings[i - rep.n_errors];
        int n = snprintf(text + at, size - at, "%s:%d: %s: %s\n",
                         d->file ? d->file : "", d->line,
                         d->field ? d->field : "", d->message);
        at += n > 0 ? (size_t)n : 0;
    }
    *n_warn = (int)rep.n_warnings;
    int errors = (int)rep.n_errors;
    study_report_free(&rep);
    return rc == SIM_OK || errors > 0 ? errors : -1;
}

static int has(const char *text, const char *what)
{
    if (strstr(text, what)) {
        return 1;
    }
    fprintf(stderr, "missing: %s\nin:\n%s", what, text);
    return 0;
}

static const char VALID[] =
    "method,item,metric,value,higher_is_better,description\n"
    "LIME,,faithfulness,0.8,1,deletion AUC\n"
    "SHAP,,faithfulness,0.6,1,deletion AUC\n"
    "LIME,t01,mass,0.25,1,mass in the rationale\n"
    "LIME,t02,mass,0.5,,\n"
    "SHAP,t01,mass,0.75,1,mass in the rationale\n";

static void test_valid(void)
{
    char dir[600], text[8192];
    int warn = 0;
    Study *st = NULL;
    make("valid", VALID, dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text, &warn), 0);
    CHECK(st && st->metrics);
    if (st && st->metrics) {
        const SimMetrics *m = st->metrics;
        CHECK_INT(m->n_metrics, 2);
        CHECK_INT((int)m->n_values, 5);
        CHECK_STR(m->metrics[0].description, "deletion AUC");
        CHECK_INT(m->metrics[1].higher_is_better, 1);
        CHECK_NEAR(sim_metrics_value(m, 1, "LIME", "t02"), 0.5, 0);
        CHECK_NEAR(sim_metrics_value(m, 0, "SHAP", NULL), 0.6, 0);
        CHECK(isnan(sim_metrics_value(m, 0, "SHAP", "t01")));
    }
    CHECK_INT(warn, 0);
    study_free(st);
    /* simlab check describes them */
    char out[700];
    snprintf(out, sizeof out, "%s/check.txt", g_dir);
    FILE *f = fopen(out, "w");
    check_bundle(dir, 0, f);
    fclose(f);
    f = fopen(out, "r");
    char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    CHECK(has(buf, "metrics      2\n"));
    CHECK(has(buf, "  faithfulness (higher is better): 2 methods, 2 "
                   "method-level values, 0 item values\n"));
    /* which items have it: a count and the first missing ones */
    CHECK(has(buf, "  mass (higher is better): 2 methods, 0 method-level "
                   "values, 3 item values; items 2 of 30, missing l01, l02, "
                   "l03, l04, l05 (and 23 more)\n"));
    /* a condition with explanations and no metric is a warning */
    make("partial", "method,metric,value\nLIME,faithfulness,0.8\n", dir,
         sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text, &warn), 0);
    CHECK_INT(warn, 1);
    CHECK(has(text, "condition 'SHAP' shows explanations and has no metric"));
    study_free(st);
}

static void bad(const char *name, const char *csv, const char *what)
{
    char dir[600], text[8192];
    int warn = 0;
    Study *st = NULL;
    make(name, csv, dir, sizeof dir);
    CHECK(load(dir, &st, text, sizeof text, &warn) > 0);
    CHECK(has(text, what));
    CHECK(st == NULL || st->metrics == NULL); /* nothing of a bad file */
    study_free(st);
}

static void test_bad(void)
{
    bad("method", "method,item,metric,value\nLIME,,f,1\nLMIE,,f,2\n",
        "metrics.csv:3: method: 'LMIE' is not a condition of the study (did "
        "you mean 'LIME'?)");
    bad("item", "method,item,metric,value\nLIME,t1O,f,1\n",
        "metrics.csv:2: item: 't1O' is not an item of the study (did you "
        "mean 't10'?)");
    bad("nan", "method,item,metric,value\nLIME,,f,nan\n",
        "metrics.csv:2: value: 'nan' is not a finite number");
    bad("inf", "method,item,metric,value\nLIME,,f,1e999\n",
        "metrics.csv:2: value: '1e999' is not a finite number");
    bad("text", "method,item,metric,value\nLIME,,f,high\n",
        "metrics.csv:2: value: 'high' is not a finite number");
    bad("dup",
        "method,item,metric,value\nLIME,t01,f,1\nSHAP,t01,f,1\n"
        "LIME,t01,f,2\n",
        "metrics.csv:4: : a second row for method 'LIME', item 't01', "
        "metric 'f' (the first is on line 2)");
    bad("column", "method,item,metirc,value\nLIME,,f,1\n",
        "metrics.csv:1: metirc: unknown column 'metirc' (did you mean "
        "'metric'?)");
    bad("missing", "method,item,value\nLIME,,1\n",
        "metrics.csv:1: metric: missing column 'metric'");
    bad("hib", "method,metric,value,higher_is_better\nLIME,f,1,yes\n",
        "metrics.csv:2: higher_is_better: 'yes': expected 1, 0 or empty");
    bad("hib2",
        "method,metric,value,higher_is_better\nLIME,f,1,1\nSHAP,f,2,0\n",
        "metrics.csv:3: higher_is_better: metric 'f' has higher_is_better 0 "
        "here and 1 on line 2");
    bad("desc", "method,metric,value,description\nLIME,f,1,a\nSHAP,f,2,b\n",
        "metrics.csv:3: description: metric 'f' is described differently");
    bad("nofile", NULL, "metrics.csv");
    bad("quote", "method,metric,value\nLIME,f,\"1\n", "metrics.csv:2");
}

#define TRUTH SIMLAB_TEST_DATA "/metrics/"

/* Line "KEY v1 v2 ..." of relevance_goldens.txt into v (n values). */
static int golden(const char *key, double *v, int n)
{
    FILE *f = fopen(TRUTH "relevance_goldens.txt", "r");
    char line[400];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        char *p = line;
        size_t k = strlen(key);
        if (strncmp(p, key, k) != 0 || p[k] != ' ') {
            continue;
        }
        p += k;
        for (int i = 0; i < n; i++) {
            v[i] = strtod(p, &p);
        }
        found = 1;
    }
    if (f) {
        fclose(f);
    }
    return found;
}

/* The scores against numpy's (make_relevance.py): a heatmap with tied
** maxima over a mask 4 times its size, token weights with a rationale. */
static void test_relevance(void)
{
    float *map = NULL;
    int h = 0, w = 0;
    SimError err;
    CHECK_INT(media_npy_read(TRUTH "relevance.npy", &map, &h, &w, &err),
              SIM_OK);
    MediaImage img;
    CHECK_INT(media_image_load(TRUTH "mask.png", &img, &err), SIM_OK);
    CHECK(h == 8 && w == 8 && img.w == 32 && img.h == 32);
    if (!map || h != 8 || img.w != 32) {
        return;
    }
    unsigned char mask[32 * 32];
    for (int i = 0; i < 32 * 32; i++) {
        mask[i] = img.rgba[4 * i] >= 128;
    }
    double rel[64], inside[64], want[4], px = NAN;
    for (int i = 0; i < 64; i++) {
        rel[i] = map[i];
    }
    sim_relevance_cells(mask, 32, 32, 8, 8, inside);
    SimRelevance s;
    sim_relevance_score(rel, inside, 64, &s);
    CHECK(golden("heatmap", want, 4));
    for (int k = 0; k < SIM_RELEVANCE_N; k++) {
        CHECK_NEAR(s.v[k], want[k], 1e-10);
    }
    /* the cells' shares give the pixel-level mass of the upsampled map */
    CHECK(golden("heatmap_mass_pixels", &px, 1));
    CHECK_NEAR(s.v[0], px, 1e-10);
    sim_free(map);
    media_image_free(&img);
    FILE *f = fopen(TRUTH "tokens.txt", "r");
    double tok[12], gold[12] = {0};
    for (int i = 0; f && i < 12; i++) {
        CHECK(fscanf(f, "%lf", &tok[i]) == 1);
    }
    int r;
    while (f && fscanf(f, "%d", &r) == 1) {
        gold[r] = 1;
    }
    if (f) {
        fclose(f);
    }
    sim_relevance_score(tok, gold, 12, &s);
    CHECK(golden("tokens", want, 4));
    for (int k = 0; k < SIM_RELEVANCE_N; k++) {
        CHECK_NEAR(s.v[k], want[k], 1e-10);
    }
    /* no positive relevance, an empty region */
    const double neg[3] = {-1, -2, -3}, none[3] = {0, 0, 0};
    sim_relevance_score(neg, none, 3, &s);
    CHECK(isnan(s.v[0]) && isnan(s.v[1]) && isnan(s.v[2]) && isnan(s.v[3]));
}

/* A copy of valid-meta whose item tr0 shows the fixture: its picture and
** mask mask.png (or mask_file), saliency's map relevance.npy; rationale
** (JSON, or NULL) on item p1. */
static void make_meta(const char *name, const char *mask_file,
                      const char *rationale, char *out, size_t size)
{
    char cmd[2000];
    snprintf(out, size, "%s/%s", g_dir, name);
    snprintf(cmd, sizeof cmd,
             "rm -rf '%s' && cp -r '%s/valid-meta' '%s' && cp '%smask.png' "
             "'%srelevance.npy' '%s/media/'",
             out, SIMLAB_TEST_DATA "/bundles", out, TRUTH, TRUTH, out);
    CHECK(system(cmd) == 0);
    char path[700];
    snprintf(path, sizeof path, "%s/items.jsonl", out);
    FILE *f = fopen(path, "r");
    char *lines[32];
    int n = 0;
    char buf[8192];
    while (f && n < 32 && fgets(buf, sizeof buf, f)) {
        lines[n++] = strdup(buf);
    }
    if (f) {
        fclose(f);
    }
    f = fopen(path, "w");
    for (int i = 0; i < n; i++) {
        json_error_t je;
        json_t *o = json_loads(lines[i], 0, &je);
        const char *id = json_string_value(json_object_get(o, "id"));
        if (id && strcmp(id, "tr0") == 0) {
            json_object_set_new(o, "input", json_string("media/mask.png"));
            json_object_set_new(o, "mask", json_string(mask_file));
            json_t *ex = json_object_get(o, "explanations");
            json_object_set_new(json_object_get(ex, "saliency"), "file",
                                json_string("media/relevance.npy"));
        }
        if (id && strcmp(id, "p1") == 0 && rationale) {
            json_object_set_new(o, "rationale", json_loads(rationale, 0, &je));
        }
        char *text = json_dumps(o, JSON_COMPACT);
        fprintf(f, "%s\n", text);
        free(text);
        json_decref(o);
        free(lines[i]);
    }
    fclose(f);
}

/* Items with a mask: the scores join Study.metrics under the condition
** showing the method; a mask of another size, a mask on a text, bad
** rationale entries are located errors. */
static void test_truth_bundle(void)
{
    char dir[600], text[8192];
    int warn = 0;
    Study *st = NULL;
    make_meta("truth", "media/mask.png", NULL, dir, sizeof dir);
    CHECK_INT(load(dir, &st, text, sizeof text, &warn), 0);
    CHECK(st && st->metrics);
    if (st && st->metrics) {
        double want[4];
        CHECK(golden("heatmap", want, 4));
        for (int k = 0; k < SIM_RELEVANCE_N; k++) {
            int j = sim_metrics_find(st->metrics, SIM_RELEVANCE_NAMES[k]);
            CHECK(j >= 0);
            CHECK_NEAR(sim_metrics_value(st->metrics, j, "saliency", "tr0"),
                       want[k], 1e-6); /* the map is float32 */
            CHECK_INT(st->metrics->metrics[j].higher_is_better, 1);
        }
        /* control's map is all zeros: no mass, ties everywhere */
        int j = sim_metrics_find(st->metrics, "mass_in_mask");
        CHECK(isnan(sim_metrics_value(st->metrics, j, "control", "tr0")));
        int r = sim_metrics_find(st->metrics, "rank_accuracy");
        double c = sim_metrics_value(st->metrics, r, "control", "tr0");
        CHECK(c > 0 && c < 1);
        CHECK(isnan(sim_metrics_value(st->metrics, j, "saliency", "tr1")));
    }
    study_free(st);
    st = NULL;
    make_meta("size", "media/img1.png", NULL, dir, sizeof dir);
    CHECK(load(dir, &st, text, sizeof text, &warn) > 0);
    CHECK(has(text, "items.jsonl:4: mask: 'media/img1.png' is "));
    CHECK(has(text, "a ground-truth mask covers its image pixel for pixel"));
    study_free(st);
    st = NULL;
    make_meta("nomask", "media/none.png", "[1, -2, \"x\"]", dir, sizeof dir);
    CHECK(load(dir, &st, text, sizeof text, &warn) > 0);
    CHECK(has(text, "items.jsonl:4: mask: "));
    CHECK(has(text, "none.png"));
    CHECK(has(text, "expected a token index (0, 1, 2, ...)"));
    study_free(st);
}

int main(void)
{
    CHECK(mkdtemp(g_dir) != NULL);
    test_valid();
    test_bad();
    test_relevance();
    test_truth_bundle();
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
    return TEST_REPORT();
}

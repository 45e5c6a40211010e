/*
** `simlab power` on the study as the lab wrote it (app/power_study.c):
** the study's own baseline as the reference (neither called "baseline"
** nor listed first), --baseline overriding it, an unknown name as an
** error naming the conditions, and power.json/md saying which condition is
** the reference and where it came from. Small studies, so that it runs in
** a few seconds.
*/
#include "tests/harness.h"

#include "analysis/report.h"
#include "app/power_cmd.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PLAIN SIMLAB_SOURCE_DIR "/bench/power/plain-study"

/* Copies file src to dst; 0 on success. */
static int copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    int ok = in && out;
    char buf[4096];
    size_t n;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        ok = fwrite(buf, 1, n, out) == n;
    }
    if (in) {
        fclose(in);
    }
    if (out) {
        ok = fclose(out) == 0 && ok;
    }
    return ok ? 0 : -1;
}

/* bench/power/plain-study (a plain test) with its condition 'baseline'
** renamed 'ohne' and moved last, and "baseline": "ohne" in study.json:
** a reference that is neither called "baseline" nor listed first. */
static int make_ohne(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    if (copy_file(PLAIN "/items.jsonl", path) != 0) {
        return -1;
    }
    json_t *st = json_load_file(PLAIN "/study.json", 0, NULL);
    json_t *conds = json_object_get(st, "conditions");
    if (!st || json_array_size(conds) != 5) {
        json_decref(st);
        return -1;
    }
    json_array_remove(conds, 0); /* the condition 'baseline' */
    json_array_append_new(conds,
                          json_pack("{s:s,s:n}", "id", "ohne", "method"));
    json_object_set_new(st, "baseline", json_string("ohne"));
    snprintf(path, sizeof path, "%s/study.json", dir);
    int bad = json_dump_file(st, path, JSON_INDENT(1));
    json_decref(st);
    return bad ? -1 : 0;
}

static void remove_bundle(const char *dir)
{
    static const char *const files[] = {"items.jsonl", "study.json"};
    char path[600];
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        unlink(path);
    }
    rmdir(dir);
}

static void small(PowerStudyOptions *o, const char *bundle)
{
    power_study_options_default(o);
    o->bundle_dir = bundle;
    o->power.sizes[0] = 3;
    o->power.sizes[1] = 6;
    o->power.n_sizes = 2;
    o->power.studies = 20;
    o->power.replicates = 100;
    o->power.threads = 2;
}

static int tested(const PowerResult *r, const char *id)
{
    for (int c = 0; c < r->n_conds; c++) {
        if (strcmp(r->conds[c].id, id) == 0) {
            return 1;
        }
    }
    return 0;
}

/* The study's baseline 'ohne' is the reference; power.json and power.md
** name it and where it came from. */
static void test_study_baseline(const char *bundle)
{
    PowerStudyOptions o;
    small(&o, bundle);
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (!r) {
        printf("study baseline: %s\n", err.msg);
        return;
    }
    CHECK_INT(r->test, POWER_TEST_DIFFERENCE);
    CHECK_STR(r->baseline, "ohne");
    CHECK(strstr(r->baseline_from, "the study's baseline") != NULL);
    CHECK(strstr(r->baseline_from, "study.json") != NULL);
    CHECK_INT(r->n_conds, 4);
    CHECK(!tested(r, "ohne"));
    CHECK(tested(r, "LIME") && tested(r, "Composite"));
    for (int c = 0; c < r->n_conds; c++) {
        /* p 0.6 everywhere, LIME 0.75: only LIME differs from 'ohne' */
        CHECK_INT(r->conds[c].null_effect, strcmp(r->conds[c].id, "LIME") != 0);
        CHECK_NEAR(r->conds[c].true_pre, r->conds[3].true_pre, 1e-12);
    }
    char dir[] = "/tmp/simlab-power-base-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(power_write(r, dir, &err), SIM_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/power.json", dir);
    json_t *root = json_load_file(path, 0, NULL);
    json_t *m = json_object_get(root, "method");
    CHECK_STR(json_string_value(json_object_get(m, "baseline")), "ohne");
    CHECK(strstr(json_string_value(json_object_get(m, "baseline_from")),
                 "study.json") != NULL);
    json_decref(root);
    snprintf(path, sizeof path, "%s/power.md", dir);
    FILE *f = fopen(path, "r");
    char text[8192] = "";
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) {
        fclose(f);
    }
    CHECK(strstr(text, "Baseline: ohne, from the study's baseline") != NULL);
    static const char *const files[] = {"power.json", "power.md", "power.png",
                                        "power.svg", "power.pdf"};
    for (int k = 0; k < 5; k++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k]);
        unlink(path);
    }
    rmdir(dir);
    power_free(r);
}

/* --baseline LIME overrides the study's; an unknown name is an error that
** names it and the conditions. */
static void test_baseline_option(const char *bundle)
{
    PowerStudyOptions o;
    small(&o, bundle);
    o.baseline = "LIME";
    PowerResult *r = NULL;
    SimError err;
    CHECK_INT(power_study_run(&o, &r, &err), SIM_OK);
    if (r) {
        CHECK_STR(r->baseline, "LIME");
        CHECK_STR(r->baseline_from, "--baseline");
        CHECK(!tested(r, "LIME"));
        CHECK(tested(r, "ohne"));
        for (int c = 0; c < r->n_conds; c++) {
            CHECK(!r->conds[c].null_effect); /* all differ from LIME */
        }
        power_free(r);
        r = NULL;
    }
    o.baseline = "Lime";
    CHECK_INT(power_study_run(&o, &r, &err), SIM_ERR_USAGE);
    CHECK(r == NULL);
    CHECK(strstr(err.msg, "--baseline 'Lime'") != NULL);
    CHECK(strstr(err.msg, "'LIME', 'Anchor', 'Omission', 'Composite', "
                          "'ohne'") != NULL);
}

int main(void)
{
    char dir[] = "/tmp/simlab-power-ohne-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    CHECK_INT(make_ohne(dir), 0);
    test_study_baseline(dir);
    test_baseline_option(dir);
    remove_bundle(dir);
    report_plots_shutdown(); /* the font caches of the plots */
    return TEST_REPORT();
}

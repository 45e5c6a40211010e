/*
** End-to-end checks of simlab-analyze's library: CSV and database input
** with error locations, screening and exclusion counts, thread-count
** independence, the hase2020 procedure, report files and JSON keys, and
** Colin et al.'s Table 1 Utility values from matching session accuracies,
** and the table model rendered by the generic writers.
*/
#include "tests/harness.h"

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "analysis/analyze.h"
#include "analysis/compute.h"
#include "analysis/dataset.h"

static char tmpdir[256];

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static void test_csv_errors(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/bad.csv", tmpdir);
    Dataset *ds;
    SimError err;
    /* a bad value names file, line and column */
    write_text(path, "participant,condition,phase,item,correct,extra\n"
                     "p1,baseline,pre,i1,1,x\n"
                     "p1,baseline,post,\"i\n2\",maybe,y\n");
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "bad.csv:3: column 'correct'") != NULL);
    CHECK(strstr(err.msg, "'maybe'") != NULL);
    dataset_free(ds);
    /* the line number counts newlines inside quoted fields */
    write_text(path, "participant,condition,phase,item,correct\n"
                     "p1,baseline,pre,\"a\nb\",1\n"
                     "p1,baseline,middle,i2,1\n");
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "bad.csv:4: column 'phase'") != NULL);
    dataset_free(ds);
    /* blank lines between records count as lines too */
    write_text(path, "participant,condition,phase,item,correct\r\n"
                     "p1,baseline,pre,i1,1\r\n"
                     "\r\n"
                     " \t\n"
                     "\n"
                     "p1,baseline,post,i1,2\r\n");
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "bad.csv:6: column 'correct'") != NULL);
    dataset_free(ds);
    /* so do lines that end with CR alone */
    write_text(path, "participant,condition,phase,item,correct\r"
                     "p1,baseline,pre,i1,1\r"
                     "p1,baseline,post,i1,2\r");
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "bad.csv:3: column 'correct'") != NULL);
    dataset_free(ds);
    /* a missing required column */
    write_text(path, "participant,condition,phase,correct\np,c,pre,1\n");
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "column 'item': required column missing") != NULL);
    dataset_free(ds);
    /* rating out of range (scales have at most 11 points) */
    write_text(path, "participant,condition,phase,item,correct,rating\n"
                     "p,c,post,i,1,12\n");
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "bad.csv:2: column 'rating'") != NULL);
    dataset_free(ds);
    /* absent file */
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, "/nonexistent/x.csv", &err), SIM_ERR_IO);
    dataset_free(ds);
}

/* A database shaped like the engine's: a long_format view. */
static void make_db(const char *path)
{
    unlink(path);
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db,
                 "CREATE TABLE r(participant TEXT, condition TEXT, phase TEXT,"
                 " item TEXT, correct INTEGER, session INTEGER, test_type TEXT,"
                 " domain TEXT, block INTEGER, trial INTEGER, is_catch "
                 "INTEGER, prediction_type TEXT, label TEXT, model_output "
                 "TEXT, response TEXT, rating INTEGER, rt_ms REAL, pilot "
                 "INTEGER, simulated INTEGER, excluded INTEGER, station TEXT,"
                 " exclusion_reason TEXT);"
                 "CREATE VIEW long_format AS SELECT * FROM r;",
                 NULL, NULL, NULL);
    sqlite3_stmt *st;
    sqlite3_prepare_v2(db,
                       "INSERT INTO r(participant, condition, phase, item, "
                       "correct, session, is_catch, rt_ms, pilot, simulated, "
                       "excluded, exclusion_reason) VALUES "
                       "(?,?,?,?,?,?,?,?,?,?,?,?)",
                       -1, &st, NULL);
    const char *conds[3] = {"baseline", "gradcam", "control"};
    int pid = 0;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 12; i++, pid++) {
            char part[32];
            snprintf(part, sizeof part, "u%d", pid);
            int pilot = i == 0, sim = i == 1, catchfail = i == 2;
            int excluded = i == 3;
            for (int t = 1; t <= 3; t++) {
                for (int j = 0; j < 8; j++) {
                    char item[16];
                    snprintf(item, sizeof item, "s%dj%d", t, j);
                    int is_catch = j == 7;
                    int y = is_catch ? !catchfail
                                     : ((j + i + c * t) % 3 != 0) ^ (c == 2);
                    sqlite3_bind_text(st, 1, part, -1, SQLITE_TRANSIENT);
                    sqlite3_bind_text(st, 2, conds[c], -1, SQLITE_STATIC);
                    sqlite3_bind_text(st, 3, "test", -1, SQLITE_STATIC);
                    sqlite3_bind_text(st, 4, item, -1, SQLITE_TRANSIENT);
                    sqlite3_bind_int(st, 5, y);
                    sqlite3_bind_int(st, 6, t);
                    sqlite3_bind_int(st, 7, is_catch);
                    sqlite3_bind_double(st, 8, 1500.0 + 10 * j);
                    sqlite3_bind_int(st, 9, pilot);
                    sqlite3_bind_int(st, 10, sim);
                    sqlite3_bind_int(st, 11, excluded);
                    sqlite3_bind_text(st, 12, excluded ? "quiz" : "", -1,
                                      SQLITE_STATIC);
                    sqlite3_step(st);
                    sqlite3_reset(st);
                }
            }
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static int count_reason(const Report *r, const char *cond, const char *why)
{
    for (int i = 0; i < r->n_exclusions; i++) {
        if (strcmp(r->exclusions[i].condition, cond) == 0 &&
            strcmp(r->exclusions[i].reason, why) == 0) {
            return r->exclusions[i].participants;
        }
    }
    return 0;
}

static void test_db_and_screening(void)
{
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/study.db", tmpdir);
    snprintf(out, sizeof out, "%s/report", tmpdir);
    make_db(path);
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_db(ds, path, &err), SIM_OK);
    CHECK_INT((int)ds->n_rows, 3 * 12 * 24);
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 400;
    o.progress = 0;
    o.quiet = 1;
    o.max_catch_failures = 0;
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(count_reason(&r, "gradcam", "pilot"), 1);
    CHECK_INT(count_reason(&r, "gradcam", "simulated"), 1);
    CHECK_INT(count_reason(&r, "gradcam", "catch"), 1);
    CHECK_INT(count_reason(&r, "control", "quiz"), 1);
    CHECK_INT(r.counts[0].analysed, 8);
    CHECK_INT(r.n_utility, 3);
    CHECK_INT(r.n_sessions, 3);
    CHECK(r.utility[0].is_baseline);
    CHECK_NEAR(r.utility[0].utility, 1.0, 1e-12);
    CHECK(r.utility[2].utility < 1.0); /* control: inverted answers */
    CHECK(r.utility[2].ci_high < 1.0 && r.utility[2].p < 0.05);
    CHECK(r.has_anova);
    CHECK_INT(r.n_tukey, 3);
    CHECK_INT(r.n_rt, 3);
    /* 3 sessions of 8 responses taking 1.50, 1.51, ..., 1.57 s */
    CHECK_NEAR(r.rt[0].median_s, 3 * (8 * 1.5 + 0.28), 1e-9);
    CHECK_INT(analyze_write(&r, out, &err), SIM_OK);
    report_free(&r);

    /* without --max-catch-failures the engine's verdict stands */
    o.max_catch_failures = -1;
    o.include_pilot = 1;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(count_reason(&r, "gradcam", "catch"), 0);
    CHECK_INT(count_reason(&r, "gradcam", "pilot"), 0);
    CHECK_INT(r.counts[1].analysed, 10);
    report_free(&r);
    dataset_free(ds);

    /* the JSON report has the keys other tools read */
    char json[600];
    snprintf(json, sizeof json, "%s/report.json", out);
    json_error_t jerr;
    json_t *root = json_load_file(json, 0, &jerr);
    CHECK(root != NULL);
    const char *keys[] = {"settings", "exclusions", "change", "random_effects",
                          "utility",  "anova",      "tukey",  "ratings",
                          "rt",       "tables"};
    for (size_t i = 0; root && i < sizeof keys / sizeof keys[0]; i++) {
        CHECK(json_object_get(root, keys[i]) != NULL);
    }
    json_t *u0 =
        root ? json_array_get(json_object_get(root, "utility"), 1) : NULL;
    const char *ukeys[] = {
        "condition", "session_accuracy", "utility_k", "utility",
        "boot_mean", "ci_low",           "ci_high",   "p"};
    for (size_t i = 0; u0 && i < sizeof ukeys / sizeof ukeys[0]; i++) {
        CHECK(json_object_get(u0, ukeys[i]) != NULL);
    }
    CHECK(u0 && json_real_value(json_array_get(
                    json_object_get(u0, "session_accuracy"), 0)) <= 1.0);
    json_decref(root);
    const char *files[] = {"report.md",     "report.tex",    "change.csv",
                           "utility.csv",   "utility_k.png", "utility_k.svg",
                           "utility_k.pdf", "tukey.csv",     "exclusions.csv",
                           "rt.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char f[700];
        snprintf(f, sizeof f, "%s/%s", out, files[i]);
        CHECK(access(f, R_OK) == 0 || !fprintf(stderr, "missing %s\n", f));
    }
}

/* A small pre/post study with domains and ratings, written as CSV. */
static void make_prepost_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    fprintf(f, "participant,condition,phase,item,correct,domain,test_type,"
               "rating,exclusion_reason\n");
    const char *conds[3] = {"LIME", "Anchor", "baseline"};
    const char *doms[2] = {"text", "tabular"};
    unsigned x = 12345;
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 10; i++) {
            const char *dom = doms[i % 2];
            for (int ph = 0; ph < 2; ph++) {
                for (int j = 0; j < 16; j++) {
                    x = x * 1103515245u + 12345u;
                    double u = (x >> 8) / 16777216.0;
                    double p = ph ? 0.6 + 0.1 * c : 0.6;
                    int rating = ph ? 1 + (int)((x >> 4) % 7) : 0;
                    fprintf(f, "%s%d,%s,%s,i%d,%d,%s,%s,", conds[c], i,
                            conds[c], ph ? "post" : "pre", j, u < p, dom,
                            j < 8 ? "forward" : "counterfactual");
                    if (rating) {
                        fprintf(f, "%d", rating);
                    }
                    fprintf(f, ",\n");
                }
            }
        }
    }
    fclose(f);
}

static void test_threads_and_hase(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/prepost.csv", tmpdir);
    make_prepost_csv(path);
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_OK);
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 1000;
    o.progress = 0;
    Report r1, r2, r3;
    o.threads = 1;
    CHECK_INT(analyze_compute(ds, &o, &r1, &err), SIM_OK);
    o.threads = 3;
    CHECK_INT(analyze_compute(ds, &o, &r2, &err), SIM_OK);
    /* all, domain=text, domain=tabular, test_type=forward, =counterfactual */
    CHECK_INT(r1.n_re, 5);
    CHECK_INT(r1.n_change, 15);
    int same = r1.n_change == r2.n_change;
    for (int i = 0; same && i < r1.n_change; i++) {
        same &= r1.change[i].ci_low == r2.change[i].ci_low &&
                r1.change[i].ci_high == r2.change[i].ci_high &&
                r1.change[i].p == r2.change[i].p &&
                r1.change[i].boot_mean == r2.change[i].boot_mean;
    }
    CHECK(same);
    CHECK(r1.ratings && r1.n_ratings == 3 && r1.has_logit);
    CHECK(r1.ratings[0].ci_low < r1.ratings[0].mean &&
          r1.ratings[0].mean < r1.ratings[0].ci_high);
    /* Change = Post - Pre(RE), the CI brackets the bootstrap mean */
    for (int i = 0; i < r1.n_change; i++) {
        const ChangeRow *c = &r1.change[i];
        CHECK_NEAR(c->change, c->post - c->pre_re, 1e-12);
        CHECK(c->ci_low <= c->boot_mean && c->boot_mean <= c->ci_high);
        CHECK(c->p > 0 && c->p <= 1);
    }
    /* Hase & Bansal's procedure and p rule run and drop singular fits */
    o.boot_hase2020 = 1;
    o.p_hase = 1;
    o.threads = 1;
    CHECK_INT(analyze_compute(ds, &o, &r3, &err), SIM_OK);
    CHECK_INT(r3.n_change, 15);
    for (int i = 0; i < r3.n_change; i++) {
        /* dropped: singular fits, or the condition drawn no rows */
        CHECK(r3.change[i].replicates + r3.change[i].singular <= 1000);
        CHECK(r3.change[i].replicates > 100);
        CHECK(r3.change[i].p > 0);
    }
    report_free(&r1);
    report_free(&r2);
    report_free(&r3);
    dataset_free(ds);
}

/* Colin et al. 2022, Table 1: session accuracies (%) and Utility. */
static const char *const colin_methods[8] = {
    "baseline",   "control", "saliency",  "integrated_gradients",
    "smoothgrad", "gradcam", "occlusion", "gradient_input"};
static const double colin_acc[3][8][3] = {{{55.7, 66.2, 62.9},
                                           {53.3, 61.0, 61.4},
                                           {53.9, 69.6, 73.3},
                                           {67.4, 72.8, 73.2},
                                           {68.7, 75.3, 78.0},
                                           {77.6, 85.7, 84.1},
                                           {71.0, 75.7, 78.1},
                                           {65.8, 63.3, 67.9}},
                                          {{70.1, 76.8, 78.6},
                                           {72.0, 78.0, 80.2},
                                           {83.2, 88.7, 82.4},
                                           {82.5, 82.5, 85.3},
                                           {83.0, 85.7, 86.3},
                                           {81.9, 83.5, 82.4},
                                           {78.8, 86.1, 82.9},
                                           {76.5, 82.9, 79.5}},
                                          {{58.8, 62.2, 58.8},
                                           {60.7, 59.2, 48.5},
                                           {61.7, 60.2, 58.2},
                                           {59.4, 58.3, 58.3},
                                           {50.3, 55.0, 61.4},
                                           {54.4, 52.5, 54.1},
                                           {51.0, 60.2, 55.1},
                                           {50.0, 57.6, 62.6}}};
static const double colin_utility[3][8] = {
    {1, 0.95, 1.06, 1.15, 1.20, 1.34, 1.22, 1.06},
    {1, 1.02, 1.13, 1.11, 1.13, 1.10, 1.10, 1.05},
    {1, 0.94, 1.00, 0.98, 0.93, 0.90, 0.92, 0.95}};

/* 100 participants x 10 test trials per session and condition: 1000
** responses, so an accuracy of 55.7 % is exactly 557 correct. */
static Dataset *colin_dataset(int set)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    for (int m = 0; m < 8; m++) {
        for (int t = 0; t < 3; t++) {
            int correct = (int)lround(colin_acc[set][m][t] * 10);
            for (int k = 0; k < 1000; k++) {
                char part[32], item[32];
                snprintf(part, sizeof part, "%s-%d", colin_methods[m], k / 10);
                snprintf(item, sizeof item, "s%d-%d", t + 1, k % 10);
                DatasetRow row = {0};
                row.participant = part;
                row.condition = colin_methods[m];
                row.phase = "test";
                row.item = item;
                /* spread the correct answers over participants */
                row.correct = (k * 7919) % 1000 < correct;
                row.session = t + 1;
                row.rt_ms = NAN;
                dataset_add(ds, &row, &err);
            }
        }
    }
    return ds;
}

static void test_colin_table1(void)
{
    int match_mean = 0, match_ratio = 0, match_trap = 0;
    double worst_mean = 0;
    for (int set = 0; set < 3; set++) {
        Dataset *ds = colin_dataset(set);
        for (int rule = 0; rule < 3; rule++) {
            AnalyzeOptions o;
            analyze_options_default(&o);
            o.replicates = 0;
            o.progress = 0;
            o.utility_rule = rule == 0   ? UTILITY_MEAN
                             : rule == 1 ? UTILITY_RATIO
                                         : UTILITY_TRAPEZOID;
            Report r;
            SimError err;
            CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
            CHECK_INT(r.n_utility, 8);
            for (int m = 1; m < 8 && r.n_utility == 8; m++) {
                const UtilityRow *u = &r.utility[m];
                CHECK_STR(u->condition, colin_methods[m]);
                for (int t = 0; t < 3; t++) {
                    CHECK_NEAR(u->session_accuracy[t],
                               colin_acc[set][m][t] / 100, 1e-12);
                }
                double pub = colin_utility[set][m];
                int same = fabs(round(u->utility * 100) / 100 - pub) < 1e-9;
                if (rule == 0) {
                    match_mean += same;
                    worst_mean = fmax(worst_mean, fabs(u->utility - pub));
                } else if (rule == 1) {
                    match_ratio += same;
                } else {
                    match_trap += same;
                }
            }
            report_free(&r);
        }
        dataset_free(ds);
    }
    printf("Colin Table 1: mean rule %d/21 (max diff %.4f), ratio rule "
           "%d/21, trapezoid %d/21\n",
           match_mean, worst_mean, match_ratio, match_trap);
    CHECK_INT(match_mean, 18);
    CHECK(worst_mean <= 0.0125);
    CHECK_INT(match_ratio, 19);
    CHECK_INT(match_trap, 5); /* the trapezoid rule is not theirs */
}

/* Options that change the numbers: participant means, per-condition item
** draws, the trapezoid rule, Hase's p rule; and analyze_main's file set. */
static void test_options(void)
{
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/prepost.csv", tmpdir);
    snprintf(out, sizeof out, "%s/opts", tmpdir);
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    CHECK_INT(dataset_load_csv(ds, path, &err), SIM_OK);
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 300;
    o.progress = 0;
    Report a, b;
    CHECK_INT(analyze_compute(ds, &o, &a, &err), SIM_OK);
    o.accuracy_participant = 1;
    CHECK_INT(analyze_compute(ds, &o, &b, &err), SIM_OK);
    /* every participant answered the same number of items per subset, so
    ** participant means equal pooled accuracies; Change uses raw Pre */
    for (int i = 0; i < a.n_change && i < b.n_change; i++) {
        CHECK_NEAR(b.change[i].pre_raw, a.change[i].pre_raw, 1e-12);
        CHECK_NEAR(b.change[i].post, a.change[i].post, 1e-12);
        CHECK_NEAR(b.change[i].change, b.change[i].post - b.change[i].pre_raw,
                   1e-12);
    }
    report_free(&b);
    o.accuracy_participant = 0;
    o.items_per_condition = 1;
    o.p_hase = 1;
    CHECK_INT(analyze_compute(ds, &o, &b, &err), SIM_OK);
    /* same estimates, different resampling */
    int differs = 0;
    for (int i = 0; i < a.n_change && i < b.n_change; i++) {
        CHECK_NEAR(b.change[i].change, a.change[i].change, 1e-12);
        differs |= b.change[i].ci_low != a.change[i].ci_low;
        CHECK(b.change[i].p > 0 && b.change[i].p <= 1);
    }
    CHECK(differs);
    report_free(&a);
    report_free(&b);
    dataset_free(ds);

    /* trapezoid rule on the Colin data: (U1/2 + U2 + U3/2) / 2 */
    ds = colin_dataset(0);
    analyze_options_default(&o);
    o.replicates = 0;
    o.progress = 0;
    o.utility_rule = UTILITY_TRAPEZOID;
    CHECK_INT(analyze_compute(ds, &o, &a, &err), SIM_OK);
    const UtilityRow *gc = &a.utility[5]; /* gradcam */
    CHECK_NEAR(gc->utility,
               (0.5 * 77.6 / 55.7 + 85.7 / 66.2 + 0.5 * 84.1 / 62.9) / 2,
               1e-12);
    report_free(&a);
    dataset_free(ds);

    /* analyze_main writes only the formats and plots asked for */
    analyze_options_default(&o);
    o.replicates = 50;
    o.progress = 0;
    o.quiet = 1;
    o.formats = FORMAT_JSON;
    o.plots = PLOT_SVG;
    const char *csvs[1] = {path};
    CHECK_INT(analyze_main(&o, NULL, 0, csvs, 1, out, &err), SIM_OK);
    char f[700];
    snprintf(f, sizeof f, "%s/report.json", out);
    CHECK(access(f, R_OK) == 0);
    snprintf(f, sizeof f, "%s/change_forest.svg", out);
    CHECK(access(f, R_OK) == 0);
    snprintf(f, sizeof f, "%s/report.md", out);
    CHECK(access(f, R_OK) != 0);
    snprintf(f, sizeof f, "%s/change_forest.png", out);
    CHECK(access(f, R_OK) != 0);
    /* a bad source fails with its name */
    const char *missing[1] = {"no-such-file.csv"};
    CHECK_INT(analyze_main(&o, NULL, 0, missing, 1, out, &err), SIM_ERR_IO);
    CHECK(strstr(err.msg, "no-such-file.csv") != NULL);
}

/* An item answered in Pre only (by anyone) takes no part in Change: the
** bootstrap must not draw it among the items of its cell. */
static void test_unpaired_item(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/prepost.csv", tmpdir);
    make_prepost_csv(path);
    Dataset *ds[2];
    SimError err;
    Report r[2];
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 300;
    o.progress = 0;
    o.change_only = 1;
    for (int k = 0; k < 2; k++) {
        dataset_new(&ds[k], &err);
        CHECK_INT(dataset_load_csv(ds[k], path, &err), SIM_OK);
        if (k == 1) {
            DatasetRow row = {0};
            row.participant = "LIME0";
            row.condition = "LIME";
            row.phase = "pre";
            row.item = "only-in-pre";
            row.correct = 1;
            row.domain = "text";
            row.test_type = "forward";
            row.rt_ms = NAN;
            CHECK_INT(dataset_add(ds[k], &row, &err), SIM_OK);
        }
        CHECK_INT(analyze_compute(ds[k], &o, &r[k], &err), SIM_OK);
    }
    int same = r[0].n_change == r[1].n_change && r[0].n_change > 0;
    for (int i = 0; same && i < r[0].n_change; i++) {
        same &= r[0].change[i].ci_low == r[1].change[i].ci_low &&
                r[0].change[i].ci_high == r[1].change[i].ci_high &&
                r[0].change[i].p == r[1].change[i].p;
    }
    CHECK(same);
    for (int k = 0; k < 2; k++) {
        report_free(&r[k]);
        dataset_free(ds[k]);
    }
}

/* Every participant answers everything correctly: the random-effects fit
** and the ANOVA have no estimates, and the reports show them as missing
** rather than printing "nan". */
static void test_all_correct(void)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    const char *conds[3] = {"baseline", "a", "b"};
    char part[32], item[32];
    for (int c = 0; c < 3; c++) {
        for (int u = 0; u < 3; u++) {
            for (int ph = 0; ph < 2; ph++) {
                for (int j = 0; j < 4; j++) {
                    snprintf(part, sizeof part, "%s%d", conds[c], u);
                    snprintf(item, sizeof item, "i%d", j);
                    DatasetRow row = {0};
                    row.participant = part;
                    row.condition = conds[c];
                    row.phase = ph ? "post" : "pre";
                    row.item = item;
                    row.correct = 1;
                    row.rt_ms = NAN;
                    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
                }
            }
        }
    }
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 20;
    o.progress = 0;
    o.formats = FORMAT_MD | FORMAT_TEX;
    o.plots = 0;
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.has_anova && isnan(r.anova.f) && isnan(r.anova.p));
    CHECK(r.n_re == 1 && isnan(r.re[0].beta0));
    char out[300];
    snprintf(out, sizeof out, "%s/all-correct", tmpdir);
    CHECK_INT(analyze_write(&r, out, &err), SIM_OK);
    const char *files[2] = {"report.md", "report.tex"};
    for (int i = 0; i < 2; i++) {
        char path[400], text[8192];
        snprintf(path, sizeof path, "%s/%s", out, files[i]);
        FILE *f = fopen(path, "r");
        size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
        if (f) {
            fclose(f);
        }
        text[n] = '\0';
        CHECK(n > 0 && strstr(text, "nan") == NULL);
    }
    report_free(&r);
    dataset_free(ds);
}

static char *read_text(const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static const TableColumn DEMO_COLS[] = {
    {"name", NULL, NULL, TABLE_TEXT, "", 0, 0, 0},
    {"n", NULL, "users", TABLE_INT, "participants", 0, 0, 0},
    {"session", "sessions", NULL, TABLE_SERIES_AXIS, "", 0, 0,
     TABLE_CSV | TABLE_JSON},
    {"acc", NULL, NULL, TABLE_PERCENT, "", 1, TABLE_SERIES, 0},
    {"change", NULL, NULL, TABLE_PERCENT, "", 2, TABLE_SIGNED, 0},
    {"ci", NULL, "95 % CI", TABLE_PERCENT_INTERVAL, "", 2, TABLE_SIGNED, 0},
    {"p", NULL, NULL, TABLE_PVALUE, "", 0, 0, 0},
    {"secret", "hidden_json", NULL, TABLE_REAL, "s", 0, 0,
     TABLE_CSV | TABLE_JSON},
};

/* A table the writers have never seen is rendered in all four formats from
** its column list: series columns wide in md/tex and long in csv, intervals,
** p-values, hidden and missing cells; a table whose puts do not match its
** columns fails the write. */
static void test_table_model(void)
{
    Report r;
    memset(&r, 0, sizeof r);
    analyze_options_default(&r.opt);
    Table *t = report_add_table(&r, "demo", TABLE_ALL, DEMO_COLS, 8);
    CHECK(t != NULL);
    if (!t) {
        return;
    }
    table_set_title(t, 2, "Demo");
    table_set_note(t, "What it %s.", "counts");
    table_set_after(t, "After.");
    table_set_caption(t, "Demo.");
    int sessions[2] = {1, 2};
    table_set_series(t, "session", sessions, 2);
    double acc_a[2] = {0.5, 0.25}, acc_b[2] = {NAN, 1};
    table_add_row(t);
    table_put_text(t, "A");
    table_put_num(t, 3);
    table_put_series(t, acc_a);
    table_put_num(t, 0.1234);
    table_put_interval(t, 0.01, 0.2);
    table_put_num(t, 0.00001);
    table_put_num(t, 7.5);
    table_add_row(t);
    table_put_text(t, "B,x");
    table_skip(t);
    table_put_series(t, acc_b);
    table_put_num(t, -0.05);
    table_put_interval(t, 0, 0.1);
    table_hide_last(t, TABLE_CELL_NOT_MD);
    table_put_num(t, NAN);
    table_hide_last(t, TABLE_CELL_NOT_TEX);
    CHECK(!t->bad);

    char out[300];
    snprintf(out, sizeof out, "%s/tables", tmpdir);
    r.opt.plots = 0;
    SimError err;
    CHECK_INT(analyze_write(&r, out, &err), SIM_OK);
    const char *md = read_text(out, "report.md");
    CHECK(md && strstr(md, "\n\n## Demo\n\nWhat it counts.\n\n"
                           "| name | users | acc 1 | acc 2 | change | 95 % CI "
                           "| p |\n| --- | ---: | ---: | ---: | ---: | --- | "
                           "---: |\n| A | 3 | 50.0 | 25.0 | +12.34 | [+1.00, "
                           "+20.00] | 1.0e-05 |\n| B,x | - | - | 100.0 | "
                           "-5.00 | - | - |\n\nAfter.\n") != NULL);
    const char *tex = read_text(out, "report.tex");
    CHECK(tex && strstr(tex, "\\begin{tabular}{lrrrrlr}\n\\toprule\nname & "
                             "users & acc 1 & acc 2 & change & 95 % CI & p "
                             "\\\\\n\\midrule\nA & 3 & 50.0 & 25.0 & 12.34 & "
                             "[1.00, 20.00] & 1.0e-05 \\\\\nB,x & -- & -- & "
                             "100.0 & -5.00 & [0.00, 10.00] & \\\\\n"
                             "\\bottomrule\n\\end{tabular}\n\\caption{Demo.}"
                             "\n\\end{table}\n") != NULL);
    const char *csv = read_text(out, "demo.csv");
    CHECK_STR(csv ? csv : "",
              "name,n,session,acc,change,ci_low,ci_high,p,secret\n"
              "A,3,1,0.5,0.1234,0.01,0.2,1e-05,7.5\n"
              "A,3,2,0.25,0.1234,0.01,0.2,1e-05,7.5\n"
              "\"B,x\",,1,,-0.05,0,0.1,,\n"
              "\"B,x\",,2,1,-0.05,0,0.1,,\n");
    char path[700];
    snprintf(path, sizeof path, "%s/report.json", out);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    json_t *a = json_array_get(json_object_get(root, "demo"), 0);
    json_t *b = json_array_get(json_object_get(root, "demo"), 1);
    CHECK(a && b);
    CHECK_INT((int)json_integer_value(
                  json_array_get(json_object_get(a, "sessions"), 1)),
              2);
    CHECK_NEAR(json_real_value(json_array_get(json_object_get(a, "acc"), 1)),
               0.25, 1e-15);
    CHECK_NEAR(json_real_value(json_object_get(a, "ci_high")), 0.2, 1e-15);
    CHECK_NEAR(json_real_value(json_object_get(a, "hidden_json")), 7.5, 0);
    CHECK(json_is_null(json_object_get(b, "n")));
    CHECK(json_is_null(json_array_get(json_object_get(b, "acc"), 0)));
    json_t *list = json_array_get(json_object_get(root, "tables"), 0);
    CHECK_STR(json_string_value(json_object_get(list, "key")), "demo");
    CHECK_STR(json_string_value(json_object_get(list, "csv")), "demo.csv");
    json_decref(root);

    /* a put that does not match the columns is a bug the writers report */
    t = report_add_table(&r, "broken", TABLE_CSV, DEMO_COLS, 2);
    table_add_row(t);
    table_put_num(t, 1); /* "name" is text */
    CHECK(t->bad);
    CHECK_INT(report_write_csv(&r, out, &err), SIM_ERR_NOMEM);
    CHECK(strstr(err.msg, "table 'broken'") != NULL);
    report_free(&r);
}

/* Ratings that separate correct from incorrect answers: md says so instead
** of a fit, report.json keeps the logistic object and its (null)
** predictions: the largest rating is 6 and no source gave the scale, so the
** scale is 1-6 from the data and the predictions are at 2..5. */
static void test_separation(void)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    const char *conds[2] = {"baseline", "a"};
    char part[32], item[32];
    for (int c = 0; c < 2; c++) {
        for (int u = 0; u < 4; u++) {
            for (int j = 0; j < 6; j++) {
                snprintf(part, sizeof part, "%s%d", conds[c], u);
                snprintf(item, sizeof item, "i%d", j);
                DatasetRow row = {0};
                row.participant = part;
                row.condition = conds[c];
                row.phase = "post";
                row.item = item;
                row.correct = (u + j) % 2;
                row.rating = row.correct ? 6 : 2;
                row.rt_ms = NAN;
                CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
            }
        }
    }
    AnalyzeOptions o;
    analyze_options_default(&o);
    o.replicates = 20;
    o.progress = 0;
    o.plots = 0;
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK(r.has_logit && r.logit.separation);
    char out[300];
    snprintf(out, sizeof out, "%s/separation", tmpdir);
    CHECK_INT(analyze_write(&r, out, &err), SIM_OK);
    const char *md = read_text(out, "report.md");
    CHECK(md && strstr(md, "(48 responses with both):\n\nThe ratings "
                           "separate correct from incorrect responses: no "
                           "finite estimate.\n") != NULL);
    CHECK(md && strstr(md, "P(correct)") == NULL);
    char path[700];
    snprintf(path, sizeof path, "%s/report.json", out);
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    json_t *logit =
        json_object_get(json_object_get(root, "ratings"), "logistic");
    CHECK(json_is_true(json_object_get(logit, "separation")));
    json_t *pred = json_object_get(logit, "predicted");
    CHECK_INT((int)json_array_size(pred), 4);
    CHECK(json_is_null(json_object_get(json_array_get(pred, 0), "p")));
    json_t *scale = json_object_get(json_object_get(root, "ratings"), "scale");
    CHECK_INT((int)json_integer_value(json_object_get(scale, "points")), 6);
    CHECK_STR(json_string_value(json_object_get(scale, "from")), "data");
    json_decref(root);
    report_free(&r);
    dataset_free(ds);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "analysis_pipeline_tmp");
    if (system("mkdir -p analysis_pipeline_tmp") != 0) {
        return 1;
    }
    test_csv_errors();
    test_db_and_screening();
    test_threads_and_hase();
    test_colin_table1();
    test_options();
    test_all_correct();
    test_unpaired_item();
    test_table_model();
    test_separation();
    report_plots_shutdown();
    return TEST_REPORT();
}

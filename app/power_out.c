/*
** `simlab power`: the command line (power_main) and the writers of
** power.json (jansson), power.md and the power curve (cairo: PNG, SVG,
** PDF). The simulation itself is in power.c.
*/
#include "app/power.h"

#include "analysis/report.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_P 64

/* ---------------------------------------------------------------- json */

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* "< 10", "> 80" or "34.5 (28.1 to 41.0)". */
static void n_text(const PowerResult *r, const PowerN *n, char *out,
                   size_t size)
{
    int lo = r->opt.sizes[0], hi = r->opt.sizes[r->opt.n_sizes - 1];
    if (n->above) {
        snprintf(out, size, "> %d", hi);
    } else if (n->below) {
        snprintf(out, size, "<= %d", lo);
    } else {
        char a[32], b[32];
        if (n->low_below) {
            snprintf(a, sizeof a, "<= %d", lo);
        } else {
            snprintf(a, sizeof a, "%.1f", n->low);
        }
        if (isfinite(n->high)) {
            snprintf(b, sizeof b, "%.1f", n->high);
        } else {
            snprintf(b, sizeof b, "> %d", hi);
        }
        snprintf(out, size, "%.1f (%s to %s)", n->n, a, b);
    }
}

static json_t *n_json(const PowerResult *r, const PowerN *n)
{
    char text[96];
    n_text(r, n, text, sizeof text);
    return json_pack("{s:o,s:o,s:o,s:s}", "n", num_or_null(n->n), "low",
                     num_or_null(n->low), "high", num_or_null(n->high), "text",
                     text);
}

/* The test in words (unicode: for power.md). */
static const char *test_text(const PowerResult *r, int unicode)
{
    switch (r->test) {
    case POWER_TEST_UTILITY:
        return unicode ? "Utility ≠ 1 per condition (Utility = the mean over "
                         "sessions of accuracy / the baseline's accuracy, "
                         "simlab-analyze's default rule)"
                       : "Utility != 1 per condition (mean rule)";
    case POWER_TEST_DIFFERENCE:
        return unicode ? "accuracy − the baseline's accuracy ≠ 0 per condition"
                       : "accuracy - baseline accuracy != 0 per condition";
    default:
        return unicode ? "Change = Post − Pre (RE) ≠ 0 per condition"
                       : "Change = Post - Pre (RE) != 0 per condition";
    }
}

/* The statistic's short name. */
static const char *stat_name(const PowerResult *r)
{
    return r->test == POWER_TEST_UTILITY      ? "Utility"
           : r->test == POWER_TEST_DIFFERENCE ? "difference"
                                              : "Change";
}

static json_t *truth_json(const PowerResult *r, const PowerCondition *pc)
{
    if (r->test == POWER_TEST_CHANGE) {
        return json_pack("{s:s,s:f,s:f,s:f,s:b}", "condition", pc->id,
                         "true_pre", pc->true_pre, "true_post", pc->true_post,
                         "true_change", pc->true_change, "null_effect",
                         pc->null_effect);
    }
    return json_pack(
        "{s:s,s:f,s:f,s:f,s:b}", "condition", pc->id, "true_baseline",
        pc->true_pre, "true_accuracy", pc->true_post,
        r->test == POWER_TEST_UTILITY ? "true_utility" : "true_difference",
        pc->true_change, "null_effect", pc->null_effect);
}

static int write_json(const PowerResult *r, const char *path, SimError *err)
{
    json_t *root = json_object(), *rows = json_array(), *rec = json_object(),
           *conds = json_array();
    for (int i = 0; i < r->n_rows; i++) {
        const PowerRow *w = &r->rows[i];
        const PowerCondition *pc = &r->conds[i % r->n_conds];
        json_t *o = json_pack(
            "{s:s,s:i,s:i,s:i,s:f,s:f,s:f,s:o,s:f,s:b}", "condition",
            w->condition, "participants", w->participants, "studies",
            w->studies, "rejections", w->rejections, "power", w->power,
            "power_ci_low", w->ci_low, "power_ci_high", w->ci_high,
            "mean_estimate", num_or_null(w->mean_estimate), "mean_replicates",
            w->mean_replicates, "null_effect", pc->null_effect);
        if (pc->null_effect) {
            json_object_set_new(o, "false_positive_rate", json_real(w->power));
        }
        json_array_append_new(rows, o);
    }
    for (int c = 0; c < r->n_conds; c++) {
        const PowerCondition *pc = &r->conds[c];
        json_object_set_new(rec, pc->id,
                            json_pack("{s:o,s:o}", "n80", n_json(r, &pc->n80),
                                      "n90", n_json(r, &pc->n90)));
        json_array_append_new(conds, truth_json(r, pc));
    }
    json_object_set_new(root, "study", json_string(r->study_id));
    char test[256];
    snprintf(test, sizeof test, "%s, crossed bootstrap, percentile-inversion p",
             test_text(r, 0));
    json_t *method =
        json_pack("{s:s,s:s,s:f,s:s,s:i,s:I,s:s,s:s,s:f,s:f}", "test", test,
                  "interval", "Wilson 95 %", "alpha", r->opt.alpha, "items",
                  r->opt.items == 0   ? "global"
                  : r->opt.items == 1 ? "per-condition"
                                      : "none",
                  "replicates", r->opt.replicates, "seed",
                  (json_int_t)r->opt.seed, "sequential",
                  "curtailed (Besag-Clifford): replicates stop once the "
                  "decision at alpha is certain",
                  "participants", "per condition", "participant_sd",
                  r->participant_sd, "item_sd", r->item_sd);
    json_object_set_new(method, "statistic", json_string(stat_name(r)));
    if (r->baseline) {
        json_object_set_new(method, "baseline", json_string(r->baseline));
    }
    if (r->test == POWER_TEST_UTILITY) {
        json_object_set_new(method, "sessions", json_integer(r->n_sessions));
    }
    json_object_set_new(root, "method", method);
    json_object_set_new(root, "truth", conds);
    json_object_set_new(root, "rows", rows);
    json_object_set_new(root, "recommendation", rec);
    int bad =
        json_dump_file(root, path, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
    json_decref(root);
    return bad ? sim_fail(err, SIM_ERR_IO, "%s: cannot write", path) : SIM_OK;
}

/* ------------------------------------------------------------------ md */

static int write_md(const PowerResult *r, const char *path, SimError *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
    }
    fprintf(f, "# Power: %s\n\n", r->study_id);
    fprintf(f,
            "Test: %s (crossed "
            "bootstrap, B ≤ %d, two-sided α = %g, curtailed sequential "
            "replicates). %d simulated studies per size; participants per "
            "condition; participant SD %g, item SD %g (logit). Power with "
            "its Wilson 95 %% interval.\n\n",
            test_text(r, 1), r->opt.replicates, r->opt.alpha, r->opt.studies,
            r->participant_sd, r->item_sd);
    if (r->baseline) {
        fprintf(f,
                "Baseline: %s (every condition gets N participants, the "
                "baseline too).\n\n",
                r->baseline);
    }
    int pilot = r->opt.n_pilots > 0;
    int change = r->test == POWER_TEST_CHANGE;
    fprintf(f,
            "| condition | %s | %s | true %s |%s\n"
            "| --- | --- | --- | --- |%s\n",
            change ? "true Pre" : "true baseline accuracy",
            change ? "true Post" : "true accuracy", stat_name(r),
            pilot ? " pilot participants | pilot Pre (responses) | pilot "
                    "Post (responses) |"
                  : "",
            pilot ? " --- | --- | --- |" : "");
    for (int c = 0; c < r->n_conds; c++) {
        const PowerCondition *pc = &r->conds[c];
        fprintf(f,
                r->test == POWER_TEST_UTILITY
                    ? "| %s | %.3f | %.3f | %.3f%s |"
                    : "| %s | %.3f | %.3f | %+.3f%s |",
                pc->id, pc->true_pre, pc->true_post, pc->true_change,
                pc->null_effect ? " (no effect)" : "");
        if (pilot) {
            fprintf(f, " %d | %.3f (%d) | %.3f (%d) |", pc->pilot_participants,
                    pc->pilot_pre, pc->pilot_pre_n, pc->pilot_post,
                    pc->pilot_post_n);
        }
        fputc('\n', f);
    }
    if (pilot) {
        fprintf(f, "\nThe truth comes from the pilot: each condition's Pre "
                   "and Post accuracy, mapped to the cell probability whose "
                   "population accuracy under the random effects above is "
                   "that value (the study's simulation block where the pilot "
                   "has no responses).\n");
    }
    fprintf(f,
            "\n| condition | N | power | 95 %% CI | mean %s | "
            "mean replicates |\n"
            "| --- | --- | --- | --- | --- | --- |\n",
            stat_name(r));
    for (int i = 0; i < r->n_rows; i++) {
        const PowerRow *w = &r->rows[i];
        const PowerCondition *pc = &r->conds[i % r->n_conds];
        fprintf(f,
                r->test == POWER_TEST_UTILITY
                    ? "| %s | %d | %.3f%s | %.3f–%.3f | %.3f | %.0f |\n"
                    : "| %s | %d | %.3f%s | %.3f–%.3f | %+.3f | %.0f |\n",
                w->condition, w->participants, w->power,
                pc->null_effect ? " (false positives)" : "", w->ci_low,
                w->ci_high, w->mean_estimate, w->mean_replicates);
    }
    fprintf(f, "\n| condition | N for 80 %% power | N for 90 %% power |\n"
               "| --- | --- | --- |\n");
    for (int c = 0; c < r->n_conds; c++) {
        char a[96], b[96];
        n_text(r, &r->conds[c].n80, a, sizeof a);
        n_text(r, &r->conds[c].n90, b, sizeof b);
        fprintf(f, "| %s | %s | %s |\n", r->conds[c].id,
                r->conds[c].null_effect ? "(no effect)" : a,
                r->conds[c].null_effect ? "(no effect)" : b);
    }
    fprintf(f, "\nN is interpolated linearly between the simulated sizes; "
               "its range comes from the curves of the intervals' bounds.\n");
    int bad = fclose(f) != 0;
    return bad ? sim_fail(err, SIM_ERR_IO, "%s: cannot write", path) : SIM_OK;
}

/* ---------------------------------------------------------------- plot */

static const double palette[][3] = {{0.00, 0.45, 0.70}, {0.90, 0.62, 0.00},
                                    {0.00, 0.62, 0.45}, {0.80, 0.47, 0.65},
                                    {0.34, 0.71, 0.91}, {0.84, 0.37, 0.00},
                                    {0.50, 0.50, 0.50}, {0.94, 0.89, 0.26}};

static void draw_plot(cairo_t *cr, const PowerResult *r, double W, double H)
{
    double L = 60, R = 150, T = 30, B = 50;
    double x0 = r->opt.sizes[0], x1 = r->opt.sizes[r->opt.n_sizes - 1];
    if (x1 <= x0) {
        x1 = x0 + 1;
    }
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                           CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12);
#define PX(v) (L + ((v)-x0) / (x1 - x0) * (W - L - R))
#define PY(v) (H - B - (v) * (H - T - B))
    cairo_set_line_width(cr, 1);
    for (int k = 0; k <= 10; k += 2) {
        double y = PY(k / 10.0);
        cairo_set_source_rgb(cr, k == 8 ? 0.6 : 0.9, k == 8 ? 0.6 : 0.9,
                             k == 8 ? 0.6 : 0.9);
        cairo_move_to(cr, L, y);
        cairo_line_to(cr, W - R, y);
        cairo_stroke(cr);
        char lab[16];
        snprintf(lab, sizeof lab, "%.1f", k / 10.0);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, L - 30, y + 4);
        cairo_show_text(cr, lab);
    }
    cairo_set_source_rgb(cr, 0.8, 0.3, 0.3); /* alpha */
    cairo_move_to(cr, L, PY(r->opt.alpha));
    cairo_line_to(cr, W - R, PY(r->opt.alpha));
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    for (int s = 0; s < r->opt.n_sizes; s++) {
        char lab[16];
        snprintf(lab, sizeof lab, "%d", r->opt.sizes[s]);
        cairo_move_to(cr, PX(r->opt.sizes[s]) - 8, H - B + 16);
        cairo_show_text(cr, lab);
    }
    cairo_move_to(cr, (W - R) / 2 - 60, H - 12);
    cairo_show_text(cr, "participants per condition");
    cairo_move_to(cr, L, T - 10);
    cairo_show_text(cr, "power (95 % Wilson interval)");
    for (int c = 0; c < r->n_conds; c++) {
        const double *col = palette[c % 8];
        cairo_set_source_rgb(cr, col[0], col[1], col[2]);
        cairo_set_line_width(cr, 2);
        for (int s = 0; s < r->opt.n_sizes; s++) {
            const PowerRow *w = &r->rows[s * r->n_conds + c];
            double x = PX(w->participants) + (c - r->n_conds / 2.0) * 2;
            if (s == 0) {
                cairo_move_to(cr, x, PY(w->power));
            } else {
                cairo_line_to(cr, x, PY(w->power));
            }
        }
        cairo_stroke(cr);
        cairo_set_line_width(cr, 1);
        for (int s = 0; s < r->opt.n_sizes; s++) {
            const PowerRow *w = &r->rows[s * r->n_conds + c];
            double x = PX(w->participants) + (c - r->n_conds / 2.0) * 2;
            cairo_move_to(cr, x, PY(w->ci_low));
            cairo_line_to(cr, x, PY(w->ci_high));
            cairo_stroke(cr);
            cairo_arc(cr, x, PY(w->power), 3, 0, 2 * 3.14159265358979);
            cairo_fill(cr);
        }
        cairo_move_to(cr, W - R + 12, T + 20 + 18 * c);
        cairo_show_text(cr, r->conds[c].id);
    }
#undef PX
#undef PY
}

static int write_plots(const PowerResult *r, const char *dir, SimError *err)
{
    const double W = 640, H = 400;
    static const char *const ext[] = {"png", "svg", "pdf"};
    for (int k = 0; k < 3; k++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/power.%s", dir, ext[k]);
        cairo_surface_t *sf = k == 0 ? cairo_image_surface_create(
                                           CAIRO_FORMAT_ARGB32, (int)W, (int)H)
                              : k == 1 ? cairo_svg_surface_create(path, W, H)
                                       : cairo_pdf_surface_create(path, W, H);
        cairo_t *cr = cairo_create(sf);
        draw_plot(cr, r, W, H);
        cairo_destroy(cr);
        cairo_surface_flush(sf);
        cairo_status_t st = k == 0 ? cairo_surface_write_to_png(sf, path)
                                   : cairo_surface_status(sf);
        cairo_surface_finish(sf);
        if (st == CAIRO_STATUS_SUCCESS) {
            st = cairo_surface_status(sf);
        }
        cairo_surface_destroy(sf);
        if (st != CAIRO_STATUS_SUCCESS) {
            return sim_fail(err, SIM_ERR_IO, "%s: %s", path,
                            cairo_status_to_string(st));
        }
    }
    return SIM_OK;
}

int power_write(const PowerResult *r, const char *dir, SimError *err)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", dir, strerror(errno));
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/power.json", dir);
    int rc = write_json(r, path, err);
    if (rc == SIM_OK) {
        snprintf(path, sizeof path, "%s/power.md", dir);
        rc = write_md(r, path, err);
    }
    if (rc == SIM_OK) {
        rc = write_plots(r, dir, err);
    }
    return rc;
}

/* ----------------------------------------------------------------- argv */

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_real(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) {
        return -1;
    }
    *out = v;
    return 0;
}

static int fail(const char *msg, const char *arg)
{
    fprintf(stderr, "simlab power: %s '%s'\n", msg, arg);
    fputs("usage: simlab power DIR --participants N1,N2,... --out DIR\n"
          "         [--studies S] [--alpha A] [--replicates B] [--threads T]\n"
          "         [--seed S] [--p COND:PHASE=P]... [--participant-sd SD]\n"
          "         [--item-sd SD] [--pilot DB]... "
          "[--items global|per-condition|none]\n"
          "         [--drop-singular] [--quiet]\n",
          stderr);
    return 2;
}

int power_main(int argc, char **argv)
{
    PowerOptions o;
    power_options_default(&o);
    o.progress = isatty(2);
    const char *cells[MAX_P], *pilots[MAX_P];
    o.cells = cells;
    o.pilots = pilots;
    const char *out = NULL;
    int have_sizes = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        SimError err;
        sim_error_clear(&err);
        if (strcmp(a, "--quiet") == 0) {
            o.progress = 0;
            continue;
        }
        if (strcmp(a, "--drop-singular") == 0) {
            o.drop_singular = 1;
            continue;
        }
        if (a[0] != '-') {
            if (o.bundle_dir) {
                return fail("unexpected argument", a);
            }
            o.bundle_dir = a;
            continue;
        }
        if (!v) {
            return fail("missing value after", a);
        }
        i++;
        if (strcmp(a, "--participants") == 0) {
            if (power_parse_sizes(v, &o, &err) != SIM_OK) {
                fprintf(stderr, "simlab power: %s\n", err.msg);
                return 2;
            }
            have_sizes = 1;
        } else if (strcmp(a, "--studies") == 0) {
            if (parse_int(v, 1, 1000000, &n) != 0) {
                return fail("--studies: expected 1 to 1000000, got", v);
            }
            o.studies = (int)n;
        } else if (strcmp(a, "--replicates") == 0) {
            if (parse_int(v, 1, 1000000, &n) != 0) {
                return fail("--replicates: expected 1 to 1000000, got", v);
            }
            o.replicates = (int)n;
        } else if (strcmp(a, "--threads") == 0) {
            if (parse_int(v, 1, 256, &n) != 0) {
                return fail("--threads: expected 1 to 256, got", v);
            }
            o.threads = (int)n;
        } else if (strcmp(a, "--seed") == 0) {
            if (parse_int(v, 0, 0x7fffffffL, &n) != 0) {
                return fail("--seed: expected a non-negative integer, got", v);
            }
            o.seed = (uint64_t)n;
        } else if (strcmp(a, "--alpha") == 0) {
            if (parse_real(v, 1e-6, 0.5, &o.alpha) != 0) {
                return fail("--alpha: expected 0.000001 to 0.5, got", v);
            }
        } else if (strcmp(a, "--participant-sd") == 0 ||
                   strcmp(a, "--item-sd") == 0) {
            if (parse_real(v, 0, 10,
                           a[2] == 'p' ? &o.participant_sd : &o.item_sd) != 0) {
                return fail("SD: expected 0 to 10, got", v);
            }
        } else if (strcmp(a, "--p") == 0) {
            if (o.n_cells == MAX_P) {
                return fail("too many --p options at", v);
            }
            cells[o.n_cells++] = v;
        } else if (strcmp(a, "--items") == 0) {
            static const char *const draws[] = {"global", "per-condition",
                                                "none"};
            int k = 0;
            while (k < 3 && strcmp(v, draws[k]) != 0) {
                k++;
            }
            if (k == 3) {
                return fail("--items: expected global, per-condition or none, "
                            "got",
                            v);
            }
            o.items = k;
        } else if (strcmp(a, "--pilot") == 0) {
            if (o.n_pilots == MAX_P) {
                return fail("too many --pilot options at", v);
            }
            pilots[o.n_pilots++] = v;
        } else if (strcmp(a, "--out") == 0) {
            out = v;
        } else {
            return fail("unknown option", a);
        }
    }
    if (!o.bundle_dir || !have_sizes || !out) {
        return fail("DIR, --participants and --out are required; got",
                    o.bundle_dir ? o.bundle_dir : "");
    }
    SimError err;
    sim_error_clear(&err);
    PowerResult *r = NULL;
    int rc = power_run(&o, &r, &err);
    if (rc == SIM_OK) {
        rc = power_write(r, out, &err);
        report_plots_shutdown(); /* the font caches of the plot */
    }
    if (rc != SIM_OK) {
        fprintf(stderr, "simlab power: %s\n", err.msg);
        power_free(r);
        return err.code == SIM_ERR_USAGE ? 2 : 1;
    }
    for (int c = 0; c < r->n_conds; c++) {
        char a[96];
        n_text(r, &r->conds[c].n80, a, sizeof a);
        printf("%-12s N for 80 %% power: %s\n", r->conds[c].id,
               r->conds[c].null_effect ? "(no effect)" : a);
    }
    printf("simlab power: wrote %s/power.{json,md,png,svg,pdf}\n", out);
    power_free(r);
    return 0;
}

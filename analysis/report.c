/*
** Table writers: report.md, report.tex (booktabs), CSV tables and
** report.json. Accuracies print as percentages in md/tex and as fractions in
** CSV and JSON. libc and jansson only.
*/
#include "analysis/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/sim_alloc.h"
#include "common/sim_text.h"

static void free_strs(char **a, int n)
{
    for (int i = 0; a && i < n; i++) {
        sim_free(a[i]);
    }
    sim_free(a);
}

void report_free(Report *r)
{
    if (!r) {
        return;
    }
    free_strs(r->sources, r->n_sources);
    for (int i = 0; i < r->n_exclusions; i++) {
        sim_free(r->exclusions[i].condition);
        sim_free(r->exclusions[i].reason);
    }
    sim_free(r->exclusions);
    for (int i = 0; i < r->n_counts; i++) {
        sim_free(r->counts[i].condition);
    }
    sim_free(r->counts);
    for (int i = 0; i < r->n_change; i++) {
        sim_free(r->change[i].subset);
        sim_free(r->change[i].condition);
    }
    sim_free(r->change);
    for (int i = 0; i < r->n_re; i++) {
        sim_free(r->re[i].subset);
        sim_free(r->re[i].same_as);
    }
    sim_free(r->re);
    sim_free(r->sessions);
    for (int i = 0; i < r->n_utility; i++) {
        UtilityRow *u = &r->utility[i];
        sim_free(u->condition);
        sim_free(u->session_accuracy);
        sim_free(u->utility_k);
        sim_free(u->uk_low);
        sim_free(u->uk_high);
    }
    sim_free(r->utility);
    sim_free(r->utility_note);
    sim_free(r->anova_outcome);
    for (int i = 0; i < r->n_groups; i++) {
        sim_free(r->groups[i].condition);
    }
    sim_free(r->groups);
    for (int i = 0; i < r->n_tukey; i++) {
        sim_free(r->tukey[i].a);
        sim_free(r->tukey[i].b);
    }
    sim_free(r->tukey);
    for (int i = 0; i < r->n_ratings; i++) {
        sim_free(r->ratings[i].condition);
    }
    sim_free(r->ratings);
    for (int i = 0; i < r->n_rt; i++) {
        sim_free(r->rt[i].condition);
    }
    sim_free(r->rt);
    memset(r, 0, sizeof *r);
}

static const char *utility_rule_name(int rule)
{
    return rule == UTILITY_TRAPEZOID ? "trapezoid"
           : rule == UTILITY_RATIO   ? "ratio"
                                     : "mean";
}

/* ------------------------------------------------------------------ */
/* Output files                                                        */

static int write_file(const char *dir, const char *name, SimBuf *b,
                      SimError *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
        return sim_fail(err, SIM_ERR_IO, "%s/%s: path too long", dir, name);
    }
    if (b->oom) {
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot write: %s", path,
                        strerror(errno));
    }
    size_t n = b->len;
    int bad = fwrite(sim_buf_cstr(b), 1, n, f) != n;
    bad |= fclose(f) != 0;
    return bad ? sim_fail(err, SIM_ERR_IO, "%s: write failed", path) : SIM_OK;
}

/* Number formats: "-" for missing values in text tables. */
static void put_num(SimBuf *b, const char *fmt, double x, const char *missing)
{
    /* fmt is "%.Nf" or "%+.Nf" */
    int plus = fmt[1] == '+';
    int digits = fmt[plus ? 3 : 2] - '0';
    if (isfinite(x)) {
        if (plus) {
            sim_buf_printf(b, "%+.*f", digits, x);
        } else {
            sim_buf_printf(b, "%.*f", digits, x);
        }
    } else {
        sim_buf_puts(b, missing);
    }
}

static void put_p(SimBuf *b, double p, const char *missing)
{
    if (!isfinite(p)) {
        sim_buf_puts(b, missing);
    } else if (p < 0.0001) {
        sim_buf_printf(b, "%.1e", p);
    } else {
        sim_buf_printf(b, "%.4f", p);
    }
}

/* ------------------------------------------------------------------ */
/* Markdown                                                            */

int report_write_md(const Report *r, const char *dir, SimError *err)
{
    SimBuf b;
    sim_buf_init(&b);
    const AnalyzeOptions *o = &r->opt;
    sim_buf_printf(&b,
                   "# simlab-analyze report\n\nsimlab %s; %d responses "
                   "read; seed %llu; %d bootstrap replicates (%s, items "
                   "%s); p: %s.\n\n",
                   SIMLAB_VERSION, r->n_rows_read, (unsigned long long)o->seed,
                   o->replicates,
                   o->boot_hase2020 ? "Hase & Bansal 2020 procedure"
                                    : "crossed users x items",
                   o->items_fixed           ? "not resampled"
                   : o->items_per_condition ? "per condition"
                                            : "global",
                   o->p_hase ? "Hase & Bansal's rule" : "percentile inversion");

    sim_buf_puts(&b, "## Participants\n\n| condition | enrolled | analysed "
                     "|\n| --- | ---: | ---: |\n");
    for (int i = 0; i < r->n_counts; i++) {
        sim_buf_printf(&b, "| %s | %d | %d |\n", r->counts[i].condition,
                       r->counts[i].enrolled, r->counts[i].analysed);
    }
    if (r->n_exclusions > 0) {
        sim_buf_puts(&b, "\n| condition | left out because | participants "
                         "|\n| --- | --- | ---: |\n");
        for (int i = 0; i < r->n_exclusions; i++) {
            sim_buf_printf(&b, "| %s | %s | %d |\n", r->exclusions[i].condition,
                           r->exclusions[i].reason,
                           r->exclusions[i].participants);
        }
    }

    if (r->n_change > 0) {
        sim_buf_puts(&b,
                     "\n## Accuracy change (Post - Pre)\n\nAccuracies in %. "
                     "n = responses answered in both Pre and Post. Pre (RE) is "
                     "the random-effects estimate; Change = Post - Pre (RE); "
                     "boot = bootstrap mean; CI = 95 % percentile "
                     "interval.\n");
        for (int s = 0; s < r->n_re; s++) {
            const ReRow *re = &r->re[s];
            sim_buf_printf(&b, "\n### %s\n\n", re->subset);
            if (re->same_as) {
                sim_buf_printf(&b, "The same responses as *%s* (above).\n",
                               re->same_as);
                continue;
            }
            sim_buf_puts(&b, "| condition | n | users | Pre | Pre (RE) | Post "
                             "| Change | boot | 95 % CI | p | B | singular "
                             "|\n| --- | ---: | ---: | ---: | ---: | ---: | "
                             "---: | ---: | --- | ---: | ---: | ---: |\n");
            sim_buf_printf(&b, "| User Avg. | %d | %d | ", re->n_responses,
                           re->n_participants);
            put_num(&b, "%.2f", 100 * re->pre_raw, "-");
            sim_buf_puts(&b, " | - | - | - | - | - | - | - | - |\n");
            for (int i = 0; i < r->n_change; i++) {
                const ChangeRow *c = &r->change[i];
                if (strcmp(c->subset, re->subset) != 0) {
                    continue;
                }
                sim_buf_printf(&b, "| %s | %d | %d | ", c->condition,
                               c->n_responses, c->n_participants);
                put_num(&b, "%.2f", 100 * c->pre_raw, "-");
                sim_buf_puts(&b, " | ");
                put_num(&b, "%.2f", 100 * c->pre_re, "-");
                sim_buf_puts(&b, " | ");
                put_num(&b, "%.2f", 100 * c->post, "-");
                sim_buf_puts(&b, " | ");
                put_num(&b, "%+.2f", 100 * c->change, "-");
                sim_buf_puts(&b, " | ");
                put_num(&b, "%+.2f", 100 * c->boot_mean, "-");
                sim_buf_puts(&b, " | ");
                if (isfinite(c->ci_low)) {
                    sim_buf_printf(&b, "[%+.2f, %+.2f]", 100 * c->ci_low,
                                   100 * c->ci_high);
                } else {
                    sim_buf_puts(&b, "-");
                }
                sim_buf_puts(&b, " | ");
                put_p(&b, c->p, "-");
                sim_buf_printf(&b, " | %d | %d |\n", c->replicates,
                               c->singular);
            }
            sim_buf_puts(&b, "\nRandom effects: beta0 = ");
            put_num(&b, "%.4f", re->beta0, "-");
            sim_buf_puts(&b, ", sigma = ");
            put_num(&b, "%.4f", re->sigma, "-");
            sim_buf_printf(&b, "%s.\n", re->singular ? " (singular fit)" : "");
        }
    }

    if (r->n_utility > 0) {
        sim_buf_printf(&b,
                       "\n## Utility (baseline: %s; rule: %s)\n\n"
                       "Session accuracy in %% (test trials, catch "
                       "trials excluded), then Utility-K per session "
                       "and Utility with its 95 %% CI; p for H0: Utility "
                       "= 1 (on log Utility).\n\n| condition | users |",
                       o->baseline, utility_rule_name(o->utility_rule));
        for (int t = 0; t < r->n_sessions; t++) {
            sim_buf_printf(&b, " acc %d |", r->sessions[t]);
        }
        for (int t = 0; t < r->n_sessions; t++) {
            sim_buf_printf(&b, " U-K %d |", r->sessions[t]);
        }
        sim_buf_puts(&b, " Utility | 95 % CI | p |\n| --- | ---: |");
        for (int t = 0; t < 2 * r->n_sessions; t++) {
            sim_buf_puts(&b, " ---: |");
        }
        sim_buf_puts(&b, " ---: | --- | ---: |\n");
        for (int i = 0; i < r->n_utility; i++) {
            const UtilityRow *u = &r->utility[i];
            sim_buf_printf(&b, "| %s | %d |", u->condition, u->n_participants);
            for (int t = 0; t < r->n_sessions; t++) {
                sim_buf_puts(&b, " ");
                put_num(&b, "%.1f", 100 * u->session_accuracy[t], "-");
                sim_buf_puts(&b, " |");
            }
            for (int t = 0; t < r->n_sessions; t++) {
                sim_buf_puts(&b, " ");
                put_num(&b, "%.2f", u->utility_k[t], "-");
                sim_buf_puts(&b, " |");
            }
            sim_buf_puts(&b, " ");
            put_num(&b, "%.2f", u->utility, "-");
            sim_buf_puts(&b, " | ");
            if (!u->is_baseline && isfinite(u->ci_low)) {
                sim_buf_printf(&b, "[%.2f, %.2f]", u->ci_low, u->ci_high);
            } else {
                sim_buf_puts(&b, "-");
            }
            sim_buf_puts(&b, " | ");
            put_p(&b, u->p, "-");
            sim_buf_puts(&b, " |\n");
        }
    }
    if (r->utility_note) {
        sim_buf_printf(&b, "\n%s\n", r->utility_note);
    }

    if (r->has_anova) {
        const AnovaResult *a = &r->anova;
        sim_buf_printf(&b,
                       "\n## ANOVA over conditions\n\nOutcome: %s.\n\n"
                       "F(%g, %g) = ",
                       r->anova_outcome, a->df_between, a->df_within);
        put_num(&b, "%.3f", a->f, "-");
        sim_buf_puts(&b, ", p = ");
        put_p(&b, a->p, "-");
        sim_buf_puts(&b, ", eta^2 = ");
        put_num(&b, "%.3f", a->eta_sq, "-");
        sim_buf_puts(&b, ".\n\n| condition | n | mean | sd |\n| --- | ---: | "
                         "---: | ---: |\n");
        for (int i = 0; i < r->n_groups; i++) {
            sim_buf_printf(&b, "| %s | %d | %.2f | ", r->groups[i].condition,
                           r->groups[i].n, 100 * r->groups[i].mean);
            put_num(&b, "%.2f", 100 * r->groups[i].sd, "-");
            sim_buf_puts(&b, " |\n");
        }
        int any_base = 0;
        for (int i = 0; i < r->n_tukey; i++) {
            any_base |= r->tukey[i].vs_baseline;
        }
        sim_buf_puts(&b, "\nTukey HSD (Tukey-Kramer), differences in "
                         "accuracy points; ");
        if (any_base) {
            sim_buf_puts(&b, "* = comparison with the baseline.");
        } else {
            sim_buf_printf(&b, "no condition is called '%s' (--baseline).",
                           o->baseline);
        }
        sim_buf_puts(&b, "\n\n| comparison | diff | lwr | upr | p adj |\n"
                         "| --- | ---: | ---: | ---: | ---: |\n");
        for (int i = 0; i < r->n_tukey; i++) {
            const TukeyRow *t = &r->tukey[i];
            sim_buf_printf(&b, "| %s%s - %s | %+.2f | %+.2f | %+.2f | ",
                           t->vs_baseline ? "* " : "", t->b, t->a,
                           100 * t->diff, 100 * t->lwr, 100 * t->upr);
            put_p(&b, t->p_adj, "-");
            sim_buf_puts(&b, " |\n");
        }
    }

    if (r->n_ratings > 0) {
        sim_buf_puts(&b, "\n## Ratings (1-7)\n\n| condition | n | mean | sd | "
                         "95 % CI |\n| --- | ---: | ---: | ---: | --- |\n");
        for (int i = 0; i < r->n_ratings; i++) {
            const RatingRow *x = &r->ratings[i];
            sim_buf_printf(&b, "| %s | %d | %.2f | ", x->condition, x->n,
                           x->mean);
            put_num(&b, "%.2f", x->sd, "-");
            sim_buf_puts(&b, " | ");
            if (isfinite(x->ci_low)) {
                sim_buf_printf(&b, "[%.2f, %.2f]", x->ci_low, x->ci_high);
            } else {
                sim_buf_puts(&b, "-");
            }
            sim_buf_puts(&b, " |\n");
        }
    }
    if (r->has_logit) {
        const LogitFit *f = &r->logit;
        sim_buf_printf(&b,
                       "\nLogistic regression of correctness on rating "
                       "(%d responses with both):\n\n",
                       r->logit_n);
        if (f->separation) {
            sim_buf_puts(&b, "The ratings separate correct from incorrect "
                             "responses: no finite estimate.\n");
        } else {
            sim_buf_printf(&b,
                           "| term | estimate | SE | z | p |\n| --- | "
                           "---: | ---: | ---: | ---: |\n| intercept | "
                           "%.4f | %.4f | %.3f | ",
                           f->b0, f->se0, f->z0);
            put_p(&b, f->p0, "-");
            sim_buf_printf(&b, " |\n| rating | %.4f | %.4f | %.3f | ", f->b1,
                           f->se1, f->z1);
            put_p(&b, f->p1, "-");
            sim_buf_printf(&b,
                           " |\n\nRating slope 95 %% CI: Wald [%.4f, "
                           "%.4f], bootstrap ",
                           r->b1_wald_low, r->b1_wald_high);
            if (isfinite(r->b1_boot_low)) {
                sim_buf_printf(&b, "[%.4f, %.4f]", r->b1_boot_low,
                               r->b1_boot_high);
            } else {
                sim_buf_puts(&b, "-");
            }
            sim_buf_printf(&b,
                           ". Deviance %.3f (null %.3f), %d IRLS "
                           "iterations.\n\n| rating | P(correct) | 95 %% "
                           "CI |\n| ---: | ---: | --- |\n",
                           f->deviance, f->null_deviance, f->iters);
            for (int i = 0; i < 5; i++) {
                sim_buf_printf(&b, "| %d | %.3f | ", 2 + i, r->pred[i]);
                if (isfinite(r->pred_low[i])) {
                    sim_buf_printf(&b, "[%.3f, %.3f]", r->pred_low[i],
                                   r->pred_high[i]);
                } else {
                    sim_buf_puts(&b, "-");
                }
                sim_buf_puts(&b, " |\n");
            }
        }
    }

    if (r->n_rt > 0) {
        sim_buf_puts(&b, "\n## Total time per participant (seconds)\n\n| "
                         "condition | users | median | mean |\n| --- | ---: | "
                         "---: | ---: |\n");
        for (int i = 0; i < r->n_rt; i++) {
            sim_buf_printf(&b, "| %s | %d | %.1f | %.1f |\n",
                           r->rt[i].condition, r->rt[i].n_participants,
                           r->rt[i].median_s, r->rt[i].mean_s);
        }
    }
    int rc = write_file(dir, "report.md", &b, err);
    sim_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ */
/* LaTeX (booktabs)                                                    */

static void tex_escape(SimBuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '_':
        case '%':
        case '&':
        case '#':
        case '$':
        case '{':
        case '}':
            sim_buf_printf(b, "\\%c", *s);
            break;
        case '\\':
            sim_buf_puts(b, "\\textbackslash{}");
            break;
        case '^':
        case '~':
            sim_buf_puts(b, " ");
            break;
        default:
            sim_buf_append(b, s, 1);
        }
    }
}

int report_write_tex(const Report *r, const char *dir, SimError *err)
{
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, "% simlab-analyze tables; needs \\usepackage{booktabs}\n");
    for (int s = 0; s < r->n_re; s++) {
        const ReRow *re = &r->re[s];
        if (re->same_as) {
            continue; /* the same responses as an earlier table */
        }
        sim_buf_puts(&b, "\n\\begin{table}[t]\n\\centering\n\\small\n"
                         "\\begin{tabular}{lrrrrl}\n\\toprule\nMethod & n & "
                         "Pre & Change & CI & $p$ \\\\\n\\midrule\n");
        sim_buf_printf(&b, "User Avg. & %d & ", re->n_responses);
        put_num(&b, "%.2f", 100 * re->pre_raw, "--");
        sim_buf_puts(&b, " & -- & -- & -- \\\\\n");
        for (int i = 0; i < r->n_change; i++) {
            const ChangeRow *c = &r->change[i];
            if (strcmp(c->subset, re->subset) != 0) {
                continue;
            }
            tex_escape(&b, c->condition);
            sim_buf_printf(&b, " & %d & ", c->n_responses);
            put_num(&b, "%.2f", 100 * c->pre_re, "--");
            sim_buf_puts(&b, " & ");
            put_num(&b, "%.2f", 100 * c->change, "--");
            sim_buf_puts(&b, " & ");
            if (isfinite(c->ci_low)) {
                sim_buf_printf(&b, "[%.2f, %.2f]", 100 * c->ci_low,
                               100 * c->ci_high);
            } else {
                sim_buf_puts(&b, "--");
            }
            sim_buf_puts(&b, " & ");
            put_p(&b, c->p, "--");
            sim_buf_puts(&b, " \\\\\n");
        }
        sim_buf_puts(&b, "\\bottomrule\n\\end{tabular}\n\\caption{Change in "
                         "user accuracy (\\%), ");
        tex_escape(&b, re->subset);
        sim_buf_puts(&b, ". Pre from the random-effects model; 95\\% "
                         "bootstrap CI (users $\\times$ items).}\n"
                         "\\end{table}\n");
    }
    if (r->n_utility > 0) {
        sim_buf_puts(&b, "\n\\begin{table}[t]\n\\centering\n\\small\n"
                         "\\begin{tabular}{l");
        for (int t = 0; t < r->n_sessions; t++) {
            sim_buf_puts(&b, "r");
        }
        sim_buf_puts(&b, "rll}\n\\toprule\nMethod");
        for (int t = 0; t < r->n_sessions; t++) {
            sim_buf_printf(&b, " & %d", r->sessions[t]);
        }
        sim_buf_puts(&b, " & Utility & CI & $p$ \\\\\n\\midrule\n");
        for (int i = 0; i < r->n_utility; i++) {
            const UtilityRow *u = &r->utility[i];
            tex_escape(&b, u->condition);
            for (int t = 0; t < r->n_sessions; t++) {
                sim_buf_puts(&b, " & ");
                put_num(&b, "%.1f", 100 * u->session_accuracy[t], "--");
            }
            if (u->is_baseline) {
                sim_buf_puts(&b, " & & & \\\\\n");
                continue;
            }
            sim_buf_puts(&b, " & ");
            put_num(&b, "%.2f", u->utility, "--");
            sim_buf_puts(&b, " & ");
            if (isfinite(u->ci_low)) {
                sim_buf_printf(&b, "[%.2f, %.2f]", u->ci_low, u->ci_high);
            } else {
                sim_buf_puts(&b, "--");
            }
            sim_buf_puts(&b, " & ");
            put_p(&b, u->p, "--");
            sim_buf_puts(&b, " \\\\\n");
        }
        sim_buf_puts(&b, "\\bottomrule\n\\end{tabular}\n\\caption{Accuracy "
                         "per session (\\%) and Utility.}\n\\end{table}\n");
    }
    if (r->has_anova && r->n_tukey > 0) {
        sim_buf_printf(&b, "\n\\begin{table}[t]\n\\centering\n\\small\n"
                           "\\begin{tabular}{lrrrr}\n\\toprule\nComparison "
                           "& Diff & Lower & Upper & $p$ \\\\\n\\midrule\n");
        for (int i = 0; i < r->n_tukey; i++) {
            const TukeyRow *t = &r->tukey[i];
            tex_escape(&b, t->b);
            sim_buf_puts(&b, " -- ");
            tex_escape(&b, t->a);
            sim_buf_printf(&b, " & %.2f & %.2f & %.2f & ", 100 * t->diff,
                           100 * t->lwr, 100 * t->upr);
            put_p(&b, t->p_adj, "--");
            sim_buf_puts(&b, " \\\\\n");
        }
        /* a missing value is a dash, in math mode too */
        sim_buf_printf(&b,
                       "\\bottomrule\n\\end{tabular}\n\\caption{Tukey "
                       "HSD. ANOVA: $F(%g, %g) = ",
                       r->anova.df_between, r->anova.df_within);
        put_num(&b, "%.2f", r->anova.f, "\\mbox{--}");
        sim_buf_puts(&b, "$, $\\eta^2 = ");
        put_num(&b, "%.3f", r->anova.eta_sq, "\\mbox{--}");
        sim_buf_puts(&b, "$.}\n\\end{table}\n");
    }
    int rc = write_file(dir, "report.tex", &b, err);
    sim_buf_free(&b);
    return rc;
}

/* ------------------------------------------------------------------ */
/* CSV                                                                  */

static void csv_str(SimBuf *b, const char *s)
{
    if (strpbrk(s, ",\"\n\r")) {
        sim_buf_puts(b, "\"");
        for (; *s; s++) {
            if (*s == '"') {
                sim_buf_puts(b, "\"");
            }
            sim_buf_append(b, s, 1);
        }
        sim_buf_puts(b, "\"");
    } else {
        sim_buf_puts(b, s);
    }
}

static void csv_num(SimBuf *b, double x)
{
    sim_buf_puts(b, ",");
    if (isfinite(x)) {
        sim_buf_printf(b, "%.10g", x);
    }
}

int report_write_csv(const Report *r, const char *dir, SimError *err)
{
    SimBuf b;
    int rc = SIM_OK;
    sim_buf_init(&b);
    sim_buf_puts(&b, "subset,condition,n_responses,n_participants,pre_raw,"
                     "pre_re,post,change,boot_mean,ci_low,ci_high,p,"
                     "replicates,singular\n");
    for (int i = 0; i < r->n_change; i++) {
        const ChangeRow *c = &r->change[i];
        csv_str(&b, c->subset);
        sim_buf_puts(&b, ",");
        csv_str(&b, c->condition);
        sim_buf_printf(&b, ",%d,%d", c->n_responses, c->n_participants);
        csv_num(&b, c->pre_raw);
        csv_num(&b, c->pre_re);
        csv_num(&b, c->post);
        csv_num(&b, c->change);
        csv_num(&b, c->boot_mean);
        csv_num(&b, c->ci_low);
        csv_num(&b, c->ci_high);
        csv_num(&b, c->p);
        sim_buf_printf(&b, ",%d,%d\n", c->replicates, c->singular);
    }
    rc = write_file(dir, "change.csv", &b, err);
    sim_buf_free(&b);

    if (rc == SIM_OK) {
        sim_buf_init(&b);
        sim_buf_puts(&b, "condition,session,session_accuracy,utility_k,"
                         "uk_ci_low,uk_ci_high,utility,boot_mean,ci_low,"
                         "ci_high,p\n");
        for (int i = 0; i < r->n_utility; i++) {
            const UtilityRow *u = &r->utility[i];
            for (int t = 0; t < r->n_sessions; t++) {
                csv_str(&b, u->condition);
                sim_buf_printf(&b, ",%d", r->sessions[t]);
                csv_num(&b, u->session_accuracy[t]);
                csv_num(&b, u->utility_k[t]);
                csv_num(&b, u->uk_low[t]);
                csv_num(&b, u->uk_high[t]);
                csv_num(&b, u->utility);
                csv_num(&b, u->boot_mean);
                csv_num(&b, u->ci_low);
                csv_num(&b, u->ci_high);
                csv_num(&b, u->p);
                sim_buf_puts(&b, "\n");
            }
        }
        rc = write_file(dir, "utility.csv", &b, err);
        sim_buf_free(&b);
    }
    if (rc == SIM_OK) {
        sim_buf_init(&b);
        sim_buf_puts(&b, "a,b,diff,lwr,upr,p_adj,vs_baseline\n");
        for (int i = 0; i < r->n_tukey; i++) {
            const TukeyRow *t = &r->tukey[i];
            csv_str(&b, t->a);
            sim_buf_puts(&b, ",");
            csv_str(&b, t->b);
            csv_num(&b, t->diff);
            csv_num(&b, t->lwr);
            csv_num(&b, t->upr);
            csv_num(&b, t->p_adj);
            sim_buf_printf(&b, ",%d\n", t->vs_baseline);
        }
        rc = write_file(dir, "tukey.csv", &b, err);
        sim_buf_free(&b);
    }
    if (rc == SIM_OK) {
        sim_buf_init(&b);
        sim_buf_puts(&b, "condition,n,mean,sd,boot_mean,ci_low,ci_high\n");
        for (int i = 0; i < r->n_ratings; i++) {
            const RatingRow *x = &r->ratings[i];
            csv_str(&b, x->condition);
            sim_buf_printf(&b, ",%d", x->n);
            csv_num(&b, x->mean);
            csv_num(&b, x->sd);
            csv_num(&b, x->boot_mean);
            csv_num(&b, x->ci_low);
            csv_num(&b, x->ci_high);
            sim_buf_puts(&b, "\n");
        }
        rc = write_file(dir, "ratings.csv", &b, err);
        sim_buf_free(&b);
    }
    if (rc == SIM_OK) {
        sim_buf_init(&b);
        sim_buf_puts(&b, "condition,n_participants,median_s,mean_s\n");
        for (int i = 0; i < r->n_rt; i++) {
            csv_str(&b, r->rt[i].condition);
            sim_buf_printf(&b, ",%d", r->rt[i].n_participants);
            csv_num(&b, r->rt[i].median_s);
            csv_num(&b, r->rt[i].mean_s);
            sim_buf_puts(&b, "\n");
        }
        rc = write_file(dir, "rt.csv", &b, err);
        sim_buf_free(&b);
    }
    if (rc == SIM_OK) {
        sim_buf_init(&b);
        sim_buf_puts(&b, "condition,reason,participants\n");
        for (int i = 0; i < r->n_exclusions; i++) {
            csv_str(&b, r->exclusions[i].condition);
            sim_buf_puts(&b, ",");
            csv_str(&b, r->exclusions[i].reason);
            sim_buf_printf(&b, ",%d\n", r->exclusions[i].participants);
        }
        rc = write_file(dir, "exclusions.csv", &b, err);
        sim_buf_free(&b);
    }
    return rc;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */

static json_t *jnum(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *jnums(const double *x, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_array_append_new(a, jnum(x[i]));
    }
    return a;
}

static json_t *json_settings(const Report *r)
{
    const AnalyzeOptions *o = &r->opt;
    json_t *s = json_object();
    json_object_set_new(s, "version", json_string(SIMLAB_VERSION));
    json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(s, "replicates", json_integer(o->replicates));
    json_object_set_new(s, "threads", json_integer(o->threads));
    json_object_set_new(s, "baseline", json_string(o->baseline));
    json_object_set_new(s, "items",
                        json_string(o->items_fixed           ? "none"
                                    : o->items_per_condition ? "per-condition"
                                                             : "global"));
    json_object_set_new(s, "p_method",
                        json_string(o->p_hase ? "hase" : "percentile"));
    json_object_set_new(s, "bootstrap",
                        json_string(o->boot_hase2020 ? "hase2020" : "crossed"));
    json_object_set_new(s, "drop_singular", json_boolean(o->drop_singular));
    json_object_set_new(
        s, "accuracy",
        json_string(o->accuracy_participant ? "participant" : "pooled"));
    json_object_set_new(s, "utility",
                        json_string(utility_rule_name(o->utility_rule)));
    json_object_set_new(s, "max_catch_failures",
                        o->max_catch_failures >= 0
                            ? json_integer(o->max_catch_failures)
                            : json_null());
    json_object_set_new(s, "include_pilot", json_boolean(o->include_pilot));
    json_object_set_new(s, "include_simulated",
                        json_boolean(o->include_simulated));
    json_t *fmt = json_array();
    const char *fnames[4] = {"md", "tex", "csv", "json"};
    for (int i = 0; i < 4; i++) {
        if (o->formats & (1u << i)) {
            json_array_append_new(fmt, json_string(fnames[i]));
        }
    }
    json_object_set_new(s, "format", fmt);
    json_t *pl = json_array();
    const char *pnames[3] = {"png", "svg", "pdf"};
    for (int i = 0; i < 3; i++) {
        if (o->plots & (1u << i)) {
            json_array_append_new(pl, json_string(pnames[i]));
        }
    }
    json_object_set_new(s, "plots", pl);
    json_t *src = json_array();
    for (int i = 0; i < r->n_sources; i++) {
        json_array_append_new(src, json_string(r->sources[i]));
    }
    json_object_set_new(s, "sources", src);
    json_object_set_new(s, "responses_read", json_integer(r->n_rows_read));
    return s;
}

int report_write_json(const Report *r, const char *dir, SimError *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "settings", json_settings(r));

    json_t *ex = json_object(), *by = json_array(), *cc = json_array();
    for (int i = 0; i < r->n_exclusions; i++) {
        json_array_append_new(by,
                              json_pack("{s:s, s:s, s:i}", "condition",
                                        r->exclusions[i].condition, "reason",
                                        r->exclusions[i].reason, "participants",
                                        r->exclusions[i].participants));
    }
    for (int i = 0; i < r->n_counts; i++) {
        json_array_append_new(cc, json_pack("{s:s, s:i, s:i}", "condition",
                                            r->counts[i].condition, "enrolled",
                                            r->counts[i].enrolled, "analysed",
                                            r->counts[i].analysed));
    }
    json_object_set_new(ex, "by_reason", by);
    json_object_set_new(ex, "conditions", cc);
    json_object_set_new(root, "exclusions", ex);

    json_t *ch = json_array();
    for (int i = 0; i < r->n_change; i++) {
        const ChangeRow *c = &r->change[i];
        json_t *o = json_object();
        json_object_set_new(o, "subset", json_string(c->subset));
        json_object_set_new(o, "condition", json_string(c->condition));
        json_object_set_new(o, "n_responses", json_integer(c->n_responses));
        json_object_set_new(o, "n_participants",
                            json_integer(c->n_participants));
        json_object_set_new(o, "pre_raw", jnum(c->pre_raw));
        json_object_set_new(o, "pre_re", jnum(c->pre_re));
        json_object_set_new(o, "post", jnum(c->post));
        json_object_set_new(o, "change", jnum(c->change));
        json_object_set_new(o, "boot_mean", jnum(c->boot_mean));
        json_object_set_new(o, "ci_low", jnum(c->ci_low));
        json_object_set_new(o, "ci_high", jnum(c->ci_high));
        json_object_set_new(o, "p", jnum(c->p));
        json_object_set_new(o, "replicates", json_integer(c->replicates));
        json_object_set_new(o, "singular", json_integer(c->singular));
        json_array_append_new(ch, o);
    }
    json_object_set_new(root, "change", ch);

    json_t *re = json_array();
    for (int i = 0; i < r->n_re; i++) {
        const ReRow *x = &r->re[i];
        json_t *o = json_object();
        json_object_set_new(o, "subset", json_string(x->subset));
        json_object_set_new(o, "same_as",
                            x->same_as ? json_string(x->same_as) : json_null());
        json_object_set_new(o, "beta0", jnum(x->beta0));
        json_object_set_new(o, "sigma", jnum(x->sigma));
        json_object_set_new(o, "singular", json_boolean(x->singular));
        json_object_set_new(o, "n_responses", json_integer(x->n_responses));
        json_object_set_new(o, "n_participants",
                            json_integer(x->n_participants));
        json_object_set_new(o, "pre_raw", jnum(x->pre_raw));
        json_array_append_new(re, o);
    }
    json_object_set_new(root, "random_effects", re);

    json_t *ut = json_array();
    for (int i = 0; i < r->n_utility; i++) {
        const UtilityRow *u = &r->utility[i];
        json_t *o = json_object();
        json_object_set_new(o, "condition", json_string(u->condition));
        json_object_set_new(o, "n_participants",
                            json_integer(u->n_participants));
        json_object_set_new(o, "baseline", json_boolean(u->is_baseline));
        json_object_set_new(o, "sessions", json_array());
        for (int t = 0; t < r->n_sessions; t++) {
            json_array_append_new(json_object_get(o, "sessions"),
                                  json_integer(r->sessions[t]));
        }
        json_object_set_new(o, "session_accuracy",
                            jnums(u->session_accuracy, r->n_sessions));
        json_object_set_new(o, "utility_k", jnums(u->utility_k, r->n_sessions));
        json_object_set_new(o, "utility_k_ci_low",
                            jnums(u->uk_low, r->n_sessions));
        json_object_set_new(o, "utility_k_ci_high",
                            jnums(u->uk_high, r->n_sessions));
        json_object_set_new(o, "utility", jnum(u->utility));
        json_object_set_new(o, "boot_mean", jnum(u->boot_mean));
        json_object_set_new(o, "ci_low", jnum(u->ci_low));
        json_object_set_new(o, "ci_high", jnum(u->ci_high));
        json_object_set_new(o, "p", jnum(u->p));
        json_object_set_new(o, "replicates", json_integer(u->replicates));
        json_array_append_new(ut, o);
    }
    json_object_set_new(root, "utility", ut);
    if (r->utility_note) {
        json_object_set_new(root, "utility_note", json_string(r->utility_note));
    }

    if (r->has_anova) {
        const AnovaResult *a = &r->anova;
        json_t *o = json_object();
        json_object_set_new(o, "outcome", json_string(r->anova_outcome));
        json_object_set_new(o, "f", jnum(a->f));
        json_object_set_new(o, "df_between", jnum(a->df_between));
        json_object_set_new(o, "df_within", jnum(a->df_within));
        json_object_set_new(o, "p", jnum(a->p));
        json_object_set_new(o, "eta_sq", jnum(a->eta_sq));
        json_t *g = json_array();
        for (int i = 0; i < r->n_groups; i++) {
            json_t *x = json_object();
            json_object_set_new(x, "condition",
                                json_string(r->groups[i].condition));
            json_object_set_new(x, "n", json_integer(r->groups[i].n));
            json_object_set_new(x, "mean", jnum(r->groups[i].mean));
            json_object_set_new(x, "sd", jnum(r->groups[i].sd));
            json_array_append_new(g, x);
        }
        json_object_set_new(o, "groups", g);
        json_object_set_new(root, "anova", o);
    } else {
        json_object_set_new(root, "anova", json_null());
    }
    json_t *tk = json_array();
    for (int i = 0; i < r->n_tukey; i++) {
        const TukeyRow *t = &r->tukey[i];
        json_t *o = json_object();
        json_object_set_new(o, "a", json_string(t->a));
        json_object_set_new(o, "b", json_string(t->b));
        json_object_set_new(o, "diff", jnum(t->diff));
        json_object_set_new(o, "lwr", jnum(t->lwr));
        json_object_set_new(o, "upr", jnum(t->upr));
        json_object_set_new(o, "p_adj", jnum(t->p_adj));
        json_object_set_new(o, "vs_baseline", json_boolean(t->vs_baseline));
        json_array_append_new(tk, o);
    }
    json_object_set_new(root, "tukey", tk);

    json_t *rt = json_object(), *rows = json_array();
    for (int i = 0; i < r->n_ratings; i++) {
        const RatingRow *x = &r->ratings[i];
        json_t *o = json_object();
        json_object_set_new(o, "condition", json_string(x->condition));
        json_object_set_new(o, "n", json_integer(x->n));
        json_object_set_new(o, "mean", jnum(x->mean));
        json_object_set_new(o, "sd", jnum(x->sd));
        json_object_set_new(o, "boot_mean", jnum(x->boot_mean));
        json_object_set_new(o, "ci_low", jnum(x->ci_low));
        json_object_set_new(o, "ci_high", jnum(x->ci_high));
        json_array_append_new(rows, o);
    }
    json_object_set_new(rt, "by_condition", rows);
    if (r->has_logit) {
        const LogitFit *f = &r->logit;
        json_t *o = json_object();
        json_object_set_new(o, "n", json_integer(r->logit_n));
        json_object_set_new(o, "separation", json_boolean(f->separation));
        json_object_set_new(o, "converged", json_boolean(f->converged));
        json_object_set_new(o, "iterations", json_integer(f->iters));
        json_object_set_new(o, "intercept", jnum(f->b0));
        json_object_set_new(o, "intercept_se", jnum(f->se0));
        json_object_set_new(o, "slope", jnum(f->b1));
        json_object_set_new(o, "slope_se", jnum(f->se1));
        json_object_set_new(o, "slope_z", jnum(f->z1));
        json_object_set_new(o, "slope_p", jnum(f->p1));
        json_object_set_new(
            o, "slope_wald_ci",
            json_pack("[o, o]", jnum(r->b1_wald_low), jnum(r->b1_wald_high)));
        json_object_set_new(
            o, "slope_boot_ci",
            json_pack("[o, o]", jnum(r->b1_boot_low), jnum(r->b1_boot_high)));
        json_object_set_new(o, "deviance", jnum(f->deviance));
        json_object_set_new(o, "null_deviance", jnum(f->null_deviance));
        json_t *pred = json_array();
        for (int i = 0; i < 5; i++) {
            json_array_append_new(pred,
                                  json_pack("{s:i, s:o, s:o, s:o}", "rating",
                                            2 + i, "p", jnum(r->pred[i]),
                                            "ci_low", jnum(r->pred_low[i]),
                                            "ci_high", jnum(r->pred_high[i])));
        }
        json_object_set_new(o, "predicted", pred);
        json_object_set_new(rt, "logistic", o);
    } else {
        json_object_set_new(rt, "logistic", json_null());
    }
    json_object_set_new(root, "ratings", rt);

    json_t *rtt = json_array();
    for (int i = 0; i < r->n_rt; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "condition", json_string(r->rt[i].condition));
        json_object_set_new(o, "n_participants",
                            json_integer(r->rt[i].n_participants));
        json_object_set_new(o, "median_total_s", jnum(r->rt[i].median_s));
        json_object_set_new(o, "mean_total_s", jnum(r->rt[i].mean_s));
        json_array_append_new(rtt, o);
    }
    json_object_set_new(root, "rt", rtt);

    char *text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER |
                                      JSON_REAL_PRECISION(12));
    json_decref(root);
    if (!text) {
        return sim_fail(err, SIM_ERR_NOMEM, "report.json: out of memory");
    }
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_puts(&b, text);
    sim_buf_puts(&b, "\n");
    free(text);
    int rc = write_file(dir, "report.json", &b, err);
    sim_buf_free(&b);
    return rc;
}

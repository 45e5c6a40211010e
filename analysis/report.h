/*
** The results of one simlab-analyze run -- typed rows for callers and plots,
** and the tables of the report (analysis/table.h) -- and the writers that
** turn the tables into report.md, report.tex (booktabs), CSV files and
** report.json (jansson), and the rows into plots (cairo: PNG, SVG, PDF).
** Writers never compute statistics and know no particular table.
*/
#ifndef SIMLAB_ANALYSIS_REPORT_H
#define SIMLAB_ANALYSIS_REPORT_H

#include <stdint.h>

#include "common/sim_analysis.h"
#include "common/sim_clock.h"
#include "common/sim_decode.h"
#include "common/sim_error.h"
#include "analysis/stats.h"
#include "analysis/table.h"

enum { UTILITY_MEAN, UTILITY_TRAPEZOID, UTILITY_RATIO };

enum {
    FORMAT_MD = 1,
    FORMAT_TEX = 2,
    FORMAT_CSV = 4,
    FORMAT_JSON = 8,
    PLOT_PNG = 1,
    PLOT_SVG = 2,
    PLOT_PDF = 4
};

typedef struct AnalyzeOptions {
    int replicates;           /* --replicates B */
    uint64_t seed;            /* --seed S */
    int threads;              /* --threads N */
    const char *baseline;     /* --baseline NAME */
    int items_per_condition;  /* --items per-condition */
    int items_fixed;          /* --items none: resample users only */
    int p_hase;               /* --p-method hase */
    int boot_hase2020;        /* --bootstrap hase2020 */
    int drop_singular;        /* --drop-singular */
    int accuracy_participant; /* --accuracy participant */
    int utility_rule;         /* --utility: UTILITY_* */
    int max_catch_failures;   /* --max-catch-failures N; -1: engine verdict */
    int include_pilot;        /* --include-pilot */
    int include_simulated;    /* --include-simulated */
    int raw;                  /* --raw: CSV text cells as they are (no
                              ** quote before = + - @ tab CR) */
    unsigned formats;         /* --format: FORMAT_* bits */
    unsigned plots;           /* --plots: PLOT_* bits */
    int progress;             /* progress lines on stderr (progress.h)
                              ** when it is a terminal and clock is set */
    const SimWallClock *clk;  /* their clock (simlab-analyze's main.c);
                              ** NULL: none */
    int quiet;                /* no summary on stdout */
    int change_only;          /* library use (simulations): the change table
                              ** only, no utility, ANOVA or ratings */
    char csv_delimiter;       /* --delimiter of every --csv file (',') */
    SimEncoding csv_encoding; /* --encoding of every --csv file (UTF-8) */
    int no_glmm;              /* --no-glmm: skip the mixed model */
    int calibrate;            /* --calibrate N: null studies (0: none) */
    int primary;              /* --primary NAME (SimPrimaryTest); -1: the
                              ** study's, or the default */
    int look;                 /* --look K (1-based); 0: none */
    const char *plan_file;    /* --plan FILE (preregistration.json) */
    const struct Plan *plan;  /* its contents, read by analyze_main() */
    int null_study;           /* library use (calibration): only the tested
                              ** tables, no descriptive ones */
    const char *metrics_file; /* --metrics FILE (explanation metrics) */
    const struct SimMetrics *metrics; /* its contents, read by
                                      ** analyze_main() (or the caller's) */
} AnalyzeOptions;

typedef struct ExclusionRow {
    char *condition;
    char *reason; /* "pilot", "simulated", "catch", or the engine's */
    int participants;
    int catch_failed;     /* their failed catch trials (unanswered count) */
    int catch_unanswered; /* of those, the unanswered ones */
} ExclusionRow;

typedef struct ConditionCount {
    char *condition;
    int enrolled; /* participants with any row */
    int analysed; /* participants left after exclusions */
} ConditionCount;

typedef struct ChangeRow {
    char *subset; /* "all", "domain=<v>" or "test_type=<v>" */
    char *condition;
    int n_responses; /* (user, item) pairs answered in both pre and post */
    int n_participants;
    double pre_raw, pre_re, post, change;
    double boot_mean, ci_low, ci_high, p;
    int replicates; /* replicates with a valid value */
    int singular;   /* replicates whose random-effects fit was singular */
} ChangeRow;

typedef struct ReRow {
    char *subset;
    char *same_as; /* earlier subset holding exactly the same responses (its
                      results are repeated here), or NULL */
    double beta0, sigma;
    int singular;
    int n_responses, n_participants; /* the "User Avg" row */
    double pre_raw;
} ReRow;

typedef struct UtilityRow {
    char *condition;
    int n_participants;
    double *session_accuracy; /* [n_sessions] */
    double *utility_k;        /* [n_sessions] */
    double *uk_low, *uk_high; /* bootstrap CI of each Utility-K */
    double utility, boot_mean, ci_low, ci_high, p;
    int replicates;
    int is_baseline;
} UtilityRow;

typedef struct GroupSummary {
    char *condition;
    int n;
    double mean, sd;
} GroupSummary;

typedef struct TukeyRow {
    char *a, *b; /* comparison b - a */
    double diff, lwr, upr, p_adj;
    int vs_baseline;
} TukeyRow;

typedef struct RatingRow {
    char *condition;
    int n;
    double mean, sd, boot_mean, ci_low, ci_high;
} RatingRow;

/* Participant accuracy per condition and phase (catch trials excluded). */
typedef struct AccuracyRow {
    char condition[128];
    const char *phase; /* static: "pre", "post", "test", ... */
    int n_participants;
    double mean, sd, se, t_low, t_high; /* 95 % t interval of the mean */
} AccuracyRow;

/* Item flags of the item analysis (analysis/items.c). */
enum { ITEM_CEILING = 1, ITEM_FLOOR = 2, ITEM_BELOW_CHANCE = 4 };

/* One item of one phase: accuracy over every analysed participant. */
typedef struct ItemRow {
    char label[160]; /* "phase/domain/test_type/item" without empty parts */
    int n;           /* answers (catch trials excluded) */
    double accuracy, item_rest, p_below;
    double chance;  /* guessing's accuracy: mean of 1 / options, else 1/2 */
    unsigned flags; /* ITEM_* */
} ItemRow;

/* The mixed model (analysis/glmm_report.c). */
#define REPORT_GLMM_NAME 96
typedef struct GlmmTermRow {
    char name[REPORT_GLMM_NAME]; /* R's name: "phasepost:conditionlime" */
    double estimate, se, z, p, ci_low, ci_high; /* log-odds, Wald */
} GlmmTermRow;

typedef struct GlmmReRow {
    const char *group; /* static: "participant" or "item" */
    char name[REPORT_GLMM_NAME];
    double sd; /* logit scale */
} GlmmReRow;

typedef struct GlmmCorrRow {
    const char *group;
    char a[REPORT_GLMM_NAME], b[REPORT_GLMM_NAME];
    double corr;
} GlmmCorrRow;

typedef struct GlmmTryRow {
    const char *structure; /* static: "full", "uncorrelated", "intercepts" */
    char formula[256];
    int converged, singular;
    double loglik;
} GlmmTryRow;

typedef struct GlmmResult {
    int fitted;
    char formula[256];
    char baseline[REPORT_GLMM_NAME]; /* the reference condition */
    char *r_script;        /* an R script refitting the model with lme4 */
    const char *structure; /* the structure taken (static) */
    int chosen;            /* its index (GLMM_FULL, ...) */
    char *fallback;        /* why a simpler structure was taken, or NULL */
    char *note;            /* why there is no model, or NULL */
    int n_obs, n_participants, n_items, n_dropped;
    double loglik, aic;
    int converged, singular, vcov_hessian;
    GlmmTermRow *terms;
    int n_terms;
    GlmmReRow re[10];
    int n_re;
    GlmmCorrRow *corr;
    int n_corr;
    GlmmTryRow tried[3];
    int n_tried;
    double *theta; /* the chosen fit's covariance factors (n_theta) */
    int n_theta;
} GlmmResult;

/* The mixed model of error detection on verify trials
** (analysis/verify_glmm.c). */
typedef struct VerifyGlmm {
    int fitted;
    char formula[128];
    char baseline[REPORT_GLMM_NAME]; /* the reference condition */
    int n_obs, n_participants, n_items, converged, singular;
    GlmmTermRow *terms;
    int n_terms;
} VerifyGlmm;

/* The measured size of one test (analysis/calibrate.c). */
typedef struct CalibrationRow {
    const char *test;  /* static: "change", "utility", "glmm", "anova",
                       ** "tukey", "paired" */
    const char *table; /* static: the md table it goes under */
    char what[160];    /* condition, term or comparison */
    int studies;       /* null studies that gave this test a p-value */
    int rejected;      /* of them, p < 0.05 */
    double rate, ci_low, ci_high; /* Clopper-Pearson 95 % */
} CalibrationRow;

/* One contrast of the primary test (analysis/primary.c). */
typedef struct PrimaryRow {
    char condition[128];
    char contrast[200]; /* "phasepost:conditionLIME", "LIME - baseline" */
    double estimate;    /* on the result's scale */
    double ci_low, ci_high;
    double z;             /* the signed standardised statistic */
    double p, p_adjusted; /* p_adjusted: Holm's, or p without correction */
    double critical_z;    /* sequential: the boundary |z| was held to */
    const char *decision; /* static: "reject", "retain", "stop: reject",
                          ** "continue", "final: retain"; NULL: no test */
} PrimaryRow;

/* The primary test: the study's conclusion, decided before its data. */
typedef struct PrimaryResult {
    int test;           /* SimPrimaryTest; -1: none computed */
    const char *source; /* static: "study", "default for this design",
                        ** "command line" */
    double alpha;
    int holm;
    char formula[256]; /* "" when the test has none */
    const char *scale; /* static: "odds ratio", "points", "ratio", ... */
    char *note;        /* what the rows are, and why some are missing */
    PrimaryRow *rows;
    int n_rows;
    int any_reject; /* some row rejected */
    /* its size on this design: from --calibrate or the plan */
    const char *size_source; /* static: "calibrate", "plan", NULL */
    int size_studies, size_rejected;
    double size_rate, size_low, size_high;
    /* sequential looks of the study; look: --look K (0: none) */
    int n_looks;
    int looks[SIM_MAX_LOOKS];
    const char *spending; /* static */
    int look;
    double critical_z, alpha_spent;
    const char *decision; /* static: the study's decision at this look */
    /* --plan: the comparison with preregistration.json */
    int planned;       /* a plan was given */
    int matches;       /* no deviation */
    char **deviations; /* one sentence each */
    int n_deviations;
} PrimaryResult;

typedef struct RtRow {
    char *condition;
    int n_participants;
    double median_s, mean_s; /* total time per participant, seconds */
} RtRow;

typedef struct Report {
    AnalyzeOptions opt;
    char **sources;
    int n_sources;
    int n_rows_read;
    ExclusionRow *exclusions;
    int n_exclusions;
    ConditionCount *counts;
    int n_counts;
    char *warnings; /* lines about the data worth a look, or NULL */
    /* The reference condition of every comparison (NULL: none known) and
    ** where it came from ("--baseline", "the study's baseline (FILE
    ** (study 'ID'))", ...); screen_participants() sets both. */
    char *baseline;
    char *baseline_from;

    ChangeRow *change;
    int n_change;
    ReRow *re;
    int n_re;

    int n_sessions;
    int *sessions; /* session numbers */
    UtilityRow *utility;
    int n_utility;
    char *utility_note; /* why there is no utility table, or NULL */

    int has_anova;
    char *anova_outcome; /* which accuracy the ANOVA is about */
    AnovaResult anova;
    GroupSummary *groups;
    int n_groups;
    TukeyRow *tukey;
    int n_tukey;

    RatingRow *ratings;
    int n_ratings;
    int has_logit;
    LogitFit logit;
    int logit_n;
    double b1_wald_low, b1_wald_high, b1_boot_low, b1_boot_high;
    /* P(correct) at the ratings pred_rating[0..n_pred): the interior
    ** points 2..K-1 of a 1..K scale (all points when K < 4) */
    int n_pred;
    int pred_rating[11];
    double pred[11], pred_low[11], pred_high[11];
    int rating_points;       /* K of the 1..K scale the ratings used */
    const char *rating_from; /* static: "study", "sidecar", "data" */

    AccuracyRow *accuracy; /* one block: no strings to free */
    int n_accuracy;
    ItemRow *items; /* one block: no strings to free */
    int n_items;

    RtRow *rt;
    int n_rt;

    GlmmResult glmm;
    VerifyGlmm verify_glmm;
    PrimaryResult primary;

    /* --calibrate N: the measured size of each test (analysis/calibrate.c) */
    CalibrationRow *calibration;
    int n_calibration;

    /* The tables of the report, in the order of report.md; each
    ** computation appends its own. */
    Table **tables;
    int n_tables;
    size_t cap_tables;
} Report;

void report_free(Report *r); /* frees the contents; NULL is a no-op */

/* Appends a table to r (see table_new()); NULL when out of memory. */
Table *report_add_table(Report *r, const char *key, unsigned formats,
                        const TableColumn *cols, int n_cols);

/* The table of r with key key (the first), or NULL. */
Table *report_table(const Report *r, const char *key);

/* The name of a --utility rule ("mean", "trapezoid", "ratio"). */
const char *report_utility_rule_name(int rule);

/* Writers: each creates or replaces its files in dir -- report.md,
** report.tex, KEY.csv for every table shown in csv, report.json -- from
** r->tables and the run's settings. A table whose puts did not match its
** columns (or ran out of memory) fails the write. */
int report_write_md(const Report *r, const char *dir, SimError *err);
int report_write_tex(const Report *r, const char *dir, SimError *err);
int report_write_csv(const Report *r, const char *dir, SimError *err);
int report_write_json(const Report *r, const char *dir, SimError *err);
int report_write_plots(const Report *r, const char *dir, unsigned kinds,
                       SimError *err);

/* The output folder of a run. Outputs go to a fresh folder beside the
** target (same parent: .NAME.tmp-PID-K); report_dir_commit() fsyncs its
** files and itself and swaps it into place in one step (renameat2
** RENAME_EXCHANGE; two renames where the file system lacks it), then
** removes the previous run's folder. A failed or killed run leaves the
** previous folder as it was. */
typedef struct ReportDir {
    char final[4096];  /* the target folder */
    char parent[4096]; /* its parent */
    char tmp[4200];    /* where the outputs are written */
    int replace;       /* the target exists (its files are ours) */
    int active;        /* tmp exists and is ours */
} ReportDir;

/* Fails (SIM_ERR_USAGE) when out is a file, or an existing folder that
** holds anything simlab-analyze does not write (another folder, a
** database, notes.txt): the folder is replaced as a whole. */
int report_dir_begin(ReportDir *d, const char *out, SimError *err);
int report_dir_commit(ReportDir *d, SimError *err);
void report_dir_abort(ReportDir *d); /* removes tmp; no-op after commit */

/* Writes every output of r (r->opt.formats and plots) into out through a
** ReportDir. */
int report_write_dir(const Report *r, const char *out, SimError *err);

/* Fails (SIM_ERR_USAGE) when out would clobber an input: out is one of
** inputs (a database, its -wal, -shm or -journal file, a CSV), an input
** lies inside the folder out, or out is a file (e.g. an SQLite database);
** or when report_dir_begin() would refuse the existing folder out. Lets
** simlab-analyze refuse before it computes. */
int report_check_output(const char *out, const char *const *inputs, int n,
                        SimError *err);

/* Releases the font caches cairo and fontconfig keep after plotting. Call
** once at exit (leak checkers report them otherwise); no plotting after. */
void report_plots_shutdown(void);

#endif

/*
** simlab-analyze: parses argv into AnalyzeOptions and calls analyze_main().
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analyze.h"
#include "common/sim_alloc.h"
#include "common/sim_clock.h"
#include "common/sim_escape.h"
#include "common/sim_text.h"

static const char SYNOPSIS[] =
    "Usage: simlab-analyze [DB|URL ...] [--csv FILE ...] --out DIR "
    "[OPTIONS]\n"
    "  or:  simlab-analyze --help | --version\n";

/* The manual page simlab-analyze(1) is made from this text (help2man,
** analysis/CMakeLists.txt). */
static void help(FILE *f)
{
    fputs(SYNOPSIS, f);
    fputs(
        "\n"
        "Reads the responses of simlab databases (DB), of PostgreSQL sync\n"
        "servers (URL: postgresql://...) and of simlab long-format CSV files,\n"
        "and writes the accuracy-change and Utility tables, ANOVA, ratings,\n"
        "reaction times and exclusions (Markdown, LaTeX, CSV, JSON) with\n"
        "their plots (PNG, SVG, PDF) into DIR.\n"
        "\n"
        "Options:\n"
        "  --out DIR               where the tables and plots go (required)\n"
        "  --csv FILE              a long-format CSV to read (repeatable)\n"
        "  --replicates B          bootstrap replicates (10000)\n"
        "  --seed S                random seed (1)\n"
        "  --threads N             worker threads (1)\n"
        "  --baseline NAME         the reference condition (the study's\n"
        "                          baseline)\n"
        "  --items global|per-condition|none\n"
        "                          item draw (global; none: users only, for\n"
        "                          comparison)\n"
        "  --p-method percentile|hase\n"
        "                          bootstrap p-value (percentile)\n"
        "  --bootstrap crossed|hase2020\n"
        "                          resampling (crossed)\n"
        "  --drop-singular         drop replicates with a singular "
        "random-effects\n"
        "                          fit\n"
        "  --accuracy pooled|participant\n"
        "                          accuracy of a condition (pooled)\n"
        "  --utility mean|trapezoid|ratio\n"
        "                          Utility from the Utility-K curve (mean)\n"
        "  --max-catch-failures N  re-derive the catch-trial exclusion\n"
        "  --include-pilot         keep pilot participants\n"
        "  --include-simulated     keep simulated participants\n"
        "  --delimiter ,|;|tab     field delimiter of the --csv files "
        "(,)\n"
        "  --encoding NAME         encoding of the --csv files (utf-8;\n"
        "                          windows-1252, windows-1256, gbk, "
        "shift_jis,\n"
        "                          big5, utf-16 with a byte order mark, "
        "...)\n"
        "  --format md,tex,csv,json       outputs (all)\n"
        "  --plots png,svg,pdf     plots (all; 'none' for none)\n"
        "  --raw                   CSV text cells as they are (no quote "
        "before\n"
        "                          = + - @)\n"
        "  --no-glmm               skip the mixed-effects logistic model\n"
        "  --calibrate N           measure each test's size on N null\n"
        "                          studies simulated from the fitted model\n"
        "  --primary NAME          the primary test instead of the study's\n"
        "                          (glmm, paired_t, anova, change_bootstrap,\n"
        "                          utility_bootstrap, glmm_error_detection);\n"
        "                          a deviation from a plan\n"
        "  --look K                sequential look K of the study's looks:\n"
        "                          decide at its boundary\n"
        "  --plan FILE             compare with preregistration.json (simlab\n"
        "                          plan): confirmatory or exploratory\n"
        "  --metrics FILE          explanation metrics (method, item, metric,\n"
        "                          value): how they rank the methods\n"
        "                          against people; added to those stored\n"
        "                          with the study, the file's values win\n"
        "  --quiet                 no summary on stdout, no progress "
        "lines on\n"
        "                          stderr (drawn when it is a terminal and a "
        "stage\n"
        "                          runs over 2 s)\n"
        "  --help                  this text\n"
        "  --version               the version\n"
        "\n"
        "Examples:\n"
        "  simlab-analyze data/study.db --out report\n"
        "  simlab-analyze --csv other-lab.csv --delimiter ';' --out report\n"
        "\n"
        "Documentation: analysis.md in /usr/share/doc/simlab (docs/ in\n"
        "simlab's source); report.json from Python: python.md there.\n",
        f);
}

static void usage(FILE *f)
{
    fputs(SYNOPSIS, f);
    fputs("Try 'simlab-analyze --help' for the options.\n", f);
}

static int parse_int_arg(const char *opt, const char *v, long lo, long hi,
                         long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end != '\0' || x < lo || x > hi) {
        fprintf(stderr,
                "simlab-analyze: %s: expected an integer in [%ld, "
                "%ld], got '%s'\n",
                opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

/* Parses a comma list of names into bits (names[i] -> 1 << i). */
static int parse_list(const char *opt, const char *v, const char *const *names,
                      int n, unsigned *out)
{
    *out = 0;
    if (strcmp(v, "none") == 0) {
        return 0;
    }
    const char *p = v;
    while (*p) {
        size_t len = strcspn(p, ",");
        int found = 0;
        for (int i = 0; i < n; i++) {
            if (strlen(names[i]) == len && strncmp(p, names[i], len) == 0) {
                *out |= 1u << i;
                found = 1;
            }
        }
        if (!found) {
            fprintf(stderr, "simlab-analyze: %s: unknown value '%.*s'\n", opt,
                    (int)len, p);
            return -1;
        }
        p += len;
        if (*p == ',') {
            p++;
        }
    }
    return 0;
}

static int pick(const char *opt, const char *v, const char *a, const char *b,
                const char *c, int *out)
{
    if (strcmp(v, a) == 0) {
        *out = 0;
    } else if (strcmp(v, b) == 0) {
        *out = 1;
    } else if (c && strcmp(v, c) == 0) {
        *out = 2;
    } else {
        fprintf(stderr,
                "simlab-analyze: %s: expected %s or %s%s%s, got "
                "'%s'\n",
                opt, a, b, c ? " or " : "", c ? c : "", v);
        return -1;
    }
    return 0;
}

/* A flag without a value into o: 1 when a is one. */
static int set_flag(AnalyzeOptions *o, const char *a)
{
    if (strcmp(a, "--drop-singular") == 0) {
        o->drop_singular = 1;
    } else if (strcmp(a, "--include-pilot") == 0) {
        o->include_pilot = 1;
    } else if (strcmp(a, "--include-simulated") == 0) {
        o->include_simulated = 1;
    } else if (strcmp(a, "--quiet") == 0) {
        o->quiet = 1;
    } else if (strcmp(a, "--raw") == 0) {
        o->raw = 1;
    } else if (strcmp(a, "--no-glmm") == 0) {
        o->no_glmm = 1;
    } else {
        return 0;
    }
    return 1;
}

/* Option a with its value v into o (--csv and --out into the inputs and
** *out); 1 after saying what is wrong. */
static int set_value(AnalyzeOptions *o, const char *a, const char *v,
                     const char **csvs, int *n_csvs, const char **out)
{
    static const char *const formats[] = {"md", "tex", "csv", "json"};
    static const char *const plots[] = {"png", "svg", "pdf"};
    long x = 0; /* set by the parsers unless they fail (bad) */
    int k = 0;
    int bad = 0;
    if (strcmp(a, "--csv") == 0) {
        csvs[(*n_csvs)++] = v;
    } else if (strcmp(a, "--out") == 0) {
        *out = v;
    } else if (strcmp(a, "--replicates") == 0) {
        bad = parse_int_arg(a, v, 0, 100000000, &x);
        o->replicates = (int)x;
    } else if (strcmp(a, "--seed") == 0) {
        char *end;
        errno = 0;
        o->seed = strtoull(v, &end, 10);
        if (errno || *end || v[0] == '-' || v[0] == '\0') {
            fprintf(stderr,
                    "simlab-analyze: --seed: expected a "
                    "non-negative integer, got '%s'\n",
                    v);
            bad = 1;
        }
    } else if (strcmp(a, "--threads") == 0) {
        bad = parse_int_arg(a, v, 1, 256, &x);
        o->threads = (int)x;
    } else if (strcmp(a, "--baseline") == 0) {
        o->baseline = v;
    } else if (strcmp(a, "--items") == 0) {
        bad = pick(a, v, "global", "per-condition", "none", &k);
        o->items_per_condition = k == 1;
        o->items_fixed = k == 2;
    } else if (strcmp(a, "--p-method") == 0) {
        bad = pick(a, v, "percentile", "hase", NULL, &k);
        o->p_hase = k;
    } else if (strcmp(a, "--bootstrap") == 0) {
        bad = pick(a, v, "crossed", "hase2020", NULL, &k);
        o->boot_hase2020 = k;
    } else if (strcmp(a, "--accuracy") == 0) {
        bad = pick(a, v, "pooled", "participant", NULL, &k);
        o->accuracy_participant = k;
    } else if (strcmp(a, "--utility") == 0) {
        bad = pick(a, v, "mean", "trapezoid", "ratio", &k);
        o->utility_rule = k == 0   ? UTILITY_MEAN
                          : k == 1 ? UTILITY_TRAPEZOID
                                   : UTILITY_RATIO;
    } else if (strcmp(a, "--calibrate") == 0) {
        bad = parse_int_arg(a, v, 0, 1000000, &x);
        o->calibrate = (int)x;
    } else if (strcmp(a, "--primary") == 0) {
        o->primary = sim_primary_from_name(v);
        if (o->primary < 0) {
            const char *names[SIM_PRIMARY_COUNT];
            char list[256] = "";
            for (int t = 0; t < SIM_PRIMARY_COUNT; t++) {
                names[t] = sim_primary_name((SimPrimaryTest)t);
                size_t at = strlen(list);
                snprintf(list + at, sizeof list - at, "%s%s", t ? ", " : "",
                         names[t]);
            }
            const char *near = sim_suggest(v, names, SIM_PRIMARY_COUNT);
            fprintf(stderr,
                    "simlab-analyze: --primary: '%s' is not one of %s%s%s%s\n",
                    v, list, near ? " (did you mean '" : "", near ? near : "",
                    near ? "'?)" : "");
            bad = 1;
        }
    } else if (strcmp(a, "--look") == 0) {
        bad = parse_int_arg(a, v, 1, SIM_MAX_LOOKS, &x);
        o->look = (int)x;
    } else if (strcmp(a, "--plan") == 0) {
        o->plan_file = v;
    } else if (strcmp(a, "--metrics") == 0) {
        o->metrics_file = v;
    } else if (strcmp(a, "--max-catch-failures") == 0) {
        bad = parse_int_arg(a, v, 0, 1000000, &x);
        o->max_catch_failures = (int)x;
    } else if (strcmp(a, "--delimiter") == 0) {
        if (dataset_parse_delimiter(v, &o->csv_delimiter) != 0) {
            fprintf(stderr,
                    "simlab-analyze: --delimiter: expected ',', ';' or "
                    "tab, got '%s'\n",
                    v);
            bad = 1;
        }
    } else if (strcmp(a, "--encoding") == 0) {
        if (dataset_parse_encoding(v, &o->csv_encoding) != 0) {
            fprintf(stderr,
                    "simlab-analyze: --encoding: '%s' is not an encoding "
                    "iconv knows (utf-8, windows-1252, windows-1256, "
                    "gbk, shift_jis, big5, ...; `iconv -l` lists them)\n",
                    v);
            bad = 1;
        }
    } else if (strcmp(a, "--format") == 0) {
        bad = parse_list(a, v, formats, 4, &o->formats);
    } else if (strcmp(a, "--plots") == 0) {
        bad = parse_list(a, v, plots, 3, &o->plots);
    } else {
        fprintf(stderr, "simlab-analyze: unknown option '%s'\n", a);
        bad = 1;
    }
    return bad;
}

int main(int argc, char **argv)
{
    AnalyzeOptions o;
    analyze_options_default(&o);
    const char **dbs = calloc((size_t)argc, sizeof *dbs);
    const char **csvs = calloc((size_t)argc, sizeof *csvs);
    int n_dbs = 0, n_csvs = 0, status = 2;
    const char *out = NULL;
    if (!dbs || !csvs) {
        fprintf(stderr, "simlab-analyze: out of memory\n");
        goto done;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help(stdout);
            status = 0;
            goto done;
        }
        if (strcmp(a, "--version") == 0) {
            printf("simlab-analyze %s\n", SIMLAB_VERSION);
            status = 0;
            goto done;
        }
        if (a[0] != '-' || a[1] != '-') {
            if (a[0] == '-') {
                fprintf(stderr, "simlab-analyze: unknown option '%s'\n", a);
                goto done;
            }
            dbs[n_dbs++] = a;
            continue;
        }
        if (set_flag(&o, a)) {
            continue;
        }
        static const char *const valued[] = {
            "--csv",       "--out",      "--replicates", "--seed",
            "--threads",   "--baseline", "--items",      "--p-method",
            "--bootstrap", "--accuracy", "--utility",    "--max-catch-failures",
            "--format",    "--plots",    "--delimiter",  "--encoding",
            "--calibrate", "--primary",  "--look",       "--plan",
            "--metrics"};
        int known = 0;
        for (size_t q = 0; q < sizeof valued / sizeof valued[0]; q++) {
            known |= strcmp(a, valued[q]) == 0;
        }
        if (!known) {
            fprintf(stderr, "simlab-analyze: unknown option '%s'\n", a);
            goto done;
        }
        if (!v) {
            fprintf(stderr, "simlab-analyze: %s needs a value\n", a);
            goto done;
        }
        i++;
        if (set_value(&o, a, v, csvs, &n_csvs, &out)) {
            goto done;
        }
    }
    if (!out || n_dbs + n_csvs == 0) {
        usage(stderr);
        goto done;
    }
    SimError err;
    sim_error_clear(&err);
    for (int i = 0; i < n_csvs; i++) {
        dbs[n_dbs + i] = csvs[i]; /* every input, for the check below */
    }
    if (report_check_output(out, dbs, n_dbs + n_csvs, &err) != SIM_OK) {
        fprintf(stderr, "simlab-analyze: %s\n", err.msg);
        goto done;
    }
    /* progress lines on stderr when it is a terminal, not with --quiet */
    o.progress = !o.quiet;
    o.clk = sim_clock_real();
    int rc = analyze_main(&o, dbs, n_dbs, csvs, n_csvs, out, &err);
    if (rc != SIM_OK) {
        sim_escape_print(stderr, "simlab-analyze: ", err.msg);
        status = rc == SIM_ERR_USAGE ? 2 : 1; /* e.g. an unknown --baseline */
        goto done;
    }
    status = 0;
done:
    report_plots_shutdown();
    free(dbs);
    free(csvs);
    return status;
}

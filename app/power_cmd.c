/*
** `simlab power`: the command line (power_main). The study's simulation is
** in power_study.c; the tests, summaries and files are the analysis
** library's (analysis/power.h).
*/
#include "app/power_cmd.h"

#include "analysis/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_P 64

/* ----------------------------------------------------------------- argv */

int power_cmd_parse_long(const char *s, long lo, long hi, long *out)
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
          "         [--drop-singular] [--baseline NAME] [--screening N]\n"
          "         [--test primary|bootstrap|users|glmm|t|anova]\n"
          "         [--null-studies S]\n"
          "         [--coverage] [--quiet]\n",
          stderr);
    return 2;
}

int power_main(int argc, char **argv)
{
    PowerStudyOptions so;
    power_study_options_default(&so);
    PowerStudyOptions *s = &so;
    PowerOptions *o = &so.power;
    o->progress = isatty(2);
    const char *cells[MAX_P], *pilots[MAX_P];
    s->cells = cells;
    s->pilots = pilots;
    const char *out = NULL;
    int have_sizes = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        SimError err;
        sim_error_clear(&err);
        if (strcmp(a, "--quiet") == 0) {
            o->progress = 0;
            continue;
        }
        if (strcmp(a, "--drop-singular") == 0) {
            o->drop_singular = 1;
            continue;
        }
        if (strcmp(a, "--coverage") == 0) {
            o->coverage = 1;
            continue;
        }
        if (a[0] != '-') {
            if (s->bundle_dir) {
                return fail("unexpected argument", a);
            }
            s->bundle_dir = a;
            continue;
        }
        if (!v) {
            return fail("missing value after", a);
        }
        i++;
        if (strcmp(a, "--participants") == 0) {
            if (power_parse_sizes(v, o, &err) != SIM_OK) {
                fprintf(stderr, "simlab power: %s\n", err.msg);
                return 2;
            }
            have_sizes = 1;
        } else if (strcmp(a, "--studies") == 0) {
            if (power_cmd_parse_long(v, 1, 1000000, &n) != 0) {
                return fail("--studies: expected 1 to 1000000, got", v);
            }
            o->studies = (int)n;
        } else if (strcmp(a, "--replicates") == 0) {
            if (power_cmd_parse_long(v, 1, 1000000, &n) != 0) {
                return fail("--replicates: expected 1 to 1000000, got", v);
            }
            o->replicates = (int)n;
        } else if (strcmp(a, "--threads") == 0) {
            if (power_cmd_parse_long(v, 1, 256, &n) != 0) {
                return fail("--threads: expected 1 to 256, got", v);
            }
            o->threads = (int)n;
        } else if (strcmp(a, "--seed") == 0) {
            if (power_cmd_parse_long(v, 0, 0x7fffffffL, &n) != 0) {
                return fail("--seed: expected a non-negative integer, got", v);
            }
            o->seed = (uint64_t)n;
        } else if (strcmp(a, "--alpha") == 0) {
            if (parse_real(v, 1e-6, 0.5, &o->alpha) != 0) {
                return fail("--alpha: expected 0.000001 to 0.5, got", v);
            }
        } else if (strcmp(a, "--participant-sd") == 0 ||
                   strcmp(a, "--item-sd") == 0) {
            if (parse_real(v, 0, 10,
                           a[2] == 'p' ? &s->participant_sd : &s->item_sd) !=
                0) {
                return fail("SD: expected 0 to 10, got", v);
            }
        } else if (strcmp(a, "--p") == 0) {
            if (s->n_cells == MAX_P) {
                return fail("too many --p options at", v);
            }
            cells[s->n_cells++] = v;
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
            o->items = k;
        } else if (strcmp(a, "--pilot") == 0) {
            if (s->n_pilots == MAX_P) {
                return fail("too many --pilot options at", v);
            }
            pilots[s->n_pilots++] = v;
        } else if (strcmp(a, "--test") == 0) {
            int m = strcmp(v, "primary") == 0 ? 0 : power_parse_method(v);
            if (m < 0) {
                return fail("--test: expected primary, bootstrap, users, "
                            "glmm, t or anova, got",
                            v);
            }
            o->method = (PowerMethod)m;
            s->primary = m == 0;
        } else if (strcmp(a, "--null-studies") == 0) {
            if (power_cmd_parse_long(v, 0, 1000000, &n) != 0) {
                return fail("--null-studies: expected 0 to 1000000, got", v);
            }
            o->null_studies = (int)n;
        } else if (strcmp(a, "--screening") == 0) {
            if (power_cmd_parse_long(v, 0, 100000, &n) != 0) {
                return fail("--screening: expected 0 to 100000, got", v);
            }
            s->screening = (int)n;
        } else if (strcmp(a, "--baseline") == 0) {
            s->baseline = v;
        } else if (strcmp(a, "--out") == 0) {
            out = v;
        } else {
            return fail("unknown option", a);
        }
    }
    if (!s->bundle_dir || !out) {
        return fail("DIR and --out are required (and --participants, but for "
                    "a study with sequential looks); got",
                    s->bundle_dir ? s->bundle_dir : "");
    }
    (void)have_sizes; /* no sizes: the study's looks, or an error */
    SimError err;
    sim_error_clear(&err);
    PowerResult *r = NULL;
    int rc = power_study_run(s, &r, &err);
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
        power_n_text(r, &r->conds[c].n80, a, sizeof a);
        printf("%-12s N for 80 %% power: %s\n", r->conds[c].id,
               r->conds[c].null_effect ? "(no effect)" : a);
    }
    printf("simlab power: wrote %s/power.{json,md,png,svg,pdf}\n", out);
    power_free(r);
    return 0;
}

/*
** report.json "glmm.r": an R script that refits the report's mixed model
** with lme4 from the exported long-format CSV -- the same screening, rows,
** factor levels (the reference first), item keys and the numeric dummies
** of the slopes (an uncorrelated "||" term of a factor would be another
** model in lme4) -- and leaves it in `fit`. Text only; no R is run here.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/glmm_design.h"
#include "common/sim_alloc.h"

/* s as an R string literal. */
static void r_string(SimBuf *b, const char *s)
{
    sim_buf_puts(b, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') {
            sim_buf_printf(b, "\\%c", *c);
        } else if (*c == '\n') {
            sim_buf_puts(b, "\\n");
        } else if (*c == '\t') {
            sim_buf_puts(b, "\\t");
        } else if (*c < 0x20 || *c == 0x7f) {
            sim_buf_printf(b, "\\x%02x", *c);
        } else {
            sim_buf_append(b, (const char *)c, 1);
        }
    }
    sim_buf_puts(b, "\"");
}

/* A comment line: s with line breaks as spaces. */
static void r_comment(SimBuf *b, const char *s)
{
    sim_buf_puts(b, "# ");
    for (const char *c = s; *c; c++) {
        sim_buf_append(b, *c == '\n' || *c == '\r' ? " " : c, 1);
    }
    sim_buf_puts(b, "\n");
}

/* The screening of simlab-analyze's run o, as R. */
static void screening(SimBuf *b, const AnalyzeOptions *o)
{
    sim_buf_puts(b,
                 "# Screening as simlab-analyze's run: a participant is pilot, "
                 "simulated or\n# excluded when any of its rows says so.\n"
                 "pid <- col(\"participant\")\n"
                 "any_of <- function(x) tapply(x, pid, any)\n"
                 "drop <- rep(FALSE, length(unique(pid)))\n"
                 "names(drop) <- names(any_of(flag(\"pilot\")))\n");
    if (!o->include_pilot) {
        sim_buf_puts(b, "drop <- drop | any_of(flag(\"pilot\"))\n");
    }
    if (!o->include_simulated) {
        sim_buf_puts(b, "drop <- drop | any_of(flag(\"simulated\"))\n");
    }
    if (o->max_catch_failures < 0) {
        sim_buf_puts(b, "drop <- drop | any_of(flag(\"excluded\"))\n");
        return;
    }
    sim_buf_printf(
        b,
        "# --max-catch-failures %d: more than %d failed catch trials "
        "(wrong or\n# unanswered) exclude; the engine's own catch-trial "
        "exclusions do not.\n"
        "reason <- col(\"exclusion_reason\")\n"
        "if (file.exists(side) && requireNamespace(\"jsonlite\", quietly = "
        "TRUE)) {\n"
        "    for (p in jsonlite::fromJSON(side, simplifyVector = "
        "FALSE)$participants)\n"
        "        if (!is.null(p$exclusion_reason))\n"
        "            reason[pid == p$id & reason == \"\"] <- "
        "p$exclusion_reason\n"
        "}\n"
        "engine_catch <- tapply(grepl(\"catch\", reason), pid, any)\n"
        "drop <- drop | (any_of(flag(\"excluded\")) & !engine_catch)\n"
        "failed <- tapply(flag(\"is_catch\") & !(col(\"correct\") %%in%% "
        "c(\"1\", \"true\")), pid, sum)\n"
        "drop <- drop | failed > %d\n",
        o->max_catch_failures, o->max_catch_failures, o->max_catch_failures);
}

/* The conditions with model rows, in the order of the screen (the
** reference first). */
static int used_conditions(const Dataset *ds, const Screen *sc,
                           const GlmmDesign *d, int *used)
{
    int n = 0;
    memset(used, 0, (size_t)sc->n_conds * sizeof(int));
    for (int i = 0; i < d->n; i++) {
        used[sc->cond_index[ds->rows[d->row[i]].condition]] = 1;
    }
    for (int c = 0; c < sc->n_conds; c++) {
        n += used[c];
    }
    return n;
}

/* The factors, the dummies of the slopes, the call. */
static void model(SimBuf *b, const Dataset *ds, const Screen *sc,
                  const GlmmDesign *d, const int *used, const char *formula)
{
    sim_buf_puts(b, "m$participant <- factor(m$participant)\n"
                    "# items are keyed by domain, test type and id, as in "
                    "simlab\n"
                    "m$item <- factor(paste(m$domain, m$test_type, m$item, "
                    "sep = \"\\r\"))\n"
                    "m$condition <- factor(m$condition, levels = c(");
    int first = 1;
    for (int pass = 0; pass < 2; pass++) { /* the reference first */
        for (int c = 0; c < sc->n_conds; c++) {
            if (used[c] && (c == d->base) == (pass == 0)) {
                sim_buf_puts(b, first ? "" : ", ");
                r_string(b, dataset_str(ds, sc->conds[c]));
                first = 0;
            }
        }
    }
    sim_buf_puts(b, "))\n");
    if (d->kind == GLMM_PREPOST) {
        sim_buf_puts(b, "m$phase <- factor(m$phase, levels = c(\"pre\", "
                        "\"post\"))\n");
    }
    int sessions = 0;
    for (int j = 0; j < d->p; j++) {
        sessions |= d->col_kind[j] == GLMM_COL_SESSION;
    }
    if (sessions) {
        sim_buf_puts(b, "m$session <- factor(m$session, levels = "
                        "as.character(sort(unique(as.integer(m$session)))))"
                        "\n");
    }
    if (d->kz > 1) {
        sim_buf_puts(b, "# numeric dummies of the participant term's "
                        "slopes, named as simlab names them\n");
    }
    for (int a = 1; a < d->kz; a++) {
        const char *z = d->znames[a];
        sim_buf_puts(b, "m[[");
        r_string(b, z);
        if (strcmp(z, "phasepost") == 0) {
            sim_buf_puts(b, "]] <- as.numeric(m$phase == \"post\")\n");
        } else {
            sim_buf_puts(b, "]] <- as.numeric(m$condition == ");
            r_string(b, z + strlen("condition"));
            sim_buf_puts(b, ")\n");
        }
    }
    sim_buf_printf(b,
                   "fit <- glmer(%s, data = m, family = binomial,\n"
                   "             control = glmerControl(tolPwrss = 1e-13))\n",
                   formula);
}

int glmm_r_script(const Dataset *ds, const Screen *sc, const GlmmDesign *d,
                  const AnalyzeOptions *o, const Report *r, char **out)
{
    *out = NULL;
    const GlmmResult *g = &r->glmm;
    int *used = sim_calloc((size_t)sc->n_conds + 1, sizeof(int));
    if (!used) {
        return -1;
    }
    used_conditions(ds, sc, d, used);
    SimBuf b;
    sim_buf_init(&b);
    sim_buf_printf(
        &b,
        "# simlab-analyze's mixed-effects logistic model (simlab %s), "
        "refitted with lme4:\n"
        "#   Rscript glmm.R export.csv\n"
        "# export.csv: the long-format CSV of `simlab export` (or the CSV "
        "simlab-analyze\n# read); its sidecar export.csv.json beside it. The "
        "fitted model is left in `fit`.\n"
        "# simlab fitted: %s (random effects: %s)\n"
        "# simlab's log-likelihood: %.6f\n",
        SIMLAB_VERSION, g->formula, g->structure, g->loglik);
    sim_buf_puts(&b, "suppressMessages(library(lme4))\n"
                     "csv <- commandArgs(trailingOnly = TRUE)[1]\n"
                     "if (is.na(csv)) stop(\"usage: Rscript glmm.R "
                     "export.csv\")\n"
                     "side <- paste0(csv, \".json\")\n"
                     "d <- read.csv(csv, colClasses = \"character\", "
                     "na.strings = character(0),\n"
                     "              check.names = FALSE, encoding = "
                     "\"UTF-8\")\n"
                     "col <- function(name) if (is.null(d[[name]])) "
                     "rep(\"\", nrow(d)) else d[[name]]\n"
                     "flag <- function(name) col(name) %in% c(\"1\", "
                     "\"true\")\n");
    /* where it came from, without the source's name: the same script
    ** from a server and from its station files */
    const char *why =
        !r->baseline ? "the first condition of the data: no "
                       "baseline is known"
        : strncmp(r->baseline_from, "the study's baseline", 20) == 0
            ? "the study's baseline"
            : r->baseline_from;
    char from[700];
    snprintf(from, sizeof from, "The reference condition: %s (%s).",
             g->baseline, why);
    r_comment(&b, from);
    sim_buf_puts(&b, "ref <- ");
    r_string(&b, g->baseline);
    sim_buf_puts(
        &b, "\nif (file.exists(side) && requireNamespace(\"jsonlite\", "
            "quietly = TRUE)) {\n"
            "    s <- jsonlite::fromJSON(side, simplifyVector = FALSE)\n"
            "    b <- unlist(lapply(s$studies, function(x) "
            "x$definition$baseline))\n"
            "    if (length(b) > 0 && !(ref %in% b))\n"
            "        message(\"the sidecar's study names the baseline '\", "
            "b[1],\n"
            "                \"'; simlab-analyze took '\", ref, \"'\")\n"
            "}\n");
    screening(&b, o);
    const char *phases = d->kind == GLMM_PREPOST ? "c(\"pre\", \"post\")"
                         : d->kind == GLMM_TEST  ? "\"test\""
                                                 : "\"post\"";
    sim_buf_printf(&b,
                   "# the rows of the model: analysed participants, no "
                   "catch trials, answered ones\n"
                   "y <- rep(NA_real_, nrow(d))\n"
                   "y[col(\"correct\") %%in%% c(\"1\", \"true\")] <- 1\n"
                   "y[col(\"correct\") %%in%% c(\"0\", \"false\")] <- 0\n"
                   "keep <- !drop[pid] & !flag(\"is_catch\") & !is.na(y) &\n"
                   "    !flag(\"timed_out\") & col(\"phase\") %%in%% %s\n"
                   "m <- data.frame(participant = pid, condition = "
                   "col(\"condition\"),\n"
                   "                phase = col(\"phase\"), item = "
                   "col(\"item\"), domain = col(\"domain\"),\n"
                   "                test_type = col(\"test_type\"), session "
                   "= col(\"session\"),\n"
                   "                correct = y, stringsAsFactors = "
                   "FALSE)[keep, ]\n",
                   phases);
    model(&b, ds, sc, d, used, g->formula);
    sim_buf_puts(&b, "print(summary(fit))\n"
                     "cat(\"log-likelihood\", formatC(as.numeric(logLik(fit)), "
                     "format = \"f\", digits = 6), \"\\n\")\n");
    sim_free(used);
    if (b.oom) {
        sim_buf_free(&b);
        return -1;
    }
    *out = sim_strdup(sim_buf_cstr(&b));
    sim_buf_free(&b);
    return *out ? 0 : -1;
}

/*
** simlab-gen: regenerates the demo study bundles.
**   simlab-gen [--seed N] [--out DIR] [--report]
** Default: seed GEN_DEFAULT_SEED into assets/studies (run from the
** repository root). --report also measures the models and prints the
** numbers that docs/demo-studies.md quotes.
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stimuli/gen/gen.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: simlab-gen [--seed N] [--out DIR] [--report]\n"
            "Writes the demo study bundles (default: --seed %d --out "
            "assets/studies).\n",
            GEN_DEFAULT_SEED);
}

static void print_report(const GenReport *r)
{
    const ImgReport *im = &r->image;
    printf("image: biased model accuracy matched %.3f, flipped %.3f "
           "(n = %d each); final training loss %.4f\n",
           im->biased_matched, im->biased_flipped, im->n_eval,
           r->image_biased_loss);
    printf("image: practice model accuracy matched %.3f, flipped %.3f; "
           "final training loss %.4f\n",
           im->unbiased_matched, im->unbiased_flipped, r->image_unbiased_loss);
    printf("image: background share of pixels %.3f\n", im->bg_pixels);
    printf("image: %-12s %8s %8s %10s %10s\n", "method", "bg(bias)", "bg(prac)",
           "r_ctl(bias)", "r_ctl(prac)");
    for (int m = 0; m < ATTR_COUNT; m++) {
        printf("image: %-12s %8.3f %8.3f %10.3f %10.3f\n",
               attr_method_name((AttrMethod)m), im->bg_mass[m],
               im->bg_mass_unbiased[m], im->control_corr[m],
               im->control_corr_unbiased[m]);
    }
    printf("image: max mean correlation between two methods %.3f; control "
           "map model-free: %s\n",
           im->method_corr_max, im->control_model_free ? "yes" : "NO");
    const TextReport *t = &r->text;
    printf("text: accuracy train %.3f test %.3f\n", t->train_acc, t->test_acc);
    printf("text: LIME (%d fits) R2 mean %.3f min %.3f, all-word R2 %.3f, "
           "|output - model| %.3f\n",
           t->expl.n_explained, t->expl.lime_r2_mean, t->expl.lime_r2_min,
           t->expl.lime_full_r2_mean, t->expl.lime_abs_gap_mean);
    printf("text: LIME output on the model's side of 0.5 for %.3f of the "
           "items\n",
           t->expl.lime_side_agree);
    printf("text: Anchor precision mean %.3f min %.3f, length %.2f, "
           "coverage %.3f\n",
           t->expl.anchor_prec_mean, t->expl.anchor_prec_min,
           t->expl.anchor_len_mean, t->expl.anchor_cov_mean);
    const TabReport *b = &r->tab;
    printf("tabular: accuracy train %.3f test %.3f\n", b->train_acc,
           b->test_acc);
    printf("tabular: LIME (%d fits) R2 mean %.3f min %.3f, all-feature R2 "
           "%.3f, agreement %.3f, |output - model| %.3f\n",
           b->expl.n_explained, b->expl.lime_r2_mean, b->expl.lime_r2_min,
           b->expl.lime_full_r2_mean, b->lime_agree, b->expl.lime_abs_gap_mean);
    printf("tabular: LIME output on the model's side of 0.5 for %.3f of the "
           "items\n",
           b->expl.lime_side_agree);
    printf("tabular: Anchor precision mean %.3f min %.3f, length %.2f, "
           "coverage %.3f\n",
           b->expl.anchor_prec_mean, b->expl.anchor_prec_min,
           b->expl.anchor_len_mean, b->expl.anchor_cov_mean);
    printf("tabular: counterfactuals with 1 edit %d, with 2 edits %d\n",
           b->n_cf_single, b->n_cf_double);
}

int main(int argc, char **argv)
{
    uint64_t seed = GEN_DEFAULT_SEED;
    const char *out = "assets/studies";
    int report = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 10);
            if (*end) {
                usage(stderr);
                return 2;
            }
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(argv[i], "--report") == 0) {
            report = 1;
        } else if (strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    GenReport rep;
    SimError err = {0};
    if (gen_write_all(out, seed, report ? &rep : NULL, &err) != SIM_OK) {
        fprintf(stderr, "simlab-gen: %s\n", err.msg);
        return 1;
    }
    printf("simlab-gen: wrote %d bundles to %s (seed %" PRIu64 ")\n",
           GEN_N_BUNDLES, out, seed);
    if (report) {
        print_report(&rep);
    }
    return 0;
}

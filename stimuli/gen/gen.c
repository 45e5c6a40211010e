/*
** Top level of the generator: one call per demo study, each from its own
** stream of the seed so that studies do not depend on one another.
*/
#include "stimuli/gen/gen.h"

#include <string.h>

#include "stimuli/gen/genio.h"

const char *const GEN_BUNDLES[GEN_N_BUNDLES] = {
    "image-meta", "text-forward", "text-counterfactual", "tabular-forward",
    "tabular-counterfactual"};

int gen_write_all(const char *root, uint64_t seed, GenReport *report,
                  SimError *err)
{
    char dir[1024];
    ImgStudy *img = NULL;
    TextStudy *text = NULL;
    TabStudy *tab = NULL;
    if (report) {
        memset(report, 0, sizeof *report);
    }
    int rc = genio_mkdirs(root, err);
    rc = rc ? rc : imgstudy_make(seed, &img, err);
    rc = rc ? rc : genio_join(dir, sizeof dir, root, GEN_BUNDLES[0], err);
    rc = rc ? rc : imgstudy_write(img, dir, err);
    if (rc == SIM_OK && report) {
        report->image_biased_loss = img->biased_loss;
        report->image_unbiased_loss = img->unbiased_loss;
        rc = imgstudy_measure(img, seed, &report->image, err);
    }
    rc = rc ? rc : textstudy_make(seed, &text, err);
    rc = rc ? rc
            : textstudy_write(text, root, seed, report ? &report->text : NULL,
                              err);
    rc = rc ? rc : tabstudy_make(seed, &tab, err);
    rc =
        rc ? rc
           : tabstudy_write(tab, root, seed, report ? &report->tab : NULL, err);
    imgstudy_free(img);
    textstudy_free(text);
    tabstudy_free(tab);
    return rc;
}

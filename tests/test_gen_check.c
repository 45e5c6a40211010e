/*
** Every committed demo bundle passes the bundle checker (`simlab check`)
** without errors or warnings, and its pools have the balance its protocol
** asks for: equal TP/FP/TN/FN and half "same", half "flip" counterfactuals
** within each type (Hase & Bansal); 50 % right in the sessions' pools
** (meta-predictor).
*/
#include "tests/harness.h"

#include <stdlib.h>

#include "stimuli/check.h"
#include "stimuli/gen/gen.h"
#include "stimuli/study.h"

static const PoolBalance *find_pool(const StudyReport *r, const char *pool)
{
    for (size_t i = 0; i < r->n_pools; i++) {
        if (strcmp(r->pools[i].pool, pool) == 0) {
            return &r->pools[i];
        }
    }
    return NULL;
}

static void check_groups(const PoolBalance *p, int per_group)
{
    CHECK(p != NULL);
    if (!p) {
        return;
    }
    CHECK_INT(p->tp, per_group);
    CHECK_INT(p->fp, per_group);
    CHECK_INT(p->tn, per_group);
    CHECK_INT(p->fn, per_group);
}

static void check_one(const char *name)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/assets/studies/%s", SIMLAB_SOURCE_DIR, name);

    /* the command's own verdict, with its report on failure */
    FILE *out = tmpfile();
    int status = check_bundle(dir, 0, out ? out : stderr);
    if (status != 0 && out) {
        char line[512];
        rewind(out);
        while (fgets(line, sizeof line, out)) {
            fputs(line, stderr);
        }
    }
    if (out) {
        fclose(out);
    }
    CHECK_INT(status, 0);

    Study *study = NULL;
    StudyReport rep;
    SimError err = {0};
    study_report_init(&rep);
    CHECK_INT(study_load(dir, &study, &rep, &err), SIM_OK);
    CHECK_INT(rep.n_errors, 0);
    CHECK_INT(rep.n_warnings, 0);
    for (size_t i = 0; i < rep.n_warnings; i++) {
        fprintf(stderr, "%s: warning: %s: %s\n", name, rep.warnings[i].file,
                rep.warnings[i].message);
    }
    if (study) {
        if (strcmp(name, "image-meta") == 0) {
            CHECK_STR(study->preset, "meta-predictor");
            const PoolBalance *tr = find_pool(&rep, "train");
            const PoolBalance *te = find_pool(&rep, "test");
            CHECK(tr && tr->correct == tr->incorrect && tr->n == 20);
            CHECK(te && te->correct == te->incorrect && te->n == 28);
            CHECK(find_pool(&rep, "practice") != NULL);
            CHECK(find_pool(&rep, "practice_train") != NULL);
            CHECK(study->n_conditions == 8);
        } else {
            int cf = strstr(name, "counterfactual") != NULL;
            CHECK_STR(study->preset,
                      cf ? "hase-counterfactual" : "hase-forward");
            const PoolBalance *te = find_pool(&rep, "test");
            check_groups(te, 8);
            if (cf && te) {
                for (int t = 0; t < 4; t++) {
                    CHECK_INT(te->same_by_type[t], 4);
                    CHECK_INT(te->flip_by_type[t], 4);
                }
            } else {
                check_groups(find_pool(&rep, "learn"), 4);
            }
        }
    }
    study_free(study);
    study_report_free(&rep);
}

int main(void)
{
    for (int k = 0; k < GEN_N_BUNDLES; k++) {
        check_one(GEN_BUNDLES[k]);
    }
    return TEST_REPORT();
}

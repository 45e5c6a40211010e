/*
** The questionnaire answers kept with a Dataset (answers.h): their release.
*/
#include "analysis/answers.h"

#include "common/sim_alloc.h"

void answers_free(struct DatasetAnswers *a)
{
    if (a) {
        for (size_t i = 0; i < a->n_defs; i++) {
            sim_free(a->defs[i].options);
        }
        sim_free(a->defs);
        sim_free(a->a);
        sim_free(a);
    }
}

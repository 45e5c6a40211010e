/*
** The dataset's views of explanations (views.h).
*/
#include "analysis/views.h"

#include "common/sim_alloc.h"

void views_free(struct DatasetViews *v)
{
    if (v) {
        sim_free(v->v);
        sim_free(v);
    }
}

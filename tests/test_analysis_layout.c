/*
** The compact paths of simlab_analysis: 16-byte responses (contexts of test
** type, domain and session; response times kept apart and created on the
** first one), the design's pair stamps against its pair index (a unit whose
** rows come back later), and the item analysis' first-answer bitmap against
** its hash set (a sparse participant x item design).
*/
#include "tests/harness.h"

#include <stdlib.h>

#include "analysis/analyze.h"
#include "analysis/dataset.h"

static void options(AnalyzeOptions *o, int B)
{
    analyze_options_default(o);
    o->replicates = B;
    o->progress = 0;
    o->quiet = 1;
    o->threads = 2;
}

static void test_responses(void)
{
    CHECK_INT(sizeof(DatasetResponse), 16);
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    static const char *const types[3] = {NULL, "forward", "counterfactual"};
    static const char *const domains[2] = {"text", NULL};
    for (int i = 0; i < 40; i++) {
        DatasetRow row = {0};
        char name[16], item[16];
        snprintf(name, sizeof name, "p%d", i / 10);
        snprintf(item, sizeof item, "i%d", i % 10);
        row.participant = name;
        row.condition = i < 20 ? "baseline" : "x";
        row.phase = i % 2 ? "post" : "pre";
        row.item = item;
        row.test_type = types[i % 3];
        row.domain = domains[i % 2];
        row.session = i % 4; /* 0: empty */
        row.correct = i % 5 == 0 ? -1 : i % 2;
        row.rating = i % 8;
        row.is_catch = i == 7;
        row.rt_ms = i < 13 ? NAN : 100.5 + i; /* the first ones have none */
        CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
    }
    CHECK_INT(ds->n_rows, 40);
    CHECK(ds->n_contexts <= 3 * 2 * 4);
    CHECK(ds->rt_ms != NULL);
    int ok = 1;
    for (int i = 0; i < 40; i++) {
        const DatasetResponse *r = &ds->rows[i];
        const char *tt = dataset_str(ds, dataset_test_type(ds, r));
        const char *dm = dataset_str(ds, dataset_domain(ds, r));
        ok &= strcmp(tt, types[i % 3] ? types[i % 3] : "") == 0;
        ok &= strcmp(dm, domains[i % 2] ? domains[i % 2] : "") == 0;
        ok &= dataset_session(ds, r) == i % 4;
        ok &= r->correct == (i % 5 == 0 ? -1 : i % 2);
        ok &= (int)r->rating == i % 8 && (int)r->is_catch == (i == 7);
        ok &= (int)r->phase == (i % 2 ? PHASE_POST : PHASE_PRE);
        double t = dataset_rt_ms(ds, (size_t)i);
        ok &= i < 13 ? isnan(t) : t == 100.5 + i;
        ok &= strcmp(dataset_str(ds, r->condition),
                     i < 20 ? "baseline" : "x") == 0;
    }
    CHECK(ok);
    dataset_free(ds);
    /* no response time anywhere: no array */
    dataset_new(&ds, &err);
    DatasetRow row = {0};
    row.participant = "p";
    row.condition = "baseline";
    row.phase = "pre";
    row.item = "i";
    row.correct = 1;
    row.rt_ms = NAN;
    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
    CHECK(ds->rt_ms == NULL && isnan(dataset_rt_ms(ds, 0)));
    dataset_free(ds);
}

/* A study of 3 conditions x 12 participants x 16 items, Pre and Post, with
** reproducible answers; split: all Pre rows first, then all Post rows (each
** unit comes back), else each participant's rows together. */
static Dataset *study(int split)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    static const char *const conds[3] = {"baseline", "a", "b"};
    for (int pass = 0; pass < 2; pass++) {
        for (int p = 0; p < 36; p++) {
            for (int ph = 0; ph < 2; ph++) {
                if (split ? ph != pass : pass == 1) {
                    continue;
                }
                for (int j = 0; j < 16; j++) {
                    char name[16], item[16];
                    snprintf(name, sizeof name, "p%d", p);
                    snprintf(item, sizeof item, "i%d", j);
                    unsigned h =
                        (unsigned)(p * 7919 + j * 104729 + ph * 31) % 1000u;
                    DatasetRow row = {0};
                    row.participant = name;
                    row.condition = conds[p % 3];
                    row.phase = ph ? "post" : "pre";
                    row.item = item;
                    row.correct =
                        h < (ph ? 600u + 50u * (unsigned)(p % 3) : 550u);
                    row.rt_ms = NAN;
                    CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
                }
            }
        }
    }
    return ds;
}

/* The pair index a returning unit turns on gives the same design, so the
** same change table to the last bit, as the stamps. */
static void test_pairs_come_back(void)
{
    Dataset *a = study(0), *b = study(1);
    CHECK_INT(a->n_rows, b->n_rows);
    AnalyzeOptions o;
    options(&o, 300);
    Report ra, rb;
    SimError err;
    CHECK_INT(analyze_compute(a, &o, &ra, &err), SIM_OK);
    CHECK_INT(analyze_compute(b, &o, &rb, &err), SIM_OK);
    CHECK_INT(ra.n_change, 3);
    CHECK_INT(rb.n_change, ra.n_change);
    int equal = ra.n_change == rb.n_change;
    for (int i = 0; equal && i < ra.n_change; i++) {
        const ChangeRow *x = &ra.change[i], *y = &rb.change[i];
        equal &= x->n_responses == 12 * 16 &&
                 x->n_responses == y->n_responses && x->pre_raw == y->pre_raw &&
                 x->post == y->post && x->change == y->change &&
                 x->ci_low == y->ci_low && x->ci_high == y->ci_high &&
                 x->p == y->p;
    }
    CHECK(equal);
    report_free(&ra);
    report_free(&rb);
    dataset_free(a);
    dataset_free(b);
}

/* 150 items, 100 participants answering two each (and one of them twice):
** the bitmap would take more than 2 bytes per row, so first answers are
** found in the hash set. */
static void test_sparse_items(void)
{
    Dataset *ds;
    SimError err;
    dataset_new(&ds, &err);
    int n[150] = {0}, s[150] = {0};
    for (int p = 0; p < 100; p++) {
        int js[3] = {(2 * p) % 150, (2 * p + 1) % 150, (2 * p) % 150};
        for (int k = 0; k < 3; k++) {
            char name[16], item[16];
            snprintf(name, sizeof name, "p%d", p);
            snprintf(item, sizeof item, "i%d", js[k]);
            int y = k == 2 ? !(p % 3 == 0) : (p % 3 == 0) ^ (k == 1);
            DatasetRow row = {0};
            row.participant = name;
            row.condition = p % 2 ? "baseline" : "x";
            row.phase = "post";
            row.item = item;
            row.correct = y;
            row.rt_ms = NAN;
            CHECK_INT(dataset_add(ds, &row, &err), SIM_OK);
            if (k < 2) { /* the repeat does not count */
                n[js[k]]++;
                s[js[k]] += y;
            }
        }
    }
    AnalyzeOptions o;
    options(&o, 0);
    Report r;
    CHECK_INT(analyze_compute(ds, &o, &r, &err), SIM_OK);
    CHECK_INT(r.n_items, 150);
    int ok = r.n_items == 150;
    for (int i = 0; ok && i < r.n_items; i++) {
        const ItemRow *it = &r.items[i];
        int j = atoi(strrchr(it->label, 'i') + 1);
        ok &= it->n == n[j] && it->accuracy == (double)s[j] / n[j];
    }
    CHECK(ok);
    report_free(&r);
    dataset_free(ds);
}

int main(void)
{
    test_responses();
    test_pairs_come_back();
    test_sparse_items();
    return TEST_REPORT();
}

/*
** The columns of verify and decide trials and of answer options in a row
** of either reader: model_correct (or label and model_output), response's
** accept/reject, advice_shown, followed_advice, n_options. Located errors
** as in dataset.c; libc and common/ only.
*/
#include <string.h>

#include "analysis/dataset.h"
#include "analysis/dataset_int.h"
#include "common/sim_error.h"

static int val_is(Val v, const char *s)
{
    size_t n = strlen(s);
    return v.n == n && memcmp(v.p, s, n) == 0;
}

static int same_val(Val a, Val b)
{
    return a.n == b.n && memcmp(a.p, b.p, a.n) == 0;
}

static int bad(SimError *err, const Where *w, int col, const char *want,
               Val got)
{
    int n = got.n > 60 ? 60 : (int)got.n;
    return sim_fail(err, SIM_ERR_PARSE,
                    "%s:%s%ld: column '%s': expected %s, got '%.*s'", w->source,
                    w->unit, w->line, dataset_col_name(col), want, n, got.p);
}

/* A 0/1 (true/false) value, or -1 when empty; -2 when neither. */
static int flag_of(Val v)
{
    if (v.n == 0) {
        return -1;
    }
    if (val_is(v, "1") || val_is(v, "true") || val_is(v, "TRUE")) {
        return 1;
    }
    if (val_is(v, "0") || val_is(v, "false") || val_is(v, "FALSE")) {
        return 0;
    }
    return -2;
}

/* Counts the distinct labels and model outputs of verify trials (up to
** three: more than two). */
static int note_class(Dataset *ds, Val v)
{
    if (v.n == 0 || ds->verify_classes >= 3) {
        return 0;
    }
    int id = dataset_intern_n(ds, v.p, v.n);
    if (id < 0) {
        return -1;
    }
    for (int k = 0; k < ds->verify_classes; k++) {
        if (ds->verify_class_ids[k] == id) {
            return 0;
        }
    }
    if (ds->verify_classes < 2) {
        ds->verify_class_ids[ds->verify_classes] = id;
    }
    ds->verify_classes++;
    return 0;
}

int dataset_trial_type(const char *s, size_t n)
{
    return n == 6 &&
           (memcmp(s, "verify", 6) == 0 || memcmp(s, "decide", 6) == 0);
}

int dataset_trial_vals(Dataset *ds, const Val *v, const Where *w,
                       DatasetTrial *t, int *has, SimError *err)
{
    Val tt = v[COL_TEST_TYPE];
    int verify = val_is(tt, "verify"), decide = val_is(tt, "decide");
    *has = verify || decide || v[COL_N_OPTIONS].n > 0;
    if (!*has) {
        return SIM_OK;
    }
    t->model_correct = -1;
    t->verdict = 0;
    t->advice_shown = t->followed_advice = -1;
    t->n_options = 0;
    int mc = flag_of(v[COL_MODEL_CORRECT]);
    if (mc == -2) {
        return bad(err, w, COL_MODEL_CORRECT, "0, 1 or empty",
                   v[COL_MODEL_CORRECT]);
    }
    if (mc == -1 && v[COL_LABEL].n > 0 && v[COL_MODEL_OUTPUT].n > 0) {
        mc = same_val(v[COL_LABEL], v[COL_MODEL_OUTPUT]);
    }
    t->model_correct = (signed char)mc;
    int a = flag_of(v[COL_ADVICE_SHOWN]), f = flag_of(v[COL_FOLLOWED_ADVICE]);
    if (a == -2) {
        return bad(err, w, COL_ADVICE_SHOWN, "0, 1 or empty",
                   v[COL_ADVICE_SHOWN]);
    }
    if (f == -2) {
        return bad(err, w, COL_FOLLOWED_ADVICE, "0, 1 or empty",
                   v[COL_FOLLOWED_ADVICE]);
    }
    t->advice_shown = (signed char)a;
    t->followed_advice = (signed char)f;
    Val no = v[COL_N_OPTIONS];
    if (no.n > 0) {
        int k = 0;
        for (size_t i = 0; i < no.n && k <= 255; i++) {
            k = no.p[i] >= '0' && no.p[i] <= '9' ? k * 10 + (no.p[i] - '0')
                                                 : 1000;
        }
        if (k < 2 || k > 255) {
            return bad(err, w, COL_N_OPTIONS, "an integer 2..255 or empty", no);
        }
        t->n_options = (unsigned char)k;
    }
    if (!verify) {
        return SIM_OK;
    }
    Val rv = v[COL_RESPONSE];
    if (val_is(rv, "accept")) {
        t->verdict = DATASET_ACCEPT;
    } else if (val_is(rv, "reject")) {
        t->verdict = DATASET_REJECT;
    } else if (rv.n > 0) {
        return bad(err, w, COL_RESPONSE,
                   "accept, reject or empty on a verify trial", rv);
    } else if (mc >= 0 && v[COL_CORRECT].n > 0) {
        int c = flag_of(v[COL_CORRECT]);
        /* right when accepting a right prediction or rejecting a wrong */
        t->verdict = c == mc ? DATASET_ACCEPT : DATASET_REJECT;
    }
    if (note_class(ds, v[COL_LABEL]) != 0 ||
        note_class(ds, v[COL_MODEL_OUTPUT]) != 0) {
        return sim_fail(err, SIM_ERR_NOMEM, "out of memory");
    }
    return SIM_OK;
}

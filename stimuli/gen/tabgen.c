/*
** Synthetic census rows and a one-hidden-layer network trained by Adam.
** The income rule is known here but never shown to participants: they only
** see what the network answers.
*/
#include "stimuli/gen/tabgen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

static const char *const NAMES[TAB_NF] = {
    "Age",        "Work class",   "Education",     "Marital status",
    "Occupation", "Capital gain", "Hours per week"};

static const char *const CATS[TAB_NF][TAB_MAX_CATS] = {
    {NULL},
    {"Private", "Government", "Self-employed"},
    {"High school", "Some college", "Bachelors", "Masters", "Doctorate"},
    {"Never married", "Married", "Divorced"},
    {"Service", "Blue-collar", "Sales", "White-collar", "Professional"},
    {"None", "Low", "High"},
    {NULL},
};

static const int N_CATS[TAB_NF] = {0, 3, 5, 3, 5, 3, 0};

const char *tabgen_feature_name(int f)
{
    return NAMES[f];
}

int tabgen_is_numeric(int f)
{
    return N_CATS[f] == 0;
}

int tabgen_n_categories(int f)
{
    return N_CATS[f];
}

const char *tabgen_category(int f, int c)
{
    return N_CATS[f] ? CATS[f][c] : NULL;
}

void tabgen_value_text(int f, int value, char *buf, size_t n)
{
    if (tabgen_is_numeric(f)) {
        snprintf(buf, n, "%d", value);
    } else {
        snprintf(buf, n, "%s", CATS[f][value]);
    }
}

static int draw(SimRng *rng, const double *p, int n)
{
    double total = 0, u, acc = 0;
    for (int k = 0; k < n; k++) {
        total += p[k];
    }
    u = sim_rng_uniform(rng) * total;
    for (int k = 0; k < n; k++) {
        acc += p[k];
        if (u < acc) {
            return k;
        }
    }
    return n - 1;
}

void tabgen_sample(SimRng *rng, TabRow *out)
{
    int *v = out->v;
    v[TAB_AGE] =
        18 + (int)floor(28.5 * (sim_rng_uniform(rng) + sim_rng_uniform(rng)));
    static const double WORK[] = {0.70, 0.18, 0.12};
    v[TAB_WORKCLASS] = draw(rng, WORK, 3);
    static const double EDU[] = {0.35, 0.25, 0.22, 0.12, 0.06};
    v[TAB_EDUCATION] = draw(rng, EDU, 5);
    double e = v[TAB_EDUCATION] - 1.5;
    static const double OCC_BASE[] = {0.22, 0.24, 0.18, 0.22, 0.14};
    static const double OCC_EDU[] = {-0.5, -0.6, 0.0, 0.3, 0.9};
    double occ[5];
    for (int k = 0; k < 5; k++) {
        occ[k] = OCC_BASE[k] * exp(OCC_EDU[k] * e);
    }
    v[TAB_OCCUPATION] = draw(rng, occ, 5);
    int age = v[TAB_AGE];
    double mar[3];
    mar[1] = age < 25 ? 0.10 : (age < 35 ? 0.45 : 0.60);
    mar[2] = age < 30 ? 0.03 : 0.15;
    mar[0] = 1 - mar[1] - mar[2];
    v[TAB_MARITAL] = draw(rng, mar, 3);
    double h = 40 + 9 * sim_rng_normal(rng);
    h += v[TAB_OCCUPATION] == 4 ? 3 : 0;
    h += v[TAB_WORKCLASS] == 2 ? 5 : 0;
    int hours = (int)lround(h);
    v[TAB_HOURS] = hours < 10 ? 10 : (hours > 70 ? 70 : hours);
    double gain[3] = {0.82, 0.12, 0.06 * exp(0.4 * e)};
    v[TAB_GAIN] = draw(rng, gain, 3);

    /* the income rule: a middle-age peak the network has to learn */
    static const double EDU_FX[] = {-0.8, -0.3, 0.5, 1.0, 1.4};
    static const double OCC_FX[] = {-0.7, -0.4, 0.0, 0.3, 0.7};
    static const double GAIN_FX[] = {0.0, 0.6, 2.5};
    static const double WORK_FX[] = {0.0, 0.1, 0.3};
    double a = (age - 50) / 16.0;
    double age_fx = 1.0 - a * a;
    age_fx = age_fx < -2 ? -2 : age_fx;
    double s = -2.2 + EDU_FX[v[TAB_EDUCATION]] + OCC_FX[v[TAB_OCCUPATION]] +
               (v[TAB_MARITAL] == 1 ? 1.2 : 0) +
               (v[TAB_MARITAL] == 2 ? -0.3 : 0) + 0.05 * (v[TAB_HOURS] - 40) +
               age_fx + GAIN_FX[v[TAB_GAIN]] + WORK_FX[v[TAB_WORKCLASS]] +
               0.9 * sim_rng_normal(rng);
    out->label = s > 0 ? TAB_ABOVE : TAB_BELOW;
}

/* Network input: standardised age and hours, then one-hot categories. */
static void encode(const TabModel *m, const TabRow *row, double *x)
{
    int k = 0;
    x[k++] = (row->v[TAB_AGE] - m->mean[0]) / m->sd[0];
    x[k++] = (row->v[TAB_HOURS] - m->mean[1]) / m->sd[1];
    for (int f = 0; f < TAB_NF; f++) {
        for (int c = 0; c < N_CATS[f]; c++) {
            x[k++] = row->v[f] == c ? 1.0 : 0.0;
        }
    }
}

static double forward(const TabModel *m, const double *x, double *hid)
{
    double z = m->b2;
    for (int j = 0; j < TAB_HIDDEN; j++) {
        double a = m->b1[j];
        for (int k = 0; k < TAB_NIN; k++) {
            a += m->w1[j][k] * x[k];
        }
        hid[j] = tanh(a);
        z += m->w2[j] * hid[j];
    }
    return z;
}

double tabgen_prob(const TabModel *m, const TabRow *row)
{
    double x[TAB_NIN], hid[TAB_HIDDEN];
    encode(m, row, x);
    return 1.0 / (1.0 + exp(-forward(m, x, hid)));
}

int tabgen_predict(const TabModel *m, const TabRow *row)
{
    return tabgen_prob(m, row) >= 0.5 ? TAB_ABOVE : TAB_BELOW;
}

#define TAB_NPARAM (TAB_HIDDEN * TAB_NIN + 2 * TAB_HIDDEN + 1)

/* The parameters as one flat vector, for Adam. */
static double *param(TabModel *m, int k)
{
    if (k < TAB_HIDDEN * TAB_NIN) {
        return &m->w1[k / TAB_NIN][k % TAB_NIN];
    }
    k -= TAB_HIDDEN * TAB_NIN;
    if (k < TAB_HIDDEN) {
        return &m->b1[k];
    }
    k -= TAB_HIDDEN;
    return k < TAB_HIDDEN ? &m->w2[k] : &m->b2;
}

int tabgen_train(const TabRow *rows, int n, SimRng *rng, TabModel *out,
                 SimError *err)
{
    memset(out, 0, sizeof *out);
    if (n < 2) {
        return sim_fail(err, SIM_ERR_USAGE, "tabular model: %d rows", n);
    }
    double sum[2] = {0}, sq[2] = {0};
    for (int i = 0; i < n; i++) {
        sum[0] += rows[i].v[TAB_AGE];
        sum[1] += rows[i].v[TAB_HOURS];
    }
    for (int k = 0; k < 2; k++) {
        out->mean[k] = sum[k] / n;
    }
    for (int i = 0; i < n; i++) {
        double da = rows[i].v[TAB_AGE] - out->mean[0];
        double dh = rows[i].v[TAB_HOURS] - out->mean[1];
        sq[0] += da * da;
        sq[1] += dh * dh;
    }
    for (int k = 0; k < 2; k++) {
        out->sd[k] = sqrt(sq[k] / (n - 1));
    }
    for (int j = 0; j < TAB_HIDDEN; j++) {
        for (int k = 0; k < TAB_NIN; k++) {
            out->w1[j][k] = sim_rng_normal(rng) / sqrt((double)TAB_NIN);
        }
        out->w2[j] = sim_rng_normal(rng) / sqrt((double)TAB_HIDDEN);
    }
    double *X = sim_malloc(sizeof(double) * (size_t)n * TAB_NIN);
    double *mo = sim_calloc(TAB_NPARAM, sizeof(double));
    double *ve = sim_calloc(TAB_NPARAM, sizeof(double));
    int rc = SIM_OK;
    if (!X || !mo || !ve) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "tabular model: out of memory");
        goto cleanup;
    }
    for (int i = 0; i < n; i++) {
        encode(out, &rows[i], X + (size_t)i * TAB_NIN);
    }
    const double lr = 0.02, b1 = 0.9, b2 = 0.999, lambda = 1e-3;
    double p1 = 1, p2 = 1;
    for (int it = 0; it < 500; it++) {
        TabModel grad;
        memset(&grad, 0, sizeof grad);
        for (int i = 0; i < n; i++) {
            const double *x = X + (size_t)i * TAB_NIN;
            double hid[TAB_HIDDEN];
            double z = forward(out, x, hid);
            double d = 1.0 / (1.0 + exp(-z)) -
                       (rows[i].label == TAB_ABOVE ? 1.0 : 0.0);
            grad.b2 += d;
            for (int j = 0; j < TAB_HIDDEN; j++) {
                grad.w2[j] += d * hid[j];
                double dh = d * out->w2[j] * (1 - hid[j] * hid[j]);
                grad.b1[j] += dh;
                for (int k = 0; k < TAB_NIN; k++) {
                    grad.w1[j][k] += dh * x[k];
                }
            }
        }
        p1 *= b1;
        p2 *= b2;
        for (int k = 0; k < TAB_NPARAM; k++) {
            double *w = param(out, k);
            double gk = *param(&grad, k) / n;
            if (k < TAB_HIDDEN * TAB_NIN) {
                gk += lambda * *w;
            }
            mo[k] = b1 * mo[k] + (1 - b1) * gk;
            ve[k] = b2 * ve[k] + (1 - b2) * gk * gk;
            *w -= lr * (mo[k] / (1 - p1)) / (sqrt(ve[k] / (1 - p2)) + 1e-8);
        }
    }
cleanup:
    sim_free(X);
    sim_free(mo);
    sim_free(ve);
    return rc;
}

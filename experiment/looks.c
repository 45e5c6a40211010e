/*
** Which sequential look is due (looks.h): the smallest condition's
** analysed participants against the study's looks (common/sim_analysis.h
** reads them from the stored definition).
*/
#include "experiment/looks.h"

#include <jansson.h>
#include <string.h>

#include "common/sim_analysis.h"
#include "common/sim_escape.h"

/* The smallest count of the study's conditions (every condition of the
** definition; one missing from the counts has 0), its condition in *who. */
static long smallest(json_t *def, const LooksCount *counts, int n,
                     int simulated, const char **who)
{
    int within =
        json_is_object(json_object_get(def, "assignment")) &&
        json_is_string(
            json_object_get(json_object_get(def, "assignment"), "mode")) &&
        strcmp(json_string_value(
                   json_object_get(json_object_get(def, "assignment"), "mode")),
               "within") == 0;
    long total = 0, low = -1;
    for (int i = 0; i < n; i++) {
        total += simulated ? counts[i].simulated : counts[i].real;
    }
    if (within) {
        *who = "every condition";
        return total;
    }
    size_t k;
    json_t *c;
    json_array_foreach(json_object_get(def, "conditions"), k, c)
    {
        const char *id = json_string_value(json_object_get(c, "id"));
        long have = 0;
        for (int i = 0; id && i < n; i++) {
            if (counts[i].condition && strcmp(counts[i].condition, id) == 0) {
                have = simulated ? counts[i].simulated : counts[i].real;
            }
        }
        if (id && (low < 0 || have < low)) {
            low = have;
            *who = id;
        }
    }
    return low < 0 ? 0 : low;
}

/* The sentence on which look is due at m analysed per condition. */
static void due(FILE *out, const SimAnalysisSpec *s, long m, const char *who,
                const char *kind)
{
    char w[160];
    int within = strcmp(who, "every condition") == 0;
    sim_escape_term(within ? "each in every condition" : who, w, sizeof w);
    int k = -1;
    for (int j = 0; j < s->n_looks; j++) {
        k = m >= s->looks[j] ? j : k;
    }
    if (k < 0) {
        fprintf(out,
                "  %s: %ld analysed per condition (%s%s%s): no look is due yet "
                "(look 1 at %d)\n",
                kind, m, within ? "" : "fewest: ", w,
                within ? ", within-subject" : "", s->looks[0]);
        return;
    }
    if (k == s->n_looks - 1) {
        fprintf(out,
                "  %s: %ld analysed per condition (%s%s%s): the last look (%d) "
                "is due, the final analysis: simlab-analyze --look %d\n",
                kind, m, within ? "" : "fewest: ", w,
                within ? ", within-subject" : "", s->looks[k], k + 1);
        return;
    }
    fprintf(out,
            "  %s: %ld analysed per condition (%s%s%s): look %d (%d) is due: "
            "simlab-analyze --look %d; look %d at %d\n",
            kind, m, within ? "" : "fewest: ", w,
            within ? ", within-subject" : "", k + 1, s->looks[k], k + 1, k + 2,
            s->looks[k + 1]);
}

void looks_print(FILE *out, const char *study_id, const char *definition,
                 const LooksCount *counts, int n)
{
    json_t *def = definition ? json_loads(definition, 0, NULL) : NULL;
    SimAnalysisSpec s;
    if (!def ||
        sim_analysis_parse(json_object_get(def, "analysis"), &s, NULL, NULL) !=
            0 ||
        s.n_looks == 0) {
        json_decref(def);
        return;
    }
    char id[160];
    fprintf(out,
            "\nsequential looks of %s (analysed participants per "
            "condition, %s spending):",
            sim_escape_term(study_id ? study_id : "?", id, sizeof id),
            sim_spending_name(s.spending));
    for (int j = 0; j < s.n_looks; j++) {
        fprintf(out, "%s%d", j ? ", " : " ", s.looks[j]);
    }
    fputc('\n', out);
    const char *who = "?";
    long real = smallest(def, counts, n, 0, &who);
    due(out, &s, real, who, "real participants");
    long any_sim = 0;
    for (int i = 0; i < n; i++) {
        any_sim += counts[i].simulated;
    }
    if (any_sim > 0) {
        long sim = smallest(def, counts, n, 1, &who);
        due(out, &s, sim, who, "simulated (a dry run)");
    }
    json_decref(def);
}

/*
** The response record's columns (sim_columns.h) and the long_format view
** made from them.
*/
#include "common/sim_columns.h"

#include <string.h>

#define VIEW SIM_COL_VIEW
#define BOTH (SIM_COL_VIEW | SIM_COL_EXPORT)

static const SimColumn COLUMNS[SIM_COL_COUNT] = {
    [SIM_COL_PARTICIPANT] = {"participant", "string", 1,
                             "pseudonymous participant id (UUID)", "p.id", NULL,
                             BOTH},
    [SIM_COL_CONDITION] =
        {"condition", "string", 1,
         "condition of the row: the participant's (between-subject), or the "
         "one the row's part of the run showed (within-subject)",
         "COALESCE(t.condition, p.condition)", NULL, BOTH},
    [SIM_COL_PHASE] = {"phase", "string", 1,
                       "practice, learn, pre, post, train, test or quiz",
                       "t.phase", NULL, BOTH},
    [SIM_COL_ITEM] = {"item", "string", 1,
                      "item key <pool>:<id> (quiz questions: <block>:<n>)",
                      "COALESCE(t.item, t.block_id || ':' || (t.page + 1))",
                      NULL, BOTH},
    [SIM_COL_CORRECT] =
        {"correct", "0/1/empty", 1,
         "1 if the response equals the model output on the shown input (on "
         "the perturbation for counterfactual trials; verify trials: the "
         "answer matches whether the model was right; decide trials: the "
         "response equals the label), first try for practice and quiz; "
         "empty when nothing was asked",
         "CASE WHEN t.correct_choice >= 0 AND t.is_example = 0 THEN "
         "r.correct END",
         NULL, BOTH},
    [SIM_COL_SESSION] = {"session", "integer/empty", 0,
                         "1-based training session",
                         "CASE WHEN t.session > 0 THEN t.session END", NULL,
                         BOTH},
    [SIM_COL_TEST_TYPE] = {"test_type", "string", 0,
                           "forward, counterfactual, verify or decide",
                           "t.test_type", NULL, BOTH},
    [SIM_COL_DOMAIN] = {"domain", "string", 0, "item domain", "i.domain", NULL,
                        BOTH},
    [SIM_COL_BLOCK] = {"block", "string", 0, "block id of the study design",
                       "t.block_id", NULL, BOTH},
    [SIM_COL_TRIAL] = {"trial", "integer", 0,
                       "1-based position in the participant's schedule",
                       "t.seq + 1", NULL, BOTH},
    [SIM_COL_IS_CATCH] = {"is_catch", "0/1", 0,
                          "catch trial (a reservoir item shown again)",
                          "t.is_catch", NULL, BOTH},
    [SIM_COL_PREDICTION_TYPE] =
        {"prediction_type", "string", 0,
         "TP, FP, TN or FN of the item's model output vs its label (first "
         "class = positive)",
         "i.prediction_type", NULL, BOTH},
    [SIM_COL_LABEL] = {"label", "string", 0, "true class of the item",
                       "i.label", NULL, BOTH},
    [SIM_COL_MODEL_OUTPUT] =
        {"model_output", "string", 0,
         "model output on the shown input (the perturbation for "
         "counterfactual trials)",
         "t.model_output", NULL, BOTH},
    [SIM_COL_RESPONSE] = {"response", "string", 0,
                          "the participant's answer (class id or option; "
                          "verify trials: accept or reject)",
                          "r.response_id", NULL, BOTH},
    [SIM_COL_RATING] = {"rating", "integer/empty", 0,
                        "Likert rating of the explanation",
                        "CASE WHEN r.rating > 0 THEN r.rating END", NULL, BOTH},
    [SIM_COL_RT_MS] = {"rt_ms", "number/empty", 0,
                       "response time: response_ns - onset_ns in "
                       "milliseconds",
                       "r.rt_ms", NULL, BOTH},
    [SIM_COL_PILOT] = {"pilot", "0/1", 0, "pilot participant", "p.pilot", NULL,
                       BOTH},
    [SIM_COL_SIMULATED] = {"simulated", "0/1", 0, "simulated participant",
                           "p.simulated", NULL, BOTH},
    [SIM_COL_EXCLUDED] = {"excluded", "0/1", 0,
                          "excluded by a screening rule of the study",
                          "p.excluded", NULL, BOTH},
    [SIM_COL_STATION] = {"station", "string", 0,
                         "station that recorded the response",
                         "COALESCE(r.station, p.station)", NULL, BOTH},
    [SIM_COL_EXCLUSION_REASON] =
        {"exclusion_reason", "string", 0,
         "the screening rule that excluded the participant (the sidecar's "
         "participants list)",
         "COALESCE(p.exclusion_reason, '')", NULL, VIEW},
    [SIM_COL_ONSET_NS] = {"onset_ns", "integer", 0,
                          "stimulus onset, station clock in ns (the "
                          "sidecar's timing)",
                          "r.onset_ns", NULL, VIEW},
    [SIM_COL_RESPONSE_NS] = {"response_ns", "integer", 0,
                             "response time stamp, station clock in ns",
                             "r.response_ns", NULL, VIEW},
    [SIM_COL_TIMED_OUT] = {"timed_out", "0/1", 0,
                           "1 when the answer deadline (time_limit_ms) "
                           "passed: no response, correct empty",
                           "r.timed_out", "0", BOTH},
    [SIM_COL_CONFIDENCE] = {"confidence", "integer/empty", 0,
                            "confidence given with the answer (1..points of "
                            "the block's scale)",
                            "r.confidence", "NULL", BOTH},
    [SIM_COL_CONFIDENCE_RT_MS] =
        {"confidence_rt_ms", "number/empty", 0,
         "time of the confidence: its time - onset_ns in milliseconds",
         "CASE WHEN r.confidence_ns > 0 AND r.onset_ns > 0 THEN "
         "(r.confidence_ns - r.onset_ns) / 1e6 END",
         "NULL", BOTH},
    [SIM_COL_MODEL_CORRECT] =
        {"model_correct", "0/1/empty", 0,
         "1 when the item's model output equals its label, 0 when not; "
         "empty when the item has no label",
         "CASE WHEN i.label IS NULL OR i.prediction IS NULL THEN NULL "
         "WHEN i.prediction = i.label THEN 1 ELSE 0 END",
         "NULL", BOTH},
    [SIM_COL_ADVICE_SHOWN] =
        {"advice_shown", "0/1/empty", 0,
         "decide trials: 1 when the condition showed the model's output as "
         "advice; empty on other trials",
         "CASE WHEN t.test_type = 'decide' THEN t.show_prediction END", "NULL",
         BOTH},
    [SIM_COL_FOLLOWED_ADVICE] =
        {"followed_advice", "0/1/empty", 0,
         "decide trials with advice shown: 1 when the response equals the "
         "model's output; empty otherwise (and when no answer was given)",
         "CASE WHEN t.test_type = 'decide' AND t.show_prediction = 1 AND "
         "r.response_id IS NOT NULL THEN CASE WHEN r.response_id = "
         "t.model_output THEN 1 ELSE 0 END END",
         "NULL", BOTH},
    [SIM_COL_N_OPTIONS] =
        {"n_options", "integer/empty", 0,
         "number of answer options offered when the item's own options "
         "applied (a distinction trial: chance is 1 / n_options)",
         "CASE WHEN t.options IS NOT NULL THEN length(t.options) - "
         "length(replace(t.options, '|', '')) + 1 END",
         "NULL", BOTH},
    [SIM_COL_OPTIONS_SHOWN] = {"options_shown", "string/empty", 0,
                               "the options offered, in the order shown, "
                               "'|'-separated class ids",
                               "t.options", "NULL", BOTH},
};

_Static_assert(sizeof COLUMNS / sizeof *COLUMNS == SIM_COL_COUNT,
               "one row per SimColumnId");

const SimColumn *sim_column(SimColumnId id)
{
    return &COLUMNS[(unsigned)id < SIM_COL_COUNT ? id : 0];
}

int sim_column_find(const char *name)
{
    for (int i = 0; name && i < SIM_COL_COUNT; i++) {
        if (strcmp(COLUMNS[i].name, name) == 0) {
            return i;
        }
    }
    return -1;
}

void sim_columns_view_sql(SimBuf *b, const char *from)
{
    sim_buf_puts(b, "CREATE VIEW long_format AS SELECT ");
    int first = 1;
    for (int i = 0; i < SIM_COL_COUNT; i++) {
        if (COLUMNS[i].where & SIM_COL_VIEW) {
            sim_buf_printf(b, "%s%s AS %s", first ? "" : ", ", COLUMNS[i].sql,
                           COLUMNS[i].name);
            first = 0;
        }
    }
    sim_buf_printf(b, " %s", from);
}

void sim_columns_store_view_sql(SimBuf *b)
{
    sim_columns_view_sql(
        b, "FROM trial t"
           " JOIN participant p ON p.id = t.participant"
           " JOIN response r ON r.participant = t.participant AND r.seq = "
           "t.seq AND r.done = 1"
           " LEFT JOIN item i ON i.study = p.study AND i.key = t.item"
           " WHERE t.phase IS NOT NULL"
           " ORDER BY p.created_ms, p.id, t.seq");
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int sim_columns_same_sql(const char *a, const char *b)
{
    while (blank(*a)) {
        a++;
    }
    while (blank(*b)) {
        b++;
    }
    while (*a && *b) {
        if (blank(*a) || blank(*b)) {
            if (!blank(*a) || !blank(*b)) {
                return 0;
            }
            while (blank(*a)) {
                a++;
            }
            while (blank(*b)) {
                b++;
            }
            continue;
        }
        if (*a++ != *b++) {
            return 0;
        }
    }
    while (blank(*a)) {
        a++;
    }
    while (blank(*b)) {
        b++;
    }
    return !*a && !*b;
}

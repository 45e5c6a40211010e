/*
** The pushed tables and their columns (see sync_tables.h). Rows keep their
** local keys on the server where those are global (the bundle hash, the
** participant UUID, participant + step); screening and event rows, whose
** local keys are per file, are keyed by the file's id (origin) and their
** local row id. Study and item rows are shared by the files of a bundle
** and never overwritten; responses once done, and answers, are kept as
** first pushed.
*/
#include "experiment/sync_tables.h"

#include "experiment/interaction.h"

#define T "text"
#define I "bigint"
#define D "double precision"
/* the hash of the study row a row belongs to */
#define STUDY_HASH "(SELECT s.hash FROM study s WHERE s.id = t.study)"

static const SyncColumn STUDY[] = {
    {"hash", T, NULL},       {"study_id", T, NULL}, {"title", T, NULL},
    {"definition", T, NULL}, {"software", T, NULL}, {"created_ms", I, NULL},
    {NULL, NULL, NULL}};

static const SyncColumn ITEM[] = {{"study_hash", T, STUDY_HASH},
                                  {"key", T, NULL},
                                  {"pool", T, NULL},
                                  {"source_id", T, NULL},
                                  {"domain", T, NULL},
                                  {"label", T, NULL},
                                  {"prediction", T, NULL},
                                  {"cf_prediction", T, NULL},
                                  {"prediction_type", T, NULL},
                                  {NULL, NULL, NULL}};

static const SyncColumn PARTICIPANT[] = {
    {"id", T, NULL},          {"study_hash", T, STUDY_HASH},
    {"code", T, NULL},        {"condition", T, NULL},
    {"assigned_by", T, NULL}, {"assign_source", T, NULL},
    {"station", T, NULL},     {"active_station", T, NULL},
    {"pilot", I, NULL},       {"simulated", I, NULL},
    {"seed", I, NULL},        {"status", T, NULL},
    {"excluded", I, NULL},    {"exclusion_reason", T, NULL},
    {"created_ms", I, NULL},  {"last_active_ms", I, NULL},
    {"finished_ms", I, NULL}, {"condition_order", T, NULL},
    {"order_row", I, NULL},   {NULL, NULL, NULL}};

static const SyncColumn TRIAL[] = {{"participant", T, NULL},
                                   {"seq", I, NULL},
                                   {"block_id", T, NULL},
                                   {"block_kind", T, NULL},
                                   {"phase", T, NULL},
                                   {"session", I, NULL},
                                   {"item", T, NULL},
                                   {"page", I, NULL},
                                   {"is_catch", I, NULL},
                                   {"is_example", I, NULL},
                                   {"expects", T, NULL},
                                   {"show_label", I, NULL},
                                   {"show_prediction", I, NULL},
                                   {"show_explanation", I, NULL},
                                   {"show_reservoir", I, NULL},
                                   {"correct_choice", I, NULL},
                                   {"reservoir", T, NULL},
                                   {"index_in_block", I, NULL},
                                   {"n_in_block", I, NULL},
                                   {"test_type", T, NULL},
                                   {"model_output", T, NULL},
                                   {"condition", T, NULL},
                                   {"options", T, NULL},
                                   {NULL, NULL, NULL}};

static const SyncColumn RESPONSE[] = {
    {"participant", T, NULL},  {"seq", I, NULL},
    {"choice", I, NULL},       {"response_id", T, NULL},
    {"correct", I, NULL},      {"rating", I, NULL},
    {"attempts", I, NULL},     {"done", I, NULL},
    {"final_choice", I, NULL}, {"onset_ns", I, NULL},
    {"response_ns", I, NULL},  {"rating_ns", I, NULL},
    {"rt_ms", D, NULL},        {"recorded_ms", I, NULL},
    {"station", T, NULL},      {"timed_out", I, NULL},
    {"confidence", I, NULL},   {"confidence_ns", I, NULL},
    {NULL, NULL, NULL}};

static const SyncColumn ANSWER[] = {
    {"participant", T, NULL}, {"seq", I, NULL},     {"question", T, NULL},
    {"type", T, NULL},        {"value", T, NULL},   {"rt_ms", D, NULL},
    {"recorded_ms", I, NULL}, {"station", T, NULL}, {NULL, NULL, NULL}};

/* made from the one definition of the table (experiment/interaction.h) */
#define SYNC_COLUMN(name, sqlite, pg, csv, expr, doc) {#name, pg, NULL},
static const SyncColumn INTERACTION[] = {
    INTERACTION_COLUMNS(SYNC_COLUMN){NULL, NULL, NULL}};
#undef SYNC_COLUMN

static const SyncColumn SCREENING[] = {
    {"local_id", I, "t.rowid"}, {"participant", T, NULL},
    {"rule", T, NULL},          {"passed", I, NULL},
    {"detail", T, NULL},        {"recorded_ms", I, NULL},
    {NULL, NULL, NULL}};

static const SyncColumn EVENT[] = {
    {"local_id", I, "t.id"}, {"participant", T, NULL}, {"kind", T, NULL},
    {"detail", T, NULL},     {"wall_ms", I, NULL},     {"mono_ns", I, NULL},
    {NULL, NULL, NULL}};

static const SyncColumn STATION_TIMING[] = {
    {"local_id", I, "t.id"},      {"station", T, NULL}, {"created_ms", I, NULL},
    {"virtual_display", I, NULL}, {"report", T, NULL},  {NULL, NULL, NULL}};

/* a bundle's study row is the same under its hash on every station; the
** software that recorded it and when may differ */
#define STUDY_SAME "study_id, title, definition"
#define ITEM_SAME                                                              \
    "pool, source_id, domain, label, prediction, cf_prediction, "              \
    "prediction_type"

const SyncTable SYNC_TABLES[] = {
    {"study", "hash", STUDY, STUDY_SAME, NULL, 0},
    {"item", "study_hash, key", ITEM, ITEM_SAME, NULL, 0},
    {"participant", "id", PARTICIPANT, NULL, NULL, 0},
    {"trial", "participant, seq", TRIAL, NULL, NULL, 1},
    {"response", "participant, seq", RESPONSE, NULL, "done", 1},
    {"answer", "participant, seq, question", ANSWER, NULL, "", 1},
    {"interaction", INTERACTION_KEY, INTERACTION, NULL, "", 1},
    {"screening", "origin, local_id", SCREENING, NULL, NULL, 1},
    {"event", "origin, local_id", EVENT, NULL, NULL, 1},
    {"station_timing", "origin, local_id", STATION_TIMING, NULL, NULL, 0},
};

const size_t SYNC_N_TABLES = sizeof SYNC_TABLES / sizeof SYNC_TABLES[0];

size_t sync_table_ncols(const SyncTable *t)
{
    size_t n = 0;
    while (t->cols[n].name) {
        n++;
    }
    return n;
}

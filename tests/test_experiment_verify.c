/*
** Verify and decide blocks end to end: a participant's keys and the screen
** model of both screens, simulated participants with known accept_p whose
** export has the right response, correct, model_correct, advice_shown and
** followed_advice, decide with and without the model's advice, and the
** check errors of a verify block whose items have no labels.
*/
#include "tests/harness.h"
#include "tests/test_study.h"
#include "tests/test_util.h"
#include "tests/test_stimuli_fs.h"

#include "experiment/export.h"
#include "experiment/screen_model.h"
#include "experiment/session.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "common/sim_text.h"
#include "stimuli/bundle.h"
#include "stimuli/scaffold.h"

#include <math.h>
#include <sqlite3.h>
#include <sys/stat.h>

static char tmp[256];
static int64_t T = 1000000000; /* fake monotonic clock, ns */
#define MS 1000000LL

static double sql_double(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    double v = -999;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) ==
            SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_double(st, 0);
        }
        sqlite3_finalize(st);
    } else {
        fprintf(stderr, "%s: %s\n", sql, sqlite3_errmsg(db));
    }
    sqlite3_close(db);
    return v;
}

static int sql_int(const char *db_path, const char *sql)
{
    return (int)sql_double(db_path, sql);
}

static int send(Session *s, SimInputKind kind, int value, const char *key)
{
    T += 700 * MS;
    SimInput in = {kind, value, key, T, 2000 + T / MS};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    return consumed;
}

/* Marks the onset of the current screen. */
static void shown(Session *s)
{
    T += 16 * MS;
    session_mark_onset(s, T);
}

/* Continues past pages and examples to the first screen that asks a
** choice. */
static const SessionView *to_choice(Session *s)
{
    const SessionView *v = session_view(s);
    for (int guard = 0; guard < 50 && !session_finished(s) && !v->need_choice;
         guard++) {
        shown(s);
        send(s, SIM_IN_CONTINUE, 0, NULL);
        v = session_view(s);
    }
    shown(s);
    return session_view(s);
}

/* A participant of condition cond in the store. */
static Session *start(Store *store, const Study *st, const char *cond,
                      char *pid)
{
    SimError err;
    EnrollSpec es;
    memset(&es, 0, sizeof es);
    es.condition = cond;
    es.seed = 11;
    es.assign_seed = 11;
    es.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(store, &es, &info, &err), SIM_OK);
    snprintf(pid, 37, "%s", info.id);
    Session *s = NULL;
    CHECK_INT(session_open(store, st, info.id, 1000, &s, &err), SIM_OK);
    return s;
}

/* The verify screen: the model's output shown, the question and the two
** answers in the study's words with their keys; "j" rejects, a digit
** gives the confidence, and the response is stored as reject, right when
** the model was wrong. Then the decide screen: the classes, and in the
** humans-alone condition no model output. */
static void test_screens(const Study *st, Store *store)
{
    char pid[37];
    Session *s = start(store, st, "grad", pid);
    if (!s) {
        return;
    }
    const SessionView *v = to_choice(s);
    CHECK_INT(v->screen, SCREEN_VERIFY);
    CHECK_STR(session_screen_name(v->screen), "verify");
    CHECK(v->verdicts != NULL);
    CHECK_INT(v->show_prediction, 1);
    CHECK_INT(v->show_label, 0);
    CHECK(v->explanation != NULL); /* grad explains */
    CHECK(v->confidence_spec && v->confidence_spec->points == 4);
    ScreenModel *m = screen_model_new();
    ScreenContext cx = {st, st->ui_strings, SCREEN_DESKTOP, NULL, 0, 0};
    CHECK_INT(screen_model_build(m, v, &cx), SIM_OK);
    CHECK_STR(m->screen, "verify");
    CHECK_STR(m->body, "item");
    CHECK_STR(m->title, "Is the model right?");
    CHECK(m->choice && m->choice->n_options == 2);
    if (m->choice && m->choice->n_options == 2) {
        CHECK_STR(m->choice->question, "Is the model's output right?");
        CHECK_STR(m->choice->options[0].label, "The model is right");
        CHECK_STR(m->choice->options[0].key, "f");
        CHECK_STR(m->choice->options[1].label, "The model is wrong");
        CHECK_STR(m->choice->options[1].key, "j");
    }
    /* the model's output is on the card, the label is not */
    CHECK(m->n_cards == 1 && m->cards[0].n_pills == 1);
    CHECK(m->confidence && m->confidence->points == 4);
    CHECK(m->area && m->area->expl);
    int seq = v->trial->seq;
    int model_right = v->trial->correct_choice == 0;
    CHECK_INT(send(s, SIM_IN_KEY, 0, "a"), 0); /* a class key: not here */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "j"), 1);
    CHECK_INT(session_view(s)->trial->seq, seq); /* the confidence waits */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "3"), 1);
    CHECK(session_view(s)->trial->seq != seq);
    Response r;
    int found = 0;
    SimError err;
    CHECK_INT(store_get_response(store, pid, seq, &r, &found, &err), SIM_OK);
    CHECK(found);
    if (found) {
        CHECK_INT(r.choice, 1); /* reject */
        CHECK_INT(r.correct, !model_right);
        CHECK_INT(r.confidence, 3);
    }
    /* answer the rest of the verify block with "f" (and 2) */
    v = session_view(s);
    for (int guard = 0; guard < 20 && v->screen == SCREEN_VERIFY; guard++) {
        shown(s);
        send(s, SIM_IN_KEY, 0, "F");
        send(s, SIM_IN_KEY, 0, "2");
        v = session_view(s);
    }
    CHECK_INT(v->screen, SCREEN_DECIDE);
    CHECK(v->verdicts == NULL);
    CHECK_INT(v->show_prediction, 1); /* grad gives advice */
    CHECK(v->explanation != NULL);
    shown(s);
    CHECK_INT(screen_model_build(m, v, &cx), SIM_OK);
    CHECK_STR(m->title, "Your decision");
    CHECK(m->choice && m->choice->n_options == 2);
    if (m->choice && m->choice->n_options == 2) {
        CHECK_STR(m->choice->question, "What is the right answer?");
        CHECK_STR(m->choice->options[0].label, "Positive");
        CHECK_STR(m->choice->options[0].key, "a");
    }
    CHECK(m->n_cards == 1 && m->cards[0].n_pills == 1);
    CHECK_INT(send(s, SIM_IN_KEY, 0, "j"), 0); /* a verdict key: not here */
    CHECK_INT(send(s, SIM_IN_KEY, 0, "l"), 1);
    session_close(s);

    /* the humans alone: a decide screen without the model's output */
    s = start(store, st, "human", pid);
    v = s ? to_choice(s) : NULL;
    for (int guard = 0; v && guard < 20 && v->screen == SCREEN_VERIFY;
         guard++) {
        CHECK(v->explanation == NULL);
        send(s, SIM_IN_KEY, 0, "f");
        send(s, SIM_IN_KEY, 0, "4");
        shown(s);
        v = session_view(s);
    }
    CHECK(v && v->screen == SCREEN_DECIDE);
    if (v && v->screen == SCREEN_DECIDE) {
        CHECK_INT(v->show_prediction, 0);
        CHECK(v->explanation == NULL);
        CHECK_INT(screen_model_build(m, v, &cx), SIM_OK);
        /* no advice: the model's output is not in the model, only a
        ** hidden pill that keeps the item where advice puts it */
        CHECK(m->n_cards == 1 && m->cards[0].n_pills == 1);
        if (m->n_cards == 1 && m->cards[0].n_pills == 1) {
            CHECK_INT(m->cards[0].pills[0].hidden, 1);
            CHECK_STR(m->cards[0].pills[0].value, "");
        }
    }
    session_close(s);
    screen_model_free(m);
}

/* 90 simulated participants (30 per condition) with accept_p right 0.9,
** wrong 0.3: the export's rows of both blocks. */
static void test_simulated(void)
{
    char bundle[512], db[600], csv[600];
    snprintf(bundle, sizeof bundle, "%s/experiment/mini-verify",
             SIMLAB_TEST_DATA);
    snprintf(db, sizeof db, "%s/sim.db", tmp);
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = bundle;
    o.db_path = db;
    o.participants = 90;
    o.policy = POLICY_MIXED;
    o.seed = 3;
    o.station = "test";
    o.durability = DURABILITY_FAST;
    o.wall_ms = 1700000000000LL;
    SimError err;
    CHECK_INT(simulate_run(&o, NULL, &err), SIM_OK);

    /* verify: response accept or reject, correct when it matches the
    ** model's correctness, model_correct and prediction_type filled */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'verify'"),
              90 * 9);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'verify' AND (response NOT IN ('accept', "
                          "'reject') OR response IS NULL OR model_correct IS "
                          "NULL OR prediction_type IS NULL OR correct IS "
                          "NULL OR confidence NOT BETWEEN 1 AND 4 OR "
                          "advice_shown IS NOT NULL OR followed_advice IS "
                          "NOT NULL)"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'verify' AND correct != ((response = 'accept') "
                          "= (model_correct = 1))"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE "
                          "model_correct != (model_output = label)"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'verify' AND is_catch = 1"),
              90);
    /* the accept rates recover accept_p: the study's in human and ai, the
    ** cell's in grad (the 8 items drawn: 6 right, 2 wrong; tolerances
    ** about 3 standard errors) */
    static const struct {
        const char *where;
        double want, tol;
    } rates[] = {
        {"condition != 'grad' AND model_correct = 1", 0.9, 0.05},
        {"condition != 'grad' AND model_correct = 0", 0.3, 0.12},
        {"condition = 'grad' AND model_correct = 1", 0.95, 0.05},
        {"condition = 'grad' AND model_correct = 0", 0.1, 0.12},
    };
    for (size_t i = 0; i < sizeof rates / sizeof *rates; i++) {
        char sql[300];
        snprintf(sql, sizeof sql,
                 "SELECT AVG(response = 'accept') FROM long_format WHERE "
                 "test_type = 'verify' AND is_catch = 0 AND %s",
                 rates[i].where);
        double got = sql_double(db, sql);
        if (fabs(got - rates[i].want) > rates[i].tol) {
            fprintf(stderr, "%s: accept rate %.3f, want %.2f\n", rates[i].where,
                    got, rates[i].want);
        }
        CHECK_NEAR(got, rates[i].want, rates[i].tol);
    }

    /* decide: a class, correct against the label; the advice shown in the
    ** conditions that give it, and whether it was followed */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'decide'"),
              90 * 6);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'decide' AND (response NOT IN ('pos', 'neg') OR "
                          "correct != (response = label) OR advice_shown != "
                          "(condition != 'human'))"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'decide' AND condition = 'human' AND "
                          "followed_advice IS NOT NULL"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type "
                          "= 'decide' AND condition != 'human' AND "
                          "(followed_advice IS NULL OR followed_advice != "
                          "(response = model_output))"),
              0);
    /* both kinds of answer occur: following and not following */
    CHECK(sql_int(db, "SELECT COUNT(DISTINCT followed_advice) FROM "
                      "long_format WHERE followed_advice IS NOT NULL") == 2);
    /* the model's output of a decide trial is the item's, not the label */
    CHECK(sql_int(db, "SELECT COUNT(*) FROM long_format WHERE test_type = "
                      "'decide' AND model_output != label") > 0);

    /* the export: the columns at the end, values as in the view */
    snprintf(csv, sizeof csv, "%s/sim.csv", tmp);
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    size_t len = 0;
    char *text = fs_read(csv, &len);
    CHECK(text && strstr(text, ",model_correct,advice_shown,followed_advice,"
                               "n_options,options_shown\r\n"));
    CHECK(text && strstr(text, ",verify,") && strstr(text, ",accept,") &&
          strstr(text, ",reject,") && strstr(text, ",decide,"));
    free(text);
}

/* Writes study.json of a copy of mini-verify's design into dir with the
** items of items (JSON lines). */
static void write_bundle(const char *dir, const char *items)
{
    char path[600];
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(items, f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/study.json", dir);
    f = fopen(path, "w");
    if (f) {
        fputs("{\"simlab_study\": 1, \"id\": \"v\", \"title\": \"t\",\n"
              " \"classes\": [\"a\", \"b\"],\n"
              " \"conditions\": [{\"id\": \"c\", \"method\": null}],\n"
              " \"blocks\": [\n"
              "  {\"kind\": \"verify\", \"pool\": \"test\"}\n"
              " ],\n"
              " \"items\": [{\"file\": \"items.jsonl\"}]}\n",
              f);
        fclose(f);
    }
}

/* The located errors of the bundle in dir, one a line; *n_errors their
** number. */
static char *check_text(const char *dir, int *n_errors)
{
    Study *st = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    study_load(dir, &st, &rep, &err);
    *n_errors = (int)rep.n_errors;
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    for (size_t i = 0; f && i < rep.n_errors; i++) {
        study_diag_print(f, "error: ", &rep.errors[i]);
    }
    if (f) {
        fclose(f);
    }
    study_free(st);
    study_report_free(&rep);
    return out;
}

/* A verify block needs labels: none in the pool is one error at the
** block, one missing is an error at the item's line. */
static void test_check(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/nolabels", tmp);
    CHECK_INT(mkdir(dir, 0700), 0);
    write_bundle(dir, "{\"id\": 1, \"pool\": \"test\", \"modality\": \"text\", "
                      "\"input\": \"x\", "
                      "\"prediction\": \"a\"}\n"
                      "{\"id\": 2, \"pool\": \"test\", \"modality\": \"text\", "
                      "\"input\": \"y\", "
                      "\"prediction\": \"b\"}\n");
    int n = 0;
    char *out = check_text(dir, &n);
    CHECK_INT(n, 1);
    CHECK(out && strstr(out, "study.json:") &&
          strstr(out, "field 'pool': no item of pool 'test' has a label: "
                      "the verify block 'verify1' asks whether the model's "
                      "output is right"));
    free(out);
    write_bundle(dir, "{\"id\": 1, \"pool\": \"test\", \"modality\": \"text\", "
                      "\"input\": \"x\", "
                      "\"label\": \"a\", \"prediction\": \"a\"}\n"
                      "{\"id\": 2, \"pool\": \"test\", \"modality\": \"text\", "
                      "\"input\": \"y\", "
                      "\"prediction\": \"b\"}\n");
    out = check_text(dir, &n);
    CHECK_INT(n, 1);
    CHECK(out && strstr(out, "items.jsonl:2: field 'label': item 'test:2' has "
                             "no label (the verify block 'verify1' asks "
                             "whether the model's output is right)"));
    if (out && n != 1) {
        fprintf(stderr, "%s\n", out);
    }
    free(out);
}

/* The presets expand into a verify block: accept-reject after learned
** examples (with catch trials from them when asked), hive-agreement with a
** 4-point confidence and no examples. */
static void test_presets(void)
{
    static const struct {
        const char *preset;
        const char *extra; /* protocol members added */
        int learn, points, n_catch;
    } cases[] = {{"accept-reject", "", 1, 0, 0},
                 {"accept-reject", "\"n_catch\": 1, \"confidence_points\": 5, ",
                  1, 5, 1},
                 {"hive-agreement", "", 0, 4, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/preset%zu", tmp, i);
        SimError err;
        CHECK_INT(scaffold_write(dir, cases[i].preset, "text", NULL, &err),
                  SIM_OK);
        char path[700];
        snprintf(path, sizeof path, "%s/study.json", dir);
        size_t len = 0;
        char *text = fs_read(path, &len);
        char *at = text ? strstr(text, "\"protocol\": {") : NULL;
        if (at && cases[i].extra[0]) {
            SimBuf b;
            sim_buf_init(&b);
            sim_buf_printf(&b, "%.*s%s%s", (int)(at - text + 13), text,
                           cases[i].extra, at + 13);
            fs_write(path, sim_buf_cstr(&b), b.len);
            sim_buf_free(&b);
        }
        free(text);
        Study *st = NULL;
        StudyReport rep;
        study_report_init(&rep);
        CHECK_INT(study_load(dir, &st, &rep, &err), SIM_OK);
        study_report_free(&rep);
        const Block *v = st ? study_find_block(st, "verify") : NULL;
        CHECK(v && v->kind == BLOCK_VERIFY);
        CHECK(st && (study_find_block(st, "learn") != NULL) == cases[i].learn);
        if (v) {
            CHECK_STR(st->preset, cases[i].preset);
            CHECK_STR(st->test_type, "verify");
            CHECK_INT(v->confidence.points, cases[i].points);
            CHECK_INT(v->n_catch, cases[i].n_catch);
            CHECK(cases[i].n_catch
                      ? v->reservoir && strcmp(v->reservoir, "learn") == 0
                      : v->reservoir == NULL);
            CHECK_INT(v->show.prediction, 1);
            CHECK_INT(v->show.explanation, 1);
            CHECK_STR(v->verdicts[0].key, "f");
            CHECK_STR(v->verdicts[1].key, "j");
        }
        study_free(st);
    }
}

int main(void)
{
    Study *st = test_study_load("mini-verify");
    CHECK(st != NULL);
    if (!st) {
        return TEST_REPORT();
    }
    test_tmpdir(tmp, sizeof tmp, "verify");
    char path[512];
    snprintf(path, sizeof path, "%s/v.db", tmp);
    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(path, st, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    if (store) {
        test_screens(st, store);
        store_close(store);
        /* the verdicts are stored by their ids, the decisions by class */
        CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM long_format WHERE "
                                "test_type = 'verify' AND response = "
                                "'reject' AND confidence = 3"),
                  1);
        CHECK(sql_int(path, "SELECT COUNT(*) FROM long_format WHERE "
                            "test_type = 'verify' AND response = 'accept' "
                            "AND confidence IN (2, 4)") >= 16);
        CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM long_format WHERE "
                                "test_type = 'decide' AND response = 'neg'"),
                  1);
    }
    test_simulated();
    test_check();
    test_presets();
    study_free(st);
    test_rmtree(tmp);
    return TEST_REPORT();
}

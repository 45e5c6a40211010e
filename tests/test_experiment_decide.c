/*
** A decide block with per-item options end to end (mini-protocols): each
** condition's participant goes through the session state machine; the
** item's options are offered in a shuffled, recorded order with keys 1-4,
** the answer is stored as the class and scored against the label, the
** advice is shown or hidden per condition; a process killed in the middle
** of the block resumes with the order it was offered; the export's rows of
** the block are checked one by one.
*/
#include "tests/harness.h"
#include "tests/test_stimuli_fs.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include "experiment/export.h"
#include "experiment/screen_model.h"
#include "experiment/session.h"
#include "experiment/store.h"

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmp[256];
static int64_t T = 1000000000; /* fake monotonic clock, ns */
#define MS 1000000LL

#define N_DECIDE 4
#define MAX_ROWS 16

/* A decide trial as the participant saw and answered it. */
typedef struct Seen {
    char pid[40];
    char item[32];
    char options[128]; /* class ids in the order offered, '|'-separated */
    char response[32];
    int advice;
} Seen;

static Seen seen[MAX_ROWS];
static int n_seen;

static int send(Session *s, SimInputKind kind, int value, const char *key)
{
    T += 700 * MS;
    SimInput in = {kind, value, key, T, 2000 + T / MS};
    int consumed = 0;
    SimError err;
    session_handle(s, &in, &consumed, &err);
    T += 16 * MS;
    session_mark_onset(s, T);
    return consumed;
}

/* The options of v as "id|id|..." into out. */
static void options_of(const Study *st, const SessionView *v, char *out,
                       size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < v->n_options && len < n; i++) {
        int w = snprintf(out + len, n - len, "%s%s", i ? "|" : "",
                         st->classes[v->options[i]].id);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* Continues past pages and answers the verify trials ("f") until the
** screen is a decide trial (or the session ends). */
static const SessionView *to_decide(Session *s)
{
    const SessionView *v = session_view(s);
    for (int i = 0; i < 40 && !session_finished(s); i++) {
        v = session_view(s);
        if (v->screen == SCREEN_DECIDE) {
            break;
        }
        send(s, v->screen == SCREEN_VERIFY ? SIM_IN_KEY : SIM_IN_CONTINUE, 0,
             v->screen == SCREEN_VERIFY ? "f" : NULL);
    }
    return session_view(s);
}

/* The decide screen v of study st in the screen model: the offered options
** as buttons keyed 1-4 in order, the model's output shown as advice or
** only a hidden pill that keeps the item's place. */
static void check_screen(const Study *st, const SessionView *v, int advice)
{
    ScreenModel *m = screen_model_new();
    ScreenContext cx = {st, st->ui_strings, SCREEN_ONLINE, NULL, 0, 0};
    CHECK_INT(screen_model_build(m, v, &cx), SIM_OK);
    CHECK_STR(m->screen, "decide");
    CHECK(m->choice && m->choice->n_options == v->n_options);
    for (size_t i = 0; m->choice && i < m->choice->n_options; i++) {
        char key[24];
        snprintf(key, sizeof key, "%zu", i + 1);
        CHECK_STR(m->choice->options[i].key, key);
        CHECK_STR(m->choice->options[i].label,
                  st->classes[v->options[i]].label);
    }
    CHECK(m->n_cards == 1 && m->cards[0].n_pills == 1);
    if (m->n_cards == 1 && m->cards[0].n_pills == 1) {
        const ScreenPill *p = &m->cards[0].pills[0];
        CHECK_INT(p->hidden, !advice);
        const char *want = advice ? st->classes[v->item->prediction].label : "";
        CHECK(p->value && strstr(p->value, want) != NULL);
        if (!advice) {
            CHECK_STR(p->value, "");
        }
    }
    CHECK((m->area && m->area->expl) == advice);
    screen_model_free(m);
}

/* Answers the decide trial on screen with key (1-based option), recording
** what was offered and answered. */
static void answer(const Study *st, Session *s, const char *pid, int key,
                   int advice)
{
    const SessionView *v = session_view(s);
    if (v->screen != SCREEN_DECIDE || v->n_options != 4 || n_seen >= MAX_ROWS) {
        CHECK(0);
        return;
    }
    CHECK_INT(v->show_prediction, advice);
    CHECK(advice ? v->explanation != NULL : v->explanation == NULL);
    check_screen(st, v, advice);
    Seen *x = &seen[n_seen++];
    snprintf(x->pid, sizeof x->pid, "%s", pid);
    snprintf(x->item, sizeof x->item, "%s", v->item->key);
    options_of(st, v, x->options, sizeof x->options);
    snprintf(x->response, sizeof x->response, "%s",
             st->classes[v->options[key - 1]].id);
    x->advice = advice;
    int seq = v->trial->seq;
    char k[16];
    snprintf(k, sizeof k, "%d", key);
    CHECK_INT(send(s, SIM_IN_KEY, 0, k), 1);
    CHECK(session_view(s)->trial == NULL || session_view(s)->trial->seq != seq);
}

/* The key of the option that is (want 1) or is not (want 0) the model's
** output on the decide trial on screen. */
static int key_of(const SessionView *v, int want)
{
    for (size_t i = 0; i < v->n_options; i++) {
        if ((v->options[i] == v->item->prediction) == want) {
            return (int)i + 1;
        }
    }
    return 1;
}

static Session *enroll(Store *store, const Study *st, const char *cond,
                       char *pid)
{
    SimError err;
    EnrollSpec es;
    memset(&es, 0, sizeof es);
    es.condition = cond;
    es.seed = 29;
    es.assign_seed = 29;
    es.wall_ms = 1000;
    ParticipantInfo info;
    if (store_enroll(store, &es, &info, &err) != SIM_OK) {
        return NULL;
    }
    snprintf(pid, 37, "%s", info.id);
    Session *s = NULL;
    session_open(store, st, info.id, 1000, &s, &err);
    if (s) {
        T += 16 * MS;
        session_mark_onset(s, T);
    }
    return s;
}

/* The child: a participant of cond answers two decide trials, is shown
** the third and is killed there. What it saw goes to state: one line per
** answered trial (pid item options response), then the one on screen. */
static void child(const Study *st, const char *db, const char *cond,
                  const char *state)
{
    Store *store = NULL;
    SimError err;
    if (store_open(db, st, DURABILITY_FULL, 0, 1000, &store, &err) != SIM_OK) {
        _exit(3);
    }
    char pid[37];
    Session *s = enroll(store, st, cond, pid);
    if (!s) {
        _exit(4);
    }
    FILE *f = fopen(state, "w");
    const SessionView *v = to_decide(s);
    for (int i = 0; i < 2 && v->screen == SCREEN_DECIDE; i++) {
        char opts[128];
        options_of(st, v, opts, sizeof opts);
        int key = i + 2;
        fprintf(f, "%s %s %s %s\n", pid, v->item->key, opts,
                st->classes[v->options[key - 1]].id);
        char k[16];
        snprintf(k, sizeof k, "%d", key);
        send(s, SIM_IN_KEY, 0, k);
        v = session_view(s);
    }
    char opts[128];
    options_of(st, v, opts, sizeof opts);
    fprintf(f, "%s %s %s -\n", pid,
            v->screen == SCREEN_DECIDE ? v->item->key : "?", opts);
    fclose(f);
    raise(SIGKILL);
    _exit(5);
}

/* A participant of cond killed in the middle of the decide block, resumed
** in a new store; then the rest of the session. */
static void killed_and_resumed(const Study *st, const char *db,
                               const char *cond, int advice)
{
    char state[600];
    snprintf(state, sizeof state, "%s/state-%s.txt", tmp, cond);
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        child(st, db, cond, state);
    }
    int status = 0;
    CHECK(p > 0 && waitpid(p, &status, 0) == p);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    /* the two answered trials and the one on screen when killed */
    char pid[40] = "", item[32] = "", opts[128] = "", resp[32] = "";
    FILE *f = fopen(state, "r");
    CHECK(f != NULL);
    int lines = 0;
    while (f && fscanf(f, "%39s %31s %127s %31s", pid, item, opts, resp) == 4) {
        if (strcmp(resp, "-") != 0 && n_seen < MAX_ROWS) {
            Seen *x = &seen[n_seen++];
            snprintf(x->pid, sizeof x->pid, "%s", pid);
            snprintf(x->item, sizeof x->item, "%s", item);
            snprintf(x->options, sizeof x->options, "%s", opts);
            snprintf(x->response, sizeof x->response, "%s", resp);
            x->advice = advice;
        }
        lines++;
    }
    if (f) {
        fclose(f);
    }
    CHECK_INT(lines, 3);

    Store *store = NULL;
    SimError err;
    CHECK_INT(store_open(db, st, DURABILITY_FULL, 0, 5000, &store, &err),
              SIM_OK);
    if (!store) {
        return;
    }
    Session *s = NULL;
    CHECK_INT(session_open(store, st, pid, 5000, &s, &err), SIM_OK);
    if (!s) {
        store_close(store);
        return;
    }
    T += 16 * MS;
    session_mark_onset(s, T);
    const SessionView *v = session_view(s);
    CHECK_INT(v->screen, SCREEN_DECIDE);
    CHECK_STR(v->item ? v->item->key : "", item);
    char again[128];
    options_of(st, v, again, sizeof again);
    CHECK_STR(again, opts); /* the order offered before the kill */
    /* the rest of the block: once the model's output, once another */
    for (int i = 0; i < 2 && session_view(s)->screen == SCREEN_DECIDE; i++) {
        answer(st, s, pid, key_of(session_view(s), i == 0 || !advice), advice);
    }
    /* the distinction block: the item's options, with per-option evidence
    ** when the condition explains */
    v = session_view(s);
    CHECK_INT(v->screen, SCREEN_PREDICT);
    CHECK_INT((int)v->n_options, 4);
    CHECK(advice ? v->explanation && v->explanation->part_class
                 : v->explanation == NULL);
    if (advice) {
        /* the candidates' word weights on one colour scale and legend */
        ScreenModel *m = screen_model_new();
        ScreenContext cx = {st, st->ui_strings, SCREEN_DESKTOP, NULL, 0, 0};
        CHECK_INT(screen_model_build(m, v, &cx), SIM_OK);
        const ScreenExpl *x = m->area ? m->area->expl : NULL;
        CHECK(x && x->per_option && x->n_parts == 4);
        double top = 0;
        for (size_t k = 0; k < v->item->n_options; k++) {
            const Explanation *part = &v->explanation->parts[k];
            for (size_t t = 0; t < part->n_tokens; t++) {
                top = fmax(top, fabs(part->tokens[t].weight));
            }
        }
        for (size_t k = 0; x && k < x->n_parts; k++) {
            CHECK_NEAR(x->parts[k].scale, top, 1e-12);
            CHECK_STR(x->parts[k].legend_hi, x->parts[0].legend_hi);
        }
        screen_model_free(m);
    }
    for (int i = 0; i < 20 && !session_finished(s); i++) {
        send(s, session_view(s)->need_choice ? SIM_IN_KEY : SIM_IN_CONTINUE, 0,
             session_view(s)->need_choice ? "1" : NULL);
    }
    CHECK(session_finished(s));
    session_close(s);
    store_close(store);
}

/* The value of column name in a CSV row split into cells. */
static const char *cell(char **cells, int n, char **head, int nh,
                        const char *name)
{
    for (int i = 0; i < nh && i < n; i++) {
        if (strcmp(head[i], name) == 0) {
            return cells[i];
        }
    }
    return NULL;
}

/* Splits line (no quotes in this study's export) at commas in place. */
static int split(char *line, char **cells, int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        cells[n++] = p;
        char *c = strchr(p, ',');
        if (!c) {
            break;
        }
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* Every decide row of the export against what its participant saw. */
static void check_export(const Study *st, const char *db)
{
    char csv[600];
    snprintf(csv, sizeof csv, "%s/decide.csv", tmp);
    SimError err;
    CHECK_INT(export_long_csv(db, csv, &err), SIM_OK);
    size_t len = 0;
    char *text = fs_read(csv, &len);
    CHECK(text != NULL);
    if (!text) {
        return;
    }
    char *head[64], *cells[64];
    char *save = NULL;
    char *line = strtok_r(text, "\r\n", &save);
    int nh = line ? split(line, head, 64) : 0;
    int rows = 0, matched = 0, followed[2] = {0, 0};
    while ((line = strtok_r(NULL, "\r\n", &save)) != NULL) {
        int n = split(line, cells, 64);
        const char *tt = cell(cells, n, head, nh, "test_type");
        if (!tt || strcmp(tt, "decide") != 0) {
            continue;
        }
        rows++;
        const char *pid = cell(cells, n, head, nh, "participant");
        const char *item = cell(cells, n, head, nh, "item");
        const char *resp = cell(cells, n, head, nh, "response");
        const char *label = cell(cells, n, head, nh, "label");
        const char *out = cell(cells, n, head, nh, "model_output");
        const char *correct = cell(cells, n, head, nh, "correct");
        const char *shown = cell(cells, n, head, nh, "advice_shown");
        const char *fol = cell(cells, n, head, nh, "followed_advice");
        const char *nopt = cell(cells, n, head, nh, "n_options");
        const char *opts = cell(cells, n, head, nh, "options_shown");
        if (!pid || !item || !resp || !label || !out || !correct || !shown ||
            !fol || !nopt || !opts) {
            CHECK(0);
            continue;
        }
        const Seen *x = NULL;
        for (int k = 0; k < n_seen; k++) {
            if (strcmp(seen[k].pid, pid) == 0 &&
                strcmp(seen[k].item, item) == 0) {
                x = &seen[k];
            }
        }
        CHECK(x != NULL);
        if (!x) {
            fprintf(stderr, "unexpected decide row %s %s\n", pid, item);
            continue;
        }
        matched++;
        const Item *it = study_find_item(st, item);
        CHECK(it != NULL);
        CHECK_STR(resp, x->response);
        CHECK_STR(opts, x->options);
        CHECK_STR(nopt, "4");
        CHECK_STR(label, it ? st->classes[it->label].id : "?");
        CHECK_STR(out, it ? st->classes[it->prediction].id : "?");
        CHECK_INT(atoi(correct), strcmp(resp, label) == 0);
        CHECK_STR(shown, x->advice ? "1" : "0");
        if (x->advice) {
            CHECK_STR(fol, strcmp(resp, out) == 0 ? "1" : "0");
            followed[strcmp(resp, out) == 0]++;
        } else {
            CHECK_STR(fol, "");
        }
        /* the answer is one of the options offered */
        char bar[160];
        snprintf(bar, sizeof bar, "|%s|", opts);
        char want[40];
        snprintf(want, sizeof want, "|%s|", resp);
        CHECK(strstr(bar, want) != NULL);
    }
    CHECK_INT(rows, 2 * N_DECIDE);
    CHECK_INT(matched, n_seen);
    CHECK(followed[0] > 0 && followed[1] > 0);
    free(text);
}

int main(void)
{
    Study *st = test_study_load("mini-protocols");
    CHECK(st != NULL);
    if (!st) {
        return TEST_REPORT();
    }
    test_tmpdir(tmp, sizeof tmp, "decide");
    char db[600];
    snprintf(db, sizeof db, "%s/d.db", tmp);
    killed_and_resumed(st, db, "grad", 1);
    killed_and_resumed(st, db, "human", 0);
    CHECK_INT(n_seen, 2 * N_DECIDE);
    /* the order of each trial is the one stored with it, shuffled: some
    ** trial is offered in another order than the item's */
    int moved = 0;
    for (int k = 0; k < n_seen; k++) {
        const Item *it = study_find_item(st, seen[k].item);
        char order[128] = "";
        for (size_t i = 0; it && i < it->n_options; i++) {
            size_t l = strlen(order);
            snprintf(order + l, sizeof order - l, "%s%s", i ? "|" : "",
                     st->classes[it->options[i]].id);
        }
        moved += strcmp(order, seen[k].options) != 0;
    }
    CHECK(moved > 0);
    check_export(st, db);
    study_free(st);
    test_rmtree(tmp);
    return TEST_REPORT();
}

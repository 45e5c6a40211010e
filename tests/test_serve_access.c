/*
** Who may continue a run of simlab serve (serve/serve_live.h, docs/online.md
** "Who may continue"), without HTTP: a stranger with another participant's
** id and another platform session gets what a new id gets and changes
** nothing for the participant (no takeover, no oracle of who took part);
** the same platform session or the resume code continue from a fresh
** browser, "token" only from the first one; codes cannot be guessed; a
** made-up id stores nothing until it passes the consent; restarting a
** link costs a bounded number of rows, tokens and browsers; pilot=1 is no
** pilot link, the printed secret is.
*/
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "common/sim_alloc.h"
#include "harness.h"
#include "test_study.h"
#include "serve_client.h"

/* Passes the consent (Continue once the page allows it). */
static int consent(Serve *sv, Client *c)
{
    json_t *a = json_array();
    json_array_append_new(a, in_kind(c, "continue"));
    return send_at(sv, c, c->pos, a);
}

/* The members of a reply's body and its screen, as text: what tells a
** used id from a new one, if anything does. */
static char *shape(const Client *c)
{
    json_t *o = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(c->last, k, v)
    {
        json_object_set_new(
            o, k, json_string(json_typeof(v) == JSON_STRING ? "s" : "x"));
    }
    json_object_set(o, "the view", c->view);
    json_object_set_new(o, "the pos",
                        json_pack("[i,i,i]", c->pos[0], c->pos[1], c->pos[2]));
    char *text = json_dumps(o, JSON_SORT_KEYS);
    json_decref(o);
    return text;
}

/* serve_start_stores for c's start. */
static int stores(Serve *sv, const Client *c)
{
    json_t *b = start_body(c);
    int r = serve_start_stores(sv, b);
    json_decref(b);
    return r;
}

static void test_takeover(void)
{
    Env e;
    if (env_fresh(&e, "mini-forward", "serve-takeover") != 0) {
        return;
    }
    CHECK_INT(env_open(&e, 0), 0);
    Client real;
    client_init(&real, "5f1a2b3c4d5e6f7a8b9c0dAA", "sessA");
    CHECK_INT(start(e.sv, &real), 200);
    CHECK_INT(consent(e.sv, &real), 200);
    CHECK(real.code[0] == '\0'); /* a platform session: no code */
    answer_until(e.sv, &real, "predict", 40);
    CHECK_STR(screen(&real), "predict");
    int at = real.pos[0];
    int responses = count(e.store, "SELECT count(*) FROM response");

    /* the stranger: the same id, another SESSION_ID, a fresh browser */
    Client thief;
    client_init(&thief, real.ext, "sessX");
    /* only a start that continues a run writes (and waits for a commit);
    ** a stranger's and a new id's are answered from memory */
    CHECK_INT(stores(e.sv, &thief), 0);
    CHECK_INT(stores(e.sv, &real), 1);
    Client same;
    client_init(&same, real.ext, "sessA");
    CHECK_INT(stores(e.sv, &same), 1);
    client_free(&same);
    CHECK_INT(start(e.sv, &thief), 200);
    Client fresh;
    client_init(&fresh, "5f1a2b3c4d5e6f7a8b9c0dBB", "sessB");
    CHECK_INT(stores(e.sv, &fresh), 0);
    CHECK_INT(start(e.sv, &fresh), 200);
    char *a = shape(&thief), *b = shape(&fresh);
    CHECK(strcmp(a, b) == 0); /* the same answer as for a new id */
    free(a);
    free(b);
    CHECK_STR(screen(&thief), "consent");
    CHECK_INT(thief.pos[0], 0);
    /* the participant goes on as if nothing happened */
    CHECK_INT(answer(e.sv, &real), 200);
    CHECK(real.pos[0] > at);
    at = real.pos[0];
    /* past the consent the stranger is told the id is taken, and still
    ** changes nothing */
    CHECK_INT(consent(e.sv, &thief), 409);
    CHECK_STR(json_string_value(json_object_get(thief.last, "error")),
              "resume");
    CHECK_STR(json_string_value(json_object_get(thief.last, "mode")),
              "session");
    CHECK_INT(answer(e.sv, &real), 200);
    CHECK(real.pos[0] > at);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant"), 1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM response"), responses + 2);
    /* the real participant's platform session in a fresh browser (another
    ** device) continues where they are */
    Client device;
    client_init(&device, real.ext, "sessA");
    CHECK_INT(start(e.sv, &device), 200);
    CHECK_INT(device.pos[0], real.pos[0]);
    CHECK(device.key[0] && strcmp(device.key, real.key) != 0);
    CHECK_INT(send_at(e.sv, &real, real.pos, json_array()), 409);
    ServeStats st;
    serve_stats(e.sv, &st);
    CHECK(st.refused >= 2);
    client_free(&real);
    client_free(&thief);
    client_free(&fresh);
    client_free(&device);
    env_close(&e);
    study_free(e.study);
    env_remove(&e);
}

static void test_codes(void)
{
    Env e;
    if (env_fresh(&e, "mini-forward", "serve-codes") != 0) {
        return;
    }
    CHECK_INT(env_open(&e, 0), 0);
    Client p;
    client_init(&p, "lab-17", NULL);
    CHECK_INT(start(e.sv, &p), 200);
    CHECK_INT(consent(e.sv, &p), 200);
    CHECK_INT((int)strlen(p.code), 9);
    CHECK(p.code[4] == '-');
    answer_until(e.sv, &p, "predict", 40);
    int at = p.pos[0];

    /* a fresh browser without the code: the consent, then "resume" */
    Client other;
    client_init(&other, "lab-17", NULL);
    CHECK_INT(start(e.sv, &other), 200);
    CHECK_STR(screen(&other), "consent");
    CHECK_INT(consent(e.sv, &other), 409);
    CHECK_STR(json_string_value(json_object_get(other.last, "mode")), "code");
    /* a wrong code, and a code for an id no one has: the same answer */
    CHECK_INT(start_with(e.sv, &other, json_pack("{s:s}", "code", "ZZZZ-ZZZZ")),
              409);
    char *wrong = json_dumps(other.last, JSON_SORT_KEYS);
    Client nobody;
    client_init(&nobody, "nobody-here", NULL);
    CHECK_INT(
        start_with(e.sv, &nobody, json_pack("{s:s}", "code", "ZZZZ-ZZZZ")),
        409);
    char *wrong2 = json_dumps(nobody.last, JSON_SORT_KEYS);
    CHECK(strcmp(wrong, wrong2) == 0);
    free(wrong);
    free(wrong2);
    /* the right one, as a person types it: continues where they are */
    char typed[16];
    snprintf(typed, sizeof typed, "%.4s %.4s", p.code, p.code + 5);
    for (char *q = typed; *q; q++) {
        *q = (char)(*q >= 'A' && *q <= 'Z' ? *q - 'A' + 'a' : *q);
    }
    CHECK_INT(start_with(e.sv, &other, json_pack("{s:s}", "code", typed)), 200);
    CHECK_INT(other.pos[0], at);
    CHECK(other.key[0]);
    /* and from then on with its key, without the code */
    CHECK_INT(start(e.sv, &other), 200);
    CHECK_INT(other.pos[0], at);
    /* guessing: 10 tries per id, then 429 */
    Client guess;
    client_init(&guess, "lab-17", NULL);
    int limited = 0;
    for (int i = 0; i < 14; i++) {
        limited += start_with(e.sv, &guess,
                              json_pack("{s:s}", "code", "0000-0000")) == 429;
    }
    CHECK(limited >= 3);
    client_free(&p);
    client_free(&other);
    client_free(&nobody);
    client_free(&guess);
    env_close(&e);

    /* "token": only the first browser continues, whatever it brings */
    e.study->online.resume = ONLINE_RESUME_TOKEN;
    CHECK_INT(env_open(&e, 0), 0);
    Client t;
    client_init(&t, "tok-1", "sessT");
    CHECK_INT(start(e.sv, &t), 200);
    CHECK_INT(consent(e.sv, &t), 200);
    CHECK(t.code[0] == '\0');
    Client t2;
    client_init(&t2, "tok-1", "sessT");
    CHECK_INT(start(e.sv, &t2), 200);
    CHECK_INT(t2.pos[0], 0);
    CHECK_INT(consent(e.sv, &t2), 409);
    CHECK_STR(json_string_value(json_object_get(t2.last, "mode")), "token");
    CHECK_INT(start(e.sv, &t), 200); /* the first browser, its key */
    CHECK_INT(t.pos[0], 1);
    client_free(&t);
    client_free(&t2);
    env_close(&e);

    /* "id": anyone with the id (a lab's own links) */
    e.study->online.resume = ONLINE_RESUME_ID;
    CHECK_INT(env_open(&e, 0), 0);
    Client i1, i2;
    client_init(&i1, "desk-3", NULL);
    client_init(&i2, "desk-3", NULL);
    CHECK_INT(start(e.sv, &i1), 200);
    CHECK_INT(consent(e.sv, &i1), 200);
    CHECK_INT(start(e.sv, &i2), 200);
    CHECK_INT(i2.pos[0], 1);
    client_free(&i1);
    client_free(&i2);
    env_close(&e);
    study_free(e.study);
    env_remove(&e);
}

static long long file_bytes(const char *path)
{
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    FILE *f = fopen(path, "rb");
    long long n = 0;
    if (f) {
        fseek(f, 0, SEEK_END);
        n = ftell(f);
        fclose(f);
    }
    return n;
}

static void test_bounded(void)
{
    Env e;
    if (env_fresh(&e, "mini-forward", "serve-bounded") != 0) {
        return;
    }
    ServeConfig cfg = {.max_waiting = 50,
                       .rate_per_s = 1000,
                       .rate_burst = 1000,
                       .arrive_per_s = 1000,
                       .arrive_burst = 1000};
    CHECK_INT(env_open_cfg(&e, &cfg), 0);
    /* made-up ids: nothing stored before the consent */
    for (int i = 0; i < 120; i++) {
        char id[32];
        snprintf(id, sizeof id, "made-up-%d", i);
        Client m;
        client_init(&m, id, "s");
        CHECK_INT(start(e.sv, &m), 200);
        client_free(&m);
    }
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant"), 0);
    CHECK_INT(count(e.store, "SELECT count(*) FROM event"), 0);
    CHECK_INT(count(e.store, "SELECT count(*) FROM trial"), 0);
    ServeStats st;
    serve_stats(e.sv, &st);
    CHECK_INT(st.waiting, 50); /* the longest idle were forgotten */
    CHECK(st.tokens <= 2 * 50);

    /* a participant restarting the link again and again, from ever other
    ** browsers (with the key): at most CLIENTS_MAX start events, two
    ** tokens */
    Client r;
    client_init(&r, "restarter", "sessR");
    CHECK_INT(start(e.sv, &r), 200);
    CHECK_INT(consent(e.sv, &r), 200);
    for (int i = 0; i < 300; i++) {
        char ua[64];
        snprintf(ua, sizeof ua, "Mozilla/5.0 agent %d", i);
        json_t *client = json_pack("{s:s,s:s,s:s}", "ua", ua, "screen",
                                   "1280x800", "lang", "en");
        json_t *pad = json_pack("{s:o}", "client", client);
        CHECK_INT(start_with(e.sv, &r, pad), 200);
    }
    int starts = count(e.store, "SELECT count(*) FROM event WHERE kind = "
                                "'online_start'");
    CHECK_INT(starts, 8); /* CLIENTS_MAX */
    long long size = file_bytes(e.path);
    /* the same browser restarting: nothing more at all */
    for (int i = 0; i < 300; i++) {
        CHECK_INT(start(e.sv, &r), 200);
    }
    CHECK_INT(count(e.store, "SELECT count(*) FROM event WHERE kind = "
                             "'online_start'"),
              starts);
    CHECK(file_bytes(e.path) <= size + 65536);
    serve_stats(e.sv, &st);
    CHECK_INT(st.known, 1);
    CHECK(st.tokens <= 2 * 50 + 2);
    /* a stranger restarting a known id: forgotten as made-up ids are */
    for (int i = 0; i < 200; i++) {
        Client s;
        client_init(&s, "restarter", "other");
        CHECK_INT(start(e.sv, &s), 200);
        client_free(&s);
    }
    serve_stats(e.sv, &st);
    CHECK_INT(st.waiting, 50);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant"), 1);
    client_free(&r);
    env_close(&e);
    study_free(e.study);
    env_remove(&e);
}

static void test_pilot(void)
{
    Env e;
    if (env_fresh(&e, "mini-forward", "serve-pilot") != 0) {
        return;
    }
    CHECK_INT(env_open(&e, 0), 0);
    const char *secret = serve_pilot_secret(e.sv);
    CHECK_INT((int)strlen(secret), 24);
    char keep[32];
    snprintf(keep, sizeof keep, "%s", secret);
    Client p1, p2, p3;
    client_init(&p1, "claims-pilot", NULL);
    client_init(&p2, "real-pilot", NULL);
    client_init(&p3, "wrong-pilot", NULL);
    CHECK_INT(start_with(e.sv, &p1, json_pack("{s:s}", "pilot", "1")), 200);
    CHECK_INT(start_with(e.sv, &p2, json_pack("{s:s}", "pilot", secret)), 200);
    CHECK_INT(start_with(e.sv, &p3, json_pack("{s:b}", "pilot", 1)), 200);
    CHECK_INT(consent(e.sv, &p1), 200);
    CHECK_INT(consent(e.sv, &p2), 200);
    CHECK_INT(consent(e.sv, &p3), 200);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant WHERE pilot = "
                             "1 AND code = 'real-pilot'"),
              1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant WHERE pilot = "
                             "1"),
              1);
    /* the same secret on every run of this database */
    env_close(&e);
    CHECK_INT(env_open(&e, 0), 0);
    CHECK_STR(serve_pilot_secret(e.sv), keep);
    client_free(&p1);
    client_free(&p2);
    client_free(&p3);
    env_close(&e);
    study_free(e.study);
    env_remove(&e);
}

int main(void)
{
    test_takeover();
    test_codes();
    test_bounded();
    test_pilot();
    return TEST_REPORT();
}

/*
** The server's clock for the timing rules of simlab serve
** (serve/serve_clock.h), without HTTP: Continue on a page with a minimum
** reading time of 20 s sent 0.3 s after the page with a stamp claiming
** 20.5 s is refused like an input before its time (and logged); forged
** ticks do not end an 8 s deadline; an answer that reaches the server
** long after the deadline times out whatever its stamp; a bot answering
** every screen at once cannot get through faster than the pages allow. An
** honest browser's stamps (clock skewed, network delays) are never moved:
** its response times are stored as it measured them, also when it sends
** its journal again after the server was restarted.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "serve/serve_clock.h"
#include "harness.h"
#include "test_study.h"
#include "serve_client.h"

/* A raw input (kind, key or NULL) stamped t_ms. */
static json_t *stamped(Client *c, const char *kind, const char *key,
                       double t_ms)
{
    json_t *j =
        json_pack("{s:i,s:s,s:f}", "n", c->next_n++, "kind", kind, "t", t_ms);
    if (key) {
        json_object_set_new(j, "key", json_string(key));
    }
    return j;
}

static int send_one(Serve *sv, Client *c, json_t *in)
{
    json_t *a = json_array();
    json_array_append_new(a, in);
    return send_at(sv, c, c->pos, a);
}

static double sql_real(Store *st, const char *sql)
{
    sqlite3_stmt *q;
    double v = NAN;
    if (sqlite3_prepare_v2(store_db(st), sql, -1, &q, NULL) == SQLITE_OK &&
        sqlite3_step(q) == SQLITE_ROW) {
        v = sqlite3_column_double(q, 0);
    }
    sqlite3_finalize(q);
    return v;
}

static void test_pure(void)
{
    ServeClock k;
    memset(&k, 0, sizeof k);
    serve_clock_reset(&k);
    int64_t S = 1000000000000LL, off = -3000000000LL;
    serve_clock_screen(&k, 1, S);
    /* before any onset the stamp passes (the session ignores it) */
    CHECK(serve_clock_input(&k, 5, S, 0) == 5);
    /* an honest onset 40 ms after the screen was sent */
    int64_t on =
        serve_clock_onset(&k, S + off + 40000000LL, S + 900000000LL, 1);
    CHECK(on == S + off + 40000000LL);
    /* an input 700 ms after it, received 20 ms later: unchanged */
    int64_t t = S + off + 740000000LL;
    CHECK(serve_clock_input(&k, t, S + 760000000LL, 0) == t);
    /* a stamp 20 s after the onset, received 0.3 s after the screen: the
    ** latest time the server can vouch for */
    int64_t forged = on + 20000000000LL;
    int64_t got = serve_clock_input(&k, forged, S + 300000000LL, 0);
    CHECK(got - on <= 300000000LL);
    /* an 8 s deadline: an answer stamped 1 s after the onset, received
    ** 12 s after the screen, is late (12 s less the grace); received 4 s
    ** after, it keeps its stamp */
    int64_t due = on + 8000000000LL;
    got = serve_clock_input(&k, on + 1000000000LL, S + 12000000000LL, due);
    CHECK(got >= due);
    CHECK(got - on >= 12000000000LL - SERVE_CLOCK_GRACE_NS - 1000000LL);
    got = serve_clock_input(&k, on + 1000000000LL, S + 4000000000LL, due);
    CHECK(got == on + 1000000000LL);
}

int main(void)
{
    test_pure();
    Env e;
    if (env_fresh(&e, "mini-forward", "serve-clock") != 0) {
        return 1;
    }
    /* the instructions ask 20 s of reading, predictions have 8 s */
    for (size_t i = 0; i < e.study->n_blocks; i++) {
        Block *b = &e.study->blocks[i];
        if (b->kind == BLOCK_INSTRUCTIONS) {
            b->min_seconds = 20;
        }
        if (b->kind == BLOCK_PREDICT) {
            b->time_limit_ms = 8000;
        }
    }
    CHECK_INT(env_open(&e, 0), 0);
    Client c;
    client_init(&c, "clock-1", "sess1");
    CHECK_INT(start(e.sv, &c), 200);
    CHECK_INT(answer(e.sv, &c), 200); /* the consent */
    CHECK_STR(screen(&c), "page");
    int page[3] = {c.pos[0], c.pos[1], c.pos[2]};

    /* Continue 0.3 s after the page was sent, stamped 20.5 s after its
    ** onset: refused like an early input, and logged */
    wait_ms(300);
    CHECK_INT(
        send_one(e.sv, &c, stamped(&c, "continue", NULL, c.onset + 20500)),
        200);
    CHECK(memcmp(c.pos, page, sizeof page) == 0);
    CHECK_INT(c.applied, 1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM event WHERE kind = "
                             "'client_clock'"),
              1);
    /* 20 s later on the server's clock: accepted */
    wait_ms(20000);
    CHECK_INT(send_one(e.sv, &c, stamped(&c, "continue", NULL, bms())), 200);
    CHECK(c.pos[0] > page[0]);

    /* up to the first prediction with a deadline */
    answer_until(e.sv, &c, "predict", 60);
    CHECK_STR(screen(&c), "predict");
    CHECK(json_object_get(c.view, "deadline") != NULL);
    int pred[3] = {c.pos[0], c.pos[1], c.pos[2]};
    /* forged ticks at the deadline, sent 0.2 s after the screen: nothing
    ** ends */
    wait_ms(200);
    CHECK_INT(send_one(e.sv, &c, stamped(&c, "tick", NULL, c.onset + 8005)),
              200);
    CHECK_INT(send_one(e.sv, &c, stamped(&c, "tick", NULL, c.onset + 60000)),
              200);
    CHECK(memcmp(c.pos, pred, sizeof pred) == 0);
    /* an honest answer 1 s after the onset: stored with the browser's own
    ** response time */
    wait_ms(800);
    double t = bms();
    double rt = t - c.onset;
    char key[32];
    snprintf(
        key, sizeof key, "%s",
        json_string_value(json_object_get(
            json_array_get(
                json_object_get(json_object_get(c.view, "choice"), "options"),
                0),
            "key")));
    CHECK_INT(send_one(e.sv, &c, stamped(&c, "key", key, t)), 200);
    CHECK(c.pos[0] > pred[0]);
    char sql[256];
    snprintf(sql, sizeof sql,
             "SELECT (response_ns - onset_ns) / 1e6 FROM response r JOIN "
             "participant p ON p.id = r.participant WHERE p.code = "
             "'clock-1' AND seq = %d",
             pred[0]);
    CHECK_NEAR(sql_real(e.store, sql), rt, 0.01);
    snprintf(sql, sizeof sql, "SELECT timed_out FROM response WHERE seq = %d",
             pred[0]);
    CHECK_INT(count(e.store, sql), 0);

    /* the next prediction: an answer stamped 1 s after the onset that
    ** reaches the server 12 s after the screen: too late */
    if (strcmp(screen(&c), "predict") == 0) {
        int next = c.pos[0];
        wait_ms(12000);
        CHECK_INT(send_one(e.sv, &c, stamped(&c, "key", key, c.onset + 1000)),
                  200);
        snprintf(sql, sizeof sql,
                 "SELECT timed_out FROM response WHERE seq = %d", next);
        CHECK_INT(count(e.store, sql), 1);
    } else {
        CHECK(0); /* two predictions in a row expected */
    }

    /* an honest browser sends its journal again after a restart: its
    ** stamps are its own, and kept */
    answer_until(e.sv, &c, "predict", 60);
    int before = c.pos[0];
    wait_ms(400);
    double t2 = bms(), rt2 = t2 - c.onset;
    json_t *again = stamped(&c, "key", key, t2);
    env_close(&e);
    wait_ms(3000); /* the server is down */
    CHECK_INT(env_open(&e, 0), 0);
    double onset = c.onset;
    CHECK_INT(start(e.sv, &c), 200); /* its key */
    CHECK_INT(c.pos[0], before);
    c.onset = onset; /* the journal's onset of that screen */
    CHECK_INT(send_one(e.sv, &c, again), 200);
    CHECK(c.pos[0] > before);
    snprintf(sql, sizeof sql,
             "SELECT (response_ns - onset_ns) / 1e6 FROM response WHERE seq "
             "= %d",
             before);
    CHECK_NEAR(sql_real(e.store, sql), rt2, 0.01);
    /* moved stamps so far: the forged Continue, the two ticks, the late
    ** answer; nothing of the honest ones */
    CHECK_INT(count(e.store, "SELECT count(*) FROM event WHERE kind = "
                             "'client_clock'"),
              4);
    client_free(&c);
    env_close(&e);

    /* a bot stamping every answer as long after the onset as the page
    ** asks, sent at once: it gets no further than the first page that
    ** asks for time */
    env_remove(&e);
    CHECK_INT(env_open(&e, 0), 0);
    Client bot;
    client_init(&bot, "bot-1", "sessB");
    CHECK_INT(start(e.sv, &bot), 200);
    int64_t t0 = now_ns;
    int screens = 0;
    while (strcmp(screen(&bot), "done") != 0 && screens++ < 200) {
        json_t *a = json_array();
        double at = bot.onset + 25000; /* always "25 s later" */
        json_t *ch = json_object_get(bot.view, "choice");
        if (json_object_get(bot.view, "quiz")) {
            json_array_append_new(a, stamped(&bot, "key", "1", at));
        } else if (ch) {
            json_array_append_new(
                a,
                stamped(&bot, "key",
                        json_string_value(json_object_get(
                            json_array_get(json_object_get(ch, "options"), 0),
                            "key")),
                        at));
        } else {
            json_array_append_new(a, stamped(&bot, "continue", NULL, at));
        }
        int before_bot[3] = {bot.pos[0], bot.pos[1], bot.pos[2]};
        if (send_at(e.sv, &bot, bot.pos, a) != 200 ||
            memcmp(before_bot, bot.pos, sizeof before_bot) == 0) {
            break;
        }
    }
    CHECK(strcmp(screen(&bot), "done") != 0);
    CHECK_STR(screen(&bot), "page"); /* held at the 20 s page */
    CHECK(now_ns - t0 < 5000000000LL);
    client_free(&bot);
    env_close(&e);
    study_free(e.study);
    env_remove(&e);
    return TEST_REPORT();
}

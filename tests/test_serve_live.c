/*
** simlab serve's protocol without HTTP (serve/serve_live.h): a new id's
** consent and its enrolment, tokens (unknown after a restart, superseded
** by a new start), the browser's key,
** inputs applied once by their number at their position (duplicates and
** gaps), a restart of the server in the middle of a step replayed from the
** browser's journal, input validation and the rate limit, what the screen
** JSON leaves out, the completion code only after the last response, and
** the numbers of an explanation's hover values in its JSON.
*/
#include <stdio.h>
#include <stdlib.h>
#include <sqlite3.h>
#include <string.h>
#include <unistd.h>

#include "serve/serve_live.h"
#include "serve/serve_view.h"
#include "common/sim_alloc.h"
#include "experiment/store.h"
#include "harness.h"
#include "test_study.h"
#include "serve_client.h"

/* The hover number of value k of the node, -2 when it has no such value. */
static int hover_of(json_t *node, size_t k)
{
    json_t *v = json_array_get(json_object_get(node, "values"), k);
    return v ? (int)json_integer_value(json_object_get(v, "hover")) : -2;
}

static json_t *payload(json_t *node)
{
    return json_object_get(node, "payload");
}

/* A composite of tokens (3), bars (2), a text and a layout of a gallery (2)
** and features (1): the values numbered in the order expl_hover_targets
** numbers them (each node's own first, then its parts'), the reveal on the
** top node only. */
static void test_hover_numbers(const Study *study)
{
    char a[] = "a", b[] = "b", c[] = "c", x[] = "x", y[] = "y", z[] = "z";
    char one[] = "one", two[] = "two", words[] = "words";
    ExplToken tok[3] = {{a, 1, 0}, {b, -1, 0}, {c, 0.5, 0}};
    ExplFeature bar[2] = {{x, NULL, 1, NULL}, {y, NULL, 2, NULL}};
    ExplFeature feat[1] = {{z, NULL, 0.3, NULL}};
    ExplImage img[2] = {{NULL, NULL, 0, 0, one, 0.1},
                        {NULL, NULL, 0, 0, two, 0.2}};
    Explanation inner[2], parts[4], top;
    memset(inner, 0, sizeof inner);
    memset(parts, 0, sizeof parts);
    memset(&top, 0, sizeof top);
    inner[0].kind = EXPL_GALLERY;
    inner[0].images = img;
    inner[0].n_images = 2;
    inner[1].kind = EXPL_FEATURES;
    inner[1].features = feat;
    inner[1].n_features = 1;
    parts[0].kind = EXPL_TOKENS;
    parts[0].tokens = tok;
    parts[0].n_tokens = 3;
    parts[1].kind = EXPL_BARS;
    parts[1].features = bar;
    parts[1].n_features = 2;
    parts[1].decimals = 2;
    parts[2].kind = EXPL_TEXT;
    parts[2].text = words;
    parts[3].kind = EXPL_LAYOUT;
    parts[3].parts = inner;
    parts[3].n_parts = 2;
    parts[3].row = 1;
    top.kind = EXPL_COMPOSITE;
    top.reveal = EXPL_REVEAL_HOVER;
    top.parts = parts;
    top.n_parts = 4;
    CHECK_INT((int)expl_hover_targets(&top, NULL, NULL), 8);
    ServeMediaList media;
    memset(&media, 0, sizeof media);
    ServeView *views = NULL;
    SimError err;
    CHECK_INT(serve_view_new(study, &views, &err), SIM_OK);
    json_t *j = serve_expl_json(views, &top, NULL, 1, "m/", &media);
    json_t *p = json_object_get(j, "parts");
    CHECK(strcmp(json_string_value(json_object_get(payload(j), "reveal")),
                 "hover") == 0);
    CHECK(strcmp(json_string_value(
                     json_object_get(payload(json_array_get(p, 0)), "reveal")),
                 "always") == 0);
    CHECK_INT(hover_of(j, 0), -2);
    CHECK_INT(hover_of(json_array_get(p, 0), 0), 0);
    CHECK_INT(hover_of(json_array_get(p, 0), 2), 2);
    CHECK_INT(hover_of(json_array_get(p, 1), 0), 3);
    CHECK_INT(hover_of(json_array_get(p, 1), 1), 4);
    CHECK_INT(hover_of(json_array_get(p, 2), 0), -2);
    json_t *lay = json_array_get(p, 3);
    CHECK_INT(hover_of(lay, 0), -2);
    CHECK(json_is_true(json_object_get(payload(lay), "row")));
    json_t *q = json_object_get(lay, "parts");
    CHECK_INT(hover_of(json_array_get(q, 0), 0), 5);
    CHECK_INT(hover_of(json_array_get(q, 0), 1), 6);
    CHECK_INT(hover_of(json_array_get(q, 1), 0), 7);
    json_t *g = json_object_get(payload(json_array_get(q, 0)), "images");
    CHECK_INT((int)json_array_size(g), 2);
    CHECK(strcmp(json_string_value(
                     json_object_get(json_array_get(g, 1), "caption")),
                 "two") == 0);
    CHECK_INT((int)json_integer_value(
                  json_object_get(payload(json_array_get(p, 1)), "decimals")),
              2);
    /* the texts are the model's: the bars' weights in the study's number
    ** format, signed only where the bars are */
    json_t *v0 =
        json_array_get(json_object_get(json_array_get(p, 1), "values"), 0);
    CHECK_STR(json_string_value(json_object_get(v0, "text")), "1.00");
    CHECK_STR(json_string_value(json_object_get(v0, "label")), "x");
    serve_view_free(views);
    json_decref(j);
    serve_media_free(&media);
}

int main(void)
{
    Env e;
    if (env_fresh(&e, "mini-forward", "serve-live") != 0) {
        return 1;
    }
    e.study->online.completion_code = sim_strdup("CODE7");
    e.study->online.completion_url =
        sim_strdup("https://app.prolific.com/submissions/complete?cc=CODE7");
    CHECK_INT(env_open(&e, 0), 0);
    test_hover_numbers(e.study);
    CHECK(serve_waits_for_consent(e.sv));

    /* a link without an id */
    ServeReply r;
    json_t *b = json_pack("{s:s}", "participant", "has space");
    serve_start(e.sv, b, now_ns, &r);
    CHECK_INT(r.status, 400);
    json_decref(r.body);
    json_decref(b);

    /* the consent of a new id, then enrolled with it */
    Client c;
    client_init(&c, "prolific-1", NULL);
    CHECK_INT(start(e.sv, &c), 200);
    CHECK_STR(screen(&c), "consent");
    CHECK_INT(c.pos[0], 0);
    CHECK(strlen(c.token) == 32);
    CHECK(strlen(c.key) == 32);
    CHECK(c.completion == NULL);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant"), 0);
    int consent[3] = {0, 1, 0};
    json_t *one = json_array();
    json_array_append_new(one, in_kind(&c, "continue"));
    json_t *again = json_deep_copy(one);
    CHECK_INT(send_at(e.sv, &c, consent, one), 200);
    CHECK_INT(c.pos[0], 1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant"), 1);
    /* no platform session in the link: a resume code is shown */
    CHECK_INT((int)strlen(c.code), 9);
    /* the same input again (a resend after a lost reply): dropped */
    CHECK_INT(send_at(e.sv, &c, consent, again), 200);
    CHECK_INT(c.pos[0], 1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM response"), 1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM online_access WHERE "
                             "mode = 'code' AND key_hash IS NOT NULL AND "
                             "code_hash IS NOT NULL"),
              1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM event WHERE kind = "
                             "'online_start'"),
              1);

    /* a gap: input 1 before input 0 is not applied */
    json_t *gap = json_array();
    c.next_n = 1;
    json_array_append_new(gap, in_kind(&c, "continue"));
    CHECK_INT(send_at(e.sv, &c, c.pos, gap), 200);
    CHECK_INT(c.pos[0], 1);
    CHECK_INT(c.applied, 0);
    c.next_n = 0;

    /* bad inputs */
    const char *bad[] = {
        "[{\"n\":0,\"kind\":\"explode\",\"t\":1}]",
        "[{\"n\":0,\"kind\":\"continue\"}]",
        "[{\"n\":0,\"kind\":\"key\",\"key\":\"<script>\",\"t\":1}]",
        "[{\"n\":-1,\"kind\":\"continue\",\"t\":1}]",
        "[{\"n\":0,\"kind\":\"continue\",\"t\":1e300}]",
        "[{\"n\":0,\"kind\":\"choose\",\"value\":\"x\",\"t\":1}]",
        "[{\"n\":0,\"kind\":\"reveal\",\"value\":-1,\"t\":1}]",
        "[{\"n\":0,\"kind\":\"hover\",\"value\":-2,\"t\":1}]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        json_error_t je;
        json_t *ins = json_loads(bad[i], 0, &je);
        CHECK_INT(send_at(e.sv, &c, c.pos, ins), 400);
    }
    json_t *many = json_array();
    for (int i = 0; i < 65; i++) {
        json_array_append_new(many, in_kind(&c, "continue"));
    }
    CHECK_INT(send_at(e.sv, &c, c.pos, many), 400);
    c.next_n = 0;
    char *big = malloc(20000);
    memset(big, 'a', 19999);
    big[19999] = 0;
    json_t *ans = json_array();
    json_t *a1 = in_kind(&c, "answer");
    json_object_set_new(a1, "text", json_string(big));
    json_array_append_new(ans, a1);
    CHECK_INT(send_at(e.sv, &c, c.pos, ans), 400);
    free(big);
    c.next_n = 0;
    CHECK_INT(count(e.store, "SELECT count(*) FROM response"), 1);

    /* a restart in the middle of the study: the old token is unknown, the
    ** same browser (its key) continues where it was */
    int before[3] = {c.pos[0], c.pos[1], c.pos[2]};
    char old[40];
    snprintf(old, sizeof old, "%s", c.token);
    env_close(&e);
    CHECK_INT(env_open(&e, 0), 0);
    CHECK_INT(send_at(e.sv, &c, c.pos, json_array()), 401);
    CHECK_INT(start(e.sv, &c), 200);
    CHECK(memcmp(before, c.pos, sizeof before) == 0);
    CHECK(strcmp(old, c.token) != 0);
    /* a second start (another window of the browser): the first token is
    ** superseded */
    Client other = c;
    other.last = other.view = other.completion = NULL;
    CHECK_INT(start(e.sv, &other), 200);
    CHECK_INT(send_at(e.sv, &c, c.pos, json_array()), 409);
    client_free(&c);
    c = other;

    /* answer everything; predictions never carry the model's output */
    int predicts = 0, leaks = 0, screens = 0;
    while (strcmp(screen(&c), "done") != 0 && screens++ < 300) {
        if (strcmp(screen(&c), "predict") == 0) {
            predicts++;
            json_t *item = json_array_get(json_object_get(c.view, "cards"), 0);
            leaks += item == NULL ||
                     json_array_size(json_object_get(item, "pills")) != 0 ||
                     json_object_get(c.view, "feedback") != NULL;
            char *text = json_dumps(c.view, 0);
            leaks += strstr(text, "correct") != NULL;
            free(text);
        }
        CHECK(c.completion == NULL);
        if (answer(e.sv, &c) != 200) {
            break;
        }
    }
    CHECK(predicts > 4);
    CHECK_INT(leaks, 0);
    CHECK_STR(screen(&c), "done");
    CHECK(c.completion != NULL);
    CHECK_STR(json_string_value(json_object_get(c.completion, "code")),
              "CODE7");
    CHECK_INT(count(e.store, "SELECT count(*) FROM response WHERE done=1"),
              count(e.store, "SELECT count(*) FROM trial"));
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant WHERE "
                             "status='completed' AND code='prolific-1'"),
              1);
    CHECK_INT(count(e.store, "SELECT count(*) FROM response WHERE "
                             "station != 'webtest'"),
              0);
    /* an honest browser's stamps are never moved by the server's clock */
    CHECK_INT(count(e.store, "SELECT count(*) FROM event WHERE kind = "
                             "'client_clock'"),
              0);
    /* back after completing: the code again, nobody new */
    CHECK_INT(start(e.sv, &c), 200);
    CHECK_STR(screen(&c), "done");
    CHECK(c.completion != NULL);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant"), 1);
    const char *path = NULL, *type = NULL;
    CHECK(serve_media(e.sv, c.token, 1, 99, &path, &type) != SIM_OK);
    CHECK(serve_media(e.sv, "x", 1, 0, &path, &type) != SIM_OK);

    /* declined: the end without a code, and nothing stored */
    Client d;
    client_init(&d, "decliner", NULL);
    CHECK_INT(start(e.sv, &d), 200);
    json_t *dec = json_array();
    json_array_append_new(dec, in_kind(&d, "decline"));
    CHECK_INT(send_at(e.sv, &d, d.pos, dec), 200);
    CHECK_STR(screen(&d), "done");
    CHECK(d.completion == NULL);
    CHECK_INT(count(e.store, "SELECT count(*) FROM participant WHERE "
                             "code='decliner'"),
              0);
    ServeStats st;
    serve_stats(e.sv, &st);
    CHECK_INT(st.declined, 1);
    /* the same browser again: still declined */
    CHECK_INT(start(e.sv, &d), 200);
    CHECK_STR(screen(&d), "done");
    env_close(&e);

    /* the rate limit */
    CHECK_INT(env_open(&e, 3), 0);
    Client f;
    client_init(&f, "fast", NULL);
    CHECK_INT(start(e.sv, &f), 200);
    int limited = 0;
    for (int i = 0; i < 6; i++) {
        limited += send_at(e.sv, &f, f.pos, json_array()) == 429;
    }
    CHECK(limited >= 3);
    wait_ms(2000); /* a while later it answers again */
    CHECK_INT(send_at(e.sv, &f, f.pos, json_array()), 200);
    env_close(&e);

    client_free(&c);
    client_free(&d);
    client_free(&f);
    study_free(e.study);
    env_remove(&e);
    return TEST_REPORT();
}

/*
** Unit tests of the runner's control without a window: input translation
** (SDL events built by hand -> session inputs and runner commands) and the
** start-screen controller on a real store (code entry, pilot, condition
** choice, enrolling, the unfinished list).
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include <math.h>

#include "app/input.h"
#include "app/scene.h"
#include "app/start.h"
#include "common/sim_alloc.h"
#include "experiment/store.h"
#include "stimuli/study.h"

/* ------------------------------------------------------ input translation */

static SDL_Event key(SDL_Keycode sym, Uint16 mod, int repeat)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.repeat = (Uint8)repeat;
    e.key.keysym.sym = sym;
    e.key.keysym.mod = mod;
    return e;
}

static SDL_Event text(const char *s)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_TEXTINPUT;
    snprintf(e.text.text, sizeof e.text.text, "%s", s);
    return e;
}

static SDL_Event click(int x, int y, int button, int clicks)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.button = (Uint8)button;
    e.button.clicks = (Uint8)clicks;
    e.button.x = x;
    e.button.y = y;
    return e;
}

static SDL_Event window_event(Uint8 what)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = what;
    return e;
}

/* A participant screen: a body 400 px high holding 1000 px of content with
** two answer buttons and a disabled one, a Continue button in the fixed
** bar, and a dialog's Yes on the overlay. px_per_pt = 2 (HiDPI). */
static void make_scene(Scene *sc)
{
    scene_init(sc);
    sc->body = (SDL_FRect){0, 100, 800, 400};
    sc->body_h = 1000;
    sc->layer = LAYER_BODY;
    scene_begin_hit(sc, (SDL_FRect){0, 100, 100, 50}, ACT_CHOOSE, 0, 1);
    scene_begin_hit(sc, (SDL_FRect){200, 100, 100, 50}, ACT_CHOOSE, 1, 1);
    scene_begin_hit(sc, (SDL_FRect){400, 100, 100, 50}, ACT_RATE, 3, 0);
    sc->layer = LAYER_FIXED;
    scene_begin_hit(sc, (SDL_FRect){600, 520, 100, 50}, ACT_CONTINUE, -1, 1);
    sc->layer = LAYER_OVERLAY;
    scene_begin_hit(sc, (SDL_FRect){600, 600, 100, 50}, ACT_CONFIRM_YES, 0, 1);
    scene_end_hit(sc);
}

static InputCtx run_ctx(const Scene *sc)
{
    InputCtx c;
    memset(&c, 0, sizeof c);
    c.session = 1;
    c.scene = sc;
    c.px_per_pt = 2;
    c.u = 20;
    return c;
}

static RunCmdKind tr(Input *in, const InputCtx *c, SDL_Event e, RunCmd *out)
{
    return input_translate(in, c, &e, 12345, out);
}

static void test_keys_in_a_run(void)
{
    Scene sc;
    make_scene(&sc);
    InputCtx c = run_ctx(&sc);
    Input in = {0};
    RunCmd r;
    /* Letters, digits and Enter go to the session by name, stamped. */
    CHECK_INT(tr(&in, &c, key(SDLK_f, 0, 0), &r), RUN_SESSION);
    CHECK_INT(r.sim.kind, SIM_IN_KEY);
    CHECK_STR(r.sim.key, "f");
    CHECK(r.sim.t_ns == 12345);
    tr(&in, &c, key(SDLK_KP_1, 0, 0), &r);
    CHECK_STR(r.sim.key, "1");
    tr(&in, &c, key(SDLK_RETURN, 0, 0), &r);
    CHECK_STR(r.sim.key, "return");
    tr(&in, &c, key(SDLK_SPACE, KMOD_LSHIFT, 0), &r);
    CHECK_STR(r.sim.key, "space");
    /* Held keys, Escape, F4 and Alt/Ctrl combinations never answer. */
    CHECK_INT(tr(&in, &c, key(SDLK_f, 0, 1), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, key(SDLK_ESCAPE, 0, 0), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, key(SDLK_F4, KMOD_LALT, 0), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, key(SDLK_f, KMOD_LALT, 0), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, key(SDLK_f, KMOD_RCTRL, 0), &r), RUN_NONE);
    /* Text size for everyone. */
    CHECK_INT(tr(&in, &c, key(SDLK_EQUALS, KMOD_LCTRL, 0), &r), RUN_FONT);
    CHECK_INT(r.value, 1);
    tr(&in, &c, key(SDLK_KP_MINUS, KMOD_LCTRL, 0), &r);
    CHECK_INT(r.value, -1);
    tr(&in, &c, key(SDLK_0, KMOD_LCTRL, 0), &r);
    CHECK_INT(r.kind, RUN_FONT);
    CHECK_INT(r.value, 0);
    /* Scrolling: 3 u per step, 85 % of the body per page, to the ends. */
    CHECK_INT(tr(&in, &c, key(SDLK_DOWN, 0, 0), &r), RUN_SCROLL);
    CHECK_NEAR(r.dy, 60, 1e-6);
    tr(&in, &c, key(SDLK_UP, 0, 0), &r);
    CHECK_NEAR(r.dy, -60, 1e-6);
    tr(&in, &c, key(SDLK_PAGEDOWN, 0, 0), &r);
    CHECK_NEAR(r.dy, 340, 1e-3);
    tr(&in, &c, key(SDLK_HOME, 0, 0), &r);
    CHECK_NEAR(r.dy, -1000, 1e-6);
    SDL_Event w;
    memset(&w, 0, sizeof w);
    w.type = SDL_MOUSEWHEEL;
    w.wheel.y = -2;
    CHECK_INT(tr(&in, &c, w, &r), RUN_SCROLL);
    CHECK_NEAR(r.dy, 120, 1e-6);
    scene_free(&sc);
}

static void test_experimenter_chords(void)
{
    Scene sc;
    make_scene(&sc);
    InputCtx c = run_ctx(&sc);
    Input in = {0};
    RunCmd r;
    Uint16 cs = KMOD_LCTRL | KMOD_LSHIFT;
    CHECK_INT(tr(&in, &c, key(SDLK_p, cs, 0), &r), RUN_ASK);
    CHECK_INT(r.value, CONFIRM_PAUSE);
    CHECK_INT(tr(&in, &c, key(SDLK_a, cs, 0), &r), RUN_ASK);
    CHECK_INT(r.value, CONFIRM_ABORT);
    CHECK_INT(tr(&in, &c, key(SDLK_n, cs, 0), &r), RUN_NONE);
    /* Paused: the chord resumes at once. */
    c.paused = 1;
    CHECK_INT(tr(&in, &c, key(SDLK_p, cs, 0), &r), RUN_SESSION);
    CHECK_INT(r.sim.kind, SIM_IN_RESUME);
    c.paused = 0;
    /* Over: no pause or abort, N goes back to the start screen. */
    c.finished = 1;
    CHECK_INT(tr(&in, &c, key(SDLK_p, cs, 0), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, key(SDLK_a, cs, 0), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, key(SDLK_n, cs, 0), &r), RUN_NEXT);
    c.finished = 0;
    /* A dialog takes Y, N and Escape and nothing else. */
    c.confirm = CONFIRM_ABORT;
    CHECK_INT(tr(&in, &c, key(SDLK_y, 0, 0), &r), RUN_CONFIRM);
    CHECK_INT(r.value, 1);
    CHECK(r.t_ns == 12345);
    CHECK_INT(tr(&in, &c, key(SDLK_n, 0, 0), &r), RUN_CONFIRM);
    CHECK_INT(r.value, 0);
    CHECK_INT(tr(&in, &c, key(SDLK_ESCAPE, 0, 0), &r), RUN_CONFIRM);
    CHECK_INT(r.value, 0);
    CHECK_INT(tr(&in, &c, key(SDLK_f, 0, 0), &r), RUN_NONE);
    /* Leaving is blocked and logged; focus changes are logged. */
    c.confirm = CONFIRM_NONE;
    SDL_Event q;
    memset(&q, 0, sizeof q);
    q.type = SDL_QUIT;
    CHECK_INT(tr(&in, &c, q, &r), RUN_QUIT_BLOCKED);
    CHECK_STR(r.text, "quit");
    CHECK_INT(tr(&in, &c, window_event(SDL_WINDOWEVENT_CLOSE), &r),
              RUN_QUIT_BLOCKED);
    CHECK_STR(r.text, "close");
    CHECK_INT(tr(&in, &c, window_event(SDL_WINDOWEVENT_FOCUS_LOST), &r),
              RUN_FOCUS);
    CHECK_INT(r.value, 0);
    CHECK_INT(tr(&in, &c, window_event(SDL_WINDOWEVENT_RESIZED), &r),
              RUN_RESIZED);
    /* Without a run, nothing to block or log. */
    c.session = 0;
    CHECK_INT(tr(&in, &c, q, &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, window_event(SDL_WINDOWEVENT_CLOSE), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, window_event(SDL_WINDOWEVENT_FOCUS_GAINED), &r),
              RUN_NONE);
    CHECK_INT(tr(&in, &c, key(SDLK_f, 0, 0), &r), RUN_NONE);
    scene_free(&sc);
}

static void test_clicks(void)
{
    Scene sc;
    make_scene(&sc);
    InputCtx c = run_ctx(&sc);
    Input in = {0};
    RunCmd r;
    /* Window points are half the output pixels. */
    CHECK_INT(tr(&in, &c, click(125, 60, SDL_BUTTON_LEFT, 1), &r), RUN_SESSION);
    CHECK_INT(r.sim.kind, SIM_IN_CHOOSE);
    CHECK_INT(r.sim.value, 1);
    CHECK(r.sim.t_ns == 12345);
    CHECK_INT(tr(&in, &c, click(325, 270, SDL_BUTTON_LEFT, 1), &r),
              RUN_SESSION);
    CHECK_INT(r.sim.kind, SIM_IN_CONTINUE);
    /* Double clicks, other buttons, disabled buttons, empty space. */
    CHECK_INT(tr(&in, &c, click(125, 60, SDL_BUTTON_LEFT, 2), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, click(125, 60, SDL_BUTTON_RIGHT, 1), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, click(225, 60, SDL_BUTTON_LEFT, 1), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, click(390, 10, SDL_BUTTON_LEFT, 1), &r), RUN_NONE);
    /* The body scrolls under its viewport: the buttons moved up. */
    c.scroll = 30;
    CHECK_INT(tr(&in, &c, click(125, 55, SDL_BUTTON_LEFT, 1), &r), RUN_SESSION);
    CHECK_INT(r.sim.value, 1);
    c.scroll = 60;
    CHECK_INT(tr(&in, &c, click(125, 50, SDL_BUTTON_LEFT, 1), &r), RUN_NONE);
    c.scroll = 0;
    /* With a dialog open only the dialog takes clicks. */
    c.confirm = CONFIRM_PAUSE;
    CHECK_INT(tr(&in, &c, click(125, 60, SDL_BUTTON_LEFT, 1), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, click(325, 310, SDL_BUTTON_LEFT, 1), &r),
              RUN_CONFIRM);
    CHECK_INT(r.value, 1);
    c.confirm = CONFIRM_NONE;
    /* Hover follows the mouse. */
    SDL_Event m;
    memset(&m, 0, sizeof m);
    m.type = SDL_MOUSEMOTION;
    m.motion.x = 25;
    m.motion.y = 60;
    CHECK_INT(tr(&in, &c, m, &r), RUN_HOVER);
    CHECK_INT(r.value, 0);
    m.motion.y = 10;
    tr(&in, &c, m, &r);
    CHECK_INT(r.value, -1);
    /* Answer buttons do nothing outside a run. */
    c.session = 0;
    c.start = 1;
    CHECK_INT(tr(&in, &c, click(125, 60, SDL_BUTTON_LEFT, 1), &r), RUN_NONE);
    scene_free(&sc);
}

/* A questionnaire: typed text (whole, as an input method commits it) goes
** to the session, but not the text of a key taken as a command; clicks on
** fields and options become focus and picks. */
static void test_questionnaire_input(void)
{
    Scene sc;
    scene_init(&sc);
    sc.body = (SDL_FRect){0, 100, 800, 400};
    sc.body_h = 400;
    sc.layer = LAYER_BODY;
    scene_begin_hit(&sc, (SDL_FRect){0, 100, 200, 50}, ACT_FIELD, 0, 1);
    scene_begin_hit(&sc, (SDL_FRect){0, 200, 200, 50}, ACT_PICK, 1 * 256 + 2,
                    1);
    scene_end_hit(&sc);
    InputCtx c = run_ctx(&sc);
    Input in = {0};
    RunCmd r;
    /* on other screens of a run, text goes nowhere */
    CHECK_INT(tr(&in, &c, text("a"), &r), RUN_NONE);
    c.typing = 1;
    CHECK_INT(tr(&in, &c, key(SDLK_a, 0, 0), &r), RUN_SESSION);
    CHECK_INT(tr(&in, &c, text("a"), &r), RUN_SESSION);
    CHECK_INT(r.sim.kind, SIM_IN_TEXT);
    CHECK_STR(r.sim.key, "a");
    /* an input method's commit arrives without a key of its own */
    CHECK_INT(tr(&in, &c, text("\xe4\xb8\xad\xe6\x96\x87"), &r), RUN_SESSION);
    CHECK_STR(r.sim.key, "\xe4\xb8\xad\xe6\x96\x87");
    /* Backspace and Return reach the session as keys (it maps them) */
    CHECK_INT(tr(&in, &c, key(SDLK_BACKSPACE, 0, 0), &r), RUN_SESSION);
    CHECK_STR(r.sim.key, "backspace");
    /* a chord's letter is not typed; the next text is again */
    CHECK_INT(tr(&in, &c, key(SDLK_p, KMOD_LCTRL | KMOD_LSHIFT, 0), &r),
              RUN_ASK);
    CHECK_INT(tr(&in, &c, text("p"), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, text("b"), &r), RUN_SESSION);
    /* nor is text while a dialog is open */
    c.confirm = CONFIRM_PAUSE;
    CHECK_INT(tr(&in, &c, text("y"), &r), RUN_NONE);
    c.confirm = CONFIRM_NONE;
    /* clicks: the field takes the focus, an option is picked */
    CHECK_INT(tr(&in, &c, click(50, 60, SDL_BUTTON_LEFT, 1), &r), RUN_SESSION);
    CHECK_INT(r.sim.kind, SIM_IN_FOCUS);
    CHECK_INT(r.sim.value, 0);
    CHECK_INT(tr(&in, &c, click(50, 110, SDL_BUTTON_LEFT, 1), &r), RUN_SESSION);
    CHECK_INT(r.sim.kind, SIM_IN_PICK);
    CHECK_INT(r.sim.value, 258);
    scene_free(&sc);
}

static void test_start_screen_input(void)
{
    Scene sc;
    scene_init(&sc);
    sc.layer = LAYER_FIXED;
    scene_begin_hit(&sc, (SDL_FRect){0, 0, 100, 40}, ACT_START, 0, 1);
    scene_begin_hit(&sc, (SDL_FRect){0, 50, 100, 40}, ACT_RESUME, 2, 1);
    scene_begin_hit(&sc, (SDL_FRect){0, 100, 100, 40}, ACT_COND_PREV, 0, 1);
    scene_begin_hit(&sc, (SDL_FRect){0, 150, 100, 40}, ACT_FOCUS_CODE, 0, 1);
    scene_end_hit(&sc);
    InputCtx c;
    memset(&c, 0, sizeof c);
    c.start = 1;
    c.code_focus = 1;
    c.scene = &sc;
    c.px_per_pt = 1;
    c.u = 20;
    Input in = {0};
    RunCmd r;
    CHECK_INT(tr(&in, &c, key(SDLK_RETURN, 0, 0), &r), RUN_START);
    CHECK_INT(tr(&in, &c, key(SDLK_KP_ENTER, 0, 0), &r), RUN_START);
    CHECK_INT(tr(&in, &c, key(SDLK_TAB, 0, 0), &r), RUN_TOGGLE_PILOT);
    CHECK_INT(tr(&in, &c, key(SDLK_LEFT, 0, 0), &r), RUN_COND_STEP);
    CHECK_INT(r.value, -1);
    CHECK_INT(tr(&in, &c, key(SDLK_RIGHT, 0, 0), &r), RUN_COND_STEP);
    CHECK_INT(r.value, 1);
    CHECK_INT(tr(&in, &c, key(SDLK_BACKSPACE, 0, 0), &r), RUN_BACKSPACE);
    CHECK_INT(tr(&in, &c, key(SDLK_ESCAPE, 0, 0), &r), RUN_ASK);
    CHECK_INT(r.value, CONFIRM_QUIT);
    SDL_Event q;
    memset(&q, 0, sizeof q);
    q.type = SDL_QUIT;
    CHECK_INT(tr(&in, &c, q, &r), RUN_ASK);
    CHECK_INT(r.value, CONFIRM_QUIT);
    /* A plain key types; its text lands in the code field. */
    CHECK_INT(tr(&in, &c, key(SDLK_p, 0, 0), &r), RUN_NONE);
    CHECK_INT(tr(&in, &c, text("p"), &r), RUN_TEXT);
    CHECK_STR(r.text, "p");
    /* The text of a key taken as a command is not typed: Ctrl +, Tab, a
    ** dialog's N. */
    tr(&in, &c, key(SDLK_EQUALS, KMOD_LCTRL, 0), &r);
    CHECK_INT(tr(&in, &c, text("="), &r), RUN_NONE);
    tr(&in, &c, key(SDLK_TAB, 0, 0), &r);
    CHECK_INT(tr(&in, &c, text("\t"), &r), RUN_NONE);
    c.confirm = CONFIRM_QUIT;
    CHECK_INT(tr(&in, &c, key(SDLK_n, 0, 0), &r), RUN_CONFIRM);
    c.confirm = CONFIRM_NONE;
    CHECK_INT(tr(&in, &c, text("n"), &r), RUN_NONE);
    /* A held key does not change what its text does. */
    tr(&in, &c, key(SDLK_q, 0, 0), &r);
    tr(&in, &c, key(SDLK_q, 0, 1), &r);
    CHECK_INT(tr(&in, &c, text("q"), &r), RUN_TEXT);
    /* No typing without focus or under a dialog. */
    c.code_focus = 0;
    CHECK_INT(tr(&in, &c, text("q"), &r), RUN_NONE);
    c.code_focus = 1;
    c.confirm = CONFIRM_QUIT;
    CHECK_INT(tr(&in, &c, text("q"), &r), RUN_NONE);
    c.confirm = CONFIRM_NONE;
    /* Clicks on the start screen's controls. */
    CHECK_INT(tr(&in, &c, click(50, 20, SDL_BUTTON_LEFT, 1), &r), RUN_START);
    CHECK_INT(tr(&in, &c, click(50, 70, SDL_BUTTON_LEFT, 1), &r), RUN_RESUME);
    CHECK_INT(r.value, 2);
    CHECK_INT(tr(&in, &c, click(50, 120, SDL_BUTTON_LEFT, 1), &r),
              RUN_COND_STEP);
    CHECK_INT(r.value, -1);
    CHECK_INT(tr(&in, &c, click(50, 170, SDL_BUTTON_LEFT, 1), &r),
              RUN_FOCUS_CODE);
    scene_free(&sc);
}

/* --------------------------------------------------- start-screen control */

static void test_start_controller(void)
{
    char tmp[256], path[400];
    test_tmpdir(tmp, sizeof tmp, "start");
    snprintf(path, sizeof path, "%s/s.db", tmp);
    Study *study = test_study_load("mini-forward");
    CHECK(study != NULL);
    if (!study) {
        return;
    }
    SimError err;
    Store *store = NULL;
    CHECK_INT(store_open(path, study, DURABILITY_FULL, 0, 1000, &store, &err),
              SIM_OK);
    CHECK(study->n_conditions >= 2);
    StartCtl c;
    start_init(&c, study, store, path, "lab1");
    start_refresh(&c, 2000, 7);
    const StartState *st = &c.st;
    CHECK_STR(st->study_id, study->id);
    CHECK_STR(st->station, "lab1");
    CHECK_INT((int)st->n_conditions, (int)study->n_conditions);
    CHECK_STR(st->conditions[0], study->conditions[0].id);
    CHECK(st->assigned_index >= 0);
    CHECK_INT(st->cond_index, st->assigned_index);
    CHECK_INT((int)st->n_unfinished, 0);
    CHECK_INT(st->n_complete, 0);
    CHECK(st->free_bytes > 0);
    CHECK_INT(st->code_focus, 1);
    CHECK_STR(st->status, "");

    /* Code entry: whole UTF-8 characters are deleted; too much is refused. */
    CHECK_INT(start_type(&c, "P-"), 1);
    CHECK_INT(start_type(&c, "\xC3\xA9"), 1);
    CHECK_STR(st->code, "P-\xC3\xA9");
    start_backspace(&c);
    CHECK_STR(st->code, "P-");
    char big[80];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    CHECK_INT(start_type(&c, big), 0);
    CHECK_STR(st->code, "P-");
    CHECK_INT(start_type(&c, "1"), 1);

    /* Condition choice wraps both ways. */
    int n = (int)st->n_conditions, assigned = st->assigned_index;
    CHECK_INT(start_step_condition(&c, 1), 1);
    CHECK_INT(st->cond_index, (assigned + 1) % n);
    CHECK_INT(start_step_condition(&c, 0), 1);
    CHECK_INT(start_step_condition(&c, 0), 1);
    CHECK_INT(st->cond_index, (assigned + n - 1) % n);
    const char *chosen = st->conditions[st->cond_index];

    /* Enrolling with another condition than the rule's is an override. */
    char pid[37];
    CHECK_INT(start_enroll(&c, 3000, pid), 0);
    ParticipantInfo info;
    CHECK_INT(store_participant(store, pid, &info, &err), SIM_OK);
    CHECK_STR(info.code, "P-1");
    CHECK_STR(info.condition, chosen);
    CHECK_STR(info.assigned_by, "override");
    CHECK_STR(info.station, "lab1");
    CHECK_INT(info.pilot, 0);
    CHECK_INT(info.simulated, 0);

    /* Back on the start screen: the participant is unfinished and listed;
    ** simulated participants are not. */
    EnrollSpec sim;
    memset(&sim, 0, sizeof sim);
    sim.simulated = 1;
    sim.wall_ms = 3500;
    sim.assign_seed = 1;
    ParticipantInfo sinfo;
    CHECK_INT(store_enroll(store, &sim, &sinfo, &err), SIM_OK);
    start_reset(&c, 4000, 8);
    CHECK_STR(st->code, "");
    CHECK_INT(st->code_focus, 1);
    CHECK_INT((int)st->n_unfinished, 1);
    CHECK_STR(start_unfinished_id(&c, 0), pid);
    CHECK(start_unfinished_id(&c, 1) == NULL);
    CHECK(start_unfinished_id(&c, -1) == NULL);
    CHECK_INT(st->cond_index, st->assigned_index);

    /* The pilot switch; a pilot enrolled with the rule's condition is
    ** assigned by the rule. */
    start_toggle_pilot(&c, 5000, 9);
    CHECK_INT(st->pilot, 1);
    CHECK(st->assigned_index >= 0);
    CHECK_INT(start_enroll(&c, 5000, pid), 0);
    CHECK_INT(store_participant(store, pid, &info, &err), SIM_OK);
    CHECK_INT(info.pilot, 1);
    CHECK_STR(info.condition, st->conditions[st->assigned_index]);
    CHECK(strcmp(info.assigned_by, "override") != 0);
    CHECK_STR(info.code, "");

    /* A failed enrollment shows why on the screen: here the store does not
    ** know the condition chosen. */
    char *kept = c.cond_ids[0];
    c.cond_ids[0] = (char *)"no-such-condition";
    c.st.cond_index = 0;
    c.st.assigned_index = -1;
    CHECK_INT(start_enroll(&c, 6000, pid), -1);
    CHECK(strstr(st->status, "Could not enroll the participant") != NULL);
    c.cond_ids[0] = kept;
    start_set_status(&c, "Cannot open participant %s", "x");
    CHECK_STR(st->status, "Cannot open participant x");

    start_free(&c);
    store_close(store);
    study_free(study);
    test_rmtree(tmp);
}

int main(void)
{
    test_keys_in_a_run();
    test_experimenter_chords();
    test_clicks();
    test_questionnaire_input();
    test_start_screen_input();
    test_start_controller();
    return TEST_REPORT();
}

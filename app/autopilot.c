/*
** The autopilot: policy answers sent as synthetic SDL events.
*/
#include "app/autopilot.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"
#include "stimuli/questionnaire.h"

void autopilot_init(Autopilot *ap, PolicyKind kind, const Study *study,
                    const char *station, int participants, uint64_t seed,
                    int chaos)
{
    memset(ap, 0, sizeof *ap);
    ap->kind = kind;
    ap->study = study;
    ap->station = station;
    ap->participants = participants;
    ap->seed = seed;
    ap->chaos = chaos;
    sim_rng_seed(&ap->rng, seed ^ 0xA5A5u);
}

static void push_key(const AutopilotCtx *ctx, const char *name, int repeat)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.windowID = ctx->window_id;
    e.key.state = SDL_PRESSED;
    e.key.repeat = (Uint8)repeat;
    e.key.keysym.sym = SDL_GetKeyFromName(name);
    e.key.keysym.scancode = SDL_GetScancodeFromKey(e.key.keysym.sym);
    SDL_PushEvent(&e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    SDL_PushEvent(&e);
}

static void push_chord(const AutopilotCtx *ctx, SDL_Keycode sym)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.windowID = ctx->window_id;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = sym;
    e.key.keysym.scancode = SDL_GetScancodeFromKey(sym);
    e.key.keysym.mod = KMOD_LCTRL | KMOD_LSHIFT;
    SDL_PushEvent(&e);
}

/* A click at the centre of the region, in window points; clicks = 1 or 2. */
static int push_click(const AutopilotCtx *ctx, int hit, int clicks)
{
    if (hit < 0) {
        return -1;
    }
    const Scene *sc = ctx->scene;
    const SceneHit *h = &sc->hits[hit];
    float cx = h->r.x + h->r.w / 2, cy = h->r.y + h->r.h / 2;
    if (h->layer == LAYER_BODY) {
        cy -= ctx->scroll;
        if (cy < sc->body.y || cy > sc->body.y + sc->body.h) {
            return -1; /* scrolled out of view: use the keyboard */
        }
    }
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEBUTTONDOWN;
    e.button.windowID = ctx->window_id;
    e.button.button = SDL_BUTTON_LEFT;
    e.button.state = SDL_PRESSED;
    e.button.clicks = (Uint8)clicks;
    e.button.x = (int)(cx / ctx->px_per_pt);
    e.button.y = (int)(cy / ctx->px_per_pt);
    SDL_PushEvent(&e);
    e.type = SDL_MOUSEBUTTONUP;
    e.button.state = SDL_RELEASED;
    SDL_PushEvent(&e);
    return 0;
}

/* The pointer moved to the centre of region hit, or to the window's top
** left corner (over no value) for -1; -1 when the region is scrolled out
** of view. */
static int push_motion(const AutopilotCtx *ctx, int hit)
{
    float cx = 1, cy = 1;
    if (hit >= 0) {
        const Scene *sc = ctx->scene;
        const SceneHit *h = &sc->hits[hit];
        cx = h->r.x + h->r.w / 2;
        cy = h->r.y + h->r.h / 2;
        if (h->layer == LAYER_BODY) {
            cy -= ctx->scroll;
            if (cy < sc->body.y || cy > sc->body.y + sc->body.h) {
                return -1;
            }
        }
    }
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEMOTION;
    e.motion.windowID = ctx->window_id;
    e.motion.x = (int)(cx / ctx->px_per_pt);
    e.motion.y = (int)(cy / ctx->px_per_pt);
    SDL_PushEvent(&e);
    return 0;
}

/* Typed text as SDL_TEXTINPUT events (at most 31 bytes each, cut between
** characters), as an input method would deliver it. */
static void push_text(const AutopilotCtx *ctx, const char *text)
{
    size_t len = strlen(text), at = 0;
    while (at < len) {
        SDL_Event e;
        memset(&e, 0, sizeof e);
        e.type = SDL_TEXTINPUT;
        e.text.windowID = ctx->window_id;
        size_t n = len - at < sizeof e.text.text - 1 ? len - at
                                                     : sizeof e.text.text - 1;
        while (n > 0 && at + n < len &&
               ((unsigned char)text[at + n] & 0xC0) == 0x80) {
            n--; /* do not split a character */
        }
        memcpy(e.text.text, text + at, n);
        SDL_PushEvent(&e);
        at += n;
    }
}

/* Moves the questionnaire's focus to question q with Tab presses. */
static void push_focus_tabs(const AutopilotCtx *ctx, const SessionView *v,
                            int q)
{
    int n = (int)v->block->n_survey;
    int tabs = v->focus < 0 ? q + 1 : (q - v->focus + n) % n;
    for (int i = 0; i < tabs; i++) {
        push_key(ctx, "Tab", 0);
    }
}

/* A questionnaire answer: a click on the option or point (or Tab to the
** question and its number typed), or the field focused, what is in it
** erased with Backspace and the answer typed. */
static void push_answer(const AutopilotCtx *ctx, const SimInput *in,
                        const SessionView *v, int by_key)
{
    const SurveyQuestion *q = &v->block->survey[in->value];
    char num[16];
    int k = 0;
    if (q->type == QTYPE_CHOICE) {
        for (size_t o = 0; o < q->n_options; o++) {
            if (strcmp(q->options[o], in->key) == 0) {
                k = (int)o;
            }
        }
        snprintf(num, sizeof num, "%d", k + 1);
    } else if (q->type == QTYPE_LIKERT) {
        k = (int)questionnaire_number(in->key);
        snprintf(num, sizeof num, "%d", k);
    }
    if (q->type == QTYPE_CHOICE || q->type == QTYPE_LIKERT) {
        if (by_key ||
            push_click(
                ctx, scene_find_hit(ctx->scene, ACT_PICK, in->value * 256 + k),
                1) != 0) {
            push_focus_tabs(ctx, v, in->value);
            push_text(ctx, num);
        }
        return;
    }
    if (v->focus != in->value &&
        (by_key ||
         push_click(ctx, scene_find_hit(ctx->scene, ACT_FIELD, in->value), 1) !=
             0)) {
        push_focus_tabs(ctx, v, in->value);
    }
    size_t have = questionnaire_utf8_len(v->answers[in->value]);
    for (size_t i = 0; i < have; i++) {
        push_key(ctx, "Backspace", 0);
    }
    push_text(ctx, in->key);
}

static const char *class_key_name(const Autopilot *ap, int c, char *buf,
                                  size_t n)
{
    const Study *s = ap->study;
    if (c >= 0 && (size_t)c < s->n_classes && s->classes[c].key &&
        *s->classes[c].key) {
        return s->classes[c].key;
    }
    snprintf(buf, n, "%d", c + 1);
    return buf;
}

/* Sends the policy's input as a real SDL event: a click on the button or
** the key shown on it, chosen at random. */
static void autopilot_send(Autopilot *ap, const AutopilotCtx *ctx,
                           const SimInput *in, const SessionView *v)
{
    int by_key = sim_rng_below(&ap->rng, 2) == 0;
    const Scene *sc = ctx->scene;
    char buf[16];
    switch (in->kind) {
    case SIM_IN_CHOOSE:
        if (v->question || v->n_options) {
            /* quiz options and an item's own options: keys 1-9 (0) */
            snprintf(buf, sizeof buf, "%d",
                     v->question ? in->value + 1 : (in->value + 1) % 10);
            if (by_key ||
                push_click(ctx, scene_find_hit(sc, ACT_CHOOSE, in->value), 1) !=
                    0) {
                push_key(ctx, buf, 0);
            }
        } else if (by_key ||
                   push_click(ctx, scene_find_hit(sc, ACT_CHOOSE, in->value),
                              1) != 0) {
            push_key(ctx, class_key_name(ap, in->value, buf, sizeof buf), 0);
        }
        break;
    case SIM_IN_RATE:
        snprintf(buf, sizeof buf, "%d", in->value);
        if (by_key ||
            push_click(ctx, scene_find_hit(sc, ACT_RATE, in->value), 1) != 0) {
            push_key(ctx, buf, 0);
        }
        break;
    case SIM_IN_CONFIDENCE:
        snprintf(buf, sizeof buf, "%d", in->value % 10);
        if ((by_key && in->value <= 10) ||
            push_click(ctx, scene_find_hit(sc, ACT_CONFIDENCE, in->value), 1) !=
                0) {
            push_key(ctx, buf, 0);
        }
        break;
    case SIM_IN_CONTINUE:
        if (v->screen == SCREEN_QUESTIONNAIRE) {
            by_key = 0; /* Return would type a line break into a text */
        }
        if (by_key ||
            push_click(ctx, scene_find_hit(sc, ACT_CONTINUE, -1), 1) != 0) {
            push_key(ctx, "Return", 0);
        }
        break;
    case SIM_IN_DECLINE:
        push_click(ctx, scene_find_hit(sc, ACT_DECLINE, -1), 1);
        break;
    case SIM_IN_ANSWER:
        push_answer(ctx, in, v, by_key);
        break;
    case SIM_IN_REVEAL:
        if ((by_key && SESSION_REVEAL_CARD(in->value) < 0 && v->reveal_key) ||
            push_click(ctx, scene_find_hit(sc, ACT_REVEAL, in->value), 1) !=
                0) {
            push_key(ctx, v->reveal_key ? v->reveal_key : "e", 0);
        }
        break;
    case SIM_IN_HOVER:
        if (in->value < 0 ||
            push_motion(ctx, scene_find_hit(sc, ACT_HOVER, in->value)) != 0) {
            push_motion(ctx, -1); /* off every value */
        }
        break;
    default:
        break;
    }
}

/* Chaos: a class the model does not answer on this forced-choice screen,
** or -1 when the screen asks for no class. */
static int wrong_class(const SessionView *v)
{
    if (!v->need_choice || v->question || v->n_options || !v->item ||
        v->n_classes < 2) {
        return -1;
    }
    const Item *it = v->item;
    int pred = v->trial && v->trial->correct_choice >= 0
                   ? v->trial->correct_choice
                   : it->prediction;
    return pred == 0 ? 1 : 0;
}

/* Chaos: what a participant might try on every screen (all must be
** ignored): closing the window, Escape, Alt+F4, key repeats and double
** clicks of a wrong answer. */
static void autopilot_chaos(Autopilot *ap, const AutopilotCtx *ctx,
                            const SessionView *v)
{
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_QUIT;
    SDL_PushEvent(&e);
    memset(&e, 0, sizeof e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = SDL_WINDOWEVENT_CLOSE;
    e.window.windowID = ctx->window_id;
    SDL_PushEvent(&e);
    push_key(ctx, "Escape", 0);
    int wrong = wrong_class(v);
    if (wrong >= 0) {
        char buf[16];
        push_key(ctx, class_key_name(ap, wrong, buf, sizeof buf), 1);
        push_click(ctx, scene_find_hit(ctx->scene, ACT_CHOOSE, wrong), 2);
    }
}

void autopilot_early(Autopilot *ap, const AutopilotCtx *ctx)
{
    const SessionView *v = session_view(ctx->session);
    if (!ap->chaos || v->screen_serial == ap->chaos_serial) {
        return;
    }
    ap->chaos_serial = v->screen_serial;
    int wrong = wrong_class(v);
    if (wrong >= 0) {
        char buf[16];
        push_key(ctx, class_key_name(ap, wrong, buf, sizeof buf), 0);
    } else if (v->need_continue) {
        push_key(ctx, "Return", 0);
    }
}

/* Enrolls a new simulated participant (condition: an override, or NULL
** to assign); done: complete ones so far (for the seed). */
static int enroll(Autopilot *ap, Store *store, int64_t wall_ms, int done,
                  const char *condition, char pid[37])
{
    SimError err;
    EnrollSpec spec;
    memset(&spec, 0, sizeof spec);
    spec.station = ap->station;
    spec.simulated = 1;
    spec.condition = condition;
    uint64_t k = (uint64_t)done * 7919u + (uint64_t)ap->enrolled + 1;
    spec.seed = sim_mix64(ap->seed * 0x9E3779B97F4A7C15ull + k);
    spec.assign_seed = sim_mix64(spec.seed + 1);
    spec.wall_ms = wall_ms;
    ParticipantInfo info;
    if (sync_enroll(ap->sync, store, ap->study, &spec, &info, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: enroll: %s\n", err.msg);
        return -1;
    }
    ap->enrolled++;
    snprintf(pid, 37, "%s", info.id);
    return 0;
}

int autopilot_next_participant(Autopilot *ap, Store *store, int64_t wall_ms,
                               char pid[37])
{
    SimError err;
    int done = 0;
    if (ap->one_per_condition) {
        if ((size_t)ap->enrolled >= ap->study->n_conditions) {
            return 1;
        }
        return enroll(ap, store, wall_ms, ap->enrolled,
                      ap->study->conditions[ap->enrolled].id, pid);
    }
    if (store_count_complete(store, 1, &done, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        return -1;
    }
    if (done >= ap->participants) {
        return 1;
    }
    ParticipantInfo *list = NULL;
    size_t n = 0;
    if (store_list_resumable(store, wall_ms, &list, &n, &err) == SIM_OK) {
        for (size_t i = 0; i < n; i++) {
            if (list[i].simulated) {
                snprintf(pid, 37, "%s", list[i].id);
                sim_free(list);
                fprintf(stderr, "simlab run: resuming %s\n", pid);
                return 0;
            }
        }
        sim_free(list);
    }
    if (ap->enrolled > 10 * ap->participants + 10) {
        fprintf(stderr, "simlab run: too many participants were screened "
                        "out or declined\n");
        return -1;
    }
    return enroll(ap, store, wall_ms, done, NULL, pid);
}

void autopilot_begin(Autopilot *ap, Store *store, const char *pid)
{
    SimError err;
    ParticipantInfo info;
    if (store_participant(store, pid, &info, &err) == SIM_OK) {
        policy_init(&ap->policy, ap->kind, ap->study, &ap->study->simulation,
                    ap->seed, info.seed);
    }
    ap->in_flight = 0;
}

int autopilot_step(Autopilot *ap, const AutopilotCtx *ctx)
{
    if (!ctx->session || ctx->confirm != CONFIRM_NONE) {
        if (ctx->confirm != CONFIRM_NONE && ap->chaos) {
            push_key(ctx, "y", 0);
        }
        return 0;
    }
    const SessionView *v = session_view(ctx->session);
    if (session_finished(ctx->session)) {
        return ctx->shown;
    }
    if (!v->onset_marked || !ctx->shown) {
        return 0; /* wait until the screen is on the display */
    }
    if (ap->in_flight) {
        if (ap->flight_count != ctx->consumed ||
            ap->flight_serial != v->screen_serial) {
            ap->in_flight = 0;
        } else if (++ap->flight_wait > 50) {
            ap->in_flight = 0; /* lost (e.g. the click missed): try again */
        } else {
            return 0;
        }
    }
    if (v->screen == SCREEN_PAUSED) {
        if (ap->chaos_paused) {
            ap->chaos_paused = 0;
            push_chord(ctx, SDLK_p);
        }
        return 0;
    }
    if (ap->chaos && v->screen == SCREEN_PREDICT &&
        sim_rng_below(&ap->rng, 25) == 0) {
        /* Pause and resume once in a while, through the chord and the
        ** confirmation, as the experimenter would. */
        ap->chaos_paused = 1;
        push_chord(ctx, SDLK_p);
        return 0;
    }
    int64_t t = stamps_now(ctx->clock);
    if (v->screen == SCREEN_TIMEOUT) {
        /* the message shows for its time, then the runner moves on */
        stamps_skip_to(ctx->clock, t + SESSION_TIMEOUT_SHOW_NS);
        return 0;
    }
    if (v->scroll_gate) {
        /* read to the end first, as require_scroll asks */
        push_key(ctx, "End", 0);
        return 0;
    }
    SimInput in;
    if (policy_next_input(&ap->policy, v, &t, &in) != 0) {
        return 0;
    }
    if (in.kind == SIM_IN_RETRY) {
        /* The runner retries on its own clock; jump ahead to it. */
        stamps_skip_to(ctx->clock, ctx->next_retry_ns);
        return 0;
    }
    stamps_skip_to(ctx->clock, in.t_ns);
    if (ap->chaos) {
        autopilot_chaos(ap, ctx, v);
    }
    autopilot_send(ap, ctx, &in, v);
    ap->in_flight = 1;
    ap->flight_count = ctx->consumed;
    ap->flight_serial = v->screen_serial;
    ap->flight_wait = 0;
    return 0;
}

/*
** Input translation: SDL events to session inputs and runner commands.
** Every rule about which key or click means what lives here; the loop only
** carries the commands out.
*/
#include "app/input.h"

#include <stdio.h>
#include <string.h>

void input_key_name(SDL_Keycode sym, char *out, size_t n)
{
    const char *name = SDL_GetKeyName(sym);
    if (!name) {
        name = "";
    }
    if (strncmp(name, "Keypad ", 7) == 0 && name[7] && !name[8]) {
        name += 7;
    }
    size_t i = 0;
    for (; name[i] && i + 1 < n; i++) {
        out[i] =
            (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
    }
    out[i] = 0;
}

static RunCmdKind cmd(RunCmd *out, RunCmdKind kind, int value)
{
    out->kind = kind;
    out->value = value;
    return kind;
}

static RunCmdKind session_cmd(RunCmd *out, SimInputKind kind, int value)
{
    out->kind = RUN_SESSION;
    out->sim.kind = kind;
    out->sim.value = value;
    out->sim.t_ns = out->t_ns;
    return RUN_SESSION;
}

static RunCmdKind scroll_cmd(RunCmd *out, float dy)
{
    out->dy = dy;
    return cmd(out, RUN_SCROLL, 0);
}

/* A click on hit region h. */
static RunCmdKind translate_action(const InputCtx *ctx, const SceneHit *h,
                                   RunCmd *out)
{
    if (!h->enabled) {
        return RUN_NONE;
    }
    SimInputKind kind;
    switch (h->action) {
    case ACT_CONFIRM_YES:
        return cmd(out, RUN_CONFIRM, 1);
    case ACT_CONFIRM_NO:
        return cmd(out, RUN_CONFIRM, 0);
    case ACT_CHOOSE:
        kind = SIM_IN_CHOOSE;
        break;
    case ACT_RATE:
        kind = SIM_IN_RATE;
        break;
    case ACT_CONFIDENCE:
        kind = SIM_IN_CONFIDENCE;
        break;
    case ACT_CONTINUE:
        kind = SIM_IN_CONTINUE;
        break;
    case ACT_DECLINE:
        kind = SIM_IN_DECLINE;
        break;
    case ACT_PICK:
        kind = SIM_IN_PICK;
        break;
    case ACT_FIELD:
        kind = SIM_IN_FOCUS;
        break;
    case ACT_REVEAL:
        kind = SIM_IN_REVEAL;
        break;
    case ACT_HOVER: /* a tap on a value shows it, as hovering does */
        kind = SIM_IN_HOVER;
        break;
    case ACT_START:
        return cmd(out, RUN_START, 0);
    case ACT_RESUME:
        return cmd(out, RUN_RESUME, h->value);
    case ACT_TOGGLE_PILOT:
        return cmd(out, RUN_TOGGLE_PILOT, 0);
    case ACT_COND_PREV:
        return cmd(out, RUN_COND_STEP, -1);
    case ACT_COND_NEXT:
        return cmd(out, RUN_COND_STEP, 1);
    case ACT_FOCUS_CODE:
        return cmd(out, RUN_FOCUS_CODE, 0);
    default:
        return RUN_NONE;
    }
    if (!ctx->session || ctx->start || ctx->confirm != CONFIRM_NONE) {
        return RUN_NONE;
    }
    int value = kind == SIM_IN_CHOOSE || kind == SIM_IN_RATE ||
                        kind == SIM_IN_PICK || kind == SIM_IN_FOCUS ||
                        kind == SIM_IN_REVEAL || kind == SIM_IN_HOVER
                    ? h->value
                    : 0;
    return session_cmd(out, kind, value);
}

static RunCmdKind translate_key_start(Input *in, SDL_Keycode sym, RunCmd *out)
{
    if (sym == SDLK_ESCAPE) {
        return cmd(out, RUN_ASK, CONFIRM_QUIT);
    } else if (sym == SDLK_RETURN || sym == SDLK_KP_ENTER) {
        return cmd(out, RUN_START, 0);
    } else if (sym == SDLK_TAB) {
        return cmd(out, RUN_TOGGLE_PILOT, 0);
    } else if (sym == SDLK_LEFT || sym == SDLK_RIGHT) {
        return cmd(out, RUN_COND_STEP, sym == SDLK_RIGHT ? 1 : -1);
    } else if (sym == SDLK_BACKSPACE) {
        return cmd(out, RUN_BACKSPACE, 0);
    }
    in->drop_text = 0; /* typed into the code field */
    return RUN_NONE;
}

static RunCmdKind translate_key(Input *in, const InputCtx *ctx,
                                const SDL_KeyboardEvent *k, RunCmd *out)
{
    if (k->repeat) {
        return RUN_NONE; /* held keys never answer twice */
    }
    /* Ctrl +, the dialog's N and the like must not also land in the code
    ** field: only the start screen lets a key through. */
    in->drop_text = 1;
    SDL_Keymod mod = k->keysym.mod;
    SDL_Keycode sym = k->keysym.sym;
    int ctrl = (mod & KMOD_CTRL) != 0, shift = (mod & KMOD_SHIFT) != 0;
    /* the text of a printable key taken as a command (a chord, a dialog's
    ** Y or N) must not land in a questionnaire answer either */
    in->drop_typed =
        sym >= 32 && sym < 127 &&
        (ctrl || (mod & (KMOD_ALT | KMOD_GUI)) || ctx->confirm != CONFIRM_NONE);
    /* Text size: Ctrl + / Ctrl - / Ctrl 0, for everyone. */
    if (ctrl && !shift &&
        (sym == SDLK_EQUALS || sym == SDLK_PLUS || sym == SDLK_KP_PLUS)) {
        return cmd(out, RUN_FONT, 1);
    }
    if (ctrl && (sym == SDLK_MINUS || sym == SDLK_KP_MINUS)) {
        return cmd(out, RUN_FONT, -1);
    }
    if (ctrl && (sym == SDLK_0 || sym == SDLK_KP_0)) {
        return cmd(out, RUN_FONT, 0);
    }
    if (ctx->confirm != CONFIRM_NONE) {
        if (sym == SDLK_y) {
            return cmd(out, RUN_CONFIRM, 1);
        } else if (sym == SDLK_n || sym == SDLK_ESCAPE) {
            return cmd(out, RUN_CONFIRM, 0);
        }
        return RUN_NONE;
    }
    if (ctx->start) {
        return translate_key_start(in, sym, out);
    }
    if (!ctx->session) {
        return RUN_NONE;
    }
    /* Experimenter chords. */
    if (ctrl && shift) {
        if (sym == SDLK_p) {
            if (ctx->paused) {
                return session_cmd(out, SIM_IN_RESUME, 0);
            } else if (!ctx->finished) {
                return cmd(out, RUN_ASK, CONFIRM_PAUSE);
            }
        } else if (sym == SDLK_a && !ctx->finished) {
            return cmd(out, RUN_ASK, CONFIRM_ABORT);
        } else if (sym == SDLK_n && ctx->finished) {
            return cmd(out, RUN_NEXT, 0);
        }
        return RUN_NONE;
    }
    /* Scrolling is the participant's own business. */
    const Scene *sc = ctx->scene;
    float page = sc->body.h * 0.85f;
    switch (sym) {
    case SDLK_DOWN:
        return scroll_cmd(out, ctx->u * 3);
    case SDLK_UP:
        return scroll_cmd(out, -ctx->u * 3);
    case SDLK_PAGEDOWN:
        return scroll_cmd(out, page);
    case SDLK_PAGEUP:
        return scroll_cmd(out, -page);
    case SDLK_HOME:
        return scroll_cmd(out, -sc->body_h);
    case SDLK_END:
        return scroll_cmd(out, sc->body_h);
    case SDLK_ESCAPE:
    case SDLK_F4:
        return RUN_NONE; /* swallowed: the participant cannot leave */
    default:
        break;
    }
    if (ctrl || (mod & (KMOD_ALT | KMOD_GUI))) {
        return RUN_NONE;
    }
    input_key_name(sym, out->key, sizeof out->key);
    session_cmd(out, SIM_IN_KEY, 0);
    out->sim.key = out->key;
    return RUN_SESSION;
}

static int hit_at(const InputCtx *ctx, int x, int y)
{
    float px = (float)x * ctx->px_per_pt, py = (float)y * ctx->px_per_pt;
    return scene_hit_at(ctx->scene, px, py, ctx->scroll);
}

static RunCmdKind translate_window(const InputCtx *ctx,
                                   const SDL_WindowEvent *w, RunCmd *out)
{
    switch (w->event) {
    case SDL_WINDOWEVENT_SIZE_CHANGED:
    case SDL_WINDOWEVENT_RESIZED:
        return cmd(out, RUN_RESIZED, 0);
    case SDL_WINDOWEVENT_EXPOSED:
        return cmd(out, RUN_EXPOSED, 0);
    case SDL_WINDOWEVENT_FOCUS_LOST:
    case SDL_WINDOWEVENT_FOCUS_GAINED:
        if (!ctx->session) {
            return RUN_NONE;
        }
        return cmd(out, RUN_FOCUS,
                   w->event == SDL_WINDOWEVENT_FOCUS_GAINED ? 1 : 0);
    case SDL_WINDOWEVENT_CLOSE:
        if (!ctx->session) {
            return RUN_NONE;
        }
        out->text = "close";
        return cmd(out, RUN_QUIT_BLOCKED, 0);
    default:
        return RUN_NONE;
    }
}

RunCmdKind input_translate(Input *in, const InputCtx *ctx, const SDL_Event *e,
                           int64_t t_ns, RunCmd *out)
{
    memset(out, 0, sizeof *out);
    out->t_ns = t_ns;
    switch (e->type) {
    case SDL_QUIT:
        if (ctx->start) {
            return cmd(out, RUN_ASK, CONFIRM_QUIT);
        }
        if (ctx->session) {
            /* Window close, Alt+F4, SIGTERM: swallowed during a run. */
            out->text = "quit";
            return cmd(out, RUN_QUIT_BLOCKED, 0);
        }
        return RUN_NONE;
    case SDL_WINDOWEVENT:
        return translate_window(ctx, &e->window, out);
    case SDL_KEYDOWN:
        return translate_key(in, ctx, &e->key, out);
    case SDL_TEXTINPUT:
        if (ctx->start && ctx->code_focus && ctx->confirm == CONFIRM_NONE &&
            !in->drop_text) {
            out->text = e->text.text;
            return cmd(out, RUN_TEXT, 0);
        }
        if (in->drop_typed) {
            in->drop_typed = 0;
            return RUN_NONE;
        }
        if (ctx->typing && ctx->session && !ctx->start &&
            ctx->confirm == CONFIRM_NONE) {
            /* a questionnaire answer (IME text arrives here whole) */
            snprintf(out->key, sizeof out->key, "%s", e->text.text);
            session_cmd(out, SIM_IN_TEXT, 0);
            out->sim.key = out->key;
            return RUN_SESSION;
        }
        return RUN_NONE;
    case SDL_MOUSEMOTION:
        return cmd(out, RUN_HOVER, hit_at(ctx, e->motion.x, e->motion.y));
    case SDL_MOUSEWHEEL:
        return scroll_cmd(out, -(float)e->wheel.y * ctx->u * 3);
    case SDL_MOUSEBUTTONDOWN: {
        if (e->button.button != SDL_BUTTON_LEFT || e->button.clicks > 1) {
            return RUN_NONE; /* double clicks never answer twice */
        }
        int h = hit_at(ctx, e->button.x, e->button.y);
        if (h < 0) {
            return RUN_NONE;
        }
        const SceneHit *hit = &ctx->scene->hits[h];
        if (ctx->confirm != CONFIRM_NONE && hit->layer != LAYER_OVERLAY) {
            return RUN_NONE;
        }
        return translate_action(ctx, hit, out);
    }
    default:
        return RUN_NONE;
    }
}

/*
** The reveal and hover state of a step (session_reveal.h): what is shown,
** what is hovered, and the events to store with the step's response.
*/
#include "experiment/session_reveal.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

static void add_label(void *ctx, size_t index, const char *label)
{
    RevealState *r = ctx;
    if (index < REVEAL_MAX_TARGETS) {
        r->labels[index] = label;
    }
}

void reveal_reset(RevealState *r, const Explanation *e, const Item *const *res,
                  const Explanation *const *res_e, size_t n, int attempt)
{
    r->e = e;
    r->res = res;
    r->res_e = res_e;
    r->n_res = n;
    r->shown = 0;
    r->hover = -1;
    r->attempt = attempt;
    r->offered = 0;
    r->n_ev = 0;
    r->n_hover = 0;
    if (e && e->reveal == EXPL_REVEAL_HOVER) {
        size_t k = expl_hover_targets(e, add_label, r);
        r->n_hover = k < REVEAL_MAX_TARGETS ? (int)k : REVEAL_MAX_TARGETS;
    }
    if (n > r->cap_res) {
        unsigned char *p = sim_realloc(r->res_shown, n);
        if (p) {
            r->res_shown = p;
            r->cap_res = n;
        } else {
            r->n_res = r->cap_res; /* the cards beyond stay shown as is */
        }
    }
    if (r->res_shown && r->cap_res) {
        memset(r->res_shown, 0, r->cap_res);
    }
}

void reveal_free(RevealState *r)
{
    sim_free(r->res_shown);
    sim_free(r->ev);
    memset(r, 0, sizeof *r);
}

static void record(RevealState *r, const char *event, const char *target,
                   double t_ms)
{
    if (sim_grow((void **)&r->ev, &r->cap_ev, r->n_ev + 1, sizeof *r->ev) !=
        0) {
        r->oom = 1;
        return;
    }
    Interaction *in = &r->ev[r->n_ev++];
    in->event = event;
    snprintf(in->target, sizeof in->target, "%s", target ? target : "");
    in->t_ms = t_ms < 0 ? 0 : t_ms;
    in->attempt = r->attempt;
}

void reveal_onset(RevealState *r, double t_ms)
{
    if (r->e && r->e->reveal != EXPL_REVEAL_ALWAYS && !r->offered) {
        r->offered = 1;
        record(r, INTERACTION_OFFER, NULL, t_ms);
    }
}

/* The label of hover value k. */
static const char *label_of(const RevealState *r, int k)
{
    return k >= 0 && k < r->n_hover && r->labels[k] ? r->labels[k] : "?";
}

int reveal_apply(RevealState *r, const SimInput *in, double t_ms)
{
    if (in->kind == SIM_IN_HOVER) {
        int k = in->value;
        if (!r->e || r->e->reveal != EXPL_REVEAL_HOVER || k == r->hover ||
            k < -1 || k >= r->n_hover) {
            return 0;
        }
        if (r->hover >= 0) {
            record(r, INTERACTION_UNHOVER, label_of(r, r->hover), t_ms);
        }
        if (k >= 0) {
            record(r, INTERACTION_HOVER, label_of(r, k), t_ms);
        }
        r->hover = k;
        return 1;
    }
    if (in->kind != SIM_IN_REVEAL) {
        return 0;
    }
    int card = SESSION_REVEAL_CARD(in->value);
    int show = SESSION_REVEAL_SHOW(in->value);
    const char *event = show ? INTERACTION_REVEAL : INTERACTION_HIDE;
    if (card < 0) {
        if (!reveal_on_request(r) || show == r->shown) {
            return 0;
        }
        r->shown = show;
        record(r, event, NULL, t_ms);
        return 1;
    }
    if ((size_t)card >= r->n_res || !r->res_shown || !r->res_e[card] ||
        r->res_e[card]->reveal != EXPL_REVEAL_ON_REQUEST ||
        r->res_shown[card] == show) {
        return 0;
    }
    r->res_shown[card] = (unsigned char)show;
    char target[160];
    snprintf(target, sizeof target, "reservoir:%s",
             r->res[card] && r->res[card]->key ? r->res[card]->key : "?");
    record(r, event, target, t_ms);
    return 1;
}

int reveal_next_focus(const RevealState *r)
{
    if (!r->e || r->e->reveal != EXPL_REVEAL_HOVER || r->n_hover == 0) {
        return -1;
    }
    return (r->hover + 1) % r->n_hover;
}

int reveal_on_request(const RevealState *r)
{
    return r->e && r->e->reveal == EXPL_REVEAL_ON_REQUEST;
}

void reveal_view(const RevealState *r, SessionView *v)
{
    v->revealed = r->shown;
    v->hover_target = r->hover;
    v->n_hover = r->n_hover;
    v->res_revealed = r->res_shown && r->n_res ? r->res_shown : NULL;
}

void reveal_stored(RevealState *r)
{
    r->n_ev = 0;
}

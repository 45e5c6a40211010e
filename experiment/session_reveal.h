/*
** Explanations on request and on hover inside the session: whether the
** step's explanation (and each reservoir card's) is shown, which value is
** hovered or focused, and the events (experiment/interaction.h) the
** current attempt has made, stored with its response. Private to
** experiment/session.c. No SDL, no clock.
*/
#ifndef SIMLAB_EXPERIMENT_SESSION_REVEAL_H
#define SIMLAB_EXPERIMENT_SESSION_REVEAL_H

#include <stdint.h>

#include "experiment/interaction.h"
#include "experiment/session_view.h"

/* Most values of one explanation the state numbers for hovering. */
#define REVEAL_MAX_TARGETS 512

typedef struct RevealState {
    const Explanation *e;            /* the step's explanation, or NULL */
    const Item *const *res;          /* the reservoir's items (borrowed) */
    const Explanation *const *res_e; /* and their explanations */
    size_t n_res;
    unsigned char *res_shown; /* per reservoir card: shown (owned) */
    size_t cap_res;
    int shown; /* on request: the step's explanation is shown */
    int hover; /* hover: the value hovered or focused, -1 none */
    int n_hover;
    const char *labels[REVEAL_MAX_TARGETS]; /* each value's label */
    int attempt;
    int offered;     /* the attempt's "offer" is recorded */
    Interaction *ev; /* events of the attempt not stored yet (owned) */
    size_t n_ev, cap_ev;
    int oom; /* an event was lost for want of memory */
} RevealState;

/* Starts a step's attempt: e is its explanation (may be NULL), res[0..n)
** the reservoir's items with res_e their explanations (borrowed; the
** arrays must stay valid while the step lasts). Everything hidden, no
** hover, no events. */
void reveal_reset(RevealState *r, const Explanation *e, const Item *const *res,
                  const Explanation *const *res_e, size_t n, int attempt);
void reveal_free(RevealState *r);

/* The step's screen was shown: an explanation that waits for a request or
** a hover is offered (an "offer" event at t_ms). */
void reveal_onset(RevealState *r, double t_ms);

/* Applies SIM_IN_REVEAL or SIM_IN_HOVER at t_ms from the step's onset;
** returns 1 when it changed what is shown (an event is recorded), 0 when
** it does not apply (no such explanation, already so). */
int reveal_apply(RevealState *r, const SimInput *in, double t_ms);

/* The next hover target for Tab (-1 without hover values). */
int reveal_next_focus(const RevealState *r);

/* Whether the step's explanation is shown on request (for the key). */
int reveal_on_request(const RevealState *r);

/* Copies the state into the view. */
void reveal_view(const RevealState *r, SessionView *v);

/* Forgets the events (after they were stored with the response). */
void reveal_stored(RevealState *r);

#endif

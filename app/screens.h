/*
** Screens: turn a SessionView (or the experimenter's start-screen state)
** into a Scene. Building reads the view and never changes it; the run loop
** owns the Scene and draws it each frame.
*/
#ifndef SIMLAB_APP_SCREENS_H
#define SIMLAB_APP_SCREENS_H

#include <stdint.h>

#include "app/render.h"
#include "app/scene.h"
#include "experiment/session.h"
#include "experiment/store.h"

/* Where item screens put the item, its explanation and the reservoir, the
** same for every condition of a study, so that the layout is no confound
** (experiment/screen_model.h, ScreenSlots: the rules; here the measuring,
** in px of one window and text size). */
typedef struct ScreenPlan {
    int w, h;          /* the output size it was made for, px */
    float u;           /* ... and the body text size */
    ScreenSlots slots; /* px */
} ScreenPlan;

typedef struct ScreenCtx {
    Ui *ui;
    Assets *assets;
    const SessionView *view;
    int64_t now_ns;           /* for minimum reading times */
    const char *message;      /* experimenter note override, or NULL */
    const UiStrings *strings; /* the study's runner strings; NULL: English */
    const ScreenPlan *plan;   /* the study's layout (screen_plan_build), or
                                 NULL: item screens measure their own */
    const Study *study;       /* the study (NULL: a view built by hand) */
    ScreenModel *model;       /* where the screen's model is built (NULL: a
                                 model of the call's own) */
} ScreenCtx;

/* Works out the item-screen layout of study for ui's window and text size
** (every explanation and reservoir card measured once). */
void screen_plan_build(ScreenPlan *p, const Study *study, Ui *ui,
                       Assets *assets, const UiStrings *strings);

/* Builds the participant screen for ctx->view into sc (cleared first): its
** screen model (experiment/screen_model.h), drawn. */
void screen_build(Scene *sc, const ScreenCtx *ctx);

/* The experimenter's start screen. */
typedef struct StartState {
    const char *title;
    const char *study_id;
    const char *preset;
    const char *hash;
    const char *db_path;
    const char *station;
    char code[64];  /* participant code being typed */
    int code_focus; /* the code field takes typing */
    int pilot;
    const char **conditions; /* condition ids */
    size_t n_conditions;
    int cond_index;          /* shown condition */
    int assigned_index;      /* what the assignment rule chose */
    const char *assign_rule; /* "balanced" or "hase" */
    /* a within-subject study: the order of conditions the participant
    ** would get (the shown condition first), "" none, and its row of the
    ** latin square (-1: a random or fixed order) */
    char order[256];
    int order_row;
    ParticipantInfo *unfinished;
    size_t n_unfinished;
    int n_complete;
    double free_bytes; /* free space where the database lives */
    char status[512];  /* last error or notice, "" none */

    /* The server sync's state ("" without --sync), and whether it warns
    ** (the server unreachable or refusing). */
    char sync_line[200];
    int sync_bad;
} StartState;

void screen_build_start(Scene *sc, Ui *ui, const StartState *st);

/* A modal confirmation on top of the current scene (LAYER_OVERLAY). */
void screen_add_confirm(Scene *sc, Ui *ui, const char *title, const char *body,
                        const char *yes_label);

/* A line for the experimenter at the bottom edge (LAYER_OVERLAY). */
void screen_add_note(Scene *sc, Ui *ui, const char *text);

#endif

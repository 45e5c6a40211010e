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
** same for every condition of a study, so that the layout is no confound:
** the explanation area is as tall as the study's tallest explanation (and
** kept, empty, in a condition without one), the reservoir's cards as tall
** as its tallest card, above or below the item alike. Made for one window
** and text size (screen_plan_build). */
typedef struct ScreenPlan {
    int w, h;          /* the output size it was made for, px */
    float u;           /* ... and the body text size */
    int any_method;    /* some condition shows explanations */
    float view_h;      /* the body's height on a prediction screen */
    float max_image_h; /* the tallest an item's image is drawn */
    float expl_side_h; /* explanation area content beside the item */
    float expl_full_h; /* ... across the content width (stacked screens,
                          counterfactuals) */
    float res_card_h;  /* the tallest reservoir card */
    float res_h;       /* the reservoir's height, 0 without one */
    int res_top;       /* the reservoir above the item (else below it, a
                          scroll away) */
    float item_h;      /* the tallest item card (stacked beside nothing) */
    /* what made the areas tallest (for simlab check); NULL none */
    const Item *expl_item;
    const char *expl_method;
    const Item *res_item;
    const char *res_method;
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
} ScreenCtx;

/* Works out the item-screen layout of study for ui's window and text size
** (every explanation and reservoir card measured once). */
void screen_plan_build(ScreenPlan *p, const Study *study, Ui *ui,
                       Assets *assets, const UiStrings *strings);

/* Builds the participant screen for ctx->view into sc (cleared first). */
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

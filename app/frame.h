/*
** The runner's display: window, fonts, look, decoded images and the Scene
** of what is shown, with its scroll and hover state. Builds the scene from
** the start screen or the session's view (plus the experimenter's notes
** and dialogs), draws and presents it, writes screenshots and preloads the
** next steps' images. Reads the session, never changes it.
*/
#ifndef SIMLAB_APP_FRAME_H
#define SIMLAB_APP_FRAME_H

#include <stdint.h>

#include "app/assets.h"
#include "app/gfx.h"
#include "app/input.h"
#include "app/scene.h"
#include "app/screens.h"
#include "app/stamps.h"
#include "app/timing_log.h"
#include "experiment/session.h"
#include "stimuli/study.h"

typedef struct Frame {
    Gfx gfx;
    Fonts fonts;
    Ui ui;
    Assets assets;
    Scene scene;
    float scroll;          /* body scroll, px */
    int quest_focus;       /* questionnaire field last scrolled into view */
    unsigned quest_serial; /* ... on this screen */
    int hover;             /* hit region under the mouse, -1 none */
    /* --screenshot-dir */
    const char *shot_dir; /* borrowed, or NULL: no screenshots */
    int shots;            /* written so far */
    char shot_key[160];   /* participant/condition/block of the last one */
    int shot_nn;          /* screens shot under shot_key */
    unsigned shot_serial; /* screen of the last one */
    int shot_start;       /* the start screen's was written */
    /* the layout of the study's item screens (screens.h), for plan_study
    ** at the window and text size it names */
    ScreenPlan plan;
    const Study *plan_study;
    ScreenModel *model; /* the screen model each participant screen is
                           built in (frame_open) */
} Frame;

/* What is to be shown. */
typedef struct FrameView {
    const StartState *start;  /* the start screen, or NULL */
    const Session *session;   /* else the participant's run, or NULL */
    Confirm confirm;          /* the open dialog */
    int64_t now_ns;           /* for reading-time countdowns */
    int autopilot;            /* no hover, no start screenshot */
    int have_shown;           /* a screen of this run was presented */
    const char *media_error;  /* "the stimulus FILE cannot be shown (WHY)",
                                 for the experimenter; NULL none */
    int scene_oom;            /* the run is paused because a screen could
                                 not be built for want of memory */
    const UiStrings *strings; /* the study's runner strings (NULL: English) */
    const Study *study;       /* the study run (its item-screen layout) */
} FrameView;

/* Called for each stimulus file that cannot be shown: the step (0-based
** schedule position, -1 none), the file as the study names it (bundle-
** relative), the resolved path that was opened (NULL when study loading
** did not resolve one) and why. */
typedef void (*MediaFailFn)(void *ctx, int step, const char *rel,
                            const char *file, const char *why);

/* Opens the window (go), finds the fonts, sets the look up at font_scale
** and the image cache; shot_dir (borrowed, may be NULL) gets the
** screenshots. On failure err says why; frame_close still applies. */
int frame_open(Frame *f, const GfxOptions *go, float font_scale,
               const char *shot_dir, SimError *err);
/* Closes everything frame_open opened (also after a failed open). */
void frame_close(Frame *f);

/* The display's refresh period in ns (1/60 s when unknown). */
double frame_refresh_ns(const Frame *f);

/* Builds the scene for fv, clamps the scroll to it and finds the hover
** region under the mouse. Returns 1 when the scroll had to move. When
** memory ran out the scene is incomplete: scene_oom(&f->scene) says so. */
int frame_build(Frame *f, const FrameView *fv);

/* Scrolls the body by dy px within its content. Returns 1 when it moved. */
int frame_scroll_by(Frame *f, float dy);

/* Draws the scene and presents it, writing a screenshot first for a screen
** not shot yet. Returns the clock's time right after the present (the
** onset of a new screen); logs the frame to timing (may be NULL). */
int64_t frame_draw(Frame *f, const FrameView *fv, const Stamps *clock,
                   TimingLog *timing);

/* Decodes the images and heatmaps of the two steps after the current one
** and measures their text, while the participant looks at this one. */
void frame_preload(Frame *f, const Study *study, const Session *s);

/* Decodes into the image cache every image, heatmap and page image of s's
** schedule from the current step on (what the participant will see), so
** that a file that cannot be shown is found before the run goes on. Calls
** fail (may be NULL) once per such file; returns how many there were. */
int frame_preload_run(Frame *f, const Study *study, const Session *s,
                      MediaFailFn fail, void *ctx);

/* The same for what the current screen of s shows. */
int frame_load_view(Frame *f, const Session *s, MediaFailFn fail, void *ctx);

#endif

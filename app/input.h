/*
** Input translation: one SDL event becomes what it asks of the runner -- a
** SimInput for the session (keys by name, clicks on answer buttons), or a
** runner command (text size, scrolling, the experimenter's chords and
** dialogs, the start screen's edits). Pure: it reads the event, the scene
** and a few flags, and changes nothing but its own typing state; no window
** is needed.
*/
#ifndef SIMLAB_APP_INPUT_H
#define SIMLAB_APP_INPUT_H

#include <SDL2/SDL.h>
#include <stdint.h>

#include "app/scene.h"
#include "experiment/session.h"

/* The confirmation dialog that is open. */
typedef enum Confirm {
    CONFIRM_NONE = 0,
    CONFIRM_PAUSE,
    CONFIRM_ABORT,
    CONFIRM_QUIT
} Confirm;

typedef enum RunCmdKind {
    RUN_NONE = 0,
    RUN_SESSION,      /* give .sim to the session */
    RUN_FONT,         /* .value: +1 larger, -1 smaller, 0 the --font-scale */
    RUN_SCROLL,       /* scroll the body by .dy px */
    RUN_HOVER,        /* .value: the hit region under the mouse, or -1 */
    RUN_CONFIRM,      /* answer the open dialog: .value 1 yes, 0 no */
    RUN_ASK,          /* open the dialog .value (a Confirm) */
    RUN_QUIT_BLOCKED, /* a participant tried to leave; .text "quit"/"close" */
    RUN_RESIZED,      /* the output size changed */
    RUN_EXPOSED,      /* redraw */
    RUN_FOCUS,        /* during a run: .value 1 gained, 0 lost */
    RUN_NEXT,         /* the run is over: back to the start screen */
    RUN_START,        /* start screen: enroll and run a new participant */
    RUN_RESUME,       /* start screen: resume unfinished participant .value */
    RUN_TOGGLE_PILOT, /* start screen */
    RUN_COND_STEP,    /* start screen: .value +1 next, -1 previous */
    RUN_FOCUS_CODE,   /* start screen */
    RUN_BACKSPACE,    /* start screen: delete from the code */
    RUN_TEXT          /* start screen: type .text into the code */
} RunCmdKind;

typedef struct RunCmd {
    RunCmdKind kind;
    int value;        /* see RunCmdKind */
    float dy;         /* RUN_SCROLL, px */
    const char *text; /* RUN_TEXT (borrowed from the event), RUN_QUIT_BLOCKED */
    int64_t t_ns;     /* stamp of the press (RUN_CONFIRM, RUN_SESSION) */
    SimInput sim;     /* RUN_SESSION; sim.key points into key */
    char key[32];
} RunCmd;

/* What the translation depends on besides the event. */
typedef struct InputCtx {
    int start;          /* the start screen is up */
    int session;        /* a participant's run is open */
    int paused;         /* the run shows its pause screen */
    int finished;       /* the run is over */
    Confirm confirm;    /* the open dialog */
    int code_focus;     /* the start screen's code field takes typing */
    const Scene *scene; /* what is drawn: hit regions and body size */
    float scroll;       /* body scroll, px */
    float px_per_pt;    /* output pixels per window point */
    float u;            /* body text size, px (a scroll step is 3 u) */
    int typing;         /* a questionnaire is shown: typed text goes to its
                           focused question */
} InputCtx;

/* Typing state across events: a key taken as a command also produces an
** SDL_TEXTINPUT, which must not land in the code field. */
typedef struct Input {
    int drop_text;
    int drop_typed; /* the next text is that of a command key: not typed
                       into a questionnaire answer */
} Input;

/* Translates e into *out (RUN_NONE: nothing to do). t_ns is the stamp of
** a key or button press (stamps_take), else the time it was polled. The
** command may borrow from e (RUN_TEXT) and from out itself (sim.key): use
** it before e changes and do not copy it. Returns out->kind. */
RunCmdKind input_translate(Input *in, const InputCtx *ctx, const SDL_Event *e,
                           int64_t t_ns, RunCmd *out);

/* The key name the study and session use for sym: SDL's name in lower
** case, keypad digits as plain digits ("Keypad 1" -> "1"). */
void input_key_name(SDL_Keycode sym, char *out, size_t n);

#endif

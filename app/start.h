/*
** The experimenter's start screen as a controller: the StartState that
** screens.c draws, kept up to date from the store (unfinished participants,
** completed count, the condition the assignment rule would give, free disk
** space), and the edits the experimenter makes (code, pilot, condition)
** up to enrolling a participant. No window and no clock: callers pass the
** wall-clock time and the entropy for the assignment's tie-break.
*/
#ifndef SIMLAB_APP_START_H
#define SIMLAB_APP_START_H

#include <stddef.h>
#include <stdint.h>

#include "app/screens.h"
#include "experiment/store.h"
#include "experiment/sync.h"
#include "stimuli/study.h"

typedef struct StartCtl {
    StartState st;               /* what the start screen shows */
    Store *store;                /* borrowed */
    const char *station;         /* borrowed; stored with each participant */
    ParticipantInfo *unfinished; /* owned: the list behind st.unfinished */
    char **cond_ids;             /* owned: the array behind st.conditions */
    uint64_t assign_seed;        /* tie-break seed shown, then enrolled with */
    const Study *study;          /* borrowed */
    SyncConn *sync;              /* borrowed, or NULL: assign on the server
                                    (sync_enroll) */
    SyncWorker *sync_worker;     /* borrowed, or NULL: its state is the
                                    screen's sync line */
    int sync_ok;                 /* the last push succeeded */
    char rule_text[48];          /* st.assign_rule with a server: whose
                                    rule it is */
    int64_t refreshed_ms;        /* the wall time of the last refresh */
} StartCtl;

/* Fills c for study (borrowed, as are store, db_path and station) with the
** code field focused; call start_refresh before showing it. Release with
** start_free. */
void start_init(StartCtl *c, const Study *study, Store *store,
                const char *db_path, const char *station);
void start_free(StartCtl *c);

/* Re-reads the store: the sync line (from sync_worker), the unfinished
** participants who are not simulated
** and not active on another station (store_list_resumable),
** the completed count, the condition the assignment rule gives now (with a
** tie-break seed mixed from entropy), and the free space where the database
** lives. A failure to list shows in st.status. */
void start_refresh(StartCtl *c, int64_t wall_ms, uint64_t entropy);

/* Back to a fresh start screen after a run: empty code (focused), no
** status; then start_refresh. */
void start_reset(StartCtl *c, int64_t wall_ms, uint64_t entropy);

/* Enrolls the participant as the screen shows it (code, pilot, the chosen
** condition as an override when it differs from the assigned one). Returns
** 0 and the new id in pid (37 bytes); -1 with the reason in st.status. */
int start_enroll(StartCtl *c, int64_t wall_ms, char pid[37]);

/* The id of unfinished participant index, or NULL when out of range. */
const char *start_unfinished_id(const StartCtl *c, int index);

/* The pilot switch; the assignment differs for pilots, so it refreshes. */
void start_toggle_pilot(StartCtl *c, int64_t wall_ms, uint64_t entropy);

/* One condition forward (forward != 0) or back, wrapping. Returns 1 when
** there is a condition to step to. */
int start_step_condition(StartCtl *c, int forward);

/* Deletes the last character (a whole UTF-8 sequence) of the code. */
void start_backspace(StartCtl *c);

/* Appends typed text to the code when it fits whole; returns 1 then. */
int start_type(StartCtl *c, const char *text);

void start_focus_code(StartCtl *c);

/* Sets the status line (printf format). */
void start_set_status(StartCtl *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

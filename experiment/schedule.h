/*
** Schedules: a participant's whole run (every screen, in order) generated
** from the study, the condition and a seed, before the first trial. Pure C:
** no SQLite, no clock.
*/
#ifndef SIMLAB_EXPERIMENT_SCHEDULE_H
#define SIMLAB_EXPERIMENT_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim_error.h"
#include "stimuli/study.h"

/* What a step waits for before it is done. */
typedef enum Expect {
    EXPECT_ACCEPT = 0,        /* consent: accept (or decline) */
    EXPECT_CONTINUE = 1,      /* pages, breaks, examples without a rating */
    EXPECT_CHOICE = 2,        /* forced choice among the classes */
    EXPECT_RATING = 3,        /* Likert rating only */
    EXPECT_CHOICE_RATING = 4, /* choice and rating, then Continue */
    EXPECT_OPTION = 5,        /* quiz: one of the question's options */
    EXPECT_ANSWERS = 6        /* questionnaire: valid answers to its
                                 required questions, then Continue */
} Expect;

/* One step of the schedule (a row of the trial table). */
typedef struct Trial {
    int seq;            /* 0-based position in the schedule */
    int block;          /* index into study->blocks */
    int index_in_block; /* 0-based position inside the block */
    int n_in_block;     /* steps in the block */
    char *item_key;     /* item shown, NULL for pages, quiz and breaks */
    int page;           /* page or quiz question index, else 0 */
    int is_catch;       /* catch trial: a reservoir item shown again */
    int is_example;     /* practice example (shown, not asked) */
    Expect expects;
    ShowSpec show;      /* what the screen shows (explanation only when the
                           condition has a method) */
    int correct_choice; /* class or option index that is right (verify: 0
                           accept, 1 reject), -1 none */
    int reservoir;      /* block index of the reservoir, -1 none */
    char *test_type;    /* "forward", "counterfactual", "verify",
                           "decide" or NULL */
    char *condition;    /* condition of the step (within-subject studies),
                           NULL = the schedule's condition */
    int *options;       /* the item's own answer options (class indices)
                           in the order offered, or NULL: the study's
                           classes (schedule_set_options) */
    size_t n_options;
} Trial;

typedef struct Schedule {
    char *condition; /* condition id (within-subject: the first one) */
    uint64_t seed;   /* the participant's seed */
    Trial *trials;
    size_t n_trials;
} Schedule;

/* Builds the schedule of a participant in condition (an id of study) from
** seed. Items of DRAW_STUDY blocks are the same for every participant (data
** matching); orders are shuffled per participant from seed; blocks with
** same_items_as reuse that block's items in a fresh order; catch trials are
** items of the reservoir block inserted at random positions.
** On success *out owns a new Schedule (schedule_free). On failure *out is
** NULL and err says why (e.g. a pool too small). */
int schedule_build(const Study *study, const char *condition, uint64_t seed,
                   Schedule **out, SimError *err);

/* Builds the schedule of a within-subject participant who does the
** n_order conditions order[] (ids of study) in that order. With sessions
** (blocks with a session), the blocks of session t show order[t-1]; blocks
** outside sessions show the condition of the session before them (the
** first before any). Without sessions the blocks of study_within_range()
** are repeated once per condition in order (its closing breaks, which
** pause between conditions, not after the last); blocks before them show
** order[0], blocks after them the last condition. Each repetition draws
** its own items: no item a block of an earlier repetition showed is drawn
** again while the pool has unused ones; when it runs short, the rest comes
** from the items already shown. Repetition 0 draws as schedule_build()
** does; later ones from their own streams (the same for every participant
** for DRAW_STUDY blocks, so item sets follow positions, not conditions).
** Every step records its condition in Trial.condition; the schedule's
** condition is order[0]. Otherwise as schedule_build(). */
int schedule_build_within(const Study *study, const char *const *order,
                          size_t n_order, uint64_t seed, Schedule **out,
                          SimError *err);

/* The condition of step t of schedule: its own, else the schedule's. */
const char *trial_condition(const Schedule *schedule, const Trial *t);

void schedule_free(Schedule *schedule); /* NULL is a no-op */

/* Makes an empty schedule for condition that the caller fills (the store
** uses this when reading a schedule back). NULL when out of memory. */
Schedule *schedule_new(const char *condition, uint64_t seed, size_t n_trials);

/* Items (keys) of the reservoir of trial t: the items of the reservoir block
** in this schedule (of t's condition when the block is repeated per
** condition), in the order they were shown. Writes up to max keys to
** keys (borrowed from the schedule) and returns their number. */
size_t schedule_reservoir(const Schedule *schedule, const Trial *t,
                          const char **keys, size_t max);

const char *expect_name(Expect e);

/* Sets t's answer options to the n class indices in options (copied);
** n 0 clears them. SIM_OK or SIM_ERR_NOMEM. */
int schedule_set_options(Trial *t, const int *options, size_t n);

#endif

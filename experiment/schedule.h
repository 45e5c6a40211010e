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
    int correct_choice; /* class or option index that is right, -1 none */
    int reservoir;      /* block index of the reservoir, -1 none */
    char *test_type;    /* "forward", "counterfactual" or NULL */
} Trial;

typedef struct Schedule {
    char *condition; /* condition id */
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

void schedule_free(Schedule *schedule); /* NULL is a no-op */

/* Makes an empty schedule for condition that the caller fills (the store
** uses this when reading a schedule back). NULL when out of memory. */
Schedule *schedule_new(const char *condition, uint64_t seed, size_t n_trials);

/* Items (keys) of the reservoir of trial t: the items of the reservoir block
** in this schedule, in the order they were shown. Writes up to max keys to
** keys (borrowed from the schedule) and returns their number. */
size_t schedule_reservoir(const Schedule *schedule, const Trial *t,
                          const char **keys, size_t max);

const char *expect_name(Expect e);

#endif

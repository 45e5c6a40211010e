/*
** The users x items design of one crossed bootstrap, collected from the
** responses: resampling units (participant, condition), items with their
** draw group, and (unit, item) pairs with an accumulation cell and two 0/1
** outcomes. The change, Utility and ratings tables all collect through it.
** Internal to simlab_analysis; libc, common/ and boot.h only.
*/
#ifndef SIMLAB_ANALYSIS_DESIGN_H
#define SIMLAB_ANALYSIS_DESIGN_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/boot.h"
#include "analysis/compute.h"
#include "analysis/keymap.h"
#include "analysis/report.h"

/* Whether a response may enter an accuracy or rating analysis: its
** participant was kept by screening and it is not a catch trial. Catch
** trials are attention checks, never data; the change, Utility, ratings,
** participant-accuracy and item tables all ask this one question. */
int design_counts(const Screen *sc, const DatasetResponse *row);

/* design_counts, and not a practice trial: the answers the error-detection,
** team and distinction tables are made of (practice is for learning the
** task, often with feedback, as the item table leaves it out too). */
int design_scored(const Screen *sc, const DatasetResponse *row);

/* A pair before grouping by unit; ya/yb 255 means "not answered yet". */
typedef struct RawPair {
    int unit, item;
    uint8_t cell, ya, yb;
} RawPair;

typedef struct Design {
    BootDesign d; /* ready after design_finish() */
    int *unit_cond, *unit_stratum, *unit_part;
    int *item_group;
    size_t *unit_off;
    BootPair *pairs; /* grouped by unit after design_finish() */
    int n_units, n_items;
    uint64_t *unit_cells; /* cell signature of each unit */
    /* collection; while every unit's pairs arrive together, design_pair()
    ** finds a repeat through the item's stamp (the last unit that had a
    ** pair of the item, and that pair); the first unit to come back turns
    ** on the pair index */
    KeyMap units, items, pair_index;
    int *item_stamp, *item_pair;
    size_t cap_stamps;
    int cur_unit;   /* the unit of the last design_pair(), or -1 */
    int pair_keyed; /* 1: pairs are found through pair_index */
    RawPair *raw;
    size_t n_raw, cap_raw, cap_units, cap_items;
    uint64_t *set_cells; /* participant-mean cell sets, or NULL */
} Design;

/* Starts an empty design (x is overwritten). */
void design_init(Design *x);
/* Frees everything x holds; x is empty afterwards. */
void design_free(Design *x);

/* Adds one pair of the unit (participant, cond) and the item key (a
** combination of string ids) in draw group group, accumulated in cell.
** Returns the pair's index in x->raw, or -1 when out of memory. */
long design_push(Design *x, int participant, int cond, uint64_t item_key,
                 int group, int cell, int ya, int yb);
/* As design_push(), but one pair per (unit, item): a repeat returns the
** index of the first pair (new pairs start with ya = yb = 255). */
long design_pair(Design *x, int participant, int cond, uint64_t item_key,
                 int group, int cell);

/* Keeps the pairs with both outcomes set (ya, yb != 255) and drops the
** items left without pairs, which must not be drawn with the others of
** their group. Returns 0, or -1 when out of memory. */
int design_keep_answered(Design *x);

/* Groups the pairs by unit and fills x->d: strata are (condition, set of
** cells answered), item draws per o (--items), and with
** o->accuracy_participant the n_sets cell sets set_cells (copied). */
int design_finish(Design *x, int n_conds, int n_cells, int n_groups,
                  const AnalyzeOptions *o, const uint64_t *set_cells,
                  int n_sets, SimError *err);

/* A bootstrap run with seed and label and the replicates, threads and
** progress of o; the caller sets the statistic. */
BootRun design_run(const AnalyzeOptions *o, uint64_t seed, const char *label);

#endif

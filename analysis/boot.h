/*
** The crossed (users x items) bootstrap engine. Replicate b draws user
** multiplicities u_i within strata and item multiplicities v_j within item
** groups from the random stream (seed, b), and hands a statistic callback
** the weighted sums sum w, sum w*ya, sum w*yb per (condition, cell) with
** w_ij = u_i v_j -- no rows are materialised. Threads split the replicates;
** results do not depend on the thread count. libc, pthreads, common/.
*/
#ifndef SIMLAB_ANALYSIS_BOOT_H
#define SIMLAB_ANALYSIS_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim_clock.h"
#include "common/sim_error.h"

#define BOOT_MAX_CELLS 64

/* One observed (user, item) pair. */
typedef struct BootPair {
    int item;       /* 0 <= item < n_items */
    uint8_t cell;   /* accumulation cell (< BOOT_MAX_CELLS) */
    uint8_t ya, yb; /* two 0/1 outcomes (e.g. pre and post correct) */
} BootPair;

typedef struct BootDesign {
    int n_units;             /* resampling units (users) */
    const int *unit_cond;    /* condition of each unit, < n_conds */
    const int *unit_stratum; /* stratum of each unit, < n_strata */
    int n_conds, n_strata;
    int n_items;
    const int *item_group; /* item stratum of each item, < n_groups */
    int n_groups;
    int n_cells;            /* <= BOOT_MAX_CELLS */
    const size_t *unit_off; /* pairs of unit i: [unit_off[i], unit_off[i+1]) */
    const BootPair *pairs;
    int items_per_condition; /* 1: a separate item draw per condition */
    int items_fixed;         /* 1: items not resampled (users only) */
    /* Participant-level means: for each of n_sets cell sets (bitmasks over
    ** cells) also accumulate sum_i u_i * (ya_i / n_i) and sum_i u_i over
    ** units with n_i > 0 in that set. 0 sets turns this off. */
    int n_sets;
    const uint64_t *set_cells;
    /* Participant blocks (within-subject designs): unit_block[i] >= 0 is
    ** the block (participant) of unit i, or NULL. When some block holds
    ** several units, whole blocks are drawn instead of units: a drawn block
    ** brings every unit it holds (all of a participant's conditions) with
    ** the same multiplicity, drawn with replacement within block strata
    ** (blocks whose units have the same set of unit strata). When every
    ** block holds one unit, or unit_block is NULL, units are drawn within
    ** their strata as described above. */
    const int *unit_block;
} BootDesign;

/* Per-replicate sums handed to the statistic. */
typedef struct BootSums {
    const double *n;  /* [cond * n_cells + cell]: sum w */
    const double *sa; /* sum w * ya */
    const double *sb; /* sum w * yb */
    /* participant means, [cond * n_sets + set]: */
    const double *pa; /* sum u * ya_i/n_i */
    const double *pb; /* sum u * yb_i/n_i */
    const double *pu; /* sum u over units with n_i > 0 */
} BootSums;

/* Computes n_stats values (NaN = invalid) from one replicate's sums. It runs
** in several threads at once: ctx must be read-only, scratch is per thread
** (NULL unless scratch_size was given). */
typedef void (*BootStatFn)(const void *ctx, const BootSums *sums, void *scratch,
                           double *out);

typedef struct BootRun {
    uint64_t seed;
    int replicates;
    int threads;
    int progress;              /* 1: a progress line on stderr (progress.h) */
    const SimWallClock *clock; /* its clock; NULL: none */
    const char *label;         /* the line's stage */
    BootStatFn stat;
    const void *ctx;
    size_t scratch_size; /* bytes of per-thread scratch for stat */
    int n_stats;
} BootRun;

/* Runs the bootstrap. On success *out owns replicates * n_stats doubles,
** replicate-major (out[b * n_stats + m]); free with sim_free(). */
int boot_run(const BootDesign *d, const BootRun *run, double **out,
             SimError *err);

/* The unit multiplicities u[0..n_units) replicate b draws (seed, b): for
** tests and diagnostics. Returns 0, or -1 when out of memory. */
int boot_draw_units(const BootDesign *d, uint64_t seed, int b, int *u);

/* Computes the full-sample sums (every u_i = v_j = 1) into the stat. */
int boot_full(const BootDesign *d, const BootRun *run, double *out,
              SimError *err);

#endif

/*
** Simulated participants: policies that answer the session's view (used by
** `simlab simulate`, the app's autopilot and power simulations) and the
** simulate command's loop. Simulated time only; no clock, no SDL.
*/
#ifndef SIMLAB_EXPERIMENT_SIMULATE_H
#define SIMLAB_EXPERIMENT_SIMULATE_H

#include <stdint.h>
#include <stdio.h>

#include "experiment/session.h"
#include "common/sim_error.h"
#include "common/sim_rng.h"
#include "experiment/store.h"
#include "experiment/sync.h"
#include "stimuli/study.h"

typedef enum PolicyKind {
    POLICY_MODEL = 0,  /* always answers the model's output */
    POLICY_LABEL = 1,  /* answers the true label */
    POLICY_RANDOM = 2, /* uniform over the choices */
    POLICY_MIXED = 3   /* P(correct) per condition and phase with
                          participant and item random effects */
} PolicyKind;

typedef struct Policy {
    PolicyKind kind;
    const Study *study;
    SimulationSpec spec;  /* mixed: parameters (study's, possibly
                             overridden); borrowed strings */
    uint64_t study_seed;  /* item effects are drawn from this */
    double participant_u; /* this participant's logit effect */
    SimRng rng;           /* this participant's stream */
    uint64_t participant_seed;
    char answer[160]; /* questionnaire answer being given (SimInput.key) */
    /* an explanation given on request or on hover: decided once per
    ** screen (view_serial) whether to look (spec.reveal_p), and how many
    ** values were hovered so far */
    unsigned view_serial;
    int view_decided, will_view, hovered;
} Policy;

/* Parses "model", "label", "random" or "mixed". */
int policy_parse(const char *name, PolicyKind *kind, SimError *err);

/* Prepares policy for one participant (seed = its seed). */
void policy_init(Policy *policy, PolicyKind kind, const Study *study,
                 const SimulationSpec *spec, uint64_t study_seed,
                 uint64_t participant_seed);

/* Probability that a mixed-policy participant with effect u answers item
** correctly in condition/phase (before the answer is drawn). */
double policy_p_correct(const Policy *policy, const char *condition,
                        const char *phase, const char *item_key);

/* Population accuracy of a cell under the mixed policy (integrated over
** participant and item effects): the "true" value simulated data have. */
double policy_true_accuracy(const SimulationSpec *spec, const char *condition,
                            const char *phase);

/* Parses a "CONDITION:PHASE=P" override ('*' for any) into cell; the
** strings point into text, which must outlive cell. */
int policy_parse_cell(char *text, SimCell *cell, SimError *err);

/* Decides the participant's next input for view at simulated time *now_ns,
** advancing *now_ns by a plausible reaction time; questionnaires get a
** valid answer per question (in->key points into policy) before Continue.
** An explanation given on request is first revealed, one shown on hover
** has up to three values hovered (then none), with probability
** spec.reveal_p per screen (every policy).
** Returns 0 when it has an input in *in, -1 when the view needs none (e.g.
** done). */
int policy_next_input(Policy *policy, const SessionView *view, int64_t *now_ns,
                      SimInput *in);

/* The simulated clock of a run: monotonic ns, and the wall-clock time
** (Unix ms) at start_ns. */
typedef struct SimClock {
    int64_t start_ns, now_ns;
    int64_t wall_ms;
} SimClock;

/* Answer deadlines met and missed by simulated participants. */
typedef struct SimulateCounts {
    long deadline_trials; /* choices asked with an answer deadline */
    long timeouts;        /* of them, not answered in time (timed out) */
    long *cond_deadline;  /* per condition of the study (the step's), or */
    long *cond_timeouts;  /* NULL: the same two counts */
} SimulateCounts;

/* Drives participant pid (enrolled in store) through the real session
** state machine to its end (done or screened out), answering with a
** policy of kind and spec (item effects from study_seed, the rest from the
** participant's seed) on the simulated clock, which it advances. Adds the
** participant's deadline trials and timeouts to counts (may be NULL). */
int simulate_participant(Store *store, const Study *study, PolicyKind kind,
                         const SimulationSpec *spec, uint64_t study_seed,
                         const char *pid, SimClock *clock,
                         SimulateCounts *counts, SimError *err);

typedef struct SimulateOptions {
    const char *bundle_dir;
    const char *db_path;
    int participants; /* complete simulated participants wanted */
    PolicyKind policy;
    uint64_t seed;
    const char *station;
    Durability durability;
    const char **cells; /* extra "CONDITION:PHASE=P" overrides */
    int n_cells;
    int verbose;
    int accept_changed;    /* continue a database of an older bundle */
    double participant_sd; /* mixed: override the study's SD (< 0: keep) */
    double item_sd;        /* mixed: override the study's SD (< 0: keep) */
    int64_t wall_ms;       /* wall-clock start (Unix ms); simulated time
                              runs on from here */
    const char *sync_url;  /* PostgreSQL server to assign on and push to
                              (experiment/sync.h), or NULL */
    const SyncClock *sync_clock; /* the background push's clock (with
                                    sync_url) */
} SimulateOptions;

/* `simlab simulate`: finishes unfinished simulated participants, then
** enrolls new ones until the database holds opts->participants complete
** simulated participants. Progress goes to log (may be NULL), the summary
** with the timeout rate of the answers with a deadline. With
** sync_url, conditions are chosen on the server while it is reachable
** (sync_enroll) and a background worker pushes the file; the last push
** happens before return (its failure is logged, not returned: the data
** are safe in the file and `simlab sync` pushes them later). */
int simulate_run(const SimulateOptions *opts, FILE *log, SimError *err);

#endif

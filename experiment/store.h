/*
** Storage of a study's data in SQLite: the study definition and bundle hash,
** participants, their schedules, responses, screening results and events.
** WAL journal, synchronous=FULL, foreign keys, user_version migrations.
** One database per study and station, and one writer per database: a
** read-write open takes the station lease (a row naming station, host and
** pid, plus an OS lock on the file) and a second process is refused.
** No clock: callers pass times.
** Implemented by store.c, store_schema.c, store_enroll.c, store_response.c
** and store_lease.c (map in store_int.h); assignment rules in assign.h.
*/
#ifndef SIMLAB_EXPERIMENT_STORE_H
#define SIMLAB_EXPERIMENT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/interaction.h"
#include "experiment/schedule.h"
#include "common/sim_error.h"
#include "stimuli/study.h"

typedef struct Store Store;

#define STORE_SCHEMA_VERSION 11

/* A lease whose heartbeat is this old (by the opener's clock) may be taken
** over; a holder on the same host whose OS lock is gone (it exited or was
** killed) is taken over at once. Writes refresh the heartbeat at most every
** STORE_LEASE_BEAT_MS; an idle holder calls store_heartbeat(). */
#define STORE_LEASE_TIMEOUT_MS 30000
#define STORE_LEASE_BEAT_MS    5000

typedef enum Durability {
    DURABILITY_FULL = 0, /* synchronous=FULL: every commit reaches the disk */
    DURABILITY_FAST = 1  /* synchronous=OFF; power simulations only */
} Durability;

typedef struct StoreOpenSpec {
    const char *path;
    const Study *study;
    const char *station; /* holds the lease and is recorded with every
                            response; NULL: the host name */
    Durability durability;
    int allow_changed; /* see store_open */
    int64_t wall_ms;   /* now, Unix ms */
    int memory;        /* 1: a private database in memory (path only names
                          it in messages): no file, no OS lock; for state
                          that must not outlive the process */
} StoreOpenSpec;

/* Opens (creating or migrating) the database at spec->path for
** spec->study, as the one writer of the file: takes the station lease.
** Refused with SIM_ERR_BUSY, naming the station, host and pid that hold
** it, while another process holds the lease (a lease is free when its
** holder closed the store, when the holder on this host is gone, or when
** its heartbeat is STORE_LEASE_TIMEOUT_MS old; a takeover is logged as a
** "lease_takeover" event). When the database already holds data of a
** bundle with a different hash, it is refused unless allow_changed is set
** (then the new definition is stored as a further version and used from
** now on). A file or folder the OS refuses to write is named with the
** reason (read-only file system, permission, missing folder). On success
** *out owns a new Store (store_close); store_warning() then tells whether
** the file sits on a network file system. */
int store_open_spec(const StoreOpenSpec *spec, Store **out, SimError *err);

/* store_open_spec with the host name as the station. */
int store_open(const char *path, const Study *study, Durability durability,
               int allow_changed, int64_t wall_ms, Store **out, SimError *err);

/* Opens an existing database read-only, for export and analysis; study may
** be NULL. Takes no lease: it reads beside a running writer. A database
** in a folder SQLite cannot write is still read when it was closed cleanly
** (no PATH-wal left); otherwise the error says what is missing. */
int store_open_readonly(const char *path, Store **out, SimError *err);

/* Closes the store and, for a read-write store, gives the lease back. */
void store_close(Store *store); /* NULL is a no-op */

const char *store_path(const Store *store);

/* The station the store writes as ("" when opened read-only). */
const char *store_station(const Store *store);

/* A warning about where the database lives, for the app or CLI to print
** ("" when none): a network or FUSE file system, file locks that do not
** work there. */
const char *store_warning(const Store *store);

/* Refreshes the lease's heartbeat at now_ms when the last one is
** STORE_LEASE_BEAT_MS old (writes do this by themselves); call it now and
** then while no writes happen. SIM_ERR_DB when another process took the
** lease over: this store must stop writing. */
int store_heartbeat(Store *store, int64_t now_ms, SimError *err);

/* 1 once a write found the lease taken over by another process (the
** failure was not the disk's): this store must stop. 0 while the lease is
** this store's (a write that failed for another reason -- a full disk,
** an I/O error -- may be tried again). */
int store_lease_lost(const Store *store);

/* The name of a network or FUSE file system type (statfs f_type), or NULL
** for a local one. */
const char *store_fs_network_name(long f_type);

/* What store_open does with a path the OS refused: the step that failed
** and errno. */
typedef enum StoreOsStep {
    STORE_OS_OPEN_FILE = 0, /* opening (or creating) the file to write */
    STORE_OS_FOLDER = 1,    /* the folder, where SQLite creates PATH-wal */
    STORE_OS_READ = 2       /* opening the file to read */
} StoreOsStep;

/* Writes the message for errnum at step on path into buf ("cannot write
** PATH: read-only file system", "the folder of PATH is not writable
** (SQLite needs to create PATH-wal there)", ...). file_exists: whether
** path exists. */
void store_os_message(char *buf, size_t size, const char *path,
                      StoreOsStep step, int errnum, int file_exists);

/* ------------------------------------------------------------ enrollment */

typedef struct EnrollSpec {
    const char *code;      /* participant code typed by the experimenter,
                              or NULL */
    const char *station;   /* station name, or NULL */
    int pilot;             /* 1 = pilot participant */
    int simulated;         /* 1 = simulated participant */
    const char *condition; /* experimenter override, or NULL to assign */
    uint64_t seed;         /* per-participant seed; 0 = draw one */
    uint64_t assign_seed;  /* randomness for the tie-break; 0 = draw */
    int64_t wall_ms;       /* now, Unix ms */

    /* From a server assignment (experiment/sync.h), else NULL: the
    ** participant's UUID (NULL: a new one), what to record instead of
    ** "override" with condition (the server's rule), and
    ** participant.assign_source ("server" or "station_fallback"). */
    const char *id;
    const char *assigned_by;
    const char *assign_source;
} EnrollSpec;

typedef enum ParticipantStatus {
    PSTATUS_ACTIVE = 0,      /* enrolled, not finished */
    PSTATUS_COMPLETED = 1,   /* reached the end */
    PSTATUS_ABORTED = 2,     /* stopped by the experimenter; resumable */
    PSTATUS_DECLINED = 3,    /* declined consent */
    PSTATUS_SCREENED_OUT = 4 /* a screening rule ended the run */
} ParticipantStatus;

typedef struct ParticipantInfo {
    char id[37];   /* UUID */
    char code[64]; /* participant code ("" if none) */
    char condition[64];
    char assigned_by[16];    /* "balanced", "hase", "override" */
    char station[64];        /* where the participant was enrolled */
    char active_station[64]; /* the station of the last write for them */
    int pilot, simulated;
    ParticipantStatus status;
    int excluded;
    char exclusion_reason[128];
    uint64_t seed;
    int n_trials; /* steps in the schedule */
    int n_done;   /* steps done */
    int64_t created_ms, last_active_ms;
} ParticipantInfo;

/* Chooses a condition for a new participant with the given pilot/simulated
** flags (they are counted apart from the others) under the study's rule,
** as store_enroll() would, without enrolling anyone: the store counts the
** participants filling each condition and experiment/assign.h decides
** (ASSIGN_BALANCED: least filled, counting completed, non-excluded
** participants plus those active within assignment.active_minutes, ties
** broken at random from rng_seed; ASSIGN_HASE: every condition filled to
** min_complete that way, then then_condition; a within-subject study: the
** first condition of the order the participant would get, a random order
** drawn from rng_seed as store_enroll() draws it from its assign_seed).
** Writes the condition id to out; SIM_ERR_STATE when none can be assigned,
*SIM_ERR_USAGE when the id
** does not fit in out_size. */
int store_assign_condition(Store *store, int pilot, int simulated,
                           int64_t wall_ms, uint64_t rng_seed, char *out,
                           size_t out_size, SimError *err);

/* A within-subject study: the order of conditions a new participant would
** get now, as store_enroll() chooses it (override: the condition to start
** with, or NULL; rng_seed as store_assign_condition's), written as the
** condition ids joined by " â " into out, with its latin-square
** row in *row (0-based; -1 outside latin squares). SIM_ERR_STATE outside
** within-subject studies; SIM_ERR_USAGE when it does not fit in out_size
** or override names no condition. */
int store_preview_order(Store *store, const char *override, int pilot,
                        int64_t wall_ms, uint64_t rng_seed, char *out,
                        size_t out_size, int *row, SimError *err);

/* A fresh non-zero 64-bit seed from the system's random source (a random
** UUID), for a participant's schedule or an assignment draw. */
uint64_t store_random_seed(void);

/* Enrolls a participant: assigns a condition (or records the override),
** builds the schedule from its seed and stores participant and schedule in
** one transaction. In a within-subject study it chooses an order of all
** the conditions instead (assign_choose_order; the override names the
** first), stores it with the participant (condition = its first) and each
** step's condition with the schedule. Fills *info (may be NULL). */
int store_enroll(Store *store, const EnrollSpec *spec, ParticipantInfo *info,
                 SimError *err);

int store_participant(Store *store, const char *pid, ParticipantInfo *info,
                      SimError *err);

/* Lists participants (unfinished_only: active or aborted). *out is a new
** array of *n entries, freed with sim_free. */
int store_list_participants(Store *store, int unfinished_only,
                            ParticipantInfo **out, size_t *n, SimError *err);

/* The unfinished participants (active or aborted) a station may resume at
** now_ms: those active on another station (its last write for them is
** less than STORE_LEASE_TIMEOUT_MS old) are left out. Otherwise as
** store_list_participants. */
int store_list_resumable(Store *store, int64_t now_ms, ParticipantInfo **out,
                         size_t *n, SimError *err);

/* 1 when participant info is active on a station other than store's at
** now_ms (see store_list_resumable). */
int store_participant_live_elsewhere(const Store *store,
                                     const ParticipantInfo *info,
                                     int64_t now_ms);

/* Reads a participant's stored schedule. *out owns a new Schedule. */
int store_load_schedule(Store *store, const char *pid, Schedule **out,
                        SimError *err);

/* seq of the first step not done, or -1 when every step is done. */
int store_first_unanswered(Store *store, const char *pid, int *seq,
                           SimError *err);

/* ------------------------------------------------------------- responses */

/* A screening rule decided by a response (stored with it). */
typedef struct ScreenResult {
    const char *rule; /* "practice", "quiz", "catch", "time", ... */
    int passed;       /* 0 excludes the participant */
    char detail[128]; /* e.g. "3 of 5 right on the first try" */
} ScreenResult;

/* One answer to a questionnaire question (experiment/store_answer.c). */
typedef struct Answer {
    const char *question; /* question id */
    const char *type;     /* "number", "choice", "likert", "text" */
    const char *value;    /* as given (option text, point, number, text) */
    double rt_ms;         /* step onset to the last change; < 0 unknown */
} Answer;

typedef struct Response {
    const char *participant;
    int seq;                /* step */
    int choice;             /* class/option index, -1 none */
    const char *choice_id;  /* class id or option text, NULL none */
    int correct;            /* 1, 0, or -1 when not applicable */
    int rating;             /* 1..points, 0 none */
    int attempts;           /* 1 + retries so far */
    int done;               /* 1 when the step is complete */
    int64_t onset_ns;       /* stimulus onset, high-resolution clock */
    int64_t response_ns;    /* time the answer was taken from the OS */
    int64_t rating_ns;      /* time of the rating, 0 none */
    int64_t wall_ms;        /* wall-clock time of recording */
    int timed_out;          /* 1: the answer deadline passed (no choice) */
    int confidence;         /* 1..confidence points, 0 none */
    int64_t confidence_ns;  /* time of the confidence, 0 none */
    ScreenResult screen[2]; /* screening results this response decides */
    int n_screen;
    int set_status;               /* 1: also set the participant's status to */
    ParticipantStatus new_status; /* this, in the same transaction */
    const Answer *answers;        /* questionnaire: answers stored in the */
    size_t n_answers;             /* same transaction (done steps only) */
    const Interaction *interactions; /* reveals, hides and hovers of the */
    size_t n_interactions;           /* attempt, stored with it */
} Response;

/* Records the response to a step in one transaction (with the store's
** station in response.station), together with the screening results it
** decides (a failed rule marks the participant excluded) and the status it
** leads to (set_status), and marks the participant active at wall_ms on
** the store's station. The first record of a step inserts its
** row; a later record of a step that is not done yet (a retry of practice or
** quiz) only updates attempts and done. Recording a step that is already
** done is refused with SIM_ERR_STATE and changes nothing. */
int store_record_response(Store *store, const Response *r, SimError *err);

/* Reads the stored answers of participant pid's questionnaire step seq:
** calls fn(question, value, ctx) for each, in the order stored. */
int store_get_answers(Store *store, const char *pid, int seq,
                      void (*fn)(const char *question, const char *value,
                                 void *ctx),
                      void *ctx, SimError *err);

/* Calls fn for each stored interaction of participant pid's step seq, in
** order (event, target "" for none, t_ms, attempt). */
int store_get_interactions(Store *store, const char *pid, int seq,
                           void (*fn)(const char *event, const char *target,
                                      double t_ms, int attempt, void *ctx),
                           void *ctx, SimError *err);

/* Reads the stored response of a step; *found = 0 when none. */
int store_get_response(Store *store, const char *pid, int seq, Response *r,
                       int *found, SimError *err);

int store_set_status(Store *store, const char *pid, ParticipantStatus status,
                     int64_t wall_ms, SimError *err);

/* Marks the participant excluded by screening rule `rule` (e.g. "quiz",
** "practice", "catch", "too_fast") and stores the screening result. */
int store_record_screening(Store *store, const char *pid, const char *rule,
                           int passed, const char *detail, int64_t wall_ms,
                           SimError *err);

/* Stores a station's timing report (`simlab selftest --db`): the station,
** when (Unix ms), whether the display was virtual and the report itself
** (JSON text, "simlab station timing v1"). Table station_timing. */
int store_add_station_timing(Store *store, const char *station, int64_t wall_ms,
                             int is_virtual, const char *report_json,
                             SimError *err);

/* Appends an event (abort, pause, resume, focus_lost, missed_frame, error,
** display, ...). pid may be NULL for station-level events. */
int store_log_event(Store *store, const char *pid, const char *kind,
                    const char *detail, int64_t wall_ms, int64_t mono_ns,
                    SimError *err);

/* Groups the writes that follow (status, events) into one transaction:
** store_begin, the writes, then store_commit; store_rollback undoes them
** after a failure. Calls that have their own transaction (enrollment,
** responses, screening) must not run inside one. */
int store_begin(Store *store, SimError *err);
int store_commit(Store *store, SimError *err);
void store_rollback(Store *store);

/* Group commit (simlab serve): between store_group_begin and
** store_group_commit the transactions of the store's own calls (responses,
** enrollment, status, events, heartbeats) are savepoints of one
** transaction, so that many participants' responses reach the disk with
** one sync. A call that fails inside the group undoes only its own writes.
** Nothing of the group is durable before store_group_commit returns
** SIM_OK; when the commit fails, the whole group is rolled back, and the
** caller must acknowledge none of it and re-read whatever state it derived
** from it (e.g. reopen the sessions). store_begin must not be used inside
** a group. */
int store_group_begin(Store *store, SimError *err);
int store_group_commit(Store *store, SimError *err);

/* Sets the pages of WAL after which a commit of this connection copies
** the WAL back into the file (SQLite's wal_autocheckpoint, 1000 by
** default); 0: never (store_checkpoint does it from elsewhere). */
int store_autocheckpoint(Store *store, int pages, SimError *err);

/* A passive checkpoint of the database at path on a connection of its own
** (writers and readers go on meanwhile): for a thread that is not the
** writer's, so that no commit waits for the copy and its sync. */
int store_checkpoint(const char *path, SimError *err);

/* Undoes everything written since store_group_begin and closes the group
** (a scratch store whose writes are only tried out). No-op without a
** group. */
void store_group_rollback(Store *store);

/* ----------------------------------------------- online access (serve) */

/* How a participant of `simlab serve` may continue from another browser
** (docs/online.md "Who may continue"): the mode and the keyed hashes of
** the browser key, the platform session and the resume code the first
** visit brought or was given (hex; "" none). The store keeps the text;
** serve/ makes and compares the hashes. Table online_access (schema 10),
** never pushed to a server. */
typedef struct OnlineAccess {
    char participant[37];
    char mode[8]; /* "token", "session", "code" or "id" */
    char key_hash[65];
    char session_hash[65];
    char code_hash[65];
} OnlineAccess;

/* Stores a's row (replacing the participant's earlier one) at wall_ms. */
int store_online_access_put(Store *store, const OnlineAccess *a,
                            int64_t wall_ms, SimError *err);

/* Every participant's row. *out is a new array of *n rows (sim_free). */
int store_online_access_list(Store *store, OnlineAccess **out, size_t *n,
                             SimError *err);

/* The file's own secret for `simlab serve` (32 random bytes made when the
** file was created or migrated to schema 10, never pushed): the key of
** the hashes above and of the pilot link. */
int store_online_secret(Store *store, unsigned char out[32], SimError *err);

/* When the step a participant is on was reached: the time of their last
** recorded response (recorded_ms), else of their enrolment (created_ms).
** Unix ms. */
int store_step_since_ms(Store *store, const char *pid, int64_t *out,
                        SimError *err);

/* Counts participants (simulated flag as given; -1 = any) that are
** complete. */
int store_count_complete(Store *store, int simulated, int *n, SimError *err);

/* The study hash stored with the data (borrowed until store_close). */
const char *store_study_hash(const Store *store);

/* The SQLite handle, for export and tests (borrowed). */
struct sqlite3 *store_db(Store *store);

const char *participant_status_name(ParticipantStatus s);

/* The status named s (participant_status_name's names); active for NULL or
** an unknown name. */
ParticipantStatus participant_status_parse(const char *s);

#endif

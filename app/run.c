/*
** `simlab run`: sets the runner up -- options, study, database, folders,
** timing log, window and fonts, event stamps, autopilot -- hands it to the
** loop (loop.c) and closes everything again. Built only with SDL2;
** run_none.c stands in for it without.
*/
#define _POSIX_C_SOURCE 200809L
#include "app/app.h"

#include <SDL2/SDL.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/autopilot.h"
#include "app/frame.h"
#include "app/loop.h"
#include "app/rawinput.h"
#include "app/run_options.h"
#include "app/rush.h"
#include "app/stamps.h"
#include "app/station_conf.h"
#include "app/sync_cmd.h"
#include "app/timing_log.h"
#include "common/sim_clock.h"
#include "experiment/simulate.h"
#include "experiment/store.h"
#include "stimuli/study.h"

static int load_study(const char *dir, Study **out)
{
    SimError err;
    StudyReport rep;
    study_report_init(&rep);
    int rc = study_load(dir, out, &rep, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        for (size_t i = 0; i < rep.n_errors; i++) {
            study_diag_print(stderr, "  ", &rep.errors[i]);
        }
        fprintf(stderr, "Run 'simlab check %s' for the full report.\n", dir);
    }
    study_report_free(&rep);
    return rc;
}

static int mkdir_parent(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) {
        return 0;
    }
    *slash = 0;
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        return 0;
    }
    return mkdir(dir, 0755);
}

/* mkdir -p: every missing folder of path. */
static int mkdir_p(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == 0) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                return -1;
            }
            *p = c;
            if (!c) {
                return 0;
            }
        }
    }
}

/* The server connection and the background push of --sync (started
** before rush, so that its thread is an ordinary one). 0, or -1 after
** saying why. */
static int start_sync(const RunOptions *o, SyncConn **sync, SyncWorker **worker)
{
    SimError err;
    /* offline-first: the station starts whether the server answers or
    ** not; the worker keeps trying. Started before rush, so that its
    ** thread is an ordinary one. */
    if (sync_conn_new(o->sync_url, sim_clock_real(), sync, &err) != SIM_OK ||
        sync_worker_start(o->sync_url, o->db, o->accept_changed, 2000,
                          sim_clock_real(), worker, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        return -1;
    }
    /* the start screen then shows whether the server answers */
    sync_worker_wait_first(*worker, 1500);
    SyncWorkerStatus first;
    sync_worker_status(*worker, &first);
    if (first.warning[0]) {
        fprintf(stderr, "simlab run: warning: %s\n", first.warning);
    }
    return 0;
}

/* The participant's window for study, as the options say, its fonts in
** the study's language. 0, or -1 after saying why. */
static int open_window(const RunOptions *o, const Study *study, Frame *frame)
{
    GfxOptions go;
    memset(&go, 0, sizeof go);
    /* the participant's window: the participant_title, never the study's
    ** own title (the experimenter's; it may name the hypothesis) */
    char title[300];
    if (study->participant_title) {
        snprintf(title, sizeof title, "%s", study->participant_title);
    } else {
        snprintf(title, sizeof title, "simlab");
    }
    go.title = title;
    go.windowed = o->windowed;
    go.width = o->width;
    go.height = o->height;
    go.display = o->display;
    go.vsync = o->vsync && !o->autopilot;
    SimError err;
    if (frame_open(frame, &go, o->font_scale, o->screenshot_dir, &err) !=
        SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        return -1;
    }
    if (o->texture_budget_mb > 0) {
        assets_set_budget(&frame->assets, (size_t)o->texture_budget_mb << 20);
    }
    if (study->ui_strings) {
        fonts_set_language(&frame->fonts,
                           ui_strings_language(study->ui_strings));
    }
    return 0;
}

int app_run(int argc, char **argv)
{
    int64_t t_launch = stamps_mono_ns();
    RunOptions o;
    SimError err;
    PolicyKind kind = POLICY_MIXED;
    if (run_options_parse(argc, argv, &o) != 0) {
        return 2;
    }
    if (o.autopilot) {
        if (policy_parse(o.autopilot, &kind, &err) != SIM_OK) {
            fprintf(stderr, "simlab run: %s\n", err.msg);
            return 2;
        }
        if (!o.width) {
            o.windowed = 1;
        }
    }
    StationSettings station;
    if (station_settings("simlab run", o.station, o.rush, o.cpu, &station) !=
        0) {
        return 2;
    }
    o.station = station.station;
    int rush = station.rush, cpu = station.cpu;
    int status = 1;
    Study *study = NULL;
    Store *store = NULL;
    TimingLog *timing = NULL;
    SyncConn *sync = NULL;
    SyncWorker *worker = NULL;
    Stamps *clock = NULL;
    RawInput *raw = NULL;
    Frame frame;
    Autopilot ap;
    Rush rec;
    rush_init(&rec);
    char dbbuf[1024];
    memset(&frame, 0, sizeof frame);
    if (load_study(o.dir, &study) != SIM_OK) {
        goto cleanup;
    }
    if (run_options_database(&o, study->id, dbbuf, sizeof dbbuf) != 0 ||
        run_options_outputs(&o) != 0) {
        goto cleanup;
    }
    if (mkdir_parent(o.db) != 0) {
        fprintf(stderr, "simlab run: %s: cannot create its folder: %s\n", o.db,
                strerror(errno));
        goto cleanup;
    }
    StoreOpenSpec os = {.path = o.db,
                        .study = study,
                        .station = o.station,
                        .durability = DURABILITY_FULL,
                        .allow_changed = o.accept_changed,
                        .wall_ms = stamps_real_ms()};
    if (store_open_spec(&os, &store, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        goto cleanup;
    }
    if (store_warning(store)[0]) {
        fprintf(stderr, "simlab run: warning: %s\n", store_warning(store));
    }
    if (o.screenshot_dir && mkdir_p(o.screenshot_dir) != 0) {
        fprintf(stderr, "simlab run: %s: %s\n", o.screenshot_dir,
                strerror(errno));
        goto cleanup;
    }
    if (o.timing_log &&
        timing_log_open(o.timing_log, &timing, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        goto cleanup;
    }
    if (o.sync_url && start_sync(&o, &sync, &worker) != 0) {
        goto cleanup;
    }
    /* Before the window: the graphics driver's threads inherit it. */
    rush_apply(rush, cpu, &rec);
    if (open_window(&o, study, &frame) != 0) {
        goto cleanup;
    }
    /* Pairs SDL's millisecond clock with the monotonic one. */
    timing_log_clock(timing, SDL_GetTicks64(), stamps_mono_ns());
    if (stamps_open(&clock, &err) != SIM_OK) {
        fprintf(stderr, "simlab run: %s\n", err.msg);
        goto cleanup;
    }
    /* People's key presses: stamped by the input thread where it runs. */
    if (!o.autopilot) {
        raw = stamps_attach_input(clock, frame.gfx.window, &rec,
                                  o.timing_log ? "simlab run" : NULL);
    }
    if (rec.failed[0]) {
        fprintf(stderr,
                "simlab run: warning: %s%s; the run goes on (docs/runner.md "
                "\"Rush\" says how a lab grants it)\n",
                rec.asked ? "rush: " : "", rec.failed);
    }
    SDL_EventState(SDL_DROPFILE, SDL_DISABLE);
    if (o.autopilot) {
        autopilot_init(&ap, kind, study, o.station, o.participants, o.seed,
                       o.chaos);
        ap.one_per_condition = o.shot_per_condition;
    }
    LoopDeps d;
    memset(&d, 0, sizeof d);
    d.o = &o;
    d.study = study;
    d.store = store;
    d.frame = &frame;
    d.clock = clock;
    d.timing = timing;
    d.autopilot = o.autopilot ? &ap : NULL;
    d.t_launch_ns = t_launch;
    d.rush = &rec;
    d.sync = sync;
    d.sync_worker = worker;
    if (o.autopilot) {
        ap.sync = sync;
    }
    status = loop_run(&d);
cleanup:
    if (worker) {
        SyncWorkerStatus ws;
        sync_worker_stop(worker, &ws); /* one last push */
        fprintf(stderr,
                "simlab run: sync to %s: %ld rows pushed, %ld "
                "waiting%s%s\n",
                sync_url(sync), ws.pushed, ws.pending, ws.error[0] ? "; " : "",
                ws.error);
    }
    sync_close(sync);
    rawinput_close(raw);
    stamps_close(clock);
    frame_close(&frame);
    store_close(store);
    study_free(study);
    timing_log_close(timing);
    return status;
}

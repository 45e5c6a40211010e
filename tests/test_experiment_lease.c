/*
** One writer per database: two stores on one file (the second is refused
** naming the first, and gets in once the first closes), a lease whose
** holder was killed or whose heartbeat is stale is taken over (and logged),
** a store whose lease was taken over writes nothing more, the heartbeat,
** the station of every response, participants active on another station
** left out of the resume list, two `simlab simulate` on one file; and the
** messages for files and folders the OS will not let SQLite write
** (errno mapping, and for real on a read-only mount or folder).
*/
#define _GNU_SOURCE
#include "tests/harness.h"
#include "tests/test_study.h"
#include "tests/test_util.h"

#include "common/sim_alloc.h"
#include "experiment/session.h"
#include "experiment/store.h"
#include "stimuli/study.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <time.h>

static char tmp[256];
static const char *simlab_bin;

static int sql_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int v = -999;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) {
            v = sqlite3_column_int(st, 0);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return v;
}

static int sql_exec(const char *path, const char *sql)
{
    sqlite3 *db;
    int rc = sqlite3_open(path, &db);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 2000);
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc;
}

static int open_as(const char *path, const Study *study, const char *station,
                   int64_t wall_ms, Store **out, SimError *err)
{
    StoreOpenSpec os;
    memset(&os, 0, sizeof os);
    os.path = path;
    os.study = study;
    os.station = station;
    os.durability = DURABILITY_FAST;
    os.wall_ms = wall_ms;
    return store_open_spec(&os, out, err);
}

static int contains(const char *text, const char *part)
{
    if (!strstr(text, part)) {
        fprintf(stderr, "  '%s' not in: %s\n", part, text);
        return 0;
    }
    return 1;
}

static void test_two_stores(const Study *st)
{
    char path[512], host[64], want[128];
    snprintf(path, sizeof path, "%s/two.db", tmp);
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    SimError err;
    Store *a = NULL, *b = NULL;
    CHECK_INT(open_as(path, st, "lab1", 1000, &a, &err), SIM_OK);
    CHECK_STR(store_station(a), "lab1");
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM lease WHERE station = "
                            "'lab1'"),
              1);
    /* a second store, even in the same process, is refused naming the
    ** first: station, host and pid */
    CHECK_INT(open_as(path, st, "lab2", 1500, &b, &err), SIM_ERR_BUSY);
    CHECK(b == NULL);
    CHECK(contains(err.msg, "in use by station 'lab1'"));
    snprintf(want, sizeof want, "host %s, pid %d", host, (int)getpid());
    CHECK(contains(err.msg, want));
    CHECK(!strstr(err.msg, "locked"));
    /* the refused open changed nothing */
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM lease WHERE station = "
                            "'lab1'"),
              1);
    /* the first store still works */
    CHECK_INT(store_log_event(a, NULL, "note", NULL, 1600, 0, &err), SIM_OK);
    store_close(a);
    /* closing gives the lease back: the second gets in, no takeover */
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM lease"), 0);
    CHECK_INT(open_as(path, st, "lab2", 2000, &b, &err), SIM_OK);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM lease WHERE station = "
                            "'lab2'"),
              1);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM event WHERE kind = "
                            "'lease_takeover'"),
              0);
    store_close(b);

    /* the default station is the host name */
    CHECK_INT(store_open(path, st, DURABILITY_FAST, 0, 3000, &a, &err), SIM_OK);
    CHECK_STR(a ? store_station(a) : "", host);
    store_close(a);
}

static void test_stale(const Study *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/stale.db", tmp);
    SimError err;
    Store *a = NULL;
    CHECK_INT(open_as(path, st, "lab1", 1000, &a, &err), SIM_OK);
    store_close(a);
    /* a lease left by a station on another host (its lock, if any, does
    ** not reach here): refused while its heartbeat is fresh */
    CHECK_INT(sql_exec(path, "INSERT INTO lease VALUES (1, 'x', 'far', "
                             "'other-host', 123, 500, 1000)"),
              SQLITE_OK);
    a = NULL;
    CHECK_INT(
        open_as(path, st, "lab1", 1000 + STORE_LEASE_TIMEOUT_MS - 1, &a, &err),
        SIM_ERR_BUSY);
    CHECK(a == NULL);
    CHECK(contains(err.msg, "station 'far' (host other-host, pid 123, last "
                            "heartbeat 29 s ago)"));
    /* ... and taken over once it is STORE_LEASE_TIMEOUT_MS old */
    CHECK_INT(
        open_as(path, st, "lab1", 1000 + STORE_LEASE_TIMEOUT_MS, &a, &err),
        SIM_OK);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM lease WHERE station = "
                            "'lab1' AND lease_id != 'x'"),
              1);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM event WHERE kind = "
                            "'lease_takeover' AND detail LIKE "
                            "'%\"station\":\"far\"%\"reason\":\"stale\"%'"),
              1);
    store_close(a);

    /* a lease of this host whose process is gone (its lock with it) is
    ** taken over at once, however fresh its heartbeat */
    char host[64], sql[256];
    gethostname(host, sizeof host);
    host[sizeof host - 1] = 0;
    snprintf(sql, sizeof sql,
             "INSERT INTO lease VALUES (1, 'y', 'gone', '%s', 999999, 5000, "
             "5000)",
             host);
    CHECK_INT(sql_exec(path, sql), SQLITE_OK);
    CHECK_INT(open_as(path, st, "lab1", 5001, &a, &err), SIM_OK);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM event WHERE kind = "
                            "'lease_takeover' AND detail LIKE "
                            "'%\"reason\":\"holder_gone\"%'"),
              1);
    store_close(a);
}

/* A child process holds the store until killed: refused while it lives,
** taken over once SIGKILL ends it (its lease row is still there). */
static void test_killed_holder(const Study *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/killed.db", tmp);
    int fds[2];
    CHECK_INT(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        SimError e;
        Store *s = NULL;
        char ok = open_as(path, st, "kid", 1000, &s, &e) == SIM_OK ? 'y' : 'n';
        if (write(fds[1], &ok, 1) != 1) {
            _exit(1);
        }
        for (;;) {
            pause();
        }
    }
    char ok = 0;
    CHECK_INT(read(fds[0], &ok, 1), 1);
    CHECK_INT(ok, 'y');
    SimError err;
    Store *a = NULL;
    CHECK_INT(open_as(path, st, "lab1", 1100, &a, &err), SIM_ERR_BUSY);
    char want[64];
    snprintf(want, sizeof want, "pid %d", (int)pid);
    CHECK(contains(err.msg, "in use by station 'kid'"));
    CHECK(contains(err.msg, want));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(fds[0]);
    close(fds[1]);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM lease WHERE station = "
                            "'kid'"),
              1);
    /* the same clock time: it is the lock, not the heartbeat, that says the
    ** holder is gone */
    CHECK_INT(open_as(path, st, "lab1", 1100, &a, &err), SIM_OK);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM event WHERE kind = "
                            "'lease_takeover' AND detail LIKE "
                            "'%\"station\":\"kid\"%holder_gone%'"),
              1);
    store_close(a);
}

static int64_t heartbeat(const char *path)
{
    return sql_int(path, "SELECT heartbeat_ms FROM lease");
}

static void test_heartbeat_and_lost_lease(const Study *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/beat.db", tmp);
    SimError err;
    Store *a = NULL;
    CHECK_INT(open_as(path, st, "lab1", 1000, &a, &err), SIM_OK);
    if (!a) {
        return;
    }
    CHECK_INT(heartbeat(path), 1000);
    /* writes refresh it, at most every STORE_LEASE_BEAT_MS */
    CHECK_INT(store_log_event(a, NULL, "note", NULL, 3000, 0, &err), SIM_OK);
    CHECK_INT(heartbeat(path), 1000);
    CHECK_INT(store_log_event(a, NULL, "note", NULL, 6000, 0, &err), SIM_OK);
    CHECK_INT(heartbeat(path), 6000);
    CHECK_INT(store_heartbeat(a, 7000, &err), SIM_OK);
    CHECK_INT(heartbeat(path), 6000);
    CHECK_INT(store_heartbeat(a, 11000, &err), SIM_OK);
    CHECK_INT(heartbeat(path), 11000);
    /* inside the caller's transaction: committed with it */
    CHECK_INT(store_begin(a, &err), SIM_OK);
    CHECK_INT(store_log_event(a, NULL, "note", NULL, 20000, 0, &err), SIM_OK);
    CHECK_INT(store_commit(a, &err), SIM_OK);
    CHECK_INT(heartbeat(path), 20000);
    EnrollSpec e = {0};
    e.seed = 3;
    e.assign_seed = 3;
    e.wall_ms = 30000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(a, &e, &info, &err), SIM_OK);
    CHECK_INT(heartbeat(path), 30000);
    CHECK_STR(info.station, "lab1");
    CHECK_STR(info.active_station, "lab1");

    /* another process took the lease (this one looked dead to it): the
    ** next write that checks the lease is refused and writes nothing */
    CHECK_INT(sql_exec(path, "UPDATE lease SET lease_id = 'other', station "
                             "= 'thief', host = 'h2', pid = 7"),
              SQLITE_OK);
    int events = sql_int(path, "SELECT COUNT(*) FROM event");
    CHECK_INT(store_log_event(a, NULL, "note", NULL, 70000, 0, &err),
              SIM_ERR_DB);
    CHECK(contains(err.msg, "no longer holds the database"));
    CHECK(contains(err.msg, "station 'thief' (host h2, pid 7"));
    Response r;
    memset(&r, 0, sizeof r);
    r.participant = info.id;
    r.seq = 0;
    r.choice = -1;
    r.correct = -1;
    r.attempts = 1;
    r.done = 1;
    r.wall_ms = 80000;
    CHECK_INT(store_record_response(a, &r, &err), SIM_ERR_DB);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM event"), events);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM response"), 0);
    store_close(a);
    /* closing leaves the other's lease alone */
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM lease WHERE station = "
                            "'thief'"),
              1);
}

/* Every response records the station that wrote it; a participant active
** on another station is not offered for resuming there until that station
** has been quiet for the lease timeout. */
static void test_station_and_resume(const Study *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/resume.db", tmp);
    SimError err;
    Store *a = NULL;
    CHECK_INT(open_as(path, st, "lab1", 1000, &a, &err), SIM_OK);
    if (!a) {
        return;
    }
    EnrollSpec e = {0};
    e.station = "lab1";
    e.seed = 9;
    e.assign_seed = 9;
    e.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(a, &e, &info, &err), SIM_OK);
    Session *s = NULL;
    CHECK_INT(session_open(a, st, info.id, 1000, &s, &err), SIM_OK);
    SimInput in = {SIM_IN_CONTINUE, 0, NULL, 2000000000LL, 1500};
    if (s) {
        session_mark_onset(s, 1000000000LL);
        int consumed = 0;
        CHECK_INT(session_handle(s, &in, &consumed, &err), SIM_OK);
        CHECK_INT(consumed, 1);
    }
    session_close(s);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM response WHERE station = "
                            "'lab1'"),
              1);
    store_close(a);

    Store *b = NULL;
    CHECK_INT(open_as(path, st, "lab2", 2000, &b, &err), SIM_OK);
    if (!b) {
        return;
    }
    ParticipantInfo *list = NULL;
    size_t n = 0;
    CHECK_INT(store_list_participants(b, 1, &list, &n, &err), SIM_OK);
    CHECK_INT(n, 1);
    sim_free(list);
    CHECK_INT(store_list_resumable(b, 2000, &list, &n, &err), SIM_OK);
    CHECK_INT(n, 0);
    sim_free(list);
    s = NULL;
    CHECK_INT(session_open(b, st, info.id, 2000, &s, &err), SIM_ERR_STATE);
    CHECK(s == NULL);
    CHECK(contains(err.msg, "is active on station 'lab1'"));
    /* quiet for the lease timeout: offered, and resumed here */
    int64_t later = 1500 + STORE_LEASE_TIMEOUT_MS;
    CHECK_INT(store_list_resumable(b, later - 1, &list, &n, &err), SIM_OK);
    CHECK_INT(n, 0);
    sim_free(list);
    CHECK_INT(store_list_resumable(b, later, &list, &n, &err), SIM_OK);
    CHECK_INT(n, 1);
    sim_free(list);
    CHECK_INT(session_open(b, st, info.id, later, &s, &err), SIM_OK);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM event WHERE kind = 'resume' "
                            "AND detail LIKE '%\"station\":\"lab2\","
                            "\"from_station\":\"lab1\"%'"),
              1);
    if (s) {
        session_mark_onset(s, 3000000000LL);
        in.t_ns = 4000000000LL;
        in.wall_ms = later + 100;
        int consumed = 0;
        CHECK_INT(session_handle(s, &in, &consumed, &err), SIM_OK);
    }
    session_close(s);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM response WHERE station = "
                            "'lab2'"),
              1);
    CHECK_INT(sql_int(path, "SELECT COUNT(*) FROM participant WHERE "
                            "station = 'lab1' AND active_station = 'lab2'"),
              1);
    /* on lab2 the participant is its own: offered at once */
    CHECK_INT(store_list_resumable(b, later + 200, &list, &n, &err), SIM_OK);
    CHECK_INT(n, 1);
    sim_free(list);
    store_close(b);
}

static void test_messages(void)
{
    char buf[600];
    store_os_message(buf, sizeof buf, "d/x.db", STORE_OS_OPEN_FILE, EROFS, 1);
    CHECK_STR(buf, "cannot write d/x.db: read-only file system");
    store_os_message(buf, sizeof buf, "d/x.db", STORE_OS_OPEN_FILE, EACCES, 1);
    CHECK_STR(buf, "cannot write d/x.db: permission denied (the file is "
                   "read-only for this user)");
    store_os_message(buf, sizeof buf, "d/x.db", STORE_OS_OPEN_FILE, EACCES, 0);
    CHECK_STR(buf, "cannot create d/x.db: its folder is not writable "
                   "(permission denied)");
    store_os_message(buf, sizeof buf, "d/x.db", STORE_OS_OPEN_FILE, ENOENT, 0);
    CHECK_STR(buf, "cannot create d/x.db: its folder does not exist");
    store_os_message(buf, sizeof buf, "d/x.db", STORE_OS_FOLDER, EROFS, 1);
    CHECK_STR(buf, "the folder of d/x.db is on a read-only file system "
                   "(SQLite needs to create d/x.db-wal there)");
    store_os_message(buf, sizeof buf, "d/x.db", STORE_OS_FOLDER, EACCES, 1);
    CHECK(contains(buf, "the folder of d/x.db is not writable (SQLite needs "
                        "to create d/x.db-wal there)"));
    store_os_message(buf, sizeof buf, "d/x.db", STORE_OS_READ, ENOENT, 0);
    CHECK_STR(buf, "d/x.db: no such file");

    CHECK_STR(store_fs_network_name(0x6969), "nfs");
    CHECK_STR(store_fs_network_name((long)(int)0xFF534D42u), "cifs");
    CHECK_STR(store_fs_network_name((long)0xFE534D42u), "smb2");
    CHECK_STR(store_fs_network_name(0x65735546), "fuse");
    CHECK_STR(store_fs_network_name(0x01021997), "9p");
    CHECK(store_fs_network_name(0xEF53) == NULL);     /* ext4 */
    CHECK(store_fs_network_name(0x01021994) == NULL); /* tmpfs */
}

/* The warning follows the file system of the database's folder. */
static void test_warning(const Study *st)
{
    char path[512];
    snprintf(path, sizeof path, "%s/warn.db", tmp);
    SimError err;
    Store *a = NULL;
    CHECK_INT(open_as(path, st, "lab1", 1000, &a, &err), SIM_OK);
    struct statfs fs;
    CHECK_INT(statfs(tmp, &fs), 0);
    const char *net = store_fs_network_name((long)fs.f_type);
    if (a && net) {
        CHECK(contains(store_warning(a), "network or FUSE file system"));
        CHECK(contains(store_warning(a), net));
    } else if (a) {
        CHECK_STR(store_warning(a), "");
    }
    store_close(a);
}

/* Opens every case of a read-only place: dir holds clean.db (closed
** cleanly), and bound.db is writable but dir is not. */
static void check_readonly_place(const Study *st, const char *dir, int ro_fs,
                                 const char *bound)
{
    char path[512];
    SimError err;
    Store *s = NULL;
    snprintf(path, sizeof path, "%s/clean.db", dir);
    CHECK(store_open(path, st, DURABILITY_FAST, 0, 1000, &s, &err) != SIM_OK);
    CHECK(s == NULL);
    if (ro_fs) {
        CHECK(contains(err.msg, "cannot write"));
        CHECK(contains(err.msg, "read-only file system"));
    } else {
        CHECK(contains(err.msg, "the folder of"));
        CHECK(contains(err.msg, "-wal there"));
    }
    CHECK(!strstr(err.msg, "disk I/O error"));
    snprintf(path, sizeof path, "%s/new.db", dir);
    CHECK(store_open(path, st, DURABILITY_FAST, 0, 1000, &s, &err) != SIM_OK);
    CHECK(contains(err.msg, ro_fs ? "read-only file system"
                                  : "its folder is not writable"));
    if (bound) {
        CHECK(store_open(bound, st, DURABILITY_FAST, 0, 1000, &s, &err) !=
              SIM_OK);
        CHECK(contains(err.msg, "the folder of"));
        CHECK(contains(err.msg, "SQLite needs to create"));
    }
    /* export reads a database closed cleanly, even there */
    snprintf(path, sizeof path, "%s/clean.db", dir);
    CHECK_INT(store_open_readonly(path, &s, &err), SIM_OK);
    if (s) {
        CHECK_STR(store_study_hash(s), st->hash);
        int n = -1;
        CHECK_INT(store_count_complete(s, -1, &n, &err), SIM_OK);
        CHECK_INT(n, 0);
    } else {
        fprintf(stderr, "  %s\n", err.msg);
    }
    CHECK(!strstr(err.msg, "not a simlab database"));
    store_close(s);
    /* ... but not one whose -wal holds data SQLite cannot read there */
    snprintf(path, sizeof path, "%s/dirty.db", dir);
    s = NULL;
    CHECK(store_open_readonly(path, &s, &err) != SIM_OK);
    CHECK(s == NULL);
    CHECK(contains(err.msg, "dirty.db-wal holds data not yet in the "
                            "database"));
    CHECK(contains(err.msg, "copy both files to a writable folder"));
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[8192];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) {
        CHECK_INT(fwrite(buf, 1, n, out), n);
    }
    CHECK(in && out);
    if (in) {
        fclose(in);
    }
    if (out) {
        fclose(out);
    }
}

/* dir/dirty.db with a dirty.db-wal holding data, as a writer that was
** stopped leaves them: copied while a store has them open. */
static void make_dirty(const Study *st, const char *dir)
{
    char src[512], dst[512], src_wal[520], dst_wal[520];
    snprintf(src, sizeof src, "%s/dirty-src.db", tmp);
    snprintf(dst, sizeof dst, "%s/dirty.db", dir);
    snprintf(src_wal, sizeof src_wal, "%s-wal", src);
    snprintf(dst_wal, sizeof dst_wal, "%s-wal", dst);
    SimError err;
    Store *s = NULL;
    CHECK_INT(open_as(src, st, "lab1", 1000, &s, &err), SIM_OK);
    EnrollSpec e = {0};
    e.seed = 4;
    e.assign_seed = 4;
    e.wall_ms = 1000;
    ParticipantInfo info;
    CHECK_INT(store_enroll(s, &e, &info, &err), SIM_OK);
    copy_file(src, dst);
    copy_file(src_wal, dst_wal);
    store_close(s);
}

static void make_clean(const Study *st, const char *path)
{
    SimError err;
    Store *s = NULL;
    CHECK_INT(open_as(path, st, "lab1", 1000, &s, &err), SIM_OK);
    store_close(s);
}

/* As root (which ignores permissions) a read-only tmpfs, in a mount
** namespace of a child process; as another user, a folder and a file
** without write permission. */
static void test_readonly_places(const Study *st)
{
    char dir[400], rw[400], path[512];
    snprintf(dir, sizeof dir, "%s/ro", tmp);
    snprintf(rw, sizeof rw, "%s/rw.db", tmp);
    mkdir(dir, 0755);
    if (geteuid() != 0) {
        snprintf(path, sizeof path, "%s/clean.db", dir);
        make_clean(st, path);
        make_dirty(st, dir);
        CHECK_INT(chmod(dir, 0555), 0);
        check_readonly_place(st, dir, 0, NULL);
        CHECK_INT(chmod(dir, 0755), 0);
        CHECK_INT(chmod(path, 0444), 0);
        SimError err;
        Store *s = NULL;
        CHECK(store_open(path, st, DURABILITY_FAST, 0, 1000, &s, &err) !=
              SIM_OK);
        CHECK(contains(err.msg, "permission denied (the file is read-only"));
        CHECK_INT(chmod(path, 0644), 0);
        return;
    }
    make_clean(st, rw);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char bound[600];
        snprintf(bound, sizeof bound, "%s/bound.db", dir);
        if (unshare(CLONE_NEWNS) != 0 ||
            mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("none", dir, "tmpfs", 0, NULL) != 0) {
            printf("read-only mount: skipped (%s)\n", strerror(errno));
            _exit(77);
        }
        int before = h_pass;
        snprintf(path, sizeof path, "%s/clean.db", dir);
        make_clean(st, path);
        make_dirty(st, dir);
        FILE *f = fopen(bound, "w");
        if (f) {
            fclose(f);
        }
        if (mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0 ||
            mount(rw, bound, NULL, MS_BIND, NULL) != 0) {
            printf("read-only remount: skipped (%s)\n", strerror(errno));
            _exit(77);
        }
        check_readonly_place(st, dir, 1, bound);
        printf("read-only mount: %d checks passed, %d failed\n",
               h_pass - before, h_fail);
        fflush(NULL);
        _exit(h_fail ? 1 : 0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 77);
}

/* Starts `simlab simulate` on db as station; its stderr goes to errfile. */
static pid_t start_simulate(const char *db, const char *station,
                            const char *participants, const char *errfile)
{
    char bundle[512];
    snprintf(bundle, sizeof bundle, "%s/experiment/mini-forward",
             SIMLAB_TEST_DATA);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        execl(simlab_bin, simlab_bin, "simulate", bundle, "--db", db,
              "--participants", participants, "--policy", "mixed", "--station",
              station, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static char *slurp(const char *path)
{
    static char buf[4096];
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
    }
    return buf;
}

static void test_two_simulates(void)
{
    if (!simlab_bin) {
        printf("two simulate processes: skipped (no simlab binary given)\n");
        return;
    }
    char db[512], err_a[512], err_b[512];
    snprintf(db, sizeof db, "%s/sim.db", tmp);
    snprintf(err_a, sizeof err_a, "%s/a.err", tmp);
    snprintf(err_b, sizeof err_b, "%s/b.err", tmp);
    /* A works for long; wait until it holds the lease and has data */
    pid_t a = start_simulate(db, "simA", "100000", err_a);
    for (int i = 0; i < 3000; i++) {
        if (test_path_exists(db) &&
            sql_int(db, "SELECT COUNT(*) FROM response") > 20) {
            break;
        }
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM lease WHERE station = "
                          "'simA'"),
              1);
    /* B is refused at once, naming A: not "database is locked" */
    pid_t b = start_simulate(db, "simB", "1", err_b);
    int status = 0;
    waitpid(b, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    const char *msg = slurp(err_b);
    CHECK(contains(msg, "in use by station 'simA'"));
    char want[64];
    snprintf(want, sizeof want, "pid %d", (int)a);
    CHECK(contains(msg, want));
    CHECK(!strstr(msg, "database is locked"));
    /* A goes on, unharmed */
    CHECK_INT(waitpid(a, &status, WNOHANG), 0);
    int before = sql_int(db, "SELECT COUNT(*) FROM response"), after = before;
    for (int i = 0; i < 500 && after <= before; i++) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        after = sql_int(db, "SELECT COUNT(*) FROM response");
    }
    CHECK(after > before);
    /* A is killed: B gets in, takes the lease over, and completes */
    kill(a, SIGKILL);
    waitpid(a, &status, 0);
    int complete = sql_int(db, "SELECT COUNT(*) FROM participant WHERE "
                               "status = 'completed'");
    char want_n[16];
    snprintf(want_n, sizeof want_n, "%d", complete + 2);
    b = start_simulate(db, "simB", want_n, err_b);
    waitpid(b, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "  %s\n", slurp(err_b));
    }
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM event WHERE kind = "
                          "'lease_takeover' AND detail LIKE "
                          "'%\"station\":\"simA\"%holder_gone%'"),
              1);
    CHECK(sql_int(db, "SELECT COUNT(*) FROM response WHERE station = 'simB'") >
          0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM response WHERE station IS "
                          "NULL OR station NOT IN ('simA', 'simB')"),
              0);
    /* A's participant cut off by the kill stays A's: B did not resume it
    ** (it was active on simA moments ago) */
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM event WHERE kind = 'resume'"),
              0);
    CHECK_INT(sql_int(db, "SELECT COUNT(*) FROM lease"), 0);
}

int main(int argc, char **argv)
{
    simlab_bin = argc > 1 ? argv[1] : NULL;
    test_tmpdir(tmp, sizeof tmp, "lease");
    Study *fwd = test_study_load("mini-forward");
    CHECK(fwd != NULL);
    if (fwd) {
        test_two_stores(fwd);
        test_stale(fwd);
        test_killed_holder(fwd);
        test_heartbeat_and_lost_lease(fwd);
        test_station_and_resume(fwd);
        test_warning(fwd);
        test_readonly_places(fwd);
    }
    test_messages();
    test_two_simulates();
    study_free(fwd);
    test_rmtree(tmp);
    return TEST_REPORT();
}

/*
** One writer per database file. A read-write open first asks the OS whether
** the file and its folder can be written, so that a read-only file system
** or folder is named as such (SQLite would say "disk I/O error" or "unable
** to open database file"). It then holds an OS lock on PATH-lock: an
** open-file-description lock, which the kernel drops when the process
** ends, however it ends (a file of its own, because closing a descriptor
** of the database file would drop SQLite's POSIX locks). Last it takes the
** lease row: station, host, pid, a random lease id and a heartbeat. The
** lock keeps a second process out (on this host, and on hosts whose file
** system shares locks); the row names the holder in the refusal and covers
** file systems whose locks do not reach other hosts, through its heartbeat.
** No clock: callers pass the times.
*/
#define _GNU_SOURCE
#include "experiment/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <uuid/uuid.h>

/* ------------------------------------------------------------- messages */

void store_os_message(char *buf, size_t size, const char *path,
                      StoreOsStep step, int errnum, int file_exists)
{
    switch (step) {
    case STORE_OS_FOLDER:
        if (errnum == EROFS) {
            snprintf(buf, size,
                     "the folder of %s is on a read-only file system "
                     "(SQLite needs to create %s-wal there)",
                     path, path);
        } else {
            snprintf(buf, size,
                     "the folder of %s is not writable (SQLite needs to "
                     "create %s-wal there): %s",
                     path, path, strerror(errnum));
        }
        return;
    case STORE_OS_READ:
        if (errnum == ENOENT) {
            snprintf(buf, size, "%s: no such file", path);
        } else if (errnum == EACCES || errnum == EPERM) {
            snprintf(buf, size, "cannot read %s: permission denied", path);
        } else {
            snprintf(buf, size, "cannot read %s: %s", path, strerror(errnum));
        }
        return;
    case STORE_OS_OPEN_FILE:
        break;
    }
    switch (errnum) {
    case EROFS:
        snprintf(buf, size, "cannot write %s: read-only file system", path);
        break;
    case EACCES:
    case EPERM:
        if (file_exists) {
            snprintf(buf, size,
                     "cannot write %s: permission denied (the file is "
                     "read-only for this user)",
                     path);
        } else {
            snprintf(buf, size,
                     "cannot create %s: its folder is not writable "
                     "(permission denied)",
                     path);
        }
        break;
    case ENOENT:
        snprintf(buf, size, "cannot create %s: its folder does not exist",
                 path);
        break;
    case EISDIR:
        snprintf(buf, size, "%s is a folder, not a database file", path);
        break;
    case ENOSPC:
    case EDQUOT:
        snprintf(buf, size, "cannot create %s: no space left on the disk",
                 path);
        break;
    default:
        snprintf(buf, size, "cannot open %s to write: %s", path,
                 strerror(errnum));
        break;
    }
}

/* The folder of path ("." when it names none). */
static void folder_of(const char *path, char *dir, size_t size)
{
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash) {
        snprintf(dir, size, ".");
    } else if (slash == dir) {
        dir[1] = '\0';
    } else {
        *slash = '\0';
    }
}

/* Appends text to the store's warning, "; " between warnings. */
static void add_warning(Store *st, const char *text)
{
    size_t n = strlen(st->warning);
    snprintf(st->warning + n, sizeof st->warning - n, "%s%s", n ? "; " : "",
             text);
}

/* ----------------------------------------------------------- file system */

const char *store_fs_network_name(long f_type)
{
    switch ((unsigned long)f_type & 0xffffffffUL) {
    case 0x6969UL:
        return "nfs";
    case 0x517BUL:
        return "smb";
    case 0xFF534D42UL:
        return "cifs";
    case 0xFE534D42UL:
        return "smb2";
    case 0x65735546UL:
        return "fuse";
    case 0x73757245UL:
        return "coda";
    case 0x5346414FUL:
        return "afs";
    case 0x6B414653UL:
        return "kafs";
    case 0x00C36400UL:
        return "ceph";
    case 0x01021997UL:
        return "9p";
    case 0x01161970UL:
        return "gfs2";
    case 0x7461636FUL:
        return "ocfs2";
    case 0x0BD00BD0UL:
        return "lustre";
    case 0x47504653UL:
        return "gpfs";
    case 0x564CUL:
        return "ncp";
    case 0x19830326UL:
        return "beegfs";
    case 0x786F4256UL:
        return "vboxsf";
    default:
        return NULL;
    }
}

void store_lease_fs_warning(Store *st)
{
    char dir[1024];
    folder_of(st->path, dir, sizeof dir);
    struct statfs fs;
    if (statfs(dir, &fs) != 0) {
        return;
    }
    const char *name = store_fs_network_name((long)fs.f_type);
    if (!name) {
        return;
    }
    char text[400];
    snprintf(text, sizeof text,
             "%.200s is on a network or FUSE file system (%s): SQLite's "
             "locks and write-ahead log are not safe there and data can be "
             "lost; keep the database on a local disk of the station",
             st->path, name);
    add_warning(st, text);
}

/* ------------------------------------------------------------- OS lock */

/* Checks with the OS that SQLite will be able to write path: the file (or,
** for a new file, its folder) and the folder, where SQLite creates
** PATH-wal and PATH-shm. Opens nothing: closing a descriptor of the
** database file would drop the POSIX locks SQLite connections of this
** process hold on it. */
static int check_writable(const Store *st, SimError *err)
{
    char msg[600], dir[1024];
    folder_of(st->path, dir, sizeof dir);
    struct stat sb;
    if (stat(st->path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) {
            store_os_message(msg, sizeof msg, st->path, STORE_OS_OPEN_FILE,
                             EISDIR, 1);
            return sim_fail(err, SIM_ERR_IO, "%s", msg);
        }
        if (faccessat(AT_FDCWD, st->path, R_OK | W_OK, AT_EACCESS) != 0) {
            store_os_message(msg, sizeof msg, st->path, STORE_OS_OPEN_FILE,
                             errno, 1);
            return sim_fail(err, SIM_ERR_IO, "%s", msg);
        }
        if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
            store_os_message(msg, sizeof msg, st->path, STORE_OS_FOLDER, errno,
                             1);
            return sim_fail(err, SIM_ERR_IO, "%s", msg);
        }
    } else if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0) {
        store_os_message(msg, sizeof msg, st->path, STORE_OS_OPEN_FILE, errno,
                         0);
        return sim_fail(err, SIM_ERR_IO, "%s", msg);
    }
    return SIM_OK;
}

int store_lease_lock(Store *st, int *held_elsewhere, SimError *err)
{
    *held_elsewhere = 0;
    if (gethostname(st->host, sizeof st->host) != 0 || !st->host[0]) {
        snprintf(st->host, sizeof st->host, "unknown");
    }
    st->host[sizeof st->host - 1] = '\0';
    int rc = check_writable(st, err);
    if (rc != SIM_OK) {
        return rc;
    }
    /* the lock lives on PATH-lock, a file of its own, kept (removing it
    ** would let two processes lock two different files of that name) */
    char lock_path[1100], msg[600];
    snprintf(lock_path, sizeof lock_path, "%s-lock", st->path);
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        store_os_message(msg, sizeof msg, lock_path, STORE_OS_OPEN_FILE, errno,
                         access(lock_path, F_OK) == 0);
        return sim_fail(err, SIM_ERR_IO, "%s", msg);
    }
    st->lock_fd = fd;
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    if (fcntl(fd, F_OFD_SETLK, &fl) == 0) {
        st->os_lock = 1;
    } else if (errno == EAGAIN || errno == EACCES) {
        *held_elsewhere = 1;
    } else {
        /* no file locks here (ENOLCK, EINVAL, EOPNOTSUPP): the lease row
        ** alone keeps a second writer out, by its heartbeat */
        snprintf(msg, sizeof msg,
                 "file locks do not work where %.200s is (%s): only the "
                 "lease's heartbeat keeps a second simlab out",
                 st->path, strerror(errno));
        add_warning(st, msg);
    }
    return SIM_OK;
}

/* ----------------------------------------------------------- lease row */

typedef struct Holder {
    char lease_id[37];
    char station[64];
    char host[64];
    long long pid;
    int64_t heartbeat_ms;
} Holder;

/* Reads the lease row: 1 found, 0 none, -1 error (no table, ...). */
static int read_holder(Store *st, Holder *h)
{
    sqlite3_stmt *s;
    memset(h, 0, sizeof *h);
    if (sqlite3_prepare_v2(st->db,
                           "SELECT lease_id, station, host, pid, heartbeat_ms "
                           "FROM lease WHERE id = 1",
                           -1, &s, NULL) != SQLITE_OK) {
        return -1;
    }
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        store_copy_col(h->lease_id, sizeof h->lease_id, s, 0);
        store_copy_col(h->station, sizeof h->station, s, 1);
        store_copy_col(h->host, sizeof h->host, s, 2);
        h->pid = sqlite3_column_int64(s, 3);
        h->heartbeat_ms = sqlite3_column_int64(s, 4);
    }
    sqlite3_finalize(s);
    return step == SQLITE_ROW ? 1 : step == SQLITE_DONE ? 0 : -1;
}

/* "station 'S' (host H, pid P, last heartbeat N s ago)" into buf. */
static void holder_text(const Holder *h, int64_t now_ms, char *buf, size_t size)
{
    char seen[64] = "";
    if (now_ms >= h->heartbeat_ms) {
        snprintf(seen, sizeof seen, ", last heartbeat %lld s ago",
                 (long long)((now_ms - h->heartbeat_ms) / 1000));
    }
    snprintf(buf, size, "station '%s' (host %s, pid %lld%s)", h->station,
             h->host, h->pid, seen);
}

int store_lease_refuse(Store *st, int64_t now_ms, SimError *err)
{
    Holder h;
    if (read_holder(st, &h) == 1) {
        char who[256];
        holder_text(&h, now_ms, who, sizeof who);
        return sim_fail(err, SIM_ERR_BUSY,
                        "%s is in use by %s: one simlab at a time writes a "
                        "database; close that one first, or give this one "
                        "its own database file",
                        st->path, who);
    }
    return sim_fail(err, SIM_ERR_BUSY,
                    "%s is in use by another process (it holds the file's "
                    "lock): one simlab at a time writes a database; close "
                    "that one first, or give this one its own database file",
                    st->path);
}

/* Copies text into a JSON string body: quotes, backslashes and control
** characters become '?'. */
static void json_plain(char *dst, size_t size, const char *text)
{
    size_t i = 0;
    for (; text[i] && i + 1 < size; i++) {
        unsigned char c = (unsigned char)text[i];
        dst[i] = c == '"' || c == '\\' || c < 0x20 ? '?' : (char)c;
    }
    dst[i] = '\0';
}

/* 1 when the holder h cannot be alive: it ran on this host and its OS
** lock is gone (this store holds it now), or, where there are no locks,
** its pid no longer exists. */
static int holder_gone(const Store *st, const Holder *h)
{
    if (strcmp(h->host, st->host) != 0) {
        return 0;
    }
    if (st->os_lock) {
        return 1;
    }
    return h->pid > 0 && h->pid != (long long)getpid() &&
           kill((pid_t)h->pid, 0) != 0 && errno == ESRCH;
}

static int write_row(Store *st, int64_t now_ms, SimError *err)
{
    sqlite3_stmt *s;
    int rc = store_prepare(st,
                           "INSERT OR REPLACE INTO lease (id, lease_id, "
                           "station, host, pid, started_ms, heartbeat_ms) "
                           "VALUES (1, ?, ?, ?, ?, ?, ?)",
                           &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    store_bind_text(s, 1, st->lease_id);
    store_bind_text(s, 2, st->station);
    store_bind_text(s, 3, st->host);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)getpid());
    sqlite3_bind_int64(s, 5, now_ms);
    sqlite3_bind_int64(s, 6, now_ms);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = store_fail_db(st, err, "take the lease");
    }
    sqlite3_finalize(s);
    return rc;
}

/* Logs the takeover of holder h (why: "holder_gone" or "stale"). */
static int log_takeover(Store *st, const Holder *h, const char *why,
                        int64_t now_ms, SimError *err)
{
    char station[64], host[64], detail[400];
    json_plain(station, sizeof station, h->station);
    json_plain(host, sizeof host, h->host);
    snprintf(detail, sizeof detail,
             "{\"station\":\"%s\",\"host\":\"%s\",\"pid\":%lld,"
             "\"heartbeat_ms\":%lld,\"reason\":\"%s\"}",
             station, host, h->pid, (long long)h->heartbeat_ms, why);
    return store_log_event(st, NULL, "lease_takeover", detail, now_ms, 0, err);
}

int store_lease_acquire(Store *st, int64_t now_ms, SimError *err)
{
    uuid_t u;
    uuid_generate_random(u);
    uuid_unparse_lower(u, st->lease_id);
    int rc = store_exec(st, "BEGIN IMMEDIATE", err);
    if (rc != SIM_OK) {
        return rc;
    }
    Holder h;
    int found = read_holder(st, &h);
    if (found < 0) {
        rc = store_fail_db(st, err, "read the lease");
    }
    const char *why = NULL;
    if (rc == SIM_OK && found == 1) {
        if (holder_gone(st, &h)) {
            why = "holder_gone";
        } else if (now_ms - h.heartbeat_ms >= STORE_LEASE_TIMEOUT_MS) {
            why = "stale";
        } else {
            char who[256];
            holder_text(&h, now_ms, who, sizeof who);
            rc = sim_fail(err, SIM_ERR_BUSY,
                          "%s is in use by %s: one simlab at a time writes a "
                          "database; close that one first, or give this one "
                          "its own database file (a crashed station's lease "
                          "is free %d s after its last heartbeat)",
                          st->path, who, STORE_LEASE_TIMEOUT_MS / 1000);
        }
    }
    if (rc == SIM_OK) {
        rc = write_row(st, now_ms, err);
    }
    if (rc == SIM_OK) {
        st->leased = 1;
        st->beat_ms = now_ms;
        if (why) {
            rc = log_takeover(st, &h, why, now_ms, err);
        }
    }
    if (rc == SIM_OK) {
        rc = store_exec(st, "COMMIT", err);
    }
    if (rc != SIM_OK) {
        st->leased = 0;
        store_rollback(st);
    }
    return rc;
}

int store_lease_due(const Store *st, int64_t now_ms)
{
    return st->leased && (now_ms < st->beat_ms ||
                          now_ms - st->beat_ms >= STORE_LEASE_BEAT_MS);
}

int store_lease_beat(Store *st, int64_t now_ms, SimError *err)
{
    if (!store_lease_due(st, now_ms)) {
        return SIM_OK;
    }
    sqlite3_stmt *s;
    int rc = store_prepare(st,
                           "UPDATE lease SET heartbeat_ms = ? WHERE id = 1 "
                           "AND lease_id = ?",
                           &s, err);
    if (rc != SIM_OK) {
        return rc;
    }
    sqlite3_bind_int64(s, 1, now_ms);
    store_bind_text(s, 2, st->lease_id);
    if (sqlite3_step(s) != SQLITE_DONE) {
        rc = store_fail_db(st, err, "lease heartbeat");
    }
    sqlite3_finalize(s);
    if (rc != SIM_OK) {
        return rc;
    }
    if (sqlite3_changes(st->db) == 0) {
        st->lost = 1;
        Holder h;
        char who[256] = "nobody (the lease was removed)";
        if (read_holder(st, &h) == 1) {
            holder_text(&h, now_ms, who, sizeof who);
        }
        return sim_fail(err, SIM_ERR_DB,
                        "%s: this simlab no longer holds the database: its "
                        "lease went to %s after %d s without a heartbeat; "
                        "stop this simlab, nothing more is written",
                        st->path, who, STORE_LEASE_TIMEOUT_MS / 1000);
    }
    st->beat_ms = now_ms;
    return SIM_OK;
}

int store_heartbeat(Store *store, int64_t now_ms, SimError *err)
{
    return store_lease_beat(store, now_ms, err);
}

int store_lease_lost(const Store *store)
{
    return store->lost;
}

void store_lease_release(Store *st)
{
    if (st->leased && st->db) {
        if (!sqlite3_get_autocommit(st->db)) {
            store_rollback(st);
        }
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(st->db,
                               "DELETE FROM lease WHERE id = 1 AND lease_id "
                               "= ?",
                               -1, &s, NULL) == SQLITE_OK) {
            store_bind_text(s, 1, st->lease_id);
            sqlite3_step(s);
            sqlite3_finalize(s);
        }
        st->leased = 0;
    }
}

void store_lease_unlock(Store *st)
{
    if (st->lock_fd >= 0) {
        close(st->lock_fd); /* drops the OS lock */
        st->lock_fd = -1;
        st->os_lock = 0;
    }
}

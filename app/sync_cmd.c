/*
** `simlab sync` pushes a station file by hand (a laptop that was offline at
** a field site); `simlab status` shows a study's progress from the server
** or from one station file; `simlab server` sets a server up and makes
** station and analyst roles. All name the server by its redacted URL only.
*/
#include "app/sync_cmd.h"

#include "common/sim_clock.h"
#include "common/sim_escape.h"
#include "common/sim_url.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* An argument as an error message may quote it: a connection string
** (which may hold a password) is not quoted, the rest escaped. */
static const char *shown(const char *arg, char *buf, size_t size)
{
    if (sim_url_is_server(arg)) {
        return "(a connection string, not shown)";
    }
    return sim_escape_term(arg, buf, size);
}

static void sync_usage(FILE *f)
{
    fputs("usage: simlab sync --db FILE --to URL [--accept-changed-bundle] "
          "[--batch N] [--all]\n",
          f);
}

int sync_cmd_main(int argc, char **argv)
{
    const char *db = NULL, *url = NULL;
    int accept = 0, batch = 0, all = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--db") == 0 && v) {
            db = v;
            i++;
        } else if (strcmp(argv[i], "--to") == 0 && v) {
            url = v;
            i++;
        } else if (strcmp(argv[i], "--batch") == 0 && v && atoi(v) > 0) {
            batch = atoi(v);
            i++;
        } else if (strcmp(argv[i], "--accept-changed-bundle") == 0) {
            accept = 1;
        } else if (strcmp(argv[i], "--all") == 0) {
            all = 1;
        } else {
            char b[256];
            fprintf(stderr, "simlab sync: bad argument '%s'\n",
                    shown(argv[i], b, sizeof b));
            sync_usage(stderr);
            return 2;
        }
    }
    if (!db || !url) {
        fprintf(stderr, "simlab sync: --db and --to are required\n");
        sync_usage(stderr);
        return 2;
    }
    SimError err;
    sim_error_clear(&err);
    SyncConn *c = NULL;
    SyncPushStats st = {0};
    int rc = sync_connect(url, sim_clock_real(), &c, &err);
    if (rc == SIM_OK && sync_warning(c)[0]) {
        fprintf(stderr, "simlab sync: warning: %s\n", sync_warning(c));
    }
    if (rc == SIM_OK && all) {
        rc = sync_mark_all(db, &err);
    }
    if (rc == SIM_OK) {
        rc = sync_push(c, db, accept, batch, sim_clock_real_ms(), &st, &err);
    }
    if (rc == SIM_OK) {
        printf("sync: %ld rows pushed from %s to %s in %d transactions; %ld "
               "pending\n",
               st.rows, db, sync_url(c), st.batches, st.pending);
    }
    if (rc == SIM_OK && st.refused) {
        fprintf(stderr,
                "simlab sync: the server refused %ld rows: it holds other "
                "versions of them, which it keeps (see its sync_conflict "
                "table)\n",
                st.refused);
        rc = SIM_ERR_INVALID;
        err.code = SIM_ERR_INVALID;
        snprintf(err.msg, sizeof err.msg, "%ld rows refused", st.refused);
    }
    sync_close(c);
    if (rc != SIM_OK) {
        sim_escape_print(stderr, "simlab sync: ", err.msg);
        return err.code == SIM_ERR_USAGE ? 2 : 1;
    }
    return 0;
}

int status_cmd_main(int argc, char **argv)
{
    const char *db = NULL, *url = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (argv[i][0] != '-' && !url) {
            url = argv[i];
        } else {
            char b[256];
            fprintf(stderr, "simlab status: bad argument '%s'\n",
                    shown(argv[i], b, sizeof b));
            fputs("usage: simlab status URL | simlab status --db FILE\n",
                  stderr);
            return 2;
        }
    }
    if (!db == !url) {
        fputs("usage: simlab status URL | simlab status --db FILE\n", stderr);
        return 2;
    }
    SimError err;
    sim_error_clear(&err);
    int rc;
    if (db) {
        rc = sync_status_print_local(db, stdout, &err);
    } else {
        SyncConn *c = NULL;
        rc = sync_connect_read(url, sim_clock_real(), &c, &err);
        if (rc == SIM_OK) {
            rc = sync_status_print(c, stdout, &err);
        }
        sync_close(c);
    }
    if (rc != SIM_OK) {
        sim_escape_print(stderr, "simlab status: ", err.msg);
        return 1;
    }
    return 0;
}

static void server_usage(FILE *f)
{
    fputs("usage: simlab server setup ADMIN_URL\n"
          "       simlab server add-station ADMIN_URL --station NAME "
          "--passfile FILE [--role ROLE]\n"
          "       simlab server add-analyst ADMIN_URL --passfile FILE "
          "[--role ROLE]\n",
          f);
}

int server_cmd_main(int argc, char **argv)
{
    if (argc < 3) {
        server_usage(stderr);
        return 2;
    }
    const char *what = argv[1], *url = argv[2];
    const char *station = NULL, *passfile = NULL, *role = NULL;
    for (int i = 3; i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--station") == 0 && v) {
            station = v;
        } else if (strcmp(argv[i], "--passfile") == 0 && v) {
            passfile = v;
        } else if (strcmp(argv[i], "--role") == 0 && v) {
            role = v;
        } else {
            char b[256];
            fprintf(stderr, "simlab server: bad argument '%s'\n",
                    shown(argv[i], b, sizeof b));
            server_usage(stderr);
            return 2;
        }
    }
    SimError err;
    sim_error_clear(&err);
    int rc;
    if (strcmp(what, "setup") == 0 && argc == 3) {
        rc = sync_server_setup(url, stdout, &err);
    } else if ((strcmp(what, "add-station") == 0 && station && passfile) ||
               (strcmp(what, "add-analyst") == 0 && !station && passfile)) {
        SyncRoleKind kind =
            what[4] == 's' ? SYNC_ROLE_STATION : SYNC_ROLE_ANALYST;
        char conn[1024];
        long old = 0;
        rc = sync_server_add_role(url, kind, station, role, passfile, conn,
                                  sizeof conn, &old, &err);
        if (rc == SIM_OK) {
            if (old > 0) {
                printf("%ld station files pushed as %s before the server had "
                       "station roles now belong to this role\n",
                       old, station);
            }
            printf("password written to %s (pgpass format, mode 0600): copy "
                   "it to the %s's machine and point PGPASSFILE at it (or add "
                   "passfile=... to the connection string); a password "
                   "written into the connection string itself shows in the "
                   "process list\n",
                   passfile, kind == SYNC_ROLE_STATION ? "station" : "analyst");
            printf("%s\n", conn);
        }
    } else {
        server_usage(stderr);
        return 2;
    }
    if (rc != SIM_OK) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "simlab server %s: ", what);
        sim_escape_print(stderr, prefix, err.msg);
        return err.code == SIM_ERR_USAGE ? 2 : 1;
    }
    return 0;
}

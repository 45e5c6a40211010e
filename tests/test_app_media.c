/*
** A stimulus file replaced after the check: `simlab run` loads (and so
** checks) the bundle, then an image of the schedule is replaced by a
** truncated PNG before the participant starts. The runner must pause the
** run for the experimenter with a media_error event and record no answer.
**   test_app_media SIMLAB
** The runner is held between loading the study and opening its window by a
** FIFO given as --timing-log: it opens the FIFO for writing (and blocks)
** only after the study is loaded and the database opened; the test
** replaces the file, then opens the FIFO for reading.
*/
#define _POSIX_C_SOURCE 200809L
#include "tests/harness.h"
#include "tests/test_util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int query_int(const char *db_path, const char *sql)
{
    sqlite3 *db = NULL;
    int n = -1;
    if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) ==
        SQLITE_OK) {
        sqlite3_busy_timeout(db, 2000);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
            if (sqlite3_step(st) == SQLITE_ROW) {
                n = sqlite3_column_int(st, 0);
            }
            sqlite3_finalize(st);
        }
    }
    sqlite3_close(db);
    return n;
}

/* Writes the first n bytes of src to dst (replacing it). */
static int truncate_copy(const char *src, const char *dst, size_t n)
{
    FILE *in = fopen(src, "rb");
    unsigned char buf[4096];
    size_t got = in ? fread(buf, 1, sizeof buf, in) : 0;
    if (in) {
        fclose(in);
    }
    if (got < n) {
        return -1;
    }
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.new", dst);
    FILE *out = fopen(tmp, "wb");
    if (!out || fwrite(buf, 1, n, out) != n) {
        if (out) {
            fclose(out);
        }
        return -1;
    }
    fclose(out);
    return rename(tmp, dst);
}

static int has_paused_shot(const char *dir)
{
    DIR *d = opendir(dir);
    int found = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        found |= strstr(de->d_name, "-paused") != NULL;
    }
    if (d) {
        closedir(d);
    }
    return found;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_app_media SIMLAB\n");
        return 2;
    }
    char tmp[256], bundle[512], db[512], fifo[512], shots[512], cmd[2048];
    test_tmpdir(tmp, sizeof tmp, "app-media");
    snprintf(bundle, sizeof bundle, "%s/bundle", tmp);
    snprintf(db, sizeof db, "%s/run.db", tmp);
    snprintf(fifo, sizeof fifo, "%s/timing.fifo", tmp);
    snprintf(shots, sizeof shots, "%s/shots", tmp);
    snprintf(cmd, sizeof cmd, "cp -r '%s/app/meta-image' '%s'",
             SIMLAB_TEST_DATA, bundle);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(mkfifo(fifo, 0600), 0);

    pid_t pid = fork();
    if (pid == 0) {
        setenv("SDL_VIDEODRIVER", "dummy", 1);
        setenv("SDL_AUDIODRIVER", "dummy", 1);
        execl(argv[1], argv[1], "run", bundle, "--db", db, "--autopilot",
              "model", "--participants", "1", "--seed", "7", "--timing-log",
              fifo, "--screenshot-dir", shots, (char *)NULL);
        _exit(127);
    }
    /* The database exists once the study is loaded (checked) and stored;
    ** the runner then waits for a reader of the FIFO. */
    int waited = 0;
    while (!test_path_exists(db) && waited < 20000) {
        sleep_ms(10);
        waited += 10;
    }
    CHECK(test_path_exists(db));
    char img[600], ok[600];
    snprintf(img, sizeof img, "%s/media/img1.png", bundle);
    snprintf(ok, sizeof ok, "%s/media/img0.png", bundle);
    /* Signature and header intact, pixel data cut off. */
    CHECK_INT(truncate_copy(ok, img, 40), 0);
    int rd = open(fifo, O_RDONLY); /* releases the runner */
    CHECK(rd >= 0);
    fcntl(rd, F_SETFL, O_NONBLOCK);

    /* Wait for the pause (the autopilot never resumes a pause it did not
    ** ask for), draining the timing log meanwhile. */
    int paused = 0, exited = 0, status = 0;
    for (waited = 0; waited < 30000 && !paused; waited += 20) {
        char buf[4096];
        while (read(rd, buf, sizeof buf) > 0) {
        }
        if (waitpid(pid, &status, WNOHANG) == pid) {
            exited = 1;
            break;
        }
        paused = query_int(db, "SELECT COUNT(*) FROM event WHERE kind = "
                               "'pause'") > 0 &&
                 has_paused_shot(shots);
        sleep_ms(20);
    }
    CHECK(!exited); /* still running: waiting for the experimenter */
    CHECK(paused);
    /* A little longer: nothing goes on behind the pause. */
    for (int i = 0; i < 25; i++) {
        char buf[4096];
        while (read(rd, buf, sizeof buf) > 0) {
        }
        sleep_ms(20);
    }
    if (!exited) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    close(rd);

    CHECK_INT(query_int(db, "SELECT COUNT(*) FROM event WHERE kind = "
                            "'media_error' AND detail LIKE "
                            "'%media/img1.png%' AND detail LIKE "
                            "'%truncated PNG%' AND participant IS NOT NULL"),
              1);
    /* The pause comes with (after) the media error. */
    CHECK_INT(query_int(db, "SELECT COUNT(*) FROM event p, event m WHERE "
                            "p.kind = 'pause' AND m.kind = 'media_error' AND "
                            "p.id > m.id"),
              1);
    /* The first step that shows the file, and every other, unanswered. */
    int step = query_int(db, "SELECT json_extract(detail, '$.step') FROM "
                             "event WHERE kind = 'media_error'");
    CHECK(step >= 0);
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM response WHERE seq = %d",
             step);
    CHECK_INT(query_int(db, sql), 0);
    CHECK_INT(query_int(db, "SELECT COUNT(*) FROM response WHERE done = 1"), 0);
    /* The participant stays unfinished (resumable). */
    CHECK_INT(query_int(db, "SELECT COUNT(*) FROM participant WHERE status = "
                            "'active'"),
              1);
    if (getenv("SIMLAB_KEEP_TMP")) {
        fprintf(stderr, "kept %s\n", tmp);
    } else {
        test_rmtree(tmp);
    }
    return TEST_REPORT();
}

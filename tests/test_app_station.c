/*
** Station settings (app/station_conf.c): the file's lines, its located
** errors, where it is looked for; and rush's record (app/rush.c): nothing
** asked changes nothing, a CPU this process may not use is refused, what
** the system refuses is recorded, and the JSON of the display event.
*/
#define _GNU_SOURCE /* CPU_SET, mkdtemp */
#include <jansson.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "app/rush.h"
#include "app/station_conf.h"
#include "harness.h"

static int parse(const char *text, StationConf *c, SimError *err)
{
    station_conf_init(c);
    sim_error_clear(err);
    return station_conf_parse("station.conf", text, c, err);
}

static void test_parse(void)
{
    StationConf c;
    SimError err;
    CHECK_INT(parse("# lab 2, the quiet room\n"
                    "station = lab-2   # shown on the start screen\n"
                    "\n"
                    "  rush=on\n"
                    "cpu = 1\n",
                    &c, &err),
              SIM_OK);
    CHECK_STR(c.station, "lab-2");
    CHECK_INT(c.rush, 1);
    CHECK_INT(c.cpu, 1);
    CHECK_INT(c.cpu_line, 5);
    CHECK_INT(parse("rush = off", &c, &err), SIM_OK); /* no final newline */
    CHECK_INT(c.rush, 0);
    CHECK_INT(c.cpu, -1);
    CHECK_STR(c.station, "");
    const char *yes[] = {"yes", "TRUE", "1", "On"};
    for (int i = 0; i < 4; i++) {
        char t[32];
        snprintf(t, sizeof t, "rush = %s\n", yes[i]);
        CHECK_INT(parse(t, &c, &err), SIM_OK);
        CHECK_INT(c.rush, 1);
    }
    /* errors name the file, the line and the field */
    CHECK_INT(parse("station = a\nrush = maybe\n", &c, &err), SIM_ERR_PARSE);
    CHECK_STR(err.msg, "station.conf:2: field 'rush': expected on or off, "
                       "got 'maybe'");
    CHECK_INT(parse("\n\nrsuh = on\n", &c, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "station.conf:3: field 'rsuh': unknown setting") ==
          err.msg);
    CHECK_INT(parse("cpu = -1\n", &c, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "station.conf:1: field 'cpu'") == err.msg);
    CHECK_INT(parse("cpu = 2x\n", &c, &err), SIM_ERR_PARSE);
    CHECK_INT(parse("station = lab 2\n", &c, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "station.conf:1: field 'station': 'lab 2'") ==
          err.msg);
    CHECK_INT(parse("rush\n", &c, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "station.conf:1: expected \"key = value\"") ==
          err.msg);
    CHECK_INT(parse("= on\n", &c, &err), SIM_ERR_PARSE);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_load(void)
{
    char dir[] = "/tmp/simlab-station-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[400], xdg[200], sub[300];
    StationConf c;
    SimError err;
    /* SIMLAB_STATION_CONFIG names the file, which must exist */
    snprintf(path, sizeof path, "%s/mine.conf", dir);
    put(path, "station = from-env\n");
    setenv("SIMLAB_STATION_CONFIG", path, 1);
    station_conf_init(&c);
    CHECK_INT(station_conf_load(&c, &err), SIM_OK);
    CHECK_STR(c.station, "from-env");
    CHECK_STR(c.path, path);
    unlink(path);
    station_conf_init(&c);
    CHECK_INT(station_conf_load(&c, &err), SIM_ERR_IO);
    CHECK(strstr(err.msg, path) == err.msg);
    CHECK(strstr(err.msg, "SIMLAB_STATION_CONFIG") != NULL);
    /* else $XDG_CONFIG_HOME/simlab/station.conf */
    unsetenv("SIMLAB_STATION_CONFIG");
    snprintf(xdg, sizeof xdg, "%s/config", dir);
    snprintf(sub, sizeof sub, "%s/config/simlab", dir);
    CHECK_INT(mkdir(xdg, 0700), 0);
    CHECK_INT(mkdir(sub, 0700), 0);
    setenv("XDG_CONFIG_HOME", xdg, 1);
    snprintf(path, sizeof path, "%s/station.conf", sub);
    put(path, "cpu = 0\nrush = on\n");
    station_conf_init(&c);
    CHECK_INT(station_conf_load(&c, &err), SIM_OK);
    CHECK_INT(c.rush, 1);
    CHECK_INT(c.cpu, 0);
    CHECK_STR(c.path, path);
    put(path, "cpu = zero\n");
    station_conf_init(&c);
    CHECK_INT(station_conf_load(&c, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, path) == err.msg);
    CHECK(strstr(err.msg, ":1: field 'cpu'") != NULL);
    unlink(path);
    rmdir(sub);
    rmdir(xdg);
    rmdir(dir);
    /* no file in the user's folder: /etc/simlab/station.conf, or none */
    station_conf_init(&c);
    int rc = station_conf_load(&c, &err);
    CHECK(rc == SIM_OK ||
          strstr(err.msg, "/etc/simlab/station.conf") == err.msg);
    CHECK(c.path[0] == 0 || strcmp(c.path, "/etc/simlab/station.conf") == 0);
}

static void test_rush(void)
{
    Rush r;
    char why[256], buf[1200];
    /* nothing asked: nothing changed, and said so */
    rush_apply(0, -1, &r);
    CHECK(!r.asked && !r.render_fifo && !r.memory_locked && r.cpu == -1);
    CHECK_STR(r.failed, "");
    CHECK(!rush_active(&r));
    CHECK_INT(sched_getscheduler(0), SCHED_OTHER);
    CHECK_INT(rush_input_priority(&r), RUSH_RENDER_PRIORITY);
    rush_json(&r, buf, sizeof buf);
    CHECK_STR(buf, "{\"asked\":false,\"active\":false,\"render_loop\":"
                   "\"SCHED_OTHER\",\"input_thread\":\"none\","
                   "\"memory_locked\":false,\"cpu\":null,\"failed\":\"\"}");
    /* the input thread's policy, and a refusal recorded when asked */
    rush_set_input(&r, 1, 11);
    rush_json(&r, buf, sizeof buf);
    CHECK(strstr(buf, "\"input_thread\":\"SCHED_FIFO 11\"") != NULL);
    rush_init(&r);
    r.asked = 1;
    rush_set_input(&r, 0, -10);
    CHECK(!rush_active(&r));
    CHECK_STR(r.failed, "the input thread stays SCHED_OTHER");
    rush_json(&r, buf, sizeof buf);
    CHECK(strstr(buf, "\"input_thread\":\"SCHED_OTHER nice -10\"") != NULL);
    /* CPUs */
    CHECK(!rush_cpu_valid(-1, why, sizeof why));
    CHECK(!rush_cpu_valid(1023, why, sizeof why));
    CHECK(strstr(why, "simlab may run on CPU ") == why);
    cpu_set_t set;
    CHECK_INT(sched_getaffinity(0, sizeof set, &set), 0);
    int first = -1;
    for (int i = 0; i < CPU_SETSIZE && first < 0; i++) {
        first = CPU_ISSET(i, &set) ? i : -1;
    }
    CHECK(first >= 0 && rush_cpu_valid(first, why, sizeof why));
    /* asked: what the system grants is in force, what it refuses is said
    ** (either, depending on the rights the test runs with) */
    rush_apply(1, first, &r);
    CHECK(r.asked);
    CHECK_INT(r.cpu, first);
    CHECK_INT(sched_getaffinity(0, sizeof set, &set), 0);
    CHECK_INT(CPU_COUNT(&set), 1);
    CHECK(CPU_ISSET(first, &set));
    if (r.render_fifo) {
        struct sched_param sp;
        CHECK_INT(sched_getscheduler(0), SCHED_FIFO);
        CHECK_INT(sched_getparam(0, &sp), 0);
        CHECK_INT(sp.sched_priority, r.render_prio);
        CHECK_INT(rush_input_priority(&r), r.render_prio + 1);
    } else {
        CHECK(strstr(r.failed, "the render loop stays SCHED_OTHER") != NULL);
    }
    CHECK(r.memory_locked || strstr(r.failed, "memory not locked") != NULL);
    CHECK_INT(rush_active(&r), r.failed[0] == 0);
    rush_json(&r, buf, sizeof buf);
    json_t *o = json_loads(buf, 0, NULL);
    CHECK(o != NULL);
    CHECK(json_is_true(json_object_get(o, "asked")));
    CHECK_INT(json_integer_value(json_object_get(o, "cpu")), first);
    CHECK_STR(json_string_value(json_object_get(o, "failed")), r.failed);
    json_decref(o);
}

int main(void)
{
    test_parse();
    test_load();
    test_rush();
    return TEST_REPORT();
}

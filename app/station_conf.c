/*
** Station settings (station.conf): finding the file and reading its
** "key = value" lines. No SDL.
*/
#define _POSIX_C_SOURCE 200809L
#include "app/station_conf.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "app/rush.h"
#include "common/sim_alloc.h"
#include "experiment/export.h"

void station_conf_init(StationConf *c)
{
    memset(c, 0, sizeof *c);
    c->rush = -1;
    c->cpu = -1;
}

/* src into dst[size], cut to fit (the callers' strings fit already). */
static void copy_str(char *dst, size_t size, const char *src)
{
    size_t m = strnlen(src, size - 1);
    memcpy(dst, src, m);
    dst[m] = 0;
}

/* Trims spaces at both ends of [*s, *e). */
static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s)) {
        (*s)++;
    }
    while (*e > *s && isspace((unsigned char)(*e)[-1])) {
        (*e)--;
    }
}

static int parse_bool(const char *v, int *out)
{
    static const char *const yes[] = {"on", "yes", "true", "1"};
    static const char *const no[] = {"off", "no", "false", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -1;
}

static int set_key(const char *path, int line, const char *key, const char *val,
                   StationConf *c, SimError *err)
{
    if (strcmp(key, "station") == 0) {
        if (!export_station_name_valid(val)) {
            return sim_fail(
                err, SIM_ERR_PARSE,
                "%s:%d: field 'station': '%s': use " EXPORT_STATION_NAME_SET,
                path, line, val);
        }
        copy_str(c->station, sizeof c->station, val);
    } else if (strcmp(key, "rush") == 0) {
        if (parse_bool(val, &c->rush) != 0) {
            return sim_fail(err, SIM_ERR_PARSE,
                            "%s:%d: field 'rush': expected on or off, got '%s'",
                            path, line, val);
        }
    } else if (strcmp(key, "cpu") == 0) {
        char *end;
        errno = 0;
        long n = strtol(val, &end, 10);
        if (errno || end == val || *end || n < 0 || n > 1023) {
            return sim_fail(err, SIM_ERR_PARSE,
                            "%s:%d: field 'cpu': expected a CPU number (0, 1, "
                            "...), got '%s'",
                            path, line, val);
        }
        c->cpu = (int)n;
        c->cpu_line = line;
    } else {
        return sim_fail(err, SIM_ERR_PARSE,
                        "%s:%d: field '%s': unknown setting (the settings "
                        "are station, rush and cpu)",
                        path, line, key);
    }
    return SIM_OK;
}

int station_conf_parse(const char *path, const char *text, StationConf *c,
                       SimError *err)
{
    int line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *eol = strchr(p, '\n');
        const char *end = eol ? eol : p + strlen(p);
        const char *s = p, *e = end;
        const char *hash = memchr(s, '#', (size_t)(e - s));
        if (hash) {
            e = hash;
        }
        trim(&s, &e);
        p = eol ? eol + 1 : end;
        if (s == e) {
            continue;
        }
        const char *eq = memchr(s, '=', (size_t)(e - s));
        if (!eq) {
            return sim_fail(err, SIM_ERR_PARSE,
                            "%s:%d: expected \"key = value\", got '%.*s'", path,
                            line, (int)(e - s), s);
        }
        const char *ks = s, *ke = eq, *vs = eq + 1, *ve = e;
        trim(&ks, &ke);
        trim(&vs, &ve);
        char key[32], val[128];
        if (ke == ks || (size_t)(ke - ks) >= sizeof key ||
            (size_t)(ve - vs) >= sizeof val) {
            return sim_fail(err, SIM_ERR_PARSE,
                            "%s:%d: expected \"key = value\", got '%.*s'", path,
                            line, (int)(e - s), s);
        }
        memcpy(key, ks, (size_t)(ke - ks));
        key[ke - ks] = 0;
        memcpy(val, vs, (size_t)(ve - vs));
        val[ve - vs] = 0;
        int rc = set_key(path, line, key, val, c, err);
        if (rc != SIM_OK) {
            return rc;
        }
    }
    return SIM_OK;
}

/* Reads the whole file; NULL (errno set) when it cannot. */
static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = sim_malloc(cap);
    if (!buf) {
        errno = ENOMEM;
    }
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n + 1 < cap) {
            break;
        }
        if (cap >= (1u << 20)) {
            sim_free(buf); /* no settings file is a megabyte */
            buf = NULL;
            errno = EFBIG;
            break;
        }
        char *nb = sim_realloc(buf, cap * 2);
        if (!nb) {
            sim_free(buf);
            buf = NULL;
            errno = ENOMEM;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = buf && ferror(f);
    fclose(f);
    if (bad) {
        sim_free(buf);
        errno = EIO;
        return NULL;
    }
    if (buf) {
        buf[n] = 0;
    }
    return buf;
}

int station_conf_load(StationConf *c, SimError *err)
{
    char cand[3][1024];
    int n = 0, must = 0;
    const char *env = getenv("SIMLAB_STATION_CONFIG");
    if (env && *env) {
        snprintf(cand[n++], sizeof cand[0], "%s", env);
        must = 1;
    } else {
        const char *xdg = getenv("XDG_CONFIG_HOME");
        const char *home = getenv("HOME");
        if (xdg && *xdg) {
            snprintf(cand[n++], sizeof cand[0], "%s/simlab/station.conf", xdg);
        } else if (home && *home) {
            snprintf(cand[n++], sizeof cand[0],
                     "%s/.config/simlab/station.conf", home);
        }
        snprintf(cand[n++], sizeof cand[0], "/etc/simlab/station.conf");
    }
    for (int i = 0; i < n; i++) {
        char *text = read_text(cand[i]);
        if (!text) {
            if (errno == ENOENT && !must) {
                continue;
            }
            return sim_fail(err, SIM_ERR_IO, "%s: %s%s", cand[i],
                            strerror(errno),
                            must ? " (named by SIMLAB_STATION_CONFIG)" : "");
        }
        copy_str(c->path, sizeof c->path, cand[i]);
        int rc = station_conf_parse(cand[i], text, c, err);
        sim_free(text);
        return rc;
    }
    return SIM_OK;
}

int station_settings(const char *prog, const char *cli_station, int cli_rush,
                     int cli_cpu, StationSettings *out)
{
    StationConf conf;
    SimError err;
    station_conf_init(&conf);
    if (station_conf_load(&conf, &err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", prog, err.msg);
        return -1;
    }
    const char *name = cli_station ? cli_station : conf.station;
    if (name[0]) {
        snprintf(out->station, sizeof out->station, "%s", name);
    } else if (gethostname(out->station, sizeof out->station) != 0) {
        snprintf(out->station, sizeof out->station, "station");
    }
    out->station[sizeof out->station - 1] = '\0';
    out->rush = cli_rush >= 0 ? cli_rush : conf.rush == 1;
    out->cpu = cli_cpu >= 0 ? cli_cpu : conf.cpu;
    char why[256];
    if (out->cpu >= 0 && !rush_cpu_valid(out->cpu, why, sizeof why)) {
        if (cli_cpu >= 0) {
            fprintf(stderr, "%s: --cpu %d: %s\n", prog, out->cpu, why);
        } else {
            fprintf(stderr, "%s: %s:%d: field 'cpu': %d: %s\n", prog, conf.path,
                    conf.cpu_line, out->cpu, why);
        }
        return -1;
    }
    return 0;
}

/*
** Reproducible file output for the generator: directories, text, .npy and
** JSON. Depends on libc, POSIX mkdir and jansson only.
*/
#include "stimuli/gen/genio.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/sim_alloc.h"

int genio_join(char *out, size_t n, const char *a, const char *b, SimError *err)
{
    int len = snprintf(out, n, "%s/%s", a, b);
    if (len < 0 || (size_t)len >= n) {
        return sim_fail(err, SIM_ERR_USAGE, "%s/%s: path too long", a, b);
    }
    return SIM_OK;
}

int genio_mkdirs(const char *dir, SimError *err)
{
    char path[1024];
    size_t len = strlen(dir);
    if (len == 0 || len >= sizeof path) {
        return sim_fail(err, SIM_ERR_USAGE, "'%s': bad directory name", dir);
    }
    memcpy(path, dir, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (path[i] == '/' || path[i] == '\0') {
            char saved = path[i];
            path[i] = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST) {
                return sim_fail(err, SIM_ERR_IO, "%s: mkdir: %s", path,
                                strerror(errno));
            }
            path[i] = saved;
        }
    }
    return SIM_OK;
}

int genio_write_file(const char *path, const void *data, size_t n,
                     SimError *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
    }
    size_t put = n ? fwrite(data, 1, n, f) : 0;
    int bad = put != n;
    if (fclose(f) != 0) {
        bad = 1;
    }
    if (bad) {
        return sim_fail(err, SIM_ERR_IO, "%s: write failed", path);
    }
    return SIM_OK;
}

int genio_write_text(const char *path, const char *text, SimError *err)
{
    return genio_write_file(path, text, strlen(text), err);
}

int genio_write_pages(const char *dir, const char *const *names,
                      const char *const *texts, int n, SimError *err)
{
    char pages[1024], path[1024];
    int rc = genio_join(pages, sizeof pages, dir, "pages", err);
    rc = rc ? rc : genio_mkdirs(pages, err);
    for (int k = 0; k < n && rc == SIM_OK; k++) {
        rc = genio_join(path, sizeof path, pages, names[k], err);
        rc = rc ? rc : genio_write_text(path, texts[k], err);
    }
    return rc;
}

/* The .npy 1.0 header: magic, version, little-endian header length, then a
** Python dict literal padded with spaces to a multiple of 64 bytes. */
int genio_write_npy(const char *path, const float *data, int rows, int cols,
                    SimError *err)
{
    char dict[128];
    int dn = snprintf(dict, sizeof dict,
                      "{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (%d, %d), }",
                      rows, cols);
    if (dn < 0 || (size_t)dn >= sizeof dict - 64) {
        return sim_fail(err, SIM_ERR_USAGE, "%s: bad shape", path);
    }
    size_t total = 10 + (size_t)dn + 1; /* preamble + dict + '\n' */
    size_t padded = (total + 63) / 64 * 64;
    size_t hlen = padded - 10;
    size_t n_values = (size_t)rows * (size_t)cols;
    size_t size = padded + 4 * n_values;
    unsigned char *buf = sim_malloc(size);
    if (!buf) {
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = 1;
    buf[7] = 0;
    buf[8] = (unsigned char)(hlen & 0xff);
    buf[9] = (unsigned char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)dn);
    memset(buf + 10 + dn, ' ', padded - 10 - (size_t)dn - 1);
    buf[padded - 1] = '\n';
    for (size_t i = 0; i < n_values; i++) {
        uint32_t bits;
        memcpy(&bits, &data[i], 4);
        unsigned char *p = buf + padded + 4 * i;
        p[0] = (unsigned char)(bits & 0xff);
        p[1] = (unsigned char)((bits >> 8) & 0xff);
        p[2] = (unsigned char)((bits >> 16) & 0xff);
        p[3] = (unsigned char)(bits >> 24);
    }
    int rc = genio_write_file(path, buf, size, err);
    sim_free(buf);
    return rc;
}

json_t *genio_real(double x, int decimals)
{
    if (!isfinite(x)) {
        return json_null();
    }
    double scale = pow(10.0, decimals);
    double r = round(x * scale) / scale;
    if (r == 0.0) {
        r = 0.0; /* no "-0.0" in the files */
    }
    return json_real(r);
}

/* Reals were rounded by genio_real; 10 significant digits print them back
** exactly as rounded ("0.1234", not "0.12340000000000001"). */
#define GENIO_JSON_FLAGS JSON_REAL_PRECISION(10)

int genio_write_json(const char *path, const json_t *value, SimError *err)
{
    char *text = json_dumps(value, JSON_INDENT(2) | GENIO_JSON_FLAGS);
    if (!text) {
        return sim_fail(err, SIM_ERR_NOMEM, "%s: JSON encoding failed", path);
    }
    size_t n = strlen(text);
    char *buf = sim_malloc(n + 2);
    if (!buf) {
        free(text);
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    memcpy(buf, text, n);
    buf[n] = '\n';
    free(text);
    int rc = genio_write_file(path, buf, n + 1, err);
    sim_free(buf);
    return rc;
}

int genio_write_jsonl(const char *path, const json_t *lines, SimError *err)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
    }
    int rc = SIM_OK;
    size_t i;
    json_t *line;
    json_array_foreach(lines, i, line)
    {
        char *text = json_dumps(line, JSON_COMPACT | GENIO_JSON_FLAGS);
        if (!text) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "%s: JSON encoding failed", path);
            break;
        }
        fputs(text, f);
        fputc('\n', f);
        free(text);
    }
    if (fclose(f) != 0 && rc == SIM_OK) {
        rc = sim_fail(err, SIM_ERR_IO, "%s: write failed", path);
    }
    return rc;
}

int genio_read_jsonl(const char *path, json_t **out, SimError *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: %s", path, strerror(errno));
    }
    json_t *lines = json_array();
    char *buf = sim_malloc(1 << 16);
    size_t cap = 1 << 16;
    int rc = SIM_OK, lineno = 0;
    if (!lines || !buf) {
        rc = sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    while (rc == SIM_OK) {
        size_t len = 0;
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n') {
            if (len + 1 >= cap) {
                char *bigger = sim_realloc(buf, cap * 2);
                if (!bigger) {
                    rc =
                        sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
                    break;
                }
                buf = bigger;
                cap *= 2;
            }
            buf[len++] = (char)c;
        }
        if (rc != SIM_OK || (c == EOF && len == 0)) {
            break;
        }
        lineno++;
        if (len == 0) {
            continue;
        }
        json_error_t jerr;
        json_t *v = json_loadb(buf, len, 0, &jerr);
        if (!v) {
            rc = sim_fail(err, SIM_ERR_PARSE, "%s:%d: %s", path, lineno,
                          jerr.text);
        } else if (json_array_append_new(lines, v)) {
            rc = sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
        }
    }
    fclose(f);
    sim_free(buf);
    if (rc != SIM_OK) {
        json_decref(lines);
        return rc;
    }
    *out = lines;
    return SIM_OK;
}

int genio_append(json_t *array, json_t *value)
{
    return value ? json_array_append_new(array, value) : -1;
}

int genio_set(json_t *object, const char *key, json_t *value)
{
    return value ? json_object_set_new(object, key, value) : -1;
}

json_t *genio_simulation(double p_default, const char *phase, double base_p,
                         const char *const *methods, const double *p, int n)
{
    json_t *cells = json_array();
    genio_append(cells, json_pack("{s:n, s:s, s:o}", "condition", "phase",
                                  phase, "p", genio_real(base_p, 2)));
    for (int k = 0; k < n; k++) {
        genio_append(cells,
                     json_pack("{s:s, s:s, s:o}", "condition", methods[k],
                               "phase", phase, "p", genio_real(p[k], 2)));
    }
    return json_pack(
        "{s:s, s:o, s:o, s:f, s:f, s:f, s:f, s:i, s:f}", "_about",
        "Assumed accuracies of simulated participants (simlab simulate "
        "--policy mixed, simlab run --autopilot mixed): they give the "
        "demo's simulated data a known effect; they are not measurements.",
        "p", genio_real(p_default, 2), "cells", cells, "participant_sd", 0.4,
        "item_sd", 0.4, "catch_p", 0.97, "quiz_p", 0.97, "rt_median_ms", 2200,
        "rt_sigma", 0.45);
}

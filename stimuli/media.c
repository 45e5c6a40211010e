/*
** PNG, JPEG and .npy headers read by hand: enough to know that a file is
** what it claims and how large it is. libc only.
*/
#include "stimuli/media.h"
#include "stimuli/study_int.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_alloc.h"

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

static int png_size(FILE *f, int *w, int *h, char *why, size_t why_size)
{
    /* signature (8) + IHDR length (4) + "IHDR" (4) + width + height */
    unsigned char b[24];
    size_t got = fread(b, 1, sizeof b, f);
    if (got < 24) {
        snprintf(why, why_size, "truncated PNG (no IHDR chunk)");
        return -1;
    }
    if (be32(b + 8) != 13 || memcmp(b + 12, "IHDR", 4) != 0) {
        snprintf(why, why_size, "broken PNG: the first chunk is not IHDR");
        return -1;
    }
    uint32_t pw = be32(b + 16), ph = be32(b + 20);
    if (pw == 0 || ph == 0 || pw > INT32_MAX || ph > INT32_MAX) {
        snprintf(why, why_size, "broken PNG: size %ux%u", (unsigned)pw,
                 (unsigned)ph);
        return -1;
    }
    *w = (int)pw;
    *h = (int)ph;
    return 0;
}

static int jpeg_size(FILE *f, int *w, int *h, char *why, size_t why_size)
{
    /* after SOI: segments FF xx len(2) ...; SOFn carries the size */
    for (;;) {
        int c = fgetc(f);
        if (c == EOF) {
            break;
        }
        if (c != 0xFF) {
            snprintf(why, why_size, "broken JPEG: marker expected");
            return -1;
        }
        int m;
        do {
            m = fgetc(f);
        } while (m == 0xFF);
        if (m == EOF) {
            break;
        }
        if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) {
            continue; /* markers without a length */
        }
        if (m == 0xD9 || m == 0xDA) {
            snprintf(why, why_size, "broken JPEG: no frame header before %s",
                     m == 0xD9 ? "the end" : "the image data");
            return -1;
        }
        unsigned char lb[2];
        if (fread(lb, 1, 2, f) != 2) {
            break;
        }
        unsigned len = (unsigned)lb[0] << 8 | lb[1];
        if (len < 2) {
            snprintf(why, why_size, "broken JPEG: bad segment length");
            return -1;
        }
        int is_sof =
            m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
        if (is_sof) {
            unsigned char s[5];
            if (len < 7 || fread(s, 1, 5, f) != 5) {
                break;
            }
            int jh = s[1] << 8 | s[2], jw = s[3] << 8 | s[4];
            if (jw == 0 || jh == 0) {
                snprintf(why, why_size, "broken JPEG: size %dx%d", jw, jh);
                return -1;
            }
            *w = jw;
            *h = jh;
            return 0;
        }
        if (fseek(f, (long)len - 2, SEEK_CUR) != 0) {
            break;
        }
    }
    snprintf(why, why_size, "truncated JPEG (no frame header)");
    return -1;
}

int image_size(const char *abs, int *w, int *h, int *is_png, char *why,
               size_t why_size)
{
    FILE *f = fopen(abs, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return -2;
    }
    unsigned char sig[8];
    size_t got = fread(sig, 1, sizeof sig, f);
    int rc = -1;
    static const unsigned char png_sig[8] = {0x89, 'P',  'N',  'G',
                                             '\r', '\n', 0x1A, '\n'};
    if (is_png) {
        *is_png = got == 8 && memcmp(sig, png_sig, 8) == 0;
    }
    if (got == 8 && memcmp(sig, png_sig, 8) == 0) {
        rewind(f);
        rc = png_size(f, w, h, why, why_size);
    } else if (got >= 3 && sig[0] == 0xFF && sig[1] == 0xD8 && sig[2] == 0xFF) {
        if (fseek(f, 2, SEEK_SET) == 0) {
            rc = jpeg_size(f, w, h, why, why_size);
        } else {
            snprintf(why, why_size, "cannot read: %s", strerror(errno));
        }
    } else if (got == 0) {
        snprintf(why, why_size, "empty file (not a PNG or JPEG image)");
    } else {
        snprintf(why, why_size, "not a PNG or JPEG file (bad signature)");
    }
    fclose(f);
    return rc;
}

/* Finds 'key': in a numpy header dict and returns a pointer just past the
** colon and spaces, or NULL. */
static const char *dict_value(const char *hdr, const char *key)
{
    char pat[32];
    for (int q = 0; q < 2; q++) {
        snprintf(pat, sizeof pat, q ? "\"%s\"" : "'%s'", key);
        const char *p = strstr(hdr, pat);
        if (p) {
            p += strlen(pat);
            while (*p == ' ') {
                p++;
            }
            if (*p != ':') {
                return NULL;
            }
            p++;
            while (*p == ' ') {
                p++;
            }
            return p;
        }
    }
    return NULL;
}

static int npy_header(FILE *f, int *rows, int *cols, long *offset, char *why,
                      size_t why_size)
{
    unsigned char pre[12];
    size_t got = fread(pre, 1, 10, f);
    if (got < 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
        snprintf(why, why_size, "not a .npy file (bad magic)");
        return -1;
    }
    int major = pre[6];
    size_t hlen;
    long start;
    if (major == 1) {
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
        start = 10;
    } else if (major == 2 || major == 3) {
        if (fread(pre + 10, 1, 2, f) != 2) {
            snprintf(why, why_size, "truncated .npy header");
            return -1;
        }
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8 | (size_t)pre[10] << 16 |
               (size_t)pre[11] << 24;
        start = 12;
    } else {
        snprintf(why, why_size, ".npy format version %d is not supported",
                 major);
        return -1;
    }
    if (hlen == 0 || hlen > 65536) {
        snprintf(why, why_size, "bad .npy header length %zu", hlen);
        return -1;
    }
    char *hdr = sim_malloc(hlen + 1);
    if (!hdr) {
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    int rc = -1;
    if (fread(hdr, 1, hlen, f) != hlen) {
        snprintf(why, why_size, "truncated .npy header");
        goto done;
    }
    hdr[hlen] = '\0';
    const char *d = dict_value(hdr, "descr");
    if (!d) {
        snprintf(why, why_size, ".npy header has no 'descr'");
        goto done;
    }
    if (strncmp(d, "'<f4'", 5) != 0 && strncmp(d, "\"<f4\"", 5) != 0) {
        int n = 0;
        while (d[n] && d[n] != ',' && n < 16) {
            n++;
        }
        snprintf(why, why_size,
                 ".npy dtype is %.*s, expected '<f4' (little-endian float32)",
                 n, d);
        goto done;
    }
    const char *fo = dict_value(hdr, "fortran_order");
    if (!fo || strncmp(fo, "False", 5) != 0) {
        snprintf(why, why_size,
                 ".npy array must be in C order "
                 "(fortran_order: False)");
        goto done;
    }
    const char *sh = dict_value(hdr, "shape");
    if (!sh || *sh != '(') {
        snprintf(why, why_size, ".npy header has no 'shape'");
        goto done;
    }
    long dims[8];
    int nd = 0;
    const char *p = sh + 1;
    for (;;) {
        while (*p == ' ' || *p == ',') {
            p++;
        }
        if (*p == ')') {
            break;
        }
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno != 0 || v < 0 || nd == 8) {
            snprintf(why, why_size, ".npy 'shape' is malformed");
            goto done;
        }
        dims[nd++] = v;
        p = end;
        while (*p == ' ' || *p == 'L') {
            p++;
        }
        if (*p != ',' && *p != ')') {
            snprintf(why, why_size, ".npy 'shape' is malformed");
            goto done;
        }
    }
    if (nd != 2) {
        snprintf(why, why_size,
                 ".npy array has %d dimensions, expected 2 "
                 "(height x width)",
                 nd);
        goto done;
    }
    if (dims[0] <= 0 || dims[1] <= 0 || dims[0] > 65536 || dims[1] > 65536) {
        snprintf(why, why_size, ".npy shape (%ld, %ld) is empty or too large",
                 dims[0], dims[1]);
        goto done;
    }
    *rows = (int)dims[0];
    *cols = (int)dims[1];
    *offset = start + (long)hlen;
    rc = 0;
done:
    sim_free(hdr);
    return rc;
}

/* Reads the header, then checks that the file is long enough to hold all
** rows * cols floats. */
static int npy_check(FILE *f, int *rows, int *cols, long *offset, char *why,
                     size_t why_size)
{
    int rc = npy_header(f, rows, cols, offset, why, why_size);
    if (rc == 0) {
        long need = *offset + (long)*rows * (long)*cols * 4;
        if (fseek(f, 0, SEEK_END) != 0 || ftell(f) < need) {
            snprintf(why, why_size,
                     "truncated .npy data (%d x %d floats need %ld bytes)",
                     *rows, *cols, need);
            rc = -1;
        }
    }
    return rc;
}

int npy_shape(const char *abs, int *rows, int *cols, char *why, size_t why_size)
{
    FILE *f = fopen(abs, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return -1;
    }
    long offset = 0;
    int rc = npy_check(f, rows, cols, &offset, why, why_size);
    fclose(f);
    return rc;
}

int media_image_size(const char *path, int *w, int *h, SimError *err)
{
    char why[256];
    int rc = image_size(path, w, h, NULL, why, sizeof why);
    if (rc != 0) {
        return sim_fail(err, rc == -2 ? SIM_ERR_IO : SIM_ERR_PARSE, "%s: %s",
                        path, why);
    }
    return SIM_OK;
}

/* Opens a .npy file and checks it as media_npy_info() does; on success *out
** is the open file. */
static int npy_open(const char *path, int *rows, int *cols, long *data_offset,
                    FILE **out, SimError *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        return sim_fail(err, SIM_ERR_IO, "%s: cannot open: %s", path,
                        strerror(errno));
    }
    char why[256];
    if (npy_check(f, rows, cols, data_offset, why, sizeof why) != 0) {
        fclose(f);
        return sim_fail(err, SIM_ERR_PARSE, "%s: %s", path, why);
    }
    *out = f;
    return SIM_OK;
}

int media_npy_info(const char *path, int *rows, int *cols, long *data_offset,
                   SimError *err)
{
    FILE *f = NULL;
    int rc = npy_open(path, rows, cols, data_offset, &f, err);
    if (f) {
        fclose(f);
    }
    return rc;
}

int media_npy_read(const char *path, float **out, int *rows, int *cols,
                   SimError *err)
{
    *out = NULL;
    long offset = 0;
    FILE *f = NULL;
    int rc = npy_open(path, rows, cols, &offset, &f, err);
    if (rc != SIM_OK) {
        return rc;
    }
    size_t n = (size_t)*rows * (size_t)*cols;
    float *data = sim_malloc(n * sizeof *data);
    if (!data) {
        fclose(f);
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    unsigned char b[4];
    size_t i = 0;
    if (fseek(f, offset, SEEK_SET) == 0) {
        for (; i < n && fread(b, 1, 4, f) == 4; i++) {
            uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
                         (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            memcpy(&data[i], &u, 4);
        }
    }
    fclose(f);
    if (i < n) {
        sim_free(data);
        return sim_fail(err, SIM_ERR_PARSE, "%s: truncated .npy data", path);
    }
    *out = data;
    return SIM_OK;
}

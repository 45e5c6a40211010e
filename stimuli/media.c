/*
** PNG, JPEG and .npy files read whole: PNG through libpng, JPEG through
** libjpeg-turbo (pixels as RGBA), .npy by hand. Study loading decodes every
** image to check it; the runner decodes the same way to show it. No SDL.
*/
#include "stimuli/media.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <png.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
/* after stdio.h: jpeglib.h uses FILE */
#include <jpeglib.h>
#include <stdlib.h>
#include <string.h>

#include "common/sim_alloc.h"

/* Return codes of the internal readers. */
enum { MEDIA_BAD = -1, MEDIA_NOFILE = -2, MEDIA_NOMEM = -3 };

static int too_large(unsigned long w, unsigned long h, char *why,
                     size_t why_size)
{
    if (w == 0 || h == 0) {
        snprintf(why, why_size, "image size %lux%lu is empty", w, h);
        return 1;
    }
    if (w > MEDIA_MAX_SIDE || h > MEDIA_MAX_SIDE) {
        snprintf(why, why_size,
                 "image is %lux%lu pixels; the limit is %d pixels per side", w,
                 h, MEDIA_MAX_SIDE);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ PNG */

typedef struct PngJob {
    char *why;
    size_t why_size;
    png_structp png;
    png_infop info;
    unsigned char *pixels; /* kept image, or NULL */
    unsigned char *row;    /* one row when the pixels are not kept */
    png_bytep *rows;
    int w, h;
    size_t read;   /* bytes read so far */
    int truncated; /* the file ended early */
} PngJob;

/* libpng's error handler: writes the reason and returns to png_run's
** setjmp (png_jmpbuf) through libpng's own png_longjmp. */
static void png_fail(png_structp png, png_const_charp msg)
{
    PngJob *j = png_get_error_ptr(png);
    if (j->truncated) {
        snprintf(j->why, j->why_size,
                 "truncated PNG (the file ends after %zu bytes)", j->read);
    } else {
        snprintf(j->why, j->why_size, "corrupt PNG: %s", msg);
    }
    png_longjmp(png, 1); /* to png_run's setjmp, without libpng's print */
}

static void png_quiet(png_structp png, png_const_charp msg)
{
    (void)png; /* warnings (benign problems) do not stop the image */
    (void)msg;
}

static void png_read_file(png_structp png, png_bytep data, size_t n)
{
    PngJob *j = png_get_error_ptr(png);
    size_t got = fread(data, 1, n, (FILE *)png_get_io_ptr(png));
    j->read += got;
    if (got != n) {
        j->truncated = 1;
        png_error(png, "truncated");
    }
}

/* Decodes into j (keep: all rows, else one row at a time). The caller
** frees what j holds. */
static int png_run(PngJob *j, FILE *f, int keep)
{
    if (setjmp(png_jmpbuf(j->png))) {
        return MEDIA_BAD;
    }
    png_set_read_fn(j->png, f, png_read_file);
    png_read_info(j->png, j->info);
    png_uint_32 w = png_get_image_width(j->png, j->info);
    png_uint_32 h = png_get_image_height(j->png, j->info);
    if (too_large(w, h, j->why, j->why_size)) {
        return MEDIA_BAD;
    }
    png_set_expand(j->png);
    png_set_strip_16(j->png);
    png_set_gray_to_rgb(j->png);
    png_set_filler(j->png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(j->png);
    png_read_update_info(j->png, j->info);
    size_t stride = (size_t)w * 4;
    if (png_get_rowbytes(j->png, j->info) != stride) {
        snprintf(j->why, j->why_size, "PNG pixel layout not supported");
        return MEDIA_BAD;
    }
    if (keep) {
        j->pixels = sim_malloc(stride * h);
        j->rows = sim_malloc(h * sizeof *j->rows);
        if (!j->pixels || !j->rows) {
            snprintf(j->why, j->why_size, "out of memory");
            return MEDIA_NOMEM;
        }
        for (png_uint_32 y = 0; y < h; y++) {
            j->rows[y] = j->pixels + (size_t)y * stride;
        }
        png_read_image(j->png, j->rows);
    } else {
        j->row = sim_malloc(stride);
        if (!j->row) {
            snprintf(j->why, j->why_size, "out of memory");
            return MEDIA_NOMEM;
        }
        for (int p = 0; p < passes; p++) {
            for (png_uint_32 y = 0; y < h; y++) {
                png_read_row(j->png, j->row, NULL);
            }
        }
    }
    png_read_end(j->png, NULL); /* the rest of the file, to IEND */
    j->w = (int)w;
    j->h = (int)h;
    return 0;
}

static int png_decode(FILE *f, MediaImage *keep, int *w, int *h, char *why,
                      size_t why_size)
{
    PngJob j;
    memset(&j, 0, sizeof j);
    j.why = why;
    j.why_size = why_size;
    j.png =
        png_create_read_struct(PNG_LIBPNG_VER_STRING, &j, png_fail, png_quiet);
    j.info = j.png ? png_create_info_struct(j.png) : NULL;
    int rc = MEDIA_NOMEM;
    if (!j.info) {
        snprintf(why, why_size, "out of memory");
    } else {
        rc = png_run(&j, f, keep != NULL);
    }
    png_destroy_read_struct(j.png ? &j.png : NULL, j.info ? &j.info : NULL,
                            NULL);
    sim_free(j.rows);
    sim_free(j.row);
    if (rc == 0) {
        *w = j.w;
        *h = j.h;
        if (keep) {
            keep->rgba = j.pixels;
            keep->w = j.w;
            keep->h = j.h;
        }
    } else {
        sim_free(j.pixels);
    }
    return rc;
}

/* ----------------------------------------------------------------- JPEG */

typedef struct JpegJob {
    struct jpeg_error_mgr mgr; /* first: libjpeg's err points here */
    jmp_buf jb;
    char *why;
    size_t why_size;
    struct jpeg_decompress_struct cinfo;
    unsigned char *pixels;
    unsigned char *row;
    int w, h;
} JpegJob;

static void jpeg_fail(j_common_ptr c)
{
    JpegJob *j = (JpegJob *)(void *)c->err;
    char msg[JMSG_LENGTH_MAX];
    c->err->format_message(c, msg);
    snprintf(j->why, j->why_size, "corrupt JPEG: %s", msg);
    longjmp(j->jb, 1); /* longjmp-ok: libjpeg's error_exit must not return */
}

/* Warnings are corrupt data that libjpeg would paper over (grey blocks):
** an error here, so that what is checked is what is shown. */
static void jpeg_message(j_common_ptr c, int level)
{
    if (level < 0) {
        jpeg_fail(c);
    }
}

static int jpeg_run(JpegJob *j, FILE *f, int keep)
{
    if (setjmp(j->jb)) {
        return MEDIA_BAD;
    }
    jpeg_create_decompress(&j->cinfo);
    jpeg_stdio_src(&j->cinfo, f);
    jpeg_read_header(&j->cinfo, TRUE);
    if (too_large(j->cinfo.image_width, j->cinfo.image_height, j->why,
                  j->why_size)) {
        return MEDIA_BAD;
    }
    j->cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&j->cinfo);
    if (j->cinfo.output_components != 4) {
        snprintf(j->why, j->why_size, "JPEG colour space not supported");
        return MEDIA_BAD;
    }
    size_t w = j->cinfo.output_width, h = j->cinfo.output_height;
    size_t stride = w * 4;
    if (keep) {
        j->pixels = sim_malloc(stride * h);
    } else {
        j->row = sim_malloc(stride);
    }
    if (keep ? !j->pixels : !j->row) {
        snprintf(j->why, j->why_size, "out of memory");
        return MEDIA_NOMEM;
    }
    while (j->cinfo.output_scanline < h) {
        JSAMPROW r =
            keep ? j->pixels + j->cinfo.output_scanline * stride : j->row;
        jpeg_read_scanlines(&j->cinfo, &r, 1);
    }
    jpeg_finish_decompress(&j->cinfo);
    j->w = (int)w;
    j->h = (int)h;
    return 0;
}

static int jpeg_decode(FILE *f, MediaImage *keep, int *w, int *h, char *why,
                       size_t why_size)
{
    JpegJob *j = sim_calloc(1, sizeof *j);
    if (!j) {
        snprintf(why, why_size, "out of memory");
        return MEDIA_NOMEM;
    }
    j->why = why;
    j->why_size = why_size;
    j->cinfo.err = jpeg_std_error(&j->mgr);
    j->mgr.error_exit = jpeg_fail;
    j->mgr.emit_message = jpeg_message;
    int rc = jpeg_run(j, f, keep != NULL);
    jpeg_destroy_decompress(&j->cinfo);
    sim_free(j->row);
    if (rc == 0) {
        *w = j->w;
        *h = j->h;
        if (keep) {
            keep->rgba = j->pixels;
            keep->w = j->w;
            keep->h = j->h;
        }
    } else {
        sim_free(j->pixels);
    }
    sim_free(j);
    return rc;
}

/* --------------------------------------------------------------- images */

/* Decodes the file abs; keep (may be NULL) receives the pixels. */
static int image_decode(const char *abs, MediaImage *keep, int *w, int *h,
                        int *is_png, char *why, size_t why_size)
{
    if (keep) {
        memset(keep, 0, sizeof *keep);
    }
    FILE *f = fopen(abs, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return MEDIA_NOFILE;
    }
    unsigned char sig[8];
    size_t got = fread(sig, 1, sizeof sig, f);
    int rc = MEDIA_BAD;
    static const unsigned char png_sig[8] = {0x89, 'P',  'N',  'G',
                                             '\r', '\n', 0x1A, '\n'};
    int png = got == 8 && memcmp(sig, png_sig, 8) == 0;
    int jpeg = got >= 3 && sig[0] == 0xFF && sig[1] == 0xD8 && sig[2] == 0xFF;
    if (is_png) {
        *is_png = png;
    }
    if ((png || jpeg) && fseek(f, 0, SEEK_SET) != 0) {
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
    } else if (png) {
        rc = png_decode(f, keep, w, h, why, why_size);
    } else if (jpeg) {
        rc = jpeg_decode(f, keep, w, h, why, why_size);
    } else if (got == 0) {
        snprintf(why, why_size, "empty file (not a PNG or JPEG image)");
    } else {
        snprintf(why, why_size, "not a PNG or JPEG file (bad signature)");
    }
    fclose(f);
    return rc;
}

int media_probe_image(const char *abs, int *w, int *h, int *is_png, char *why,
                      size_t why_size)
{
    int rc = image_decode(abs, NULL, w, h, is_png, why, why_size);
    return rc == MEDIA_NOFILE ? -2 : rc != 0 ? -1 : 0;
}

static int image_error(int rc, const char *path, const char *why, SimError *err)
{
    return sim_fail(err,
                    rc == MEDIA_NOFILE  ? SIM_ERR_IO
                    : rc == MEDIA_NOMEM ? SIM_ERR_NOMEM
                                        : SIM_ERR_PARSE,
                    "%s: %s", path, why);
}

int media_image_size(const char *path, int *w, int *h, SimError *err)
{
    char why[256];
    int rc = image_decode(path, NULL, w, h, NULL, why, sizeof why);
    return rc != 0 ? image_error(rc, path, why, err) : SIM_OK;
}

int media_image_load(const char *path, MediaImage *out, SimError *err)
{
    char why[256];
    int w, h;
    int rc = image_decode(path, out, &w, &h, NULL, why, sizeof why);
    return rc != 0 ? image_error(rc, path, why, err) : SIM_OK;
}

void media_image_free(MediaImage *img)
{
    if (img) {
        sim_free(img->rgba);
        memset(img, 0, sizeof *img);
    }
}

/* ------------------------------------------------------------------ .npy */

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
    if (dims[0] <= 0 || dims[1] <= 0 || dims[0] > MEDIA_MAX_SIDE ||
        dims[1] > MEDIA_MAX_SIDE) {
        snprintf(why, why_size,
                 ".npy shape (%ld, %ld) is empty or larger than %d per side",
                 dims[0], dims[1], MEDIA_MAX_SIDE);
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

/* Reads the header, then checks that the file holds exactly rows * cols
** floats after it. */
static int npy_check(FILE *f, int *rows, int *cols, long *offset, char *why,
                     size_t why_size)
{
    int rc = npy_header(f, rows, cols, offset, why, why_size);
    if (rc == 0) {
        long need = *offset + (long)*rows * (long)*cols * 4;
        long have = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
        if (have < need) {
            snprintf(why, why_size,
                     "truncated .npy data (%d x %d floats need %ld bytes, "
                     "the file has %ld)",
                     *rows, *cols, need, have);
            rc = -1;
        } else if (have > need) {
            snprintf(why, why_size,
                     ".npy file has %ld bytes after its %d x %d floats "
                     "(shape and data size disagree)",
                     have - need, *rows, *cols);
            rc = -1;
        }
    }
    return rc;
}

/* Reads the rows * cols values at offset; every one must be finite. out
** (may be NULL) receives them. */
static int npy_values(FILE *f, long offset, int rows, int cols, float *out,
                      char *why, size_t why_size)
{
    size_t n = (size_t)rows * (size_t)cols;
    if (fseek(f, offset, SEEK_SET) != 0) {
        snprintf(why, why_size, "cannot read: %s", strerror(errno));
        return -1;
    }
    unsigned char buf[4096];
    size_t i = 0;
    while (i < n) {
        size_t want = n - i < sizeof buf / 4 ? n - i : sizeof buf / 4;
        if (fread(buf, 4, want, f) != want) {
            snprintf(why, why_size, "truncated .npy data");
            return -1;
        }
        for (size_t k = 0; k < want; k++, i++) {
            const unsigned char *b = buf + 4 * k;
            uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 |
                         (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            float v;
            memcpy(&v, &u, 4);
            if (!isfinite(v)) {
                snprintf(why, why_size,
                         ".npy value at row %zu, column %zu is %s "
                         "(a heatmap needs finite values)",
                         i / (size_t)cols, i % (size_t)cols,
                         isnan(v) ? "NaN" : "infinite");
                return -1;
            }
            if (out) {
                out[i] = v;
            }
        }
    }
    return 0;
}

int media_probe_npy(const char *abs, int *rows, int *cols, char *why,
                    size_t why_size)
{
    FILE *f = fopen(abs, "rb");
    if (!f) {
        snprintf(why, why_size, "cannot open: %s", strerror(errno));
        return -1;
    }
    long offset = 0;
    int rc = npy_check(f, rows, cols, &offset, why, why_size);
    if (rc == 0) {
        rc = npy_values(f, offset, *rows, *cols, NULL, why, why_size);
    }
    fclose(f);
    return rc;
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
    char why[256];
    rc = npy_values(f, offset, *rows, *cols, data, why, sizeof why);
    fclose(f);
    if (rc != 0) {
        sim_free(data);
        return sim_fail(err, SIM_ERR_PARSE, "%s: %s", path, why);
    }
    *out = data;
    return SIM_OK;
}

/*
** simlab-analyze --csv with --encoding of Excel's code pages outside
** Western Europe (windows-1256, windows-1251, gbk, shift_jis, big5,
** euc-kr): the same rows as from the UTF-8 copy; bytes that do not fit the
** encoding (also UTF-8, the default) are errors naming the file, the line
** and the byte, and the delimiter when the header splits on another one.
** Fixtures: tests/data/encodings/make_encodings.py.
*/
#include "tests/harness.h"

#include <jansson.h>

#include "analysis/dataset.h"

static void data_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/encodings/%s", SIMLAB_TEST_DATA, name);
}

static int load(const char *file, char delim, const char *enc, Dataset **ds,
                SimError *err)
{
    char path[1024];
    data_path(path, sizeof path, file);
    DatasetCsvDialect d;
    memset(&d, 0, sizeof d);
    d.delimiter = delim;
    CHECK_INT(dataset_parse_encoding(enc, &d.encoding), 0);
    dataset_new(ds, err);
    return dataset_load_csv_dialect(*ds, path, &d, err);
}

/* The rows of ds as one comparable string. */
static void rows_text(const Dataset *ds, char *out, size_t n)
{
    size_t k = 0;
    out[0] = '\0';
    for (size_t i = 0; i < ds->n_rows && k < n; i++) {
        const DatasetResponse *r = &ds->rows[i];
        k += (size_t)snprintf(
            out + k, n - k, "%s|%s|%s|%s|%d\n",
            dataset_str(ds, ds->participants[r->participant].name),
            dataset_str(ds, r->condition), dataset_phase_name((int)r->phase),
            dataset_str(ds, (int)r->item), (int)r->correct);
    }
}

static void test_code_pages(const json_t *want)
{
    const char *name;
    json_t *f;
    int n = 0;
    json_object_foreach(json_object_get(want, "responses"), name, f)
    {
        const char *file = json_string_value(json_object_get(f, "file"));
        const char *utf8 = json_string_value(json_object_get(f, "utf8"));
        char delim = json_string_value(json_object_get(f, "delimiter"))[0];
        int rows = (int)json_integer_value(json_object_get(f, "rows"));
        SimError err;
        Dataset *a, *b;
        CHECK_INT(load(utf8, ',', "utf-8", &a, &err), SIM_OK);
        int rc = load(file, delim, name, &b, &err);
        CHECK_INT(rc, SIM_OK);
        if (rc != SIM_OK) {
            fprintf(stderr, "%s: %s\n", name, err.msg);
        }
        CHECK_INT((int)a->n_rows, rows);
        CHECK_INT((int)b->n_rows, rows);
        static char x[1 << 14], y[1 << 14];
        rows_text(a, x, sizeof x);
        rows_text(b, y, sizeof y);
        CHECK_STR(y, x);
        /* read as UTF-8 (the default) with ',': refused, with the advice
        ** (a ';' file: both options in one message) */
        dataset_free(b);
        CHECK(load(file, ',', "utf-8", &b, &err) == SIM_ERR_PARSE);
        if (delim == ';') {
            CHECK(strstr(err.msg, ":1: the header is one field that splits "
                                  "on ';': add --delimiter ';', and "
                                  "--encoding with the file's encoding (line "
                                  "2: invalid UTF-8 at byte") != NULL);
        } else {
            CHECK(strstr(err.msg, ":2: invalid UTF-8 at byte") &&
                  strstr(err.msg, "save the file as \"CSV UTF-8\", or give "
                                  "its encoding with --encoding (Excel's"));
        }
        /* with its delimiter: the encoding only */
        dataset_free(b);
        CHECK(load(file, delim, "utf-8", &b, &err) == SIM_ERR_PARSE);
        CHECK(strstr(err.msg, ":2: invalid UTF-8 at byte") &&
              !strstr(err.msg, "--delimiter"));
        dataset_free(a);
        dataset_free(b);
        n++;
    }
    CHECK_INT(n, 6);
}

static void test_located(const json_t *want)
{
    size_t i;
    json_t *b;
    int n = 0;
    json_array_foreach(json_object_get(want, "bad"), i, b)
    {
        const char *file = json_string_value(json_object_get(b, "file"));
        const char *enc = json_string_value(json_object_get(b, "encoding"));
        const char *msg = json_string_value(json_object_get(b, "message"));
        char path[1024], expect[1200];
        data_path(path, sizeof path, "");
        snprintf(expect, sizeof expect, "%s%s", path, msg);
        SimError err;
        Dataset *ds;
        CHECK_INT(load(file, ',', enc, &ds, &err), SIM_ERR_PARSE);
        if (!strstr(err.msg, expect)) {
            fprintf(stderr, "expected\n  %s\nin\n  %s\n", expect, err.msg);
        }
        CHECK(strstr(err.msg, expect) != NULL);
        /* the rows before the bad bytes (one a line) were read */
        int line = (int)json_integer_value(json_object_get(b, "line"));
        CHECK_INT((int)ds->n_rows, line - 2);
        dataset_free(ds);
        n++;
    }
    CHECK_INT(n, 4);
}

int main(void)
{
    char path[1024];
    data_path(path, sizeof path, "expected.json");
    json_t *want = json_load_file(path, 0, NULL);
    CHECK(want != NULL);
    if (want) {
        test_code_pages(want);
        test_located(want);
    }
    json_decref(want);
    return TEST_REPORT();
}

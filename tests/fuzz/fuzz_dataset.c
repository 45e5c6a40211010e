/*
** Fuzzes simlab-analyze's input readers (analysis/dataset.h): the input is
** written to a file and read with dataset_load_csv (FUZZ_DB undefined) or
** as a SQLite database with dataset_load_db (FUZZ_DB defined). A CSV input
** is read again in an encoding and with a delimiter its length picks
** (gbk, shift_jis, utf-16, windows-1256, big5; ',', ';', tab). Rows read
** must satisfy the DatasetResponse contract.
*/
#include "analysis/dataset.h"

#include "tests/fuzz/fuzz_util.h"

static char path[600];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
#ifdef FUZZ_DB
    snprintf(path, sizeof path, "%s/input.db", fuzz_scratch());
#else
    snprintf(path, sizeof path, "%s/input.csv", fuzz_scratch());
#endif
    return 0;
}

static void check_rows(const Dataset *ds)
{
    for (size_t i = 0; i < ds->n_rows; i++) {
        const DatasetResponse *r = &ds->rows[i];
        if (r->participant < 0 || r->participant >= ds->n_participants ||
            r->phase >= PHASE_COUNT || r->correct < -1 || r->rating > 11 ||
            (int)r->context >= ds->n_contexts || dataset_session(ds, r) < 0 ||
            !dataset_str(ds, r->condition) || !dataset_str(ds, r->item)) {
            fprintf(stderr, "row %zu breaks the DatasetResponse contract\n", i);
            abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(path, data, size);
#ifdef FUZZ_DB
    /* a WAL-mode file would leave these behind */
    char side[700];
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
#endif
    Dataset *ds = NULL;
    SimError err;
    sim_error_clear(&err);
    if (dataset_new(&ds, &err) != SIM_OK) {
        return 0;
    }
#ifdef FUZZ_DB
    int rc = dataset_load_db(ds, path, &err);
#else
    int rc = dataset_load_csv(ds, path, &err);
#endif
    if (rc != SIM_OK && err.msg[0] == '\0') {
        abort();
    }
    check_rows(ds);
    dataset_free(ds);
#ifndef FUZZ_DB
    static const char *const encs[] = {"gbk", "shift_jis", "utf-16",
                                       "windows-1256", "big5"};
    DatasetCsvDialect d;
    memset(&d, 0, sizeof d);
    d.delimiter = ",;\t"[size % 3];
    if (sim_encoding_find(encs[size % 5], &d.encoding) != 0 ||
        dataset_new(&ds, &err) != SIM_OK) {
        return 0;
    }
    sim_error_clear(&err);
    if (dataset_load_csv_dialect(ds, path, &d, &err) != SIM_OK &&
        err.msg[0] == '\0') {
        abort();
    }
    check_rows(ds);
    dataset_free(ds);
#endif
    return 0;
}

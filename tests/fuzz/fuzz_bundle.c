/*
** Fuzzes study loading through one file of a bundle: the input replaces
** FUZZ_FILE in a copy of the fixture bundle(s) FUZZ_FIXTURES, then
** study_load() reads and checks the whole bundle. Built three times:
** study.json (fuzz_study_json), a CSV item bank (fuzz_items_csv) and a
** JSON Lines item bank (fuzz_items_jsonl). Any crash, leak or sanitizer
** report is a bug; errors in the report are the expected outcome.
*/
#include "stimuli/study.h"

#include "tests/fuzz/fuzz_util.h"

#ifndef FUZZ_FILE
#error "FUZZ_FILE (the bundle file the input replaces) is required"
#endif
#ifndef FUZZ_FIXTURES
#error "FUZZ_FIXTURES (space-separated fixture bundles) is required"
#endif

static char bundle[600];
static char target[700];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(bundle, sizeof bundle, "%s/bundle", fuzz_scratch());
    if (mkdir(bundle, 0700) != 0) {
        perror(bundle);
        abort();
    }
    char fixtures[] = FUZZ_FIXTURES;
    for (char *tok = strtok(fixtures, " "); tok; tok = strtok(NULL, " ")) {
        fuzz_copy_fixture(tok, bundle);
    }
    snprintf(target, sizeof target, "%s/%s", bundle, FUZZ_FILE);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write(target, data, size);
    Study *study = NULL;
    StudyReport report;
    study_report_init(&report);
    SimError err;
    sim_error_clear(&err);
    int rc = study_load(bundle, &study, &report, &err);
    if ((rc == SIM_OK) != (study != NULL)) {
        fprintf(stderr, "study_load returned %d with study %p\n", rc,
                (void *)study);
        abort();
    }
    /* every error must print as a located diagnostic */
    FILE *devnull = fopen("/dev/null", "w");
    for (size_t i = 0; devnull && i < report.n_errors; i++) {
        study_diag_print(devnull, "", &report.errors[i]);
    }
    for (size_t i = 0; devnull && i < report.n_warnings; i++) {
        study_diag_print(devnull, "", &report.warnings[i]);
    }
    if (devnull) {
        fclose(devnull);
    }
    if (rc != SIM_OK && report.n_errors == 0 && rc != SIM_ERR_NOMEM) {
        fprintf(stderr, "study_load failed without a located error: %s\n",
                err.msg);
        abort();
    }
    study_free(study);
    study_report_free(&report);
    return 0;
}

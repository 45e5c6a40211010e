/*
** Loading the engine's fixture studies (tests/data/experiment/NAME) in
** tests. Include after harness.h; needs SIMLAB_TEST_DATA.
*/
#ifndef SIMLAB_TESTS_TEST_STUDY_H
#define SIMLAB_TESTS_TEST_STUDY_H

#include <stdio.h>

#include "stimuli/study.h"

/* Loads tests/data/experiment/name; NULL (after printing why) when it does
** not load. Release with study_free(). */
static inline Study *test_study_load(const char *name)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/experiment/%s", SIMLAB_TEST_DATA, name);
    Study *study = NULL;
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    if (study_load(dir, &study, &rep, &err) != SIM_OK) {
        fprintf(stderr, "%s: %s\n", dir, err.msg);
    }
    study_report_free(&rep);
    return study;
}

#endif

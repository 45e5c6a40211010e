/*
** Class sets of ImageNet's size: the time to load and check (study_load) a
** study of 1,000 classes read from classes.csv whose N items carry four
** options each, as a ratio to the same N items in a study of two classes
** measured in the same run (medians of R loads each, alternated).
** Usage: bench_classes [WORK_DIR] [N] [R]
*/
#define _POSIX_C_SOURCE 200809L

#include "stimuli/study.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A bundle in dir: many (1,000 classes from a file, four options per
** item) or two classes; n text items. */
static int write_bundle(const char *dir, int many, int n)
{
    char p[1024];
    mkdir(dir, 0755);
    snprintf(p, sizeof p, "%s/study.json", dir);
    FILE *f = fopen(p, "w");
    if (!f) {
        return -1;
    }
    fprintf(f,
            "{\"simlab_study\": 1, \"id\": \"bench\", \"title\": \"B\", "
            "\"classes\": %s, \"conditions\": [{\"id\": \"none\"}], "
            "\"blocks\": [{\"kind\": \"predict\", \"pool\": \"test\"}], "
            "\"items\": [{\"file\": \"items.csv\", \"modality\": \"text\", "
            "\"pool\": \"test\", \"columns\": {\"id\": \"id\", \"input\": "
            "\"text\", \"label\": \"label\", \"prediction\": \"pred\"%s}}]}",
            many ? "{\"file\": \"classes.csv\"}" : "[\"c1\", \"c2\"]",
            many ? ", \"options\": \"top4\"" : "");
    fclose(f);
    if (many) {
        snprintf(p, sizeof p, "%s/classes.csv", dir);
        f = fopen(p, "w");
        if (!f) {
            return -1;
        }
        fprintf(f, "id,label\n");
        for (int k = 1; k <= 1000; k++) {
            fprintf(f, "n%08d,Class number %d\n", k, k);
        }
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/items.csv", dir);
    f = fopen(p, "w");
    if (!f) {
        return -1;
    }
    fprintf(f, "id,text,label,pred%s\n", many ? ",top4" : "");
    for (int i = 0; i < n; i++) {
        if (many) {
            int c = 1 + (i * 37) % 997;
            fprintf(f,
                    "i%d,the text of item %d,n%08d,n%08d,"
                    "n%08d|n%08d|n%08d|n%08d\n",
                    i, i, c, c, c + 1, c, c + 2, c + 3);
        } else {
            fprintf(f, "i%d,the text of item %d,c%d,c%d\n", i, i, 1 + i % 2,
                    1 + (i / 2) % 2);
        }
    }
    fclose(f);
    return 0;
}

static double load_ms(const char *dir)
{
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    Study *st = NULL;
    double t0 = now_ms();
    int rc = study_load(dir, &st, &rep, &err);
    double t = now_ms() - t0;
    if (rc != SIM_OK) {
        fprintf(stderr, "%s: %s\n", dir, err.msg);
        for (size_t i = 0; i < rep.n_errors && i < 5; i++) {
            study_diag_print(stderr, "  ", &rep.errors[i]);
        }
        t = -1;
    }
    study_free(st);
    study_report_free(&rep);
    return t;
}

int main(int argc, char **argv)
{
    const char *work = argc > 1 ? argv[1] : ".";
    int n = argc > 2 ? atoi(argv[2]) : 5000;
    int r = argc > 3 ? atoi(argv[3]) : 9;
    if (n < 1 || r < 1 || r > 100) {
        fprintf(stderr, "usage: bench_classes [WORK_DIR] [N] [R]\n");
        return 2;
    }
    char many[900], two[900];
    snprintf(many, sizeof many, "%s/bench-classes-1000", work);
    snprintf(two, sizeof two, "%s/bench-classes-2", work);
    if (write_bundle(many, 1, n) != 0 || write_bundle(two, 0, n) != 0) {
        fprintf(stderr, "cannot write the bundles in %s\n", work);
        return 1;
    }
    double tm[100], tt[100];
    for (int i = 0; i < r; i++) {
        tt[i] = load_ms(two);
        tm[i] = load_ms(many);
        if (tt[i] < 0 || tm[i] < 0) {
            return 1;
        }
    }
    qsort(tm, (size_t)r, sizeof *tm, cmp_double);
    qsort(tt, (size_t)r, sizeof *tt, cmp_double);
    printf("study_load of %d items, median of %d:\n", n, r);
    printf("  2 classes                      %8.1f ms\n", tt[r / 2]);
    printf("  1000 classes, 4 options each   %8.1f ms\n", tm[r / 2]);
    printf("  ratio                          %8.2f\n", tm[r / 2] / tt[r / 2]);
    return 0;
}

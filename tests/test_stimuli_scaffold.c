/*
** `simlab new`: every preset x modality gives a bundle that loads without
** errors or warnings, keeps the preset's balance, and runs with simulated
** participants; so does every worked explanation (--explanation), whose
** on-request starter records reveals; a folder that is not empty, an
** unknown preset, modality or explanation, or an image explanation of
** another modality is refused before anything is written. The starters of
** accept-reject, hive-agreement and hive-distinction (image and text) in
** every shipped UI language: clean, in that language, simulated.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "experiment/simulate.h"
#include "stimuli/scaffold.h"
#include "stimuli/study.h"
#include "stimuli/uistrings.h"
#include "test_util.h"
#include "test_stimuli_fs.h"

static const char *const presets[] = {"hase-forward", "hase-counterfactual",
                                      "meta-predictor", "accept-reject",
                                      "hive-agreement"};
static const char *const modalities[] = {"image", "text", "tabular"};

static char tmp[256];

static void print_report(const char *dir, const StudyReport *rep)
{
    for (size_t i = 0; i < rep->n_errors; i++) {
        study_diag_print(stderr, dir, &rep->errors[i]);
    }
    for (size_t i = 0; i < rep->n_warnings; i++) {
        study_diag_print(stderr, dir, &rep->warnings[i]);
    }
}

/* Loads dir: no errors, no warnings (the balance rules hold), every pool
** block full; returns the study's condition count (0 on failure). */
static size_t check_clean(const char *dir, const char *preset)
{
    Study *st = NULL;
    StudyReport rep;
    study_report_init(&rep);
    SimError err;
    int rc = study_load(dir, &st, &rep, &err);
    CHECK_INT(rc, SIM_OK);
    CHECK_INT(rep.n_errors, 0);
    CHECK_INT(rep.n_warnings, 0);
    if (rc != SIM_OK || rep.n_warnings) {
        print_report(dir, &rep);
    }
    size_t n = 0;
    if (st) {
        CHECK_STR(st->preset, preset);
        CHECK(st->n_items >= 8);
        n = st->n_conditions;
    }
    study_free(st);
    study_report_free(&rep);
    return n;
}

/* Runs n simulated participants of the bundle in dir into db (seed). */
static void simulate(const char *dir, const char *db, int n, int seed)
{
    SimulateOptions o;
    memset(&o, 0, sizeof o);
    o.bundle_dir = dir;
    o.db_path = db;
    o.participants = n;
    o.policy = POLICY_MIXED;
    o.seed = (uint64_t)seed;
    o.station = "test";
    o.durability = DURABILITY_FAST;
    o.participant_sd = -1;
    o.item_sd = -1;
    o.wall_ms = 1700000000000LL;
    SimError err;
    int rc = simulate_run(&o, NULL, &err);
    CHECK_INT(rc, SIM_OK);
    if (rc != SIM_OK) {
        fprintf(stderr, "simulate %s: %s\n", dir, err.msg);
    }
}

static void test_all(void)
{
    for (size_t p = 0; p < sizeof presets / sizeof *presets; p++) {
        for (size_t m = 0; m < 3; m++) {
            char dir[512], db[512];
            snprintf(dir, sizeof dir, "%s/%s-%s", tmp, presets[p],
                     modalities[m]);
            SimError err;
            int rc = scaffold_write(dir, presets[p], modalities[m], NULL, &err);
            CHECK_INT(rc, SIM_OK);
            if (rc != SIM_OK) {
                fprintf(stderr, "%s: %s\n", dir, err.msg);
                continue;
            }
            char readme[600];
            snprintf(readme, sizeof readme, "%s/README.md", dir);
            CHECK(test_path_exists(readme));
            CHECK_INT(check_clean(dir, presets[p]), 2);
            snprintf(db, sizeof db, "%s/%s-%s.db", tmp, presets[p],
                     modalities[m]);
            simulate(dir, db, 4, 3);
        }
    }
}

/* Every worked example as a starter: clean, and simulated; on-request
** records its reveals. */
static void test_methods(void)
{
    static const struct {
        const char *preset, *modality, *method;
    } cases[] = {{"hase-forward", "image", "concepts"},
                 {"meta-predictor", "image", "prototype"},
                 {"hase-forward", "image", "counterfactual"},
                 {"hase-counterfactual", "image", "rationale"},
                 {"hase-forward", "text", "rationale"},
                 {"meta-predictor", "tabular", "on-request"},
                 {"hase-forward", "image", "on-request"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dir[512], db[600];
        snprintf(dir, sizeof dir, "%s/x-%s-%s-%s", tmp, cases[i].preset,
                 cases[i].modality, cases[i].method);
        SimError err;
        int rc = scaffold_write(dir, cases[i].preset, cases[i].modality,
                                cases[i].method, &err);
        CHECK_INT(rc, SIM_OK);
        if (rc != SIM_OK) {
            fprintf(stderr, "%s: %s\n", dir, err.msg);
            continue;
        }
        CHECK_INT(check_clean(dir, cases[i].preset), 2);
        snprintf(db, sizeof db, "%s.db", dir);
        simulate(dir, db, 4, 5);
        if (strcmp(cases[i].method, "on-request") == 0) {
            sqlite3 *d = NULL;
            sqlite3_stmt *q = NULL;
            int reveals = 0;
            if (sqlite3_open(db, &d) == SQLITE_OK &&
                sqlite3_prepare_v2(d,
                                   "SELECT count(*) FROM interaction WHERE "
                                   "event = 'reveal'",
                                   -1, &q, NULL) == SQLITE_OK &&
                sqlite3_step(q) == SQLITE_ROW) {
                reveals = sqlite3_column_int(q, 0);
            }
            sqlite3_finalize(q);
            sqlite3_close(d);
            CHECK(reveals > 0);
        }
    }
}

static void test_refusals(void)
{
    char dir[512], file[600];
    SimError err;
    /* a folder with something in it is left alone */
    snprintf(dir, sizeof dir, "%s/busy", tmp);
    CHECK_INT(mkdir(dir, 0755), 0);
    snprintf(file, sizeof file, "%s/mine.txt", dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("keep", f);
        fclose(f);
    }
    CHECK_INT(scaffold_write(dir, "hase-forward", "text", NULL, &err),
              SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "is not empty") != NULL);
    snprintf(file, sizeof file, "%s/study.json", dir);
    CHECK(!test_path_exists(file));
    /* an empty folder is used */
    snprintf(dir, sizeof dir, "%s/empty", tmp);
    CHECK_INT(mkdir(dir, 0755), 0);
    CHECK_INT(scaffold_write(dir, "hase-forward", "text", NULL, &err), SIM_OK);
    /* a file is not a folder */
    snprintf(file, sizeof file, "%s/empty/study.json", tmp);
    CHECK_INT(scaffold_write(file, "hase-forward", "text", NULL, &err),
              SIM_ERR_USAGE);
    /* unknown names, with the list */
    snprintf(dir, sizeof dir, "%s/unknown", tmp);
    CHECK_INT(scaffold_write(dir, "hase", "text", NULL, &err), SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "unknown preset 'hase' (hase-forward,") != NULL);
    CHECK_INT(scaffold_write(dir, "meta-predictor", "audio", NULL, &err),
              SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "unknown modality 'audio'") != NULL);
    CHECK_INT(scaffold_write(dir, "hase-forward", "image", "shap", &err),
              SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "unknown explanation 'shap' (concepts,") != NULL);
    /* an image method needs pictures */
    CHECK_INT(scaffold_write(dir, "hase-forward", "text", "concepts", &err),
              SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "use it with --modality image") != NULL);
    CHECK(!test_path_exists(dir));
}

/* The three presets' starters in every shipped language: no error or
** warning, the study's language and its pages in it (no English left in
** them but the keys), simulated participants finish. */
static void test_languages(void)
{
    static const struct {
        const char *preset, *modality;
        size_t conditions;
    } cases[] = {{"accept-reject", "text", 2},
                 {"hive-agreement", "image", 2},
                 {"hive-distinction", "image", 1},
                 {"hive-distinction", "text", 1}};
    for (size_t l = 0; l < ui_language_count(); l++) {
        const char *tag = ui_language_tag(l);
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            char dir[512], db[600], path[700];
            snprintf(dir, sizeof dir, "%s/%s-%s-%s", tmp, cases[i].preset,
                     cases[i].modality, tag);
            SimError err;
            int rc = scaffold_write_language(
                dir, cases[i].preset, cases[i].modality, NULL, tag, &err);
            CHECK_INT(rc, SIM_OK);
            if (rc != SIM_OK) {
                fprintf(stderr, "%s: %s\n", dir, err.msg);
                continue;
            }
            CHECK_INT(check_clean(dir, cases[i].preset), cases[i].conditions);
            Study *st = NULL;
            StudyReport rep;
            study_report_init(&rep);
            study_load(dir, &st, &rep, &err);
            study_report_free(&rep);
            CHECK(st && st->ui_strings);
            CHECK_STR(st ? ui_strings_language(st->ui_strings) : "", tag);
            study_free(st);
            /* the pages are translated: no English sentence of the
            ** English starter in another language */
            static const char *const pages[] = {"consent", "instructions",
                                                "debrief"};
            for (size_t k = 0; k < 3; k++) {
                snprintf(path, sizeof path, "%s/pages/%s.md", dir, pages[k]);
                size_t len = 0;
                char *text = fs_read(path, &len);
                CHECK(text != NULL);
                int english = text && (strstr(text, "Placeholder") ||
                                       strstr(text, " the model") ||
                                       strstr(text, "Thank you"));
                CHECK_INT(english, strcmp(tag, "en") == 0);
                free(text);
            }
            snprintf(db, sizeof db, "%s.db", dir);
            simulate(dir, db, 2, 5);
        }
    }
    /* the class labels are the language's: a German shape, a Japanese
    ** topic */
    char path[700];
    size_t len = 0;
    snprintf(path, sizeof path, "%s/hive-distinction-image-de/classes.csv",
             tmp);
    char *text = fs_read(path, &len);
    CHECK(text && strstr(text, "star,\"Stern\""));
    free(text);
    snprintf(path, sizeof path, "%s/hive-distinction-text-ja/classes.csv", tmp);
    text = fs_read(path, &len);
    CHECK(text && strstr(text, "music,\"\xe9\x9f\xb3\xe6\xa5\xbd\""));
    free(text);
    /* refusals: a language simlab does not ship (with the nearest), a
    ** preset whose starter is English only; nothing written */
    char dir[512];
    SimError err;
    snprintf(dir, sizeof dir, "%s/refused", tmp);
    CHECK_INT(scaffold_write_language(dir, "accept-reject", "text", NULL, "fra",
                                      &err),
              SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "'fra' is not a shipped language (did you mean "
                          "'fr'?") != NULL);
    CHECK_INT(
        scaffold_write_language(dir, "hase-forward", "text", NULL, "de", &err),
        SIM_ERR_USAGE);
    CHECK(strstr(err.msg, "English only") != NULL);
    CHECK_INT(scaffold_write_language(dir, "hive-distinction", "tabular", NULL,
                                      "de", &err),
              SIM_ERR_USAGE);
    CHECK(!test_path_exists(dir));
    /* a regional tag is its language */
    snprintf(dir, sizeof dir, "%s/regional", tmp);
    CHECK_INT(scaffold_write_language(dir, "hive-agreement", "text", NULL,
                                      "de-AT", &err),
              SIM_OK);
    snprintf(path, sizeof path, "%s/study.json", dir);
    text = fs_read(path, &len);
    CHECK(text && strstr(text, "\"language\": \"de\""));
    free(text);
}

int main(void)
{
    test_tmpdir(tmp, sizeof tmp, "scaffold");
    test_all();
    test_methods();
    test_refusals();
    test_languages();
    test_rmtree(tmp);
    return TEST_REPORT();
}

/*
** The kind tables against behaviour: every block kind, explanation kind and
** phase name round-trips; every error that lists kinds or phases lists all
** of them; an explicit block of every kind loads with the defaults the
** format documents (docs/study-format.md); fields are refused on the kinds
** that do not have them, with the documented messages.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_phase.h"
#include "stimuli/study.h"
#include "stimuli/bundle.h"

/* What docs/study-format.md says of each kind: default phase, whether it
** shows items, the default of show.label/prediction/explanation and of
** rating. One row per BlockKind, in enum order. */
static const struct {
    const char *name;
    SimPhase phase;
    int items;
    int label, prediction, explanation, rating;
} expected[] = {
    [BLOCK_CONSENT] = {"consent", SIM_PHASE_NONE, 0, 0, 0, 0, 0},
    [BLOCK_INSTRUCTIONS] = {"instructions", SIM_PHASE_NONE, 0, 0, 0, 0, 0},
    [BLOCK_QUIZ] = {"quiz", SIM_PHASE_QUIZ, 0, 0, 0, 0, 0},
    [BLOCK_PRACTICE] = {"practice", SIM_PHASE_PRACTICE, 1, 0, 0, 0, 0},
    [BLOCK_LEARN] = {"learn", SIM_PHASE_LEARN, 1, 1, 1, 1, 0},
    [BLOCK_PREDICT] = {"predict", SIM_PHASE_TEST, 1, 0, 0, 0, 0},
    [BLOCK_COUNTERFACTUAL] = {"counterfactual", SIM_PHASE_TEST, 1, 1, 1, 0, 0},
    [BLOCK_RATING] = {"rating", SIM_PHASE_LEARN, 1, 0, 1, 1, 1},
    [BLOCK_BREAK] = {"break", SIM_PHASE_NONE, 0, 0, 0, 0, 0},
    [BLOCK_DEBRIEF] = {"debrief", SIM_PHASE_NONE, 0, 0, 0, 0, 0},
    [BLOCK_QUESTIONNAIRE] = {"questionnaire", SIM_PHASE_NONE, 0, 0, 0, 0, 0},
    [BLOCK_VERIFY] = {"verify", SIM_PHASE_TEST, 1, 0, 1, 1, 0},
    [BLOCK_DECIDE] = {"decide", SIM_PHASE_TEST, 1, 0, 1, 1, 0},
};

_Static_assert(sizeof expected / sizeof *expected == BLOCK_KIND_COUNT,
               "a row for every block kind");

static const char *const expl_names[] = {
    "heatmap", "tokens",    "token_pairs", "span_pairs", "features",
    "rules",   "prototype", "path",        "text",       "composite",
    "image",   "gallery",   "markdown",    "bars",       "layout"};

_Static_assert(sizeof expl_names / sizeof *expl_names == EXPL_KIND_COUNT,
               "a name for every explanation kind");

static const char *const phase_names[] = {"practice", "learn", "pre", "post",
                                          "train",    "test",  "quiz"};

_Static_assert(sizeof phase_names / sizeof *phase_names == SIM_PHASE_COUNT,
               "a name for every phase");

static void test_names(void)
{
    for (int k = 0; k < BLOCK_KIND_COUNT; k++) {
        CHECK_STR(block_kind_name((BlockKind)k), expected[k].name);
        CHECK_INT(block_kind_from_name(expected[k].name), k);
        CHECK_INT(block_kind_shows_items((BlockKind)k), expected[k].items);
    }
    CHECK_INT(block_kind_from_name("Learn"), -1);
    CHECK_INT(block_kind_from_name(NULL), -1);
    CHECK_STR(block_kind_name((BlockKind)BLOCK_KIND_COUNT), "?");
    CHECK_INT(block_kind_shows_items((BlockKind)BLOCK_KIND_COUNT), 0);

    for (int k = 0; k < EXPL_KIND_COUNT; k++) {
        CHECK_STR(expl_kind_name((ExplKind)k), expl_names[k]);
        CHECK_INT(expl_kind_from_name(expl_names[k]), k);
    }
    CHECK_INT(expl_kind_from_name("json"), -1);
    CHECK_STR(expl_kind_name((ExplKind)EXPL_KIND_COUNT), "?");

    for (int p = 0; p < SIM_PHASE_COUNT; p++) {
        CHECK_STR(sim_phase_name((SimPhase)p), phase_names[p]);
        CHECK_INT(sim_phase_from_name(phase_names[p]), p);
    }
    CHECK(sim_phase_name(SIM_PHASE_NONE) == NULL);
    CHECK(sim_phase_name((SimPhase)SIM_PHASE_COUNT) == NULL);
    CHECK_INT(sim_phase_from_name("Pre"), SIM_PHASE_NONE);
    CHECK_INT(sim_phase_from_name(NULL), SIM_PHASE_NONE);

    char list[128];
    size_t len = sim_phase_list(list, sizeof list);
    CHECK_STR(list, "practice, learn, pre, post, train, test or quiz");
    CHECK_INT(len, strlen(list));
    char small[10];
    CHECK_INT(sim_phase_list(small, sizeof small), len);
    CHECK_STR(small, "practice,");
}

/* ------------------------------------------------------------- bundles */

static const char items_jsonl[] =
    "{\"id\": 1, \"pool\": \"p\", \"modality\": \"text\", \"input\": \"a "
    "fine film\", \"label\": \"a\", \"prediction\": \"a\", "
    "\"counterfactual\": {\"input\": \"a **dull** film\", \"prediction\": "
    "\"b\"}}\n"
    "{\"id\": 2, \"pool\": \"p\", \"modality\": \"text\", \"input\": \"a "
    "dull film\", \"label\": \"b\", \"prediction\": \"b\", "
    "\"counterfactual\": {\"input\": \"a **fine** film\", \"prediction\": "
    "\"a\"}}\n";

/* Writes a bundle whose design is the member text design ("\"blocks\":
** [...]" or "\"protocol\": {...}") and loads it partially. *out gets the
** `simlab check` text report (malloc'd) when out is not NULL. Returns the
** study (NULL when the bundle was unusable). */
static Study *load_design(const char *design, StudyReport *rep, char **out)
{
    char tmp[256];
    Study *st = NULL;
    study_report_init(rep);
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-kinds")) {
        CHECK(!"mkdtemp");
        return NULL;
    }
    char study[4096];
    snprintf(study, sizeof study,
             "{\"simlab_study\": 1, \"id\": \"kinds\", \"title\": \"t\",\n"
             " \"classes\": [\"a\", \"b\"],\n"
             " \"conditions\": [{\"id\": \"baseline\", \"method\": null}],\n"
             " \"pages\": {\"consent\": \"c.md\", \"instructions\": \"i.md\","
             " \"debrief\": \"d.md\"},\n"
             " \"quiz\": {\"questions\": [{\"text\": \"q\", \"options\": "
             "[\"x\", \"y\"], \"answer\": 0}]},\n"
             " %s,\n"
             " \"items\": [{\"file\": \"items.jsonl\"}]}\n",
             design);
    const char *names[] = {"study.json", "items.jsonl", "c.md", "i.md", "d.md"};
    const char *texts[] = {study, items_jsonl, "# Consent\n", "# Read\n",
                           "# Thanks\n"};
    int ok = 1;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *path = fs_join(tmp, names[i]);
        ok &= path && fs_write(path, texts[i], strlen(texts[i])) == 0;
        free(path);
    }
    CHECK(ok);
    SimError err;
    study_load_partial(tmp, &st, rep, &err);
    if (out) {
        fs_check(tmp, 0, out);
    }
    fs_remove_tree(tmp);
    return st;
}

static Study *load_blocks(const char *blocks, StudyReport *rep, char **out)
{
    char design[2048];
    snprintf(design, sizeof design, "\"blocks\": %s", blocks);
    return load_design(design, rep, out);
}

static int has_error(const StudyReport *rep, const char *field,
                     const char *message)
{
    for (size_t i = 0; i < rep->n_errors; i++) {
        if (strcmp(rep->errors[i].field, field) == 0 &&
            strstr(rep->errors[i].message, message)) {
            return 1;
        }
    }
    fprintf(stderr, "no error at '%s' with '%s'; errors:\n", field, message);
    for (size_t i = 0; i < rep->n_errors; i++) {
        fprintf(stderr, "  %s: %s\n", rep->errors[i].field,
                rep->errors[i].message);
    }
    return 0;
}

/* A block of every kind, with only the fields it needs, loads without
** errors and with the documented defaults. */
static void test_every_kind_loads(void)
{
    char blocks[2048] = "[";
    size_t len = 1;
    for (int k = 0; k < BLOCK_KIND_COUNT; k++) {
        int w = snprintf(
            blocks + len, sizeof blocks - len, "%s{\"kind\": \"%s\"%s}",
            k ? ", " : "", block_kind_name((BlockKind)k),
            block_kind_shows_items((BlockKind)k) ? ", \"pool\": \"p\""
            : k == BLOCK_QUESTIONNAIRE
                ? ", \"questions\": [{\"id\": \"q\", \"type\": \"text\", "
                  "\"text\": \"Why?\"}]"
                : "");
        len += (size_t)w;
    }
    snprintf(blocks + len, sizeof blocks - len, "]");
    StudyReport rep;
    Study *st = load_blocks(blocks, &rep, NULL);
    CHECK(st != NULL);
    CHECK_INT(rep.n_errors, 0);
    for (size_t i = 0; i < rep.n_errors; i++) {
        fprintf(stderr, "  %s: %s\n", rep.errors[i].field,
                rep.errors[i].message);
    }
    CHECK_INT(st ? st->n_blocks : 0, BLOCK_KIND_COUNT);
    for (size_t i = 0; st && i < st->n_blocks; i++) {
        const Block *b = &st->blocks[i];
        CHECK_INT(b->kind, i);
        CHECK_INT(b->phase_id, expected[i].phase);
        if (expected[i].phase == SIM_PHASE_NONE) {
            CHECK(b->phase == NULL);
        } else {
            CHECK_STR(b->phase, phase_names[expected[i].phase]);
        }
        CHECK_INT(b->show.label, expected[i].label);
        CHECK_INT(b->show.prediction, expected[i].prediction);
        CHECK_INT(b->show.explanation, expected[i].explanation);
        CHECK_INT(b->rating, expected[i].rating);
        CHECK_INT(b->pool != NULL, expected[i].items);
        char id[64];
        snprintf(id, sizeof id, "%s%zu", expected[i].name, i + 1);
        CHECK_STR(b->id, id);
    }
    /* the study's test type is the last of forward, counterfactual, verify
    ** and decide among the blocks */
    CHECK_STR(st ? st->test_type : NULL, "decide");
    study_free(st);
    study_report_free(&rep);
}

/* The errors that list kinds or phases list every one of them. */
static void test_lists_in_errors(void)
{
    StudyReport rep;
    char *out = NULL;
    Study *st = load_blocks("[{\"kind\": \"nope\"}, {\"kind\": \"predict\", "
                            "\"pool\": \"p\", \"phase\": \"later\"}]",
                            &rep, &out);
    CHECK(out && strstr(out, "field 'kind': unknown block kind 'nope' "
                             "(consent, instructions, quiz, practice, learn, "
                             "predict, counterfactual, rating, break, "
                             "debrief, questionnaire, verify, decide)"));
    for (int k = 0; k < BLOCK_KIND_COUNT; k++) {
        CHECK(has_error(&rep, "kind", block_kind_name((BlockKind)k)));
    }
    CHECK(out && strstr(out, "field 'phase': 'later' is not practice, "
                             "learn, pre, post, train, test or quiz"));
    for (int p = 0; p < SIM_PHASE_COUNT; p++) {
        CHECK(has_error(&rep, "phase", phase_names[p]));
    }
    /* an unknown phase name is kept for the report, and is no phase */
    const Block *b = st ? study_find_block(st, "predict2") : NULL;
    CHECK(b && b->phase_id == SIM_PHASE_NONE && b->phase &&
          strcmp(b->phase, "later") == 0);
    CHECK(out && strstr(out, "later"));
    free(out);
    study_free(st);
    study_report_free(&rep);

    st = load_design("\"protocol\": {\"preset\": \"nope\"}", &rep, &out);
    CHECK(out && strstr(out, "field 'preset': unknown preset 'nope' "
                             "(hase-forward, hase-counterfactual, "
                             "meta-predictor, accept-reject, "
                             "hive-agreement, hive-distinction)"));
    free(out);
    study_free(st);
    study_report_free(&rep);

    /* an explanation of an unknown kind, inline in an item */
    char tmp[256];
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-kinds")) {
        CHECK(!"mkdtemp");
        return;
    }
    static const char study[] =
        "{\"simlab_study\": 1, \"id\": \"x\", \"title\": \"t\",\n"
        " \"classes\": [\"a\", \"b\"],\n"
        " \"conditions\": [{\"id\": \"m\", \"method\": \"m\"}],\n"
        " \"blocks\": [{\"kind\": \"learn\", \"pool\": \"p\"}],\n"
        " \"items\": [{\"file\": \"items.jsonl\"}]}\n";
    static const char items[] =
        "{\"id\": 1, \"pool\": \"p\", \"modality\": \"text\", \"input\": "
        "\"x\", \"prediction\": \"a\", \"explanations\": {\"m\": {\"kind\": "
        "\"nope\"}}}\n";
    char *p1 = fs_join(tmp, "study.json"), *p2 = fs_join(tmp, "items.jsonl");
    CHECK(fs_write(p1, study, strlen(study)) == 0);
    CHECK(fs_write(p2, items, strlen(items)) == 0);
    free(p1);
    free(p2);
    CHECK_INT(fs_check(tmp, 0, &out), 1);
    CHECK(out && strstr(out, "unknown explanation kind 'nope' (heatmap, "
                             "tokens, token_pairs, span_pairs, features, "
                             "rules, prototype, path, text, composite, "
                             "image, gallery, markdown, bars, layout)"));
    for (int k = 0; k < EXPL_KIND_COUNT; k++) {
        CHECK(out && strstr(out, expl_names[k]));
    }
    free(out);
    fs_remove_tree(tmp);
}

/* Fields are refused on the kinds that do not have them; the messages
** name the kinds that do. */
static void test_fields_by_kind(void)
{
    static const struct {
        const char *blocks;
        const char *field, *message;
    } cases[] = {
        {"[{\"kind\": \"consent\", \"pool\": \"p\"}]", "pool",
         "not a field of a consent block"},
        {"[{\"kind\": \"break\", \"rating\": true}]", "rating",
         "not a field of a break block"},
        {"[{\"kind\": \"debrief\", \"catch\": 1}]", "catch",
         "not a field of a debrief block"},
        {"[{\"kind\": \"predict\", \"pool\": \"p\", \"rating\": true}]",
         "rating",
         "ratings are asked in learn, counterfactual and rating "
         "blocks"},
        {"[{\"kind\": \"learn\", \"pool\": \"p\", \"feedback\": true}]",
         "feedback",
         "only practice blocks have feedback, retry and "
         "train_pool"},
        {"[{\"kind\": \"learn\", \"pool\": \"p\", \"train_pool\": \"p\"}]",
         "train_pool",
         "only practice blocks have feedback, retry and "
         "train_pool"},
        {"[{\"kind\": \"rating\", \"pool\": \"p\", \"catch\": 1}]", "catch",
         "only predict, counterfactual, verify and decide blocks have catch "
         "trials and a reservoir"},
        {"[{\"kind\": \"predict\", \"pool\": \"p\", \"keys\": {}}]", "keys",
         "only verify blocks have keys of their own"},
        {"[{\"kind\": \"verify\", \"pool\": \"p\", \"keys\": "
         "{\"accept\": \"j\"}}]",
         "reject", "key 'j' is also accept's"},
        {"[{\"kind\": \"verify\", \"pool\": \"p\", \"keys\": "
         "{\"accept\": \"space\"}}]",
         "accept", "key 'space' collides with Continue"},
        {"[{\"kind\": \"verify\", \"pool\": \"p\", \"confidence\": "
         "{\"points\": 4}, \"keys\": {\"accept\": \"1\", \"reject\": "
         "\"2\"}}]",
         "accept", "key '1' collides with the confidence scale's digits"},
        {"[{\"kind\": \"quiz\", \"pages\": \"c.md\"}]", "pages",
         "only consent, instructions and debrief blocks have pages"},
        {"[{\"kind\": \"learn\", \"pool\": \"p\", \"questions\": []}]",
         "questions", "only quiz and questionnaire blocks have questions"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        StudyReport rep;
        Study *st = load_blocks(cases[i].blocks, &rep, NULL);
        CHECK(has_error(&rep, cases[i].field, cases[i].message));
        study_free(st);
        study_report_free(&rep);
    }
    /* fields no kind has are errors; every kind's own fields, notes, x-
    ** keys and _ comments are not */
    StudyReport rep;
    Study *st = load_blocks(
        "[{\"kind\": \"practice\", \"pool\": \"p\", \"n\": 1, \"order\": "
        "\"fixed\", \"draw\": \"study\", \"show\": {}, \"feedback\": true, "
        "\"retry\": true, \"train_pool\": \"p\", \"n_train\": 1, "
        "\"title\": \"t\", \"session\": 0, \"text\": \"x\", \"min_seconds\": "
        "0, \"_note\": \"\", \"notes\": \"n\", \"x-lab\": 2}, {\"kind\": "
        "\"predict\", \"pool\": \"p\", "
        "\"same_items_as\": \"practice1\", \"exclude_items_of\": [], "
        "\"catch\": 1, \"reservoir\": \"practice1\"}, {\"kind\": "
        "\"quiz\", \"repeat_until_correct\": false, \"color\": 1}]",
        &rep, NULL);
    CHECK_INT(rep.n_warnings, 0);
    CHECK_INT(rep.n_errors, 1);
    CHECK(rep.n_errors == 1 && strcmp(rep.errors[0].field, "color") == 0);
    CHECK(has_error(&rep, "color", "unknown field"));
    study_free(st);
    study_report_free(&rep);
}

/* Balance warnings find the test block of the hase presets by its phase,
** whatever its id. */
static void test_phase_blocks(void)
{
    StudyReport rep;
    Study *st = load_blocks("[{\"kind\": \"learn\", \"id\": \"a\", \"pool\": "
                            "\"p\"}, {\"kind\": \"predict\", \"id\": \"b\", "
                            "\"pool\": \"p\", \"phase\": \"pre\"}, {\"kind\": "
                            "\"predict\", \"id\": \"pre\", \"pool\": \"p\", "
                            "\"phase\": \"post\"}]",
                            &rep, NULL);
    const Block *b = study_find_phase_block(st, SIM_PHASE_PRE);
    CHECK(b && strcmp(b->id, "b") == 0);
    b = study_find_phase_block(st, SIM_PHASE_LEARN);
    CHECK(b && strcmp(b->id, "a") == 0);
    CHECK(study_find_phase_block(st, SIM_PHASE_QUIZ) == NULL);
    study_free(st);
    study_report_free(&rep);
}

/* "pages" of a block, like "instructions" of the study, is one path or a
** list of paths; anything else is a located error. */
static void test_page_lists(void)
{
    StudyReport rep;
    Study *st = load_blocks("[{\"kind\": \"consent\", \"id\": \"c\", "
                            "\"pages\": \"c.md\"}, {\"kind\": "
                            "\"instructions\", \"id\": \"i\", \"pages\": "
                            "[\"i.md\", 3, \"c.md\"]}, {\"kind\": "
                            "\"debrief\", \"id\": \"d\", \"pages\": 5}]",
                            &rep, NULL);
    CHECK(st != NULL);
    if (st) {
        CHECK_INT(st->blocks[0].n_pages, 1);
        CHECK_STR(st->blocks[0].pages[0], "c.md");
        CHECK_INT(st->blocks[1].n_pages, 2);
        CHECK_STR(st->blocks[1].pages[0], "i.md");
        CHECK_STR(st->blocks[1].pages[1], "c.md");
        CHECK_INT(st->blocks[2].n_pages, 0);
    }
    CHECK(has_error(&rep, "pages", "a page is a file path"));
    CHECK(has_error(&rep, "pages", "must be a path or a list of paths"));
    study_free(st);
    study_report_free(&rep);
}

int main(void)
{
    test_names();
    test_every_kind_loads();
    test_lists_in_errors();
    test_fields_by_kind();
    test_phase_blocks();
    test_page_lists();
    return TEST_REPORT();
}

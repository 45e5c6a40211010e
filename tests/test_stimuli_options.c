/*
** Per-item answer options: "options" in JSON items and in a CSV bank's
** column, "per_option" payloads, classes read from a CSV file (1,000 of
** them), the hive-distinction preset and its starter, and one located
** error for each kind of bad input.
*/
#include "tests/harness.h"
#include "tests/test_stimuli_fs.h"

#include "stimuli/scaffold.h"
#include "stimuli/study.h"

static char tmp[256];

static void put(const char *dir, const char *rel, const char *text)
{
    char *p = fs_join(dir, rel);
    CHECK(p && fs_write(p, text, strlen(text)) == 0);
    free(p);
}

/* A text study in dir: classes (JSON text), item lines (JSON Lines),
** extra study.json members and a predict block's extra fields. */
static void bundle(const char *dir, const char *classes, const char *items,
                   const char *extra, const char *block)
{
    fs_remove_tree(dir);
    mkdir(dir, 0755);
    char json[4096];
    snprintf(json, sizeof json,
             "{\"simlab_study\": 1, \"id\": \"opt\", \"title\": \"Options\", "
             "\"classes\": %s, "
             "\"conditions\": [{\"id\": \"m\", \"method\": \"m\"}], "
             "\"blocks\": [{\"kind\": \"predict\", \"id\": \"test\", "
             "\"pool\": \"test\", \"show\": {\"explanation\": true}%s}], "
             "\"items\": [{\"file\": \"items.jsonl\", \"format\": "
             "\"jsonl\", \"modality\": \"text\"}]%s}",
             classes, block, extra);
    put(dir, "study.json", json);
    put(dir, "items.jsonl", items);
}

/* Loads dir: the number of errors; the errors as "field: message"
** separated by " | " in msg, the first one's line in *line. */
static int load(const char *dir, Study **out, char *msg, size_t n, int *line)
{
    StudyReport rep;
    SimError err;
    study_report_init(&rep);
    Study *st = NULL;
    study_load(dir, &st, &rep, &err);
    msg[0] = '\0';
    if (line) {
        *line = 0;
    }
    size_t len = 0;
    for (size_t i = 0; i < rep.n_errors && len < n; i++) {
        const Diag *d = &rep.errors[i];
        int w = snprintf(msg + len, n - len, "%s%s: %s", i ? " | " : "",
                         d->field ? d->field : "-", d->message);
        len += w > 0 ? (size_t)w : 0;
        if (line && i == 0) {
            *line = d->line;
        }
    }
    int k = (int)rep.n_errors;
    study_report_free(&rep);
    if (out) {
        *out = st;
    } else {
        study_free(st);
    }
    return k;
}

static const char *const FOUR =
    "[\"cat\", \"dog\", \"fox\", \"owl\", \"elk\", \"bee\"]";

#define ITEM(id, opts, expl)                                                   \
    "{\"id\": \"" id "\", \"pool\": \"test\", \"input\": \"text " id "\", "    \
    "\"label\": \"cat\", \"prediction\": \"cat\", \"options\": " opts          \
    ", \"explanations\": {\"m\": " expl "}}\n"

static void test_json_options(void)
{
    char dir[512], msg[512];
    snprintf(dir, sizeof dir, "%s/json", tmp);
    bundle(dir, FOUR,
           ITEM("a", "[\"dog\", \"cat\", \"fox\", \"owl\"]",
                "{\"per_option\": {\"cat\": \"Whiskers\", \"dog\": \"Bark\", "
                "\"fox\": \"Red\", \"owl\": \"Wings\"}}") ITEM("b",
                                                               "[\"cat\", "
                                                               "\"elk\"]",
                                                               "\"plain\""),
           "", ", \"options_order\": \"shuffle\"");
    Study *st = NULL;
    CHECK_INT(load(dir, &st, msg, sizeof msg, NULL), 0);
    if (!st) {
        printf("  %s\n", msg);
        return;
    }
    const Item *a = study_find_item(st, "test:a");
    CHECK(a && a->n_options == 4);
    if (a && a->n_options == 4) {
        CHECK_STR(st->classes[a->options[0]].id, "dog");
        CHECK_STR(st->classes[a->options[3]].id, "owl");
        const Explanation *e = item_explanation(a, "m");
        CHECK(e && e->kind == EXPL_LAYOUT && e->row && e->part_class &&
              e->n_parts == 4);
        if (e && e->part_class) {
            CHECK_STR(st->classes[e->part_class[1]].id, "dog");
            CHECK_STR(e->parts[1].text, "Bark");
        }
    }
    const Item *b = study_find_item(st, "test:b");
    CHECK(b && b->n_options == 2);
    CHECK_INT(st->blocks[0].options_shuffle, 1);
    size_t n = 0;
    CHECK(item_block_options(a, BLOCK_PREDICT, &n) == a->options && n == 4);
    CHECK(item_block_options(a, BLOCK_LEARN, &n) == NULL && n == 0);
    study_free(st);
}

/* One error each, located, with "did you mean" where apt. */
static void test_bad(void)
{
    char dir[512], msg[512];
    snprintf(dir, sizeof dir, "%s/bad", tmp);
    static const struct {
        const char *items, *extra, *block, *want;
    } cases[] = {
        {ITEM("a", "[\"cat\", \"dgo\", \"fox\"]", "\"x\""), "", "",
         "unknown class 'dgo'"},
        {ITEM("a", "[\"cat\"]", "\"x\""), "", "",
         "1 option: an item offers 2 to 10"},
        {ITEM("a",
              "[\"cat\",\"dog\",\"fox\",\"owl\",\"elk\",\"bee\",\"cat\","
              "\"dog\",\"fox\",\"owl\",\"elk\"]",
              "\"x\""),
         "", "", "11 options: an item offers 2 to 10"},
        {ITEM("a", "[\"cat\", \"dog\", \"cat\"]", "\"x\""), "", "",
         "option 'cat' is given twice"},
        {ITEM("a", "[\"cat\", \"dog\"]",
              "{\"per_option\": {\"cat\": \"c\", \"fox\": \"f\"}}"),
         "", "", "'fox' is not one of the item's options ('cat', 'dog')"},
        {ITEM("a", "[\"cat\", \"dog\"]",
              "{\"per_option\": {\"cat\": \"c\", \"dgo\": \"f\"}}"),
         "", "", "unknown class 'dgo'"},
        {ITEM("a", "[\"dog\", \"fox\"]", "\"x\""), "", "",
         "the model output 'cat' is not among its options"},
        {ITEM("a", "[\"cat\", \"dog\"]", "\"x\""), "",
         ", \"options_order\": \"random\"", "'random' is not item or shuffle"},
        {ITEM("a", "[\"cat\", \"dog\"]", "\"x\""),
         ", \"ui\": {\"expl.show_key\": \"2\"}", "",
         "also the key of an answer option"},
        {"{\"id\": \"a\", \"pool\": \"test\", \"input\": \"t\", \"label\": "
         "\"cat\", \"prediction\": \"cat\", \"explanations\": {\"m\": "
         "{\"per_option\": {\"cat\": \"c\"}}}}\n",
         "", "", "the item has no \"options\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        bundle(dir, FOUR, cases[i].items, cases[i].extra, cases[i].block);
        int line = -1;
        int n = load(dir, NULL, msg, sizeof msg, &line);
        CHECK_INT(n, 1);
        if (!strstr(msg, cases[i].want)) {
            printf("  case %zu: got '%s', want '%s'\n", i, msg, cases[i].want);
            CHECK(0);
        }
    }
    /* the per_option payload of a class near a known one */
    bundle(dir, FOUR, ITEM("a", "[\"cat\", \"dgo\"]", "\"x\""), "", "");
    load(dir, NULL, msg, sizeof msg, NULL);
    CHECK(strstr(msg, "classes: 'cat', 'dog'") != NULL);
    /* options_order on a block without options */
    bundle(dir, FOUR, ITEM("a", "[\"cat\", \"dog\"]", "\"x\""),
           ", \"x-unused\": 1", "");
    put(dir, "study.json",
        "{\"simlab_study\": 1, \"id\": \"opt\", \"title\": \"O\", "
        "\"classes\": [\"cat\", \"dog\"], \"conditions\": [{\"id\": \"m\", "
        "\"method\": \"m\"}], \"blocks\": [{\"kind\": \"learn\", \"pool\": "
        "\"test\", \"options_order\": \"shuffle\"}], \"items\": [{\"file\": "
        "\"items.jsonl\", \"format\": \"jsonl\", \"modality\": \"text\"}]}");
    CHECK_INT(load(dir, NULL, msg, sizeof msg, NULL), 1);
    CHECK(strstr(msg, "options_order: only items of practice, predict and "
                      "decide blocks") != NULL);
    /* a decide block answers the task: the true label must be an option,
    ** the model's output need not */
    static const char DECIDE[] =
        "{\"simlab_study\": 1, \"id\": \"opt\", \"title\": \"O\", "
        "\"classes\": [\"cat\", \"dog\", \"fox\"], \"conditions\": "
        "[{\"id\": \"m\", \"method\": \"m\"}], \"blocks\": [{\"kind\": "
        "\"decide\", \"id\": \"team\", \"pool\": \"test\"}], \"items\": "
        "[{\"file\": \"items.jsonl\", \"format\": \"jsonl\", "
        "\"modality\": \"text\"}]}";
    put(dir, "study.json", DECIDE);
    put(dir, "items.jsonl",
        "{\"id\": \"a\", \"pool\": \"test\", \"input\": \"t\", "
        "\"label\": \"dog\", \"prediction\": \"cat\", \"options\": "
        "[\"dog\", \"fox\"], \"explanations\": {\"m\": \"x\"}}\n");
    CHECK_INT(load(dir, NULL, msg, sizeof msg, NULL), 0);
    put(dir, "items.jsonl",
        "{\"id\": \"a\", \"pool\": \"test\", \"input\": \"t\", "
        "\"label\": \"cat\", \"prediction\": \"cat\", \"options\": "
        "[\"dog\", \"fox\"], \"explanations\": {\"m\": \"x\"}}\n");
    CHECK_INT(load(dir, NULL, msg, sizeof msg, NULL), 1);
    CHECK(strstr(msg, "the true label 'cat' is not among its options") != NULL);
}

/* classes.csv of n rows "c<k>,Class <k>" (Windows-1252 when latin1, with
** a label of its own) */
static void classes_csv(const char *dir, int n, const char *extra_row)
{
    size_t cap = (size_t)n * 40 + 256;
    char *s = malloc(cap);
    size_t len = (size_t)snprintf(s, cap, "id;label\n");
    for (int k = 1; k <= n; k++) {
        len += (size_t)snprintf(s + len, cap - len, "c%d;Class %d\n", k, k);
    }
    if (extra_row) {
        snprintf(s + len, cap - len, "%s", extra_row);
    }
    put(dir, "classes.csv", s);
    free(s);
}

/* 1,000 classes from a file, items with 4 options from a CSV bank */
static void test_classes_file(void)
{
    char dir[512], msg[512];
    snprintf(dir, sizeof dir, "%s/imagenet", tmp);
    fs_remove_tree(dir);
    mkdir(dir, 0755);
    classes_csv(dir, 1000, NULL);
    char *bank = malloc(200000);
    size_t len = (size_t)sprintf(bank, "id,text,label,pred,top4\n");
    for (int i = 0; i < 500; i++) {
        int p = 1 + (i * 7) % 1000;
        len += (size_t)sprintf(
            bank + len, "i%d,text %d,c%d,c%d,c%d|c%d|c%d|c%d\n", i, i, p, p,
            1 + (p + 10) % 1000, p, 1 + (p + 20) % 1000, 1 + (p + 30) % 1000);
    }
    put(dir, "items.csv", bank);
    free(bank);
    put(dir, "study.json",
        "{\"simlab_study\": 1, \"id\": \"inet\", \"title\": \"ImageNet\", "
        "\"classes\": {\"file\": \"classes.csv\", \"delimiter\": \";\"}, "
        "\"conditions\": [{\"id\": \"none\"}], \"blocks\": [{\"kind\": "
        "\"predict\", \"pool\": \"test\"}], \"items\": "
        "[{\"file\": \"items.csv\", \"modality\": \"text\", \"pool\": "
        "\"test\", \"columns\": {\"id\": \"id\", \"input\": \"text\", "
        "\"label\": \"label\", \"prediction\": \"pred\", \"options\": "
        "\"top4\"}}]}");
    Study *st = NULL;
    CHECK_INT(load(dir, &st, msg, sizeof msg, NULL), 0);
    if (msg[0]) {
        printf("  %s\n", msg);
    }
    CHECK(st && st->n_classes == 1000);
    if (st) {
        CHECK_STR(st->classes[999].id, "c1000");
        CHECK_STR(st->classes[999].label, "Class 1000");
        const Item *it = study_find_item(st, "test:i3");
        CHECK(it && it->n_options == 4);
        if (it && it->n_options == 4) {
            CHECK_STR(st->classes[it->options[1]].id, "c22");
        }
    }
    study_free(st);
    /* an unknown option among 1,000: did you mean, not the list */
    put(dir, "items.csv",
        "id,text,label,pred,top4\nx,t,c1,c1,c1|c2|c30000|c4\n");
    CHECK_INT(load(dir, NULL, msg, sizeof msg, NULL), 1);
    CHECK(strstr(msg, "top4: unknown class 'c30000' (not one of the "
                      "study's 1000 classes; did you mean") != NULL);
    /* an empty option in the cell */
    put(dir, "items.csv", "id,text,label,pred,top4\nx,t,c1,c1,c1||c4\n");
    CHECK_INT(load(dir, NULL, msg, sizeof msg, NULL), 1);
    CHECK(strstr(msg, "an empty option") != NULL);
    /* a duplicate class id: its line and the first one's */
    classes_csv(dir, 30, "c7;Again\n");
    put(dir, "items.csv", "id,text,label,pred,top4\nx,t,c1,c1,c1|c2\n");
    int line = 0;
    CHECK_INT(load(dir, NULL, msg, sizeof msg, &line), 1);
    CHECK(strstr(msg, "duplicate class id 'c7' (also on line 8)") != NULL);
    CHECK_INT(line, 32);
    /* a missing column */
    put(dir, "classes.csv", "name;label\na;A\nb;B\n");
    CHECK_INT(load(dir, NULL, msg, sizeof msg, NULL), 1);
    CHECK(strstr(msg, "'id'") != NULL);
}

/* The starter of hive-distinction is valid as written. */
static void test_starter(void)
{
    char dir[512], msg[2048];
    snprintf(dir, sizeof dir, "%s/hive", tmp);
    SimError err;
    CHECK_INT(scaffold_write(dir, "hive-distinction", "image", NULL, &err),
              SIM_OK);
    Study *st = NULL;
    CHECK_INT(load(dir, &st, msg, sizeof msg, NULL), 0);
    if (msg[0]) {
        printf("  %s\n", msg);
    }
    CHECK(st && st->n_classes == 8);
    CHECK(st && st->preset && strcmp(st->preset, "hive-distinction") == 0);
    const Block *test = st ? study_find_block(st, "test") : NULL;
    CHECK(test && test->kind == BLOCK_PREDICT && test->options_shuffle &&
          test->show.explanation);
    for (size_t i = 0; st && i < st->n_items; i++) {
        const Item *it = &st->items[i];
        const Explanation *e = item_explanation(it, "my_method");
        CHECK(it->n_options == 4 && e && e->part_class && e->n_parts == 4);
    }
    study_free(st);
    char other[512];
    snprintf(other, sizeof other, "%s/hive-tabular", tmp);
    CHECK_INT(scaffold_write(other, "hive-distinction", "tabular", NULL, &err),
              SIM_ERR_USAGE);
    /* texts: a topic per class, word weights per candidate */
    snprintf(other, sizeof other, "%s/hive-text", tmp);
    CHECK_INT(scaffold_write(other, "hive-distinction", "text", NULL, &err),
              SIM_OK);
    st = NULL;
    CHECK_INT(load(other, &st, msg, sizeof msg, NULL), 0);
    CHECK(st && st->n_classes == 8);
    for (size_t i = 0; st && i < st->n_items; i++) {
        const Item *it = &st->items[i];
        const Explanation *e = item_explanation(it, "my_method");
        CHECK(it->input.modality == MODALITY_TEXT && it->n_options == 4 && e &&
              e->part_class && e->n_parts == 4 &&
              e->parts[0].kind == EXPL_TOKENS);
    }
    study_free(st);
    /* the preset refuses test items without options */
    put(dir, "items.csv",
        "id,pool,input,label,prediction,options\n"
        "p01,practice,media/practice-p01.png,round,round,round|square\n"
        "t01,test,media/test-t01.png,round,round,\n");
    put(dir, "explanations.jsonl", "");
    load(dir, NULL, msg, sizeof msg, NULL);
    CHECK(strstr(msg, "options: missing: hive-distinction") != NULL);
}

int main(void)
{
    CHECK(fs_temp_dir(tmp, sizeof tmp, "stimuli-options") != NULL);
    test_json_options();
    test_bad();
    test_classes_file();
    test_starter();
    if (!getenv("KEEP")) {
        fs_remove_tree(tmp);
    }
    return TEST_REPORT();
}

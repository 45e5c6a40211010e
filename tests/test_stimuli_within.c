/*
** "assignment": {"mode": "within", ...} in study.json: examples/within is
** valid and `simlab check` describes it (the repeated blocks; the Williams
** orders when the caller supplies them, in text and JSON); bad input gets
** one located error per cause: an unknown mode or order, a rule that
** assigns conditions, fewer than 2 conditions, sessions that do not match
** the conditions; a pool too small for every condition to get its own
** items is a warning, as are practice examples with explanations (of the
** first condition).
*/
#include "tests/harness.h"
#include "tests/test_stimuli_fs.h"

#include "stimuli/check.h"

#include <stdlib.h>
#include <string.h>

static char tmp[256];

/* Copies bundle src to tmp/b with, in study.json, the first from[i]
** replaced by to[i] for each of the n edits; returns the copy's path
** (static), NULL when a from is missing. */
static const char *variant_n(const char *src, size_t n, const char *const *from,
                             const char *const *to)
{
    static char dir[512];
    snprintf(dir, sizeof dir, "%s/b", tmp);
    fs_remove_tree(dir);
    if (fs_copy_tree(src, dir) != 0) {
        return NULL;
    }
    char *path = fs_join(dir, "study.json");
    size_t len = 0;
    char *text = path ? fs_read(path, &len) : NULL;
    for (size_t i = 0; text && i < n; i++) {
        char *at = strstr(text, from[i]);
        if (!at) {
            fprintf(stderr, "'%s' not in %s\n", from[i], path);
            free(text);
            free(path);
            return NULL;
        }
        size_t head = (size_t)(at - text), nf = strlen(from[i]);
        size_t nt = strlen(to[i]);
        char *out = malloc(len - nf + nt + 1);
        memcpy(out, text, head);
        memcpy(out + head, to[i], nt);
        memcpy(out + head + nt, at + nf, len - head - nf + 1);
        free(text);
        text = out;
        len = strlen(out);
    }
    if (text) {
        fs_write(path, text, len);
    }
    free(text);
    free(path);
    return dir;
}

/* variant_n() with one edit, or none when from is NULL. */
static const char *variant(const char *src, const char *from, const char *to)
{
    return variant_n(src, from ? 1 : 0, &from, &to);
}

/* check of dir: exit status want, output containing line (and not
** containing absent, when not NULL). */
static void expect_dir(const char *dir, int want, const char *line,
                       const char *absent)
{
    CHECK(dir != NULL);
    if (!dir) {
        return;
    }
    char *out = NULL;
    CHECK_INT(fs_check(dir, 0, &out), want);
    if (!out || !strstr(out, line) || (absent && strstr(out, absent))) {
        fprintf(stderr, "want: %s\nnot: %s\nin:\n%s\n", line,
                absent ? absent : "", out ? out : "");
        CHECK(0);
    }
    free(out);
}

/* check of bundle variant: exit status want, output containing line. */
static void expect(const char *src, const char *from, const char *to, int want,
                   const char *line)
{
    expect_dir(variant(src, from, to), want, line, NULL);
}

/* A misspelt block id in assignment.repeat gets a "did you mean"; a
** questionnaire or break after the repeated run warns unless it is marked
** "once"; "once" is refused on other kinds and inside the run. */
static void test_repeat_run(const char *example)
{
    const char *assign = "\"order\": \"latin-square\"}";
    const char *brk = "{\"kind\": \"break\", \"id\": \"next\",";
    const char *from[] = {assign, brk};
    const char *typo[] = {
        "\"order\": \"latin-square\", \"repeat\": [\"learn\", \"tset\"]}", brk};
    expect_dir(variant_n(example, 2, from, typo), 1,
               "error: study.json:/assignment/repeat: field 'repeat': 'tset' "
               "is not a block id (did you mean 'test'?)\ninvalid: 1 error\n",
               NULL);
    const char *run[] = {
        "\"order\": \"latin-square\", \"repeat\": [\"learn\", \"test\"]}", brk};
    expect_dir(variant_n(example, 2, from, run), 0,
               "warning: study.json:/assignment/repeat: field 'repeat': "
               "break 'next' comes after the blocks repeated per condition "
               "(learn .. test): it is shown once, after the last condition; "
               "to show it once per condition, name it in assignment.repeat, "
               "or mark it \"once\": true when that is meant\n",
               NULL);
    const char *once[] = {
        run[0], "{\"kind\": \"break\", \"id\": \"next\", \"once\": true,"};
    expect_dir(variant_n(example, 2, from, once), 0, "valid\n",
               "comes after the blocks repeated");
    /* without repeat the break after the last item block is the pause
    ** between conditions, repeated with them */
    expect(example, brk, once[1], 1,
           "error: study.json:/blocks/4/once: field 'once': block 'next' is "
           "one of the blocks repeated per condition (learn .. next), so it "
           "is shown once per condition\ninvalid: 1 error\n");
    expect(example, "\"id\": \"test\",", "\"id\": \"test\", \"once\": true,", 1,
           "error: study.json:/blocks/3/once: field 'once': only break and "
           "questionnaire blocks are marked as shown once after the repeated "
           "blocks\ninvalid: 1 error\n");
}

static size_t n_rows(size_t n)
{
    return n % 2 ? 2 * n : n;
}

/* rotations only: enough to see that the caller's rows are printed */
static void row_of(size_t n, size_t r, int *order)
{
    for (size_t k = 0; k < n; k++) {
        order[k] = (int)((k + r) % n);
    }
}

int main(void)
{
    char example[512], meta[512];
    snprintf(example, sizeof example, "%s/../../examples/within",
             SIMLAB_TEST_DATA);
    snprintf(meta, sizeof meta, "%s/experiment/mini-meta", SIMLAB_TEST_DATA);
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-within")) {
        CHECK(0);
        return TEST_REPORT();
    }
    expect(example, NULL, NULL, 0,
           "assignment   within-subject, order latin-square; active 60 min\n"
           "  blocks learn .. test repeated once per condition, new items "
           "each time; between conditions: next\n");

    /* the orders come from the caller */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    CheckOrders orders = {n_rows, row_of};
    CHECK_INT(check_bundle_orders(example, 0, f, &orders), 0);
    fclose(f);
    CHECK(out && strstr(out, "  6 orders (Williams design)"));
    CHECK(out && strstr(out, "  order 2   LIME, SHAP, baseline\n"));
    CHECK(out && strstr(out, "  order 6   SHAP, baseline, LIME\n"));
    free(out);
    f = open_memstream(&out, &len);
    CHECK_INT(check_bundle_orders(example, 1, f, &orders), 0);
    fclose(f);
    CHECK(out && strstr(out, "\"mode\": \"within\""));
    CHECK(out && strstr(out, "\"order\": \"latin-square\""));
    CHECK(out && strstr(out, "\"orders\": ["));
    free(out);

    expect(example, "\"latin-square\"", "\"random\"", 0,
           "  a random order per participant (from its seed)\n");
    expect(example, "\"latin-square\"", "\"fixed\"", 0,
           "  every participant: baseline, LIME, SHAP\n");

    /* bad input: one located error per cause */
    expect(example, "\"latin-square\"", "\"zigzag\"", 1,
           "error: study.json:/assignment/order: field 'order': 'zigzag' is "
           "not latin-square, random or fixed\ninvalid: 1 error\n");
    expect(example, "\"within\"", "\"sideways\"", 1,
           "error: study.json:/assignment/mode: field 'mode': 'sideways' is "
           "not between or within\ninvalid: 1 error\n");
    expect(example, "\"mode\": \"within\",",
           "\"mode\": \"within\", \"rule\": \"hase\",", 1,
           "error: study.json:/assignment/rule: field 'rule': the hase rule "
           "assigns one condition per participant; a within-subject study "
           "balances its orders instead\ninvalid: 1 error\n");
    expect(example,
           "},\n    {\"id\": \"LIME\", \"method\": \"LIME\"},\n"
           "    {\"id\": \"SHAP\", \"method\": \"SHAP\"}",
           "}", 1,
           "error: study.json:/assignment/mode: field 'mode': a "
           "within-subject study needs at least 2 conditions (it has 1)");
    expect(example, "\"n\": 6", "\"n\": 8", 0,
           "warning: study.json:/assignment/mode: field 'mode': pool 'test' "
           "has 18 items; 3 conditions x 8 items need 24 for no item to "
           "repeat for a participant: later conditions reuse items of "
           "earlier ones\n");
    expect(meta, "\"baseline\": \"baseline\",",
           "\"baseline\": \"baseline\", \"assignment\": {\"mode\": "
           "\"within\"},",
           0, "  session t shows the participant's t-th condition\n");
    expect(meta, "\"preset\": \"meta-predictor\"",
           "\"preset\": \"meta-predictor\", \"sessions\": 2}, "
           "\"assignment\": {\"mode\": \"within\"",
           1,
           "error: study.json:/assignment/mode: field 'mode': 2 sessions for "
           "3 conditions: session t shows the participant's t-th condition, "
           "so a within-subject study with sessions needs one session per "
           "condition\ninvalid: 1 error\n");
    expect(meta, NULL, NULL, 0, "assignment   balanced; active 60 min\n");
    char image[512];
    snprintf(image, sizeof image, "%s/app/meta-image", SIMLAB_TEST_DATA);
    expect(image, "\"conditions\": [",
           "\"assignment\": {\"mode\": \"within\"}, \"conditions\": [", 1,
           "warning: study.json:/protocol/practice_train_pool: field "
           "'practice_train_pool': practice block 'practice' shows its "
           "examples with the explanations of each participant's first "
           "condition\n");
    test_repeat_run(example);
    fs_remove_tree(tmp);
    return TEST_REPORT();
}

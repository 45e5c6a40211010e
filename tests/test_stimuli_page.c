/*
** The page model (stimuli/page.h): each construct of the page dialect, the
** "](" edge cases of image lines, and at load time the image paths
** (bundle-relative, beside the page, both, neither, escaping the bundle),
** located errors, inline block text, and `simlab check` on a bundle whose
** page shows an image beside it.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "common/sim_alloc.h"
#include "common/sim_error.h"
#include "stimuli/page.h"
#include "stimuli/study.h"

/* The text of a block's span i. */
static int span_is(const PageBlock *b, size_t i, const char *text, int strong)
{
    if (i >= b->n_spans) {
        return 0;
    }
    const PageSpan *s = &b->spans[i];
    return s->len == strlen(text) &&
           strncmp(b->text + s->start, text, s->len) == 0 &&
           s->strong == strong;
}

static Page *parse_ok(const char *text)
{
    Page *pg = NULL;
    SimError err;
    int rc = page_parse(text, "pages/p.md", &pg, &err);
    CHECK_INT(rc, SIM_OK);
    if (rc != SIM_OK) {
        fprintf(stderr, "%s\n", err.msg);
    }
    return pg;
}

static void test_constructs(void)
{
    Page *pg = parse_ok("# Title\n"
                        "\n"
                        "A paragraph over\n"
                        "  two lines with **bold\n"
                        "words** here.   \r\n"
                        "## Sub\n"
                        "### Third\n"
                        "#### four is text\n"
                        "#nospace\n"
                        "\n"
                        "- first **item**\n"
                        "  continued\n"
                        "* second\n"
                        "1. one\n"
                        "12. twelve\n"
                        "1234. not an item\n"
                        "\n"
                        "![A caption](media/page.png)\n"
                        "![](x.png)\n");
    if (!pg) {
        return;
    }
    CHECK_STR(pg->file, "pages/p.md");
    CHECK_INT(pg->n_blocks, 11);
    if (pg->n_blocks != 11) {
        page_free(pg);
        return;
    }
    const PageBlock *b = pg->blocks;
    CHECK_INT(b[0].kind, PAGE_HEADING);
    CHECK_INT(b[0].level, 1);
    CHECK_STR(b[0].text, "Title");
    CHECK_INT(b[0].line, 1);

    /* lines joined by one space; markers may span lines */
    CHECK_INT(b[1].kind, PAGE_PARAGRAPH);
    CHECK_INT(b[1].line, 3);
    CHECK_STR(b[1].text, "A paragraph over two lines with bold words here.");
    CHECK_INT(b[1].n_spans, 3);
    CHECK(span_is(&b[1], 0, "A paragraph over two lines with ", 0));
    CHECK(span_is(&b[1], 1, "bold words", 1));
    CHECK(span_is(&b[1], 2, " here.", 0));

    CHECK_INT(b[2].kind, PAGE_HEADING);
    CHECK_INT(b[2].level, 2);
    CHECK_STR(b[2].text, "Sub");
    CHECK_INT(b[3].level, 3);
    CHECK_STR(b[3].text, "Third");
    /* "#### " and "#x" are paragraph text */
    CHECK_INT(b[4].kind, PAGE_PARAGRAPH);
    CHECK_STR(b[4].text, "#### four is text #nospace");

    CHECK_INT(b[5].kind, PAGE_BULLET);
    CHECK_STR(b[5].text, "first item continued");
    CHECK(span_is(&b[5], 1, "item", 1));
    CHECK_INT(b[6].kind, PAGE_BULLET);
    CHECK_STR(b[6].text, "second");
    CHECK_INT(b[7].kind, PAGE_NUMBERED);
    CHECK_STR(b[7].label, "1.");
    CHECK_STR(b[7].text, "one");
    /* four digits are too many: continuation text of item 12 */
    CHECK_INT(b[8].kind, PAGE_NUMBERED);
    CHECK_STR(b[8].label, "12.");
    CHECK_STR(b[8].text, "twelve 1234. not an item");
    CHECK_INT(b[8].line, 15);

    CHECK_INT(b[9].kind, PAGE_IMAGE);
    CHECK_STR(b[9].text, "A caption");
    CHECK_STR(b[9].src, "media/page.png");
    CHECK_STR(b[9].path, "media/page.png");
    CHECK_INT(b[9].line, 18);
    CHECK_INT(b[10].kind, PAGE_IMAGE);
    CHECK_STR(b[10].text, "");
    CHECK_STR(b[10].src, "x.png");
    page_free(pg);

    /* an unclosed marker makes the rest strong */
    pg = parse_ok("Unclosed **bold to the end\n\n****\n");
    if (pg && pg->n_blocks == 2) {
        CHECK_STR(pg->blocks[0].text, "Unclosed bold to the end");
        CHECK(span_is(&pg->blocks[0], 1, "bold to the end", 1));
        /* only markers: a paragraph without runs */
        CHECK_STR(pg->blocks[1].text, "");
        CHECK_INT(pg->blocks[1].n_spans, 0);
    } else {
        CHECK(0);
    }
    page_free(pg);

    /* empty text, and a block's inline text (no file) */
    pg = NULL;
    SimError err;
    CHECK_INT(page_parse("", NULL, &pg, &err), SIM_OK);
    CHECK(pg && pg->n_blocks == 0 && pg->file == NULL);
    page_free(pg);
    page_free(NULL);
}

/* Which "](" starts the path: the last one; the path runs to the ')' that
** ends the line. */
static void test_image_edges(void)
{
    Page *pg = parse_ok(
        "![An example image (the model's view) [left]](media/page.png)\n"
        "![see [a](b) here](media/x.png)\n"
        "  ![indented](y.png)  \n"
        "![empty path]()\n");
    if (pg && pg->n_blocks == 4) {
        CHECK_STR(pg->blocks[0].text, "An example image (the model's view) "
                                      "[left]");
        CHECK_STR(pg->blocks[0].src, "media/page.png");
        CHECK_STR(pg->blocks[1].text, "see [a](b) here");
        CHECK_STR(pg->blocks[1].src, "media/x.png");
        CHECK_STR(pg->blocks[2].src, "y.png");
        CHECK_STR(pg->blocks[3].src, "");
    } else {
        CHECK(0);
    }
    page_free(pg);

    /* malformed image lines: located errors, no model */
    static const struct {
        const char *text;
        const char *msg;
    } bad[] = {
        {"# T\n\n![no path]\n",
         "pages/p.md:3: field 'image': expected ![caption](media/file.png)"},
        {"![x](y.png) and text\n",
         "pages/p.md:1: field 'image': expected ![caption](media/file.png)"},
        {"text\n![x](\n", "pages/p.md:2: field 'image': expected "
                          "![caption](media/file.png)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        SimError err;
        pg = (Page *)1;
        CHECK_INT(page_parse(bad[i].text, "pages/p.md", &pg, &err),
                  SIM_ERR_PARSE);
        CHECK(pg == NULL);
        CHECK_STR(err.msg, bad[i].msg);
    }
    SimError err;
    CHECK_INT(page_parse("![x]\n", NULL, &pg, &err), SIM_ERR_PARSE);
    CHECK_STR(err.msg,
              "text:1: field 'image': expected ![caption](media/file.png)");
}

/* Every allocation of page_parse failing in turn: SIM_ERR_NOMEM, no page,
** nothing leaked (under ASan), until it succeeds. */
static void test_parse_nomem(void)
{
    const char *text = "# T\n\nA **b** c\n- d\n1. e\n![f](g.png)\n";
    int nomem = 0, ok = 0, bad = 0;
    for (long n = 0; n < 200 && !ok; n++) {
        Page *pg = NULL;
        SimError err;
        sim_alloc_fail_after(n);
        int rc = page_parse(text, "p.md", &pg, &err);
        sim_alloc_fail_after(-1);
        if (rc == SIM_ERR_NOMEM) {
            nomem++;
            bad += pg != NULL;
        } else {
            ok = rc == SIM_OK && pg && pg->n_blocks == 5;
            bad += !ok;
        }
        page_free(pg);
    }
    CHECK(ok);
    CHECK(nomem > 10);
    CHECK_INT(bad, 0);
}

/* ------------------------------------------------------------ at load */

static char g_tmp[256];

/* A copy of valid-all whose instructions page says page; NULL on failure.
** Returns the bundle folder (static buffer). */
static const char *bundle_with_page(const char *name, const char *page)
{
    static char dir[512];
    char src[512];
    snprintf(src, sizeof src, "%s/bundles/valid-all", SIMLAB_TEST_DATA);
    snprintf(dir, sizeof dir, "%s/%s", g_tmp, name);
    if (fs_copy_tree(src, dir) != 0) {
        return NULL;
    }
    char path[700];
    snprintf(path, sizeof path, "%s/pages/instructions.md", dir);
    if (fs_write(path, page, strlen(page)) != 0) {
        return NULL;
    }
    return dir;
}

static int copy_into(const char *dir, const char *from, const char *to)
{
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/%s", dir, from);
    snprintf(b, sizeof b, "%s/%s", dir, to);
    return fs_copy_file(a, b);
}

/* The image block of the instructions page of the study in dir. */
static const PageBlock *instr_image(const Study *st)
{
    const Page *pg = study_page(st, "pages/instructions.md");
    for (size_t i = 0; pg && i < pg->n_blocks; i++) {
        if (pg->blocks[i].kind == PAGE_IMAGE) {
            return &pg->blocks[i];
        }
    }
    return NULL;
}

/* The report's errors and warnings, one per line, as check prints them. */
static char *report_text(const StudyReport *rep)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        return NULL;
    }
    for (size_t i = 0; i < rep->n_errors; i++) {
        study_diag_print(f, "error: ", &rep->errors[i]);
    }
    for (size_t i = 0; i < rep->n_warnings; i++) {
        study_diag_print(f, "warning: ", &rep->warnings[i]);
    }
    fclose(f);
    return buf;
}

/* Loads dir; expects n_errors errors and the report to hold want (may be
** NULL). Returns the study when it loaded. */
static Study *load(const char *dir, size_t n_errors, const char *want)
{
    Study *st = NULL;
    StudyReport rep;
    study_report_init(&rep);
    SimError err;
    study_load(dir, &st, &rep, &err);
    CHECK_INT(rep.n_errors, n_errors);
    char *text = report_text(&rep);
    if (want && !(text && strstr(text, want))) {
        fprintf(stderr, "want: %s\ngot:\n%s\n", want, text ? text : "");
        CHECK(0);
    } else if (n_errors != rep.n_errors) {
        fprintf(stderr, "%s\n", text ? text : "");
    }
    free(text);
    study_report_free(&rep);
    return st;
}

static void test_load_images(void)
{
    /* bundle-relative, as before */
    const char *dir =
        bundle_with_page("rel", "# I\n\n![An example](media/page.png)\n");
    Study *st = dir ? load(dir, 0, NULL) : NULL;
    const PageBlock *img = st ? instr_image(st) : NULL;
    CHECK(img && strcmp(img->path, "media/page.png") == 0);
    study_free(st);

    /* beside the page: the path is resolved to pages/fig.png */
    dir = bundle_with_page("beside", "# I\n\n![A figure](fig.png)\n");
    CHECK(dir && copy_into(dir, "media/page.png", "pages/fig.png") == 0);
    st = dir ? load(dir, 0, NULL) : NULL;
    img = st ? instr_image(st) : NULL;
    CHECK(img && strcmp(img->path, "pages/fig.png") == 0 &&
          strcmp(img->src, "fig.png") == 0 &&
          strcmp(img->text, "A figure") == 0);
    study_free(st);

    /* both: the bundle's file wins, with a warning */
    dir = bundle_with_page("both", "# I\n\n![A figure](fig.png)\n");
    CHECK(dir && copy_into(dir, "media/page.png", "pages/fig.png") == 0 &&
          copy_into(dir, "media/cat.png", "fig.png") == 0);
    st = dir ? load(dir, 0,
                    "warning: pages/instructions.md:3: field 'image': "
                    "'fig.png' is a file of the bundle and 'pages/fig.png' "
                    "one beside the page: the bundle's file is shown")
             : NULL;
    img = st ? instr_image(st) : NULL;
    CHECK(img && strcmp(img->path, "fig.png") == 0);
    study_free(st);

    /* neither: an error located at the page's line */
    dir = bundle_with_page("missing", "# I\n\nText.\n\n![A figure](fig.png)\n");
    st = dir ? load(dir, 1,
                    "error: pages/instructions.md:5: field 'image': "
                    "'fig.png': no such file; beside the page: "
                    "'pages/fig.png': no such file")
             : NULL;
    CHECK(st == NULL);
    study_free(st);

    /* leaving the bundle: '..', absolute, a symbolic link */
    dir = bundle_with_page("escape", "![a](../media/page.png)\n"
                                     "![b](/etc/hostname)\n"
                                     "![c](link.png)\n"
                                     "![d](media/notes.png)\n");
    if (dir) {
        char link[700];
        snprintf(link, sizeof link, "%s/pages/link.png", dir);
        CHECK(copy_into(dir, "media/page.png", "../outside.png") == 0);
        CHECK(symlink("../../outside.png", link) == 0);
        char notes[700];
        snprintf(notes, sizeof notes, "%s/media/notes.png", dir);
        CHECK(fs_write(notes, "not a picture", 13) == 0);
    }
    st = dir ? load(dir, 4,
                    "error: pages/instructions.md:1: field 'image': "
                    "'../media/page.png': '..' may not leave the bundle\n"
                    "error: pages/instructions.md:2: field 'image': "
                    "'/etc/hostname': absolute paths are not allowed "
                    "(paths are relative to the bundle)\n"
                    "error: pages/instructions.md:3: field 'image': "
                    "'link.png': no such file; beside the page: "
                    "'pages/link.png': resolves outside the bundle "
                    "(symbolic link?)\n"
                    "error: pages/instructions.md:4: field 'image': "
                    "'media/notes.png': not a PNG or JPEG file")
             : NULL;
    study_free(st);

    /* a malformed image line among good ones, in line order */
    dir = bundle_with_page("malformed", "![ok](media/page.png)\n"
                                        "![broken](media/page.png\n"
                                        "![gone](gone.png)\n");
    if (dir) {
        load(dir, 2,
             "error: pages/instructions.md:2: field 'image': expected "
             "![caption](media/file.png)\n"
             "error: pages/instructions.md:3: field 'image': 'gone.png': no "
             "such file");
    }
}

/* A page block without page files shows its inline text, parsed at load
** and checked the same way (errors at the block's "text"). */
static void test_inline_text(void)
{
    const char *dir = bundle_with_page("inline", "# I\n");
    if (!dir) {
        CHECK(0);
        return;
    }
    char path[700];
    snprintf(path, sizeof path, "%s/study.json", dir);
    size_t len = 0;
    char *json = fs_read(path, &len);
    const char *from = ",\n            \"debrief\": \"pages/debrief.md\"}";
    const char *blk = "{\"kind\": \"debrief\"}";
    char *a = json ? strstr(json, from) : NULL;
    char *b = json ? strstr(json, blk) : NULL;
    CHECK(a && b && a < b);
    if (!a || !b || a >= b) {
        free(json);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        const char *text = pass == 0 ? "# Thanks\\n\\nYou are **done**.\\n\\n"
                                       "![A cat](media/cat.png)"
                                     : "# Thanks\\n\\n![A dog](media/wolf.png)";
        char out[16384];
        snprintf(out, sizeof out,
                 "%.*s}%.*s{\"kind\": \"debrief\", \"text\": \"%s\"}%s",
                 (int)(a - json), json, (int)(b - a - strlen(from)),
                 a + strlen(from), text, b + strlen(blk));
        CHECK(fs_write(path, out, strlen(out)) == 0);
        Study *st = load(dir, pass == 0 ? 0 : 1,
                         pass == 0 ? NULL
                                   : "error: study.json:/blocks/8/text: field "
                                     "'text': line 3: 'media/wolf.png': no "
                                     "such file");
        const Block *blkp = st ? &st->blocks[st->n_blocks - 1] : NULL;
        if (pass == 0) {
            CHECK(blkp && blkp->kind == BLOCK_DEBRIEF && blkp->n_pages == 0 &&
                  blkp->text_page != NULL);
            const Page *pg = blkp ? blkp->text_page : NULL;
            CHECK(pg && pg->file == NULL && pg->n_blocks == 3);
            if (pg && pg->n_blocks == 3) {
                CHECK_STR(pg->blocks[1].text, "You are done.");
                CHECK_STR(pg->blocks[2].path, "media/cat.png");
            }
            /* file pages are still found by name, inline ones are not */
            CHECK(study_page(st, "pages/instructions.md") != NULL);
            CHECK(study_page(st, "pages/debrief.md") == NULL);
            CHECK(study_page_text(st, "pages/instructions.md") != NULL);
        }
        study_free(st);
    }
    free(json);
}

/* `simlab check` on a bundle whose page shows ![A figure](fig.png) beside
** pages/fig.png: valid, exit status 0, as docs/runner.md promises. */
static void test_check_beside(void)
{
    const char *dir =
        bundle_with_page("check", "# Instructions\n\n![A figure](fig.png)\n");
    CHECK(dir && copy_into(dir, "media/page.png", "pages/fig.png") == 0);
    char *out = NULL;
    CHECK_INT(dir ? fs_check(dir, 0, &out) : -1, 0);
    CHECK(out && strstr(out, "error") == NULL);
    free(out);
    out = NULL;
    CHECK_INT(dir ? fs_check(dir, 1, &out) : -1, 0);
    CHECK(out && strstr(out, "\"valid\": true") != NULL);
    free(out);
}

/* Italic markers in markdown: a '*' inside Chinese text marks a word; an
** ASCII "2*3*4" and snake_case stay as they are. */
static void test_italic_markers(void)
{
    static const struct {
        const char *md, *text;
        int em_spans;
    } cases[] = {
        {"\xe7\x9a\x84*\xe9\x9b\xaa*\xef\xbc\x8c", /* 的*雪*， */
         "\xe7\x9a\x84\xe9\x9b\xaa\xef\xbc\x8c", 1},
        {"2*3*4 and x*y*z", "2*3*4 and x*y*z", 0},
        {"a snake_case_name", "a snake_case_name", 0},
        {"the *snow*, not the dog", "the snow, not the dog", 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        Page *pg = NULL;
        CHECK_INT(
            page_build_ex(cases[k].md, NULL, PAGE_MARKDOWN, NULL, NULL, &pg),
            0);
        if (!pg || pg->n_blocks != 1) {
            h_fail++;
            page_free(pg);
            continue;
        }
        const PageBlock *b = &pg->blocks[0];
        CHECK_STR(b->text, cases[k].text);
        int em = 0;
        for (size_t i = 0; i < b->n_spans; i++) {
            em += b->spans[i].em;
        }
        CHECK_INT(em, cases[k].em_spans);
        page_free(pg);
    }
}

int main(void)
{
    test_constructs();
    test_image_edges();
    test_parse_nomem();
    test_italic_markers();
    if (!fs_temp_dir(g_tmp, sizeof g_tmp, "stimuli-page")) {
        fprintf(stderr, "cannot make a scratch folder\n");
        return 1;
    }
    test_load_images();
    test_inline_text();
    test_check_beside();
    fs_remove_tree(g_tmp);
    return TEST_REPORT();
}

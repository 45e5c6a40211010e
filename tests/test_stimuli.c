/*
** Unit tests of the stimuli library on the valid fixtures: CSV (quoted
** multi-line fields, CRLF, record lines), JSON Lines, every modality and
** explanation kind, counterfactual formats, PNG/JPEG/.npy headers, bundle
** paths, preset expansion, defaults, the balance report, the bundle hash
** and allocation failures.
*/
#include "tests/test_stimuli_fs.h"

#include "tests/harness.h"
#include "stimuli/media.h"
#include "common/sim_alloc.h"
#include "stimuli/study.h"
#include "stimuli/bpath_int.h"
#include "stimuli/items_int.h"

static Study *load(const char *name, StudyReport *rep)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bundles/%s", SIMLAB_TEST_DATA, name);
    study_report_init(rep);
    Study *st = NULL;
    SimError err;
    int rc = study_load(dir, &st, rep, &err);
    if (rc != SIM_OK) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        for (size_t i = 0; i < rep->n_errors; i++) {
            fprintf(stderr, "  %s:%d: %s: %s\n", rep->errors[i].file,
                    rep->errors[i].line, rep->errors[i].field,
                    rep->errors[i].message);
        }
    }
    CHECK_INT(rc, SIM_OK);
    return st;
}

static const Item *item(const Study *st, const char *key)
{
    const Item *it = study_find_item(st, key);
    if (!it) {
        fprintf(stderr, "no item %s\n", key);
    }
    CHECK(it != NULL);
    return it;
}

static void test_valid_all(void)
{
    StudyReport rep;
    Study *st = load("valid-all", &rep);
    if (!st) {
        study_report_free(&rep);
        return;
    }
    CHECK_INT(rep.n_errors, 0);
    CHECK_INT(rep.n_warnings, 0);
    CHECK_STR(st->id, "valid-all");
    CHECK_STR(st->domain, "mixed");
    CHECK(st->preset == NULL);
    CHECK_STR(st->test_type, "counterfactual");
    CHECK_INT(strlen(st->hash), 64);
    CHECK(st->json_text && st->json_text[0] == '{');
    CHECK(strstr(st->json_text, "\"valid-all\"") != NULL);

    /* classes: default key by position */
    CHECK_INT(st->n_classes, 2);
    CHECK_STR(st->classes[0].key, "1");
    CHECK_STR(st->classes[1].key, "n");
    CHECK_STR(st->classes[0].label, "Positive");
    CHECK_INT(study_class_index(st, "neg"), 1);
    CHECK_INT(study_class_index(st, "cat"), -1);

    CHECK_INT(st->n_conditions, 2);
    CHECK(study_find_condition(st, "baseline")->method == NULL);
    CHECK_STR(study_find_condition(st, "mix")->label,
              "one payload of every kind");
    CHECK_STR(st->baseline, "baseline");
    CHECK_INT(study_condition_index(st, "mix"), 1);

    CHECK_INT(st->assignment.rule, ASSIGN_BALANCED);
    CHECK_INT(st->assignment.active_minutes, 30);
    CHECK_INT(st->screening.max_catch_failures, -1);
    CHECK_INT(st->screening.practice_min_first_try, -1);
    CHECK_INT(st->screening.quiz_all_first_try, 0);
    CHECK_NEAR(st->screening.min_total_seconds, 60, 0);
    CHECK_STR(st->rating.question, "How useful was this?");
    CHECK_INT(st->rating.points, 5);
    CHECK_STR(st->rating.low, "Not at all");
    CHECK_NEAR(st->simulation.p_default, 0.7, 1e-12);
    CHECK_NEAR(st->simulation.rt_median_ms, 1800, 0);
    CHECK_NEAR(st->simulation.item_sd, 0.5, 0);
    CHECK_NEAR(st->simulation.catch_p, 0.95, 0);
    CHECK_NEAR(st->simulation.quiz_p, 0.9, 0);
    CHECK_INT(st->simulation.n_cells, 2);
    CHECK_STR(st->simulation.cells[0].phase, "post");
    CHECK_NEAR(st->simulation.cells[0].p, 0.8, 1e-12);
    CHECK(st->simulation.cells[1].condition == NULL); /* null: any */
    CHECK_STR(st->simulation.cells[1].phase, "pre");

    /* explicit blocks with defaults */
    CHECK_INT(st->n_blocks, 9);
    const Block *b = study_find_block(st, "consent1");
    CHECK(b && b->n_pages == 1 && strcmp(b->pages[0], "pages/consent.md") == 0);
    b = study_find_block(st, "instructions2");
    CHECK(b && b->n_pages == 1 && b->min_seconds == 10);
    b = study_find_block(st, "quiz3");
    CHECK(b && b->n_questions == 1 && b->questions[0].answer == 1 &&
          b->repeat_until_correct == 0 && b->questions[0].n_options == 2);
    b = study_find_block(st, "study");
    CHECK(b && b->order == ORDER_FIXED && b->show.label && b->show.prediction &&
          b->show.explanation && !b->rating);
    CHECK(b && b->phase_id == SIM_PHASE_LEARN &&
          strcmp(b->phase, "learn") == 0);
    b = study_find_block(st, "cf");
    CHECK(b && b->kind == BLOCK_COUNTERFACTUAL && b->pool &&
          strcmp(b->pool, "test") == 0 && b->n_items == 2 && b->rating);
    CHECK(b && b->phase_id == SIM_PHASE_POST && strcmp(b->phase, "post") == 0 &&
          b->show.explanation && b->show.label);
    b = study_find_block(st, "rate");
    CHECK(b && b->kind == BLOCK_RATING && b->rating &&
          b->draw == DRAW_PARTICIPANT);
    b = study_find_block(st, "break8");
    CHECK(b && b->kind == BLOCK_BREAK && b->min_seconds == 5 &&
          strcmp(b->text, "Take a breath.") == 0 && b->phase == NULL);
    CHECK(study_find_block(st, "nope") == NULL);

    /* pages read at load */
    const char *more = study_page_text(st, "pages/more.md");
    CHECK(more && strstr(more, "\xc3\x9cmlaut") != NULL);
    CHECK(study_page_text(st, "pages/instructions.md") != NULL);
    CHECK(study_page_text(st, "pages/none.md") == NULL);

    /* pools and items */
    CHECK_INT(st->n_items, 11);
    CHECK_INT(st->n_pools, 3);
    CHECK_STR(st->pools[0], "learn");

    const Item *it = item(st, "learn:i1");
    if (it) {
        CHECK_INT(it->input.modality, MODALITY_IMAGE);
        CHECK_STR(it->input.text, "media/cat.png");
        CHECK_INT(it->input.image_w, 8);
        CHECK_INT(it->input.image_h, 6);
        CHECK_STR(it->domain, "mixed");
        CHECK_STR(it->source_file, "items.jsonl");
        CHECK_INT(it->source_line, 1);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->kind == EXPL_HEATMAP && !e->file_is_npy &&
              e->map_w == 8 && e->map_h == 6);
        CHECK(e && strcmp(e->colormap, "magma") == 0 &&
              fabs(e->opacity - 0.7) < 1e-12 && !e->side_by_side);
        e = item_explanation(it, "ig");
        CHECK(e && e->file_is_npy && e->map_w == 8 && e->map_h == 6 &&
              e->side_by_side && strcmp(e->title, "Integrated Gradients") == 0);
        CHECK(e && strcmp(e->colormap, "viridis") == 0 &&
              fabs(e->opacity - 0.5) < 1e-12);
    }
    it = item(st, "learn:i2");
    if (it) {
        CHECK_INT(it->input.image_w, 16); /* JPEG SOF */
        CHECK_INT(it->input.image_h, 12);
        CHECK(it->cf && strcmp(it->cf->input.text, "media/cat.png") == 0 &&
              strcmp(it->cf->region, "media/cat-saliency.png") == 0);
        CHECK(it->cf && it->cf->prediction == 1);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->map_w == 8 && e->map_h == 6); /* half size, same ratio */
        CHECK_INT(it->source_line, 2);
    }
    it = item(st, "learn:t1");
    if (it) {
        CHECK_INT(it->source_line, 4); /* a blank line before it */
        CHECK(it->cf && strcmp(it->cf->input.text, "a dull film") == 0);
        CHECK(it->cf && it->cf->n_edits == 1 && it->cf->edits[0].start == 2 &&
              it->cf->edits[0].end == 6 &&
              strcmp(it->cf->edits[0].to, "dull") == 0);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->kind == EXPL_TOKENS && e->n_tokens == 3 &&
              strcmp(e->tokens[1].text, "fine") == 0 &&
              fabs(e->tokens[1].weight - 0.8) < 1e-12);
        e = item_explanation(it, "rules");
        CHECK(e && e->kind == EXPL_RULES && e->n_rules == 2 &&
              e->predicted == 0 && fabs(e->rules[0].precision - 0.95) < 1e-12);
        CHECK(e && isnan(e->rules[1].precision) &&
              e->rules[1].n_conditions == 2);
    }
    it = item(st, "learn:p1");
    if (it) {
        CHECK_INT(it->input.modality, MODALITY_TEXT_PAIR);
        CHECK_STR(it->input.text_b, "A person rests.");
        CHECK_STR(it->input.title_a, "Premise");
        CHECK_STR(it->input.title_b, "Hypothesis");
        CHECK(it->cf && strcmp(it->cf->input.text, "A man runs.") == 0 &&
              strcmp(it->cf->input.text_b, "A person rests.") == 0);
        CHECK(it->cf && it->cf->n_edits == 1 && it->cf->edits[0].start == 6 &&
              it->cf->edits[0].end == 10 && it->cf->edits[0].segment == 0);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->kind == EXPL_TOKEN_PAIRS && e->n_pairs == 1 &&
              e->pairs[0].a_start == 1 && e->pairs[0].a_end == 2 &&
              e->pairs[0].b_start == 3 && e->tokens[3].segment == 1);
        e = item_explanation(it, "spans");
        CHECK(e && e->kind == EXPL_SPAN_PAIRS && e->pairs[0].a_end == 2 &&
              e->pairs[0].b_start == 2 && e->pairs[0].b_end == 4 &&
              e->pairs[0].weight < 0);
    }
    it = item(st, "learn:r1");
    if (it) {
        CHECK_STR(it->domain, "census");
        CHECK_INT(it->input.n_features, 2);
        CHECK_STR(it->input.features[1].value, "45"); /* from a number */
        CHECK(it->cf && it->cf->n_edits == 1 &&
              strcmp(it->cf->edits[0].feature, "Age") == 0 &&
              strcmp(it->cf->edits[0].from, "37") == 0 &&
              strcmp(it->cf->edits[0].to, "52") == 0);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->kind == EXPL_FEATURES && e->n_features == 2 &&
              fabs(e->intercept - 0.3) < 1e-12 &&
              fabs(e->output - 0.2) < 1e-12);
        CHECK(e && strcmp(e->features[0].value, "37") == 0 &&
              e->features[1].value == NULL);
        e = item_explanation(it, "proto");
        CHECK(e && e->kind == EXPL_PROTOTYPE && e->n_rows == 1 &&
              strcmp(e->rows[0].other, "35") == 0 &&
              strcmp(e->rows[0].value, "37") == 0 && e->predicted == 1 &&
              e->n_features == 1 && fabs(e->prototype_evidence + 2.5) < 1e-12);
        e = item_explanation(it, "path");
        CHECK(e && e->kind == EXPL_PATH && e->n_steps == 2 &&
              e->steps[1].n_edits == 2 && e->predicted == 0 &&
              fabs(e->start_margin + 1.2) < 1e-12);
    }
    it = item(st, "learn:7"); /* integer id */
    if (it) {
        CHECK_STR(it->id, "7");
        CHECK_INT(it->input.n_features, 2);
        CHECK(it->cf && it->cf->input.n_features == 2 &&
              strcmp(it->cf->input.features[0].value, "40") == 0 &&
              strcmp(it->cf->input.features[1].value, "20") == 0);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->kind == EXPL_COMPOSITE && e->n_parts == 2 &&
              strcmp(e->title, "Two views") == 0 &&
              e->parts[0].kind == EXPL_TEXT &&
              strcmp(e->parts[0].title, "Summary") == 0 &&
              strcmp(e->parts[1].text, "A plain text part.") == 0);
    }

    /* CSV: CRLF, quoted multi-line cells, a blank line, physical lines */
    it = item(st, "test:c1");
    if (it) {
        CHECK_STR(it->source_file, "tables/items.csv");
        CHECK_INT(it->source_line, 2);
        CHECK_INT(it->input.n_features, 3);
        CHECK_STR(it->input.features[0].value, "37");
        CHECK_STR(it->input.features[2].name, "Workclass");
        CHECK(it->cf && it->cf->n_edits == 1 &&
              strcmp(it->cf->input.features[0].value, "52") == 0 &&
              strcmp(it->cf->input.features[1].value, "45") == 0);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->kind == EXPL_FEATURES && e->n_features == 1);
        e = item_explanation(it, "notes");
        CHECK(e && e->kind == EXPL_COMPOSITE && e->n_parts == 2 &&
              strcmp(e->title, "Notes") == 0 &&
              strcmp(e->parts[0].text, "first part\nover two lines") == 0);
    }
    it = item(st, "test:c2");
    if (it) {
        CHECK_INT(it->source_line, 5);
        CHECK_STR(it->input.features[1].value, "Hours per week > 45.00");
        CHECK(it->cf && it->cf->n_edits == 2 &&
              strcmp(it->cf->input.features[1].value,
                     "Hours per week <= 40.00") == 0 &&
              strcmp(it->cf->input.features[2].value, "Private") == 0);
        const Explanation *e = item_explanation(it, "notes");
        CHECK(e && e->title == NULL);
    }
    it = item(st, "test:c3");
    if (it) {
        CHECK_INT(it->source_line, 10);
        CHECK_INT(it->label, 1);
        CHECK_INT(it->prediction, 0);
    }
    it = item(st, "test_text:a1");
    if (it) {
        CHECK_STR(it->domain, "reviews");
        CHECK_STR(it->input.text, "a gripping, \"taut\" thriller");
        CHECK(it->cf &&
              strcmp(it->cf->input.text, "a dull, \"taut\" thriller") == 0);
        const Explanation *e = item_explanation(it, "mix");
        CHECK(e && e->kind == EXPL_TEXT &&
              strcmp(e->text, "gripping: +0.6") == 0);
    }
    it = item(st, "test_text:a2");
    if (it && it->cf) {
        CHECK_STR(it->cf->input.text, "a lively fun mess");
        CHECK_INT(it->cf->n_edits, 2);
        CHECK(it->cf->n_edits == 2 && it->cf->edits[0].start == 2 &&
              it->cf->edits[0].end == 8 && it->cf->edits[1].start == 9 &&
              it->cf->edits[1].end == 12 &&
              strcmp(it->cf->edits[1].to, "fun") == 0);
    }
    CHECK(study_find_item(st, "test:i1") == NULL);

    /* balance */
    CHECK_INT(rep.n_pools, 3);
    const PoolBalance *p = &rep.pools[1];
    CHECK_STR(p->pool, "test");
    CHECK_INT(p->n, 3);
    CHECK_INT(p->tp, 1);
    CHECK_INT(p->fp, 1);
    CHECK_INT(p->tn, 1);
    CHECK_INT(p->fn, 0);
    CHECK_INT(p->correct, 2);
    CHECK_INT(p->incorrect, 1);
    CHECK_INT(p->n_cf, 3);
    CHECK_INT(p->same, 1);
    CHECK_INT(p->flip, 2);
    CHECK_INT(p->same_by_type[0], 1); /* c2: TP, stays pos */
    CHECK_INT(p->flip_by_type[2], 1); /* c1: TN, flips */
    CHECK_INT(p->flip_by_type[1], 1); /* c3: FP, flips */
    CHECK_INT(p->same_by_pred[0], 1);
    CHECK_INT(p->flip_by_pred[0], 1);
    CHECK_INT(p->flip_by_pred[1], 1);

    /* names */
    CHECK_STR(modality_name(MODALITY_TEXT_PAIR), "text_pair");
    CHECK_STR(expl_kind_name(EXPL_SPAN_PAIRS), "span_pairs");
    CHECK_STR(block_kind_name(BLOCK_COUNTERFACTUAL), "counterfactual");

    /* the lookup works without the index too */
    struct StudyIndex *ix = st->index;
    st->index = NULL;
    CHECK(study_find_item(st, "test:c2") != NULL);
    CHECK(study_find_item(st, "test:zz") == NULL);
    st->index = ix;

    /* study_balance can be rerun on a fresh report */
    StudyReport r2;
    study_report_init(&r2);
    SimError err;
    CHECK_INT(study_balance(st, &r2, &err), SIM_OK);
    CHECK_INT(r2.n_pools, 3);
    CHECK_INT(r2.pools[0].tp, rep.pools[0].tp);
    study_report_free(&r2);

    study_free(st);
    study_report_free(&rep);
}

static const char *const meta_blocks[] = {
    "consent", "instructions", "practice", "quiz",    "s1-train",
    "s1-test", "break1",       "s2-train", "s2-test", "debrief"};

static void test_meta_preset(void)
{
    StudyReport rep;
    Study *st = load("valid-meta", &rep);
    if (!st) {
        study_report_free(&rep);
        return;
    }
    CHECK_INT(rep.n_warnings, 0);
    CHECK_STR(st->preset, "meta-predictor");
    CHECK_NEAR(st->simulation.p_default, 0.65, 1e-12); /* "p" */
    CHECK_STR(st->test_type, "forward");
    CHECK_INT(st->n_blocks, 10);
    for (size_t i = 0; i < st->n_blocks && i < 10; i++) {
        CHECK_STR(st->blocks[i].id, meta_blocks[i]);
    }
    /* screening defaults of the preset, one field overridden */
    CHECK_INT(st->screening.practice_min_first_try, 1);
    CHECK_INT(st->screening.quiz_all_first_try, 1);
    CHECK_INT(st->screening.max_catch_failures, 0);
    CHECK_NEAR(st->screening.min_total_seconds, 30, 0);
    const Block *b = study_find_block(st, "practice");
    CHECK(b && b->feedback && b->retry && b->n_items == 2 &&
          strcmp(b->train_pool, "practice_train") == 0 &&
          b->phase_id == SIM_PHASE_PRACTICE &&
          strcmp(b->phase, "practice") == 0);
    b = study_find_block(st, "s1-train");
    CHECK(b && b->kind == BLOCK_LEARN && b->session == 1 && b->n_items == 2 &&
          b->phase_id == SIM_PHASE_TRAIN && strcmp(b->phase, "train") == 0 &&
          !b->show.label && b->show.prediction && b->show.explanation &&
          b->exclude_items_of == NULL);
    b = study_find_block(st, "s2-train");
    CHECK(b && b->session == 2 && strcmp(b->exclude_items_of, "s1-train") == 0);
    b = study_find_block(st, "s2-test");
    CHECK(b && b->kind == BLOCK_PREDICT && b->session == 2 && b->n_catch == 1 &&
          strcmp(b->reservoir, "s2-train") == 0 && b->show.reservoir &&
          !b->show.prediction && strcmp(b->exclude_items_of, "s1-test") == 0 &&
          b->phase_id == SIM_PHASE_TEST && strcmp(b->phase, "test") == 0);
    b = study_find_block(st, "break1");
    CHECK(b && b->kind == BLOCK_BREAK && b->text != NULL);
    b = study_find_block(st, "quiz");
    CHECK(b && b->n_questions == 1 && b->repeat_until_correct);
    /* the control map is smaller than the image with the same ratio */
    const Item *it = item(st, "train:tr0");
    const Explanation *e = it ? item_explanation(it, "control") : NULL;
    CHECK(e && e->map_w == 5 && e->map_h == 5 &&
          strcmp(e->colormap, "gray") == 0);
    CHECK_INT(st->n_methods, 2);
    study_free(st);
    study_report_free(&rep);
}

static int has_warning(const StudyReport *rep, const char *text)
{
    for (size_t i = 0; i < rep->n_warnings; i++) {
        if (strstr(rep->warnings[i].message, text)) {
            return 1;
        }
    }
    return 0;
}

static void test_hase_presets(void)
{
    StudyReport rep;
    Study *st = load("valid-hase-fwd", &rep);
    if (st) {
        CHECK_STR(st->preset, "hase-forward");
        CHECK_STR(st->test_type, "forward");
        CHECK_INT(st->n_blocks, 4); /* no pages, no quiz */
        const char *ids[] = {"learn1", "pre", "learn2", "post"};
        for (size_t i = 0; i < 4 && i < st->n_blocks; i++) {
            CHECK_STR(st->blocks[i].id, ids[i]);
        }
        const Block *b = study_find_block(st, "learn1");
        CHECK(b && strcmp(b->pool, "dev") == 0 && b->n_items == 2 &&
              b->show.label && b->show.prediction && !b->show.explanation &&
              !b->rating);
        b = study_find_block(st, "pre");
        CHECK(b && b->kind == BLOCK_PREDICT && b->phase_id == SIM_PHASE_PRE &&
              strcmp(b->phase, "pre") == 0 && strcmp(b->pool, "test") == 0 &&
              b->n_items == 3 && !b->show.prediction && !b->show.label);
        b = study_find_block(st, "learn2");
        CHECK(b && strcmp(b->same_items_as, "learn1") == 0 &&
              b->show.explanation && b->rating);
        b = study_find_block(st, "post");
        CHECK(b && strcmp(b->same_items_as, "pre") == 0 &&
              b->phase_id == SIM_PHASE_POST && strcmp(b->phase, "post") == 0);
        /* defaults of everything the study leaves out */
        CHECK_STR(st->classes[0].key, "1");
        CHECK_STR(st->classes[1].key, "2");
        CHECK_STR(st->classes[1].label, "neg");
        CHECK_STR(st->rating.question, "Does this explanation show me why "
                                       "the system thought what it did?");
        CHECK_INT(st->rating.points, 7);
        CHECK_NEAR(st->simulation.p_default, 0.6, 0);
        CHECK_NEAR(st->simulation.participant_sd, 0.5, 0);
        CHECK_NEAR(st->simulation.rt_median_ms, 2500, 0);
        CHECK_NEAR(st->simulation.rt_sigma, 0.5, 0);
        CHECK_INT(st->assignment.rule, ASSIGN_BALANCED);
        CHECK_INT(st->assignment.active_minutes, 60);
        CHECK_INT(st->screening.practice_min_first_try, -1);
        CHECK_INT(st->screening.max_catch_failures, -1);
        CHECK_INT(st->screening.quiz_all_first_try, 0);
        CHECK_NEAR(st->screening.min_total_seconds, 0, 0);
        CHECK_STR(st->baseline, "baseline");
        const Item *it = item(st, "dev:d2");
        const Explanation *e = it ? item_explanation(it, "LIME") : NULL;
        CHECK(e && e->kind == EXPL_TOKENS && strcmp(e->title, "Words") == 0);
        CHECK_INT(rep.n_warnings, 3);
        CHECK(has_warning(&rep, "test pool 'test' is not balanced (TP 1, FP "
                                "0, TN 1, FN 1)"));
        CHECK(has_warning(&rep, "no consent page"));
    }
    study_free(st);
    study_report_free(&rep);

    st = load("valid-hase-cf", &rep);
    if (st) {
        CHECK_STR(st->test_type, "counterfactual");
        CHECK_INT(st->n_blocks, 2);
        const Block *b = study_find_block(st, "pre");
        CHECK(b && b->kind == BLOCK_COUNTERFACTUAL && !b->show.label &&
              b->show.prediction && !b->show.explanation && b->n_items == 8);
        b = study_find_block(st, "post");
        CHECK(b && b->show.explanation && !b->rating && !b->show.label &&
              strcmp(b->same_items_as, "pre") == 0);
        CHECK_INT(st->assignment.rule, ASSIGN_HASE);
        CHECK_INT(st->assignment.min_complete, 3);
        CHECK_STR(st->assignment.then_condition, "LIME");
        const Item *it = item(st, "cf:7");
        CHECK(it && it->source_line == 8 &&
              strcmp(it->input.text, "fine,\nreally") == 0);
        CHECK(rep.n_pools == 1 && rep.pools[0].tp == 2 && rep.pools[0].fn == 2);
        CHECK(rep.n_pools == 1 && rep.pools[0].same_by_type[0] == 2 &&
              rep.pools[0].flip_by_type[0] == 0 &&
              rep.pools[0].flip_by_type[3] == 2);
        CHECK(has_warning(&rep, "(TP: 2 same, 0 flip)"));
        CHECK(has_warning(&rep, "(FN: 0 same, 2 flip)"));
        CHECK(!has_warning(&rep, "FP:"));
        CHECK(!has_warning(&rep, "TP 2"));
    }
    study_free(st);
    study_report_free(&rep);
}

/* The default pool names of a preset (valid-hase-cf overrides them). */
static const char default_pools_json[] =
    "{\"simlab_study\": 1, \"id\": \"defaults\", \"title\": \"t\",\n"
    " \"classes\": [\"pos\", \"neg\"],\n"
    " \"conditions\": [{\"id\": \"LIME\", \"method\": \"LIME\"}],\n"
    " \"protocol\": {\"preset\": \"hase-counterfactual\", \"n_test\": 8},\n"
    " \"items\": [{\"file\": \"cf.csv\", \"pool\": \"test\", \"modality\": "
    "\"text\",\n"
    "   \"columns\": {\"id\": \"id\", \"input\": \"context\", \"label\": "
    "\"label\",\n"
    "     \"prediction\": \"model\", \"perturbation\": \"perturbation\",\n"
    "     \"perturbation_prediction\": \"perturbation_model\",\n"
    "     \"explanation:LIME\": \"explanation\"}}]}\n";

static void test_preset_default_pools(void)
{
    char src[1024], tmp[256], dir[512], path[600];
    snprintf(src, sizeof src, "%s/bundles/valid-hase-cf", SIMLAB_TEST_DATA);
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-defaults")) {
        CHECK(!"mkdtemp");
        return;
    }
    snprintf(dir, sizeof dir, "%s/b", tmp);
    CHECK_INT(fs_copy_tree(src, dir), 0);
    snprintf(path, sizeof path, "%s/study.json", dir);
    CHECK_INT(fs_write(path, default_pools_json, strlen(default_pools_json)),
              0);
    StudyReport rep;
    study_report_init(&rep);
    Study *st = NULL;
    SimError err;
    CHECK_INT(study_load(dir, &st, &rep, &err), SIM_OK);
    const Block *b = st ? study_find_block(st, "pre") : NULL;
    CHECK(b && strcmp(b->pool, "test") == 0 && b->n_items == 8);
    b = st ? study_find_block(st, "post") : NULL;
    CHECK(b && b->rating && b->show.label && b->show.explanation);
    CHECK(st && study_find_item(st, "test:3") != NULL);
    study_free(st);
    study_report_free(&rep);
    fs_remove_tree(tmp);
}

static void test_media(void)
{
    char path[1024];
    int w = 0, h = 0;
    SimError err;
    snprintf(path, sizeof path, "%s/bundles/valid-all/media/cat.png",
             SIMLAB_TEST_DATA);
    CHECK_INT(media_image_size(path, &w, &h, &err), SIM_OK);
    CHECK(w == 8 && h == 6);
    snprintf(path, sizeof path, "%s/bundles/valid-all/media/dog.jpg",
             SIMLAB_TEST_DATA);
    CHECK_INT(media_image_size(path, &w, &h, &err), SIM_OK);
    CHECK(w == 16 && h == 12);
    snprintf(path, sizeof path, "%s/bundles/bad-media/media/notpng.png",
             SIMLAB_TEST_DATA);
    CHECK_INT(media_image_size(path, &w, &h, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "not a PNG or JPEG") != NULL);
    CHECK_INT(media_image_size("no/such.png", &w, &h, &err), SIM_ERR_IO);

    float *data = NULL;
    snprintf(path, sizeof path, "%s/bundles/valid-all/media/dog-ig.npy",
             SIMLAB_TEST_DATA);
    CHECK_INT(media_npy_read(path, &data, &h, &w, &err), SIM_OK);
    CHECK(h == 6 && w == 8 && data && data[0] == 0.0f && data[47] == 0.0f);
    sim_free(data);
    long off = 0;
    CHECK_INT(media_npy_info(path, &h, &w, &off, &err), SIM_OK);
    CHECK_INT(off, 128);
    snprintf(path, sizeof path, "%s/bundles/bad-media/media/short.npy",
             SIMLAB_TEST_DATA);
    CHECK_INT(media_npy_read(path, &data, &h, &w, &err), SIM_ERR_PARSE);
    CHECK(data == NULL);
    /* the header alone is fine, but info promises the data is all there */
    CHECK_INT(media_npy_info(path, &h, &w, &off, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "truncated .npy data") != NULL);
    snprintf(path, sizeof path, "%s/bundles/bad-media/media/wrong-dtype.npy",
             SIMLAB_TEST_DATA);
    CHECK_INT(media_npy_info(path, &h, &w, &off, &err), SIM_ERR_PARSE);
    CHECK(strstr(err.msg, "'<f8'") != NULL);
    CHECK_INT(media_npy_info("no/such.npy", &h, &w, &off, &err), SIM_ERR_IO);
}

static void test_text_helpers(void)
{
    Study st;
    memset(&st, 0, sizeof st);
    Loader L;
    memset(&L, 0, sizeof L);
    L.st = &st;
    char *plain = NULL;
    Edit *edits = NULL;
    size_t n = 0;
    CHECK_INT(items_parse_marked(&L, "**a** b **cd**", 1, &plain, &edits, &n),
              0);
    CHECK_STR(plain, "a b cd");
    CHECK_INT(n, 2);
    CHECK(n == 2 && edits[0].start == 0 && edits[0].end == 1 &&
          edits[1].start == 4 && edits[1].end == 6 && edits[1].segment == 1);
    for (size_t i = 0; i < n; i++) {
        sim_free(edits[i].to);
    }
    sim_free(edits);
    sim_free(plain);
    CHECK_INT(items_parse_marked(&L, "no **end", 0, &plain, &edits, &n), -1);
    CHECK(plain == NULL && edits == NULL && n == 0);
    CHECK_INT(items_parse_marked(&L, "", 0, &plain, &edits, &n), 0);
    CHECK_STR(plain, "");
    sim_free(plain);

    Feature *f = NULL;
    int bad = 0;
    CHECK_INT(items_parse_features(&L, "Age = Age > 48.00\n\nSex = Male\n", &f,
                                   &n, &bad),
              0);
    CHECK_INT(n, 2);
    CHECK(n == 2 && strcmp(f[0].name, "Age") == 0 &&
          strcmp(f[0].value, "Age > 48.00") == 0);
    for (size_t i = 0; i < n; i++) {
        sim_free(f[i].name);
        sim_free(f[i].value);
    }
    sim_free(f);
    CHECK_INT(items_parse_features(&L, "Age = 3\nbroken\n", &f, &n, &bad), -1);
    CHECK_INT(bad, 2);
    for (size_t i = 0; i < n; i++) {
        sim_free(f[i].name);
        sim_free(f[i].value);
    }
    sim_free(f);
    CHECK(!L.oom);
}

static void test_paths(void)
{
    char root[1024];
    snprintf(root, sizeof root, "%s/bundles/bad-paths", SIMLAB_TEST_DATA);
    char *real = realpath(root, NULL);
    CHECK(real != NULL);
    if (!real) {
        return;
    }
    Study st;
    memset(&st, 0, sizeof st);
    Loader L;
    memset(&L, 0, sizeof L);
    L.st = &st;
    L.root = real;
    L.root_len = strlen(real);
    char why[512], *abs = NULL;
    CHECK_INT(bpath_file(&L, "media/ok.png", &abs, why, sizeof why), 0);
    CHECK(abs && strncmp(abs, real, strlen(real)) == 0);
    sim_free(abs);
    CHECK_INT(bpath_file(&L, "./media//ok.png", NULL, why, sizeof why), 0);
    CHECK_INT(bpath_file(&L, "/etc/passwd", NULL, why, sizeof why), -1);
    CHECK(strstr(why, "absolute") != NULL);
    CHECK_INT(bpath_file(&L, "media/../media/ok.png", NULL, why, sizeof why),
              -1);
    CHECK(strstr(why, "'..'") != NULL);
    CHECK_INT(bpath_file(&L, "..", NULL, why, sizeof why), -1);
    CHECK_INT(bpath_file(&L, "media/outside.png", NULL, why, sizeof why), -1);
    CHECK(strstr(why, "outside the bundle") != NULL);
    CHECK_INT(bpath_file(&L, "media", NULL, why, sizeof why), -1);
    CHECK(strstr(why, "not a regular file") != NULL);
    CHECK_INT(bpath_file(&L, "media/none.png", NULL, why, sizeof why), -1);
    CHECK(strstr(why, "no such file") != NULL);
    CHECK_INT(bpath_file(&L, "", NULL, why, sizeof why), -1);
    CHECK_INT(bpath_file(&L, "..hidden/x", NULL, why, sizeof why), -1);
    CHECK(strstr(why, "no such file") != NULL); /* "..hidden" is a name */
    free(real);
}

static void test_hash(void)
{
    char src[1024], tmp[256];
    snprintf(src, sizeof src, "%s/bundles/valid-hase-fwd", SIMLAB_TEST_DATA);
    if (!fs_temp_dir(tmp, sizeof tmp, "stimuli-hash")) {
        CHECK(!"mkdtemp");
        return;
    }
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/a", tmp);
    snprintf(b, sizeof b, "%s/b", tmp);
    CHECK_INT(fs_copy_tree(src, a), 0);
    CHECK_INT(fs_copy_tree(src, b), 0);
    Study *sa = NULL, *sb = NULL;
    SimError err;
    CHECK_INT(study_load(a, &sa, NULL, &err), SIM_OK);
    CHECK_INT(study_load(b, &sb, NULL, &err), SIM_OK);
    if (sa && sb) {
        CHECK_STR(sa->hash, sb->hash); /* the folder's name does not count */
    }
    /* an extra file changes the hash, as does one changed byte */
    char path[1024];
    snprintf(path, sizeof path, "%s/notes.txt", b);
    fs_write(path, "x", 1);
    Study *sc = NULL;
    CHECK_INT(study_load(b, &sc, NULL, &err), SIM_OK);
    if (sa && sc) {
        CHECK(strcmp(sa->hash, sc->hash) != 0);
    }
    study_free(sc);
    sc = NULL;
    fs_write(path, "y", 1);
    CHECK_INT(study_load(b, &sc, NULL, &err), SIM_OK);
    Study *sd = NULL;
    fs_write(path, "x", 1);
    CHECK_INT(study_load(b, &sd, NULL, &err), SIM_OK);
    if (sc && sd) {
        CHECK(strcmp(sc->hash, sd->hash) != 0);
    }
    study_free(sa);
    study_free(sb);
    study_free(sc);
    study_free(sd);
    fs_remove_tree(tmp);
}

/* Every allocation that can fail does so once: the load must report it
** (or an error it caused) and free everything; ASan checks for leaks. */
static void test_alloc_failures(const char *name)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/bundles/%s", SIMLAB_TEST_DATA, name);
    int nomem = 0, ok = 0, bad = 0;
    for (long n = 0; n < 100000; n++) {
        StudyReport rep;
        study_report_init(&rep);
        Study *st = NULL;
        SimError err;
        sim_alloc_fail_after(n);
        int rc = study_load(dir, &st, &rep, &err);
        sim_alloc_fail_after(-1);
        if (rc == SIM_ERR_NOMEM) {
            nomem++;
            bad += st != NULL;
        } else if (rc == SIM_OK) {
            ok = 1;
        }
        study_free(st);
        study_report_free(&rep);
        if (ok) {
            break;
        }
    }
    CHECK(ok);
    CHECK(nomem > 50);
    CHECK_INT(bad, 0);
}

int main(void)
{
    test_valid_all();
    test_meta_preset();
    test_hase_presets();
    test_preset_default_pools();
    test_media();
    test_text_helpers();
    test_paths();
    test_hash();
    test_alloc_failures("valid-hase-fwd");
    test_alloc_failures("valid-all");
    return TEST_REPORT();
}

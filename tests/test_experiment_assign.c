/*
** The assignment rules without a database: who fills a condition (the
** activity window, completed vs excluded, dropped-out participants), the
** balanced rule and its random tie-break, Hase & Bansal's rule, the
** experimenter's override, and the same choice for the same counts and
** seed.
*/
#include "tests/harness.h"

#include "experiment/assign.h"

static char id_a[] = "A", id_b[] = "B", id_c[] = "C", id_d[] = "D";
static char then_c[] = "C", then_other[] = "Other";

/* A study with only what assignment reads: n conditions A.. and a rule. */
static Study make_study(size_t n, AssignRule rule, int min_complete,
                        char *then_condition, Condition *conds)
{
    char *ids[] = {id_a, id_b, id_c, id_d};
    Study st;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < n; i++) {
        memset(&conds[i], 0, sizeof conds[i]);
        conds[i].id = ids[i];
    }
    st.conditions = conds;
    st.n_conditions = n;
    st.assignment.rule = rule;
    st.assignment.min_complete = min_complete;
    st.assignment.then_condition = then_condition;
    st.assignment.active_minutes = 60;
    return st;
}

static void test_window(void)
{
    Assignment a;
    memset(&a, 0, sizeof a);
    a.active_minutes = 60;
    CHECK_INT(assign_active_since(&a, 10000000), 10000000 - 3600000);
    a.active_minutes = 1;
    CHECK_INT(assign_active_since(&a, 60000), 0);
    a.active_minutes = 100000; /* the largest study.json allows */
    CHECK_INT(assign_active_since(&a, 0), -6000000000LL);
}

/* Adds a group: status, how many are not excluded, how many are recent. */
static void add(AssignCount *c, ParticipantStatus status, int n_included,
                int n_recent)
{
    AssignGroup g = {status, n_included, n_recent};
    assign_count_add(c, &g);
}

static void test_count(void)
{
    AssignCount c = {0, 0};
    /* completed: the ones not excluded, recent or not */
    add(&c, PSTATUS_COMPLETED, 2, 0);
    CHECK_INT(c.done, 2);
    CHECK_INT(c.active, 0);
    add(&c, PSTATUS_COMPLETED, 0, 5); /* all excluded */
    CHECK_INT(c.done, 2);
    /* in progress: the recent ones, excluded or not (an excluded
    ** participant still running holds the place) */
    add(&c, PSTATUS_ACTIVE, 0, 3);
    CHECK_INT(c.active, 3);
    add(&c, PSTATUS_ACTIVE, 4, 0); /* gone quiet */
    CHECK_INT(c.active, 3);
    add(&c, PSTATUS_ACTIVE, 2, 1);
    CHECK_INT(c.active, 4);
    CHECK_INT(c.done, 2);
    /* dropped out: never counts, however recent */
    add(&c, PSTATUS_ABORTED, 7, 7);
    add(&c, PSTATUS_DECLINED, 7, 7);
    add(&c, PSTATUS_SCREENED_OUT, 7, 7);
    add(&c, PSTATUS_SCREENED_OUT, 0, 0);
    CHECK_INT(c.done, 2);
    CHECK_INT(c.active, 4);
}

static void test_least_filled(void)
{
    Condition conds[4];
    Study st = make_study(3, ASSIGN_BALANCED, 0, NULL, conds);
    /* fill = done + active: B has 1 + 0, A 0 + 2, C 1 + 1 */
    AssignCount counts[3] = {{0, 2}, {1, 0}, {1, 1}};
    for (uint64_t seed = 1; seed <= 50; seed++) {
        AssignChoice ch;
        assign_choose(&st, counts, NULL, seed, &ch);
        CHECK_INT(ch.why, ASSIGN_WHY_LEAST_FILLED);
        CHECK_INT(ch.condition, 1);
        CHECK_STR(ch.id, "B");
        CHECK_STR(ch.assigned_by, "balanced");
        CHECK_INT(ch.fill, 1);
        CHECK_INT(ch.n_tied, 1);
        CHECK_INT(ch.n_full, 0);
    }
    /* the id is the study's own string */
    AssignChoice ch;
    assign_choose(&st, counts, NULL, 1, &ch);
    CHECK(ch.id == conds[1].id);
}

static void test_ties(void)
{
    Condition conds[4];
    Study st = make_study(4, ASSIGN_BALANCED, 0, NULL, conds);
    /* all tied: every condition comes up about equally often */
    AssignCount even[4] = {{2, 0}, {1, 1}, {0, 2}, {2, 0}};
    int hits[4] = {0, 0, 0, 0};
    for (uint64_t seed = 1; seed <= 4000; seed++) {
        AssignChoice ch;
        assign_choose(&st, even, NULL, seed, &ch);
        CHECK_INT(ch.why, ASSIGN_WHY_TIE_BROKEN);
        CHECK_INT(ch.n_tied, 4);
        CHECK_INT(ch.fill, 2);
        if (ch.condition >= 0 && ch.condition < 4) {
            hits[ch.condition]++;
        }
    }
    for (int c = 0; c < 4; c++) {
        CHECK(hits[c] > 850 && hits[c] < 1150);
    }
    /* a tie among some: only those are drawn */
    AssignCount some[4] = {{1, 0}, {0, 0}, {3, 0}, {0, 0}};
    int b = 0, d = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        AssignChoice ch;
        assign_choose(&st, some, NULL, seed, &ch);
        CHECK(ch.condition == 1 || ch.condition == 3);
        CHECK_INT(ch.n_tied, 2);
        CHECK_INT(ch.fill, 0);
        b += ch.condition == 1;
        d += ch.condition == 3;
    }
    CHECK(b > 150 && d > 150);
}

/* The same counts and seed give the same choice, and the draws are those
** the database recorded before assignment became its own module (changing
** them would change which condition replayed simulations assign). */
static void test_determinism(void)
{
    Condition conds[4];
    Study st = make_study(4, ASSIGN_BALANCED, 0, NULL, conds);
    AssignCount even[4] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};
    static const int want[12] = {0, 3, 3, 1, 1, 0, 2, 0, 3, 3, 3, 1};
    for (uint64_t seed = 1; seed <= 12; seed++) {
        AssignChoice first, again;
        assign_choose(&st, even, NULL, seed, &first);
        assign_choose(&st, even, NULL, seed, &again);
        CHECK_INT(first.condition, again.condition);
        CHECK_INT(first.condition, want[seed - 1]);
    }
    /* the seed matters only on a tie */
    AssignCount one[4] = {{1, 0}, {0, 1}, {1, 1}, {0, 0}};
    for (uint64_t seed = 1; seed <= 12; seed++) {
        AssignChoice ch;
        assign_choose(&st, one, NULL, seed, &ch);
        CHECK_INT(ch.condition, 3);
    }
}

static void test_hase(void)
{
    Condition conds[4];
    Study st = make_study(3, ASSIGN_HASE, 2, then_c, conds);
    /* conditions below min_complete are filled, least-filled first */
    AssignCount counts[3] = {{1, 0}, {0, 0}, {0, 1}};
    AssignChoice ch;
    assign_choose(&st, counts, NULL, 9, &ch);
    CHECK_INT(ch.condition, 1);
    CHECK_STR(ch.assigned_by, "hase");
    CHECK_INT(ch.why, ASSIGN_WHY_LEAST_FILLED);
    CHECK_INT(ch.n_full, 0);

    /* conditions that reached min_complete are closed; active
    ** participants count towards it */
    AssignCount some_full[3] = {{1, 1}, {0, 1}, {3, 0}};
    assign_choose(&st, some_full, NULL, 9, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_LEAST_FILLED);
    CHECK_INT(ch.condition, 1);
    CHECK_INT(ch.n_full, 2);
    /* a tie among the open ones is drawn as in the balanced rule */
    AssignCount open_tie[3] = {{0, 0}, {2, 0}, {0, 0}};
    int a = 0, c = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        assign_choose(&st, open_tie, NULL, seed, &ch);
        CHECK_INT(ch.why, ASSIGN_WHY_TIE_BROKEN);
        CHECK_INT(ch.n_tied, 2);
        CHECK_INT(ch.n_full, 1);
        a += ch.condition == 0;
        c += ch.condition == 2;
    }
    CHECK(a > 60 && c > 60 && a + c == 200);

    /* every condition reached min_complete: everyone goes to then */
    AssignCount full[3] = {{2, 0}, {1, 1}, {0, 5}};
    for (uint64_t seed = 1; seed <= 20; seed++) {
        assign_choose(&st, full, NULL, seed, &ch);
        CHECK_INT(ch.why, ASSIGN_WHY_HASE_THEN);
        CHECK_STR(ch.id, "C");
        CHECK_INT(ch.condition, 2);
        CHECK_STR(ch.assigned_by, "hase");
        CHECK_INT(ch.n_full, 3);
    }
    /* then need not be one of the conditions filled first */
    st.assignment.then_condition = then_other;
    assign_choose(&st, full, NULL, 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_HASE_THEN);
    CHECK_STR(ch.id, "Other");
    CHECK_INT(ch.condition, -1);
    /* without then, nothing can be assigned */
    st.assignment.then_condition = NULL;
    assign_choose(&st, full, NULL, 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_NONE);
    CHECK(ch.id == NULL);
    CHECK_INT(ch.condition, -1);
    /* min_complete 0: then from the first participant on */
    st.assignment.then_condition = then_c;
    st.assignment.min_complete = 0;
    AssignCount empty[3] = {{0, 0}, {0, 0}, {0, 0}};
    assign_choose(&st, empty, NULL, 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_HASE_THEN);
    CHECK_STR(ch.id, "C");

    /* the balanced rule ignores min_complete and then */
    st.assignment.rule = ASSIGN_BALANCED;
    assign_choose(&st, full, NULL, 1, &ch); /* fills 2, 2, 5 */
    CHECK_INT(ch.why, ASSIGN_WHY_TIE_BROKEN);
    CHECK(ch.condition == 0 || ch.condition == 1);
    CHECK_INT(ch.n_tied, 2);
    CHECK_INT(ch.n_full, 0);
    CHECK_STR(ch.assigned_by, "balanced");
}

static void test_override(void)
{
    Condition conds[4];
    Study st = make_study(3, ASSIGN_HASE, 1, then_c, conds);
    AssignChoice ch;
    /* counts are not read: NULL is fine */
    assign_choose(&st, NULL, "B", 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_OVERRIDE);
    CHECK_INT(ch.condition, 1);
    CHECK_STR(ch.id, "B");
    CHECK(ch.id == conds[1].id);
    CHECK_STR(ch.assigned_by, "override");
    /* even into a condition the rule would not choose */
    AssignCount counts[3] = {{0, 0}, {5, 0}, {0, 0}};
    assign_choose(&st, counts, "B", 1, &ch);
    CHECK_INT(ch.condition, 1);
    /* an unknown condition is refused, case matters */
    assign_choose(&st, counts, "b", 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_UNKNOWN_OVERRIDE);
    CHECK(ch.id == NULL);
    CHECK_INT(ch.condition, -1);
    CHECK_STR(ch.assigned_by, "override");
    assign_choose(&st, counts, "", 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_UNKNOWN_OVERRIDE);
}

static void test_no_conditions(void)
{
    Condition conds[4];
    Study st = make_study(0, ASSIGN_BALANCED, 0, NULL, conds);
    AssignChoice ch;
    assign_choose(&st, NULL, NULL, 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_NONE);
    CHECK(ch.id == NULL);
    /* Hase with then but no conditions: nothing to fill first, so then */
    st.assignment.rule = ASSIGN_HASE;
    st.assignment.then_condition = then_other;
    assign_choose(&st, NULL, NULL, 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_NONE);
    /* one condition: no draw needed */
    st = make_study(1, ASSIGN_BALANCED, 0, NULL, conds);
    AssignCount one[1] = {{7, 3}};
    assign_choose(&st, one, NULL, 1, &ch);
    CHECK_INT(ch.why, ASSIGN_WHY_LEAST_FILLED);
    CHECK_STR(ch.id, "A");
    CHECK_INT(ch.fill, 10);
}

int main(void)
{
    test_window();
    test_count();
    test_least_filled();
    test_ties();
    test_determinism();
    test_hase();
    test_override();
    test_no_conditions();
    return TEST_REPORT();
}

/*
** `simlab check`: load a bundle, then print its expanded design, balance
** report, warnings and every located error. No SDL, no clock.
*/
#ifndef SIMLAB_STIMULI_CHECK_H
#define SIMLAB_STIMULI_CHECK_H

#include <stddef.h>
#include <stdio.h>

#include "common/sim_text.h"
#include "stimuli/study.h"

/* Checks the bundle in dir and prints the result to out: a readable report,
** or one JSON object when json is nonzero (keys: valid, errors, warnings,
** conditions, blocks, pools, ...). Returns the exit status of the command:
** 0 when the bundle is valid, 1 when it is not. */
int check_bundle(const char *dir, int json, FILE *out);

/* The condition orders of within-subject latin squares, from the caller
** (experiment/assign.h computes them; stimuli does not depend on it):
** rows(n) rows for n conditions, row(n, r, order) writes row r. */
typedef struct CheckOrders {
    size_t (*rows)(size_t n);
    void (*row)(size_t n, size_t r, int *order);
} CheckOrders;

/* check_bundle() that also lists a latin square's orders (text: one line
** per row; JSON: study.assignment.orders) when orders is not NULL. */
int check_bundle_orders(const char *dir, int json, FILE *out,
                        const CheckOrders *orders);

/* Where the item screens of a valid study put the explanation and the
** reservoir, from the caller (app/ lays screens out with SDL; stimuli does
** not): appends its report lines to lines and a warning to rep
** (check_report_add) for each screen that must scroll. */
typedef void (*CheckLayoutFn)(const Study *st, SimBuf *lines, StudyReport *rep);

/* check_bundle_orders() that, for a valid bundle, also runs layout (when
** not NULL): its lines come before the warnings, and its warnings are
** among them, counted in the summary (JSON: in "warnings"). */
int check_bundle_with(const char *dir, int json, FILE *out,
                      const CheckOrders *orders, CheckLayoutFn layout);

/* Appends a problem without a place in a file (file and field may be "")
** to rep: a warning when warn is nonzero, else an error. -1 when out of
** memory (nothing appended). */
int check_report_add(StudyReport *rep, int warn, const char *file,
                     const char *field, const char *message);

#endif

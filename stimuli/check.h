/*
** `simlab check`: load a bundle, then print its expanded design, balance
** report, warnings and every located error. No SDL, no clock.
*/
#ifndef SIMLAB_STIMULI_CHECK_H
#define SIMLAB_STIMULI_CHECK_H

#include <stdio.h>

/* Checks the bundle in dir and prints the result to out: a readable report,
** or one JSON object when json is nonzero (keys: valid, errors, warnings,
** conditions, blocks, pools, ...). Returns the exit status of the command:
** 0 when the bundle is valid, 1 when it is not. */
int check_bundle(const char *dir, int json, FILE *out);

#endif

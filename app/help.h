/*
** `simlab --help` and the usage lines of a usage error: one text, from
** which the manual page simlab(1) is also made (help2man). No SDL.
*/
#ifndef SIMLAB_APP_HELP_H
#define SIMLAB_APP_HELP_H

#include <stdio.h>

/* The synopsis of every command and a pointer to --help, to f. */
void help_usage(FILE *f);

/* The synopsis, what each command does and every option, to f. */
void help_full(FILE *f);

/* `simlab CMD --help`: CMD's synopsis lines, what it does and its options,
** to f; -1 (nothing written) when CMD is not a command. */
int help_command(FILE *f, const char *cmd);

#endif

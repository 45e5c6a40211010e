/*
** PostgreSQL URLs as simlab prints and stores them: recognised by their
** scheme, and always without their password (docs/multisite.md). libc only.
*/
#ifndef SIMLAB_COMMON_SIM_URL_H
#define SIMLAB_COMMON_SIM_URL_H

#include <stddef.h>

/* 1 when s starts with postgresql:// or postgres://. */
int sim_url_is_pg(const char *s);

/* Copies url to out with any password removed: "user:secret@" becomes
** "user@", "password=..." query parameters and, in a key=value string,
** password words are dropped. Always NUL-terminates (truncating). */
void sim_url_redact(const char *url, char *out, size_t size);

#endif

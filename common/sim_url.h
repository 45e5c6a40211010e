/*
** PostgreSQL connection strings as simlab checks, prints and stores them:
** read by libpq's own parser (PQconninfoParse), in every form libpq
** accepts (URIs, key=value words, percent-encoding, quoting), and always
** shown without their secrets (docs/multisite.md). libc and libpq.
*/
#ifndef SIMLAB_COMMON_SIM_URL_H
#define SIMLAB_COMMON_SIM_URL_H

#include <stddef.h>

/* 1 when s starts with postgresql:// or postgres://. */
int sim_url_is_pg(const char *s);

/* 1 when s names a server rather than a file: a postgresql:// or
** postgres:// URI, or a key=value connection string (an '=' in it, and
** either libpq reads it or no file has that name). A string that merely
** looks like one is taken for a server, so that it is checked, and never
** quoted, as a connection string that may hold a password. */
int sim_url_is_server(const char *s);

/* 1 when libpq can read conninfo. Else 0 and why (may be NULL) holds what
** libpq objects to, cut before the first quoted text, which could be
** part of a password (libpq quotes the string it cannot read). */
int sim_url_valid(const char *conninfo, char *why, size_t why_size);

/* The connection string as a postgresql:// URI rebuilt from what libpq
** read (user, host and port, database, other parameters percent-encoded)
** without the values libpq marks as secret (password, sslpassword), and
** with "***" for a value that itself is a connection string holding one.
** A string libpq cannot read gives a fixed text that quotes none of it.
** Always NUL-terminates out (truncating). */
void sim_url_redact(const char *conninfo, char *out, size_t size);

/* Copies text to out (size, truncating) with every secret of conninfo --
** each secret value libpq reads from it, also percent-encoded, and the
** whole string when libpq cannot read it -- replaced by "***". For
** messages that might quote the connection string. */
void sim_url_scrub(const char *conninfo, const char *text, char *out,
                   size_t size);

#endif

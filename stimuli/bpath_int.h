/*
** Reading a bundle's files inside the loader (bpath.c): the form of a
** bundle path, files that must stay inside the bundle, whole-file reads
** with the text files recorded for the glyph check. Internal to stimuli.
*/
#ifndef SIMLAB_STIMULI_BPATH_INT_H
#define SIMLAB_STIMULI_BPATH_INT_H

#include <stddef.h>

#include "stimuli/loader.h"

/* Checks the form of a bundle path: not empty, not absolute, no '..'.
** Returns 0, or -1 with the reason in why. */
int bpath_check(const char *rel, char *why, size_t why_size);
/* Checks that rel names an existing regular file inside the bundle. On
** success returns 0 and, when abs_out is not NULL, *abs_out owns the
** resolved absolute path. On failure returns -1 and writes the reason to
** why (no location; callers add it). */
int bpath_file(Loader *L, const char *rel, char **abs_out, char *why,
               size_t why_size);
/* Reads the bundle file rel whole (up to 1 GiB) into a NUL-terminated
** buffer that *data owns (sim_free). Returns 0; -1 after reporting a read
** error at rel, or when memory ran out (L->oom); -2 when the path itself is
** bad (nothing reported: the caller knows where the path was named and
** reports it there) with the reason in why. */
int bpath_read(Loader *L, const char *rel, char **data, size_t *len, char *why,
               size_t why_size);
/* bpath_read for a CSV table; *file (may be NULL) gets the index of
** its entry in Study.text_files (SIZE_MAX without one), where the caller
** records the dialect it read the file in (csv, delim, encoding). Each file
** is recorded once, as read, whatever the number of reads. */
int bpath_read_csv(Loader *L, const char *rel, char **data, size_t *len,
                   size_t *file, char *why, size_t why_size);

#endif

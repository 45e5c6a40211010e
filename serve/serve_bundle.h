/*
** The bundle served is the bundle hashed: the identity of every file of
** the study's folder (device, inode, size, modification and change times)
** is taken at start, right after the bundle was loaded and hashed, and a
** file shown to a participant is opened without following a symbolic
** link anywhere in its path and served only while it is still that file.
** A file replaced, edited or turned into a link after the start is
** refused and named on stderr once. No clock: the caller says when the
** bundle was loaded.
*/
#ifndef SIMLAB_SERVE_SERVE_BUNDLE_H
#define SIMLAB_SERVE_SERVE_BUNDLE_H

#include <stdint.h>

#include "common/sim_error.h"

typedef struct ServeBundle ServeBundle;

/* Takes the identities of the files of folder dir (its real path: where
** study loading resolved the files). When a file changed at or after
** loaded_s (Unix seconds: loading began then), the folder is hashed again
** and must still hash to hash, else the start is refused (the bundle was
** changed while it was loaded). */
int serve_bundle_open(const char *dir, const char *hash, int64_t loaded_s,
                      ServeBundle **out, SimError *err);

/* Opens path (a file of the bundle, absolute, as study loading resolved
** it) for reading without following links; *fd and *size when it is the
** file of the start. -1 otherwise (missing, changed, a link). */
int serve_bundle_file(ServeBundle *b, const char *path, int *fd,
                      uint64_t *size);

void serve_bundle_free(ServeBundle *b); /* NULL is a no-op */

#endif

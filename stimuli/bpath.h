/*
** Limits on bundle paths that study loading (and so `simlab check`) and the
** runner share: a file the check accepted is one the runner can open.
** Constants only; the rules are in stimuli/bpath.c.
*/
#ifndef SIMLAB_STIMULI_BPATH_H
#define SIMLAB_STIMULI_BPATH_H

/* Bytes of a bundle file's resolved absolute path, with its terminating
** NUL. Study loading refuses longer paths (and longer paths as written);
** the runner's path buffers have this size. */
#define BUNDLE_PATH_MAX 1024

#endif

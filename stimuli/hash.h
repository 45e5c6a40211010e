/*
** What the bundle hash covers, seen from outside the loader: whether a path
** lies inside a bundle (a file there would change its hash), and the
** SHA-256 of one file. POSIX file functions and nettle only.
*/
#ifndef SIMLAB_STIMULI_HASH_H
#define SIMLAB_STIMULI_HASH_H

#include <stddef.h>

/* 1 if a file at path (existing or not) lies inside the bundle folder
** bundle_dir: its folder, with symbolic links resolved, is the bundle or
** below it, or path already exists and resolves to a file inside the
** bundle. 0 if not. -1 if it cannot be told (the bundle folder cannot be
** resolved, out of memory), with the reason in why. */
int hash_path_in_bundle(const char *bundle_dir, const char *path, char *why,
                        size_t why_size);

/* Writes the SHA-256 of the bytes of the file at path as 64 lowercase hex
** digits and a NUL to out. Returns 0, or -1 with the reason in why. */
int hash_file_sha256(const char *path, char out[65], char *why,
                     size_t why_size);

/* The hash of the bundle folder root: SHA-256 hex into out[65]; -1 with
** the reason in why, -2 when memory ran out. */
int hash_bundle(const char *root, char out[65], char *why, size_t why_size);

#endif

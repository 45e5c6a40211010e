/*
** File output for the demo-study generator: directories, text files,
** float32 .npy arrays and JSON (via jansson) written byte-for-byte
** reproducibly. No clock, no environment: the same call writes the same bytes.
*/
#ifndef SIMLAB_STIMULI_GEN_GENIO_H
#define SIMLAB_STIMULI_GEN_GENIO_H

#include <stddef.h>

#include <jansson.h>

#include "common/sim_error.h"

/* Creates dir and every missing parent (mode 0755). Existing dirs are fine.
** Returns SIM_OK or SIM_ERR_IO naming the path. */
int genio_mkdirs(const char *dir, SimError *err);

/* Joins a and b with one '/' into out (size n). Returns SIM_OK or
** SIM_ERR_USAGE when the result does not fit. */
int genio_join(char *out, size_t n, const char *a, const char *b,
               SimError *err);

/* Writes n bytes to path (created or truncated). SIM_OK or SIM_ERR_IO. */
int genio_write_file(const char *path, const void *data, size_t n,
                     SimError *err);

/* Writes the C string text to path. */
int genio_write_text(const char *path, const char *text, SimError *err);

/* Writes the page files of a bundle: texts[k] to dir/pages/names[k] for
** k < n (the folder is created). Returns SIM_OK or the first error. */
int genio_write_pages(const char *dir, const char *const *names,
                      const char *const *texts, int n, SimError *err);

/* Writes a 2-D float32 array (rows x cols, C order, little-endian) as a
** version 1.0 .npy file. */
int genio_write_npy(const char *path, const float *data, int rows, int cols,
                    SimError *err);

/* A JSON real rounded to `decimals` places (so that files stay short and
** stable); non-finite values become null. Returns a new reference. */
json_t *genio_real(double x, int decimals);

/* Writes value as indented JSON (2 spaces) ending in a newline. Does not
** steal the reference. */
int genio_write_json(const char *path, const json_t *value, SimError *err);

/* Writes every element of the array lines as one compact JSON line. */
int genio_write_jsonl(const char *path, const json_t *lines, SimError *err);

/* Reads a JSON Lines file. On success *out is a new array with one element
** per non-empty line (release with json_decref). */
int genio_read_jsonl(const char *path, json_t **out, SimError *err);

/* Appends a new reference to array (steals it). Returns 0 or -1 on OOM. */
int genio_append(json_t *array, json_t *value);

/* Sets key in object to value (steals it). Returns 0 or -1 on OOM. */
int genio_set(json_t *object, const char *key, json_t *value);

/* The study's "simulation" block for simulated participants: p_default
** everywhere, base_p in phase `phase` for every condition, and p[k] in that
** phase for condition methods[k]. These are assumed accuracies that give
** the demo's simulated data a known effect, not measurements. New ref. */
json_t *genio_simulation(double p_default, const char *phase, double base_p,
                         const char *const *methods, const double *p, int n);

#endif

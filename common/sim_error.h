/*
** Error reporting shared by every simlab library: a code plus a message that
** points at the fault ("file:line: field 'x': problem"). Plain libc only.
*/
#ifndef SIMLAB_COMMON_SIM_ERROR_H
#define SIMLAB_COMMON_SIM_ERROR_H

enum {
    SIM_OK = 0,
    SIM_ERR_USAGE = 1,   /* bad arguments from the caller */
    SIM_ERR_IO = 2,      /* a file could not be read or written */
    SIM_ERR_PARSE = 3,   /* malformed input (JSON, CSV, ...) */
    SIM_ERR_INVALID = 4, /* well-formed input that breaks a rule */
    SIM_ERR_DB = 5,      /* SQLite reported an error */
    SIM_ERR_NOMEM = 6,   /* an allocation failed */
    SIM_ERR_STATE = 7,   /* the call is not allowed in the current state */
    SIM_ERR_BUSY = 8     /* the database is locked or full; retry later */
};

typedef struct SimError {
    int code;      /* SIM_OK or one of SIM_ERR_* */
    char msg[512]; /* human-readable, NUL-terminated */
} SimError;

/* Fills err (which may be NULL) and returns code. */
int sim_fail(SimError *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Resets err to SIM_OK with an empty message. NULL is a no-op. */
void sim_error_clear(SimError *err);

#endif

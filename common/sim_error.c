/*
** sim_fail(): format an error into a SimError. Depends on libc only.
*/
#include "common/sim_error.h"

#include <stdarg.h>
#include <stdio.h>

int sim_fail(SimError *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void sim_error_clear(SimError *err)
{
    if (err) {
        err->code = SIM_OK;
        err->msg[0] = '\0';
    }
}

/*
** The phase name table. libc only.
*/
#include "common/sim_phase.h"

#include <stdio.h>
#include <string.h>

#include "common/sim_text.h"

static const char *const phase_names[] = {
    [SIM_PHASE_PRACTICE] = "practice", [SIM_PHASE_LEARN] = "learn",
    [SIM_PHASE_PRE] = "pre",           [SIM_PHASE_POST] = "post",
    [SIM_PHASE_TRAIN] = "train",       [SIM_PHASE_TEST] = "test",
    [SIM_PHASE_QUIZ] = "quiz"};

_Static_assert(sizeof phase_names / sizeof *phase_names == SIM_PHASE_COUNT,
               "one name per SimPhase");

const char *sim_phase_name(SimPhase phase)
{
    return (unsigned)phase < SIM_PHASE_COUNT ? phase_names[phase] : NULL;
}

SimPhase sim_phase_from_name(const char *name)
{
    for (int p = 0; name && p < SIM_PHASE_COUNT; p++) {
        if (strcmp(name, phase_names[p]) == 0) {
            return (SimPhase)p;
        }
    }
    return SIM_PHASE_NONE;
}

const char *sim_phase_suggest(const char *name)
{
    return sim_suggest(name, phase_names, SIM_PHASE_COUNT);
}

size_t sim_phase_list(char *out, size_t size)
{
    size_t len = 0;
    for (int p = 0; p < SIM_PHASE_COUNT; p++) {
        const char *sep = p == 0                     ? ""
                          : p + 1 == SIM_PHASE_COUNT ? " or "
                                                     : ", ";
        int n = snprintf(out && len < size ? out + len : NULL,
                         out && len < size ? size - len : 0, "%s%s", sep,
                         phase_names[p]);
        len += n > 0 ? (size_t)n : 0;
    }
    return len;
}

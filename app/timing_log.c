/*
** The timing log: benchmark records written as plain text lines.
*/
#include "app/timing_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/sim_alloc.h"

struct TimingLog {
    FILE *f;
};

int timing_log_open(const char *path, TimingLog **out, SimError *err)
{
    *out = NULL;
    TimingLog *log = sim_calloc(1, sizeof *log);
    if (!log) {
        return sim_fail(err, SIM_ERR_NOMEM, "%s: out of memory", path);
    }
    log->f = fopen(path, "w");
    if (!log->f) {
        int e = errno;
        sim_free(log);
        return sim_fail(err, SIM_ERR_IO, "%s: cannot open the timing log: %s",
                        path, strerror(e));
    }
    setvbuf(log->f, NULL, _IOLBF, 0);
    *out = log;
    return SIM_OK;
}

void timing_log_close(TimingLog *log)
{
    if (!log) {
        return;
    }
    fclose(log->f);
    sim_free(log);
}

void timing_log_clock(TimingLog *log, uint64_t sdl_ms, int64_t mono_ns)
{
    if (log) {
        fprintf(log->f, "clock %llu %lld\n", (unsigned long long)sdl_ms,
                (long long)mono_ns);
    }
}

void timing_log_key(TimingLog *log, int64_t stamp_ns, uint32_t sdl_ms,
                    int64_t polled_ns, int64_t watch_ns, int source)
{
    if (log) {
        fprintf(log->f, "key %lld %u %lld %lld %d\n", (long long)stamp_ns,
                sdl_ms, (long long)polled_ns, (long long)watch_ns, source);
    }
}

void timing_log_input(TimingLog *log, const SimInput *in)
{
    if (log && (in->kind == SIM_IN_CHOOSE || in->kind == SIM_IN_CONTINUE ||
                in->kind == SIM_IN_RATE)) {
        fprintf(log->f, "input %lld %d %d\n", (long long)in->t_ns, in->kind,
                in->value);
    }
}

void timing_log_frame(TimingLog *log, int64_t t0_ns, int64_t draw_ns)
{
    if (log) {
        fprintf(log->f, "frame %lld %lld\n", (long long)t0_ns,
                (long long)draw_ns);
    }
}

void timing_log_onset(TimingLog *log, int64_t t_ns, const SessionView *v,
                      int64_t input_ns)
{
    if (!log) {
        return;
    }
    fprintf(log->f, "onset %lld %u %lld %s %d %d %d %d\n", (long long)t_ns,
            v->screen_serial, (long long)input_ns,
            session_screen_name(v->screen), v->need_choice, v->need_rating,
            v->question ? (int)v->question->n_options : 0, v->attempt);
    fflush(log->f);
}

void timing_log_first_frame(TimingLog *log, int64_t ns)
{
    if (log) {
        fprintf(log->f, "first_frame %lld\n", (long long)ns);
    }
}

void timing_log_textures(TimingLog *log, size_t bytes, size_t peak,
                         size_t entries, int evicted, size_t budget)
{
    if (log) {
        fprintf(log->f, "textures %zu %zu %zu %d %zu\n", bytes, peak, entries,
                evicted, budget);
    }
}

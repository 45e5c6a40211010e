/*
** The timing log of `simlab run --timing-log FILE`: one line per record,
** read by the benchmarks (bench/app/). Every writer accepts a NULL log and
** then does nothing. No SDL and no clock reads: callers pass the times.
*/
#ifndef SIMLAB_APP_TIMING_LOG_H
#define SIMLAB_APP_TIMING_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "common/sim_error.h"
#include "experiment/session.h"

typedef struct TimingLog TimingLog;

/* Creates (truncates) the log at path, line buffered. On success *out owns
** it (timing_log_close); on failure *out is NULL and err says
** "PATH: cannot open the timing log: REASON". */
int timing_log_open(const char *path, TimingLog **out, SimError *err);
void timing_log_close(TimingLog *log); /* NULL is a no-op */

/* "clock SDL_MS MONO_NS": pairs SDL's millisecond clock with ours. */
void timing_log_clock(TimingLog *log, uint64_t sdl_ms, int64_t mono_ns);
/* "key STAMP_NS SDL_MS POLLED_NS WATCH_NS SOURCE": a key press as the loop
** polled it: the stamp recorded, SDL's timestamp, the poll time, the event
** watch's stamp and where the recorded stamp came from (a StampSource:
** 0 poll, 1 watch, 2 input thread). */
void timing_log_key(TimingLog *log, int64_t stamp_ns, uint32_t sdl_ms,
                    int64_t polled_ns, int64_t watch_ns, int source);
/* "input T_NS KIND VALUE": an answer the session took (choose, continue,
** rate; other kinds are not written). */
void timing_log_input(TimingLog *log, const SimInput *in);
/* "frame T0_NS DRAW_NS": a frame drawn from t0, presented draw_ns later. */
void timing_log_frame(TimingLog *log, int64_t t0_ns, int64_t draw_ns);
/* "onset T_NS SERIAL INPUT_NS SCREEN CHOICE RATING OPTIONS ATTEMPT": the
** onset of the screen in v, shown after the input stamped input_ns. */
void timing_log_onset(TimingLog *log, int64_t t_ns, const SessionView *v,
                      int64_t input_ns);
/* "first_frame NS": launch to the first present. */
void timing_log_first_frame(TimingLog *log, int64_t ns);
/* "textures BYTES PEAK ENTRIES EVICTED BUDGET": the texture cache after a
** screen's onset: bytes held, the most ever held, entries (failures
** included), textures dropped for the budget so far, the budget. */
void timing_log_textures(TimingLog *log, size_t bytes, size_t peak,
                         size_t entries, int evicted, size_t budget);

#endif

/*
** `simlab sync` and `simlab status` (experiment/sync.h), and the clock the
** background push runs on (the program's; libraries read none).
*/
#ifndef SIMLAB_APP_SYNC_CMD_H
#define SIMLAB_APP_SYNC_CMD_H

#include "experiment/sync.h"

/* `simlab sync --db FILE --to URL [--accept-changed-bundle] [--batch N]
** [--all]`;
** argv[0] is "sync". Returns the exit status. */
int sync_cmd_main(int argc, char **argv);

/* `simlab status URL` or `simlab status --db FILE`; argv[0] is "status". */
int status_cmd_main(int argc, char **argv);

/* The real-time clock for sync workers (CLOCK_REALTIME). */
const SyncClock *app_sync_clock(void);

#endif

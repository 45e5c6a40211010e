/*
** `simlab sync`, `simlab status` and `simlab server` (experiment/sync.h),
** (the clock they run on is common/sim_clock.h's sim_clock_real()).
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

/* `simlab server setup|add-station|add-analyst ADMIN_URL ...`; argv[0] is
** "server". Returns the exit status. */
int server_cmd_main(int argc, char **argv);

#endif

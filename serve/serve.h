/*
** `simlab serve DIR --db FILE ...`: the study online, for participants in
** a browser (docs/online.md). No SDL.
*/
#ifndef SIMLAB_SERVE_SERVE_H
#define SIMLAB_SERVE_SERVE_H

/* The command; argv[0] is "serve". Returns the exit status (0 after a
** clean stop on SIGINT or SIGTERM, 1 on an error, 2 on a usage error). */
int serve_main(int argc, char **argv);

#endif

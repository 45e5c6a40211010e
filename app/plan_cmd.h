/*
** `simlab plan`: a preregistration written from the study bundle and the
** power simulation of its own primary test (analysis/plan.h writes it).
** No SDL. See docs/analysis.md "Primary test, plan and sequential looks".
*/
#ifndef SIMLAB_APP_PLAN_CMD_H
#define SIMLAB_APP_PLAN_CMD_H

/* `simlab plan` argv (argv[0] is "plan"); returns the exit status. */
int plan_main(int argc, char **argv);

#endif

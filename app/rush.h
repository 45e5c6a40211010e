/*
** Rush: the runner's timing on a busy computer. Asked for (--rush, or
** "rush = on" in station.conf), the render loop runs SCHED_FIFO (with the
** input thread one priority above it, rawinput.c), the process's memory is
** locked (mlockall) and, with a CPU given, every thread runs on that CPU.
** Each part needs a right the system may not give (RLIMIT_RTPRIO or
** CAP_SYS_NICE; RLIMIT_MEMLOCK or CAP_IPC_LOCK): what is refused is said
** and recorded, and the run goes on. Linux; no SDL.
*/
#ifndef SIMLAB_APP_RUSH_H
#define SIMLAB_APP_RUSH_H

#include <stddef.h>

/* The render loop's SCHED_FIFO priority; the input thread asks for one
** more (both lowered to the rtprio limit when it is smaller). */
#define RUSH_RENDER_PRIORITY 10

typedef struct Rush {
    int asked;         /* rush was asked for */
    int render_fifo;   /* the render loop runs SCHED_FIFO ... */
    int render_prio;   /* ... at this priority */
    int input_known;   /* the input thread's policy is known: */
    int input_fifo;    /* SCHED_FIFO ... */
    int input_prio;    /* ... at this priority, or its nice value */
    int memory_locked; /* mlockall(MCL_CURRENT | MCL_FUTURE) succeeded */
    int cpu;           /* every thread pinned to this CPU, -1 none */
    char failed[768];  /* what was asked and refused, "; " between; "" */
} Rush;

/* No rush: nothing asked, nothing changed, cpu -1. */
void rush_init(Rush *r);

/* Whether cpu is one this process may run on. 1 yes; 0 with why (the
** CPUs it may use). */
int rush_cpu_valid(int cpu, char *why, size_t why_size);

/* On the thread that will draw (call it before the window is made, so
** that the threads the graphics driver starts inherit its policy): with
** asked, SCHED_FIFO at RUSH_RENDER_PRIORITY for this thread (raising the
** soft RLIMIT_RTPRIO to the hard one first) and mlockall; with cpu >= 0,
** every thread of the process on that CPU (threads started later inherit
** it). Fills r; what was refused goes to r->failed. Never fails. */
void rush_apply(int asked, int cpu, Rush *r);

/* SCHED_FIFO at priority want for the calling thread, or at the rtprio
** limit when that is lower (the soft limit raised to the hard one first).
** Returns the priority set, or -errno. */
int rush_set_fifo(int want);

/* The SCHED_FIFO priority the input thread should ask for: one above the
** render loop while it rushes, else RUSH_RENDER_PRIORITY (the input thread
** asks for real-time priority either way; rawinput.c). */
int rush_input_priority(const Rush *r);

/* What the input thread got: fifo (1) at prio, or nice value prio. A rush
** whose input thread did not get SCHED_FIFO records that as a failure. */
void rush_set_input(Rush *r, int fifo, int prio);

/* Asked, and nothing refused. */
int rush_active(const Rush *r);

/* r as one JSON object (no newline) into buf: {"asked","active",
** "render_loop","input_thread","memory_locked","cpu","failed"}; the
** policies read "SCHED_FIFO 10", "SCHED_OTHER nice -10" or "SCHED_OTHER",
** the input thread "none" when there is none. */
void rush_json(const Rush *r, char *buf, size_t size);

#endif

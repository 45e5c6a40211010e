/*
** Rush (rush.h): real-time priority for the render loop, memory locked,
** threads pinned to a CPU, and the record of what the system granted.
*/
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include "app/rush.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

void rush_init(Rush *r)
{
    memset(r, 0, sizeof *r);
    r->cpu = -1;
}

static void add_failure(Rush *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_failure(Rush *r, const char *fmt, ...)
{
    size_t used = strlen(r->failed);
    if (used && used + 2 < sizeof r->failed) {
        memcpy(r->failed + used, "; ", 3);
        used += 2;
    }
    if (used + 1 < sizeof r->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->failed + used, sizeof r->failed - used, fmt, ap);
        va_end(ap);
    }
}

/* Whether the effective capability set holds capability bit (see
** capabilities(7): CAP_IPC_LOCK 14, CAP_SYS_NICE 23). */
static int has_capability(int bit)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long caps = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "CapEff: %llx", &caps) == 1) {
            break;
        }
    }
    if (f) {
        fclose(f);
    }
    return (caps >> bit) & 1u;
}

/* The soft limit raised to the hard one (allowed without privileges);
** returns the soft limit then in force. */
static rlim_t raise_limit(int resource)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0) {
        return 0;
    }
    if (rl.rlim_cur != rl.rlim_max) {
        struct rlimit up = {rl.rlim_max, rl.rlim_max};
        if (setrlimit(resource, &up) == 0) {
            rl.rlim_cur = rl.rlim_max;
        }
    }
    return rl.rlim_cur;
}

int rush_set_fifo(int want)
{
    rlim_t lim = raise_limit(RLIMIT_RTPRIO);
    struct sched_param sp = {.sched_priority = want};
    int e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    if (e == EPERM && lim != RLIM_INFINITY && lim > 0 && lim < (rlim_t)want) {
        sp.sched_priority = (int)lim;
        e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
    }
    return e ? -e : sp.sched_priority;
}

int rush_cpu_valid(int cpu, char *why, size_t why_size)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        snprintf(why, why_size, "the CPUs cannot be read: %s", strerror(errno));
        return 0;
    }
    if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set)) {
        return 1;
    }
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; i < CPU_SETSIZE && used + 8 < sizeof list; i++) {
        if (CPU_ISSET(i, &set)) {
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%d",
                                     used ? ", " : "", i);
        }
    }
    snprintf(why, why_size, "simlab may run on CPU %s only", list);
    return 0;
}

/* Every thread of the process on cpu; 0, or -errno of the first refusal. */
static int pin_all(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    DIR *d = opendir("/proc/self/task");
    if (!d) {
        return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -errno;
    }
    int rc = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        pid_t tid = (pid_t)atoi(de->d_name);
        if (tid > 0 && sched_setaffinity(tid, sizeof set, &set) != 0 &&
            rc == 0) {
            rc = -errno;
        }
    }
    closedir(d);
    return rc;
}

void rush_apply(int asked, int cpu, Rush *r)
{
    rush_init(r);
    r->asked = asked;
    if (cpu >= 0) {
        int e = pin_all(cpu);
        if (e == 0) {
            r->cpu = cpu;
        } else {
            add_failure(r, "not pinned to CPU %d (%s)", cpu, strerror(-e));
        }
    }
    if (!asked) {
        return;
    }
    int prio = rush_set_fifo(RUSH_RENDER_PRIORITY);
    if (prio > 0) {
        r->render_fifo = 1;
        r->render_prio = prio;
    } else {
        struct rlimit rl = {0, 0};
        getrlimit(RLIMIT_RTPRIO, &rl);
        add_failure(
            r,
            "the render loop stays SCHED_OTHER: SCHED_FIFO refused "
            "(%s; RLIMIT_RTPRIO %llu, no CAP_SYS_NICE)",
            strerror(-prio),
            rl.rlim_cur == RLIM_INFINITY ? 0 : (unsigned long long)rl.rlim_cur);
    }
    rlim_t mem = raise_limit(RLIMIT_MEMLOCK);
    if (mem != RLIM_INFINITY && !has_capability(14)) {
        /* MCL_FUTURE under a finite limit would make later allocations
        ** fail once it is reached: not locked at all instead */
        add_failure(r,
                    "memory not locked: RLIMIT_MEMLOCK is %llu KiB (needs "
                    "unlimited, or CAP_IPC_LOCK)",
                    (unsigned long long)(mem / 1024));
    } else if (mlockall(MCL_CURRENT | MCL_FUTURE) == 0) {
        r->memory_locked = 1;
    } else {
        add_failure(r, "memory not locked: mlockall: %s", strerror(errno));
    }
}

int rush_input_priority(const Rush *r)
{
    return r->render_fifo ? r->render_prio + 1 : RUSH_RENDER_PRIORITY;
}

void rush_set_input(Rush *r, int fifo, int prio)
{
    r->input_known = 1;
    r->input_fifo = fifo;
    r->input_prio = prio;
    if (r->asked && !fifo) {
        add_failure(r, "the input thread stays SCHED_OTHER");
    }
}

int rush_active(const Rush *r)
{
    return r->asked && !r->failed[0];
}

static void policy_text(int fifo, int prio, char *buf, size_t n)
{
    if (fifo) {
        snprintf(buf, n, "SCHED_FIFO %d", prio);
    } else if (prio) {
        snprintf(buf, n, "SCHED_OTHER nice %d", prio);
    } else {
        snprintf(buf, n, "SCHED_OTHER");
    }
}

void rush_json(const Rush *r, char *buf, size_t size)
{
    char render[48], input[48];
    policy_text(r->render_fifo, r->render_fifo ? r->render_prio : 0, render,
                sizeof render);
    if (r->input_known) {
        policy_text(r->input_fifo, r->input_prio, input, sizeof input);
    } else {
        snprintf(input, sizeof input, "none");
    }
    json_t *o = json_pack(
        "{s:b,s:b,s:s,s:s,s:b,s:o,s:s}", "asked", r->asked, "active",
        rush_active(r), "render_loop", render, "input_thread", input,
        "memory_locked", r->memory_locked, "cpu",
        r->cpu >= 0 ? json_integer(r->cpu) : json_null(), "failed", r->failed);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    snprintf(buf, size, "%s", s ? s : "null");
    free(s);
    json_decref(o);
}

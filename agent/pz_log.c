/*
 * pz_log.c - the agent's log.
 *
 * The level is the one piece of process-wide mutable state in agent/: it is
 * written once at start-up, before anything logs.
 */
#include "pz_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static enum pz_log_level pz_log_level_now = PZ_LOG_INFO;

void pz_log_set_level(enum pz_log_level level)
{
    pz_log_level_now = level;
}

void pz_log(enum pz_log_level level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};
    struct timespec ts;
    va_list ap;

    if (level > pz_log_level_now)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(stderr, "portzerod %lld.%03ld %s: ", (long long)ts.tv_sec, ts.tv_nsec / 1000000,
            names[level]);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

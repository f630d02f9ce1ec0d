/*
 * pz_log.c - the agent's log.
 *
 * Process-wide state in agent/: the level (written once at start-up, before
 * anything logs) and the ring of recent lines (under a mutex: lwIP's thread
 * logs too).
 */
#include "pz_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static enum pz_log_level pz_log_level_now = PZ_LOG_INFO;

/* The ring of the most recent lines. */
static struct {
    pthread_mutex_t lock;
    struct pz_log_entry lines[PZ_LOG_RING_LINES];
    size_t next, count;
} pz_log_ring = {.lock = PTHREAD_MUTEX_INITIALIZER};

void pz_log_set_level(enum pz_log_level level)
{
    pz_log_level_now = level;
}

const char *pz_log_level_name(enum pz_log_level level)
{
    static const char *const names[] = {"error", "warn", "info", "debug"};

    return (unsigned)level < 4 ? names[level] : "?";
}

/* Append one line to the ring (the oldest goes when it is full). */
static void pz_log_remember(int64_t time_ms, enum pz_log_level level, const char *text)
{
    struct pz_log_entry *e;
    size_t len = strnlen(text, PZ_LOG_TEXT_MAX); /* longer lines are cut */

    pthread_mutex_lock(&pz_log_ring.lock);
    e = &pz_log_ring.lines[pz_log_ring.next];
    e->time_ms = time_ms;
    e->level = level;
    memcpy(e->text, text, len);
    e->text[len] = '\0';
    pz_log_ring.next = (pz_log_ring.next + 1) % PZ_LOG_RING_LINES;
    if (pz_log_ring.count < PZ_LOG_RING_LINES)
        pz_log_ring.count++;
    pthread_mutex_unlock(&pz_log_ring.lock);
}

void pz_log(enum pz_log_level level, const char *fmt, ...)
{
    struct timespec ts;
    char text[1024];
    va_list ap;

    if (level > pz_log_level_now)
        return;
    clock_gettime(CLOCK_REALTIME, &ts);
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    fprintf(stderr, "portzerod %lld.%03ld %s: %s\n", (long long)ts.tv_sec, ts.tv_nsec / 1000000,
            pz_log_level_name(level), text);
    pz_log_remember((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, level, text);
}

size_t pz_log_recent(struct pz_log_entry *out, size_t max)
{
    size_t n, first;

    pthread_mutex_lock(&pz_log_ring.lock);
    n = pz_log_ring.count < max ? pz_log_ring.count : max;
    first = (pz_log_ring.next + PZ_LOG_RING_LINES - n) % PZ_LOG_RING_LINES;
    for (size_t i = 0; i < n; i++)
        out[i] = pz_log_ring.lines[(first + i) % PZ_LOG_RING_LINES];
    pthread_mutex_unlock(&pz_log_ring.lock);
    return n;
}

size_t pz_log_recent_cli(struct cli_log_line *out, size_t max)
{
    struct pz_log_entry *e = malloc(sizeof(*e) * (max ? max : 1));
    size_t n;

    _Static_assert(CLI_LOG_TEXT_MAX == PZ_LOG_TEXT_MAX, "a log line fits the CLI's");
    if (!e)
        return 0;
    n = pz_log_recent(e, max);
    for (size_t i = 0; i < n; i++) {
        out[i].time_ms = e[i].time_ms;
        out[i].level = pz_log_level_name(e[i].level);
        memcpy(out[i].text, e[i].text, sizeof(out[i].text));
    }
    free(e);
    return n;
}

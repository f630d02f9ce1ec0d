/*
 * pz_log.h - the agent's log: one line per event on stderr, with a level,
 * and the most recent lines kept in memory for the CLI's `show log`.
 */
#ifndef PZ_LOG_H
#define PZ_LOG_H

#include <stddef.h>
#include <stdint.h>

enum pz_log_level { PZ_LOG_ERROR = 0, PZ_LOG_WARN = 1, PZ_LOG_INFO = 2, PZ_LOG_DEBUG = 3 };

/* Lines the in-memory ring keeps, and the longest text kept of one. */
#define PZ_LOG_RING_LINES 256
#define PZ_LOG_TEXT_MAX 200

/* One remembered line. */
struct pz_log_entry {
    int64_t time_ms; /* CLOCK_REALTIME */
    enum pz_log_level level;
    char text[PZ_LOG_TEXT_MAX + 1]; /* without the prefix; truncated */
};

/* Set the most verbose level that is printed. */
void pz_log_set_level(enum pz_log_level level);

/* Print one log line if level is enabled (and remember it); any thread. */
void pz_log(enum pz_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The level's name as the log prints it ("error", "warn", "info", "debug"). */
const char *pz_log_level_name(enum pz_log_level level);

/* Copy the newest lines, at most max, oldest first, into out; returns how many. */
size_t pz_log_recent(struct pz_log_entry *out, size_t max);

struct cli_log_line;

/*
 * The CLI's view of the ring (cli_log_recent_fn, for `show log`): the newest
 * lines, at most max, oldest first, into out; returns how many.
 */
size_t pz_log_recent_cli(struct cli_log_line *out, size_t max);

#endif /* PZ_LOG_H */

/*
 * pz_log.h - the agent's log: one line per event on stderr, with a level.
 */
#ifndef PZ_LOG_H
#define PZ_LOG_H

enum pz_log_level { PZ_LOG_ERROR = 0, PZ_LOG_WARN = 1, PZ_LOG_INFO = 2, PZ_LOG_DEBUG = 3 };

/* Set the most verbose level that is printed. */
void pz_log_set_level(enum pz_log_level level);

/* Print one log line if level is enabled. */
void pz_log(enum pz_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* PZ_LOG_H */

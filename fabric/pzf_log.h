/*
 * pzf_log.h - pzfabric's messages on stderr.
 *
 * Every object that logs keeps its own verbosity and passes it here; there
 * is no global log state.
 */
#ifndef PZ_PZF_LOG_H
#define PZ_PZF_LOG_H

/* Message levels; a message is printed when its level <= the verbosity. */
enum pzf_log_level {
    PZF_LOG_ERROR = 0, /* always printed */
    PZF_LOG_INFO = 1,  /* clients, link changes, dropped packets */
    PZF_LOG_DEBUG = 2, /* every packet */
};

/* Print "pzfabric: <message>" on stderr if level <= verbose. */
void pzf_log(int verbose, enum pzf_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif /* PZ_PZF_LOG_H */

/*
 * cli.h - the switch's command line: one command table, run by the control
 * socket (pz-cli) today and by the SSH server's sessions later.
 *
 * A command line is split into words and matched against the table (the
 * longest command whose words all match; a word may be abbreviated to any
 * unique prefix, as switch CLIs allow).  A command writes its output through
 * the caller's sink and returns an exit status, or starts a job (ping) that
 * the caller polls until it finishes.  Everything runs on the agent loop's
 * thread: commands read switch state directly.
 */
#ifndef PZ_CLI_H
#define PZ_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct board;
struct sma;
struct pma;
struct cong_monitor;
struct pz_ipplane;
struct pz_routes;
struct pz_reach;
struct pz_snmp;

/* What the commands show of the agent's configuration (the agent fills it). */
struct cli_config {
    uint32_t ip_address; /* the IP plane's address, host order (0: none) */
    unsigned prefix_len;
    uint32_t ip_gateway; /* host order (0: none) */
    unsigned ipoib_pkey; /* the IPoIB partition (membership bit ignored) */
    bool ip6;            /* IPv6 on the plane too (ip6 = on) */
    bool has_ip6_gateway;
    uint8_t ip6_gateway[16]; /* the configured IPv6 default router, if has_ip6_gateway */
};

/* Lines `show log` takes at most, and the longest text of one. */
#define CLI_LOG_LINES 256
#define CLI_LOG_TEXT_MAX 200

/* One line of the agent's log. */
struct cli_log_line {
    int64_t time_ms;   /* CLOCK_REALTIME */
    const char *level; /* its level's name ("error", "warn", "info", "debug") */
    char text[CLI_LOG_TEXT_MAX + 1];
};

/* The agent's log: copies its newest lines, at most max, oldest first, into out; returns how
 * many. */
typedef size_t (*cli_log_recent_fn)(struct cli_log_line *out, size_t max);

/* What the commands read. */
struct cli_env {
    const struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cong_monitor *mon; /* the congestion monitor (node_cong()), NULL: off */
    struct pz_ipplane *plane; /* NULL: no IP plane */
    struct pz_routes *routes; /* the route check (traffic/pz_routes.h); NULL: none */
    struct pz_reach *reach;   /* reachability (traffic/pz_reach.h); NULL: off */
    const struct cli_config *cfg;
    cli_log_recent_fn log_recent; /* NULL: no log */
    struct pz_snmp *snmp;         /* NULL: no SNMP agent */
    uint64_t start_ns;            /* when the agent started (CLOCK_MONOTONIC) */
};

/* Where output goes. */
struct cli_out {
    void (*write)(void *arg, const char *text, size_t len);
    void *arg;
};

/* Exit statuses. */
#define CLI_OK 0
#define CLI_FAILED 1     /* the command ran and failed (ping: no reply) */
#define CLI_USAGE 2      /* unknown command or bad arguments */
#define CLI_DENIED 3     /* not for this user */
#define CLI_RUNNING (-1) /* a job was started: poll it */

/* A command still running. */
struct cli_job;

/*
 * Run one command line.  read_only: the monitor user's rights (show and
 * ping only).  Returns an exit status, or CLI_RUNNING with *job set.
 */
int cli_run(const struct cli_env *env, const char *line, bool read_only, const struct cli_out *out,
            struct cli_job **job);

/*
 * Tab completion: the command words that may follow line[0..len) (the text up
 * to the cursor; its last word, if not ended by a space, is the prefix to
 * complete), for a user with read_only's rights.  Fills up to max distinct
 * words into cands (static strings) and returns how many.
 */
size_t cli_complete(const char *line, size_t len, bool read_only, const char **cands, size_t max);

/* Let a job progress at now (ns); returns CLI_RUNNING or its exit status (then free it). */
int cli_job_poll(struct cli_job *job, uint64_t now, const struct cli_out *out);

/* When the job next has work (ns). */
uint64_t cli_job_deadline(const struct cli_job *job);

/* A descriptor that polls readable when the job has work, or -1 (deadlines only). */
int cli_job_fd(const struct cli_job *job);

/* Stop and free a job (NULL is fine). */
void cli_job_free(struct cli_job *job);

/*
 * Ctrl-C: end a running job at now (ns), printing what the command prints
 * when interrupted (ping: the replies taken, then its statistics, as
 * iputils' ping on SIGINT), and free it.  Returns the command's exit status
 * (CLI_FAILED for a job that has no interrupted report).
 */
int cli_job_interrupt(struct cli_job *job, uint64_t now, const struct cli_out *out);

/* printf to a sink. */
void cli_printf(const struct cli_out *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

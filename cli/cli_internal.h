/*
 * cli_internal.h - what the command files share: the table entry and the
 * argument helpers.
 */
#ifndef PZ_CLI_INTERNAL_H
#define PZ_CLI_INTERNAL_H

#include "cli.h"

#define CLI_MAX_WORDS 16
#define CLI_MAX_CMD_WORDS 4

/* A parsed command line. */
struct cli_args {
    unsigned argc;
    const char *argv[CLI_MAX_WORDS]; /* the words after the command's own */
    bool read_only;                  /* the user's rights (help lists only theirs) */
};

/* One command of the table. */
struct cli_command {
    const char *words[CLI_MAX_CMD_WORDS]; /* NULL-terminated */
    const char *usage;                    /* arguments, for help */
    const char *help;
    bool read_only; /* the monitor user may run it */
    int (*run)(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
               struct cli_job **job);
};

/* The commands of each file. */
int cli_cmd_show_version(const struct cli_env *env, const struct cli_args *a,
                         const struct cli_out *out, struct cli_job **job);
int cli_cmd_show_system(const struct cli_env *env, const struct cli_args *a,
                        const struct cli_out *out, struct cli_job **job);
int cli_cmd_show_ip(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                    struct cli_job **job);
int cli_cmd_show_interfaces_ib(const struct cli_env *env, const struct cli_args *a,
                               const struct cli_out *out, struct cli_job **job);
int cli_cmd_clear_counters(const struct cli_env *env, const struct cli_args *a,
                           const struct cli_out *out, struct cli_job **job);
int cli_cmd_show_congestion(const struct cli_env *env, const struct cli_args *a,
                            const struct cli_out *out, struct cli_job **job);
int cli_cmd_show_lft(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                     struct cli_job **job);
int cli_cmd_show_log(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                     struct cli_job **job);
int cli_cmd_show_snmp(const struct cli_env *env, const struct cli_args *a,
                      const struct cli_out *out, struct cli_job **job);
int cli_cmd_ping(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                 struct cli_job **job);
int cli_cmd_route_check(const struct cli_env *env, const struct cli_args *a,
                        const struct cli_out *out, struct cli_job **job);
int cli_cmd_show_route_check(const struct cli_env *env, const struct cli_args *a,
                             const struct cli_out *out, struct cli_job **job);

int cli_cmd_iperf(const struct cli_env *env, const struct cli_args *a, const struct cli_out *out,
                  struct cli_job **job);
int cli_cmd_iperf_server(const struct cli_env *env, const struct cli_args *a,
                         const struct cli_out *out, struct cli_job **job);
int cli_cmd_traffic_matrix(const struct cli_env *env, const struct cli_args *a,
                           const struct cli_out *out, struct cli_job **job);
int cli_cmd_show_iperf(const struct cli_env *env, const struct cli_args *a,
                       const struct cli_out *out, struct cli_job **job);

int cli_cmd_show_reachability(const struct cli_env *env, const struct cli_args *a,
                              const struct cli_out *out, struct cli_job **job);
int cli_cmd_reachability_check(const struct cli_env *env, const struct cli_args *a,
                               const struct cli_out *out, struct cli_job **job);

/* The words of a command without a trailing "json"; sets *json. */
struct cli_args cli_strip_json(const struct cli_args *a, bool *json);

/*
 * Take an optional "json" as a command's only argument: CLI_OK with *json set, or
 * CLI_USAGE with "% usage: USAGE" printed.
 */
int cli_json_only(const struct cli_args *a, const char *usage, bool *json,
                  const struct cli_out *out);

/* Parse a dotted IPv4 address (host order); returns 0 or -1. */
int cli_parse_ipv4(const char *s, uint32_t *out);

/*
 * Parse an IPv6 address, optionally with the plane's zone ("fe80::1%ib0"),
 * into out[16] (network order).  Returns 0 or -1.
 */
int cli_parse_ip6(const char *s, uint8_t out[16]);

/* Parse an unsigned number in [min, max]; returns 0 or -1. */
int cli_parse_uint(const char *s, unsigned min, unsigned max, unsigned *out);

/* Format a host-order IPv4 address into buf[16]; returns buf. */
const char *cli_ipv4_str(uint32_t ip, char buf[16]);

struct cli_json;
/*
 * The IPv6 part of `show ip` (cli_show_ip6.c): addresses, gateway, routers
 * (alive at now, ms of CLOCK_MONOTONIC), counters, groups, neighbours; and
 * the same as the "ipv6" member of `show ip json`.  Nothing when ip6 is off.
 */
void cli_show_ip6(const struct cli_env *env, const struct cli_out *out, uint64_t now);
void cli_show_ip6_json(const struct cli_env *env, struct cli_json *j, uint64_t now);

/* CLOCK_MONOTONIC in ns: the clock of the agent loop that polls jobs. */
uint64_t cli_now_ns(void);

/* A job's operations (ping). */
struct cli_job_ops {
    int (*poll)(struct cli_job *job, uint64_t now, const struct cli_out *out);
    uint64_t (*deadline)(const struct cli_job *job);
    int (*fd)(const struct cli_job *job); /* NULL: none */
    void (*free)(struct cli_job *job);
    /* Ctrl-C: print the interrupted report, return the exit status; NULL: none. */
    int (*interrupt)(struct cli_job *job, uint64_t now, const struct cli_out *out);
};

/* Every job starts with this. */
struct cli_job {
    const struct cli_job_ops *ops;
};

#endif

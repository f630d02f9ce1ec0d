/*
 * cli_session.h - the CLI's job host: one command at a time of a client
 * (a control-socket connection, an SSH channel), run on the caller's event
 * loop.  A command that takes time (ping, iperf, the route check) is a job:
 * its descriptor joins the loop while it runs, the caller polls it on that
 * descriptor and on its deadline, Ctrl-C interrupts it, a client that
 * leaves stops it.  The control socket and the SSH server share this; what
 * they do with the output and the exit status is theirs.
 */
#ifndef PZ_CLI_SESSION_H
#define PZ_CLI_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/* Called when a watched descriptor polls readable. */
typedef void (*cli_fd_fn)(void *arg, int fd);

/* The caller's event loop, as the host uses it. */
struct cli_session_loop {
    /* Watch fd: fn(arg, fd) when it polls readable; 0, or -1 when the loop is full. */
    int (*add_fd)(void *loop, int fd, cli_fd_fn fn, void *arg);
    /* Stop watching fd. */
    void (*remove_fd)(void *loop, int fd);
    void *loop;
};

/* One client's command in progress. */
struct cli_session {
    const struct cli_env *env;
    struct cli_session_loop loop;
    struct cli_out out;  /* where the command writes */
    struct cli_job *job; /* the command still running, or NULL */
    int job_fd;          /* its descriptor as the loop watches it, or -1 */
};

/* A session without a command, writing to out. */
void cli_session_init(struct cli_session *s, const struct cli_env *env,
                      const struct cli_session_loop *loop, const struct cli_out *out);

/*
 * Run one command line with read_only's rights.  Returns its exit status, or
 * CLI_RUNNING: a job runs, its descriptor (if it has one) watched with
 * on_fd(arg, fd); when the loop is full it runs on its deadlines only
 * (cli_session_unwatched() says so).
 */
int cli_session_run(struct cli_session *s, const char *line, bool read_only, cli_fd_fn on_fd,
                    void *arg);

/* Whether the running job has a descriptor the loop could not take. */
bool cli_session_unwatched(const struct cli_session *s);

/* Whether the job has work now: fd is its descriptor (fd < 0: none) or its deadline passed. */
bool cli_session_due(const struct cli_session *s, int fd, uint64_t now);

/* When the job next has work (ns); UINT64_MAX without one. */
uint64_t cli_session_deadline(const struct cli_session *s);

/*
 * Let the job progress at now.  Returns CLI_RUNNING, or its exit status: it
 * finished (the job stays until cli_session_stop()).
 */
int cli_session_poll(struct cli_session *s, uint64_t now);

/*
 * Ctrl-C: end the job at now with its interrupted report (cli_job_interrupt)
 * and drop it; returns the command's exit status.
 */
int cli_session_interrupt(struct cli_session *s, uint64_t now);

/* Drop the job, finished or not (NULL job: nothing). */
void cli_session_stop(struct cli_session *s);

#endif

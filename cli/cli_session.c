/*
 * cli_session.c - the CLI's job host shared by the control socket and the
 * SSH server (see cli_session.h).
 */
#include "cli_session.h"

#include <stddef.h>

void cli_session_init(struct cli_session *s, const struct cli_env *env,
                      const struct cli_session_loop *loop, const struct cli_out *out)
{
    *s = (struct cli_session){.env = env, .loop = *loop, .out = *out, .job_fd = -1};
}

int cli_session_run(struct cli_session *s, const char *line, bool read_only, cli_fd_fn on_fd,
                    void *arg)
{
    int status = cli_run(s->env, line, read_only, &s->out, &s->job);
    int fd;

    if (status != CLI_RUNNING)
        return status;
    fd = cli_job_fd(s->job);
    if (fd >= 0 && !s->loop.add_fd(s->loop.loop, fd, on_fd, arg))
        s->job_fd = fd;
    return CLI_RUNNING;
}

bool cli_session_unwatched(const struct cli_session *s)
{
    return s->job && s->job_fd < 0 && cli_job_fd(s->job) >= 0;
}

bool cli_session_due(const struct cli_session *s, int fd, uint64_t now)
{
    return s->job && ((fd >= 0 && s->job_fd == fd) || now >= cli_job_deadline(s->job));
}

uint64_t cli_session_deadline(const struct cli_session *s)
{
    return s->job ? cli_job_deadline(s->job) : UINT64_MAX;
}

int cli_session_poll(struct cli_session *s, uint64_t now)
{
    return cli_job_poll(s->job, now, &s->out);
}

/* Stop watching the job's descriptor. */
static void cli_session_unwatch(struct cli_session *s)
{
    if (s->job_fd >= 0)
        s->loop.remove_fd(s->loop.loop, s->job_fd);
    s->job_fd = -1;
}

int cli_session_interrupt(struct cli_session *s, uint64_t now)
{
    struct cli_job *job = s->job;

    cli_session_unwatch(s);
    s->job = NULL;
    return cli_job_interrupt(job, now, &s->out);
}

void cli_session_stop(struct cli_session *s)
{
    cli_session_unwatch(s);
    cli_job_free(s->job);
    s->job = NULL;
}

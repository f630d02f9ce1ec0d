/*
 * pz_ctl.c - the control socket (see pz_ctl.h).
 */
#include "pz_ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli_session.h"
#include "pz_log.h"

#define PZ_CTL_MAX_SESSIONS 8
#define PZ_CTL_MAX_LINE 512
/* A client must send its line within this time (ns), or is dropped. */
#define PZ_CTL_LINE_NS 5000000000ull
/* A write to a client that does not read blocks at most this long. */
#define PZ_CTL_SEND_TIMEOUT_S 2

/* One client connection. */
struct pz_ctl_session {
    int fd; /* -1: free */
    char line[PZ_CTL_MAX_LINE];
    size_t len;
    uint64_t opened_ns;
    struct cli_session cs; /* its command (a job still running in cs.job) */
};

struct pz_ctl {
    struct pz_ctl_env env;
    struct cli_env cli;
    int listen_fd;
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    struct pz_ctl_session s[PZ_CTL_MAX_SESSIONS];
};

/* Sink: write the output to the session's client (errors: the client left, ignored). */
static void pz_ctl_write(void *arg, const char *text, size_t len)
{
    struct pz_ctl_session *s = arg;

    while (len && s->fd >= 0) {
        ssize_t n = send(s->fd, text, len, MSG_NOSIGNAL);

        if (n <= 0)
            return;
        text += n;
        len -= (size_t)n;
    }
}

/*
 * Log how a command ended when it is news: a command that ran as a job
 * (ping, iperf, the matrix: what happened is in its output, the log says
 * when and how it ended) or any command that failed.
 */
static void pz_ctl_log_end(const struct pz_ctl_session *s, int status)
{
    if (status < 0 && s->cs.job)
        pz_log(PZ_LOG_WARN, "ctl: '%s' stopped: the client left", s->line);
    else if (status > 0)
        pz_log(PZ_LOG_WARN, "ctl: '%s' ended with exit status %d", s->line, status);
    else if (status == 0 && s->cs.job)
        pz_log(PZ_LOG_INFO, "ctl: '%s' ended with exit status 0", s->line);
}

/* End a session: the trailer with the exit status (when status >= 0), then close. */
static void pz_ctl_end(struct pz_ctl *ctl, struct pz_ctl_session *s, int status)
{
    char trailer[16];
    int n;

    pz_ctl_log_end(s, status);
    if (status >= 0) {
        n = snprintf(trailer, sizeof(trailer), "%c%d\n", 0, status);
        pz_ctl_write(s, trailer, (size_t)n);
    }
    cli_session_stop(&s->cs);
    pz_loop_remove_fd(ctl->env.loop, s->fd);
    close(s->fd);
    s->fd = -1;
}

/* The session owning fd. */
static struct pz_ctl_session *pz_ctl_session_of(struct pz_ctl *ctl, int fd)
{
    for (int i = 0; i < PZ_CTL_MAX_SESSIONS; i++)
        if (ctl->s[i].fd == fd)
            return &ctl->s[i];
    return NULL;
}

/* Let the session's job progress; ends the session when it finished. */
static void pz_ctl_poll_job(struct pz_ctl *ctl, struct pz_ctl_session *s, uint64_t now)
{
    int status = cli_session_poll(&s->cs, now);

    if (status != CLI_RUNNING)
        pz_ctl_end(ctl, s, status);
}

/* Loop: a job's descriptor is readable (a ping reply came). */
static void pz_ctl_on_job(void *arg, int fd)
{
    struct pz_ctl *ctl = arg;

    for (int i = 0; i < PZ_CTL_MAX_SESSIONS; i++) {
        struct pz_ctl_session *s = &ctl->s[i];

        if (s->fd >= 0 && s->cs.job && s->cs.job_fd == fd) {
            pz_ctl_poll_job(ctl, s, pz_loop_now_ns());
            return;
        }
    }
}

/* Run the session's command line; a job's descriptor joins the loop. */
static void pz_ctl_run(struct pz_ctl *ctl, struct pz_ctl_session *s)
{
    int status = cli_session_run(&s->cs, s->line, false, pz_ctl_on_job, ctl);

    if (status != CLI_RUNNING) {
        pz_ctl_end(ctl, s, status);
        return;
    }
    if (cli_session_unwatched(&s->cs))
        pz_log(PZ_LOG_WARN, "ctl: the event loop is full: the command runs on its deadlines only");
}

/* Loop: a client sent bytes (or left). */
static void pz_ctl_on_client(void *arg, int fd)
{
    struct pz_ctl *ctl = arg;
    struct pz_ctl_session *s = pz_ctl_session_of(ctl, fd);
    char *nl;
    ssize_t n;

    if (!s)
        return;
    n = recv(fd, s->line + s->len, sizeof(s->line) - 1 - s->len, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        pz_ctl_end(ctl, s, -1); /* gone: a running job stops with it */
        return;
    }
    if (n < 0 || s->cs.job)
        return; /* bytes after the line are ignored while the command runs */
    s->len += (size_t)n;
    s->line[s->len] = '\0';
    if ((nl = memchr(s->line, '\n', s->len))) {
        *nl = '\0';
        pz_ctl_run(ctl, s);
    } else if (s->len == sizeof(s->line) - 1) {
        pz_ctl_write(s, "% line too long\n", 16);
        pz_ctl_end(ctl, s, CLI_USAGE);
    }
}

/* The session's command host: the CLI writing to its client, jobs on the loop. */
static void pz_ctl_start_session(struct pz_ctl *ctl, struct pz_ctl_session *s)
{
    struct cli_session_loop loop;
    struct cli_out out = {.write = pz_ctl_write, .arg = s};

    pz_loop_for_cli(ctl->env.loop, &loop);
    cli_session_init(&s->cs, &ctl->cli, &loop, &out);
}

/* Loop: a client connects. */
static void pz_ctl_on_listen(void *arg, int fd)
{
    struct pz_ctl *ctl = arg;
    struct timeval tv = {.tv_sec = PZ_CTL_SEND_TIMEOUT_S};
    int c = accept(fd, NULL, NULL);
    struct pz_ctl_session *s;

    if (c < 0)
        return;
    fcntl(c, F_SETFD, FD_CLOEXEC);
    s = pz_ctl_session_of(ctl, -1);
    if (!s) {
        static const char busy[] = "% too many control sessions\n";

        if (send(c, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
            (void)0; /* the client learns it from the close */
        close(c);
        return;
    }
    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    *s = (struct pz_ctl_session){.fd = c, .opened_ns = pz_loop_now_ns()};
    pz_ctl_start_session(ctl, s);
    if (pz_loop_add_fd(ctl->env.loop, c, pz_ctl_on_client, ctl)) {
        close(c);
        s->fd = -1;
    }
}

/* Loop: the earliest work of the sessions: a job's, or a line that is late. */
static uint64_t pz_ctl_deadline(void *arg)
{
    struct pz_ctl *ctl = arg;
    uint64_t next = UINT64_MAX;

    for (int i = 0; i < PZ_CTL_MAX_SESSIONS; i++) {
        struct pz_ctl_session *s = &ctl->s[i];
        uint64_t t;

        if (s->fd < 0)
            continue;
        t = s->cs.job ? cli_session_deadline(&s->cs) : s->opened_ns + PZ_CTL_LINE_NS;
        if (t < next)
            next = t;
    }
    return next;
}

/* Loop: let the jobs progress; drop clients that never sent a line. */
static void pz_ctl_on_timer(void *arg, uint64_t now)
{
    struct pz_ctl *ctl = arg;

    for (int i = 0; i < PZ_CTL_MAX_SESSIONS; i++) {
        struct pz_ctl_session *s = &ctl->s[i];

        if (s->fd < 0)
            continue;
        if (cli_session_due(&s->cs, -1, now)) {
            pz_ctl_poll_job(ctl, s, now);
        } else if (!s->cs.job && now >= s->opened_ns + PZ_CTL_LINE_NS) {
            pz_ctl_end(ctl, s, -1);
        }
    }
}

/* Bind and listen on path; returns the socket or -1 with a message in err. */
static int pz_ctl_listen(const char *path, char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd;

    if (strlen(path) >= sizeof(sa.sun_path)) {
        snprintf(err, errlen, "ctl_socket: path too long: %s", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "ctl_socket: %s", strerror(errno));
        return -1;
    }
    unlink(path); /* a stale socket of an earlier run */
    mode_t old = umask(0177);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));

    umask(old);
    if (rc || listen(fd, PZ_CTL_MAX_SESSIONS)) {
        snprintf(err, errlen, "ctl_socket %s: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

struct pz_ctl *pz_ctl_open(const char *path, const struct pz_ctl_env *env, char *err, size_t errlen)
{
    struct pz_ctl *ctl = calloc(1, sizeof(*ctl));

    if (!ctl) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    ctl->env = *env;
    ctl->cli = *env->cli;
    ctl->env.cli = &ctl->cli;
    for (int i = 0; i < PZ_CTL_MAX_SESSIONS; i++)
        ctl->s[i].fd = -1;
    ctl->listen_fd = pz_ctl_listen(path, err, errlen);
    if (ctl->listen_fd < 0) {
        free(ctl);
        return NULL;
    }
    snprintf(ctl->path, sizeof(ctl->path), "%s", path);
    if (pz_loop_add_fd(env->loop, ctl->listen_fd, pz_ctl_on_listen, ctl) ||
        pz_loop_add_timer(env->loop, pz_ctl_deadline, pz_ctl_on_timer, ctl)) {
        snprintf(err, errlen, "ctl_socket: the event loop is full");
        pz_ctl_close(ctl);
        return NULL;
    }
    pz_log(PZ_LOG_INFO, "control socket %s", path);
    return ctl;
}

void pz_ctl_close(struct pz_ctl *ctl)
{
    if (!ctl)
        return;
    for (int i = 0; i < PZ_CTL_MAX_SESSIONS; i++)
        if (ctl->s[i].fd >= 0)
            pz_ctl_end(ctl, &ctl->s[i], -1);
    pz_loop_remove_fd(ctl->env.loop, ctl->listen_fd);
    pz_loop_remove_timers(ctl->env.loop, ctl);
    close(ctl->listen_fd);
    unlink(ctl->path);
    free(ctl);
}

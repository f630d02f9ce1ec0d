/*
 * pzctl_server.c - pzfabric's operator control socket "<name>:pzctl"
 * (pzctl_proto.h): accepts pzfabric-ctl connections, reads one request per
 * message, runs it (pzctl_cmd.c) and sends the reply as one message.
 *
 * The listen backlog holds PZCTL_SERVER_CONNS_MAX connections and every
 * waiting one is accepted each round, so that many clients may connect at
 * the same moment, also without waiting (a non-blocking connect fails when
 * the backlog is full).  Connections are served before the listening socket
 * in a round, and a full table first drops clients that hung up, so one
 * that closed just before another connects does not cost that one its
 * slot.  Connections beyond PZCTL_SERVER_CONNS_MAX are accepted and closed at
 * once.
 * A client that does not read its replies (the socket is full) is
 * disconnected; nothing it sends can stop the server.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pzctl_cmd.h"
#include "pzctl_proto.h"
#include "pzf_log.h"
#include "server_internal.h"

int pzctl_server_open(struct sim_server *s)
{
    s->pzctl_reply = malloc(PZCTL_REPLY_MAX);
    s->pzctl_fd = s->pzctl_reply ? server_listen(s, PZCTL_SUFFIX, PZCTL_SERVER_CONNS_MAX) : -1;
    if (s->pzctl_fd >= 0)
        return 0;
    free(s->pzctl_reply);
    s->pzctl_reply = NULL;
    return -1;
}

/* Close operator connection i. */
static void pzctl_server_drop(struct sim_server *s, size_t i)
{
    if (!s->pzctl[i].used)
        return;
    close(s->pzctl[i].fd);
    s->pzctl[i].used = false;
}

void pzctl_server_close(struct sim_server *s)
{
    for (size_t i = 0; i < PZCTL_SERVER_CONNS_MAX; i++)
        pzctl_server_drop(s, i);
    if (s->pzctl_fd >= 0)
        close(s->pzctl_fd);
    s->pzctl_fd = -1;
    free(s->pzctl_reply);
    s->pzctl_reply = NULL;
}

size_t pzctl_server_num_pfds(const struct sim_server *s)
{
    size_t n = 1;

    for (size_t i = 0; i < PZCTL_SERVER_CONNS_MAX; i++)
        n += s->pzctl[i].used;
    return n;
}

/*
 * The connections, then the listening socket: in a round, hang-ups are
 * handled (slots freed) before new connections are accepted, and a slot
 * reused by an accept has no stale entry left in the round.
 */
size_t pzctl_server_pfds(struct sim_server *s, size_t n)
{
    for (size_t i = 0; i < PZCTL_SERVER_CONNS_MAX; i++) {
        if (!s->pzctl[i].used)
            continue;
        s->pfds[n].fd = s->pzctl[i].fd;
        s->pfds[n].events = POLLIN;
        s->pfd_conn[n++] = SIM_PFD_PZCTL | (uint32_t)i;
    }
    s->pfds[n].fd = s->pzctl_fd;
    s->pfds[n].events = POLLIN;
    s->pfd_conn[n++] = SIM_PFD_PZCTL_LISTEN;
    return n;
}

bool pzctl_server_tag(uint32_t tag)
{
    return tag == SIM_PFD_PZCTL_LISTEN || (!(tag & SIM_PFD_AGENT) && (tag & SIM_PFD_PZCTL));
}

/* Close the connections whose client has hung up; returns how many. */
static unsigned pzctl_server_reap(struct sim_server *s)
{
    struct pollfd pfds[PZCTL_SERVER_CONNS_MAX];
    size_t idx[PZCTL_SERVER_CONNS_MAX], n = 0;
    unsigned closed = 0;

    for (size_t i = 0; i < PZCTL_SERVER_CONNS_MAX; i++) {
        if (!s->pzctl[i].used)
            continue;
        pfds[n].fd = s->pzctl[i].fd;
        pfds[n].events = POLLIN;
        idx[n++] = i;
    }
    if (poll(pfds, n, 0) <= 0)
        return 0;
    for (size_t k = 0; k < n; k++) {
        if (pfds[k].revents & (POLLHUP | POLLERR)) {
            pzctl_server_drop(s, idx[k]);
            closed++;
        }
    }
    return closed;
}

/* A free connection slot, or -1. */
static long pzctl_server_free_slot(const struct sim_server *s)
{
    for (size_t i = 0; i < PZCTL_SERVER_CONNS_MAX; i++)
        if (!s->pzctl[i].used)
            return (long)i;
    return -1;
}

/*
 * Accept one connection into a free slot (or refuse it when all are busy,
 * after closing those whose client has gone: a client that closed its
 * connection just before another connects must not cost that one its
 * slot); false if none waits.
 */
static bool pzctl_server_accept_one(struct sim_server *s)
{
    int fd = accept4(s->pzctl_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    long i;

    if (fd < 0)
        return false;
    i = pzctl_server_free_slot(s);
    if (i < 0 && pzctl_server_reap(s))
        i = pzctl_server_free_slot(s);
    if (i >= 0) {
        s->pzctl[i].used = true;
        s->pzctl[i].fd = fd;
        return true;
    }
    pzf_log(s->verbose, PZF_LOG_ERROR, "pzctl: more than %d connections, refusing one",
            PZCTL_SERVER_CONNS_MAX);
    close(fd);
    return true;
}

/*
 * Accept every waiting connection (up to the backlog's worth): clients that
 * connect without waiting find the backlog full otherwise.
 */
static void pzctl_server_accept(struct sim_server *s)
{
    for (unsigned i = 0; i < 2 * PZCTL_SERVER_CONNS_MAX && pzctl_server_accept_one(s); i++)
        ;
}

/* Log a request and the first line of its reply (with -v), control bytes as '?'. */
static void pzctl_server_log(const struct sim_server *s, const char *req, size_t len)
{
    char line[160];
    size_t n;

    while (len && req[len - 1] == '\n')
        len--;
    n = len < sizeof(line) - 1 ? len : sizeof(line) - 1;
    for (size_t i = 0; i < n; i++)
        line[i] = req[i] == '\n' ? ' ' : (req[i] < 0x20 || req[i] == 0x7F) ? '?' : req[i];
    line[n] = '\0';
    pzf_log(s->verbose, PZF_LOG_INFO, "pzctl: %s: %.*s", line, (int)strcspn(s->pzctl_reply, "\n"),
            s->pzctl_reply);
}

/* Read and answer one request on connection i; returns false if it must close. */
static bool pzctl_server_serve_one(struct sim_server *s, size_t i)
{
    char req[PZCTL_REQUEST_MAX + 1];
    ssize_t n = recv(s->pzctl[i].fd, req, sizeof(req), MSG_DONTWAIT);
    size_t len;

    if (n < 0)
        return errno == EAGAIN || errno == EINTR;
    if (n == 0)
        return false; /* closed (an empty message reads the same) */
    len = pzctl_execute(s->f, sim_server_num_clients(s), req, (size_t)n, s->pzctl_reply,
                        PZCTL_REPLY_MAX);
    pzctl_server_log(s, req, (size_t)n);
    if (send(s->pzctl[i].fd, s->pzctl_reply, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "pzctl: cannot send a reply: %s", strerror(errno));
        return false;
    }
    return true;
}

void pzctl_server_handle(struct sim_server *s, uint32_t tag, short revents)
{
    size_t i;

    if (tag == SIM_PFD_PZCTL_LISTEN) {
        if (revents & POLLIN)
            pzctl_server_accept(s);
        return;
    }
    i = tag & ~SIM_PFD_PZCTL;
    if (i >= PZCTL_SERVER_CONNS_MAX || !s->pzctl[i].used)
        return;
    if ((revents & (POLLERR | POLLHUP)) && !(revents & POLLIN)) {
        pzctl_server_drop(s, i);
        return;
    }
    if (!pzctl_server_serve_one(s, i))
        pzctl_server_drop(s, i);
}

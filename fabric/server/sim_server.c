/*
 * sim_server.c - sockets of the ibsim protocol server: the control socket,
 * one packet socket per client, reading clients' packets into the fabric
 * and writing the fabric's deliveries back (queued while a client's socket
 * is full).
 */
#define _GNU_SOURCE /* recvmmsg() */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "pzf_array.h"
#include "pzf_log.h"
#include "server_internal.h"

/* Fill *a with the abstract address "\0<base>:<suffix>[num]\0"; returns its length. */
static socklen_t sim_addr(const struct sim_server *s, const char *suffix, long num,
                          struct sockaddr_un *a)
{
    char name[sizeof(a->sun_path)];
    int len;

    if (num >= 0)
        len = snprintf(name, sizeof(name), "%s:%s%ld", s->name, suffix, num);
    else
        len = snprintf(name, sizeof(name), "%s:%s", s->name, suffix);
    if (len < 0 || (size_t)len >= sizeof(a->sun_path) - 2)
        len = (int)sizeof(a->sun_path) - 3;
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path + 1, name, (size_t)len);
    /* The name's terminating NUL is part of the address, as umad2sim makes it. */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len + 1);
}

/* A new non-blocking datagram socket; returns the fd or -1. */
static int sim_socket(void)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

    if (fd < 0)
        return -1;
    if (fcntl(fd, F_SETFL, O_NONBLOCK) || fcntl(fd, F_SETFD, FD_CLOEXEC)) {
        close(fd);
        return -1;
    }
    return fd;
}

int sim_socket_bind(const struct sim_server *s, const char *suffix, unsigned num)
{
    struct sockaddr_un a;
    socklen_t len = sim_addr(s, suffix, strcmp(suffix, "ctl") ? (long)num : -1, &a);
    int fd = sim_socket();

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, len)) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int sim_socket_connect(int fd, const struct sim_server *s, const char *suffix, unsigned num)
{
    struct sockaddr_un a;
    socklen_t len = sim_addr(s, suffix, (long)num, &a);

    return connect(fd, (struct sockaddr *)&a, len);
}

int server_listen(const struct sim_server *s, const char *suffix, int backlog)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    int len = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1, "%s:%s", s->name, suffix);
    int fd;

    if (len < 0 || (size_t)len >= sizeof(a.sun_path) - 1) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len)) ||
        listen(fd, backlog)) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* Deliver a fabric MAD to a client (fabric_deliver_fn). */
static void sim_deliver(void *arg, unsigned client, const struct fabric_mad *m);

struct sim_server *sim_server_create(const char *sockname, struct fabric *f, int verbose, char *err,
                                     size_t err_size)
{
    struct sim_server *s;

    if (!sockname || !*sockname || strlen(sockname) > SIM_NAME_MAX) {
        snprintf(err, err_size, "socket name must have 1 to %d characters", SIM_NAME_MAX);
        return NULL;
    }
    s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    snprintf(s->name, sizeof(s->name), "%s", sockname);
    s->f = f;
    s->verbose = verbose;
    s->ctl_fd = sim_socket_bind(s, "ctl", 0);
    if (s->ctl_fd < 0) {
        snprintf(err, err_size, "cannot bind socket \"%s:ctl\": %s%s", sockname, strerror(errno),
                 errno == EADDRINUSE ? " (another simulator runs with this name)" : "");
        free(s);
        return NULL;
    }
    if (board_server_open(s)) {
        snprintf(err, err_size, "cannot bind socket \"%s:board\": %s", sockname, strerror(errno));
        close(s->ctl_fd);
        free(s);
        return NULL;
    }
    if (pzctl_server_open(s)) {
        snprintf(err, err_size, "cannot bind socket \"%s:pzctl\": %s", sockname, strerror(errno));
        board_server_close(s);
        close(s->ctl_fd);
        free(s);
        return NULL;
    }
    if (dgram_server_open(s)) {
        snprintf(err, err_size, "cannot bind socket \"%s:dgram\": %s", sockname, strerror(errno));
        dgram_server_close(s);
        pzctl_server_close(s);
        board_server_close(s);
        close(s->ctl_fd);
        free(s);
        return NULL;
    }
    fabric_set_deliver(f, sim_deliver, s);
    return s;
}

/* Free the packets queued for a connection. */
static void sim_tx_clear(struct sim_tx_queue *q)
{
    free(q->items);
    memset(q, 0, sizeof(*q));
}

void sim_conn_close(struct sim_server *s, unsigned id)
{
    struct sim_conn *c;

    if (id >= s->num_conns || !s->conns[id].used)
        return;
    c = &s->conns[id];
    fabric_client_detach(s->f, id);
    if (c->fd >= 0)
        close(c->fd);
    sim_tx_clear(&c->tx);
    memset(c, 0, sizeof(*c));
}

void sim_server_destroy(struct sim_server *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->num_conns; i++)
        sim_conn_close(s, (unsigned)i);
    fabric_set_deliver(s->f, NULL, NULL);
    dgram_server_close(s);
    pzctl_server_close(s);
    board_server_close(s);
    close(s->ctl_fd);
    free(s->conns);
    free(s->pfds);
    free(s->pfd_conn);
    free(s);
}

/* The lowest free client id, growing the table if needed; returns 0 or -1. */
static int sim_conn_slot(struct sim_server *s, unsigned *id)
{
    size_t cap;
    struct sim_conn *conns;

    for (size_t i = 0; i < s->num_conns; i++) {
        if (!s->conns[i].used) {
            *id = (unsigned)i;
            return 0;
        }
    }
    cap = s->num_conns ? 2 * s->num_conns : 16;
    conns = realloc(s->conns, cap * sizeof(*conns));
    if (!conns)
        return -1;
    memset(conns + s->num_conns, 0, (cap - s->num_conns) * sizeof(*conns));
    *id = (unsigned)s->num_conns;
    s->conns = conns;
    s->num_conns = cap;
    return 0;
}

int sim_conn_open(struct sim_server *s, uint32_t pid, unsigned *id)
{
    struct sim_conn *c;
    int fd;

    /* A stale connection of a dead process with the same pid would get its packets. */
    for (size_t i = 0; i < s->num_conns; i++)
        if (s->conns[i].used && s->conns[i].pid == pid && !s->conns[i].board_agent)
            sim_conn_close(s, (unsigned)i);
    if (sim_conn_slot(s, id))
        return -ENOMEM;
    fd = sim_socket_bind(s, "out", *id);
    if (fd < 0)
        return -errno;
    if (sim_socket_connect(fd, s, "in", pid)) {
        int e = errno;

        close(fd);
        return -e;
    }
    c = &s->conns[*id];
    memset(c, 0, sizeof(*c));
    c->used = true;
    c->fd = fd;
    c->pid = pid;
    return 0;
}

int sim_conn_open_board(struct sim_server *s, uint32_t pid, size_t agent, unsigned *id)
{
    struct sim_conn *c;

    if (sim_conn_slot(s, id))
        return -ENOMEM;
    c = &s->conns[*id];
    memset(c, 0, sizeof(*c));
    c->used = true;
    c->fd = -1;
    c->pid = pid;
    c->board_agent = agent + 1;
    return 0;
}

size_t sim_server_num_clients(const struct sim_server *s)
{
    size_t n = 0;

    for (size_t i = 0; i < s->num_conns; i++)
        n += s->conns[i].used;
    return n;
}

/* Send one packet now; returns 0, -EAGAIN (socket full) or another -errno. */
static int sim_send_now(struct sim_conn *c, const struct sim_request *r)
{
    ssize_t n = send(c->fd, r, sizeof(*r), MSG_DONTWAIT);

    if (n == (ssize_t)sizeof(*r))
        return 0;
    return n < 0 ? -errno : -EIO;
}

/* Append a packet to a connection's queue; returns 0 or -1 when it is full. */
static int sim_tx_push(struct sim_tx_queue *q, const struct sim_request *r)
{
    if (q->count == q->cap) {
        struct sim_request *items;

        if (q->cap >= SIM_TX_QUEUE_MAX)
            return -1;
        items = pzf_ring_grow(q->items, q->head, q->count, &q->cap, sizeof(*items), 64);
        if (!items)
            return -1;
        q->items = items;
    }
    q->items[(q->head + q->count) % q->cap] = *r;
    q->count++;
    return 0;
}

/* Note a failed send: a vanished client is detached later, others lose the packet. */
static void sim_send_failed(struct sim_server *s, unsigned id, int err)
{
    struct sim_conn *c = &s->conns[id];

    if (err == -ECONNREFUSED || err == -ENOTCONN || err == -ECONNRESET) {
        if (!c->dead)
            pzf_log(s->verbose, PZF_LOG_INFO, "client %u (pid %u) is gone", id, c->pid);
        c->dead = true;
    } else {
        pzf_log(s->verbose, PZF_LOG_ERROR, "client %u (pid %u): packet lost: %s", id, c->pid,
                strerror(-err));
    }
}

/* Send or queue a packet for client id. */
static void sim_send(struct sim_server *s, unsigned id, const struct sim_request *r)
{
    struct sim_conn *c = &s->conns[id];
    int rc = -EAGAIN;

    if (c->dead)
        return;
    if (c->tx.count == 0)
        rc = sim_send_now(c, r);
    if (rc == -EAGAIN && sim_tx_push(&c->tx, r))
        rc = -ENOBUFS;
    else if (rc == -EAGAIN)
        rc = 0;
    if (rc)
        sim_send_failed(s, id, rc);
}

/* Send queued packets while the client's socket takes them. */
static void sim_flush(struct sim_server *s, unsigned id)
{
    struct sim_conn *c = &s->conns[id];

    while (c->tx.count && !c->dead) {
        int rc = sim_send_now(c, &c->tx.items[c->tx.head]);

        if (rc == -EAGAIN)
            return;
        if (rc)
            sim_send_failed(s, id, rc);
        c->tx.head = (c->tx.head + 1) % c->tx.cap;
        c->tx.count--;
    }
}

static void sim_deliver(void *arg, unsigned client, const struct fabric_mad *m)
{
    struct sim_server *s = arg;
    struct sim_request r;

    if (client >= s->num_conns || !s->conns[client].used)
        return;
    if (s->conns[client].board_agent) {
        board_server_deliver(s, s->conns[client].board_agent - 1, m);
        return;
    }
    memset(&r, 0, sizeof(r));
    r.dlid = htons(m->dlid);
    r.slid = htons(m->slid);
    r.dqp = htonl(m->dqp);
    r.sqp = htonl(m->sqp);
    r.status = htonl(m->status);
    /* The sender's length: an SA answer's records end there (saquery counts them). */
    r.length = htobe64(m->len && m->len <= sizeof(r.mad) ? m->len : sizeof(r.mad));
    memcpy(r.mad, m->mad, sizeof(r.mad));
    sim_send(s, client, &r);
}

/* Hand one packet of client id to the fabric; malformed ones are logged and dropped. */
static void sim_packet(struct sim_server *s, unsigned id, const uint8_t *buf, ssize_t n)
{
    struct sim_request r;
    struct fabric_mad m;
    uint64_t len;

    if (n != (ssize_t)sizeof(r)) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "client %u: packet of %zd bytes, expected %zu", id, n,
                sizeof(r));
        return;
    }
    memcpy(&r, buf, sizeof(r));
    len = be64toh(r.length);
    if (len < 24 || len > sizeof(r.mad)) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "client %u: MAD length %llu out of range", id,
                (unsigned long long)len);
        return;
    }
    memset(&m, 0, sizeof(m));
    memcpy(m.mad, r.mad, (size_t)len);
    m.dlid = ntohs((uint16_t)r.dlid);
    m.slid = ntohs((uint16_t)r.slid);
    m.dqp = ntohl(r.dqp);
    m.sqp = ntohl(r.sqp);
    m.len = (uint16_t)len;
    if ((ntohl(r.status) & ~SIM_STATUS_TIMEOUT_MASK) == SIM_STATUS_TIMEOUT_TAG)
        m.timeout_ms = ntohl(r.status) & SIM_STATUS_TIMEOUT_MASK; /* the client's umad timeout */
    fabric_client_send(s->f, id, &m);
}

/*
 * Read what client id sent, a burst at a time: up to SIM_RECV_BATCH
 * packets per recvmmsg(), so a wake-up with k packets waiting costs one
 * receive (plus one more only when a batch came back full), not k + 1.
 */
static void sim_read_packets(struct sim_server *s, unsigned id)
{
    uint8_t bufs[SIM_RECV_BATCH][2 * sizeof(struct sim_request)];
    struct mmsghdr msgs[SIM_RECV_BATCH];
    struct iovec iov[SIM_RECV_BATCH];

    for (unsigned total = 0; total < SIM_READ_BURST && !s->conns[id].dead;) {
        int got;

        for (unsigned k = 0; k < SIM_RECV_BATCH; k++) {
            iov[k] = (struct iovec){.iov_base = bufs[k], .iov_len = sizeof(bufs[k])};
            msgs[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[k], .msg_iovlen = 1}};
        }
        got = recvmmsg(s->conns[id].fd, msgs, SIM_RECV_BATCH, MSG_DONTWAIT, NULL);
        if (got < 0) {
            if (errno != EAGAIN && errno != EINTR)
                sim_send_failed(s, id, -errno);
            return;
        }
        for (int k = 0; k < got && !s->conns[id].dead; k++) {
            board_server_sync(s, id); /* an agent's posted LFT writes before its answers */
            sim_packet(s, id, bufs[k], (ssize_t)msgs[k].msg_len);
        }
        total += (unsigned)got;
        if (got < SIM_RECV_BATCH)
            return; /* the queue was empty after these */
    }
}

/* Read and answer control messages, a burst at a time. */
static void sim_read_ctl(struct sim_server *s)
{
    for (unsigned i = 0; i < SIM_READ_BURST; i++) {
        struct sockaddr_un from;
        socklen_t from_len = sizeof(from);
        uint8_t buf[2 * sizeof(struct sim_ctl)];
        struct sim_ctl ctl;
        ssize_t n = recvfrom(s->ctl_fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from,
                             &from_len);

        if (n < 0)
            return;
        if (n != (ssize_t)sizeof(ctl)) {
            pzf_log(s->verbose, PZF_LOG_ERROR, "control message of %zd bytes, expected %zu", n,
                    sizeof(ctl));
            continue;
        }
        memcpy(&ctl, buf, sizeof(ctl));
        if (ctl.magic != SIM_PROTO_MAGIC) {
            pzf_log(s->verbose, PZF_LOG_ERROR, "control message with bad magic 0x%08x", ctl.magic);
            continue;
        }
        sim_ctl_handle(s, &ctl);
        if (sendto(s->ctl_fd, &ctl, sizeof(ctl), MSG_DONTWAIT, (struct sockaddr *)&from,
                   from_len) != (ssize_t)sizeof(ctl))
            pzf_log(s->verbose, PZF_LOG_ERROR, "cannot answer a control message: %s",
                    strerror(errno));
    }
}

/* Size the poll arrays for every connection; returns 0 or -1. */
static int sim_pfds_reserve(struct sim_server *s)
{
    size_t need = s->num_conns + 1 + board_server_num_pfds(s) + pzctl_server_num_pfds(s) +
                  dgram_server_num_pfds(s);
    struct pollfd *pfds;
    uint32_t *map;

    if (need <= s->cap_pfds)
        return 0;
    pfds = realloc(s->pfds, need * sizeof(*pfds));
    if (!pfds)
        return -1;
    s->pfds = pfds;
    map = realloc(s->pfd_conn, need * sizeof(*map));
    if (!map)
        return -1;
    s->pfd_conn = map;
    s->cap_pfds = need;
    return 0;
}

/*
 * Fill the poll array: the control socket, every live connection, board,
 * datagram and pzctl sockets.  The MAD sockets (control, clients, board)
 * come first: s->mad_pfds of them.
 */
static size_t sim_pfds_fill(struct sim_server *s)
{
    size_t n = 1;

    s->pfds[0].fd = s->ctl_fd;
    s->pfds[0].events = POLLIN;
    for (size_t i = 0; i < s->num_conns; i++) {
        struct sim_conn *c = &s->conns[i];

        if (!c->used || c->dead || c->fd < 0)
            continue;
        s->pfds[n].fd = c->fd;
        s->pfds[n].events = (short)(POLLIN | (c->tx.count ? POLLOUT : 0));
        s->pfd_conn[n] = (uint32_t)i;
        n++;
    }
    n = board_server_pfds(s, n);
    s->mad_pfds = n;
    n = dgram_server_pfds(s, n);
    return pzctl_server_pfds(s, n);
}

/* Detach clients whose socket went away. */
static void sim_reap(struct sim_server *s)
{
    for (size_t i = 0; i < s->num_conns; i++)
        if (s->conns[i].used && s->conns[i].dead)
            sim_conn_close(s, (unsigned)i);
}

/* Serve what poll() marked among pfds[1..n) that is not a datagram socket. */
static void sim_serve_marked(struct sim_server *s, size_t n)
{
    /*
     * External agents first: an agent waiting for a board answer gets it
     * before the MADs that came meanwhile from clients, so it wakes once for
     * both rather than once for each.
     */
    for (size_t i = 1; i < n; i++) {
        if ((s->pfd_conn[i] & SIM_PFD_AGENT) && s->pfd_conn[i] != SIM_PFD_BOARD_LISTEN &&
            !dgram_server_tag(s->pfd_conn[i]) && !pzctl_server_tag(s->pfd_conn[i]) &&
            s->pfds[i].revents) {
            board_server_handle(s, s->pfd_conn[i], s->pfds[i].revents);
            s->pfds[i].revents = 0;
        }
    }
    for (size_t i = 1; i < n; i++) {
        unsigned id = s->pfd_conn[i];

        if (dgram_server_tag(id))
            continue; /* after every MAD socket: dgram_server_drain() */
        if (pzctl_server_tag(id)) {
            if (s->pfds[i].revents)
                pzctl_server_handle(s, id, s->pfds[i].revents);
            continue;
        }
        if (id == SIM_PFD_BOARD_LISTEN || (id & SIM_PFD_AGENT)) {
            if (s->pfds[i].revents)
                board_server_handle(s, id, s->pfds[i].revents);
            continue;
        }
        if (!s->conns[id].used)
            continue; /* closed by a control message this round */
        if (s->pfds[i].revents & POLLOUT)
            sim_flush(s, id);
        if (s->pfds[i].revents & (POLLIN | POLLERR | POLLHUP))
            sim_read_packets(s, id);
    }
    if (s->pfds[0].revents & POLLIN)
        sim_read_ctl(s);
}

int sim_server_serve_mads(struct sim_server *s)
{
    int ready;

    if (sim_pfds_reserve(s))
        return -1;
    sim_pfds_fill(s);
    ready = poll(s->pfds, s->mad_pfds, 0);
    if (ready <= 0)
        return ready < 0 && errno != EINTR ? -1 : 0;
    sim_serve_marked(s, s->mad_pfds);
    return ready;
}

int sim_server_run_once(struct sim_server *s, int timeout_ms)
{
    size_t n;
    int ready;

    if (sim_pfds_reserve(s))
        return -1;
    n = sim_pfds_fill(s);
    ready = poll(s->pfds, n, timeout_ms);
    if (ready < 0)
        return errno == EINTR ? 0 : -1;
    if (ready > 0) {
        /* VL15 first: every MAD socket, then the datagrams in bounded batches. */
        dgram_server_mark(s, n);
        sim_serve_marked(s, n);
        dgram_server_drain(s);
    }
    sim_reap(s);
    return ready > 0;
}

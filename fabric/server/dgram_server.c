/*
 * dgram_server.c - pzfabric's datagram socket "<name>:dgram" (abstract unix
 * SOCK_SEQPACKET, wire format in board/board_sim_dgram.h): a connection
 * attaches as one QP of a node's port-0 stack (several connections, up to
 * FABRIC_DGRAM_QPS_MAX, may attach to one node, each its own QP), then
 * posts datagrams, which the fabric carries at once (fabric_dgram_send_qp),
 * and receives every datagram delivered to its QP as one RECV message.
 *
 * The first message must be ATTACH; it is answered (ATTACHED), and a
 * refused attach closes the connection.  After it, messages are never
 * answered: a malformed one, or a send the fabric refuses, is counted and
 * logged, and the connection stays.  A client that does not read loses what
 * does not fit its socket (a UD receive queue overflows the same way).
 * Closing the connection detaches its QP.
 */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board_sim_dgram.h"
#include "fabric_dgram.h"
#include "pzf_log.h"
#include "server_internal.h"

#define DGRAM_SERVER_CONNS_MAX 1024 /* connections (QPs) at once */
/*
 * Datagrams taken from one connection before the MAD sockets are looked at
 * again: an SMP waits behind at most this many per datagram connection, as
 * VL15 has buffers of its own in a switch and is never stuck behind data.
 */
#define DGRAM_SERVER_BATCH 8
/*
 * A connection's send buffer is its QP's receive queue: what the client has
 * not read yet.  The kernel's default (wmem_default, 208 KiB) held only 50-90
 * IPoIB datagrams, and a portzerod whose loop paused for a few milliseconds
 * (a loaded machine, ThreadSanitizer) lost UDP datagrams that a real port's
 * receive ring would have held: Linux's IPoIB posts 256 receives, this is
 * room for 256 datagrams of a 4 KiB MTU (about 9 KiB of buffer each).
 */
#define DGRAM_SERVER_RQ_BYTES (256 * 9 * 1024)

/* One connection on the datagram socket: one QP of a node's port-0 stack. */
struct dgram_server_conn {
    struct sim_server *s;
    int fd;
    long node;    /* attached node, or -1 before ATTACH */
    uint32_t qpn; /* its QP once attached */
    bool ready;   /* poll() marked it readable this round */
};

struct dgram_server {
    int listen_fd;
    struct dgram_server_conn **conns; /* [num_conns], NULL: a free slot */
    size_t num_conns;
    unsigned long bad;                    /* malformed or refused messages */
    unsigned long overrun;                /* datagrams a client's socket had no room for */
    uint8_t buf[BOARD_SIM_DGRAM_MAX + 1]; /* the message read (a SEND's payload stays here) */
    uint8_t out[BOARD_SIM_DGRAM_MAX];     /* a RECV being written (while buf is sent) */
};

bool dgram_server_tag(uint32_t tag)
{
    return tag == SIM_PFD_DGRAM_LISTEN || (tag & SIM_PFD_DGRAM_MASK) == SIM_PFD_DGRAM;
}

int dgram_server_open(struct sim_server *s)
{
    s->dgram = calloc(1, sizeof(*s->dgram));
    if (!s->dgram)
        return -1;
    s->dgram->listen_fd = server_listen(s, "dgram", 16);
    return s->dgram->listen_fd < 0 ? -1 : 0;
}

/* Close connection i; its QP is detached. */
static void dgram_server_conn_close(struct sim_server *s, size_t i)
{
    struct dgram_server_conn *c = s->dgram->conns[i];

    if (!c)
        return;
    if (c->node >= 0) {
        pzf_log(s->verbose, PZF_LOG_INFO, "datagram stack of %s detached (QP 0x%06x)",
                fabric_node_name(s->f, (size_t)c->node), c->qpn);
        fabric_dgram_detach_qp(s->f, (size_t)c->node, c->qpn);
    }
    close(c->fd);
    free(c);
    s->dgram->conns[i] = NULL;
}

void dgram_server_close(struct sim_server *s)
{
    if (!s->dgram)
        return;
    for (size_t i = 0; i < s->dgram->num_conns; i++)
        dgram_server_conn_close(s, i);
    if (s->dgram->listen_fd >= 0)
        close(s->dgram->listen_fd);
    free(s->dgram->conns);
    free(s->dgram);
    s->dgram = NULL;
}

size_t dgram_server_num_pfds(const struct sim_server *s)
{
    return s->dgram ? 1 + s->dgram->num_conns : 0;
}

size_t dgram_server_pfds(struct sim_server *s, size_t n)
{
    if (!s->dgram)
        return n;
    s->pfds[n].fd = s->dgram->listen_fd;
    s->pfds[n].events = POLLIN;
    s->pfd_conn[n++] = SIM_PFD_DGRAM_LISTEN;
    for (size_t i = 0; i < s->dgram->num_conns; i++) {
        if (!s->dgram->conns[i])
            continue;
        s->pfds[n].fd = s->dgram->conns[i]->fd;
        s->pfds[n].events = POLLIN;
        s->pfd_conn[n++] = SIM_PFD_DGRAM | (uint32_t)i;
    }
    return n;
}

/*
 * Give a connection the receive queue depth above: SO_SNDBUFFORCE where
 * allowed (pzfabric runs as root in the tests), else SO_SNDBUF, which the
 * kernel caps at wmem_max.  A failure keeps the default (only shallower).
 */
static void dgram_server_rq_depth(int fd)
{
    int bytes = DGRAM_SERVER_RQ_BYTES;

    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &bytes, sizeof(bytes)) != 0)
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
}

/* Accept one connection into a free slot. */
static void dgram_server_accept(struct sim_server *s)
{
    struct dgram_server *g = s->dgram;
    int fd = accept4(g->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    struct dgram_server_conn *c;
    size_t i;

    if (fd < 0)
        return;
    dgram_server_rq_depth(fd);
    c = calloc(1, sizeof(*c));
    if (!c) {
        close(fd);
        return;
    }
    *c = (struct dgram_server_conn){.s = s, .fd = fd, .node = -1};
    for (i = 0; i < g->num_conns && g->conns[i]; i++)
        ;
    if (i == g->num_conns) {
        struct dgram_server_conn **grown;

        grown = g->num_conns >= DGRAM_SERVER_CONNS_MAX
                    ? NULL
                    : realloc(g->conns, (g->num_conns + 1) * sizeof(*grown));
        if (!grown) {
            close(fd);
            free(c);
            return;
        }
        g->conns = grown;
        g->num_conns++;
    }
    g->conns[i] = c;
}

/* The fabric delivers a datagram to the QP of connection arg: one RECV message. */
static void dgram_server_rx(void *arg, size_t node, const struct board_dgram_addr *a,
                            const uint8_t *payload, size_t len)
{
    struct dgram_server_conn *c = arg;
    struct sim_server *s = c->s;
    struct dgram_server *g = s->dgram;
    size_t n =
        board_sim_dgram_encode(g->out, sizeof(g->out), BOARD_SIM_DGRAM_RECV, 0, a, payload, len);

    if (n && send(c->fd, g->out, n, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)n) {
        g->overrun++;
        pzf_log(s->verbose, PZF_LOG_DEBUG, "datagram for %s lost: %s", fabric_node_name(s->f, node),
                strerror(errno));
    }
}

/* Send the ATTACHED answer (status, QP number, LID). */
static void dgram_server_attached(struct sim_server *s, struct dgram_server_conn *c, int status,
                                  uint32_t qpn, uint16_t lid)
{
    struct board_dgram_addr a = {.src_qp = qpn, .slid = lid};
    uint8_t msg[BOARD_SIM_DGRAM_HDR];
    size_t n =
        board_sim_dgram_encode(msg, sizeof(msg), BOARD_SIM_DGRAM_ATTACHED, status, &a, NULL, 0);

    (void)s;
    send(c->fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Handle the first message of a connection; returns 0, or -1: refused, close it. */
static int dgram_server_attach(struct sim_server *s, struct dgram_server_conn *c,
                               const struct board_sim_dgram_msg *m)
{
    char name[BOARD_SIM_DGRAM_NAME_MAX + 1];
    uint32_t qpn = 0;
    long node;
    int rc;

    if (m->op != BOARD_SIM_DGRAM_ATTACH) {
        dgram_server_attached(s, c, -EPROTO, 0, 0);
        return -1;
    }
    memcpy(name, m->payload, m->len);
    name[m->len] = '\0';
    node = fabric_find_node(s->f, name);
    rc = node < 0 ? -ENOENT
                  : fabric_dgram_attach(s->f, (size_t)node, m->a.qkey, dgram_server_rx, c, &qpn);
    if (rc) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "datagram attach to \"%s\" refused: %s", name,
                strerror(-rc));
        dgram_server_attached(s, c, rc, 0, 0);
        return -1;
    }
    c->node = node;
    c->qpn = qpn;
    dgram_server_attached(s, c, 0, qpn, fabric_dgram_lid(s->f, (size_t)node));
    pzf_log(s->verbose, PZF_LOG_INFO, "datagram stack attached to %s (QP 0x%06x, Q_Key 0x%08x)",
            name, qpn, m->a.qkey);
    return 0;
}

/* Count and log a message an attached stack should not have sent. */
static void dgram_server_bad(struct sim_server *s, const struct dgram_server_conn *c,
                             const char *what)
{
    s->dgram->bad++;
    pzf_log(s->verbose, PZF_LOG_ERROR, "datagram socket (%s): %s",
            fabric_node_name(s->f, (size_t)c->node), what);
}

/* Read and handle one message of connection i: 1 handled, 0 none waiting, -1 close it. */
static int dgram_server_serve_one(struct sim_server *s, size_t i)
{
    struct dgram_server *g = s->dgram;
    struct dgram_server_conn *c = g->conns[i];
    struct board_sim_dgram_msg m;
    ssize_t n = recv(c->fd, g->buf, sizeof(g->buf), MSG_DONTWAIT);
    int rc;

    if (n < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    if (n == 0)
        return -1;
    if (board_sim_dgram_decode(g->buf, (size_t)n, &m)) {
        fabric_dgram_note_malformed(s->f);
        if (c->node < 0) {
            g->bad++;
            pzf_log(s->verbose, PZF_LOG_ERROR, "datagram socket: malformed attach (%zd bytes)", n);
            dgram_server_attached(s, c, -EPROTO, 0, 0);
            return -1;
        }
        dgram_server_bad(s, c, "malformed message");
        return 1;
    }
    if (c->node < 0)
        return dgram_server_attach(s, c, &m) ? -1 : 1;
    switch (m.op) {
    case BOARD_SIM_DGRAM_SEND:
        rc = fabric_dgram_send_qp(s->f, (size_t)c->node, c->qpn, &m.a, m.payload, m.len);
        if (rc)
            dgram_server_bad(s, c, strerror(-rc));
        break;
    case BOARD_SIM_DGRAM_QKEY:
        fabric_dgram_set_qkey_qp(s->f, (size_t)c->node, c->qpn, m.a.qkey);
        break;
    default:
        fabric_dgram_note_malformed(s->f);
        dgram_server_bad(s, c, "unexpected message type");
        break;
    }
    return 1;
}

void dgram_server_mark(struct sim_server *s, size_t n)
{
    struct dgram_server *g = s->dgram;

    if (!g)
        return;
    for (size_t i = 0; i < g->num_conns; i++)
        if (g->conns[i])
            g->conns[i]->ready = false;
    for (size_t k = 1; k < n; k++) {
        uint32_t tag = s->pfd_conn[k];
        short revents = s->pfds[k].revents;
        size_t i = tag & ~SIM_PFD_DGRAM_MASK;

        if (!revents || !dgram_server_tag(tag))
            continue;
        if (tag == SIM_PFD_DGRAM_LISTEN) {
            if (revents & POLLIN)
                dgram_server_accept(s);
            continue;
        }
        if (i >= g->num_conns || !g->conns[i])
            continue;
        if ((revents & (POLLERR | POLLHUP)) && !(revents & POLLIN))
            dgram_server_conn_close(s, i);
        else
            g->conns[i]->ready = true;
    }
}

/*
 * Serve up to DGRAM_SERVER_BATCH messages of connection i; returns how many,
 * with *more set when the batch was full (more may wait).
 */
static unsigned dgram_server_batch(struct sim_server *s, size_t i, bool *more)
{
    unsigned k;

    *more = false;
    for (k = 0; k < DGRAM_SERVER_BATCH; k++) {
        int rc = dgram_server_serve_one(s, i);

        if (rc < 0)
            dgram_server_conn_close(s, i);
        if (rc <= 0)
            return k;
    }
    *more = true;
    return k;
}

void dgram_server_drain(struct sim_server *s)
{
    struct dgram_server *g = s->dgram;
    bool pending = true;

    for (unsigned pass = 0; g && pending && pass * DGRAM_SERVER_BATCH < SIM_READ_BURST; pass++) {
        pending = false;
        for (size_t i = 0; i < g->num_conns; i++) {
            bool more;

            if (!g->conns[i] || !g->conns[i]->ready)
                continue;
            if (dgram_server_batch(s, i, &more) && sim_server_serve_mads(s) < 0)
                return;
            if (g->conns[i])
                g->conns[i]->ready = more;
            pending |= more;
        }
    }
}

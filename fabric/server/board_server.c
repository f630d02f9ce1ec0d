/*
 * board_server.c - pzfabric's board/sim server: the SOCK_SEQPACKET socket
 * "<name>:board" where an external agent (portzerod with board = sim)
 * attaches to a switch and then reads and programs its tables.
 *
 * The first message of a connection must be ATTACH naming the switch, with
 * the agent's pid: the agent must already be attached to that switch as an
 * ibsim-protocol client (its umad port), which is how the fabric knows
 * where to deliver the switch's SMPs.  When the connection closes the
 * switch loses its agent and answers no SMP until one attaches again.
 */
#define _GNU_SOURCE /* accept4, recvmmsg */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "board_sim_proto.h"
#include "pzf_array.h"
#include "pzf_log.h"
#include "server_internal.h"

/* Most board requests board_server_sync serves for one MAD. */
#define BOARD_SERVER_SYNC_MAX 4096u

/* Send agent connection a a PORT_EVENT for port; returns 0, or -1 if it did not fit. */
static int board_server_send_event(struct sim_agent *a, uint32_t port)
{
    struct board_sim_msg ev;

    board_sim_msg_request(&ev, 0, BOARD_SIM_PORT_EVENT, port, 0, 0);
    return send(a->fd, &ev, sizeof(ev), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(ev) ? 0
                                                                                            : -1;
}

/*
 * fabric_port_event_fn: tell every agent of node that port may have changed
 * (the agent keeps port statuses between events).  One that did not fit the
 * socket is made up for by an event for every port before the next answer.
 */
static void board_server_port_event(void *arg, size_t node, unsigned port)
{
    struct sim_server *s = arg;

    for (size_t i = 0; i < s->num_agents; i++) {
        struct sim_agent *a = &s->agents[i];

        if (a->used && a->node == (long)node && board_server_send_event(a, port))
            a->events_lost = true;
    }
}

int board_server_open(struct sim_server *s)
{
    fabric_set_port_event(s->f, board_server_port_event, s);
    s->board_fd = server_listen(s, "board", 8);
    return s->board_fd < 0 ? -1 : 0;
}

/* Close one agent connection; its switch loses its agent (and the client its MADs had). */
static void sim_agent_close(struct sim_server *s, size_t i)
{
    struct sim_agent *a = &s->agents[i];

    if (!a->used)
        return;
    if (a->node >= 0) {
        pzf_log(s->verbose, PZF_LOG_INFO, "agent of %s disconnected",
                fabric_node_name(s->f, (size_t)a->node));
        fabric_agent_detach(s->f, (size_t)a->node);
    }
    if (a->client >= 0)
        sim_conn_close(s, (unsigned)a->client);
    close(a->fd);
    free(a->txq);
    memset(a, 0, sizeof(*a));
}

void board_server_close(struct sim_server *s)
{
    fabric_set_port_event(s->f, NULL, NULL);
    for (size_t i = 0; i < s->num_agents; i++)
        sim_agent_close(s, i);
    free(s->agents);
    s->agents = NULL;
    s->num_agents = 0;
    if (s->board_fd >= 0)
        close(s->board_fd);
    s->board_fd = -1;
}

size_t board_server_num_pfds(const struct sim_server *s)
{
    return 1 + s->num_agents;
}

size_t board_server_pfds(struct sim_server *s, size_t n)
{
    s->pfds[n].fd = s->board_fd;
    s->pfds[n].events = POLLIN;
    s->pfd_conn[n++] = SIM_PFD_BOARD_LISTEN;
    for (size_t i = 0; i < s->num_agents; i++) {
        if (!s->agents[i].used)
            continue;
        s->pfds[n].fd = s->agents[i].fd;
        s->pfds[n].events = (short)(POLLIN | (s->agents[i].tx_count ? POLLOUT : 0));
        s->pfd_conn[n++] = SIM_PFD_AGENT | (uint32_t)i;
    }
    return n;
}

/* Accept one connection into a free agent slot. */
static void board_server_accept(struct sim_server *s)
{
    int fd = accept4(s->board_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    size_t i;

    if (fd < 0)
        return;
    for (i = 0; i < s->num_agents && s->agents[i].used; i++)
        ;
    if (i == s->num_agents) {
        struct sim_agent *grown = realloc(s->agents, (s->num_agents + 1) * sizeof(*grown));

        if (!grown) {
            close(fd);
            return;
        }
        s->agents = grown;
        s->num_agents++;
    }
    s->agents[i] = (struct sim_agent){.used = true, .fd = fd, .node = -1, .client = -1};
}

/* The client id of the umad client with this pid attached at node, or -1. */
static long board_server_client_of(const struct sim_server *s, uint32_t pid, size_t node)
{
    for (size_t i = 0; i < s->num_conns; i++) {
        size_t where;
        unsigned port;

        if (s->conns[i].used && !s->conns[i].dead && !s->conns[i].board_agent &&
            s->conns[i].pid == pid && fabric_client_where(s->f, (unsigned)i, &where, &port) == 0 &&
            where == node)
            return (long)i;
    }
    return -1;
}

/*
 * A client at node for the agent of connection a, whose MADs a carries
 * (BOARD_SIM_ATTACH_MADS); returns its id, or -1.
 */
static long board_server_mad_client(struct sim_server *s, struct sim_agent *a, uint32_t pid,
                                    size_t node)
{
    unsigned id;

    if (sim_conn_open_board(s, pid, (size_t)(a - s->agents), &id))
        return -1;
    if (fabric_client_attach(s->f, id, node, false)) {
        sim_conn_close(s, id);
        return -1;
    }
    a->client = id;
    return id;
}

/* Handle ATTACH: bind the connection to a switch; returns the errno to answer. */
static int board_server_attach(struct sim_server *s, struct sim_agent *a,
                               const struct board_sim_msg *m)
{
    bool mads = m->c & BOARD_SIM_ATTACH_MADS;
    char name[64];
    long node, client;
    int rc;

    memcpy(name, m->data, sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    node = fabric_find_node(s->f, name);
    if (node < 0 || !fabric_node_is_switch(s->f, (size_t)node))
        return ENOENT;
    client = mads ? board_server_mad_client(s, a, m->b, (size_t)node)
                  : board_server_client_of(s, m->b, (size_t)node);
    if (client < 0) {
        pzf_log(s->verbose, PZF_LOG_ERROR,
                mads ? "board attach to %s (pid %u): no room for its MADs"
                     : "board attach to %s: pid %u has no umad client attached there",
                name, m->b);
        return ENOENT;
    }
    rc = fabric_agent_attach(s->f, (size_t)node, (unsigned)client);
    if (rc) {
        if (mads)
            sim_conn_close(s, (unsigned)client);
        a->client = -1;
        return -rc;
    }
    a->node = node;
    pzf_log(s->verbose, PZF_LOG_INFO, "agent pid %u attached to switch %s", m->b, name);
    return 0;
}

/* Answer a request that cannot be executed with -err. */
static void board_server_refuse(struct sim_agent *a, const struct board_sim_msg *m, int err)
{
    struct board_sim_msg resp;

    board_sim_msg_request(&resp, m->seq, (enum board_sim_op)m->op, m->a, m->b, m->c);
    resp.status = (int32_t)htonl((uint32_t)-err);
    send(a->fd, &resp, sizeof(resp), MSG_NOSIGNAL | MSG_DONTWAIT);
}

/* Answer MAD_RX: the receive record of an SMP handed to the agent. */
static void board_server_mad_rx(struct sim_server *s, const struct sim_agent *a,
                                const struct board_sim_msg *m, struct board_sim_msg *resp)
{
    struct board_mad_rx rx;
    int rc = fabric_agent_mad_rx(s->f, (size_t)a->node, (uint64_t)m->a << 32 | m->b, &rx);

    board_sim_msg_request(resp, m->seq, BOARD_SIM_MAD_RX, m->a, m->b, m->c);
    resp->status = (int32_t)htonl((uint32_t)rc);
    if (rc == 0)
        board_sim_pack_mad_rx(resp->data, &rx);
}

/*
 * A MAD the agent sent on its board connection: into the fabric as its
 * client's, as a umad client's packet would go (the requests it sent
 * before have run: one connection, in order).  Malformed ones and MADs of
 * an agent that did not ask to carry them are logged and dropped.
 */
static void board_server_mad_in(struct sim_server *s, const struct sim_agent *a,
                                const struct board_sim_msg *msg)
{
    struct board_sim_mad bm;
    struct fabric_mad m;

    if (a->client < 0 || board_sim_unpack_mad(msg, &bm)) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "agent of %s: %s MAD dropped",
                fabric_node_name(s->f, (size_t)a->node),
                a->client < 0 ? "unexpected" : "malformed");
        return;
    }
    memset(&m, 0, sizeof(m));
    memcpy(m.mad, bm.mad, sizeof(m.mad));
    m.slid = bm.slid;
    m.dlid = bm.dlid;
    m.sqp = bm.sqp;
    m.dqp = bm.dqp;
    m.len = bm.len;
    fabric_client_send(s->f, (unsigned)a->client, &m);
}

/*
 * Messages queued for an agent (its socket full) beyond which an SMP request
 * for its switch is dropped rather than queued: the management port's VL15
 * buffer is full.  With the socket's own room and the agent's receive queue
 * (BOARD_SIM_SMP_DEPTH) this bounds how many SMPs of a flood an SM's SMP
 * waits behind; without it the queue (SIM_TX_QUEUE_MAX) held a whole flood.
 */
#define BOARD_SERVER_SMP_BACKLOG 64

/* Whether a MAD is an SMP request (for which the fabric keeps a receive record). */
static bool board_server_is_smp_request(const uint8_t *mad)
{
    return (mad[1] == 0x01 || mad[1] == 0x81) && !(mad[3] & 0x80);
}

/* Send agent a's queued MADs while its socket takes them; false on a broken socket. */
static bool board_server_flush(struct sim_agent *a)
{
    while (a->tx_count) {
        ssize_t n = send(a->fd, &a->txq[a->tx_head], sizeof(*a->txq), MSG_NOSIGNAL | MSG_DONTWAIT);

        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (n != (ssize_t)sizeof(*a->txq))
            return false;
        a->tx_head = (a->tx_head + 1) % a->tx_cap;
        a->tx_count--;
    }
    return true;
}

/* Queue a MAD message for agent a (its socket is full); false when the queue is at its limit. */
static bool board_server_queue(struct sim_agent *a, const struct board_sim_msg *msg)
{
    if (a->tx_count == a->tx_cap) {
        struct board_sim_msg *q;

        if (a->tx_cap >= SIM_TX_QUEUE_MAX)
            return false;
        q = pzf_ring_grow(a->txq, a->tx_head, a->tx_count, &a->tx_cap, sizeof(*q), 64);
        if (!q)
            return false;
        a->txq = q;
    }
    a->txq[(a->tx_head + a->tx_count++) % a->tx_cap] = *msg;
    return true;
}

/*
 * Send a message to agent a in order with what is queued for it (queued
 * while its socket is full; a full queue loses it, and the agent times the
 * request out).  Also a board_sim_serve_counters_many emitter.
 */
static void board_server_emit(void *arg, const struct board_sim_msg *msg)
{
    struct sim_agent *a = arg;

    if (a->tx_count == 0 &&
        send(a->fd, msg, sizeof(*msg), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(*msg))
        return;
    if (!board_server_queue(a, msg))
        a->tx_lost++;
}

void board_server_deliver(struct sim_server *s, size_t i, const struct fabric_mad *m)
{
    struct sim_agent *a = i < s->num_agents ? &s->agents[i] : NULL;
    struct board_sim_mad bm;
    struct board_sim_msg msg;
    struct board_mad_rx rx;
    unsigned long lost;

    if (!a || !a->used || a->node < 0)
        return;
    memset(&bm, 0, sizeof(bm));
    bm.slid = m->slid;
    bm.dlid = m->dlid;
    bm.sqp = m->sqp;
    bm.dqp = m->dqp;
    bm.status = m->status;
    bm.len = m->len && m->len <= sizeof(bm.mad) ? m->len : sizeof(bm.mad);
    memcpy(bm.mad, m->mad, sizeof(bm.mad));
    /* The ingress port the switch recorded: the MAD itself travels whole. */
    if (board_server_is_smp_request(m->mad) &&
        fabric_agent_mad_rx(s->f, (size_t)a->node, mad_tid(m->mad), &rx) == 0)
        bm.port = rx.port;
    if (board_server_is_smp_request(m->mad) && a->tx_count >= BOARD_SERVER_SMP_BACKLOG) {
        /* the agent's socket is full and a backlog waits: VL15 has no buffer for it */
        fabric_count_vl15_dropped(s->f, (size_t)a->node, bm.port);
        a->smp_dropped++;
        return;
    }
    board_sim_pack_mad(&msg, 0, &bm);
    lost = a->tx_lost;
    board_server_emit(a, &msg);
    if (a->tx_lost != lost)
        pzf_log(s->verbose, PZF_LOG_ERROR, "agent of %s: MAD lost (its queue is full)",
                fabric_node_name(s->f, (size_t)a->node));
}

/*
 * Serve one message (n bytes in buf) of agent connection i: 1 served, -1
 * the connection must close (it ended, or garbage came before ATTACH).  A
 * MAD goes into the fabric as the agent's client's.  A posted request (an LFT block
 * Set) gets no answer; a failure, which the agent ruled out before posting,
 * is logged.  No timer runs here: only the SMAs of nodes whose ports the
 * request changed are polled (fabric_settle), the rest waits for its deadline.
 */
static int board_server_serve_msg(struct sim_server *s, size_t i, const uint8_t *buf, ssize_t n)
{
    struct sim_agent *a = &s->agents[i];
    struct board_sim_msg m, resp;
    int err;

    if (n == 0)
        return -1;
    if (board_sim_msg_decode(buf, (size_t)n, &m)) {
        pzf_log(s->verbose, PZF_LOG_ERROR, "board socket: malformed message (%zd bytes)", n);
        memset(&m, 0, sizeof(m));
        m.op = BOARD_SIM_ATTACH;
        board_server_refuse(a, &m, EPROTO);
        return a->node >= 0 ? 1 : -1; /* before ATTACH, garbage ends the connection */
    }
    if (a->node < 0) {
        err = m.op == BOARD_SIM_ATTACH ? board_server_attach(s, a, &m) : EPROTO;
        if (err) {
            board_server_refuse(a, &m, err);
            return -1;
        }
    }
    if (m.op == BOARD_SIM_MAD) {
        board_server_mad_in(s, a, &m);
        return 1;
    }
    if (m.op == BOARD_SIM_COUNTERS_MANY) {
        /* Many answers for one request: in order behind what waits for the agent. */
        board_sim_serve_counters_many(fabric_node_board(s->f, (size_t)a->node), &m,
                                      board_server_emit, a);
        return 1;
    }
    if (m.op == BOARD_SIM_MAD_RX) {
        /* The fabric's knowledge, not the board's; it changes nothing: no tick. */
        board_server_mad_rx(s, a, &m, &resp);
        send(a->fd, &resp, sizeof(resp), MSG_NOSIGNAL | MSG_DONTWAIT);
        return 1;
    }
    board_sim_serve(fabric_node_board(s->f, (size_t)a->node), buf, (size_t)n, &resp);
    if (m.op == BOARD_SIM_ATTACH && !resp.status) /* port changes are pushed; MADs if asked */
        resp.c = htonl(BOARD_SIM_ATTACH_EVENTS | (a->client >= 0 ? BOARD_SIM_ATTACH_MADS : 0));
    if (a->events_lost && !board_server_send_event(a, BOARD_SIM_PORT_ALL))
        a->events_lost = false;
    if (!board_sim_reply_wanted(&resp)) {
        if (resp.status)
            pzf_log(s->verbose, PZF_LOG_ERROR, "agent of %s: posted op %u (block %u) failed: %s",
                    fabric_node_name(s->f, (size_t)a->node), m.op, m.a,
                    strerror(-(int32_t)ntohl((uint32_t)resp.status)));
        return 1;
    }
    send(a->fd, &resp, sizeof(resp), MSG_NOSIGNAL | MSG_DONTWAIT);
    fabric_settle(s->f); /* a port change may make SMAs talk */
    return 1;
}

/*
 * Read what agent connection i sent, up to SIM_RECV_BATCH messages in one
 * recvmmsg(), and serve each in order.  Returns how many were read (fewer
 * than SIM_RECV_BATCH: the socket is empty now), or -1 when the connection
 * must close.
 */
static int board_server_serve_batch(struct sim_server *s, size_t i)
{
    uint8_t bufs[SIM_RECV_BATCH][sizeof(struct board_sim_msg) + 1];
    struct mmsghdr msgs[SIM_RECV_BATCH];
    struct iovec iov[SIM_RECV_BATCH];
    int got;

    for (unsigned k = 0; k < SIM_RECV_BATCH; k++) {
        iov[k] = (struct iovec){.iov_base = bufs[k], .iov_len = sizeof(bufs[k])};
        msgs[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[k], .msg_iovlen = 1}};
    }
    got = recvmmsg(s->agents[i].fd, msgs, SIM_RECV_BATCH, MSG_DONTWAIT, NULL);
    if (got < 0)
        return errno == EAGAIN || errno == EINTR ? 0 : -1;
    if (got == 0)
        return -1;
    for (int k = 0; k < got; k++)
        if (board_server_serve_msg(s, i, bufs[k], (ssize_t)msgs[k].msg_len) < 0)
            return -1;
    return got;
}

void board_server_sync(struct sim_server *s, unsigned client)
{
    size_t where;
    unsigned port;

    if (!s->num_agents || fabric_client_where(s->f, client, &where, &port))
        return;
    for (size_t i = 0; i < s->num_agents; i++) {
        int rc;

        if (!s->agents[i].used || s->agents[i].node != (long)where)
            continue;
        /*
         * What was queued before client's MAD is bounded by the socket's
         * buffer (some 100 messages); the bound only stops an agent that
         * keeps writing from holding the fabric here.
         */
        for (unsigned k = 0;
             (rc = board_server_serve_batch(s, i)) == SIM_RECV_BATCH && k < BOARD_SERVER_SYNC_MAX;
             k += SIM_RECV_BATCH)
            ;
        if (rc < 0)
            sim_agent_close(s, i);
    }
}

void board_server_handle(struct sim_server *s, uint32_t tag, short revents)
{
    size_t i;

    if (tag == SIM_PFD_BOARD_LISTEN) {
        if (revents & POLLIN)
            board_server_accept(s);
        return;
    }
    i = tag & ~SIM_PFD_AGENT;
    if (i >= s->num_agents || !s->agents[i].used)
        return;
    if (((revents & (POLLERR | POLLHUP)) && !(revents & POLLIN)) ||
        ((revents & POLLOUT) && !board_server_flush(&s->agents[i]))) {
        sim_agent_close(s, i);
        return;
    }
    /* A burst at a time: posted requests come many per MAD round. */
    for (unsigned k = 0; k < SIM_READ_BURST; k += SIM_RECV_BATCH) {
        int rc = board_server_serve_batch(s, i);

        if (rc < 0)
            sim_agent_close(s, i);
        if (rc < SIM_RECV_BATCH)
            return; /* closed, or the socket is empty */
    }
}

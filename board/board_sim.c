/*
 * board_sim.c - the board/sim client: every board operation is one request
 * and one response on a SOCK_SEQPACKET socket to pzfabric, except the LFT
 * block Set, which is posted (see bs_lft_set).
 */
#define _GNU_SOURCE /* sendmmsg() */
#include "board_sim.h"

#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "board_sim_dgram.h"
#include "board_sim_mad.h"
#include "board_sim_proto.h"
#include "mad.h"

struct board_sim {
    struct board board;
    struct board_identity id;
    struct board_ops ops;
    int fd;
    uint32_t seq;
    uint32_t last_c; /* field c of the last answer (ATTACH: BOARD_SIM_ATTACH_EVENTS) */
    unsigned long errors;
    /*
     * Write-through copy of the LFT: only the agent writes a switch's LFT,
     * so a block read back for a Set's response need not cross the socket.
     */
    uint8_t *lft;       /* lft_cap entries */
    uint8_t *lft_valid; /* one flag per block */
    /*
     * Port statuses kept between the fabric's PORT_EVENTs (when its ATTACH
     * answer promised them; else st is NULL and every read asks).
     */
    struct board_port_status *st; /* [0..num_ports] */
    uint8_t *st_valid;            /* one flag per port */
    uint64_t status_gen;          /* moves at every PORT_EVENT and local status change */
    bool pump_due;                /* events may wait: take them before the next kept status */
    /*
     * Write-through copy of each port's configuration (PortInfo's enables,
     * MTU, VLs ...): only the agent writes a switch's port configuration
     * once it is attached, so a read need not cross the socket.
     */
    struct board_port_config *cfg; /* [0..num_ports] */
    uint8_t *cfg_valid;            /* one flag per port */
    /*
     * Each port's first P_Key block, read once and kept until the agent
     * writes it (only the agent writes its switch's P_Keys): the IP plane
     * looks at port 0's every 100 ms, which would be a round trip each.
     */
    uint16_t (*pkey0)[BOARD_PKEY_BLOCK]; /* [0..num_ports] */
    uint8_t *pkey0_valid;                /* one flag per port */
    /* Port-0 datagrams (board_sim_set_dgram), or NULL. */
    struct board_sim_dgram *dgram;
    /* Port-0 QPs (board_qp_*): the socket name and node they connect to, the connections. */
    struct board_sim_qps qps;
    /* The switch's MADs, when the connection carries them (board_sim_mad.h). */
    struct board_sim_madq madq;
    /*
     * Posted writes not sent yet (MADs on this connection only): they go
     * out in one sendmmsg() with the next message, in order before it.
     */
    struct board_sim_msg posted[BOARD_SIM_POSTED_MAX];
    unsigned nposted;
};

/*
 * Send the held posted writes followed by msg (NULL: none) in one
 * sendmmsg(); 0, or -1 when the fabric did not take them all.
 */
static int bs_send_with_posted(struct board_sim *bs, const struct board_sim_msg *msg)
{
    struct mmsghdr mm[BOARD_SIM_POSTED_MAX + 1];
    struct iovec iov[BOARD_SIM_POSTED_MAX + 1];
    unsigned n = 0, sent = 0;

    for (; n < bs->nposted; n++)
        iov[n] = (struct iovec){.iov_base = &bs->posted[n], .iov_len = sizeof(bs->posted[n])};
    if (msg)
        iov[n++] = (struct iovec){.iov_base = (void *)msg, .iov_len = sizeof(*msg)};
    bs->nposted = 0;
    if (n == 1)
        return send(bs->fd, iov[0].iov_base, iov[0].iov_len, MSG_NOSIGNAL) ==
                       (ssize_t)iov[0].iov_len
                   ? 0
                   : -1;
    for (unsigned k = 0; k < n; k++)
        mm[k] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[k], .msg_iovlen = 1}};
    while (sent < n) {
        int rc = sendmmsg(bs->fd, mm + sent, n - sent, MSG_NOSIGNAL);

        if (rc <= 0)
            return -1;
        sent += (unsigned)rc;
    }
    return 0;
}

/* Forget the kept status of port (BOARD_SIM_PORT_ALL: of every port). */
static void bs_port_changed(struct board_sim *bs, uint32_t port)
{
    if (!bs->st)
        return;
    bs->status_gen++;
    if (port == BOARD_SIM_PORT_ALL)
        memset(bs->st_valid, 0, (size_t)bs->id.num_ports + 1);
    else if (port <= bs->id.num_ports)
        bs->st_valid[port] = 0;
}

/*
 * Wait for the answers to the request just sent (seq bs->seq, op), each
 * given to answer(arg, m) until it says it was the last; port events and
 * MADs that come between are taken, older answers (after a timeout)
 * skipped.  0, or -1 (timeout, lost fabric, a malformed message).
 */
static int bs_collect(struct board_sim *bs, enum board_sim_op op, board_sim_answer_fn answer,
                      void *arg)
{
    uint8_t buf[sizeof(struct board_sim_msg) + 1];
    struct pollfd pfd = {.fd = bs->fd, .events = POLLIN};
    struct board_sim_msg m;
    bool done = false;
    ssize_t n;

    /* MADs come on this connection too: take them in batches while waiting. */
    if (bs->madq.ring)
        return board_sim_madq_await(bs, bs->seq, (uint16_t)op, BOARD_SIM_TIMEOUT_MS, answer, arg);
    while (!done) {
        if (poll(&pfd, 1, BOARD_SIM_TIMEOUT_MS) != 1)
            return -1;
        n = recv(bs->fd, buf, sizeof(buf), 0);
        if (n <= 0 || board_sim_msg_decode(buf, (size_t)n, &m))
            return -1;
        if (m.seq == bs->seq && m.op == op)
            done = answer(arg, &m);
        else
            board_sim_take_msg(bs, &m);
    }
    return 0;
}

/* board_sim_answer_fn of a single round trip: keep the answer in *arg (the only one). */
static bool bs_keep_answer(void *arg, const struct board_sim_msg *m)
{
    *(struct board_sim_msg *)arg = *m;
    return true;
}

/*
 * One round trip: send the request, wait for the response with the same
 * sequence number.  Returns the remote status (0 or negative errno), or a
 * local negative errno; out (BOARD_SIM_DATA bytes) receives the data.
 */
static int bs_rpc(struct board_sim *bs, enum board_sim_op op, uint32_t a, uint32_t b, uint32_t c,
                  const void *in, size_t in_len, void *out, size_t out_len)
{
    struct board_sim_msg req, resp;

    board_sim_msg_request(&req, ++bs->seq, op, a, b, c);
    if (in_len)
        memcpy(req.data, in, in_len < BOARD_SIM_DATA ? in_len : BOARD_SIM_DATA);
    if (bs_send_with_posted(bs, &req) || bs_collect(bs, op, bs_keep_answer, &resp))
        goto fail;
    if (out_len)
        memcpy(out, resp.data, out_len < BOARD_SIM_DATA ? out_len : BOARD_SIM_DATA);
    bs->last_c = resp.c;
    return resp.status;
fail:
    bs->errors++;
    return -EIO;
}

/* A port's status: the kept one if no event came since it was read, else from the fabric. */
static int bs_port_status(void *ctx, unsigned port, struct board_port_status *st)
{
    struct board_sim *bs = ctx;
    uint8_t d[BOARD_SIM_DATA];
    bool keep = bs->st && port <= bs->id.num_ports;
    int rc;

    /* Events that came with the MADs of this wake were taken with them. */
    if (keep && bs->pump_due && !(bs->madq.ring && bs->madq.drained)) {
        bs->pump_due = false;
        board_sim_pump(bs); /* a lost connection shows in the request below */
    }
    if (keep && bs->st_valid[port]) {
        *st = bs->st[port];
        return 0;
    }
    rc = bs_rpc(bs, BOARD_SIM_PORT_STATUS, port, 0, 0, NULL, 0, d, sizeof(d));
    if (rc == 0)
        board_sim_unpack_status(d, st);
    if (rc == 0 && keep) {
        bs->st[port] = *st;
        bs->st_valid[port] = 1;
    }
    return rc;
}

/* A port's configuration: the kept copy, else from the fabric (then kept). */
static int bs_port_config_get(void *ctx, unsigned port, struct board_port_config *cfg)
{
    struct board_sim *bs = ctx;
    uint8_t d[BOARD_SIM_DATA];
    bool keep = bs->cfg && port <= bs->id.num_ports;
    int rc;

    if (keep && bs->cfg_valid[port]) {
        *cfg = bs->cfg[port];
        return 0;
    }
    rc = bs_rpc(bs, BOARD_SIM_PORT_CONFIG_GET, port, 0, 0, NULL, 0, d, sizeof(d));
    if (rc == 0)
        board_sim_unpack_config(d, cfg);
    if (rc == 0 && keep) {
        bs->cfg[port] = *cfg;
        bs->cfg_valid[port] = 1;
    }
    return rc;
}

/* Write a port's configuration through to the fabric and keep it if it took. */
static int bs_port_config_set(void *ctx, unsigned port, const struct board_port_config *cfg)
{
    struct board_sim *bs = ctx;
    uint8_t d[BOARD_SIM_DATA] = {0};
    bool keep = bs->cfg && port <= bs->id.num_ports;
    int rc;

    board_sim_pack_config(d, cfg);
    bs_port_changed(bs, port);
    if (keep)
        bs->cfg_valid[port] = 0;
    rc = bs_rpc(bs, BOARD_SIM_PORT_CONFIG_SET, port, 0, 0, d, sizeof(d), NULL, 0);
    if (rc == 0 && keep) {
        board_sim_unpack_config(d, &bs->cfg[port]); /* as the fabric stored it */
        bs->cfg_valid[port] = 1;
    }
    return rc;
}

static int bs_port_state_set(void *ctx, unsigned port, enum board_port_state state)
{
    bs_port_changed(ctx, port); /* the fabric's event comes too; this costs nothing */
    return bs_rpc(ctx, BOARD_SIM_PORT_STATE_SET, port, state, 0, NULL, 0, NULL, 0);
}

static int bs_phys_state_set(void *ctx, unsigned port, enum board_phys_state state)
{
    bs_port_changed(ctx, port);
    return bs_rpc(ctx, BOARD_SIM_PHYS_STATE_SET, port, state, 0, NULL, 0, NULL, 0);
}

/*
 * The port status generation (board.h): with the fabric's port events it
 * moves exactly when a status may have changed; without them every call
 * moves it (every read asks the fabric anyway).
 */
static uint64_t bs_port_status_gen(void *ctx)
{
    struct board_sim *bs = ctx;

    return bs->st ? bs->status_gen : ++bs->status_gen;
}

bool board_sim_port_events(const struct board_sim *bs)
{
    return bs->st != NULL;
}

/* Whether block is cached (and within LinearFDBCap). */
static bool bs_lft_cached(const struct board_sim *bs, unsigned block)
{
    return bs->lft && (uint64_t)(block + 1) * BOARD_LFT_BLOCK <= bs->id.lft_cap &&
           bs->lft_valid[block];
}

/* Remember block's entries after the switch accepted them. */
static void bs_lft_store(struct board_sim *bs, unsigned block, const uint8_t *e)
{
    if (!bs->lft || (uint64_t)(block + 1) * BOARD_LFT_BLOCK > bs->id.lft_cap)
        return;
    memcpy(bs->lft + (size_t)block * BOARD_LFT_BLOCK, e, BOARD_LFT_BLOCK);
    bs->lft_valid[block] = 1;
}

static int bs_lft_get(void *ctx, unsigned block, uint8_t *e)
{
    struct board_sim *bs = ctx;
    int rc;

    if (bs_lft_cached(bs, block)) {
        memcpy(e, bs->lft + (size_t)block * BOARD_LFT_BLOCK, BOARD_LFT_BLOCK);
        return 0;
    }
    rc = bs_rpc(bs, BOARD_SIM_LFT_GET, block, 0, 0, NULL, 0, e, BOARD_LFT_BLOCK);
    if (rc == 0)
        bs_lft_store(bs, block, e);
    return rc;
}

/*
 * LFT block Set, posted: sent without waiting for an answer (OpenSM programs
 * LFTs in thousands of blocks, and a round trip per block halves the rate).
 * The semantics stay those of a synchronous Set: everything the switch
 * could refuse (a block beyond LinearFDBCap, EINVAL as board_mem answers) is
 * refused here first; the fabric executes a connection's requests in order,
 * so a later Get (or any request) sees the write; and it executes every
 * posted request of an agent before routing a MAD that agent sent, so the
 * switch forwards by the new block before the SetResp reaches the SM.  A
 * failed send (the fabric is gone) is an error at once.
 */
static int bs_lft_set(void *ctx, unsigned block, const uint8_t *e)
{
    struct board_sim *bs = ctx;
    struct board_sim_msg req;

    if (((uint64_t)block + 1) * BOARD_LFT_BLOCK > bs->id.lft_cap)
        return -EINVAL;
    board_sim_msg_request(&req, ++bs->seq, BOARD_SIM_LFT_SET_POSTED, block, 0, 0);
    memcpy(req.data, e, BOARD_LFT_BLOCK);
    /*
     * With the MADs on this connection, held for the SetResp that follows
     * (one system call for both; the fabric reads the write first).
     */
    if (bs->madq.ring && bs->nposted < BOARD_SIM_POSTED_MAX) {
        bs->posted[bs->nposted++] = req;
        bs_lft_store(bs, block, e);
        return 0;
    }
    if (bs_send_with_posted(bs, &req)) {
        bs->errors++;
        return -EIO;
    }
    bs_lft_store(bs, block, e);
    return 0;
}

/* Get n 16-bit words (MFT masks, P_Keys; big-endian on the wire) with request op; 0 or -errno. */
static int bs_get16(void *ctx, enum board_sim_op op, unsigned a, unsigned b, uint16_t *v,
                    unsigned n)
{
    uint8_t d[BOARD_SIM_DATA];
    int rc = bs_rpc(ctx, op, a, b, 0, NULL, 0, d, sizeof(d));

    for (unsigned i = 0; rc == 0 && i < n; i++)
        v[i] = be16_get(d + 2 * i);
    return rc;
}

/* Set n (at most BOARD_SIM_DATA / 2) 16-bit words with request op; 0 or -errno. */
static int bs_set16(void *ctx, enum board_sim_op op, unsigned a, unsigned b, const uint16_t *v,
                    unsigned n)
{
    uint8_t d[BOARD_SIM_DATA];

    for (unsigned i = 0; i < n; i++)
        be16_put(d + 2 * i, v[i]);
    return bs_rpc(ctx, op, a, b, 0, d, 2 * (size_t)n, NULL, 0);
}

static int bs_mft_get(void *ctx, unsigned block, unsigned pos, uint16_t *m)
{
    return bs_get16(ctx, BOARD_SIM_MFT_GET, block, pos, m, BOARD_MFT_BLOCK);
}

static int bs_mft_set(void *ctx, unsigned block, unsigned pos, const uint16_t *m)
{
    return bs_set16(ctx, BOARD_SIM_MFT_SET, block, pos, m, BOARD_MFT_BLOCK);
}

/* Whether P_Key block of port is one the connection keeps (the first of each port). */
static bool bs_pkey_kept(const struct board_sim *bs, unsigned port, unsigned block)
{
    return bs->pkey0 && block == 0 && port <= bs->id.num_ports;
}

/* A P_Key block: the kept copy of a port's first, else from the fabric (the first then kept). */
static int bs_pkey_get(void *ctx, unsigned port, unsigned block, uint16_t *k)
{
    struct board_sim *bs = ctx;
    int rc;

    if (bs_pkey_kept(bs, port, block) && bs->pkey0_valid[port]) {
        memcpy(k, bs->pkey0[port], sizeof(bs->pkey0[port]));
        return 0;
    }
    rc = bs_get16(ctx, BOARD_SIM_PKEY_GET, port, block, k, BOARD_PKEY_BLOCK);
    if (rc == 0 && bs_pkey_kept(bs, port, block)) {
        memcpy(bs->pkey0[port], k, sizeof(bs->pkey0[port]));
        bs->pkey0_valid[port] = 1;
    }
    return rc;
}

/* Write a P_Key block through to the fabric; a kept copy is read again next time. */
static int bs_pkey_set(void *ctx, unsigned port, unsigned block, const uint16_t *k)
{
    struct board_sim *bs = ctx;

    if (bs_pkey_kept(bs, port, block))
        bs->pkey0_valid[port] = 0;
    return bs_set16(ctx, BOARD_SIM_PKEY_SET, port, block, k, BOARD_PKEY_BLOCK);
}

static int bs_sl2vl_get(void *ctx, unsigned in, unsigned out, uint8_t *vl)
{
    return bs_rpc(ctx, BOARD_SIM_SL2VL_GET, in, out, 0, NULL, 0, vl, 16);
}

static int bs_sl2vl_set(void *ctx, unsigned in, unsigned out, const uint8_t *vl)
{
    return bs_rpc(ctx, BOARD_SIM_SL2VL_SET, in, out, 0, vl, 16, NULL, 0);
}

static int bs_vlarb_get(void *ctx, unsigned port, unsigned block, uint8_t *e)
{
    return bs_rpc(ctx, BOARD_SIM_VLARB_GET, port, block, 0, NULL, 0, e, 2 * BOARD_VLARB_BLOCK);
}

static int bs_vlarb_set(void *ctx, unsigned port, unsigned block, const uint8_t *e)
{
    return bs_rpc(ctx, BOARD_SIM_VLARB_SET, port, block, 0, e, 2 * BOARD_VLARB_BLOCK, NULL, 0);
}

static int bs_set_lid(void *ctx, unsigned port, uint16_t lid, uint8_t lmc)
{
    return bs_rpc(ctx, BOARD_SIM_SET_LID, port, lid, lmc, NULL, 0, NULL, 0);
}

static int bs_set_lft_top(void *ctx, uint16_t top)
{
    return bs_rpc(ctx, BOARD_SIM_SET_LFT_TOP, top, 0, 0, NULL, 0, NULL, 0);
}

/*
 * Add to a port's VL15Dropped the SMPs that entered by it and were dropped
 * on this side of the fabric (the management port's receive queue was
 * full: board_sim_mad.h), wrapping at the counters' width as the fabric's
 * own do.
 */
static void bs_add_local_drops(const struct board_sim *bs, unsigned port,
                               struct board_port_counters *c)
{
    unsigned bits = bs->id.counter_bits;
    uint64_t mask = bits == 0 || bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;

    if (port < 256)
        c->vl15_dropped =
            (c->vl15_dropped + bs->madq.smp_dropped_on[port] + bs->madq.vl15_noted[port]) & mask;
}

static int bs_port_counters(void *ctx, unsigned port, struct board_port_counters *c)
{
    uint8_t d[BOARD_SIM_DATA];
    int rc = bs_rpc(ctx, BOARD_SIM_PORT_COUNTERS, port, 0, 0, NULL, 0, d, sizeof(*c));

    if (rc == 0) {
        board_sim_unpack_counters(d, c);
        bs_add_local_drops(ctx, port, c);
    }
    return rc;
}

/* What bs_port_counters_many collects: the ports' counters and the first error. */
struct bs_counters_run {
    const struct board_sim *bs;
    unsigned first; /* the port of c[0] */
    struct board_port_counters *c;
    unsigned count;
    unsigned got;  /* answers so far */
    int first_err; /* status of the first failed port (0: none) */
    unsigned first_err_at;
    bool unsupported; /* the server answered -EOPNOTSUPP: one answer only */
};

/* board_sim_answer_fn of COUNTERS_MANY: one port's counters (c = its index); last at count. */
static bool bs_counters_answer(void *arg, const struct board_sim_msg *m)
{
    struct bs_counters_run *r = arg;

    if (m->c == 0 && m->status == -EOPNOTSUPP) {
        r->unsupported = true;
        return true;
    }
    if (m->c < r->count && m->status == 0) {
        board_sim_unpack_counters(m->data, &r->c[m->c]);
        bs_add_local_drops(r->bs, r->first + m->c, &r->c[m->c]);
    } else if (!r->first_err || m->c < r->first_err_at) {
        r->first_err = m->status ? m->status : -EPROTO;
        r->first_err_at = m->c;
    }
    return ++r->got >= r->count; /* the count is 1 .. BOARD_SIM_COUNTERS_MAX: one each */
}

/*
 * The counters of count ports from first: one COUNTERS_MANY request (per
 * BOARD_SIM_COUNTERS_MAX ports) and its answers instead of a round trip per
 * port.  A fabric that does not take it (-EOPNOTSUPP) is asked port by port.
 */
static int bs_port_counters_many(void *ctx, unsigned first, unsigned count,
                                 struct board_port_counters *c)
{
    struct board_sim *bs = ctx;
    struct board_sim_msg req;

    while (count) {
        unsigned n = count < BOARD_SIM_COUNTERS_MAX ? count : BOARD_SIM_COUNTERS_MAX;
        struct bs_counters_run r = {.bs = bs, .first = first, .c = c, .count = n};

        board_sim_msg_request(&req, ++bs->seq, BOARD_SIM_COUNTERS_MANY, first, n, 0);
        if (bs_send_with_posted(bs, &req) ||
            bs_collect(bs, BOARD_SIM_COUNTERS_MANY, bs_counters_answer, &r)) {
            bs->errors++;
            return -EIO;
        }
        if (r.unsupported) {
            for (unsigned i = 0; i < count; i++) {
                int rc = bs_port_counters(ctx, first + i, &c[i]);

                if (rc)
                    return rc;
            }
            return 0;
        }
        if (r.first_err)
            return r.first_err;
        first += n;
        count -= n;
        c += n;
    }
    return 0;
}

static int bs_mad_rx(void *ctx, uint64_t tid, struct board_mad_rx *rx)
{
    struct board_sim *bs = ctx;
    uint8_t d[BOARD_SIM_DATA];
    int rc;

    /* MADs over this connection came whole, with their ingress port: no round trip. */
    if (bs->madq.ring)
        return board_sim_madq_rx(&bs->madq, tid, rx);
    rc = bs_rpc(ctx, BOARD_SIM_MAD_RX, (uint32_t)(tid >> 32), (uint32_t)tid, 0, NULL, 0, d,
                2 + BOARD_MAD_TAIL);

    if (rc == 0)
        board_sim_unpack_mad_rx(d, rx);
    return rc;
}

/* The management CPU's own clock. */
static uint64_t bs_now_ns(void *ctx)
{
    struct timespec ts;

    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const struct board_ops bs_ops = {
    .port_status = bs_port_status,
    .port_config_get = bs_port_config_get,
    .port_config_set = bs_port_config_set,
    .port_state_set = bs_port_state_set,
    .phys_state_set = bs_phys_state_set,
    .lft_get = bs_lft_get,
    .lft_set = bs_lft_set,
    .mft_get = bs_mft_get,
    .mft_set = bs_mft_set,
    .port_status_gen = bs_port_status_gen,
    .pkey_get = bs_pkey_get,
    .pkey_set = bs_pkey_set,
    .sl2vl_get = bs_sl2vl_get,
    .sl2vl_set = bs_sl2vl_set,
    .vlarb_get = bs_vlarb_get,
    .vlarb_set = bs_vlarb_set,
    .set_lid = bs_set_lid,
    .set_lft_top = bs_set_lft_top,
    .now_ns = bs_now_ns,
    .port_counters = bs_port_counters,
    .mad_rx = bs_mad_rx,
    .port_counters_many = bs_port_counters_many,
};

struct board_sim *board_sim_attach_fd(int fd, const char *node, char *err, size_t errlen)
{
    return board_sim_attach_fd_flags(fd, node, 0, err, errlen);
}

struct board_sim *board_sim_attach_fd_flags(int fd, const char *node, unsigned flags, char *err,
                                            size_t errlen)
{
    struct board_sim *bs = calloc(1, sizeof(*bs));
    uint8_t name[BOARD_SIM_DATA] = {0}, d[BOARD_SIM_DATA];
    int rc;

    if (!bs) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    bs->fd = fd;
    bs->ops = bs_ops;
    board_sim_qps_fill_ops(&bs->ops);
    bs->board.id = &bs->id;
    bs->board.ops = &bs->ops;
    bs->board.ctx = bs;
    if (!node || strlen(node) >= 64) {
        snprintf(err, errlen, "bad node name");
        goto fail;
    }
    memcpy(name, node, strlen(node));
    memcpy(bs->qps.node, node, strlen(node));
    /*
     * The pid lets the fabric find this process's umad client on that switch
     * (unless the MADs come over this connection).  The queue exists before
     * the answer: the fabric may send MADs right after it.
     */
    if ((flags & BOARD_SIM_ATTACH_MADS) && board_sim_madq_init(&bs->madq)) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    rc = bs_rpc(bs, BOARD_SIM_ATTACH, BOARD_SIM_VERSION, (uint32_t)getpid(), flags, name,
                sizeof(name), d, sizeof(d));
    if (rc) {
        snprintf(err, errlen, "attach to switch '%s' refused: %s", node, strerror(-rc));
        goto fail;
    }
    if ((bs->last_c & flags) != flags) {
        snprintf(err, errlen, "switch '%s': the fabric does not carry MADs on the board connection",
                 node);
        goto fail;
    }
    if (board_sim_unpack_identity(d, &bs->id)) {
        snprintf(err, errlen, "switch '%s': bad identity from the fabric", node);
        goto fail;
    }
    bs->cfg = calloc((size_t)bs->id.num_ports + 1, sizeof(*bs->cfg));
    bs->cfg_valid = calloc((size_t)bs->id.num_ports + 1, 1);
    bs->pkey0 = calloc((size_t)bs->id.num_ports + 1, sizeof(*bs->pkey0));
    bs->pkey0_valid = calloc((size_t)bs->id.num_ports + 1, 1);
    if (!bs->cfg || !bs->cfg_valid || !bs->pkey0 || !bs->pkey0_valid) {
        snprintf(err, errlen, "out of memory");
        goto fail;
    }
    if (bs->last_c & BOARD_SIM_ATTACH_EVENTS) {
        bs->st = calloc((size_t)bs->id.num_ports + 1, sizeof(*bs->st));
        bs->st_valid = calloc((size_t)bs->id.num_ports + 1, 1);
        if (!bs->st || !bs->st_valid) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    if (bs->id.lft_cap) {
        bs->lft = malloc(bs->id.lft_cap);
        bs->lft_valid = calloc(bs->id.lft_cap / BOARD_LFT_BLOCK + 1, 1);
        if (!bs->lft || !bs->lft_valid) {
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
    }
    return bs;
fail:
    board_sim_close(bs);
    return NULL;
}

int board_sim_socket_connect(const char *sockname, const char *suffix, const char *what, char *err,
                             size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int len = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "%s:%s", sockname, suffix);
    int fd;

    if (len < 0 || (size_t)len >= sizeof(sa.sun_path) - 1) {
        snprintf(err, errlen, "socket name too long");
        return -1;
    }
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len))) {
        snprintf(err, errlen, "cannot connect to pzfabric %s socket '%s:%s': %s", what, sockname,
                 suffix, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

struct board_sim *board_sim_connect(const char *sockname, const char *node, char *err,
                                    size_t errlen)
{
    return board_sim_connect_flags(sockname, node, 0, err, errlen);
}

struct board_sim *board_sim_connect_flags(const char *sockname, const char *node, unsigned flags,
                                          char *err, size_t errlen)
{
    int fd = board_sim_socket_connect(sockname, "board", "board", err, errlen);
    struct board_sim *bs = fd < 0 ? NULL : board_sim_attach_fd_flags(fd, node, flags, err, errlen);

    if (bs && strlen(sockname) <= BOARD_SIM_SOCKNAME_MAX)
        strcpy(bs->qps.sockname, sockname); /* board_qp_open connects its QPs there */
    return bs;
}

struct board *board_sim_board(struct board_sim *bs)
{
    return &bs->board;
}

int board_sim_fd(const struct board_sim *bs)
{
    return bs->fd;
}

unsigned long board_sim_errors(const struct board_sim *bs)
{
    return bs->errors;
}

void board_sim_close(struct board_sim *bs)
{
    if (!bs)
        return;
    board_sim_flush(bs);
    board_sim_qps_close(&bs->qps);
    close(bs->fd);
    free(bs->st);
    free(bs->st_valid);
    free(bs->cfg);
    free(bs->cfg_valid);
    free(bs->pkey0);
    free(bs->pkey0_valid);
    free(bs->lft);
    free(bs->lft_valid);
    board_sim_madq_free(&bs->madq);
    free(bs);
}

void board_sim_wake(struct board_sim *bs)
{
    bs->pump_due = true;
    bs->madq.drained = false; /* MADs may have come since the last receive */
}

struct board_sim_madq *board_sim_madq_of(struct board_sim *bs)
{
    return &bs->madq;
}

void board_sim_take_msg(struct board_sim *bs, const struct board_sim_msg *m)
{
    if (m->op == BOARD_SIM_PORT_EVENT)
        bs_port_changed(bs, m->a);
    else if (m->op == BOARD_SIM_MAD)
        board_sim_madq_push(&bs->madq, m);
    /* anything else is an answer to a request that timed out: skipped */
}

bool board_sim_carries_mads(const struct board_sim *bs)
{
    return bs->madq.ring != NULL;
}

int board_sim_mad_send(struct board_sim *bs, const struct board_sim_mad *m)
{
    struct board_sim_msg msg;

    board_sim_pack_mad(&msg, ++bs->seq, m);
    if (bs_send_with_posted(bs, &msg)) {
        bs->errors++;
        return -EIO;
    }
    return 0;
}

int board_sim_flush(struct board_sim *bs)
{
    if (!bs->nposted)
        return 0;
    if (bs_send_with_posted(bs, NULL)) {
        bs->errors++;
        return -EIO;
    }
    return 0;
}

int board_sim_pump(struct board_sim *bs)
{
    uint8_t buf[sizeof(struct board_sim_msg) + 1];
    struct board_sim_msg m;

    for (;;) {
        ssize_t n = recv(bs->fd, buf, sizeof(buf), MSG_DONTWAIT);

        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -ENOTCONN;
        if (n == 0)
            return -ENOTCONN;
        if (board_sim_msg_decode(buf, (size_t)n, &m) == 0)
            board_sim_take_msg(bs, &m);
    }
}

void board_sim_set_dgram(struct board_sim *bs, struct board_sim_dgram *d)
{
    bs->dgram = d;
    board_sim_dgram_fill_ops(&bs->ops, d != NULL);
    if (!bs->qps.owned[0])
        bs->qps.qp[0] = d; /* handle 0 of board_qp_* too */
}

struct board_sim_dgram *board_sim_dgram_of(void *ctx)
{
    return ((struct board_sim *)ctx)->dgram;
}

void board_sim_set_port0_client_rereg(struct board_sim *bs, bool on)
{
    bs->id.port0_client_rereg = on;
}

struct board_sim_qps *board_sim_qps_of(void *ctx)
{
    return &((struct board_sim *)ctx)->qps;
}

/*
 * board_sim_dgram.c - the "<sockname>:dgram" wire format (encode, decode)
 * and its client: a node's port-0 stack in another process.  See
 * board_sim_dgram.h for the format.
 */
#include "board_sim_dgram.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board_sim.h"
#include "mad.h"

#define DGRAM_TIMEOUT_MS 2000
#define DGRAM_QP_MAX 0xFFFFFFu

/* The client's state. */
struct board_sim_dgram {
    int fd;
    uint32_t qpn;
    uint16_t lid;
    unsigned long errors;
    uint8_t buf[BOARD_SIM_DGRAM_MAX + 1]; /* one received message (+1: detect oversize) */
};

size_t board_sim_dgram_encode(uint8_t *buf, size_t cap, enum board_sim_dgram_op op, int32_t status,
                              const struct board_dgram_addr *a, const void *payload, size_t len)
{
    static const struct board_dgram_addr none;

    if (!a)
        a = &none;
    if (!buf || len > BOARD_DGRAM_MAX_PAYLOAD || cap < BOARD_SIM_DGRAM_HDR + len || a->sl > 15 ||
        a->src_qp > DGRAM_QP_MAX || a->dst_qp > DGRAM_QP_MAX || (len && !payload))
        return 0;
    memset(buf, 0, BOARD_SIM_DGRAM_HDR);
    be_put(buf, BOARD_SIM_DGRAM_MAGIC, 4);
    buf[4] = BOARD_SIM_DGRAM_VERSION;
    buf[5] = (uint8_t)op;
    buf[6] = a->has_grh ? BOARD_SIM_DGRAM_FLAG_GRH : 0;
    buf[7] = a->sl;
    be_put(buf + 8, (uint32_t)status, 4);
    be_put(buf + 12, a->dlid, 2);
    be_put(buf + 14, a->slid, 2);
    be_put(buf + 16, a->pkey, 2);
    be_put(buf + 18, (uint32_t)len, 2);
    be_put(buf + 20, a->src_qp, 4);
    be_put(buf + 24, a->dst_qp, 4);
    be_put(buf + 28, a->qkey, 4);
    if (a->has_grh)
        memcpy(buf + 32, a->grh, BOARD_DGRAM_GRH_LEN);
    if (len)
        memcpy(buf + BOARD_SIM_DGRAM_HDR, payload, len);
    return BOARD_SIM_DGRAM_HDR + len;
}

int board_sim_dgram_decode(const uint8_t *buf, size_t n, struct board_sim_dgram_msg *m)
{
    size_t len;

    if (!buf || !m || n < BOARD_SIM_DGRAM_HDR || be_get(buf, 4) != BOARD_SIM_DGRAM_MAGIC ||
        buf[4] != BOARD_SIM_DGRAM_VERSION || buf[5] < BOARD_SIM_DGRAM_ATTACH ||
        buf[5] > BOARD_SIM_DGRAM_QKEY || (buf[6] & ~BOARD_SIM_DGRAM_FLAG_GRH) || buf[7] > 15)
        return -EPROTO;
    len = be_get(buf + 18, 2);
    if (len > BOARD_DGRAM_MAX_PAYLOAD || n != BOARD_SIM_DGRAM_HDR + len ||
        be_get(buf + 20, 4) > DGRAM_QP_MAX || be_get(buf + 24, 4) > DGRAM_QP_MAX)
        return -EPROTO;
    if (buf[5] == BOARD_SIM_DGRAM_ATTACH && (len == 0 || len > BOARD_SIM_DGRAM_NAME_MAX))
        return -EPROTO;
    memset(m, 0, sizeof(*m));
    m->op = buf[5];
    m->status = (int32_t)(uint32_t)be_get(buf + 8, 4);
    m->a.has_grh = buf[6] & BOARD_SIM_DGRAM_FLAG_GRH;
    m->a.sl = buf[7];
    m->a.dlid = (uint16_t)be_get(buf + 12, 2);
    m->a.slid = (uint16_t)be_get(buf + 14, 2);
    m->a.pkey = (uint16_t)be_get(buf + 16, 2);
    m->a.src_qp = be_get(buf + 20, 4);
    m->a.dst_qp = be_get(buf + 24, 4);
    m->a.qkey = be_get(buf + 28, 4);
    if (m->a.has_grh)
        memcpy(m->a.grh, buf + 32, BOARD_DGRAM_GRH_LEN);
    m->payload = buf + BOARD_SIM_DGRAM_HDR;
    m->len = len;
    return 0;
}

/* Send one message, waiting up to DGRAM_TIMEOUT_MS for room; returns 0 or -EIO. */
static int dgram_send_msg(struct board_sim_dgram *d, const uint8_t *msg, size_t n)
{
    struct pollfd pfd = {.fd = d->fd, .events = POLLOUT};

    for (int tries = 0; tries < 2; tries++) {
        if (send(d->fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)n)
            return 0;
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
            break;
        if (poll(&pfd, 1, DGRAM_TIMEOUT_MS) != 1)
            break;
    }
    d->errors++;
    return -EIO;
}

/* Wait for the ATTACHED answer; returns its status, or -EIO. */
static int dgram_wait_attached(struct board_sim_dgram *d)
{
    struct pollfd pfd = {.fd = d->fd, .events = POLLIN};
    struct board_sim_dgram_msg m;
    ssize_t n;

    if (poll(&pfd, 1, DGRAM_TIMEOUT_MS) != 1)
        return -EIO;
    n = recv(d->fd, d->buf, sizeof(d->buf), MSG_DONTWAIT);
    if (n <= 0 || board_sim_dgram_decode(d->buf, (size_t)n, &m) || m.op != BOARD_SIM_DGRAM_ATTACHED)
        return -EIO;
    if (m.status == 0) {
        d->qpn = m.a.src_qp;
        d->lid = m.a.slid;
    }
    return m.status;
}

struct board_sim_dgram *board_sim_dgram_attach_fd(int fd, const char *node, uint32_t qkey,
                                                  char *err, size_t errlen)
{
    struct board_sim_dgram *d = calloc(1, sizeof(*d));
    struct board_dgram_addr a = {.qkey = qkey};
    uint8_t msg[BOARD_SIM_DGRAM_HDR + BOARD_SIM_DGRAM_NAME_MAX];
    size_t n;
    int rc;

    if (!d) {
        close(fd);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    d->fd = fd;
    if (!node || !*node || strlen(node) > BOARD_SIM_DGRAM_NAME_MAX) {
        snprintf(err, errlen, "bad node name");
        goto fail;
    }
    n = board_sim_dgram_encode(msg, sizeof(msg), BOARD_SIM_DGRAM_ATTACH, 0, &a, node, strlen(node));
    if (!n || dgram_send_msg(d, msg, n)) {
        snprintf(err, errlen, "cannot send the attach request");
        goto fail;
    }
    rc = dgram_wait_attached(d);
    if (rc) {
        snprintf(err, errlen, "attach to '%s' refused: %s", node,
                 rc == -EIO ? "no answer" : strerror(-rc));
        goto fail;
    }
    return d;
fail:
    board_sim_dgram_close(d);
    return NULL;
}

struct board_sim_dgram *board_sim_dgram_connect(const char *sockname, const char *node,
                                                uint32_t qkey, char *err, size_t errlen)
{
    int fd = board_sim_socket_connect(sockname, "dgram", "datagram", err, errlen);

    return fd < 0 ? NULL : board_sim_dgram_attach_fd(fd, node, qkey, err, errlen);
}

int board_sim_dgram_open(struct board_sim_dgram *d, uint32_t qkey, uint32_t *qpn)
{
    struct board_dgram_addr a = {.qkey = qkey};
    uint8_t msg[BOARD_SIM_DGRAM_HDR];
    size_t n = board_sim_dgram_encode(msg, sizeof(msg), BOARD_SIM_DGRAM_QKEY, 0, &a, NULL, 0);

    if (dgram_send_msg(d, msg, n))
        return -EIO;
    if (qpn)
        *qpn = d->qpn;
    return 0;
}

int board_sim_dgram_send(struct board_sim_dgram *d, const struct board_dgram_addr *a,
                         const void *payload, size_t len)
{
    uint8_t msg[BOARD_SIM_DGRAM_MAX];
    size_t n;

    if (!a || a->dst_qp <= 1 || a->dst_qp > DGRAM_QP_MAX)
        return -EINVAL;
    n = board_sim_dgram_encode(msg, sizeof(msg), BOARD_SIM_DGRAM_SEND, 0, a, payload, len);
    if (!n)
        return -EINVAL;
    return dgram_send_msg(d, msg, n);
}

int board_sim_dgram_recv(struct board_sim_dgram *d, struct board_dgram_addr *a, void *buf,
                         size_t cap)
{
    struct board_sim_dgram_msg m;

    for (;;) {
        ssize_t n = recv(d->fd, d->buf, sizeof(d->buf), MSG_DONTWAIT);

        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN : -EIO;
        if (n == 0) {
            d->errors++;
            return -ENOTCONN; /* the fabric went away */
        }
        if (board_sim_dgram_decode(d->buf, (size_t)n, &m) || m.op != BOARD_SIM_DGRAM_RECV)
            continue; /* not a datagram: skip it */
        if (m.len > cap)
            return -EMSGSIZE;
        *a = m.a;
        if (m.len)
            memcpy(buf, m.payload, m.len);
        return (int)m.len;
    }
}

int board_sim_dgram_fd(const struct board_sim_dgram *d)
{
    return d->fd;
}

uint32_t board_sim_dgram_qpn(const struct board_sim_dgram *d)
{
    return d->qpn;
}

uint16_t board_sim_dgram_lid(const struct board_sim_dgram *d)
{
    return d->lid;
}

unsigned long board_sim_dgram_errors(const struct board_sim_dgram *d)
{
    return d->errors;
}

void board_sim_dgram_close(struct board_sim_dgram *d)
{
    if (!d)
        return;
    close(d->fd);
    free(d);
}

/* The board ops of a board_sim with a datagram connection (ctx: the board_sim). */
static int bsd_open(void *ctx, uint32_t qkey, uint32_t *qpn)
{
    return board_sim_dgram_open(board_sim_dgram_of(ctx), qkey, qpn);
}

static int bsd_send(void *ctx, const struct board_dgram_addr *a, const void *payload, size_t len)
{
    return board_sim_dgram_send(board_sim_dgram_of(ctx), a, payload, len);
}

static int bsd_recv(void *ctx, struct board_dgram_addr *a, void *buf, size_t cap)
{
    return board_sim_dgram_recv(board_sim_dgram_of(ctx), a, buf, cap);
}

static int bsd_fd(void *ctx)
{
    return board_sim_dgram_fd(board_sim_dgram_of(ctx));
}

/* The connection of QP handle qp of a board_sim (ctx), or NULL. */
static struct board_sim_dgram *bsq_get(void *ctx, int qp)
{
    struct board_sim_qps *q = board_sim_qps_of(ctx);

    return qp < 0 || qp >= BOARD_QP_MAX ? NULL : q->qp[qp];
}

/* Open a QP: a new "<sockname>:dgram" connection in the lowest free handle. */
static int bsq_open(void *ctx, uint32_t qkey, uint32_t *qpn)
{
    struct board_sim_qps *q = board_sim_qps_of(ctx);
    char err[256];
    int qp;

    for (qp = 0; qp < BOARD_QP_MAX && q->qp[qp]; qp++)
        ;
    if (qp == BOARD_QP_MAX)
        return -ENOSPC;
    if (!q->sockname[0])
        return -ENOTCONN; /* attached over a descriptor: no socket name to connect to */
    q->qp[qp] = board_sim_dgram_connect(q->sockname, q->node, qkey, err, sizeof(err));
    if (!q->qp[qp])
        return strstr(err, strerror(EBUSY)) ? -ENOSPC : -EIO;
    q->owned[qp] = true;
    if (qpn)
        *qpn = q->qp[qp]->qpn;
    return qp;
}

static int bsq_set_qkey(void *ctx, int qp, uint32_t qkey)
{
    struct board_sim_dgram *d = bsq_get(ctx, qp);

    return d ? board_sim_dgram_open(d, qkey, NULL) : -EBADF;
}

static int bsq_send(void *ctx, int qp, const struct board_dgram_addr *a, const void *payload,
                    size_t len)
{
    struct board_sim_dgram *d = bsq_get(ctx, qp);

    return d ? board_sim_dgram_send(d, a, payload, len) : -EBADF;
}

static int bsq_recv(void *ctx, int qp, struct board_dgram_addr *a, void *buf, size_t cap)
{
    struct board_sim_dgram *d = bsq_get(ctx, qp);

    return d ? board_sim_dgram_recv(d, a, buf, cap) : -EBADF;
}

static int bsq_fd(void *ctx, int qp)
{
    struct board_sim_dgram *d = bsq_get(ctx, qp);

    return d ? board_sim_dgram_fd(d) : -1;
}

/* Close a QP the board opened (a given connection is only forgotten). */
static void bsq_close(void *ctx, int qp)
{
    struct board_sim_qps *q = board_sim_qps_of(ctx);

    if (qp < 0 || qp >= BOARD_QP_MAX)
        return;
    if (q->owned[qp])
        board_sim_dgram_close(q->qp[qp]);
    q->qp[qp] = NULL;
    q->owned[qp] = false;
}

void board_sim_qps_fill_ops(struct board_ops *ops)
{
    ops->qp_open = bsq_open;
    ops->qp_set_qkey = bsq_set_qkey;
    ops->qp_send = bsq_send;
    ops->qp_recv = bsq_recv;
    ops->qp_fd = bsq_fd;
    ops->qp_close = bsq_close;
}

void board_sim_qps_close(struct board_sim_qps *q)
{
    for (int qp = 0; qp < BOARD_QP_MAX; qp++) {
        if (q->owned[qp])
            board_sim_dgram_close(q->qp[qp]);
        q->qp[qp] = NULL;
        q->owned[qp] = false;
    }
}

void board_sim_dgram_fill_ops(struct board_ops *ops, int on)
{
    ops->dgram_open = on ? bsd_open : NULL;
    ops->dgram_send = on ? bsd_send : NULL;
    ops->dgram_recv = on ? bsd_recv : NULL;
    ops->dgram_fd = on ? bsd_fd : NULL;
}

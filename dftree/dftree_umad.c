/*
 * dftree_umad.c - pz-dftree's MAD port (dftree_umad.h): agents, requests
 * waiting for their answers, the SA's Reports answered and queued.
 */
#include "dftree_umad.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "dftree_notice.h"

#define DT_QP1_QKEY 0x80010000u
#define DT_BUF_INITIAL (64 * 1024) /* room for a reassembled SA table */

/* Make the receive buffer hold len MAD bytes; 0 or -1. */
static int dt_reserve(struct dt_port *p, int len)
{
    void *b;

    if (p->buf && p->buf_len >= len)
        return 0;
    b = realloc(p->buf, (size_t)umad_size() + (size_t)len);
    if (!b)
        return -1;
    p->buf = b;
    p->buf_len = len;
    return 0;
}

int dt_port_refresh(struct dt_port *p, const char *ca, int port)
{
    umad_port_t up;

    if (umad_get_port(ca, port, &up) < 0)
        return -1;
    p->lid = (uint16_t)up.base_lid;
    p->sm_lid = (uint16_t)up.sm_lid;
    p->sm_sl = (uint8_t)up.sm_sl;
    p->port_guid = be64toh(up.port_guid);
    p->gid_prefix = be64toh(up.gid_prefix);
    umad_release_port(&up);
    return 0;
}

int dt_port_open(struct dt_port *p, const char *ca, int port, int timeout_ms, int retries,
                 char *err, size_t err_len)
{
    /* The SA agent takes Reports (method 0x06) besides the answers to its requests. */
    long report_mask[16 / sizeof(long)] = {0};

    memset(p, 0, sizeof(*p));
    p->fd = -1;
    p->timeout_ms = timeout_ms;
    p->retries = retries;
    p->next_tid = (uint32_t)random();
    report_mask[IB_MAD_METHOD_REPORT / (8 * sizeof(long))] |=
        1L << (IB_MAD_METHOD_REPORT % (8 * sizeof(long)));
    if (umad_init() < 0 || dt_port_refresh(p, ca, port)) {
        snprintf(err, err_len, "no umad port %s:%d", ca ? ca : "(first)", port);
        return -1;
    }
    p->fd = umad_open_port(ca, port);
    if (p->fd < 0) {
        snprintf(err, err_len, "cannot open the umad port: %s", strerror(-p->fd));
        return -1;
    }
    p->agents[DT_AGENT_SA] = umad_register(p->fd, IB_SA_CLASS, 2, 1, report_mask);
    p->agents[DT_AGENT_PMA] = umad_register(p->fd, IB_PERFORMANCE_CLASS, 1, 0, NULL);
    p->agents[DT_AGENT_VENDOR] =
        umad_register(p->fd, DFTREE_MGMT_CLASS, DFTREE_CLASS_VERSION, 0, NULL);
    for (int a = 0; a < DT_AGENTS; a++)
        if (p->agents[a] < 0) {
            snprintf(err, err_len, "cannot register umad agent %d", a);
            return -1;
        }
    if (dt_reserve(p, DT_BUF_INITIAL)) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    return 0;
}

void dt_port_close(struct dt_port *p)
{
    if (p->fd >= 0)
        umad_close_port(p->fd);
    p->fd = -1;
    free(p->buf);
    p->buf = NULL;
    umad_done();
}

/* Send mad (len bytes) through agent a to (dlid, qp); 0 or -EIO. */
static int dt_send(struct dt_port *p, enum dt_agent a, uint16_t dlid, uint32_t qp, uint8_t sl,
                   const uint8_t *mad, int timeout_ms, int retries)
{
    uint8_t u[512];
    int rc;

    if ((size_t)umad_size() + DT_MAD_SIZE > sizeof(u))
        return -EIO;
    memset(u, 0, sizeof(u));
    memcpy(umad_get_mad(u), mad, DT_MAD_SIZE);
    umad_set_addr(u, dlid, (int)qp, sl, DT_QP1_QKEY);
    rc = umad_send(p->fd, p->agents[a], u, DT_MAD_SIZE, timeout_ms, retries);
    if (rc < 0)
        return -EIO;
    p->sent++;
    return 0;
}

/* Answer a Report with its ReportResp and queue its Notice. */
static void dt_take_report(struct dt_port *p, const uint8_t *mad, int len)
{
    struct ib_user_mad *u = p->buf;
    uint8_t resp[DT_MAD_SIZE] = {0};
    struct dt_report *r;

    memcpy(resp, mad, len < DT_MAD_SIZE ? (size_t)len : DT_MAD_SIZE);
    mad_set_field(resp, 0, IB_MAD_RESPONSE_F, 1);
    mad_set_field(resp, 0, IB_MAD_STATUS_F, 0);
    if (dt_send(p, DT_AGENT_SA, ntohs(u->addr.lid), ntohl(u->addr.qpn), p->sm_sl, resp, 0, 0) == 0)
        p->reports_answered++;
    if (len < IB_SA_DATA_OFFS + DT_NOTICE_LEN)
        return;
    if (p->rep_count == DT_REPORTS_MAX) {
        p->reports_lost++;
        return;
    }
    r = &p->reports[(p->rep_head + p->rep_count++) % DT_REPORTS_MAX];
    memcpy(r->notice, mad + IB_SA_DATA_OFFS, DT_NOTICE_LEN);
    r->from_lid = ntohs(u->addr.lid);
}

/*
 * Receive one MAD within timeout_ms into p->buf; a Report is taken and
 * reported as 0.  Returns its length (> 0), 0 (a Report, or nothing in
 * time: *timed_out), or -1 on an error.
 */
static int dt_recv(struct dt_port *p, int timeout_ms, bool *timed_out)
{
    int len = p->buf_len, rc;
    const uint8_t *mad;

    *timed_out = false;
    rc = umad_recv(p->fd, p->buf, &len, timeout_ms);
    if (rc < 0 && (rc == -ENOSPC || errno == ENOSPC) && len > p->buf_len)
        return dt_reserve(p, len) ? -1 : 0; /* kept for the next read */
    if (rc < 0) {
        if (rc == -ETIMEDOUT || errno == ETIMEDOUT || rc == -EWOULDBLOCK || errno == EWOULDBLOCK) {
            *timed_out = true;
            return 0;
        }
        return -1;
    }
    p->received++;
    mad = umad_get_mad(p->buf);
    if (umad_status(p->buf) == 0 && len >= 24 &&
        mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) == IB_SA_CLASS &&
        mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_REPORT &&
        !mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F)) {
        dt_take_report(p, mad, len);
        return 0;
    }
    return len > 0 ? len : 0;
}

int dt_rpc(struct dt_port *p, enum dt_agent a, uint16_t dlid, uint8_t *req, const uint8_t **answer,
           int *len)
{
    uint32_t tid = ++p->next_tid;
    bool timed_out;

    /* Only the low 32 TID bits are ours: the MAD layer writes its agent into the high ones. */
    mad_set_field64(req, 0, IB_MAD_TRID_F, tid);
    if (dt_send(p, a, dlid, 1, a == DT_AGENT_SA ? p->sm_sl : 0, req, p->timeout_ms, p->retries))
        return -EIO;
    for (;;) {
        /* The layer times the request out after timeout x (retries + 1); wait a little longer. */
        int n = dt_recv(p, p->timeout_ms * (p->retries + 1) + 1000, &timed_out);
        const uint8_t *mad = umad_get_mad(p->buf);

        if (n < 0)
            return -EIO;
        if (timed_out)
            return -ETIMEDOUT;
        if (n == 0 || (uint32_t)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F) != tid)
            continue; /* a Report, or a late answer to an earlier request */
        if (umad_status(p->buf))
            return -ETIMEDOUT; /* the layer gave the request back: no answer */
        *answer = mad;
        *len = n;
        return 0;
    }
}

int dt_next_report(struct dt_port *p, int timeout_ms, struct dt_report *r)
{
    bool timed_out;

    while (p->rep_count == 0) {
        int n = dt_recv(p, timeout_ms, &timed_out);

        if (n < 0)
            return -1;
        if (timed_out)
            return 0;
        /* a stray answer (n > 0) is dropped; a Report fills the queue */
    }
    *r = p->reports[p->rep_head];
    p->rep_head = (p->rep_head + 1) % DT_REPORTS_MAX;
    p->rep_count--;
    return 1;
}

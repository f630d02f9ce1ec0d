/*
 * pz_echo.c - the switch-to-switch echo service (see pz_echo.h for the wire
 * format): answers requests, matches replies of its own ping runs, counts
 * everything else.
 *
 * The header is laid out by hand: it is this project's own protocol, no
 * library knows it.
 */
#include "pz_echo.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byte_order.h"

/* The service's state. */
struct pz_echo {
    const struct board *b;
    uint32_t qkey;
    struct pz_echo_stats st;
    /* The current ping run. */
    struct pz_echo_ping ping;
    struct pz_echo_ping_result res;
    uint32_t next_seq; /* first sequence number of the next run */
    pz_echo_reply_fn fn;
    void *fn_arg;
    pz_echo_probe_fn probe_fn;
    void *probe_arg;
    pz_echo_log_fn log_fn; /* debug lines, or NULL */
    void *log_arg;
    uint8_t seen[PZ_ECHO_MAX_PINGS]; /* seen[i]: reply to first_seq + i matched */
    uint8_t buf[BOARD_DGRAM_MAX_PAYLOAD];
};

int pz_echo_decode(const uint8_t *p, size_t len, struct pz_echo_hdr *h)
{
    if (!p || len < PZ_ECHO_HDR_LEN)
        return PZ_ECHO_SHORT;
    if (be_get(p, 4) != PZ_ECHO_MAGIC)
        return PZ_ECHO_BAD_MAGIC;
    if (p[4] != PZ_ECHO_VERSION)
        return PZ_ECHO_BAD_VERSION;
    if (p[5] != PZ_ECHO_REQUEST && p[5] != PZ_ECHO_REPLY)
        return PZ_ECHO_BAD_TYPE;
    h->type = p[5];
    h->flags = (uint16_t)be_get(p + 6, 2);
    h->seq = (uint32_t)be_get(p + 8, 4);
    h->ts_ns = be_get(p + 12, 8);
    return PZ_ECHO_OK;
}

size_t pz_echo_encode(uint8_t *buf, size_t cap, const struct pz_echo_hdr *h)
{
    if (!buf || cap < PZ_ECHO_HDR_LEN)
        return 0;
    be_put(buf, PZ_ECHO_MAGIC, 4);
    buf[4] = PZ_ECHO_VERSION;
    buf[5] = h->type;
    be_put(buf + 6, h->flags, 2);
    be_put(buf + 8, h->seq, 4);
    be_put(buf + 12, h->ts_ns, 8);
    return PZ_ECHO_HDR_LEN;
}

struct pz_echo *pz_echo_create(const struct board *b, uint32_t qkey)
{
    struct pz_echo *e;

    if (!b || !board_has_dgram(b))
        return NULL;
    e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->b = b;
    e->qkey = qkey;
    return e;
}

void pz_echo_destroy(struct pz_echo *e)
{
    free(e);
}

void pz_echo_set_log(struct pz_echo *e, pz_echo_log_fn fn, void *arg)
{
    e->log_fn = fn;
    e->log_arg = arg;
}

/* Format one debug line and hand it to the log hook, if there is one. */
static void echo_log(const struct pz_echo *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void echo_log(const struct pz_echo *e, const char *fmt, ...)
{
    char msg[256];
    va_list ap;

    if (!e->log_fn)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    e->log_fn(e->log_arg, msg);
}

/* The name of a decode error, for the log. */
static const char *echo_error_name(int err)
{
    static const char *const names[] = {"ok", "bad length", "bad magic", "bad version", "bad type"};

    return err >= 0 && err <= PZ_ECHO_BAD_TYPE ? names[err] : "?";
}

/* Answer a request: the same bytes with type reply, back to where it came from. */
static void echo_reply(struct pz_echo *e, const struct board_dgram_addr *from, const uint8_t *p,
                       size_t len)
{
    struct board_dgram_addr to = {
        .dlid = from->slid,
        .sl = from->sl,
        .pkey = from->pkey,
        .dst_qp = from->src_qp,
        .qkey = e->qkey,
        .has_grh = from->has_grh,
    };

    if (from->has_grh) {
        memcpy(to.grh, from->grh, BOARD_DGRAM_GRH_LEN);
        memcpy(to.grh + 8, from->grh + 24, 16); /* SGID = the request's DGID */
        memcpy(to.grh + 24, from->grh + 8, 16); /* DGID = the request's SGID */
    }
    if (e->buf != p)
        memcpy(e->buf, p, len);
    e->buf[5] = PZ_ECHO_REPLY;
    if (board_dgram_send(e->b, &to, e->buf, len)) {
        e->st.send_errors++;
        echo_log(e, "echo: reply to lid %u qp 0x%06x refused", to.dlid, (unsigned)to.dst_qp);
        return;
    }
    e->st.replies_sent++;
}

/* Whether the padding of a len-byte echo datagram is the ping pattern of seq. */
static bool echo_pattern_ok(const uint8_t *p, size_t len, uint32_t seq)
{
    for (size_t i = PZ_ECHO_HDR_LEN; i < len; i++)
        if (p[i] != (uint8_t)(seq + i))
            return false;
    return true;
}

/* Match a reply against the current ping run; counts it either way. */
static void echo_take_reply(struct pz_echo *e, const struct board_dgram_addr *from,
                            const struct pz_echo_hdr *h, const uint8_t *p, size_t len)
{
    uint32_t idx = h->seq - e->res.first_seq; /* wraps: out of range when not ours */
    uint64_t now = board_now_ns(e->b);
    uint64_t rtt = now >= h->ts_ns ? now - h->ts_ns : 0;

    if (idx >= e->ping.count || e->seen[idx] || len != e->ping.len ||
        !echo_pattern_ok(p, len, h->seq)) {
        e->st.stray_replies++;
        return;
    }
    e->seen[idx] = 1;
    e->st.replies++;
    e->res.received++;
    e->res.rtt_sum_ns += rtt;
    if (e->res.received == 1 || rtt < e->res.rtt_min_ns)
        e->res.rtt_min_ns = rtt;
    if (rtt > e->res.rtt_max_ns)
        e->res.rtt_max_ns = rtt;
    if (e->fn)
        e->fn(e->fn_arg, h->seq, rtt, from, len);
}

/* Hand a probe reply to the probe handler (a stray without one). */
static void echo_take_probe_reply(struct pz_echo *e, const struct board_dgram_addr *from,
                                  const struct pz_echo_hdr *h)
{
    uint64_t now = board_now_ns(e->b);

    if (!e->probe_fn) {
        e->st.stray_replies++;
        return;
    }
    e->st.probe_replies++;
    e->probe_fn(e->probe_arg, h->seq, now >= h->ts_ns ? now - h->ts_ns : 0, from);
}

void pz_echo_input(struct pz_echo *e, const struct board_dgram_addr *from, const uint8_t *p,
                   size_t len)
{
    struct pz_echo_hdr h;
    int err = len > BOARD_DGRAM_MAX_PAYLOAD ? PZ_ECHO_SHORT : pz_echo_decode(p, len, &h);

    e->st.received++;
    if (err != PZ_ECHO_OK) {
        e->st.malformed++;
        echo_log(e, "echo: dropped a malformed datagram (%s, %zu bytes) from lid %u",
                 echo_error_name(err), len, from->slid);
        return;
    }
    if (h.type == PZ_ECHO_REQUEST) {
        e->st.requests++;
        echo_reply(e, from, p, len);
    } else if (h.flags & PZ_ECHO_FLAG_PROBE) {
        echo_take_probe_reply(e, from, &h);
    } else {
        echo_take_reply(e, from, &h, p, len);
    }
}

int pz_echo_poll(struct pz_echo *e, unsigned budget)
{
    struct board_dgram_addr from;
    unsigned taken = 0;

    while (taken < budget) {
        int n = board_dgram_recv(e->b, &from, e->buf, sizeof(e->buf));

        if (n == -EAGAIN)
            break;
        taken++;
        if (n < 0) {
            e->st.recv_errors++;
            if (n == -EMSGSIZE)
                continue;
            return n == -ENOTCONN ? -ENOTCONN : (int)taken;
        }
        pz_echo_input(e, &from, e->buf, (size_t)n);
    }
    if (taken)
        echo_log(e,
                 "echo: requests %llu replies-sent %llu malformed %llu replies %llu stray %llu "
                 "send-errors %llu",
                 (unsigned long long)e->st.requests, (unsigned long long)e->st.replies_sent,
                 (unsigned long long)e->st.malformed, (unsigned long long)e->st.replies,
                 (unsigned long long)e->st.stray_replies, (unsigned long long)e->st.send_errors);
    return (int)taken;
}

void pz_echo_stats(const struct pz_echo *e, struct pz_echo_stats *out)
{
    *out = e->st;
}

/* Build request seq of the current run into buf; returns its length. */
static size_t echo_build_request(struct pz_echo *e, uint8_t *buf, uint32_t seq)
{
    struct pz_echo_hdr h = {.type = PZ_ECHO_REQUEST, .seq = seq, .ts_ns = board_now_ns(e->b)};

    pz_echo_encode(buf, e->ping.len, &h);
    for (size_t i = PZ_ECHO_HDR_LEN; i < e->ping.len; i++)
        buf[i] = (uint8_t)(seq + i);
    return e->ping.len;
}

int pz_echo_ping_start(struct pz_echo *e, const struct pz_echo_ping *p, pz_echo_reply_fn fn,
                       void *arg)
{
    struct board_dgram_addr to = {0};
    uint8_t *req;

    if (!p || !p->count || p->count > PZ_ECHO_MAX_PINGS || p->len < PZ_ECHO_HDR_LEN ||
        p->len > BOARD_DGRAM_MAX_PAYLOAD || p->sl > 15 || p->dst_qp <= 1 || p->dst_qp > 0xFFFFFF)
        return -EINVAL;
    req = malloc(p->len);
    if (!req)
        return -ENOMEM;
    e->ping = *p;
    e->fn = fn;
    e->fn_arg = arg;
    memset(&e->res, 0, sizeof(e->res));
    memset(e->seen, 0, sizeof(e->seen));
    e->res.first_seq = e->next_seq;
    e->next_seq += p->count;
    to.dlid = p->dlid;
    to.dst_qp = p->dst_qp;
    to.sl = p->sl;
    to.pkey = p->pkey;
    to.qkey = e->qkey;
    for (unsigned i = 0; i < p->count; i++) {
        size_t len = echo_build_request(e, req, e->res.first_seq + i);

        if (board_dgram_send(e->b, &to, req, len)) {
            e->st.send_errors++;
            continue;
        }
        e->res.sent++;
        e->st.pings_sent++;
    }
    free(req);
    return (int)e->res.sent;
}

void pz_echo_ping_result(const struct pz_echo *e, struct pz_echo_ping_result *r)
{
    *r = e->res;
}

void pz_echo_set_probe_handler(struct pz_echo *e, pz_echo_probe_fn fn, void *arg)
{
    e->probe_fn = fn;
    e->probe_arg = arg;
}

int pz_echo_probe_send(struct pz_echo *e, uint16_t dlid, uint32_t dst_qp, uint32_t qkey,
                       uint32_t seq)
{
    struct board_dgram_addr to = {
        .dlid = dlid, .dst_qp = dst_qp, .sl = 0, .pkey = 0xFFFF, .qkey = qkey};
    struct pz_echo_hdr h = {.type = PZ_ECHO_REQUEST,
                            .flags = PZ_ECHO_FLAG_PROBE,
                            .seq = seq,
                            .ts_ns = board_now_ns(e->b)};
    uint8_t req[PZ_ECHO_HDR_LEN];
    int rc;

    if (!dlid || dlid >= 0xC000 || dst_qp <= 1 || dst_qp > 0xFFFFFF)
        return -EINVAL;
    pz_echo_encode(req, sizeof(req), &h);
    rc = board_dgram_send(e->b, &to, req, sizeof(req));
    if (rc) {
        e->st.send_errors++;
        return rc;
    }
    e->st.probes_sent++;
    return 0;
}

/*
 * iperf_server.c - iperf 2 compatible TCP and UDP server on lwIP's raw API
 * (see iperf_server.h).  Callbacks and the session sweep run in lwIP's
 * tcpip thread; the owner's calls take the core lock.
 */
#include "iperf_server.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lwip/pbuf.h>
#include <lwip/tcp.h>
#include <lwip/tcpip.h>
#include <lwip/timeouts.h>
#include <lwip/udp.h>

#include "ip_listen.h"
#include "iperf_wire.h"

/* An ended UDP session keeps answering repeats of the final datagram this long. */
#define IPERF_SERVER_LINGER_MS 3000
/* The sweep of silent UDP sessions runs this often. */
#define IPERF_SERVER_SWEEP_MS 1000

struct iperf_server;

/* One TCP test. */
struct tcp_test {
    struct iperf_server *srv;
    struct tcp_pcb *pcb;
    uint64_t bytes, first_ns, last_ns;
    struct tcp_test *next;
};

/* One UDP test: a client's address and port. */
struct udp_test {
    bool used, seq64, ended;
    ip_addr_t addr;
    u16_t port;
    int64_t max_seq;
    uint64_t received, bytes, outorder;
    uint64_t first_ns, last_ns;
    double jitter_s, prev_transit_s;
    struct iperf_report report; /* frozen at the first final datagram */
};

struct iperf_server {
    struct ip_listen l; /* TCP listener and UDP socket */
    struct tcp_test *tcp;
    unsigned ntcp;
    struct udp_test sessions[IPERF_SERVER_MAX_UDP];
    struct iperf_server_stats stats;
    struct iperf_server_test history[IPERF_SERVER_HISTORY]; /* ring */
    unsigned history_next, history_len;
};

/* A clock in ns (CLOCK_MONOTONIC, or CLOCK_REALTIME for the senders' timestamps). */
static uint64_t server_clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A test's peer address from lwIP's (IPv4 in host order, or IPv6's 16 bytes). */
static void server_peer(struct iperf_server_test *rec, const ip_addr_t *a)
{
    rec->peer_v6 = IP_IS_V6(a);
    if (rec->peer_v6)
        memcpy(rec->peer6, ip_2_ip6(a)->addr, sizeof(rec->peer6));
    else
        rec->peer = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(a)));
}

/* Remember a finished test (tcpip thread). */
static void server_remember(struct iperf_server *s, const struct iperf_server_test *t)
{
    s->history[s->history_next] = *t;
    s->history_next = (s->history_next + 1) % IPERF_SERVER_HISTORY;
    if (s->history_len < IPERF_SERVER_HISTORY)
        s->history_len++;
}

/* --- TCP --- */

/* Record a TCP test, unlink and free it (its pcb is closed or gone). */
static void tcp_test_end(struct tcp_test *t)
{
    struct iperf_server *s = t->srv;
    struct tcp_test **pp = &s->tcp;
    struct iperf_server_test rec = {.peer_port = 0, .udp = false, .ended = true};

    if (t->pcb) {
        server_peer(&rec, &t->pcb->remote_ip);
        rec.peer_port = t->pcb->remote_port;
    }
    rec.bytes = t->bytes;
    rec.duration_us = t->bytes ? (t->last_ns - t->first_ns) / 1000u : 0;
    server_remember(s, &rec);
    while (*pp && *pp != t)
        pp = &(*pp)->next;
    if (*pp)
        *pp = t->next;
    s->ntcp--;
    free(t);
}

/* Detach and close a TCP test's pcb (abort if close fails); returns ERR_ABRT when aborted. */
static err_t tcp_test_close(struct tcp_test *t)
{
    struct tcp_pcb *pcb = t->pcb;

    tcp_test_end(t);
    return ip_tcp_release(pcb, false);
}

/* tcp_recv: count and acknowledge what came; the peer's FIN ends the test. */
static err_t tcp_test_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct tcp_test *t = arg;
    uint64_t now = server_clock_ns(CLOCK_MONOTONIC);

    if (!p)
        return tcp_test_close(t);
    if (err != ERR_OK) {
        pbuf_free(p);
        return ERR_OK;
    }
    if (!t->bytes)
        t->first_ns = now;
    t->last_ns = now;
    t->bytes += p->tot_len;
    t->srv->stats.tcp_bytes += p->tot_len;
    tcp_recved(pcb, p->tot_len);
    pbuf_free(p);
    return ERR_OK;
}

/* tcp_err: the pcb is gone (reset or aborted). */
static void tcp_test_err(void *arg, err_t err)
{
    struct tcp_test *t = arg;

    (void)err;
    if (t) {
        t->pcb = NULL;
        tcp_test_end(t);
    }
}

/* tcp_accept: a new test, if the limit allows. */
static err_t server_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct iperf_server *s = arg;
    struct tcp_test *t;

    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    if (s->ntcp >= IPERF_SERVER_MAX_TCP || !(t = calloc(1, sizeof(*t)))) {
        s->stats.refused++;
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    t->srv = s;
    t->pcb = pcb;
    t->next = s->tcp;
    s->tcp = t;
    s->ntcp++;
    s->stats.tcp_tests++;
    tcp_arg(pcb, t);
    tcp_recv(pcb, tcp_test_recv);
    tcp_err(pcb, tcp_test_err);
    return ERR_OK;
}

/* --- UDP --- */

/*
 * Record a UDP test: one that ended (at its first final datagram), or one
 * that went silent (when it is retired).
 */
static void udp_test_record(struct iperf_server *s, const struct udp_test *u)
{
    struct iperf_server_test rec = {
        .peer_port = u->port,
        .udp = true,
        .ended = u->ended,
        .bytes = u->ended ? u->report.bytes : u->bytes,
        .duration_us = (u->last_ns - u->first_ns) / 1000u,
        .datagrams = u->ended ? u->report.datagrams : (uint64_t)(u->max_seq > 0 ? u->max_seq : 0),
        .lost = u->ended ? u->report.lost : 0,
        .outorder = u->outorder,
        .jitter_ms = u->jitter_s * 1e3,
    };

    server_peer(&rec, &u->addr);
    if (!u->ended && rec.datagrams > u->received)
        rec.lost = rec.datagrams - u->received;
    server_remember(s, &rec);
}

/* Free a UDP session's slot, recording it first if it went silent. */
static void udp_test_retire(struct iperf_server *s, struct udp_test *u)
{
    if (!u->ended)
        udp_test_record(s, u);
    memset(u, 0, sizeof(*u));
}

/* The session of addr:port, a new one (NULL when the table is full). */
static struct udp_test *udp_test_find(struct iperf_server *s, const ip_addr_t *addr, u16_t port)
{
    struct udp_test *free_slot = NULL;

    for (unsigned i = 0; i < IPERF_SERVER_MAX_UDP; i++) {
        struct udp_test *u = &s->sessions[i];

        if (u->used && u->port == port && ip_addr_cmp(&u->addr, addr))
            return u;
        if (!u->used && !free_slot)
            free_slot = u;
    }
    if (free_slot) {
        free_slot->used = true;
        ip_addr_copy(free_slot->addr, *addr);
        free_slot->port = port;
    }
    return free_slot;
}

/* Account one data datagram (seq > 0) arriving at now. */
static void udp_test_count(struct udp_test *u, const struct iperf_udp_hdr *h, size_t len,
                           uint64_t now)
{
    double transit = server_clock_ns(CLOCK_REALTIME) / 1e9 - (h->tv_sec + h->tv_usec / 1e6);

    if (!u->received)
        u->first_ns = now;
    else {
        double d = transit - u->prev_transit_s;

        u->jitter_s += ((d < 0 ? -d : d) - u->jitter_s) / 16.0;
    }
    u->prev_transit_s = transit;
    u->last_ns = now;
    u->received++;
    u->bytes += len;
    if (h->seq <= u->max_seq)
        u->outorder++;
    else
        u->max_seq = h->seq;
}

/* Freeze the report at the client's first final datagram (-(last + 1)). */
static void udp_test_end(struct udp_test *u, const struct iperf_udp_hdr *h, size_t len,
                         uint64_t now)
{
    uint64_t total, duration_us;

    udp_test_count(
        u, &(struct iperf_udp_hdr){.seq = -h->seq, .tv_sec = h->tv_sec, .tv_usec = h->tv_usec}, len,
        now);
    total = (uint64_t)u->max_seq;
    duration_us = (u->last_ns - u->first_ns) / 1000u;
    u->report = (struct iperf_report){
        .flags = IPERF_FLAG_VERSION1 | IPERF_FLAG_SEQNO64B,
        .bytes = u->bytes,
        .stop_sec = (uint32_t)(duration_us / 1000000u),
        .stop_usec = (uint32_t)(duration_us % 1000000u),
        .lost = total > u->received ? total - u->received : 0,
        .outorder = u->outorder,
        .datagrams = total,
        .jitter_sec = (uint32_t)u->jitter_s,
        .jitter_usec = (uint32_t)((u->jitter_s - (uint32_t)u->jitter_s) * 1e6),
    };
    u->ended = true;
}

/* Send the session's report back to its client. */
static void udp_test_report(struct iperf_server *s, struct udp_pcb *pcb, const struct udp_test *u)
{
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, IPERF_REPORT_LEN, PBUF_RAM);

    if (!p)
        return;
    iperf_report_encode(p->payload, p->len, &u->report);
    if (udp_sendto(pcb, p, &u->addr, u->port) == ERR_OK)
        s->stats.reports_sent++;
    pbuf_free(p);
}

/* udp_recv: one test datagram. */
static void server_udp_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                            u16_t port)
{
    struct iperf_server *s = arg;
    uint8_t head[IPERF_UDP_LEN_MIN];
    u16_t n = pbuf_copy_partial(p, head, sizeof(head), 0);
    uint64_t now = server_clock_ns(CLOCK_MONOTONIC);
    struct iperf_udp_hdr h;
    struct udp_test *u;

    if (n < IPERF_UDP_HDR_MIN || !port) {
        s->stats.malformed++;
        goto out;
    }
    u = udp_test_find(s, addr, port);
    if (!u) {
        s->stats.refused++;
        goto out;
    }
    if (!u->received && !u->ended) {
        u->seq64 = iperf_udp_seq64(head, n);
        s->stats.udp_tests++;
    }
    if (iperf_udp_parse(head, n, u->seq64, &h) || h.seq == 0 || h.seq == INT64_MIN) {
        s->stats.malformed++;
        goto out;
    }
    s->stats.udp_datagrams++;
    s->stats.udp_bytes += p->tot_len;
    if (h.seq < 0) {
        if (!u->ended) {
            udp_test_end(u, &h, p->tot_len, now);
            udp_test_record(s, u);
        }
        udp_test_report(s, pcb, u);
    } else if (!u->ended) {
        udp_test_count(u, &h, p->tot_len, now);
    }
out:
    pbuf_free(p);
}

/* Timer (tcpip thread): retire UDP sessions that ended or went silent. */
static void server_sweep(void *arg)
{
    struct iperf_server *s = arg;
    uint64_t now = server_clock_ns(CLOCK_MONOTONIC);

    for (unsigned i = 0; i < IPERF_SERVER_MAX_UDP; i++) {
        struct udp_test *u = &s->sessions[i];
        uint64_t quiet_ms = (now - u->last_ns) / 1000000u;

        if (u->used && u->last_ns &&
            quiet_ms >= (u->ended ? IPERF_SERVER_LINGER_MS : IPERF_SERVER_UDP_IDLE_MS))
            udp_test_retire(s, u);
        else if (u->used && !u->last_ns && !u->ended)
            memset(u, 0, sizeof(*u)); /* only malformed datagrams came */
    }
    sys_timeout(IPERF_SERVER_SWEEP_MS, server_sweep, s);
}

struct iperf_server *iperf_server_start(uint16_t port)
{
    struct iperf_server *s = calloc(1, sizeof(*s));
    bool ok;

    if (!s)
        return NULL;
    if (!port)
        port = IPERF_PORT;
    LOCK_TCPIP_CORE();
    ok = ip_listen_open(&s->l, port, 16, s, server_accept, server_udp_recv);
    if (ok)
        sys_timeout(IPERF_SERVER_SWEEP_MS, server_sweep, s);
    UNLOCK_TCPIP_CORE();
    if (!ok) {
        free(s);
        return NULL;
    }
    return s;
}

void iperf_server_stop(struct iperf_server *s)
{
    if (!s)
        return;
    LOCK_TCPIP_CORE();
    sys_untimeout(server_sweep, s);
    while (s->tcp) {
        struct tcp_test *t = s->tcp;

        ip_tcp_release(t->pcb, true);
        s->tcp = t->next;
        free(t);
    }
    ip_listen_close(&s->l);
    UNLOCK_TCPIP_CORE();
    free(s);
}

struct iperf_server_stats iperf_server_stats(struct iperf_server *s)
{
    struct iperf_server_stats st;

    LOCK_TCPIP_CORE();
    st = s->stats;
    UNLOCK_TCPIP_CORE();
    return st;
}

unsigned iperf_server_history(struct iperf_server *s, struct iperf_server_test *out, unsigned max)
{
    unsigned n;

    LOCK_TCPIP_CORE();
    n = s->history_len < max ? s->history_len : max;
    for (unsigned i = 0; i < n; i++)
        out[i] =
            s->history[(s->history_next + IPERF_SERVER_HISTORY - 1 - i) % IPERF_SERVER_HISTORY];
    UNLOCK_TCPIP_CORE();
    return n;
}

/*
 * iperf_client.c - iperf 2 compatible client streams on lwIP's raw API
 * (see iperf_client.h).  A run's streams are driven by one lwIP timer (1 ms
 * with UDP streams, 10 ms otherwise) and by their pcbs' callbacks, all in
 * lwIP's tcpip thread; what the owner reads is kept under the run's mutex.
 */
#include "iperf_client.h"

#include <arpa/inet.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <lwip/pbuf.h>
#include <lwip/tcp.h>
#include <lwip/tcpip.h>
#include <lwip/timeouts.h>
#include <lwip/udp.h>

#include "ip_listen.h"

#define NS_PER_S 1000000000ull
#define NS_PER_MS 1000000ull
/* A TCP stream must connect, and drain after the test, within this time. */
#define IPERF_CLIENT_TCP_WAIT_NS (5 * NS_PER_S)
/* UDP: the final datagram is repeated this often, this many times (iperf: 10 ms, 2 s). */
#define IPERF_CLIENT_FIN_EVERY_NS (10 * NS_PER_MS)
#define IPERF_CLIENT_FIN_TRIES 200
/* UDP datagrams one stream sends per tick at most (750 Mbit/s of 1470-byte datagrams). */
#define IPERF_CLIENT_UDP_BURST 64

struct iperf_client;

/* One stream: tcpip-thread state, and its result under the run's mutex. */
struct stream {
    struct iperf_client *run;
    struct tcp_pcb *tcp;
    struct udp_pcb *udp;
    ip_addr_t dst;
    size_t offset; /* TCP: where the next write starts in the pattern */
    int64_t seq;   /* UDP: the last sequence number sent */
    unsigned fin_tries;
    uint64_t fin_next_ns, wait_until_ns;
    struct iperf_stream_result res;
};

struct iperf_client {
    struct iperf_client_config cfg;
    pthread_mutex_t lock;
    int efd;
    uint64_t start_ns, end_ns;
    uint8_t *pattern; /* cfg.len bytes */
    struct stream *s;
    unsigned ndone; /* tcpip thread */
};

/* CLOCK_MONOTONIC in ns. */
static uint64_t client_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* Whether a stream state is final. */
static bool state_final(enum iperf_stream_state st)
{
    return st == IPERF_STREAM_DONE || st == IPERF_STREAM_NO_REPORT || st == IPERF_STREAM_FAILED;
}

/* Set a stream's state (tcpip thread); the last stream to end signals the owner. */
static void stream_set_state(struct stream *s, enum iperf_stream_state st)
{
    struct iperf_client *c = s->run;
    bool ends = state_final(st) && !state_final(s->res.state);
    uint64_t one = 1;

    pthread_mutex_lock(&c->lock);
    if (ends && !s->res.end_ns)
        s->res.end_ns = client_now();
    s->res.state = st;
    pthread_mutex_unlock(&c->lock);
    if (ends && ++c->ndone == c->cfg.nstreams && write(c->efd, &one, sizeof(one)) < 0)
        (void)0; /* the owner also sees it at its next deadline */
}

/* Add to a stream's counters (tcpip thread). */
static void stream_count(struct stream *s, uint64_t bytes, uint64_t datagrams)
{
    pthread_mutex_lock(&s->run->lock);
    s->res.bytes += bytes;
    s->res.datagrams += datagrams;
    pthread_mutex_unlock(&s->run->lock);
}

/* Record when a stream began sending (tcpip thread). */
static void stream_started(struct stream *s, uint64_t now, uint16_t local_port,
                           const ip_addr_t *local)
{
    pthread_mutex_lock(&s->run->lock);
    s->res.start_ns = now;
    s->res.local_port = local_port;
    if (local && IP_IS_V6(local)) /* RFC 5952 text (lwIP's ntoa writes upper case) */
        inet_ntop(AF_INET6, ip_2_ip6(local)->addr, s->res.local_text, sizeof(s->res.local_text));
    else if (local)
        ipaddr_ntoa_r(local, s->res.local_text, sizeof(s->res.local_text));
    s->res.state = IPERF_STREAM_RUNNING;
    pthread_mutex_unlock(&s->run->lock);
}

/*
 * Record when a stream stopped writing (tcpip thread): its test time ends
 * there, as iperf's interval does: for TCP not when the last ack came (the
 * peer's delayed ack, up to lwIP's 250 ms fast timer, would lower the rate),
 * for UDP at the final datagram, not when the server's report came.
 */
static void stream_stopped_writing(struct stream *s, uint64_t now)
{
    pthread_mutex_lock(&s->run->lock);
    s->res.end_ns = now;
    pthread_mutex_unlock(&s->run->lock);
}

/* --- TCP --- */

/*
 * Forget a TCP stream's pcb: callbacks off, close (abort when asked or when
 * close fails).  Returns ERR_ABRT when it aborted, else ERR_OK.
 */
static err_t tcp_stream_release(struct stream *s, bool abort)
{
    struct tcp_pcb *pcb = s->tcp;

    if (!pcb)
        return ERR_OK;
    s->tcp = NULL;
    return ip_tcp_release(pcb, abort);
}

/* Write as much of the pattern as the send buffer takes, until the test's end. */
static void tcp_stream_fill(struct stream *s, uint64_t now)
{
    struct iperf_client *c = s->run;
    bool wrote = false;

    while (s->res.state == IPERF_STREAM_RUNNING && now < c->end_ns) {
        size_t room = tcp_sndbuf(s->tcp), n = c->cfg.len - s->offset;

        if (n > room)
            n = room;
        if (n == 0 || (n < TCP_MSS && n < c->cfg.len - s->offset))
            break; /* wait for room for a full segment */
        if (tcp_write(s->tcp, c->pattern + s->offset, (u16_t)n, TCP_WRITE_FLAG_COPY) != ERR_OK)
            break;
        s->offset = (s->offset + n) % c->cfg.len;
        wrote = true;
    }
    if (wrote)
        tcp_output(s->tcp);
}

/*
 * A TCP stream after its time: done once everything written is
 * acknowledged (or the wait is over).  Returns ERR_ABRT when it aborted.
 */
static err_t tcp_stream_drain(struct stream *s, uint64_t now)
{
    err_t rc = ERR_OK;

    if (!s->tcp->unsent && !s->tcp->unacked) {
        rc = tcp_stream_release(s, false);
        stream_set_state(s, IPERF_STREAM_DONE);
    } else if (now >= s->wait_until_ns) {
        rc = tcp_stream_release(s, true);
        stream_set_state(s, IPERF_STREAM_DONE);
    }
    return rc;
}

/* tcp_sent: the peer acknowledged len bytes. */
static err_t tcp_stream_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct stream *s = arg;
    uint64_t now = client_now();

    (void)pcb;
    stream_count(s, len, 0);
    if (s->res.state == IPERF_STREAM_RUNNING)
        tcp_stream_fill(s, now);
    else if (s->res.state == IPERF_STREAM_FINISHING)
        return tcp_stream_drain(s, now);
    return ERR_OK;
}

/* tcp_recv: a server has nothing to say (iperf 2.1's header ack): read and drop; its FIN ends. */
static err_t tcp_stream_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct stream *s = arg;

    if (p) {
        tcp_recved(pcb, p->tot_len);
        pbuf_free(p);
        return ERR_OK;
    }
    (void)err;
    stream_set_state(s, s->res.state == IPERF_STREAM_FINISHING ? IPERF_STREAM_DONE
                                                               : IPERF_STREAM_FAILED);
    return tcp_stream_release(s, true);
}

/* tcp_err: refused or reset; the pcb is gone. */
static void tcp_stream_err(void *arg, err_t err)
{
    struct stream *s = arg;

    (void)err;
    if (!s)
        return;
    s->tcp = NULL;
    stream_set_state(s, IPERF_STREAM_FAILED);
}

/* tcp_connect's callback: the test begins. */
static err_t tcp_stream_connected(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct stream *s = arg;
    uint64_t now = client_now();

    if (err != ERR_OK)
        return ERR_OK; /* tcp_err follows */
    stream_started(s, now, pcb->local_port, &pcb->local_ip);
    tcp_stream_fill(s, now);
    return ERR_OK;
}

/* Open a TCP stream (core lock held); returns 0 or -1. */
static int tcp_stream_open(struct stream *s, uint16_t port)
{
    s->tcp = tcp_new_ip_type(IP_GET_TYPE(&s->dst));
    if (!s->tcp)
        return -1;
    tcp_arg(s->tcp, s);
    tcp_recv(s->tcp, tcp_stream_recv);
    tcp_sent(s->tcp, tcp_stream_sent);
    tcp_err(s->tcp, tcp_stream_err);
    tcp_nagle_disable(s->tcp);
    if (tcp_connect(s->tcp, &s->dst, port, tcp_stream_connected) != ERR_OK) {
        tcp_stream_release(s, true);
        return -1;
    }
    return 0;
}

/* Timer work of a TCP stream: connect timeout, the test's end, draining. */
static void tcp_stream_tick(struct stream *s, uint64_t now)
{
    struct iperf_client *c = s->run;

    switch (s->res.state) {
    case IPERF_STREAM_CONNECTING:
        if (now >= c->start_ns + IPERF_CLIENT_TCP_WAIT_NS) {
            tcp_stream_release(s, true);
            stream_set_state(s, IPERF_STREAM_FAILED);
        }
        break;
    case IPERF_STREAM_RUNNING:
        if (now < c->end_ns) {
            tcp_stream_fill(s, now);
            break;
        }
        s->wait_until_ns = now + IPERF_CLIENT_TCP_WAIT_NS;
        stream_stopped_writing(s, now);
        stream_set_state(s, IPERF_STREAM_FINISHING);
        (void)tcp_stream_drain(s, now);
        break;
    case IPERF_STREAM_FINISHING:
        (void)tcp_stream_drain(s, now);
        break;
    default:
        break;
    }
}

/* --- UDP --- */

/*
 * Send one datagram with sequence number seq, counted unless it repeats the
 * final one; returns whether it left.
 */
static bool udp_stream_send(struct stream *s, int64_t seq, bool count)
{
    struct iperf_client *c = s->run;
    struct pbuf *p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)c->cfg.len, PBUF_RAM);
    struct iperf_client_hdr hdr = {
        .flags = IPERF_FLAG_SEQNO64B,
        .threads = (int32_t)c->cfg.nstreams,
        .port = c->cfg.port,
        .buflen = (int32_t)c->cfg.len,
        .winband = (int32_t)(c->cfg.rate_bps > INT32_MAX ? INT32_MAX : c->cfg.rate_bps),
        .amount = -(int32_t)(c->cfg.seconds * 100)};
    struct timespec wall;
    bool ok;

    if (!p)
        return false;
    clock_gettime(CLOCK_REALTIME, &wall);
    memcpy(p->payload, c->pattern, c->cfg.len);
    iperf_udp_encode(p->payload, c->cfg.len, seq, (uint32_t)wall.tv_sec,
                     (uint32_t)(wall.tv_nsec / 1000), &hdr);
    ok = udp_send(s->udp, p) == ERR_OK;
    pbuf_free(p);
    if (ok && count)
        stream_count(s, c->cfg.len, 1);
    return ok;
}

/* Send the datagrams due by now at the stream's rate. */
static void udp_stream_pace(struct stream *s, uint64_t now)
{
    struct iperf_client *c = s->run;
    double per_datagram_ns = c->cfg.len * 8.0 * NS_PER_S / (double)c->cfg.rate_bps;
    int64_t due = (int64_t)((now - s->res.start_ns) / per_datagram_ns) + 1;

    for (unsigned n = 0; s->seq < due && n < IPERF_CLIENT_UDP_BURST; n++) {
        if (!udp_stream_send(s, s->seq + 1, true))
            break;
        s->seq++;
    }
}

/* Timer work of a UDP stream: pacing, then the final datagram until the report. */
static void udp_stream_tick(struct stream *s, uint64_t now)
{
    struct iperf_client *c = s->run;

    if (s->res.state == IPERF_STREAM_RUNNING && now < c->end_ns) {
        udp_stream_pace(s, now);
    } else if (s->res.state == IPERF_STREAM_RUNNING) {
        /* The test time ends with the final datagram, not with the server's report
         * (or the 2 s of repeats without one), as iperf's interval does. */
        stream_stopped_writing(s, now);
        stream_set_state(s, IPERF_STREAM_FINISHING);
        s->seq++;
        udp_stream_send(s, -s->seq, true);
        s->fin_tries = 1;
        s->fin_next_ns = now + IPERF_CLIENT_FIN_EVERY_NS;
    } else if (s->res.state == IPERF_STREAM_FINISHING && now >= s->fin_next_ns) {
        if (s->fin_tries >= IPERF_CLIENT_FIN_TRIES) {
            stream_set_state(s, IPERF_STREAM_NO_REPORT);
            return;
        }
        s->seq++; /* as iperf: each repeat one further, still negative */
        udp_stream_send(s, -s->seq, false);
        s->fin_tries++;
        s->fin_next_ns = now + IPERF_CLIENT_FIN_EVERY_NS;
    }
}

/* udp_recv: the server's report ends the stream. */
static void udp_stream_recv(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                            u16_t port)
{
    struct stream *s = arg;
    uint8_t buf[IPERF_REPORT_LEN];
    u16_t n = pbuf_copy_partial(p, buf, sizeof(buf), 0);
    struct iperf_report r;

    (void)pcb;
    (void)addr;
    (void)port;
    pbuf_free(p);
    if (s->res.state != IPERF_STREAM_FINISHING || iperf_report_parse(buf, n, &r))
        return;
    pthread_mutex_lock(&s->run->lock);
    s->res.report = r;
    s->res.have_report = true;
    pthread_mutex_unlock(&s->run->lock);
    stream_set_state(s, IPERF_STREAM_DONE);
}

/* Open a UDP stream (core lock held); returns 0 or -1. */
static int udp_stream_open(struct stream *s, uint16_t port, uint64_t now)
{
    s->udp = udp_new_ip_type(IPADDR_TYPE_ANY);
    if (!s->udp || udp_bind(s->udp, IP_ANY_TYPE, 0) != ERR_OK ||
        udp_connect(s->udp, &s->dst, port) != ERR_OK)
        return -1;
    udp_recv(s->udp, udp_stream_recv, s);
    stream_started(s, now, s->udp->local_port, NULL);
    return 0;
}

/* --- the run --- */

/* The run's timer (tcpip thread): every stream's timed work; re-armed until all ended. */
static void client_tick(void *arg)
{
    struct iperf_client *c = arg;
    uint64_t now = client_now();

    for (unsigned i = 0; i < c->cfg.nstreams; i++) {
        struct stream *s = &c->s[i];

        if (state_final(s->res.state))
            continue;
        if (c->cfg.udp)
            udp_stream_tick(s, now);
        else
            tcp_stream_tick(s, now);
    }
    if (c->ndone < c->cfg.nstreams)
        sys_timeout(c->cfg.udp ? 1 : 10, client_tick, c);
}

/* Whether the settings make sense. */
static bool client_config_ok(const struct iperf_client_config *cfg)
{
    unsigned min_len = cfg->udp ? IPERF_UDP_LEN_MIN : IPERF_CLIENT_HDR_LEN;
    unsigned max_len = cfg->udp ? IPERF_UDP_LEN_MAX : 1024 * 1024;

    return cfg->nstreams >= 1 && cfg->nstreams <= IPERF_CLIENT_MAX_STREAMS && cfg->dst &&
           cfg->seconds >= 1 && cfg->seconds <= IPERF_CLIENT_MAX_SECONDS && cfg->len >= min_len &&
           cfg->len <= max_len && (!cfg->udp || cfg->rate_bps > 0);
}

/* Fill the pattern: the client header where the protocol has it, then digits (as iperf). */
static void client_pattern(struct iperf_client *c)
{
    struct iperf_client_hdr plain = {0}; /* TCP: flags 0, a plain test */

    for (unsigned i = 0; i < c->cfg.len; i++)
        c->pattern[i] = (uint8_t)('0' + i % 10);
    if (!c->cfg.udp)
        iperf_client_hdr_encode(c->pattern, &plain);
}

struct iperf_client *iperf_client_start(const struct iperf_client_config *cfg)
{
    struct iperf_client *c;
    bool ok = true;

    if (!client_config_ok(cfg) || !(c = calloc(1, sizeof(*c))))
        return NULL;
    c->cfg = *cfg;
    c->cfg.dst = NULL;
    if (!c->cfg.port)
        c->cfg.port = IPERF_PORT;
    c->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    c->pattern = malloc(cfg->len);
    c->s = calloc(cfg->nstreams, sizeof(*c->s));
    pthread_mutex_init(&c->lock, NULL);
    if (c->efd < 0 || !c->pattern || !c->s) {
        iperf_client_stop(c);
        return NULL;
    }
    client_pattern(c);
    c->start_ns = client_now();
    c->end_ns = c->start_ns + (uint64_t)cfg->seconds * NS_PER_S;
    LOCK_TCPIP_CORE();
    for (unsigned i = 0; i < cfg->nstreams && ok; i++) {
        struct stream *s = &c->s[i];

        s->run = c;
        if (cfg->dst6 && !cfg->dst[i]) {
            memset(&s->dst, 0, sizeof(s->dst));
            IP_SET_TYPE_VAL(s->dst, IPADDR_TYPE_V6);
            memcpy(ip_2_ip6(&s->dst)->addr, cfg->dst6[i], 16);
            s->res.v6 = true;
            memcpy(s->res.dst6, cfg->dst6[i], 16);
        } else {
            s->res.dst = cfg->dst[i];
            ip_addr_set_ip4_u32(&s->dst, lwip_htonl(cfg->dst[i]));
        }
        ok = (cfg->udp ? udp_stream_open(s, c->cfg.port, c->start_ns)
                       : tcp_stream_open(s, c->cfg.port)) == 0;
    }
    if (ok)
        sys_timeout(1, client_tick, c);
    UNLOCK_TCPIP_CORE();
    if (!ok) {
        iperf_client_stop(c);
        return NULL;
    }
    return c;
}

int iperf_client_fd(const struct iperf_client *c)
{
    return c->efd;
}

bool iperf_client_done(struct iperf_client *c)
{
    bool done = true;
    uint64_t count;

    pthread_mutex_lock(&c->lock);
    for (unsigned i = 0; i < c->cfg.nstreams; i++)
        done = done && state_final(c->s[i].res.state);
    pthread_mutex_unlock(&c->lock);
    if (done && read(c->efd, &count, sizeof(count)) < 0)
        (void)0; /* not signalled yet: fine */
    return done;
}

uint64_t iperf_client_start_ns(const struct iperf_client *c)
{
    return c->start_ns;
}

struct iperf_stream_result iperf_client_stream(struct iperf_client *c, unsigned i)
{
    struct iperf_stream_result r;

    pthread_mutex_lock(&c->lock);
    r = c->s[i].res;
    pthread_mutex_unlock(&c->lock);
    return r;
}

void iperf_client_stop(struct iperf_client *c)
{
    if (!c)
        return;
    if (c->s) {
        LOCK_TCPIP_CORE();
        sys_untimeout(client_tick, c);
        for (unsigned i = 0; i < c->cfg.nstreams; i++) {
            tcp_stream_release(&c->s[i], true);
            if (c->s[i].udp)
                udp_remove(c->s[i].udp);
        }
        UNLOCK_TCPIP_CORE();
    }
    pthread_mutex_destroy(&c->lock);
    if (c->efd >= 0)
        close(c->efd);
    free(c->s);
    free(c->pattern);
    free(c);
}

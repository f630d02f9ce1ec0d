/*
 * ip_echo.c - TCP and UDP echo on lwIP's raw API (see ip_echo.h).
 *
 * TCP flow control: received data is acknowledged to the peer's window
 * (tcp_recved) only once it is in our send buffer, so a peer that sends
 * faster than it reads its echo is slowed by its own window, and memory
 * stays bounded by one window per connection.
 */
#include "ip_echo.h"

#include <stdbool.h>
#include <stdlib.h>

#include <lwip/netif.h>
#include <lwip/pbuf.h>
#include <lwip/tcp.h>
#include <lwip/tcpip.h>
#include <lwip/udp.h>

#include "ip_listen.h"

struct ip_echo;

/* One TCP connection. */
struct echo_conn {
    struct ip_echo *svc;
    struct tcp_pcb *pcb;
    struct pbuf *pending; /* received, not yet in the send buffer */
    bool peer_closed;     /* FIN seen: close once pending is sent */
    struct echo_conn *next;
};

struct ip_echo {
    struct ip_listen l; /* TCP listener and UDP socket */
    struct echo_conn *conns;
    unsigned nconns, max_conns;
    struct ip_echo_stats stats;
};

/* Unlink and free a connection's state (the pcb is already gone or closing). */
static void conn_free(struct echo_conn *c)
{
    struct echo_conn **pp = &c->svc->conns;

    while (*pp && *pp != c)
        pp = &(*pp)->next;
    if (*pp)
        *pp = c->next;
    c->svc->nconns--;
    if (c->pending)
        pbuf_free(c->pending);
    free(c);
}

/*
 * Detach callbacks and close; abort if close fails.  Frees c.  Returns
 * ERR_ABRT only when it aborted (lwIP's rule: a callback returns ERR_ABRT
 * only after tcp_abort), else ERR_OK.
 */
static err_t conn_close(struct echo_conn *c)
{
    err_t rc = ip_tcp_release(c->pcb, false);

    conn_free(c);
    return rc;
}

/* Drop the head pbuf of the pending chain, keeping the rest. */
static void pending_pop(struct echo_conn *c)
{
    struct pbuf *p = c->pending;

    c->pending = p->next;
    if (c->pending)
        pbuf_ref(c->pending);
    pbuf_free(p);
}

/*
 * Move as much pending data as the send buffer takes; acknowledge it to the
 * peer's window.  Closes the connection when the peer closed and all is
 * sent.  Returns ERR_ABRT if the connection was aborted, ERR_OK otherwise
 * (also when it was closed: *closed says so).
 */
static err_t conn_push(struct echo_conn *c, bool *closed)
{
    u16_t moved = 0;

    *closed = false;
    while (c->pending) {
        struct pbuf *p = c->pending;
        u16_t room = tcp_sndbuf(c->pcb);
        u16_t n = p->len < room ? p->len : room;

        if (p->len == 0) { /* lwIP may leave empty pbufs in a chain */
            pending_pop(c);
            continue;
        }
        if (n == 0 || tcp_write(c->pcb, p->payload, n, TCP_WRITE_FLAG_COPY) != ERR_OK)
            break;
        moved = (u16_t)(moved + n);
        if (n == p->len) {
            pending_pop(c);
        } else {
            pbuf_remove_header(p, n);
            break;
        }
    }
    if (moved) {
        tcp_recved(c->pcb, moved);
        c->svc->stats.tcp_bytes += moved;
        tcp_output(c->pcb);
    }
    if (!c->pending && c->peer_closed) {
        *closed = true;
        return conn_close(c);
    }
    return ERR_OK;
}

/* tcp_recv: queue what came, or note the FIN (p == NULL). */
static err_t conn_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct echo_conn *c = arg;
    bool closed;
    (void)pcb;

    if (err != ERR_OK) {
        if (p)
            pbuf_free(p);
        return ERR_OK; /* freed: lwIP must not keep it as refused data */
    }
    if (!p)
        c->peer_closed = true;
    else if (c->pending)
        pbuf_cat(c->pending, p);
    else
        c->pending = p;
    return conn_push(c, &closed);
}

/* tcp_sent: room again in the send buffer. */
static err_t conn_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    bool closed;
    (void)pcb;
    (void)len;
    return conn_push(arg, &closed);
}

/* tcp_poll: retry a write that failed for memory (no sent callback would come). */
static err_t conn_poll(void *arg, struct tcp_pcb *pcb)
{
    bool closed;
    (void)pcb;
    return arg ? conn_push(arg, &closed) : ERR_OK;
}

/* tcp_err: the pcb is already freed by lwIP. */
static void conn_err(void *arg, err_t err)
{
    (void)err;
    if (arg)
        conn_free(arg);
}

/* tcp_accept: one more connection, if the limit allows. */
static err_t echo_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct ip_echo *e = arg;
    struct echo_conn *c;

    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    if (e->nconns >= e->max_conns || !(c = calloc(1, sizeof(*c)))) {
        e->stats.refused++;
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    c->svc = e;
    c->pcb = pcb;
    c->next = e->conns;
    e->conns = c;
    e->nconns++;
    e->stats.tcp_connections++;
    tcp_arg(pcb, c);
    tcp_recv(pcb, conn_recv);
    tcp_sent(pcb, conn_sent);
    tcp_err(pcb, conn_err);
    tcp_poll(pcb, conn_poll, 2); /* every second */
    return ERR_OK;
}

/*
 * Whether a UDP echo may go back to addr:port: never to another echo
 * service (two would loop), port 0, or a multicast, broadcast or
 * unspecified source (IPv4 or IPv6).
 */
static bool udp_source_ok(const ip_addr_t *addr, u16_t port)
{
    const ip4_addr_t *a;

    if (port == IP_ECHO_PORT || port == 0)
        return false;
    if (IP_IS_V6(addr))
        return !ip6_addr_ismulticast(ip_2_ip6(addr)) && !ip6_addr_isany(ip_2_ip6(addr));
    if (!IP_IS_V4(addr))
        return false;
    a = ip_2_ip4(addr);
    if (ip4_addr_ismulticast(a) || ip4_addr_isany(a))
        return false;
    return !netif_default || !ip4_addr_isbroadcast(a, netif_default);
}

/* udp_recv: send the datagram back where it came from. */
static void echo_udp(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                     u16_t port)
{
    struct ip_echo *e = arg;

    if (udp_source_ok(addr, port)) {
        e->stats.udp_datagrams++;
        udp_sendto(pcb, p, addr, port);
    }
    pbuf_free(p);
}

/* Open both listeners under the core lock. */
struct ip_echo *ip_echo_start(uint16_t port, unsigned max_conns)
{
    struct ip_echo *e = calloc(1, sizeof(*e));
    bool ok;

    if (!e)
        return NULL;
    e->max_conns = max_conns ? max_conns : 16;
    if (!port)
        port = IP_ECHO_PORT;
    LOCK_TCPIP_CORE();
    ok = ip_listen_open(&e->l, port, 8, e, echo_accept, echo_udp);
    UNLOCK_TCPIP_CORE();
    if (!ok) {
        free(e);
        return NULL;
    }
    return e;
}

void ip_echo_stop(struct ip_echo *e)
{
    if (!e)
        return;
    LOCK_TCPIP_CORE();
    while (e->conns) {
        struct echo_conn *c = e->conns;

        ip_tcp_release(c->pcb, true);
        conn_free(c);
    }
    ip_listen_close(&e->l);
    UNLOCK_TCPIP_CORE();
    free(e);
}

struct ip_echo_stats ip_echo_stats(struct ip_echo *e)
{
    struct ip_echo_stats s;

    LOCK_TCPIP_CORE();
    s = e->stats;
    UNLOCK_TCPIP_CORE();
    return s;
}

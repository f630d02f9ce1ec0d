/*
 * pz_tcp.c - TCP connections served on the agent loop (see pz_tcp.h).
 *
 * Ownership: a connection's pcb is touched only under lwIP's core lock
 * (lwIP's callbacks run with it held; the loop takes it).  Its ring and
 * flags are guarded by the port's mutex.  lwIP may free a pcb on its own
 * (reset, timeout): the err callback then clears conn->pcb and marks the
 * connection gone; the struct itself is freed only by the loop.
 */
#include "pz_tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <lwip/pbuf.h>
#include <lwip/tcp.h>
#include <lwip/tcpip.h>

/* Receive ring per connection: twice the largest (scaled) window lwIP offers. */
#define PZ_TCP_RING (2 * 0x20000)

struct pz_tcp_conn {
    struct pz_tcp_port *port;
    struct tcp_pcb *pcb; /* NULL once lwIP freed it or we closed it */
    uint32_t peer_addr;  /* IPv4 peers (host order); 0 for IPv6 */
    ip_addr_t peer_ip;   /* the peer's address, either family */
    char peer_text[48];  /* the peer's address as text, either family */
    uint16_t peer_port;
    uint8_t *ring;
    size_t head, count; /* ring content */
    bool peer_closed;   /* FIN or reset seen */
    bool ack_owed;      /* data arrived since the last pz_tcp_ack */
    bool accepted;      /* taken by pz_tcp_accept */
    bool freed_by_loop; /* the loop is done with it (only lwIP's refs remain: none) */
    struct pz_tcp_conn *next;
};

struct pz_tcp_port {
    struct tcp_pcb *listener;
    int efd;
    pthread_mutex_t lock; /* guards the connection list, rings and flags */
    struct pz_tcp_conn *conns;
    unsigned nconns, max_conns;
};

/* Wake the loop (the port's lock held or not: eventfd writes are atomic). */
static void pz_tcp_wake(struct pz_tcp_port *l)
{
    uint64_t one = 1;

    if (write(l->efd, &one, sizeof(one)) < 0)
        (void)0; /* cannot overflow */
}

/* lwIP: data (or a FIN: p == NULL) arrived. */
static err_t pz_tcp_on_recv(void *arg, struct tcp_pcb *pcb, struct pbuf *p, err_t err)
{
    struct pz_tcp_conn *c = arg;
    struct pz_tcp_port *l = c->port;
    size_t room, tail, first;

    (void)pcb;
    (void)err;
    pthread_mutex_lock(&l->lock);
    if (!p) {
        c->peer_closed = true;
        pthread_mutex_unlock(&l->lock);
        pz_tcp_wake(l);
        return ERR_OK;
    }
    room = PZ_TCP_RING - c->count;
    if (p->tot_len > room) {
        pthread_mutex_unlock(&l->lock);
        return ERR_MEM; /* lwIP keeps it and offers it again */
    }
    tail = (c->head + c->count) % PZ_TCP_RING;
    first = PZ_TCP_RING - tail < p->tot_len ? PZ_TCP_RING - tail : p->tot_len;
    pbuf_copy_partial(p, c->ring + tail, (u16_t)first, 0);
    if (first < p->tot_len)
        pbuf_copy_partial(p, c->ring, (u16_t)(p->tot_len - first), (u16_t)first);
    c->count += p->tot_len;
    c->ack_owed = true;
    pthread_mutex_unlock(&l->lock);
    pbuf_free(p);
    pz_tcp_wake(l);
    return ERR_OK;
}

/* lwIP: the peer acknowledged data (send space opened). */
static err_t pz_tcp_on_sent(void *arg, struct tcp_pcb *pcb, u16_t len)
{
    struct pz_tcp_conn *c = arg;

    (void)pcb;
    (void)len;
    pz_tcp_wake(c->port);
    return ERR_OK;
}

/* lwIP: the pcb is gone (reset, timeout, out of memory). */
static void pz_tcp_on_err(void *arg, err_t err)
{
    struct pz_tcp_conn *c = arg;
    struct pz_tcp_port *l = c->port;

    (void)err;
    pthread_mutex_lock(&l->lock);
    c->pcb = NULL;
    c->peer_closed = true;
    pthread_mutex_unlock(&l->lock);
    pz_tcp_wake(l);
}

/* Whether a connection of the port (the port's lock held) comes from pcb's remote address. */
static bool pz_tcp_peer_present(const struct pz_tcp_port *l, const struct tcp_pcb *pcb)
{
    for (const struct pz_tcp_conn *c = l->conns; c; c = c->next)
        if (ip_addr_cmp(&c->peer_ip, &pcb->remote_ip))
            return true;
    return false;
}

/*
 * Whether the port takes one more connection from pcb's address (the lock
 * held): below max_conns, any; at or above it, up to twice max_conns, one
 * from an address that holds none yet.  So a flood of connections from one
 * address, which keeps the port full, cannot keep another address out at
 * the door: it reaches the service, which may then make room for it (SSH
 * drops a connection of the flooding address that has not logged in).
 */
static bool pz_tcp_room_for(const struct pz_tcp_port *l, const struct tcp_pcb *pcb)
{
    if (l->nconns < l->max_conns)
        return true;
    return l->nconns < 2 * l->max_conns && !pz_tcp_peer_present(l, pcb);
}

/* lwIP: a new connection on the listener. */
static err_t pz_tcp_on_accept(void *arg, struct tcp_pcb *pcb, err_t err)
{
    struct pz_tcp_port *l = arg;
    struct pz_tcp_conn *c;

    if (err != ERR_OK || !pcb)
        return ERR_VAL;
    pthread_mutex_lock(&l->lock);
    c = pz_tcp_room_for(l, pcb) ? calloc(1, sizeof(*c)) : NULL;
    if (c && !(c->ring = malloc(PZ_TCP_RING))) {
        free(c);
        c = NULL;
    }
    if (!c) {
        pthread_mutex_unlock(&l->lock);
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    c->port = l;
    c->pcb = pcb;
    ip_addr_copy(c->peer_ip, pcb->remote_ip);
    if (IP_IS_V4(&pcb->remote_ip))
        c->peer_addr = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(&pcb->remote_ip)));
    if (IP_IS_V6(&pcb->remote_ip)) /* RFC 5952 text (lwIP's ntoa writes upper case) */
        inet_ntop(AF_INET6, ip_2_ip6(&pcb->remote_ip)->addr, c->peer_text, sizeof(c->peer_text));
    else
        ipaddr_ntoa_r(&pcb->remote_ip, c->peer_text, sizeof(c->peer_text));
    c->peer_port = pcb->remote_port;
    c->next = l->conns;
    l->conns = c;
    l->nconns++;
    pthread_mutex_unlock(&l->lock);
    tcp_arg(pcb, c);
    tcp_recv(pcb, pz_tcp_on_recv);
    tcp_sent(pcb, pz_tcp_on_sent);
    tcp_err(pcb, pz_tcp_on_err);
    tcp_nagle_disable(pcb); /* interactive sessions: small writes leave at once */
    pz_tcp_wake(l);
    return ERR_OK;
}

struct pz_tcp_port *pz_tcp_listen(uint16_t port, unsigned max_conns, char *err, size_t errlen)
{
    struct pz_tcp_port *l = calloc(1, sizeof(*l));
    struct tcp_pcb *pcb;
    err_t rc = ERR_MEM;

    if (!l) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    l->max_conns = max_conns ? max_conns : 4;
    pthread_mutex_init(&l->lock, NULL);
    l->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (l->efd < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        free(l);
        return NULL;
    }
    LOCK_TCPIP_CORE();
    pcb = tcp_new();
    if (pcb && (rc = tcp_bind(pcb, IP_ANY_TYPE, port)) == ERR_OK) { /* IPv4 and IPv6 */
        l->listener = tcp_listen_with_backlog(pcb, (u8_t)(l->max_conns > 255 ? 255 : l->max_conns));
        if (l->listener) {
            tcp_arg(l->listener, l);
            tcp_accept(l->listener, pz_tcp_on_accept);
        } else {
            rc = ERR_MEM;
        }
    }
    if (pcb && rc != ERR_OK)
        tcp_close(pcb);
    UNLOCK_TCPIP_CORE();
    if (rc != ERR_OK) {
        snprintf(err, errlen, "cannot listen on TCP port %u (lwIP error %d)", port, rc);
        close(l->efd);
        free(l);
        return NULL;
    }
    return l;
}

int pz_tcp_port_fd(const struct pz_tcp_port *l)
{
    return l->efd;
}

void pz_tcp_port_clear(struct pz_tcp_port *l)
{
    uint64_t n;

    if (read(l->efd, &n, sizeof(n)) < 0)
        (void)0; /* already clear */
}

struct pz_tcp_conn *pz_tcp_accept(struct pz_tcp_port *l)
{
    struct pz_tcp_conn *c;

    pthread_mutex_lock(&l->lock);
    for (c = l->conns; c && c->accepted; c = c->next)
        ;
    if (c)
        c->accepted = true;
    pthread_mutex_unlock(&l->lock);
    return c;
}

void pz_tcp_peer(const struct pz_tcp_conn *c, uint32_t *addr, uint16_t *port)
{
    *addr = c->peer_addr;
    *port = c->peer_port;
}

const char *pz_tcp_peer_text(const struct pz_tcp_conn *c)
{
    return c->peer_text;
}

int pz_tcp_read(struct pz_tcp_conn *c, void *buf, size_t cap)
{
    struct pz_tcp_port *l = c->port;
    size_t n, first;
    bool closed;

    pthread_mutex_lock(&l->lock);
    n = c->count < cap ? c->count : cap;
    first = PZ_TCP_RING - c->head < n ? PZ_TCP_RING - c->head : n;
    memcpy(buf, c->ring + c->head, first);
    memcpy((uint8_t *)buf + first, c->ring, n - first);
    c->head = (c->head + n) % PZ_TCP_RING;
    c->count -= n;
    closed = c->peer_closed && !c->count;
    pthread_mutex_unlock(&l->lock);
    if (n) {
        LOCK_TCPIP_CORE();
        if (c->pcb)
            tcp_recved(c->pcb, (u16_t)n); /* open the window by what the service took */
        UNLOCK_TCPIP_CORE();
        return (int)n;
    }
    return closed ? -1 : 0;
}

size_t pz_tcp_send_space(struct pz_tcp_conn *c)
{
    size_t n = 0;

    LOCK_TCPIP_CORE();
    if (c->pcb)
        n = tcp_sndbuf(c->pcb);
    UNLOCK_TCPIP_CORE();
    return n;
}

int pz_tcp_write(struct pz_tcp_conn *c, const void *buf, size_t len)
{
    int taken = -1;

    LOCK_TCPIP_CORE();
    if (c->pcb) {
        size_t n = tcp_sndbuf(c->pcb);

        if (n > len)
            n = len;
        if (n > 0xFFFF)
            n = 0xFFFF;
        taken = 0;
        if (n && tcp_write(c->pcb, buf, (u16_t)n, TCP_WRITE_FLAG_COPY) == ERR_OK) {
            taken = (int)n;
            tcp_output(c->pcb);
        }
    }
    UNLOCK_TCPIP_CORE();
    return taken;
}

bool pz_tcp_drained(struct pz_tcp_conn *c)
{
    bool drained = true;

    LOCK_TCPIP_CORE();
    if (c->pcb)
        drained = !c->pcb->unacked && !c->pcb->unsent;
    UNLOCK_TCPIP_CORE();
    return drained;
}

/*
 * lwIP delays the ACK of a lone segment until its fast timer, which ticks
 * every 250 ms (TCP_TMR_INTERVAL); a peer with Nagle on (OpenSSH during the
 * key exchange) holds its next packet until then, and Linux's 200 ms minimum
 * retransmission timeout fires first.  Here, after the service answered
 * what it read, an ACK still delayed goes out at once: a reply written
 * meanwhile carried it already (tcp_output clears TF_ACK_DELAY), so a pure
 * ACK leaves only when the service had nothing to say.
 */
void pz_tcp_ack(struct pz_tcp_conn *c)
{
    struct pz_tcp_port *l = c->port;
    bool owed;

    pthread_mutex_lock(&l->lock);
    owed = c->ack_owed;
    c->ack_owed = false;
    pthread_mutex_unlock(&l->lock);
    if (!owed)
        return;
    LOCK_TCPIP_CORE();
    if (c->pcb && tcp_is_flag_set(c->pcb, TF_ACK_DELAY)) {
        tcp_set_flags(c->pcb, TF_ACK_NOW); /* lwIP's tcp_ack_now(), a private macro */
        tcp_output(c->pcb);
    }
    UNLOCK_TCPIP_CORE();
}

/* Unlink c from its port and free it (the port's lock held by nobody). */
static void pz_tcp_free(struct pz_tcp_conn *c)
{
    struct pz_tcp_port *l = c->port;
    struct pz_tcp_conn **pp;

    pthread_mutex_lock(&l->lock);
    for (pp = &l->conns; *pp && *pp != c; pp = &(*pp)->next)
        ;
    if (*pp) {
        *pp = c->next;
        l->nconns--;
    }
    pthread_mutex_unlock(&l->lock);
    free(c->ring);
    free(c);
}

/* Detach lwIP's callbacks from c's pcb (core lock held); returns the pcb or NULL. */
static struct tcp_pcb *pz_tcp_detach(struct pz_tcp_conn *c)
{
    struct tcp_pcb *pcb = c->pcb;

    if (pcb) {
        tcp_arg(pcb, NULL);
        tcp_recv(pcb, NULL);
        tcp_sent(pcb, NULL);
        tcp_err(pcb, NULL);
        c->pcb = NULL;
    }
    return pcb;
}

void pz_tcp_close(struct pz_tcp_conn *c)
{
    struct tcp_pcb *pcb;

    if (!c)
        return;
    LOCK_TCPIP_CORE();
    pcb = pz_tcp_detach(c);
    if (pcb && tcp_close(pcb) != ERR_OK)
        tcp_abort(pcb);
    UNLOCK_TCPIP_CORE();
    pz_tcp_free(c);
}

void pz_tcp_abort(struct pz_tcp_conn *c)
{
    struct tcp_pcb *pcb;

    if (!c)
        return;
    LOCK_TCPIP_CORE();
    pcb = pz_tcp_detach(c);
    if (pcb)
        tcp_abort(pcb);
    UNLOCK_TCPIP_CORE();
    pz_tcp_free(c);
}

void pz_tcp_unlisten(struct pz_tcp_port *l)
{
    if (!l)
        return;
    LOCK_TCPIP_CORE();
    if (l->listener)
        tcp_close(l->listener);
    UNLOCK_TCPIP_CORE();
    while (l->conns)
        pz_tcp_abort(l->conns);
    close(l->efd);
    pthread_mutex_destroy(&l->lock);
    free(l);
}

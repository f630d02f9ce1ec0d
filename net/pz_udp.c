/*
 * pz_udp.c - a UDP port served on the agent loop (see pz_udp.h).
 */
#include "pz_udp.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <lwip/pbuf.h>
#include <lwip/tcpip.h>
#include <lwip/udp.h>

/* One datagram waiting for the agent loop. */
struct pz_udp_msg {
    struct pz_udp_msg *next;
    struct pz_udp_addr from;
    size_t len;
    uint8_t data[];
};

struct pz_udp {
    struct udp_pcb *pcb;
    int efd;
    pthread_mutex_t lock; /* guards the queue and the counters */
    struct pz_udp_msg *head, *tail;
    unsigned queued, queue_max;
    bool signalled; /* the eventfd was written and not yet read */
    bool hooked;    /* the owner takes datagrams after each pass of the stack */
    pthread_t owner;
    struct pz_udp_stats stats;
};

/* The peer of lwIP's address and port, with its family (and the zone of a scoped IPv6 one). */
static struct pz_udp_addr pz_udp_peer(const ip_addr_t *addr, u16_t port)
{
    struct pz_udp_addr a = {.port = port};

    if (IP_IS_V6(addr)) {
        a.ipv6 = true;
        memcpy(a.v6, ip_2_ip6(addr)->addr, sizeof(a.v6));
        a.zone = ip6_addr_zone(ip_2_ip6(addr));
    } else {
        a.v4 = lwip_ntohl(ip4_addr_get_u32(ip_2_ip4(addr)));
    }
    return a;
}

/* lwIP's address of a peer (zone kept: an answer leaves where its request came in). */
static ip_addr_t pz_udp_lwip_addr(const struct pz_udp_addr *a)
{
    ip_addr_t ip;

    memset(&ip, 0, sizeof(ip));
    if (a->ipv6) {
        IP_SET_TYPE_VAL(ip, IPADDR_TYPE_V6);
        memcpy(ip_2_ip6(&ip)->addr, a->v6, sizeof(a->v6));
        ip6_addr_set_zone(ip_2_ip6(&ip), a->zone);
    } else {
        ip_addr_set_ip4_u32_val(ip, lwip_htonl(a->v4));
    }
    return ip;
}

/* lwIP's receive callback (core lock held): queue one datagram for the loop (or count it dropped).
 */
static void pz_udp_input(void *arg, struct udp_pcb *pcb, struct pbuf *p, const ip_addr_t *addr,
                         u16_t port)
{
    struct pz_udp *u = arg;
    size_t len = p->tot_len > PZ_UDP_MAX ? PZ_UDP_MAX : p->tot_len;
    struct pz_udp_msg *m = malloc(sizeof(*m) + len);
    uint64_t one = 1;

    (void)pcb;
    pthread_mutex_lock(&u->lock);
    if (!m || u->queued >= u->queue_max) {
        u->stats.rx_dropped++;
        pthread_mutex_unlock(&u->lock);
        free(m);
        pbuf_free(p);
        return;
    }
    m->next = NULL;
    m->from = pz_udp_peer(addr, port);
    m->len = pbuf_copy_partial(p, m->data, (u16_t)len, 0);
    if (u->tail)
        u->tail->next = m;
    else
        u->head = m;
    u->tail = m;
    u->queued++;
    u->stats.rx++;
    /*
     * One write until the loop empties the queue: a system call less per
     * datagram; none when the owner's loop fed the stack and its input hook
     * takes the queue next (pz_udp_hooked): no wake-up on the request path.
     */
    if (!u->signalled && !(u->hooked && pthread_equal(pthread_self(), u->owner)) &&
        write(u->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
        u->signalled = true;
    pthread_mutex_unlock(&u->lock);
    pbuf_free(p);
}

struct pz_udp *pz_udp_open(uint16_t port, unsigned queue_max, char *err, size_t errlen)
{
    struct pz_udp *u = calloc(1, sizeof(*u));
    err_t rc = ERR_MEM;

    if (!u) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    u->queue_max = queue_max ? queue_max : 64;
    u->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_init(&u->lock, NULL);
    if (u->efd < 0) {
        snprintf(err, errlen, "eventfd: %s", strerror(errno));
        pz_udp_close(u);
        return NULL;
    }
    LOCK_TCPIP_CORE();
    u->pcb = udp_new_ip_type(IPADDR_TYPE_ANY);
    if (u->pcb) {
        rc = udp_bind(u->pcb, IP_ANY_TYPE, port); /* IPv4 and IPv6 */
        if (rc == ERR_OK)
            udp_recv(u->pcb, pz_udp_input, u);
    }
    UNLOCK_TCPIP_CORE();
    if (rc != ERR_OK) {
        snprintf(err, errlen, "cannot bind UDP port %u (lwIP error %d)", port, rc);
        pz_udp_close(u);
        return NULL;
    }
    return u;
}

void pz_udp_hooked(struct pz_udp *u)
{
    pthread_mutex_lock(&u->lock);
    u->owner = pthread_self();
    u->hooked = true;
    pthread_mutex_unlock(&u->lock);
}

int pz_udp_fd(const struct pz_udp *u)
{
    return u->efd;
}

bool pz_udp_pending(struct pz_udp *u)
{
    bool waiting;

    pthread_mutex_lock(&u->lock);
    waiting = u->head != NULL;
    pthread_mutex_unlock(&u->lock);
    return waiting;
}

int pz_udp_recv(struct pz_udp *u, struct pz_udp_addr *from, void *buf, size_t cap)
{
    struct pz_udp_msg *m;
    uint64_t n;
    size_t len;

    pthread_mutex_lock(&u->lock);
    m = u->head;
    if (m) {
        u->head = m->next;
        if (!u->head)
            u->tail = NULL;
        u->queued--;
    }
    if (!u->head && u->signalled) {
        if (read(u->efd, &n, sizeof(n)) < 0)
            (void)0; /* already clear */
        u->signalled = false;
    }
    pthread_mutex_unlock(&u->lock);
    if (!m)
        return -EAGAIN;
    len = m->len < cap ? m->len : cap;
    memcpy(buf, m->data, len);
    *from = m->from;
    free(m);
    return (int)len;
}

int pz_udp_send(struct pz_udp *u, const struct pz_udp_addr *to, const void *buf, size_t len)
{
    struct pbuf *p;
    ip_addr_t dst;
    err_t rc;

    if (len > PZ_UDP_MAX)
        return -EMSGSIZE;
    p = pbuf_alloc(PBUF_TRANSPORT, (u16_t)len, PBUF_RAM);
    if (!p) {
        pthread_mutex_lock(&u->lock);
        u->stats.tx_errors++;
        pthread_mutex_unlock(&u->lock);
        return -ENOMEM;
    }
    memcpy(p->payload, buf, len);
    dst = pz_udp_lwip_addr(to);
    LOCK_TCPIP_CORE();
    rc = udp_sendto(u->pcb, p, &dst, to->port);
    UNLOCK_TCPIP_CORE();
    pbuf_free(p);
    pthread_mutex_lock(&u->lock);
    if (rc == ERR_OK)
        u->stats.tx++;
    else
        u->stats.tx_errors++;
    pthread_mutex_unlock(&u->lock);
    return rc == ERR_OK ? 0 : -EIO;
}

struct pz_udp_stats pz_udp_stats(struct pz_udp *u)
{
    struct pz_udp_stats st;

    pthread_mutex_lock(&u->lock);
    st = u->stats;
    pthread_mutex_unlock(&u->lock);
    return st;
}

void pz_udp_close(struct pz_udp *u)
{
    if (!u)
        return;
    if (u->pcb) {
        LOCK_TCPIP_CORE();
        udp_remove(u->pcb);
        UNLOCK_TCPIP_CORE();
    }
    while (u->head) {
        struct pz_udp_msg *m = u->head;

        u->head = m->next;
        free(m);
    }
    if (u->efd >= 0)
        close(u->efd);
    pthread_mutex_destroy(&u->lock);
    free(u);
}

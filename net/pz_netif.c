/*
 * pz_netif.c - the lwIP netif driver over an IPoIB endpoint (see pz_netif.h).
 *
 * Debian's lwIP: NO_SYS=0 with core locking.  The netif carries no link
 * layer of its own (neither NETIF_FLAG_ETHARP nor NETIF_FLAG_ETHERNET), so
 * received packets go straight to ip_input, and output receives each
 * packet's final destination: next-hop choice and IPoIB ARP are the
 * endpoint's, and so are IPv6 neighbour discovery and the IPv6 groups
 * (output_ip6 hands every IPv6 packet over as it is; pz_netif6.c).
 *
 * With core locking any thread holding the lock may run the stack (lwIP's
 * rawapi.txt, "multithreading"): the owner's loop feeds ip_input under
 * LOCK_TCPIP_CORE itself, so the callbacks of what it received, and the
 * answers they send, run on the loop's thread, and output on that thread
 * goes to the owner's sender at once.  Only what lwIP's own thread sends
 * (timers: TCP retransmits, delayed ACKs; loopback) crosses by the queue.
 */
#include "pz_netif.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <lwip/ip.h>
#include <lwip/ip4_addr.h>
#include <lwip/prot/ip.h>
#include <lwip/netif.h>
#include <lwip/pbuf.h>
#include <lwip/tcpip.h>

#include "ipoib.h"
#include "ipoib6.h"
#include "pz_netif6.h"

#define NETIF_MTU_BEFORE_JOIN 2044
/*
 * Packets one drain sends at most: the agent loop then looks at its other
 * descriptors (MADs wait behind at most this many sends, not a full queue
 * of 1024) and comes back for the rest.
 */
#define PZ_NETIF_DRAIN_BUDGET 64
/* MLD group changes waiting for the agent loop, at most (more are dropped and counted). */
#define PZ_NETIF_MLD_EVENTS 32
/* lwIP's thread's nice value: below the agent loop's (0). */
#define PZ_NETIF_TCPIP_NICE 10

/* One packet on its way from lwIP to the agent loop. */
struct queued_pkt {
    struct queued_pkt *next;
    size_t len;
    uint8_t data[];
};

/* A change of MLD membership lwIP made (core lock held, either thread). */
struct mld_event {
    uint8_t group[16];
    bool join;
};

struct pz_netif {
    struct netif netif;
    pthread_t owner;       /* the thread that created it: the owner's loop */
    pz_netif_send_fn send; /* the owner's sender, or NULL: everything queues */
    void *send_ctx;
    uint8_t *flat; /* owner's thread: a chained packet made contiguous */
    int event_fd;
    pthread_mutex_t lock; /* guards the queue and the tx counters */
    struct queued_pkt *head, *tail;
    unsigned queued, queue_max;
    struct pz_netif_stats stats;
    struct pz_netif_config cfg;
    struct mld_event mld[PZ_NETIF_MLD_EVENTS]; /* for the owner's drain */
    unsigned n_mld;
};

static pthread_once_t tcpip_once = PTHREAD_ONCE_INIT;

/*
 * In lwIP's thread at its start: lower its scheduling priority (nice), so
 * that on a busy CPU the agent loop, which serves the MADs, runs first
 * and a full-rate iperf test in lwIP does not delay the SMA's answers
 * (bench/bench_ipoib.sh measures it).  A failure leaves the default.
 */
static void lower_tcpip_priority(void *arg)
{
    (void)arg;
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), PZ_NETIF_TCPIP_NICE) != 0)
        (void)0; /* not allowed: the same priority as the loop, as before */
}

/* Start lwIP's tcpip thread (once per process). */
static void start_tcpip(void)
{
    tcpip_init(lower_tcpip_priority, NULL);
}

/* Wake the agent loop. */
static void signal_loop(struct pz_netif *n)
{
    uint64_t one = 1;
    if (write(n->event_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
        perror("pz_netif: eventfd");
}

/* The first `budget` packets of the queue (defined below). */
static struct queued_pkt *take_queue(struct pz_netif *n, unsigned budget);

/* Owner's thread: hand what lwIP's thread queued to the sender, in order. */
static void send_queued(struct pz_netif *n)
{
    struct queued_pkt *q;
    bool waiting;

    pthread_mutex_lock(&n->lock);
    waiting = n->head != NULL;
    pthread_mutex_unlock(&n->lock);
    if (!waiting)
        return;
    q = take_queue(n, UINT_MAX); /* all of them: they were output before this one */
    while (q) {
        struct queued_pkt *next = q->next;
        n->send(n->send_ctx, q->data, q->len);
        free(q);
        q = next;
    }
}

/*
 * Owner's thread, core lock held: send the packet through the owner's
 * sender at once, after anything lwIP's thread queued before it.  Returns
 * ERR_OK (the endpoint counts its own drops).
 */
static err_t output_direct(struct pz_netif *n, struct pbuf *p)
{
    const void *pkt = p->payload;

    send_queued(n);
    if (p->len != p->tot_len) {
        /* LWIP_NETIF_TX_SINGLE_PBUF makes this rare: flatten into our buffer. */
        pbuf_copy_partial(p, n->flat, p->tot_len, 0);
        pkt = n->flat;
    }
    n->send(n->send_ctx, pkt, p->tot_len);
    pthread_mutex_lock(&n->lock);
    n->stats.tx_direct++;
    pthread_mutex_unlock(&n->lock);
    return ERR_OK;
}

/*
 * netif->output and output_ip6, in whichever thread holds the core lock:
 * the owner's thread sends at once (output_direct); lwIP's thread copies
 * the packet (a pbuf chain) into the queue.  The endpoint reads the
 * destination from the header.  Returns ERR_OK, or ERR_MEM when the queue
 * is full (dropped).
 */
static err_t pz_netif_output_any(struct netif *netif, struct pbuf *p)
{
    struct pz_netif *n = netif->state;
    struct queued_pkt *q;
    bool wake;

    if (n->send && pthread_equal(pthread_self(), n->owner) && p->tot_len <= PZ_NETIF_PKT_MAX)
        return output_direct(n, p);
    pthread_mutex_lock(&n->lock);
    if (n->queued >= n->queue_max) {
        n->stats.tx_dropped++;
        pthread_mutex_unlock(&n->lock);
        return ERR_MEM;
    }
    pthread_mutex_unlock(&n->lock);
    q = malloc(sizeof(*q) + p->tot_len);
    if (!q) {
        pthread_mutex_lock(&n->lock);
        n->stats.tx_dropped++;
        pthread_mutex_unlock(&n->lock);
        return ERR_MEM;
    }
    q->next = NULL;
    q->len = pbuf_copy_partial(p, q->data, p->tot_len, 0);
    pthread_mutex_lock(&n->lock);
    wake = n->head == NULL;
    if (n->tail)
        n->tail->next = q;
    else
        n->head = q;
    n->tail = q;
    n->queued++;
    n->stats.tx_queued++;
    pthread_mutex_unlock(&n->lock);
    if (wake)
        signal_loop(n);
    return ERR_OK;
}

/*
 * netif->mld_mac_filter (core lock held, lwIP's thread or the owner's): a
 * group's first join or last leave, kept for the owner's drain, which asks
 * the endpoint to join or leave it through the SA.  Returns ERR_OK, or
 * ERR_MEM when too many wait (counted in mld_dropped).
 */
static err_t pz_netif_mld_filter(struct netif *netif, const ip6_addr_t *group,
                                 enum netif_mac_filter_action action)
{
    struct pz_netif *n = netif->state;

    pthread_mutex_lock(&n->lock);
    if (n->n_mld >= PZ_NETIF_MLD_EVENTS) {
        n->stats.mld_dropped++;
        pthread_mutex_unlock(&n->lock);
        return ERR_MEM;
    }
    memcpy(n->mld[n->n_mld].group, group->addr, 16);
    n->mld[n->n_mld].join = action == NETIF_ADD_MAC_FILTER;
    n->n_mld++;
    pthread_mutex_unlock(&n->lock);
    signal_loop(n);
    return ERR_OK;
}

/* Owner: hand MLD's group changes to the endpoint, in order. */
static void pz_netif_apply_mld(struct pz_netif *n, struct ipoib *ep, uint64_t now)
{
    struct mld_event ev[PZ_NETIF_MLD_EVENTS];
    unsigned count;

    pthread_mutex_lock(&n->lock);
    count = n->n_mld;
    memcpy(ev, n->mld, count * sizeof(ev[0]));
    n->n_mld = 0;
    pthread_mutex_unlock(&n->lock);
    for (unsigned i = 0; i < count; i++) {
        if (ev[i].join)
            ipoib6_join(ep, ev[i].group, now);
        else
            ipoib6_leave(ep, ev[i].group, now);
    }
}

/* netif->output: an IPv4 packet. */
static err_t pz_netif_output_ip4(struct netif *netif, struct pbuf *p, const ip4_addr_t *dest)
{
    (void)dest;
    return pz_netif_output_any(netif, p);
}

/* netif->output_ip6: an IPv6 packet, its next hop the endpoint's choice. */
static err_t pz_netif_output_ip6(struct netif *netif, struct pbuf *p, const ip6_addr_t *dest)
{
    (void)dest;
    return pz_netif_output_any(netif, p);
}

/* netif init callback: name, MTU, flags, output. */
static err_t pz_netif_init_ipoib(struct netif *netif)
{
    netif->name[0] = 'i';
    netif->name[1] = 'b';
    netif->mtu = NETIF_MTU_BEFORE_JOIN;
    netif->flags = NETIF_FLAG_BROADCAST;
    netif->hwaddr_len = 0;
    netif->output = pz_netif_output_ip4;
    netif->output_ip6 = pz_netif_output_ip6;
    netif_set_mld_mac_filter(netif, pz_netif_mld_filter); /* used with NETIF_FLAG_MLD6 (IPv6 on) */
    return ERR_OK;
}

/* lwIP address from a host-order IPv4 address. */
static ip4_addr_t pz_netif_ip4_addr(uint32_t a)
{
    ip4_addr_t ip;
    ip4_addr_set_u32(&ip, lwip_htonl(a));
    return ip;
}

struct pz_netif *pz_netif_create(const struct pz_netif_config *cfg, char *err, size_t errlen)
{
    struct pz_netif *n = calloc(1, sizeof(*n));
    ip4_addr_t ip, mask, gw;
    struct netif *added;

    if (!n) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    n->cfg = *cfg;
    n->queue_max = cfg->queue_max ? cfg->queue_max : 1024;
    n->owner = pthread_self();
    n->flat = malloc(PZ_NETIF_PKT_MAX);
    n->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (n->event_fd < 0 || !n->flat) {
        snprintf(err, errlen, "eventfd: %s", n->flat ? strerror(errno) : "out of memory");
        if (n->event_fd >= 0)
            close(n->event_fd);
        free(n->flat);
        free(n);
        return NULL;
    }
    pthread_mutex_init(&n->lock, NULL);
    pthread_once(&tcpip_once, start_tcpip);
    ip = pz_netif_ip4_addr(cfg->addr);
    mask = pz_netif_ip4_addr(cfg->netmask);
    gw = pz_netif_ip4_addr(cfg->gateway);
    LOCK_TCPIP_CORE();
    added = netif_add(&n->netif, &ip, &mask, &gw, n, pz_netif_init_ipoib, tcpip_input);
    if (added && cfg->ip6 && pz_netif6_setup(&n->netif, cfg)) {
        netif_remove(&n->netif);
        added = NULL;
    }
    if (added) {
        netif_set_default(&n->netif);
        netif_set_up(&n->netif);
    }
    UNLOCK_TCPIP_CORE();
    if (!added) {
        snprintf(err, errlen, "lwIP refused the interface%s",
                 cfg->ip6 ? " or its IPv6 address" : "");
        close(n->event_fd);
        pthread_mutex_destroy(&n->lock);
        free(n->flat);
        free(n);
        return NULL;
    }
    return n;
}

void pz_netif_set_sender(struct pz_netif *n, pz_netif_send_fn send, void *ctx)
{
    LOCK_TCPIP_CORE();
    n->send = send;
    n->send_ctx = ctx;
    UNLOCK_TCPIP_CORE();
}

int pz_netif_fd(const struct pz_netif *n)
{
    return n->event_fd;
}

/*
 * Take the first `budget` packets of the queue; returns their list.  When
 * more wait, the eventfd is signalled again, so the loop comes back after
 * it has looked at its other descriptors (the MADs).
 */
static struct queued_pkt *take_queue(struct pz_netif *n, unsigned budget)
{
    struct queued_pkt *q, *last = NULL;
    uint64_t count, one = 1;
    unsigned taken = 0;
    bool more;

    if (read(n->event_fd, &count, sizeof(count)) < 0 && errno != EAGAIN)
        perror("pz_netif: eventfd");
    pthread_mutex_lock(&n->lock);
    q = n->head;
    for (struct queued_pkt *p = q; p && taken < budget; p = p->next, taken++)
        last = p;
    n->head = last ? last->next : n->head;
    if (last)
        last->next = NULL;
    if (!n->head)
        n->tail = NULL;
    n->queued -= taken;
    more = n->head != NULL;
    pthread_mutex_unlock(&n->lock);
    if (more && write(n->event_fd, &one, sizeof(one)) < 0)
        perror("pz_netif: eventfd");
    return taken ? q : NULL;
}

void pz_netif_drain(struct pz_netif *n, struct ipoib *ep, uint64_t now)
{
    struct queued_pkt *q = take_queue(n, PZ_NETIF_DRAIN_BUDGET);

    if (n->cfg.ip6)
        pz_netif_apply_mld(n, ep, now);
    while (q) {
        struct queued_pkt *next = q->next;
        ipoib_output(ep, q->data, q->len, now);
        free(q);
        q = next;
    }
}

/* Count one received packet delivered (or dropped); direct: past a full mailbox. */
static void count_rx(struct pz_netif *n, bool delivered, bool direct)
{
    pthread_mutex_lock(&n->lock);
    if (delivered)
        n->stats.rx_delivered++;
    else
        n->stats.rx_dropped++;
    if (direct)
        n->stats.rx_direct++;
    pthread_mutex_unlock(&n->lock);
}

/*
 * Whether a received IPv4 packet carries TCP (a fragment included: every
 * fragment has the protocol field).  TCP stays in lwIP's thread: the
 * callbacks of a bulk transfer (iperf, the echo) send a window of segments
 * for every ACK, and on the agent loop that work delayed the MADs (the SMP
 * round trip under a full-rate iperf went from ~2x to ~3-4x idle,
 * bench_ipoib.sh); lwIP's thread runs below the loop instead.
 */
static bool is_tcp(const uint8_t *pkt, size_t len)
{
    if (len > 6 && pkt[0] >> 4 == 6)
        return pkt[6] == IP_PROTO_TCP; /* extension headers: handled as not TCP */
    return len > 9 && pkt[9] == IP_PROTO_TCP;
}

/* ip_input on this thread under the core lock; it takes the pbuf in every case. */
static void input_here(struct pz_netif *n, struct pbuf *p)
{
    LOCK_TCPIP_CORE();
    ip_input(p, &n->netif);
    UNLOCK_TCPIP_CORE();
}

/*
 * UDP, ICMP (requests and answers): into the stack on this thread, so the
 * callbacks run here and what they send leaves through output_direct, an
 * SNMP request answered in one pass.  TCP: to lwIP's mailbox
 * (tcpip_input), or when it is full (Debian's build: 128 messages) to
 * ip_input here instead of being dropped (counted in rx_direct).
 */
void pz_netif_deliver(struct pz_netif *n, const void *pkt, size_t len)
{
    struct pbuf *p = len <= 0xFFFF ? pbuf_alloc(PBUF_RAW, (u16_t)len, PBUF_RAM) : NULL;
    bool past_mailbox = false;

    if (!p || pbuf_take(p, pkt, (u16_t)len) != ERR_OK) {
        if (p)
            pbuf_free(p);
        count_rx(n, false, false);
        return;
    }
    if (!is_tcp(pkt, len)) {
        input_here(n, p);
    } else if (n->netif.input(p, &n->netif) != ERR_OK) {
        input_here(n, p);
        past_mailbox = true;
    }
    count_rx(n, true, past_mailbox);
}

void pz_netif_link(struct pz_netif *n, bool up, unsigned mtu)
{
    LOCK_TCPIP_CORE();
    if (up) {
        n->netif.mtu = (u16_t)mtu;
        n->netif.mtu6 = (u16_t)mtu; /* lwIP sets it at netif_add and at link down only */
        netif_set_link_up(&n->netif);
    } else {
        netif_set_link_down(&n->netif);
    }
    UNLOCK_TCPIP_CORE();
}

unsigned pz_netif_ip6_addrs(struct pz_netif *n, struct ipoib6_addr *out, unsigned max)
{
    unsigned count;

    if (!n->cfg.ip6)
        return 0;
    LOCK_TCPIP_CORE();
    count = pz_netif6_addrs(&n->netif, &n->cfg, out, max);
    UNLOCK_TCPIP_CORE();
    return count;
}

unsigned pz_netif_ip6_addr_info(struct pz_netif *n, struct pz_netif6_addr_info *out, unsigned max)
{
    unsigned count;

    if (!n->cfg.ip6)
        return 0;
    LOCK_TCPIP_CORE();
    count = pz_netif6_addr_info(&n->netif, &n->cfg, out, max);
    UNLOCK_TCPIP_CORE();
    return count;
}

struct pz_netif_stats pz_netif_stats(struct pz_netif *n)
{
    struct pz_netif_stats s;

    pthread_mutex_lock(&n->lock);
    s = n->stats;
    pthread_mutex_unlock(&n->lock);
    return s;
}

/* A flag a thread waits on until lwIP's thread sets it. */
struct mailbox_mark {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool reached;
};

/* tcpip_callback, in lwIP's thread: every message posted before it has run. */
static void mark_reached(void *arg)
{
    struct mailbox_mark *m = arg;

    pthread_mutex_lock(&m->lock);
    m->reached = true;
    pthread_cond_signal(&m->cond);
    pthread_mutex_unlock(&m->lock);
}

/*
 * Wait until lwIP's thread has run every message already in its mailbox
 * (packets tcpip_input queued refer to the netif).  Returns nothing.
 */
static void drain_mailbox(void)
{
    struct mailbox_mark m = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};

    if (tcpip_callback(mark_reached, &m) != ERR_OK)
        return;
    pthread_mutex_lock(&m.lock);
    while (!m.reached)
        pthread_cond_wait(&m.cond, &m.lock);
    pthread_mutex_unlock(&m.lock);
}

/* Remove the interface, let lwIP finish the packets queued for it, free. */
void pz_netif_destroy(struct pz_netif *n)
{
    struct queued_pkt *q;

    if (!n)
        return;
    LOCK_TCPIP_CORE();
    netif_remove(&n->netif);
    UNLOCK_TCPIP_CORE();
    drain_mailbox();
    q = take_queue(n, UINT_MAX);
    while (q) {
        struct queued_pkt *next = q->next;
        free(q);
        q = next;
    }
    close(n->event_fd);
    pthread_mutex_destroy(&n->lock);
    free(n->flat);
    free(n);
}

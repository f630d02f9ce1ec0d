/*
 * ip_ping.c - ICMP echo from lwIP (see ip_ping.h).
 *
 * lwIP has no ping client: this builds the echo requests with lwIP's ICMP
 * header helpers (lwip/prot/icmp.h) and its checksum routine, sends them on
 * a raw pcb, and matches the replies by identifier and sequence.
 */
#include "ip_ping.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <lwip/icmp.h>
#include <lwip/icmp6.h>
#include <lwip/inet_chksum.h>
#include <lwip/ip.h>
#include <lwip/pbuf.h>
#include <lwip/prot/icmp.h>
#include <lwip/prot/icmp6.h>
#include <lwip/prot/ip6.h>
#include <lwip/raw.h>
#include <lwip/tcpip.h>

/* Replies recorded and not yet polled, at most. */
#define IP_PING_QUEUE 64

struct ip_ping {
    struct raw_pcb *pcb;
    int efd; /* signalled by the tcpip thread for each reply */
    ip_addr_t dst;
    uint16_t id;
    unsigned count, interval_ms, timeout_ms, payload_len;
    uint64_t start_ns, last_sent_ns;
    uint64_t *sent_ns;    /* [count]: when each request left, 0 = not yet */
    bool *answered;       /* [count] */
    pthread_mutex_t lock; /* guards stats and the queue: the tcpip thread writes them */
    struct ip_ping_stats stats;
    struct ip_ping_reply queue[IP_PING_QUEUE];
    unsigned queued;
    bool v6; /* ICMPv6 echo (types 128/129) */
};

/* CLOCK_MONOTONIC in ns. */
static uint64_t ip_ping_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Record one reply (tcpip thread, the run's lock held). */
static void ip_ping_record(struct ip_ping *p, uint16_t seq, uint8_t ttl, uint64_t now)
{
    uint64_t rtt;

    if (seq >= p->count || !p->sent_ns[seq] || p->answered[seq])
        return; /* a duplicate or a reply to nothing we sent */
    p->answered[seq] = true;
    rtt = now - p->sent_ns[seq];
    if (!p->stats.received || rtt < p->stats.rtt_min_ns)
        p->stats.rtt_min_ns = rtt;
    if (rtt > p->stats.rtt_max_ns)
        p->stats.rtt_max_ns = rtt;
    p->stats.rtt_sum_ns += rtt;
    p->stats.rtt_sumsq_ms2 += (rtt / 1e6) * (rtt / 1e6);
    p->stats.received++;
    if (p->queued < IP_PING_QUEUE)
        p->queue[p->queued++] = (struct ip_ping_reply){.seq = seq, .ttl = ttl, .rtt_ns = rtt};
    uint64_t one = 1;

    if (write(p->efd, &one, sizeof(one)) < 0)
        (void)0; /* the owner still sees the reply at its next deadline */
}

/*
 * Raw pcb receive (tcpip thread): take an echo reply of ours (returns 1:
 * eaten), leave everything else to lwIP's ICMP (returns 0).
 */
static u8_t ip_ping_recv(void *arg, struct raw_pcb *pcb, struct pbuf *pb, const ip_addr_t *addr)
{
    struct ip_ping *p = arg;
    struct icmp_echo_hdr echo;
    uint8_t iphdr[20];
    uint16_t hlen;

    (void)pcb;
    if (!ip_addr_cmp(addr, &p->dst) || pbuf_copy_partial(pb, iphdr, 20, 0) != 20)
        return 0;
    hlen = (uint16_t)((iphdr[0] & 0x0F) * 4);
    if (hlen < 20 || pbuf_copy_partial(pb, &echo, sizeof(echo), hlen) != sizeof(echo) ||
        echo.type != ICMP_ER || echo.id != lwip_htons(p->id))
        return 0;
    pthread_mutex_lock(&p->lock);
    ip_ping_record(p, lwip_ntohs(echo.seqno), iphdr[8], ip_ping_now());
    pthread_mutex_unlock(&p->lock);
    pbuf_free(pb);
    return 1;
}

/*
 * Raw ICMPv6 pcb receive (tcpip thread): the pbuf starts at the IPv6
 * header; take an echo reply of ours (returns 1), leave the rest (0).  The
 * source is compared without its zone (a link-local reply carries the
 * interface's).
 */
static u8_t ip_ping_recv6(void *arg, struct raw_pcb *pcb, struct pbuf *pb, const ip_addr_t *addr)
{
    struct ip_ping *p = arg;
    struct icmp6_echo_hdr echo;
    uint8_t hdr[IP6_HLEN];

    (void)pcb;
    if (!IP_IS_V6(addr) || !ip6_addr_cmp_zoneless(ip_2_ip6(addr), ip_2_ip6(&p->dst)) ||
        pbuf_copy_partial(pb, hdr, IP6_HLEN, 0) != IP6_HLEN || hdr[6] != IP6_NEXTH_ICMP6 ||
        pbuf_copy_partial(pb, &echo, sizeof(echo), IP6_HLEN) != sizeof(echo) ||
        echo.type != ICMP6_TYPE_EREP || echo.id != lwip_htons(p->id))
        return 0;
    pthread_mutex_lock(&p->lock);
    ip_ping_record(p, lwip_ntohs(echo.seqno), hdr[7], ip_ping_now());
    pthread_mutex_unlock(&p->lock);
    pbuf_free(pb);
    return 1;
}

/* Send request seq (owner's thread; takes the core lock). */
static void ip_ping_send(struct ip_ping *p, uint16_t seq, uint64_t now)
{
    struct pbuf *pb =
        pbuf_alloc(PBUF_IP, (u16_t)(sizeof(struct icmp_echo_hdr) + p->payload_len), PBUF_RAM);
    struct icmp_echo_hdr *h;
    err_t rc = ERR_MEM;

    if (pb) {
        h = pb->payload;
        memset(h, 0, pb->len);
        h->type = p->v6 ? ICMP6_TYPE_EREQ : ICMP_ECHO;
        h->id = lwip_htons(p->id);
        h->seqno = lwip_htons(seq);
        for (unsigned i = 0; i < p->payload_len; i++)
            ((uint8_t *)(h + 1))[i] = (uint8_t)(0x10 + i);
        if (!p->v6) /* ICMPv6's covers the pseudo-header: the raw pcb computes it */
            h->chksum = inet_chksum(h, pb->len);
        pthread_mutex_lock(&p->lock);
        p->sent_ns[seq] = now;
        if (!p->stats.first_sent_ns)
            p->stats.first_sent_ns = now;
        pthread_mutex_unlock(&p->lock);
        LOCK_TCPIP_CORE();
        rc = raw_sendto(p->pcb, pb, &p->dst);
        UNLOCK_TCPIP_CORE();
        pbuf_free(pb);
    }
    pthread_mutex_lock(&p->lock);
    if (rc == ERR_OK)
        p->stats.sent++;
    else
        p->stats.errors++;
    pthread_mutex_unlock(&p->lock);
}

/* How many requests are due by now (the first at once, then one per interval). */
static unsigned ip_ping_due(const struct ip_ping *p, uint64_t now)
{
    uint64_t n = 1 + (now - p->start_ns) / ((uint64_t)p->interval_ms * 1000000u);

    return n > p->count ? p->count : (unsigned)n;
}

/*
 * A run of count requests to dst (its family says ICMP or ICMPv6), its raw
 * pcb open.  Returns it, or NULL.
 */
static struct ip_ping *ip_ping_new(const ip_addr_t *dst, unsigned count, unsigned interval_ms,
                                   unsigned timeout_ms, unsigned payload_len)
{
    static const uint16_t id_base = 0x505A; /* 'PZ'; the low bits vary per run */
    struct ip_ping *p;
    struct timespec ts;

    if (!count || count > IP_PING_MAX_COUNT || !interval_ms || payload_len < 8 ||
        payload_len > 1472)
        return NULL;
    p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (p->efd < 0) {
        free(p);
        return NULL;
    }
    p->sent_ns = calloc(count, sizeof(*p->sent_ns));
    p->answered = calloc(count, sizeof(*p->answered));
    if (!p->sent_ns || !p->answered) {
        ip_ping_stop(p);
        return NULL;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    p->id = (uint16_t)(id_base ^ (uint16_t)ts.tv_nsec);
    p->count = count;
    p->interval_ms = interval_ms;
    p->timeout_ms = timeout_ms;
    p->payload_len = payload_len;
    p->dst = *dst;
    p->v6 = IP_IS_V6(dst);
    pthread_mutex_init(&p->lock, NULL);
    LOCK_TCPIP_CORE();
    p->pcb = p->v6 ? raw_new_ip_type(IPADDR_TYPE_V6, IP6_NEXTH_ICMP6) : raw_new(IP_PROTO_ICMP);
    if (p->pcb && p->v6) {
        p->pcb->chksum_reqd = 1;
        p->pcb->chksum_offset = 2;
        raw_recv(p->pcb, ip_ping_recv6, p);
    } else if (p->pcb) {
        raw_recv(p->pcb, ip_ping_recv, p);
    }
    UNLOCK_TCPIP_CORE();
    if (!p->pcb) {
        ip_ping_stop(p);
        return NULL;
    }
    p->start_ns = ip_ping_now();
    return p;
}

struct ip_ping *ip_ping_start(uint32_t dst, unsigned count, unsigned interval_ms,
                              unsigned timeout_ms, unsigned payload_len)
{
    ip_addr_t a;

    ip_addr_set_ip4_u32_val(a, lwip_htonl(dst));
    return ip_ping_new(&a, count, interval_ms, timeout_ms, payload_len);
}

struct ip_ping *ip_ping_start6(const uint8_t dst[16], unsigned count, unsigned interval_ms,
                               unsigned timeout_ms, unsigned payload_len)
{
    ip_addr_t a;

    memset(&a, 0, sizeof(a));
    IP_SET_TYPE_VAL(a, IPADDR_TYPE_V6);
    memcpy(ip_2_ip6(&a)->addr, dst, 16);
    return ip_ping_new(&a, count, interval_ms, timeout_ms, payload_len);
}

unsigned ip_ping_poll(struct ip_ping *p, uint64_t now, struct ip_ping_reply *out, unsigned max)
{
    unsigned n, due = ip_ping_due(p, now);
    struct ip_ping_stats st = ip_ping_stats(p);
    uint64_t count;

    if (read(p->efd, &count, sizeof(count)) < 0)
        (void)0; /* nothing signalled */
    for (unsigned seq = st.sent + st.errors; seq < due; seq++)
        ip_ping_send(p, (uint16_t)seq, now);
    pthread_mutex_lock(&p->lock);
    n = p->queued < max ? p->queued : max;
    memcpy(out, p->queue, n * sizeof(*out));
    memmove(p->queue, p->queue + n, (p->queued - n) * sizeof(*out));
    p->queued -= n;
    pthread_mutex_unlock(&p->lock);
    return n;
}

/* When the last request leaves (ns). */
static uint64_t ip_ping_last_send(const struct ip_ping *p)
{
    return p->start_ns + (uint64_t)(p->count - 1) * p->interval_ms * 1000000u;
}

int ip_ping_fd(const struct ip_ping *p)
{
    return p->efd;
}

uint64_t ip_ping_next_deadline(const struct ip_ping *p)
{
    struct ip_ping_stats st = ip_ping_stats(p);
    unsigned issued = st.sent + st.errors;

    if (issued < p->count)
        return p->start_ns + (uint64_t)issued * p->interval_ms * 1000000u;
    return ip_ping_last_send(p) + (uint64_t)p->timeout_ms * 1000000u;
}

bool ip_ping_done(const struct ip_ping *p, uint64_t now)
{
    struct ip_ping_stats st;

    st = ip_ping_stats(p);
    if (st.sent + st.errors < p->count)
        return false;
    return st.received == st.sent || now >= ip_ping_last_send(p) + p->timeout_ms * 1000000ull;
}

struct ip_ping_stats ip_ping_stats(const struct ip_ping *p)
{
    struct ip_ping_stats st;

    pthread_mutex_lock((pthread_mutex_t *)&p->lock);
    st = p->stats;
    pthread_mutex_unlock((pthread_mutex_t *)&p->lock);
    return st;
}

void ip_ping_stop(struct ip_ping *p)
{
    if (!p)
        return;
    if (p->pcb) {
        LOCK_TCPIP_CORE();
        raw_remove(p->pcb);
        UNLOCK_TCPIP_CORE();
        pthread_mutex_destroy(&p->lock);
    }
    free(p->sent_ns);
    free(p->answered);
    close(p->efd);
    free(p);
}

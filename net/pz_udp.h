/*
 * pz_udp.h - a UDP port of the switch's lwIP stack served on the agent
 * loop (SNMP on 161, traps out).
 *
 * lwIP's receive callback (on the agent loop's thread when the loop feeds
 * the stack, pz_netif_deliver; on lwIP's thread for loopback) takes each
 * datagram into a bounded queue and signals an eventfd (not when the
 * loop's input hook takes it next, pz_udp_hooked); the agent loop takes
 * them from the queue (woken by the eventfd, or at once from a pz_ipplane
 * input hook that sees pz_udp_pending) and sends its answers
 * under the core lock.  Nothing of the service runs in lwIP's callback, so
 * it may read switch state.
 */
#ifndef PZ_UDP_H
#define PZ_UDP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The largest datagram a port sends or keeps (an IPoIB MTU of 4092 less IP
 * and UDP headers): pz_udp_send refuses a longer one, a longer one received
 * is cut to it.  A service must build nothing longer (SNMP: its max_message).
 */
#define PZ_UDP_MAX 4064

/* Counters. */
struct pz_udp_stats {
    uint64_t rx, tx;
    uint64_t rx_dropped; /* queue full, or no memory */
    uint64_t tx_errors;  /* lwIP refused the send */
};

/*
 * A peer of a port: an IPv4 or an IPv6 address and a UDP port.  zone is
 * lwIP's zone of a scoped IPv6 address (a link-local peer: the netif's
 * index + 1, as received; 0 for none: lwIP then picks the plane's only
 * interface).
 */
struct pz_udp_addr {
    bool ipv6;
    uint32_t v4;    /* IPv4, host order */
    uint8_t v6[16]; /* IPv6, network order */
    uint8_t zone;
    uint16_t port; /* host order */
};

struct pz_udp;

/*
 * Bind UDP port on any address of both families (lwIP's IPADDR_TYPE_ANY:
 * IPv6 datagrams arrive once the plane has IPv6) with a queue of queue_max
 * datagrams (0 = 64); NULL + err.
 */
struct pz_udp *pz_udp_open(uint16_t port, unsigned queue_max, char *err, size_t errlen);

/* The descriptor that polls readable while datagrams wait. */
int pz_udp_fd(const struct pz_udp *u);

/*
 * The calling thread (the agent loop) takes the datagrams from a pz_ipplane
 * input hook after every packet it feeds the stack: what lwIP delivers on
 * this thread then waits without the eventfd (two system calls less per
 * request); what lwIP's own thread delivers (loopback) still signals it.
 */
void pz_udp_hooked(struct pz_udp *u);

/* Whether a datagram waits (cheap: no system call). */
bool pz_udp_pending(struct pz_udp *u);

/*
 * Take one datagram: its length (what did not fit cap is cut) and the peer
 * it came from; -EAGAIN when none waits.
 */
int pz_udp_recv(struct pz_udp *u, struct pz_udp_addr *from, void *buf, size_t cap);

/* Send len bytes to peer `to` from the bound port; 0 or -errno. */
int pz_udp_send(struct pz_udp *u, const struct pz_udp_addr *to, const void *buf, size_t len);

/* The counters. */
struct pz_udp_stats pz_udp_stats(struct pz_udp *u);

/* Unbind and free (NULL is fine). */
void pz_udp_close(struct pz_udp *u);

#endif

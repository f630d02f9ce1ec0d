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

struct pz_udp;

/* Bind UDP port (any address) with a queue of queue_max datagrams (0 = 64); NULL + err. */
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
 * Take one datagram: its length (what did not fit cap is cut), the peer's
 * address and port (host order); -EAGAIN when none waits.
 */
int pz_udp_recv(struct pz_udp *u, uint32_t *addr, uint16_t *port, void *buf, size_t cap);

/* Send len bytes to addr:port (host order) from the bound port; 0 or -errno. */
int pz_udp_send(struct pz_udp *u, uint32_t addr, uint16_t port, const void *buf, size_t len);

/* The counters. */
struct pz_udp_stats pz_udp_stats(struct pz_udp *u);

/* Unbind and free (NULL is fine). */
void pz_udp_close(struct pz_udp *u);

#endif

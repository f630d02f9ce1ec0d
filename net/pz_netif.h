/*
 * pz_netif.h - an lwIP network interface over an IPoIB endpoint, and the
 * crossing between the two threads that share it.
 *
 * The agent loop owns the switch (board, MADs, the ipoib/ endpoint); lwIP's
 * tcpip thread owns TCP/IP.  Packets cross in both directions without either
 * thread touching the other's state:
 *   - lwIP -> fabric: the netif's output copies each IPv4 packet into a
 *     bounded queue and signals an eventfd; the agent loop, woken by it,
 *     drains the queue into the endpoint (pz_netif_drain);
 *   - fabric -> lwIP: the endpoint's deliver hands a copy to tcpip_input
 *     (lwIP's thread-safe mailbox) through pz_netif_deliver; when the
 *     mailbox is full, to ip_input under the core lock (not dropped);
 *   - link state and MTU: set under LOCK_TCPIP_CORE from the agent loop.
 */
#ifndef PZ_NETIF_H
#define PZ_NETIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ipoib;
struct pz_netif;

/* The interface's IPv4 settings, host order. */
struct pz_netif_config {
    uint32_t addr;
    uint32_t netmask;
    uint32_t gateway;   /* 0: none */
    unsigned queue_max; /* packets waiting for the agent loop; 0 = 1024 */
};

/* Counters of the crossing. */
struct pz_netif_stats {
    uint64_t tx_queued;    /* packets lwIP handed to the queue */
    uint64_t tx_dropped;   /* queue full, or no memory */
    uint64_t rx_delivered; /* packets handed to lwIP */
    uint64_t rx_dropped;   /* no pbuf, or lwIP refused */
    uint64_t rx_direct;    /* lwIP's mailbox full: handed to ip_input under the core lock */
};

/*
 * Start lwIP's tcpip thread if this process has none yet, and add the
 * interface (link down until pz_netif_link).  Returns NULL with a message
 * in err.  One interface per process.
 */
struct pz_netif *pz_netif_create(const struct pz_netif_config *cfg, char *err, size_t errlen);

/* The eventfd that polls readable while packets wait in the queue. */
int pz_netif_fd(const struct pz_netif *n);

/*
 * Agent loop: send the queued packets through ep at time now (ms), at most
 * 64 per call; the eventfd stays readable while more wait.
 */
void pz_netif_drain(struct pz_netif *n, struct ipoib *ep, uint64_t now);

/* Agent loop: one received IPv4 packet for lwIP (an ipoib deliver callback). */
void pz_netif_deliver(struct pz_netif *n, const void *pkt, size_t len);

/* Agent loop: link up with the IP MTU, or down (an ipoib link callback). */
void pz_netif_link(struct pz_netif *n, bool up, unsigned mtu);

/* A copy of the counters. */
struct pz_netif_stats pz_netif_stats(struct pz_netif *n);

/* Remove the interface and free the queue (lwIP's thread keeps running). */
void pz_netif_destroy(struct pz_netif *n);

#endif

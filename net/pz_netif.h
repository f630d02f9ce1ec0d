/*
 * pz_netif.h - an lwIP network interface over an IPoIB endpoint, and the
 * crossing between the two threads that share it.
 *
 * The agent loop (the owner: the thread that creates the interface) owns
 * the switch (board, MADs, the ipoib/ endpoint); lwIP's tcpip thread runs
 * lwIP's timers.  lwIP's state is touched only under its core lock, the
 * endpoint only by the owner:
 *   - fabric -> lwIP: pz_netif_deliver runs ip_input on the owner's thread
 *     under LOCK_TCPIP_CORE for UDP and ICMP, so their receive callbacks
 *     run there; TCP goes to lwIP's thread (tcpip_input: bulk transfers
 *     would delay the MADs on the loop), past a full mailbox to ip_input;
 *   - lwIP -> fabric, on the owner's thread (answers to what it delivered,
 *     sends of services it runs under the lock): output calls the owner's
 *     sender at once (pz_netif_set_sender);
 *   - lwIP -> fabric, on lwIP's thread (timers: retransmits, delayed ACKs;
 *     loopback): output copies each IPv4 packet into a bounded queue and
 *     signals an eventfd; the owner, woken by it, drains the queue into the
 *     endpoint (pz_netif_drain), or its next direct send does first;
 *   - link state and MTU: set under LOCK_TCPIP_CORE from the owner.
 */
#ifndef PZ_NETIF_H
#define PZ_NETIF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ipoib;
struct ipoib6_addr;
struct pz_netif;

/* The largest packet output hands over (an IPoIB MTU of 4092 and some room). */
#define PZ_NETIF_PKT_MAX 4096

/* The owner's sender: one IP packet (IPv4 or IPv6) to the wire, on the owner's thread. */
typedef void (*pz_netif_send_fn)(void *ctx, const void *pkt, size_t len);

/* The interface's settings: IPv4 in host order, IPv6 in network order. */
struct pz_netif_config {
    uint32_t addr;
    uint32_t netmask;
    uint32_t gateway;   /* 0: none */
    unsigned queue_max; /* packets waiting for the agent loop; 0 = 1024 */
    bool ip6;           /* IPv6 too: fe80::<IID of port_guid>, ip6_addr, SLAAC */
    uint64_t port_guid; /* host order: the interface identifier's source */
    uint8_t ip6_addr[16];
    uint8_t ip6_prefix; /* ip6_addr's prefix length; 0 = no configured address */
};

/* An IPv6 address's state as lwIP keeps it (RFC 4862 section 5.5.4). */
enum pz_ip6_state { PZ_IP6_TENTATIVE, PZ_IP6_PREFERRED, PZ_IP6_DEPRECATED };

/* RFC 4861's infinite lifetime, as an RA carries it. */
#define PZ_IP6_LIFE_INFINITE UINT32_MAX

/* One IPv6 address as lwIP holds it, for `show ip`. */
struct pz_netif6_addr_info {
    uint8_t addr[16];
    uint8_t prefix_len;
    enum pz_ip6_state state;
    bool autoconf;       /* formed by SLAAC from an RA: it has lifetimes */
    uint32_t valid_life; /* seconds left (autoconf only); PZ_IP6_LIFE_INFINITE */
    uint32_t pref_life;  /* seconds left preferred (autoconf only); PZ_IP6_LIFE_INFINITE */
};

/* Counters of the crossing. */
struct pz_netif_stats {
    uint64_t tx_direct;    /* packets sent at once on the owner's thread */
    uint64_t tx_queued;    /* packets lwIP's thread handed to the queue */
    uint64_t tx_dropped;   /* queue full, or no memory */
    uint64_t rx_delivered; /* packets handed to lwIP */
    uint64_t rx_dropped;   /* no pbuf, or lwIP refused */
    uint64_t rx_direct;    /* TCP past lwIP's full mailbox: to ip_input under the core lock */
    uint64_t mld_dropped;  /* MLD group changes lost: too many waited for the agent loop */
};

/*
 * Start lwIP's tcpip thread if this process has none yet, and add the
 * interface (link down until pz_netif_link).  Returns NULL with a message
 * in err.  One interface per process.
 */
struct pz_netif *pz_netif_create(const struct pz_netif_config *cfg, char *err, size_t errlen);

/*
 * Owner: packets lwIP outputs on the owner's thread go to send(ctx, ...)
 * at once (NULL: everything goes through the queue).  Returns nothing.
 */
void pz_netif_set_sender(struct pz_netif *n, pz_netif_send_fn send, void *ctx);

/* The eventfd that polls readable while packets wait in the queue. */
int pz_netif_fd(const struct pz_netif *n);

/*
 * Agent loop: hand MLD's group joins and leaves to ep (ipoib6_join/leave),
 * then send the queued packets through ep at time now (ms), at most 64 per
 * call; the eventfd stays readable while more wait.
 */
void pz_netif_drain(struct pz_netif *n, struct ipoib *ep, uint64_t now);

/*
 * Owner: one received IPv4 packet into lwIP (an ipoib deliver callback);
 * its callbacks run before this returns.  Takes the core lock: never call
 * it from a callback of lwIP.
 */
void pz_netif_deliver(struct pz_netif *n, const void *pkt, size_t len);

/* Agent loop: link up with the IP MTU, or down (an ipoib link callback). */
void pz_netif_link(struct pz_netif *n, bool up, unsigned mtu);

/*
 * Owner: lwIP's IPv6 addresses, usable or tentative (at most max), for the
 * endpoint's mirror (ipoib6_set_addrs).  Returns how many; 0 without IPv6.
 */
unsigned pz_netif_ip6_addrs(struct pz_netif *n, struct ipoib6_addr *out, unsigned max);

/*
 * Owner: the same addresses with their state and, for SLAAC's, the
 * lifetimes left (at most max).  Returns how many; 0 without IPv6.
 */
unsigned pz_netif_ip6_addr_info(struct pz_netif *n, struct pz_netif6_addr_info *out, unsigned max);

/* A copy of the counters. */
struct pz_netif_stats pz_netif_stats(struct pz_netif *n);

/* Remove the interface and free the queue (lwIP's thread keeps running). */
void pz_netif_destroy(struct pz_netif *n);

#endif

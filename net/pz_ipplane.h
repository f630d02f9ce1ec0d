/*
 * pz_ipplane.h - the switch's IP management plane as one object: the
 * IPoIB endpoint (ipoib/), the lwIP interface over it (pz_netif) and the
 * basic services (echo, traffic/).  Its owner (portzerod's agent loop, or a
 * test host) supplies the port-0 datagram QP and the SA path, feeds it the
 * port's state, datagrams and SA answers, and polls it; everything it calls
 * back runs on that owner's thread.
 */
#ifndef PZ_IPPLANE_H
#define PZ_IPPLANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "ipoib.h"
#include "pz_netif.h"

struct iperf_server;
struct ipoib6_addr;

/* Settings. */
struct pz_ipplane_config {
    uint32_t addr, netmask, gateway; /* host order; gateway 0 = none */
    uint16_t pkey;                   /* partition, 0 = 0xffff */
    uint32_t qpn;                    /* the UD QP the endpoint uses */
    uint8_t tid_tag;                 /* tags its SA TIDs (ipoib_config.tid_tag) */
    bool echo;                       /* TCP/UDP echo on port 7 */
    bool iperf_server;               /* the iperf 2 server on port 5001 */
    /* IPv6 (ipoib6.h): fe80::<IID of port_guid>, SLAAC, and ip6_addr when ip6_prefix != 0 */
    bool ip6;
    uint64_t port_guid; /* host order */
    uint8_t ip6_addr[16];
    uint8_t ip6_prefix;
    uint8_t ip6_gateway[16]; /* :: = none (routers from RAs) */
};

/* What the owner provides (called on the owner's thread). */
struct pz_ipplane_ops {
    int (*send_dgram)(void *ctx, const struct board_dgram_addr *a, const void *buf, size_t len);
    int (*send_sa)(void *ctx, const void *mad, size_t len, uint16_t dlid, uint8_t sl);
    int (*set_qkey)(void *ctx, uint32_t qkey);
    void (*link)(void *ctx, bool up, unsigned mtu);     /* optional: after the netif followed */
    void (*log)(void *ctx, int level, const char *msg); /* optional */
};

struct pz_ipplane;

/* Create it (starts lwIP's thread if needed); NULL with a message in err. */
struct pz_ipplane *pz_ipplane_create(const struct pz_ipplane_config *cfg,
                                     const struct pz_ipplane_ops *ops, void *ctx, char *err,
                                     size_t errlen);

/* Inputs from the owner's loop; now in ms. */
void pz_ipplane_port_update(struct pz_ipplane *p, const struct ipoib_port *port, uint64_t now);
void pz_ipplane_input(struct pz_ipplane *p, const struct board_dgram_addr *a,
                      const uint8_t *payload, size_t len, uint64_t now);
bool pz_ipplane_input_sa(struct pz_ipplane *p, const uint8_t *mad, size_t len, uint64_t now);

/*
 * Owner: call fn(arg) after each datagram pz_ipplane_input took has been
 * through the stack (owner's thread, no lock held), so a service served on
 * the owner's loop (pz_udp, pz_tcp) answers what arrived in the same pass
 * instead of a poll round later.  fn must be cheap when nothing is for it.
 * Returns 0, or -1 when PZ_IPPLANE_MAX_HOOKS are registered.
 */
#define PZ_IPPLANE_MAX_HOOKS 4
int pz_ipplane_add_input_hook(struct pz_ipplane *p, void (*fn)(void *arg), void *arg);

/* Owner: forget every input hook registered with arg. */
void pz_ipplane_remove_input_hooks(struct pz_ipplane *p, void *arg);

/* The descriptor to poll (packets from lwIP wait), the work when it or a deadline is due. */
int pz_ipplane_fd(const struct pz_ipplane *p);
void pz_ipplane_poll(struct pz_ipplane *p, uint64_t now);
uint64_t pz_ipplane_next_deadline(const struct pz_ipplane *p);

/* The endpoint, for state and counters. */
struct ipoib *pz_ipplane_endpoint(const struct pz_ipplane *p);

/* lwIP's IPv6 addresses, usable or tentative (at most max); returns how many (0: no IPv6). */
unsigned pz_ipplane_ip6_addrs(const struct pz_ipplane *p, struct ipoib6_addr *out, unsigned max);

/* The same with their state and SLAAC's lifetimes (pz_netif.h); returns how many. */
unsigned pz_ipplane_ip6_addr_info(const struct pz_ipplane *p, struct pz_netif6_addr_info *out,
                                  unsigned max);

/* The lwIP interface's counters (sent at once, queued by lwIP's thread, received). */
struct pz_netif_stats pz_ipplane_netif_stats(const struct pz_ipplane *p);

/*
 * Start (on) or stop (off) the iperf server on port 5001; a no-op when it
 * already is so.  Returns 0, or -1 when it cannot start (port taken, no
 * memory).
 */
int pz_ipplane_iperf_server(struct pz_ipplane *p, bool on);

/* The running iperf server (counters, recent tests), or NULL when off. */
struct iperf_server *pz_ipplane_iperf(const struct pz_ipplane *p);

/* Stop the services, remove the interface, free. */
void pz_ipplane_destroy(struct pz_ipplane *p);

#endif

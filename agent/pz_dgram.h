/*
 * pz_dgram.h - portzerod's port-0 datagram QP and the echo service on it:
 * with board = sim the node's port-0 stack is attached over pzfabric's
 * "<sockname>:dgram" socket first; the QP's descriptor is registered with
 * the event loop.  Whatever refuses (the fabric, a board without
 * datagrams) is logged as a warning: the agent runs without datagrams.
 */
#ifndef PZ_DGRAM_H
#define PZ_DGRAM_H

#include <stdint.h>

#include "pz_config.h"

struct pz_dgram;
struct pz_echo;
struct pz_loop;
struct pz_switch;

/*
 * Open the QP and start the echo service if cfg asks for it (dgram = auto:
 * with board = sim).  Returns 0 with *out set (NULL: running without
 * datagrams), or -1 (out of memory, the loop full).
 */
int pz_dgram_start(const struct pz_config *cfg, struct pz_switch *sw, struct pz_loop *loop,
                   struct pz_dgram **out);

/* The echo service and its QP number in *qpn, or NULL without datagrams (d NULL). */
struct pz_echo *pz_dgram_echo(const struct pz_dgram *d, uint32_t *qpn);

/* Stop the echo service and release the QP (NULL is fine); before the switch is destroyed. */
void pz_dgram_stop(struct pz_dgram *d);

#endif /* PZ_DGRAM_H */

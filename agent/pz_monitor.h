/*
 * pz_monitor.h - the agent's congestion monitor glue: the dFtree monitor
 * (pma/cong_monitor.h) sampled from the event loop, its class changes
 * logged and turned into hot-spot notices to the master SM, and the
 * neighbour discovery that tells it which ports face a CA.
 *
 * Neighbour discovery: a switch's agent cannot ask its hardware what is
 * cabled, so it asks the neighbour: a directed-route SubnGet(NodeInfo) with
 * HopCount 1 out of each Active port (InitialPath [0, port]) from the
 * agent's own umad port, reading NodeType from the answer.  It is redone
 * whenever a port becomes Active again.  A configured port list
 * (monitor_ca_ports) replaces it.
 */
#ifndef PZ_MONITOR_H
#define PZ_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "pz_config.h"

struct sma;
struct pma;
struct cong_monitor;
struct pz_monitor;

/* Transmit one MAD (a discovery SMP) as addr says; returns 0 or -1. */
typedef int (*pz_monitor_send_fn)(void *arg, const uint8_t *mad, const struct mad_addr *addr);

/*
 * Create the monitor of board's ports as cfg says, read through pma's
 * 64-bit counters, attached to pma (the vendor attribute) and raising
 * notices through sma; discovery SMPs go out through send(arg, ...).
 * Returns NULL with a message in err (bad settings, OOM).
 */
struct pz_monitor *pz_monitor_create(const struct pz_config *cfg, const struct board *board,
                                     struct sma *sma, struct pma *pma, pz_monitor_send_fn send,
                                     void *arg, char *err, size_t errlen);

/* Detach from the PMA and free the monitor (NULL is fine). */
void pz_monitor_destroy(struct pz_monitor *m);

/* Board time at which pz_monitor_poll() next has work. */
uint64_t pz_monitor_next_deadline(const struct pz_monitor *m);

/*
 * Do what is due: a sample of every port (events logged, hot-spot notices
 * queued on the SMA), the port-state scan that starts discovery, and
 * discovery retries.  Call sma_poll() after it to send queued notices.
 */
void pz_monitor_poll(struct pz_monitor *m);

/*
 * The monitor itself, for readers of its state (pma/cong_monitor.h: the
 * SNMP and CLI layers); valid until pz_monitor_destroy().
 */
const struct cong_monitor *pz_monitor_cong(const struct pz_monitor *m);

/* The low 32 TID bits of the monitor's discovery SMPs: (TID & MASK) == TAG (mad_router). */
#define PZ_MONITOR_TID_MASK 0xF0000000u
#define PZ_MONITOR_TID_TAG 0x50000000u

/*
 * Offer a received MAD: returns true if it was the answer to a discovery
 * SMP (consumed), false if it is for the agents.
 */
bool pz_monitor_take_mad(struct pz_monitor *m, const uint8_t *mad);

#endif /* PZ_MONITOR_H */

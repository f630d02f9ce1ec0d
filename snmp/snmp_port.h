/*
 * snmp_port.h - one read of a port's state for the MIB handlers: link
 * status and enables from the board, and (only when a counter column is
 * asked for) the PMA's 64-bit counters, kept for the rest of one request
 * so a GETBULK reads each port once.  Status and enables are cheap (board/sim
 * keeps them between port events); a counter read is a round trip to the
 * ASIC (board/sim: to pzfabric), so the link scan never reads counters.
 */
#ifndef PZ_SNMP_PORT_H
#define PZ_SNMP_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "snmp_internal.h"

/* What one request saw of a port. */
struct snmp_port_snap {
    uint64_t gen;          /* the request generation status and config were read in */
    uint64_t counters_gen; /* the last generation that used c (snmp_port_counters) */
    uint64_t counters_ns;  /* board time c was read at */
    bool ok_status, ok_config, ok_counters;
    struct board_port_status st;
    struct board_port_config cfg;
    struct board_port_counters c;
};

/* The snapshot of external port (1..num_ports) for this request; NULL for a bad port. */
const struct snmp_port_snap *snmp_port_snap(struct pz_snmp *s, unsigned port);

/*
 * The PMA's 64-bit counters of external port for this request: read on the
 * request's first call unless an earlier read is under 50 ms old (then that
 * one; every call of one request sees the same values), every port's in
 * the same board access; NULL for a bad port or a failed read.
 */
const struct board_port_counters *snmp_port_counters(struct pz_snmp *s, unsigned port);

/* Start a new request generation: the next reads go to the hardware again. */
void snmp_port_invalidate(struct pz_snmp *s);

/* Allocate the snapshots; 0 or -1. */
int snmp_port_init(struct pz_snmp *s);

/* The signalling rate of a trained link in kb/s (lanes x lane rate), 0 if unknown. */
uint64_t snmp_port_signal_kbps(const struct board_port_status *st);

/*
 * Take a port down (PortPhysicalState Disabled) or up (Polling) through
 * the SMA's PortInfo Set; returns 0 or -1.
 */
int snmp_port_admin_set(struct pz_snmp *s, unsigned port, bool up);

#endif /* PZ_SNMP_PORT_H */

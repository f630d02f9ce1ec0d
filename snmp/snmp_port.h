/*
 * snmp_port.h - one read of a port's state for the MIB handlers: link
 * status and enables from the board, the PMA's 64-bit counters, kept for
 * the rest of one request so a GETBULK reads each port once.
 */
#ifndef PZ_SNMP_PORT_H
#define PZ_SNMP_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "snmp_internal.h"

/* What one request saw of a port. */
struct snmp_port_snap {
    uint64_t gen; /* the request generation it was read in */
    bool ok_status, ok_config, ok_counters;
    struct board_port_status st;
    struct board_port_config cfg;
    struct board_port_counters c;
};

/* The snapshot of external port (1..num_ports) for this request; NULL for a bad port. */
const struct snmp_port_snap *snmp_port_snap(struct pz_snmp *s, unsigned port);

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

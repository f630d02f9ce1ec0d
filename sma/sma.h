/*
 * sma.h - the Subnet Management Agent of a switch (or of a CA, for the
 * emulator), as a library.
 *
 * A request MAD and an instance go in; a MAD to transmit (a response, a
 * forwarded directed-route SMP, or a trap) or nothing comes out.  The SMA
 * reaches the hardware only through struct board, does no I/O of its own and
 * keeps no global state, so one process may hold many instances.
 */
#ifndef PZ_SMA_H
#define PZ_SMA_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define IB_MAD_SIZE 256

struct sma;

/* Counters the agent, CLI and SNMP report. */
struct sma_stats {
    uint64_t smps_received;
    uint64_t responses_sent;
    uint64_t dr_forwarded;
    uint64_t dropped;         /* malformed, misrouted, unroutable */
    uint64_t mkey_violations; /* SMPs dropped for a bad M_Key */
    uint64_t traps_sent;      /* including resends */
    uint64_t traps_repressed;
    uint64_t traps_lost; /* trap queue was full */
};

/* Create an SMA for board (which must outlive it).  Returns NULL on OOM. */
struct sma *sma_create(const struct board *board);

/* Destroy an SMA created by sma_create(). */
void sma_destroy(struct sma *sma);

/*
 * Handle one SMP (management class 0x01 or 0x81) received at this node.
 * in_addr->port is the physical ingress port (0 = from the local management
 * stack).  Returns MAD_SEND when out[0..255] must be transmitted as given by
 * *out_addr, MAD_DROP otherwise.  in and out may not overlap.
 */
enum mad_verdict sma_process(struct sma *sma, const struct mad_addr *in_addr, const uint8_t *in,
                             size_t in_len, struct mad_addr *out_addr, uint8_t out[IB_MAD_SIZE]);

/*
 * Run the SMA's timers: link state changes (SwitchInfo.PortStateChange and
 * Trap 128), the M_Key lease, trap sends and resends.  Returns MAD_SEND with
 * one trap to transmit; call again until it returns MAD_DROP.
 */
enum mad_verdict sma_poll(struct sma *sma, struct mad_addr *out_addr, uint8_t out[IB_MAD_SIZE]);

/* Board time at which sma_poll() next has timed work; UINT64_MAX if none. */
uint64_t sma_next_deadline(const struct sma *sma);

/* Change the NodeDescription locally (CLI, config); queues Trap 144. */
int sma_set_node_description(struct sma *sma, const char *desc);

/* Change the port-0 (switch) or port (CA) capability masks; queues Trap 144. */
int sma_set_capability_mask(struct sma *sma, unsigned port, uint32_t capmask, uint16_t capmask2);

/* Change the SystemImageGUID; queues Trap 145. */
int sma_set_system_image_guid(struct sma *sma, uint64_t guid);

/*
 * Read an attribute as the node's own management software does (no M_Key
 * check, not counted as an SMP): attr_id/attr_mod as in a SubnGet, port the
 * port the read is made from (CA: which port's view).  Fills data (64 bytes)
 * and returns the MAD status (0 on success).
 */
unsigned sma_local_get(struct sma *sma, unsigned port, unsigned attr_id, uint32_t attr_mod,
                       uint8_t data[64]);

/*
 * Write an attribute as the node's own management software does (the SNMP
 * agent's ifAdminStatus): attr_id/attr_mod/data as in a SubnSet, validated
 * and applied exactly as an SM's Set (link state changes, Trap 128), but
 * with no M_Key check and not counted as an SMP.  in and out are 64 bytes
 * and may not overlap; out gets the attribute after the Set.  Returns the
 * MAD status (0: applied; 0x1C: rejected, nothing changed).
 */
unsigned sma_local_set(struct sma *sma, unsigned port, unsigned attr_id, uint32_t attr_mod,
                       const uint8_t in[64], uint8_t out[64]);

/* The LID of the switch (CA: of port), or 0 before the SM assigned one. */
uint16_t sma_lid(const struct sma *sma, unsigned port);

/* The master SM's LID as last written by the SM (CA: per port). */
uint16_t sma_master_sm_lid(const struct sma *sma, unsigned port);

/*
 * How many accepted PortInfo Sets asked the clients of end port `port`
 * (switch: 0) to re-register (ClientReregister 1, with
 * IsClientReregistrationSupported advertised): a client that saw another
 * count than last time rejoins its groups.  0 for a bad port.
 */
uint32_t sma_client_reregister_count(const struct sma *sma, unsigned port);

/* The NodeDescription (64 bytes, NUL padded, not always NUL terminated). */
const char *sma_node_description(const struct sma *sma);

/* A snapshot of the SMA's counters. */
void sma_get_stats(const struct sma *sma, struct sma_stats *stats);

/* Notice Type of vendor notices: informational. */
#define SMA_VENDOR_NOTICE_TYPE 4

/* Bytes of DataDetails a vendor notice carries after its trap number and LIDADDR. */
#define SMA_VENDOR_DETAILS_MAX 50

/*
 * Queue a vendor-specific (IsGeneric 0) Notice to the master SM, sent and
 * resent with the same TID until a TrapRepress, like the SMA's own traps:
 * Type SMA_VENDOR_NOTICE_TYPE, VendorID and DeviceID the board's
 * (NodeInfo.VendorID / DeviceID, as IBA defines those fields for vendor
 * notices), DataDetails bytes 0-1 trap_number, 2-3 the switch's LID
 * (CA: port 1's), 4.. details[0..len-1] (zero padded).  Vendor notices
 * fill the trap queue only up to its last SMA_TRAP_RESERVED free slots,
 * which are kept for the SMA's own traps (128, 144, 145, 256: the SM
 * sweeps on them).  Returns 0 (queued, or merged with an identical notice
 * not sent yet), -EINVAL (len > SMA_VENDOR_DETAILS_MAX) or -ENOSPC (no
 * room, see sma_vendor_notice_room(); counted in traps_lost).
 */
int sma_send_vendor_notice(struct sma *sma, uint16_t trap_number, const uint8_t *details,
                           size_t len);

/* Free trap queue slots kept for the SMA's own traps. */
#define SMA_TRAP_RESERVED 2

/* How many vendor notices the trap queue takes now (a caller with more holds them until
 * TrapRepresses make room); returns the number. */
unsigned sma_vendor_notice_room(const struct sma *sma);

/* Number of traps waiting for a TrapRepress. */
unsigned sma_traps_pending(const struct sma *sma);

#endif /* PZ_SMA_H */

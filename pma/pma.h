/*
 * pma.h - the Performance Management Agent of a switch (or of a CA, for the
 * emulator), as a library.
 *
 * A request GMP (class 0x04) and an instance go in; a response or nothing
 * comes out.  The PMA reads the board's free-running hardware counters,
 * accumulates their deltas into 64-bit software counters and serves every
 * counter attribute as a view of those, with its own reset baselines.  It
 * does no I/O of its own and keeps no global state, so one process may hold
 * many instances.
 */
#ifndef PZ_PMA_H
#define PZ_PMA_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define PMA_MAD_SIZE 256

/* PortSelect value meaning "all ports" (AllPortSelect, switches only). */
#define PMA_ALL_PORTS 0xFF

struct pma;

/*
 * The 64-bit software counters of one port.  They start at the hardware's
 * value when the PMA is created, never wrap and are never reset by PMA Sets
 * (which move per-attribute baselines instead), so SNMP and the CLI can
 * treat them as monotonic Counter64s.
 */
struct pma_counters {
    struct board_port_counters total;
};

/* Counters the agent, CLI and SNMP report. */
struct pma_stats {
    uint64_t mads_received;
    uint64_t responses_sent;
    uint64_t dropped;        /* malformed, responses, traps */
    uint64_t counter_resets; /* Sets that reset counters */
};

/* Create a PMA for board (which must outlive it).  Returns NULL on OOM. */
struct pma *pma_create(const struct board *board);

/* Destroy a PMA created by pma_create(). */
void pma_destroy(struct pma *pma);

/*
 * Handle one GMP of the Performance Management class received at this node
 * (in_addr as the board reported it).  Returns MAD_SEND when out[0..255] must
 * be transmitted as given by *out_addr (the response, LID-routed back to the
 * requester's LID and QP with Q_Key 0x80010000), MAD_DROP otherwise.  in and
 * out may not overlap.
 */
enum mad_verdict pma_process(struct pma *pma, const struct mad_addr *in_addr, const uint8_t *in,
                             size_t in_len, struct mad_addr *out_addr, uint8_t out[PMA_MAD_SIZE]);

/*
 * Read every port's hardware counters and accumulate the deltas, and run the
 * sampling engine (PortSamplesControl).  Call it at least every second (a
 * 32-bit hardware data counter at EDR speed wraps in 1.4 s) and at
 * pma_next_deadline().
 */
void pma_poll(struct pma *pma);

/* Board time at which pma_poll() must next run. */
uint64_t pma_next_deadline(const struct pma *pma);

/*
 * The 64-bit software counters of port (read from the hardware first, so
 * they are exact).  Returns 0, or -EINVAL for a port without counters.
 */
int pma_port_counters64(struct pma *pma, unsigned port, struct pma_counters *c);

/*
 * The same for count ports from first into c[0 .. count - 1], read from the
 * hardware in one board access (board_port_counters_many: over board/sim
 * one round trip instead of count).  For whoever shows every port at once
 * (an SNMP ifTable walk, a CLI table).  Returns 0, or -EINVAL when a port
 * in the range has no counters.
 */
int pma_port_counters64_many(struct pma *pma, unsigned first, unsigned count,
                             struct pma_counters *c);

/*
 * Clear the counters of port_select (a port, or PMA_ALL_PORTS) as a
 * PortCounters Set and a PortCountersExtended Set with every counter
 * selected would (perfquery -R and -x -R): both views' baselines move to
 * the totals.  The 64-bit software counters (pma_port_counters64) are not
 * touched, so SNMP's counters stay monotonic.  Counted once in
 * pma_stats.counter_resets.  Returns 0, or -EINVAL for a selection without
 * counters.
 */
int pma_clear_counters(struct pma *pma, unsigned port_select);

/*
 * port's counters as the counter attributes show them since their last
 * reset (a clear, perfquery -R or an SM's reset), 64-bit and unsaturated:
 * the PortCounters error counters, XmitWait and QP1Dropped from the
 * PortCounters view, the data and packet counters from the
 * PortCountersExtended view (perfquery -x).  Returns 0, or -EINVAL for a
 * port without counters.
 */
int pma_port_counters_since_reset(struct pma *pma, unsigned port, struct pma_counters *c);

struct cong_monitor;

/*
 * Serve m's state as the vendor-specific attribute PZ_CongestionMonitor
 * (0xFF30, layout in pma_vendor.h); NULL detaches it (the attribute then
 * answers 0x0C).  m must stay valid while attached.
 */
void pma_set_cong_monitor(struct pma *pma, struct cong_monitor *m);

/* A snapshot of the PMA's own counters. */
void pma_get_stats(const struct pma *pma, struct pma_stats *stats);

#endif /* PZ_PMA_H */

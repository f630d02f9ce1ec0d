/*
 * fabric_traffic.h - flow-level traffic through the emulated fabric
 * (pzfabric-ctl flow-add / flow-del / flow-list / ca-rate / error-inject).
 *
 * A flow sends from a CA's port 1 to another CA along the LID route the SM
 * programmed (the switches' LFTs).  Its rate comes from a steady-state
 * fluid model recomputed whenever a path, a link rate, a CA receive rate or
 * the set of flows changes: max-min fair sharing of the links and the CAs'
 * receive rates, then head-of-line blocking in the switches' ingress
 * buffers (one FIFO per ingress port and VL) until a fixed point.  The
 * ports' hardware counters (data, packets, per SL, per VL, XmitWait) move
 * in real time: they are brought up to date at every fabric_tick() and
 * before every counters read (board_mem counters hook).  fabric/README.md,
 * "Traffic", describes the model.
 */
#ifndef PZ_FABRIC_TRAFFIC_H
#define PZ_FABRIC_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

#define FABRIC_FLOWS_MAX 4096                          /* flows at once */
#define FABRIC_FLOW_BPS_MAX (10000ull * 1000000000ull) /* 10 Tb/s */
#define FABRIC_FLOW_HOPS_MAX 64                        /* links of a path */
#define FABRIC_PKT_HDR_BYTES 26   /* LRH 8 + BTH 12 + ICRC 4 + VCRC 2 per data packet */
#define FABRIC_WAIT_TICK_NS 1000u /* XmitWait tick: 1 us (PortSamplesControl.Tick 249) */

struct fabric_traffic;

/* One link a flow crosses: out of (tx_node, tx_port) into (rx_node, rx_port), on VL vl. */
struct fabric_flow_hop {
    uint32_t tx_node;
    uint8_t tx_port;
    uint32_t rx_node;
    uint8_t rx_port;
    uint8_t vl;
};

/* What fabric_flow_get() reports about a flow. */
struct fabric_flow_info {
    unsigned id;
    size_t src, dst; /* node indices (CAs) */
    unsigned sl;
    bool repathed;       /* on the slow lane by a repath notice */
    uint64_t moved_ns;   /* board time of its last lane move, 0: never moved */
    uint64_t demand_bps; /* what it asks for */
    uint64_t rate_bps;   /* what it gets now (0 when unrouted) */
    bool routed;
    const char *why; /* unrouted: the reason; routed: "" */
    unsigned num_hops;
    struct fabric_flow_hop hops[FABRIC_FLOW_HOPS_MAX]; /* routed: all; unrouted: as far as it got */
};

/*
 * Add a flow of demand_bps (1..FABRIC_FLOW_BPS_MAX, wire bytes LRH..VCRC)
 * on service level sl (0..15) from CA src to CA dst; its id in *id.
 * Returns 0, -EINVAL (not CAs, the same node, bad rate or SL), -ENOSPC
 * (FABRIC_FLOWS_MAX flows) or -ENOMEM.
 */
int fabric_flow_add(struct fabric *f, size_t src, size_t dst, uint64_t demand_bps, unsigned sl,
                    unsigned *id);

/*
 * Move the flows of CA src whose destination's LID range holds lid between
 * the lanes (fabric_repath.h): slow moves those on the fast-lane SL to the
 * slow-lane SL, !slow moves those a repath had moved back to the fast lane.
 * Each move is logged.  Returns the number of flows moved.
 */
unsigned fabric_flows_move_lane(struct fabric *f, size_t src, uint16_t lid, bool slow);

/* The fabric's model time now (board time of the first node), ns. */
uint64_t fabric_traffic_now(const struct fabric *f);

/* Remove flow id; returns 0 or -ENOENT. */
int fabric_flow_del(struct fabric *f, unsigned id);

/* Number of flows. */
size_t fabric_flow_count(const struct fabric *f);

/* The flow at position index (0..count-1, in id order); returns 0 or -ENOENT. */
int fabric_flow_get(struct fabric *f, size_t index, struct fabric_flow_info *info);

/*
 * Make CA node receive at most bps (a PCIe-limited HCA); 0 = its link
 * rate.  Returns 0 or -EINVAL (not a CA, more than FABRIC_FLOW_BPS_MAX).
 */
int fabric_ca_rate_set(struct fabric *f, size_t node, uint64_t bps);

/* The receive rate set for CA node (0: its link rate). */
uint64_t fabric_ca_rate(const struct fabric *f, size_t node);

/*
 * The traffic at egress port (node, port) now: bits per second sent and
 * XmitWait ticks per second.  Returns 0 or -EINVAL.
 */
int fabric_port_traffic(struct fabric *f, size_t node, unsigned port, uint64_t *bps,
                        uint64_t *wait_per_s);

/*
 * Advance every flow's counters to board time now_ns, re-check the paths
 * (and recompute the rates if anything changed).  fabric_tick() calls it
 * with the first node's clock; tests with manual clocks call it directly.
 */
void fabric_traffic_update(struct fabric *f, uint64_t now_ns);

/* fabric_tick()'s part: fabric_traffic_update() at the first node's time, if there is traffic. */
void fabric_traffic_tick(struct fabric *f);

/* Free the traffic state (fabric_destroy). */
void fabric_traffic_destroy(struct fabric_traffic *t);

/*
 * Add count (1..2^32-1) errors of kind to the hardware counters of (node,
 * port) (switch port 0 too).  Kinds: fabric_error_kinds().  Returns 0,
 * -EINVAL (bad node, port or count) or -ENOENT (unknown kind).
 */
int fabric_error_inject(struct fabric *f, size_t node, unsigned port, const char *kind,
                        uint64_t count);

/* The error kinds, blank separated, for messages and help. */
const char *fabric_error_kinds(void);

#endif /* PZ_FABRIC_TRAFFIC_H */

/*
 * route_check.h - the route check: rebuild every switch-to-switch route of
 * the live linear forwarding tables, report the pairs without a route and
 * the forwarding loops, and look for a cycle in the channel dependency
 * graph of those routes (Dally and Seitz: a routing function is
 * deadlock-free when that graph is acyclic).
 *
 * Pure: the caller fills an rc_fabric with switches, CA ports, links and
 * LFT blocks (from SA records: traffic/route_sa.h) and runs rc_check(); no
 * I/O, no globals.  Routes are followed per destination LID with every
 * switch's result remembered, so a check costs O(destinations x switches);
 * the cycle search is an iterative depth-first search (no recursion: the
 * graphs of big trees are deep).
 *
 * Channels are the directed inter-switch links.  By default the routes
 * are those from every switch to every LID of every other switch's port 0;
 * with all_routes also those from every switch to every LID of every CA
 * port.  A port owns its base LID .. base + 2^LMC - 1 (rc_fabric_set_lmc;
 * LMC 0, the base LID alone, unless told).  Routes
 * from a CA add no channel dependency beyond its switch's own (the CA's
 * link is not a channel), so they need not be walked separately.
 */
#ifndef PZ_ROUTE_CHECK_H
#define PZ_ROUTE_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RC_DESC_LEN 64
#define RC_NO_PORT 0xff /* an LFT entry without a port */

#define RC_LMC_MAX 7 /* PortInfo's LMC is 3 bits */

/* A switch: its port-0 LID, GUID, description, port count, port 0's LMC. */
struct rc_switch {
    uint16_t lid;
    uint8_t nports;
    uint8_t lmc;
    uint64_t guid;
    char desc[RC_DESC_LEN + 1];
};

/* A CA (or router) port: a destination of the all-routes check. */
struct rc_endpoint {
    uint16_t lid; /* base LID */
    uint8_t port;
    uint8_t lmc;
    uint64_t guid;
    char desc[RC_DESC_LEN + 1];
};

/* Why a route does not arrive. */
enum rc_reason {
    RC_ROUTED = 0,
    RC_NO_ENTRY,  /* the LFT has no port for the LID (0xFF or no block) */
    RC_PORT_ZERO, /* the LFT sends it to port 0 of a switch that is not the destination */
    RC_NO_LINK,   /* the LFT's port has no link (down, unplugged, beyond the ports) */
    RC_WRONG_CA,  /* it leaves the fabric at a CA that does not own the LID */
    RC_LOOP,      /* the LFTs send it round in a circle */
};

/* One route that does not arrive: switch src to LID dlid; at: the switch
 * where it ends (its LFT port in port). */
struct rc_unrouted {
    uint32_t src, at;
    uint16_t dlid;
    uint8_t port;
    uint8_t reason; /* enum rc_reason */
};

/* A forwarding loop: the switches the route to dlid circles through. */
struct rc_loop {
    uint16_t dlid;
    size_t len;
    uint32_t *sw; /* switch indices, in route order */
};

/* One channel of a dependency cycle: switch from, port, to switch to. */
struct rc_channel {
    uint32_t from, to;
    uint8_t port;
};

struct rc_options {
    bool all_routes;     /* CA destinations too */
    size_t max_unrouted; /* keep at most this many in the list (0: all) */
    size_t max_loops;    /* keep at most this many loops (0: 64) */
};

/* What a check found. */
struct rc_result {
    size_t switches, endpoints;
    size_t channels;              /* directed inter-switch links */
    size_t dependencies;          /* edges of the channel dependency graph */
    size_t pairs, routed;         /* switch -> switch port-0 LIDs */
    size_t ca_pairs, ca_routed;   /* switch -> CA port LIDs (all_routes) */
    size_t switch_lids, ca_lids;  /* LIDs the switches' port 0 and the CA ports own */
    size_t lmc_ports;             /* ports (switch port 0, CA) with LMC > 0 */
    unsigned max_lmc;             /* the largest LMC of them */
    bool lmc_known;               /* LMCs were read (rc_fabric_set_lmc_known), else all 0 */
    unsigned max_hops;            /* links on the longest route found */
    size_t nunrouted;             /* all unrouted routes (switch and CA destinations) */
    struct rc_unrouted *unrouted; /* the first of them (nunrouted_kept) */
    size_t nunrouted_kept;
    size_t loop_routes; /* routes that end in a loop */
    struct rc_loop *loops;
    size_t nloops;
    bool cycle;
    struct rc_channel *cycle_channels; /* one cycle, when cycle is set */
    size_t cycle_len;
};

/* The fabric to check (opaque; filled with the rc_fabric_add_* calls). */
struct rc_fabric;

/* An empty fabric, or NULL without memory. */
struct rc_fabric *rc_fabric_new(void);
void rc_fabric_free(struct rc_fabric *f);

/* Add a switch / a CA port / a link / a 64-entry LFT block.  Return 0, or
 * -1 (no memory, LID 0 or multicast, port 0 link). */
int rc_fabric_add_switch(struct rc_fabric *f, uint16_t lid, uint64_t guid, uint8_t nports,
                         const char *desc);
int rc_fabric_add_endpoint(struct rc_fabric *f, uint16_t lid, uint64_t guid, uint8_t port,
                           const char *desc);
int rc_fabric_add_link(struct rc_fabric *f, uint16_t from_lid, uint8_t from_port, uint16_t to_lid,
                       uint8_t to_port);
int rc_fabric_add_lft_block(struct rc_fabric *f, uint16_t lid, uint16_t block,
                            const uint8_t port[64]);

/*
 * Give the switch (port 0) or CA port whose base LID is lid the LMC lmc: it
 * owns lid .. lid + 2^lmc - 1.  Returns 0, or -1 (the port keeps its LMC)
 * when no node has base LID lid, lmc > RC_LMC_MAX, or a LID of the range is
 * another node's or not unicast.
 */
int rc_fabric_set_lmc(struct rc_fabric *f, uint16_t lid, uint8_t lmc);

/*
 * Note whether the LMCs were read (true: from the SA's PortInfoRecords) or
 * not (false, with why, e.g. "the SA has no PortInfoRecords": every port
 * is taken as LMC 0, and the report says so).  A new fabric has not read
 * them ("not asked").
 */
void rc_fabric_set_lmc_known(struct rc_fabric *f, bool known, const char *why);
/* Whether the LMCs were read; *why (optional): why not. */
bool rc_fabric_lmc_known(const struct rc_fabric *f, const char **why);

/* The switches added, in order (rc_unrouted, rc_loop, rc_channel index them). */
const struct rc_switch *rc_fabric_switches(const struct rc_fabric *f, size_t *n);
/* The switch or CA port that owns lid (any LID of its range): its description (NULL: none) and
 * whether it is a switch. */
const char *rc_fabric_lid_name(const struct rc_fabric *f, uint16_t lid, bool *is_switch);
/* Counts of what was added. */
size_t rc_fabric_links(const struct rc_fabric *f);
size_t rc_fabric_lft_blocks(const struct rc_fabric *f);

/*
 * The links the live route from switch src_lid to LID dlid crosses (0:
 * dlid is src's own), walking the fabric's LFT blocks and links directly
 * (one route, no check needed; each hop looks the tables up, so it is for a
 * few routes, not all).  -1: unrouted, a loop, or src is no switch.
 */
int rc_route_hops(const struct rc_fabric *f, uint16_t src_lid, uint16_t dlid);

/*
 * Check the fabric's routes.  Fills *r (free it with rc_result_free()).
 * Returns 0, or -1 without memory or with an empty fabric.
 */
int rc_check(struct rc_fabric *f, const struct rc_options *o, struct rc_result *r);
void rc_result_free(struct rc_result *r);

/* Name of a reason, e.g. "no LFT entry". */
const char *rc_reason_name(enum rc_reason why);

#endif

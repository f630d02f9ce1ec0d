/*
 * fabric_repath.h - the emulated hosts' side of dFtree: a CA that receives
 * a repath notice (dftree/dftree_notice.h) from pz-dftree moves its flows
 * whose destination is the hot-spot LID to the slow-lane SL, and back to
 * the fast-lane SL on the fast-lane notice, as the paper's modified host
 * stack moves its QPs.  A host remembers the hot-spots it was told about
 * until their fast-lane notice: a flow it starts to one of them meanwhile
 * goes to the slow lane at once.  fabric/README.md, "dFtree hosts".
 */
#ifndef PZ_FABRIC_REPATH_H
#define PZ_FABRIC_REPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric.h"

#define FABRIC_FAST_SL_DEFAULT 0u
#define FABRIC_SLOW_SL_DEFAULT 1u
#define FABRIC_REPATH_ISSUERS_MAX 16u /* trusted issuer nodes */

/* What the hosts did with the notices they received. */
struct fabric_repath_stats {
    uint64_t notices;  /* dFtree-class MADs that reached a host */
    uint64_t repaths;  /* repath notices taken */
    uint64_t fast;     /* fast-lane notices taken */
    uint64_t refused;  /* answered with DFTREE_STATUS_INVALID */
    uint64_t dropped;  /* unknown issuer, vendor or device, or malformed: no answer */
    uint64_t moves;    /* flows moved, either way */
    uint64_t new_slow; /* new flows that started on the slow lane */
};

/* The fast- and slow-lane SLs (0..15, different); returns 0 or -EINVAL. */
int fabric_repath_set_lanes(struct fabric *f, unsigned fast_sl, unsigned slow_sl);

/* The lanes now (defaults FABRIC_FAST_SL_DEFAULT / FABRIC_SLOW_SL_DEFAULT). */
void fabric_repath_lanes(const struct fabric *f, unsigned *fast_sl, unsigned *slow_sl);

/*
 * Trust notices issued from node (any port of it); with no trusted node
 * every issuer whose IssuerLID is the packet's source LID is taken.
 * Returns 0, -EINVAL (no such node) or -ENOSPC.
 */
int fabric_repath_trust(struct fabric *f, size_t node);

/*
 * What host (a CA) does with a notice for hot_lid: slow (repath) remembers
 * the hot-spot and moves its fast-lane flows to it onto the slow lane;
 * !slow forgets it and moves the flows it had moved back.  Returns the
 * number of flows moved, or -EINVAL (not a CA), -ENOMEM.
 */
int fabric_repath_apply(struct fabric *f, size_t host, uint16_t hot_lid, bool slow);

/* Whether host was told that dst (a CA, by its LIDs) is a hot-spot and not told it cleared. */
bool fabric_repath_is_hot(const struct fabric *f, size_t host, size_t dst);

/* Whether lid is the LID (in the LMC range) of some CA port of f; the CA's index in *node. */
bool fabric_repath_lid_node(const struct fabric *f, uint16_t lid, size_t *node);

void fabric_repath_get_stats(const struct fabric *f, struct fabric_repath_stats *s);

#endif /* PZ_FABRIC_REPATH_H */

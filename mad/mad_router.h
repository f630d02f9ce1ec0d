/*
 * mad_router.h - where a received MAD goes: requests by management class to
 * the agent that serves the class (SMA, PMA, CC), answers by transaction ID
 * to the client that asked (the monitor's neighbour discovery, the IP
 * plane's SA joins and path queries).
 *
 * Only the low 32 TID bits identify a client's request: the MAD layer (the
 * kernel's umad, umad2sim) writes its agent number into the high 32 bits of
 * every request it sends.  A client owns a tag (TID bits that mask selects)
 * and stamps it into each request.  No I/O: the caller receives and sends.
 */
#ifndef PZ_MAD_ROUTER_H
#define PZ_MAD_ROUTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mad.h>

#include "mad.h"

#define MAD_ROUTER_MAX_CLASSES 8
#define MAD_ROUTER_MAX_CLIENTS 8

/* Serve one request of the class; MAD_SEND when out must be sent to *to. */
typedef enum mad_verdict (*mad_request_fn)(void *arg, const struct mad_addr *from,
                                           const uint8_t *in, struct mad_addr *to, uint8_t *out);
/*
 * Take one answer to the client's own request, len bytes (IB_MAD_SIZE, or
 * more for a reassembled RMPP answer).
 */
typedef void (*mad_answer_fn)(void *arg, const uint8_t *mad, size_t len);

/* What a MAD is, for routing. */
enum mad_kind {
    MAD_KIND_REQUEST, /* Get, Set, Send, Trap, TrapRepress, ...: to the class's agent */
    MAD_KIND_ANSWER,  /* a response (the R bit): to the client whose tag its TID carries */
    MAD_KIND_BAD,     /* not a MAD we route (base version other than 1) */
};

/* What the router did with a MAD. */
enum mad_route {
    MAD_ROUTED_REQUEST, /* the class's agent had it (its verdict is returned): a
                           request, or an answer no client claimed (the SMA forwards
                           returning directed-route SMPs) */
    MAD_ROUTED_ANSWER,  /* a client took it */
    MAD_ROUTED_NOBODY,  /* no agent for the class, or no client for the TID: dropped */
};

/* Counters. */
struct mad_router_stats {
    uint64_t requests, answers;
    uint64_t no_agent;  /* requests of a class nobody serves */
    uint64_t no_client; /* answers whose TID matches no client, of a class no agent serves */
    uint64_t bad;       /* not routable */
};

struct mad_router {
    struct {
        uint8_t mgmt_class;
        mad_request_fn fn;
        void *arg;
    } agents[MAD_ROUTER_MAX_CLASSES];
    unsigned nagents;
    struct {
        uint8_t mgmt_class; /* 0: any class */
        uint32_t tid_mask, tid_tag;
        mad_answer_fn fn;
        void *arg;
    } clients[MAD_ROUTER_MAX_CLIENTS];
    unsigned nclients;
    struct mad_router_stats stats;
};

/* Classify a MAD for routing. */
enum mad_kind mad_router_kind(const uint8_t *mad);

/* An empty router. */
void mad_router_init(struct mad_router *r);

/* The agent serving mgmt_class's requests; 0, or -1 (full, or the class taken). */
int mad_router_add_agent(struct mad_router *r, uint8_t mgmt_class, mad_request_fn fn, void *arg);

/*
 * A client: answers of mgmt_class (0: any) whose low 32 TID bits & tid_mask
 * equal tid_tag.  Returns 0, or -1 (full, empty mask, or a tag that overlaps
 * another client's of the same class).
 */
int mad_router_add_client(struct mad_router *r, uint8_t mgmt_class, uint32_t tid_mask,
                          uint32_t tid_tag, mad_answer_fn fn, void *arg);

/*
 * Route one received MAD of len bytes (at least IB_MAD_SIZE are readable at
 * in; more for a reassembled RMPP answer): a client gets len, an agent the
 * first IB_MAD_SIZE bytes.  *how says what happened; the return value is the
 * serving agent's verdict (MAD_DROP for everything but a request it answered).
 */
enum mad_verdict mad_router_dispatch(struct mad_router *r, const struct mad_addr *from,
                                     const uint8_t *in, size_t len, struct mad_addr *to,
                                     uint8_t *out, enum mad_route *how);

#endif

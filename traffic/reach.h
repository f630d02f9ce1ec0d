/*
 * reach.h - switch-to-switch reachability: the table of the subnet's other
 * switches and whether this switch reaches each one's port 0, kept from
 * probes the caller sends and the replies it feeds back.
 *
 * Pure state, no I/O and no clock of its own: the caller (portzerod's
 * traffic/pz_reach.c) discovers the peers (SA NodeRecords and the echo
 * service's ServiceRecords), sends each probe reach_due() hands out as a
 * port-0 echo request (traffic/pz_echo) and feeds every reply to
 * reach_reply(); reach_expire() turns unanswered probes into misses.
 *
 * A peer is probed once per interval (the first probes spread over one
 * interval so that a large subnet is not probed in one burst).  It becomes
 * reachable at its first reply and unreachable after lost_after probes in a
 * row went unanswered within the timeout; every change of status is
 * reported through the change callback (the caller logs it and sends the
 * SNMP notification).
 *
 * The notices to the SM are kept as state, not as a queue of events, so
 * none is lost when the switch's trap queue is full: a change the SM must
 * hear of (to unreachable; back to reachable from unreachable) counts in
 * the peer's notice_changes, and reach_notice_due() names the peers whose
 * notice the caller still has to send (one notice per peer, carrying its
 * status now and how many changes it sums up); reach_notice_told() clears
 * one once the SMA took its notice.  A peer that changes again before its
 * notice could be sent has one notice, with the newer status and the
 * higher count.  reach_notice_new_sm() makes every unreachable peer due
 * again for a new master SM, which has been told nothing.  A peer without the echo
 * service is never probed (status no-agent): a switch that runs another
 * management agent cannot answer.
 *
 * A peer that answered a probe once and is then no longer listed by
 * discovery (the SM dropped the switch: it died, or its agent did) is not
 * forgotten at once: with cfg.lost_keep_ns it stays in the table as lost
 * (reported like any change, and its notice to the SM is due) for that
 * long after it went, behind the listed peers, and is then dropped.
 * Listed again, it is probed again and keeps the status lost until it
 * answers (regained) or misses (unreachable).
 */
#ifndef PZ_REACH_H
#define PZ_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REACH_NAME_LEN 64
#define REACH_MAX_PEERS 0xFFFFu /* probe sequence numbers carry the peer's index in 16 bits */

enum reach_status {
    REACH_UNKNOWN = 0,     /* not answered yet, not yet given up */
    REACH_REACHABLE = 1,   /* the last probe (or one of the last lost_after) was answered */
    REACH_UNREACHABLE = 2, /* lost_after probes in a row unanswered */
    REACH_NO_AGENT = 3,    /* no echo service registered: not probed */
    REACH_LOST = 4, /* answered once, then gone from the subnet (discovery lists it no more) */
};

/* One peer switch: identity from discovery, state from the probes. */
struct reach_peer {
    /* identity (reach_set_peers) */
    uint64_t guid; /* node GUID: the key across LID changes */
    uint16_t lid;  /* port 0's LID */
    char name[REACH_NAME_LEN + 1];
    bool has_service; /* the echo service's QP is known */
    uint32_t qpn, qkey;
    uint8_t hops; /* links on the LID route to it (0: not known) */
    /* state */
    enum reach_status status;
    uint64_t since_ns; /* when status last changed (caller's clock) */
    uint64_t rtt_ns;   /* round trip of the last reply */
    unsigned misses;   /* unanswered probes in a row */
    uint64_t probes, replies;
    /* the probe in flight */
    bool outstanding;
    uint32_t seq;
    uint64_t sent_ns, next_ns;
    /* the master SM's view (reach_notice_due) */
    unsigned notice_changes; /* changes to tell the SM: its notice is due while not 0 */
};

struct reach_config {
    uint64_t interval_ns;  /* between two probes of one peer */
    uint64_t timeout_ns;   /* a probe unanswered this long is a miss (< interval) */
    unsigned lost_after;   /* misses in a row that make a peer unreachable (>= 1) */
    uint64_t lost_keep_ns; /* a peer gone from discovery stays listed as lost this long (0: not) */
};

/* A probe to send now. */
struct reach_probe {
    size_t index; /* the peer's place in the table */
    uint16_t dlid;
    uint32_t qpn, qkey;
    uint32_t seq; /* carry it in the echo request; the reply brings it back */
};

/* Called for every change of a peer's status (old is the previous one). */
typedef void (*reach_change_fn)(void *arg, const struct reach_peer *p, enum reach_status old);

struct reach;

/* A table with no peers; NULL on OOM or a bad configuration. */
struct reach *reach_create(const struct reach_config *cfg, reach_change_fn fn, void *arg);

/* Free the table (NULL is fine). */
void reach_destroy(struct reach *r);

/*
 * Replace the peer list with n identities (only the identity fields of
 * ids[] are read).  A peer already known by GUID keeps its state (a new LID
 * or QP cancels its probe in flight); a new one starts unknown (no-agent
 * without a service) with its first probe spread over one interval from
 * now; a peer no longer listed that ever answered is kept as lost (above),
 * the others are dropped.  Returns 0, -EINVAL (too many peers) or -ENOMEM
 * (the old list is kept).
 */
int reach_set_peers(struct reach *r, const struct reach_peer *ids, size_t n, uint64_t now);

/*
 * Fill up to max probes due at now, marking them sent; returns how many.
 * Call until it returns less than max.
 */
size_t reach_due(struct reach *r, uint64_t now, struct reach_probe *out, size_t max);

/*
 * A reply to probe seq came from slid after rtt_ns.  Returns true if it
 * matched the probe in flight (a late, duplicate or foreign reply does not).
 */
bool reach_reply(struct reach *r, uint32_t seq, uint16_t slid, uint64_t rtt_ns, uint64_t now);

/* Count the probes unanswered past the timeout as misses (changes reported); drop the lost
 * peers kept longer than cfg.lost_keep_ns. */
void reach_expire(struct reach *r, uint64_t now);

/* The earliest time reach_due or reach_expire has work (UINT64_MAX: none). */
uint64_t reach_next_deadline(const struct reach *r);

/* Make every probed peer due now (the CLI's on-demand check). */
void reach_probe_all_now(struct reach *r, uint64_t now);

/* The peers, in the order of the last reach_set_peers; *n their number. */
const struct reach_peer *reach_peers(const struct reach *r, size_t *n);

/* Set the hop count of the peer with this LID (from a route check); false if none. */
bool reach_set_hops(struct reach *r, uint16_t lid, uint8_t hops);

/* The index of a peer whose notice to the SM is due (notice_changes not 0) into *index;
 * returns false when none is. */
bool reach_notice_due(const struct reach *r, size_t *index);

/* The SMA took the notice of peer index (its status now): nothing more is due for it. */
void reach_notice_told(struct reach *r, size_t index);

/* A new master SM: every unreachable peer's notice is due again. */
void reach_notice_new_sm(struct reach *r);

/* The status's name ("reachable", "unreachable", "unknown", "no-agent", "lost"). */
const char *reach_status_name(enum reach_status s);

#endif /* PZ_REACH_H */

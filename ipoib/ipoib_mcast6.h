/*
 * ipoib_mcast6.h - the IPv6 multicast groups of an IPoIB endpoint: which
 * groups it is a member of (all-nodes, the solicited-node group of each
 * address, what MLD asks for) or only sends to (a peer's solicited-node
 * group), their MGIDs, join state, retry times and what each join answer
 * told; and the SA MADs that join and leave them.
 *
 * Unlike the IPv4 broadcast group, which the SM creates, an IPv6 group is
 * created by its first joiner, so a join carries the group's parameters:
 * those of the partition's broadcast group (Q_Key, MTU, rate, SL, traffic
 * class, flow label, hop limit), as Linux's ipoib sends them.  Pure
 * bookkeeping: no I/O, the caller sends the MADs (each join a transaction
 * of its mad_txn layer, which resends it) and passes the time.
 */
#ifndef PZ_IPOIB_MCAST6_H
#define PZ_IPOIB_MCAST6_H

#include <stdbool.h>
#include <stdint.h>

#include "ipoib_ip6.h"
#include "ipoib_sa.h"

#define IPOIB_JOIN_FULL 0x1          /* JoinState FullMember */
#define IPOIB_JOIN_SENDONLY_FULL 0x8 /* JoinState SendOnlyFullMember */
#define IPOIB_MCAST6_BACKOFF_MAX                                                                   \
    16000 /* ms: a join's resend interval at most, as the broadcast group's */

/* Member (receives and sends) or send-only. */
enum ipoib_mcast6_kind {
    IPOIB_MCAST6_FULL,
    IPOIB_MCAST6_SENDONLY,
};

/* Where one group's membership stands. */
enum ipoib_mcast6_state {
    IPOIB_MCAST6_FREE,    /* unused entry */
    IPOIB_MCAST6_IDLE,    /* wanted, no join out (the endpoint is down, or a new entry) */
    IPOIB_MCAST6_JOINING, /* join out (a transaction resending it), no good answer yet */
    IPOIB_MCAST6_UP,      /* joined: info holds the MLID and the rest */
};

/* One IPv6 multicast group. */
struct ipoib_mcast6 {
    uint8_t group[IPOIB_IP6_ADDR_LEN];
    uint8_t mgid[IPOIB_GID_LEN];
    enum ipoib_mcast6_kind kind;
    enum ipoib_mcast6_state state;
    unsigned refs;           /* FULL: how many times it was wanted */
    struct ipoib_group info; /* valid when UP */
    int txn;                 /* the join out (the caller's transaction id) when JOINING, else -1 */
    uint32_t tid;            /* its TID's low 32 bits, when JOINING */
    uint64_t last_used;      /* SENDONLY: the last send, for eviction */
    unsigned failures;       /* refused joins since the last success */
};

/* The groups of one endpoint. */
struct ipoib_mcast6_table {
    struct ipoib_mcast6 *g;
    unsigned max;          /* entries */
    unsigned sendonly_max; /* of which at most this many are SENDONLY */
    uint16_t pkey;
    uint8_t scope;     /* the MGID scope, the broadcast group's */
    unsigned retry_ms; /* a join's first resend interval */
};

/*
 * Build a SubnAdmSet(MCMemberRecord) joining mgid as port_gid with
 * join_state, carrying the broadcast group bcast's parameters so that the
 * SA can create the group: mask MGID|PortGID|Q_Key|MTU (selector exactly)|
 * TClass|P_Key|Rate (selector exactly)|SL|FlowLabel|HopLimit|JoinState,
 * and the Scope nibble of the MGID in the record (not in the mask; OpenSM
 * keeps it for the group it creates, as the broadcast group's 2).
 */
void ipoib_mcast6_build_join(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                             const uint8_t mgid[IPOIB_GID_LEN],
                             const uint8_t port_gid[IPOIB_GID_LEN], const struct ipoib_group *bcast,
                             uint16_t pkey, uint8_t join_state);

/* Build a SubnAdmDelete(MCMemberRecord) leaving mgid: MGID|PortGID|P_Key|JoinState. */
void ipoib_mcast6_build_leave(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                              const uint8_t mgid[IPOIB_GID_LEN],
                              const uint8_t port_gid[IPOIB_GID_LEN], uint16_t pkey,
                              uint8_t join_state);

/*
 * Set up t with max entries, at most sendonly_max of them send-only, for
 * partition pkey and MGID scope; retry_ms is a join's first resend interval.
 * Returns 0, or -1 if out of memory.
 */
int ipoib_mcast6_init(struct ipoib_mcast6_table *t, unsigned max, unsigned sendonly_max,
                      uint16_t pkey, uint8_t scope, unsigned retry_ms);

/* Free the entries. */
void ipoib_mcast6_fini(struct ipoib_mcast6_table *t);

/* The entry of group, or NULL. */
struct ipoib_mcast6 *ipoib_mcast6_find(struct ipoib_mcast6_table *t,
                                       const uint8_t group[IPOIB_IP6_ADDR_LEN]);

/* The JOINING entry whose join has transaction ID tid (low 32 bits compared), or NULL. */
struct ipoib_mcast6 *ipoib_mcast6_find_tid(struct ipoib_mcast6_table *t, uint64_t tid);

/*
 * Want membership of group (one more reference).  A send-only entry of the
 * same group becomes a member one (IDLE: it needs a full join; the caller
 * ends a send-only join still out first).  When the table is full, the
 * send-only entry used longest ago makes room: *evicted gets a copy of it
 * (state FREE if none) so the caller can end its join or leave it.
 * Returns the entry, or NULL when the table is full of member groups.
 */
struct ipoib_mcast6 *ipoib_mcast6_want(struct ipoib_mcast6_table *t,
                                       const uint8_t group[IPOIB_IP6_ADDR_LEN],
                                       struct ipoib_mcast6 *evicted);

/*
 * Drop one reference to group.  Returns true when that was the last one:
 * the caller leaves the group if it was UP, then calls ipoib_mcast6_remove.
 */
bool ipoib_mcast6_unwant(struct ipoib_mcast6_table *t, const uint8_t group[IPOIB_IP6_ADDR_LEN]);

/* Free entry e. */
void ipoib_mcast6_remove(struct ipoib_mcast6 *e);

/*
 * The entry to send to group through: an existing one of either kind
 * (marked used at now), else a new SENDONLY one (IDLE), evicting the send-only
 * entry used longest ago when sendonly_max are taken; *evicted gets a copy
 * of that entry (state FREE if none) so the caller can leave it.  Returns
 * NULL when no entry can be had.
 */
struct ipoib_mcast6 *ipoib_mcast6_sendonly(struct ipoib_mcast6_table *t,
                                           const uint8_t group[IPOIB_IP6_ADDR_LEN], uint64_t now,
                                           struct ipoib_mcast6 *evicted);

/*
 * The endpoint went down: member groups go back to IDLE (their references
 * stay, to join again), send-only ones are forgotten.  The caller ends the
 * joins still out first.
 */
void ipoib_mcast6_reset(struct ipoib_mcast6_table *t);

/*
 * The next group that wants a join (IDLE), or NULL.  The caller asks only
 * while the endpoint is a member of the broadcast group, whose parameters
 * a join carries.
 */
struct ipoib_mcast6 *ipoib_mcast6_next_idle(struct ipoib_mcast6_table *t);

/* A join of e went out as transaction txn with TID tid (low 32 bits): JOINING. */
void ipoib_mcast6_joining(struct ipoib_mcast6 *e, int txn, uint32_t tid);

/*
 * The answer to e's join: info when the SA accepted it (UP, the join
 * done), NULL when it refused (counted in failures; JOINING: the
 * transaction's next copy asks again).
 */
void ipoib_mcast6_answer(struct ipoib_mcast6 *e, const struct ipoib_group *info);

#endif

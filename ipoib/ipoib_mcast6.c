/*
 * ipoib_mcast6.c - the IPv6 multicast groups of an IPoIB endpoint: the SA
 * MADs that join and leave them, and the table of their states.
 */
#include "ipoib_mcast6.h"

#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>

#include "mad_header.h"

#define SA_CLASS_VERSION 2
#define SA_METHOD_DELETE 0x15
#define MCM_MTU_OFFS 38       /* MTUSelector(2) | MTU(6) */
#define MCM_RATE_OFFS 42      /* RateSelector(2) | Rate(6) */
#define MCM_HOP_LIMIT_OFFS 47 /* the byte after SL|FlowLabel */
#define MCM_SCOPE_OFFS 48     /* Scope(4) | JoinState(4) */

/* The header, MGID, PortGID, P_Key and JoinState that a join and a leave share. */
static void mcm_base(uint8_t *mad, unsigned method, uint64_t tid, uint64_t mask,
                     const uint8_t mgid[IPOIB_GID_LEN], const uint8_t port_gid[IPOIB_GID_LEN],
                     uint16_t pkey, uint8_t join_state)
{
    uint8_t gid[IPOIB_GID_LEN];

    mad_header_init(mad, IB_SA_CLASS, SA_CLASS_VERSION, method, tid, IB_SA_ATTR_MCRECORD, 0);
    mad_set_field64(mad, 0, IB_SA_COMPMASK_F, mask);
    memcpy(gid, mgid, sizeof(gid));
    mad_set_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_MGID_F, gid);
    memcpy(gid, port_gid, sizeof(gid));
    mad_set_array(mad, IB_SA_DATA_OFFS, IB_SA_MCM_PORTGID_F, gid);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_PKEY_F, pkey);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_JOIN_STATE_F, join_state);
}

/* A join that may create: the base, then the broadcast group's parameters. */
void ipoib_mcast6_build_join(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                             const uint8_t mgid[IPOIB_GID_LEN],
                             const uint8_t port_gid[IPOIB_GID_LEN], const struct ipoib_group *bcast,
                             uint16_t pkey, uint8_t join_state)
{
    const uint64_t mask =
        UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID | UMAD_SA_MCM_COMP_MASK_QKEY |
        UMAD_SA_MCM_COMP_MASK_MTU_SEL | UMAD_SA_MCM_COMP_MASK_MTU | UMAD_SA_MCM_COMP_MASK_TCLASS |
        UMAD_SA_MCM_COMP_MASK_PKEY | UMAD_SA_MCM_COMP_MASK_RATE_SEL | UMAD_SA_MCM_COMP_MASK_RATE |
        UMAD_SA_MCM_COMP_MASK_SL | UMAD_SA_MCM_COMP_MASK_FLOW_LABEL |
        UMAD_SA_MCM_COMP_MASK_HOP_LIMIT | UMAD_SA_MCM_COMP_MASK_JOIN_STATE;
    uint8_t *rec = mad + IB_SA_DATA_OFFS;

    mcm_base(mad, IB_MAD_METHOD_SET, tid, mask, mgid, port_gid, pkey, join_state);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_QKEY_F, bcast->qkey);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_TCLASS_F, bcast->tclass);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_SL_F, bcast->sl);
    mad_set_field(mad, IB_SA_DATA_OFFS, IB_SA_MCM_FLOW_LABEL_F, bcast->flow_label);
    /* Selector and value share a byte; libibmad has no field for the selectors. */
    rec[MCM_MTU_OFFS] = (uint8_t)(UMAD_SA_SELECTOR_EXACTLY << UMAD_SA_SELECTOR_SHIFT |
                                  (bcast->mtu & UMAD_SA_RATE_MTU_PKT_LIFE_MASK));
    rec[MCM_RATE_OFFS] = (uint8_t)(UMAD_SA_SELECTOR_EXACTLY << UMAD_SA_SELECTOR_SHIFT |
                                   (bcast->rate & UMAD_SA_RATE_MTU_PKT_LIFE_MASK));
    rec[MCM_HOP_LIMIT_OFFS] = bcast->hop_limit;
    rec[MCM_SCOPE_OFFS] |= (uint8_t)((mgid[1] & 0x0f) << 4); /* the group's scope, as its MGID */
}

/* A leave: SubnAdmDelete with the base fields. */
void ipoib_mcast6_build_leave(uint8_t mad[IPOIB_SA_MAD_LEN], uint64_t tid,
                              const uint8_t mgid[IPOIB_GID_LEN],
                              const uint8_t port_gid[IPOIB_GID_LEN], uint16_t pkey,
                              uint8_t join_state)
{
    mcm_base(mad, SA_METHOD_DELETE, tid,
             UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID |
                 UMAD_SA_MCM_COMP_MASK_PKEY | UMAD_SA_MCM_COMP_MASK_JOIN_STATE,
             mgid, port_gid, pkey, join_state);
}

/* Allocate the entries, all FREE. */
int ipoib_mcast6_init(struct ipoib_mcast6_table *t, unsigned max, unsigned sendonly_max,
                      uint16_t pkey, uint8_t scope, unsigned retry_ms)
{
    memset(t, 0, sizeof(*t));
    t->g = calloc(max ? max : 1, sizeof(*t->g));
    if (!t->g)
        return -1;
    t->max = max;
    t->sendonly_max = sendonly_max < max ? sendonly_max : max;
    t->pkey = pkey;
    t->scope = scope;
    t->retry_ms = retry_ms ? retry_ms : 1000;
    return 0;
}

/* Free the entries. */
void ipoib_mcast6_fini(struct ipoib_mcast6_table *t)
{
    free(t->g);
    t->g = NULL;
    t->max = 0;
}

/* Linear search by group address. */
struct ipoib_mcast6 *ipoib_mcast6_find(struct ipoib_mcast6_table *t,
                                       const uint8_t group[IPOIB_IP6_ADDR_LEN])
{
    for (unsigned i = 0; i < t->max; i++)
        if (t->g[i].state != IPOIB_MCAST6_FREE &&
            memcmp(t->g[i].group, group, IPOIB_IP6_ADDR_LEN) == 0)
            return &t->g[i];
    return NULL;
}

/* Linear search by the outstanding join's TID. */
struct ipoib_mcast6 *ipoib_mcast6_find_tid(struct ipoib_mcast6_table *t, uint64_t tid)
{
    for (unsigned i = 0; i < t->max; i++)
        if (t->g[i].state == IPOIB_MCAST6_JOINING && t->g[i].txn >= 0 &&
            t->g[i].tid == (uint32_t)tid)
            return &t->g[i];
    return NULL;
}

/* Fill a free entry for group, IDLE, of kind k. */
static struct ipoib_mcast6 *entry_new(struct ipoib_mcast6_table *t,
                                      const uint8_t group[IPOIB_IP6_ADDR_LEN],
                                      enum ipoib_mcast6_kind k)
{
    for (unsigned i = 0; i < t->max; i++) {
        struct ipoib_mcast6 *e = &t->g[i];
        if (e->state != IPOIB_MCAST6_FREE)
            continue;
        memset(e, 0, sizeof(*e));
        memcpy(e->group, group, IPOIB_IP6_ADDR_LEN);
        ipoib_ip6_mcast_mgid(t->pkey, t->scope, group, e->mgid);
        e->kind = k;
        e->state = IPOIB_MCAST6_IDLE;
        e->txn = -1;
        return e;
    }
    return NULL;
}

/* The send-only entry used longest ago, and how many there are. */
static struct ipoib_mcast6 *oldest_sendonly(struct ipoib_mcast6_table *t, unsigned *count)
{
    struct ipoib_mcast6 *old = NULL;

    *count = 0;
    for (unsigned i = 0; i < t->max; i++) {
        struct ipoib_mcast6 *e = &t->g[i];
        if (e->state == IPOIB_MCAST6_FREE || e->kind != IPOIB_MCAST6_SENDONLY)
            continue;
        (*count)++;
        if (!old || e->last_used < old->last_used)
            old = e;
    }
    return old;
}

/* One more reference; a send-only entry is promoted and must join again. */
struct ipoib_mcast6 *ipoib_mcast6_want(struct ipoib_mcast6_table *t,
                                       const uint8_t group[IPOIB_IP6_ADDR_LEN],
                                       struct ipoib_mcast6 *evicted)
{
    struct ipoib_mcast6 *e = ipoib_mcast6_find(t, group);

    memset(evicted, 0, sizeof(*evicted));
    if (e && e->kind == IPOIB_MCAST6_SENDONLY) {
        e->kind = IPOIB_MCAST6_FULL;
        e->state = IPOIB_MCAST6_IDLE;
        e->txn = -1;
        e->tid = 0;
    }
    if (!e)
        e = entry_new(t, group, IPOIB_MCAST6_FULL);
    if (!e) {
        unsigned n;
        struct ipoib_mcast6 *old = oldest_sendonly(t, &n);
        if (!old)
            return NULL;
        *evicted = *old;
        ipoib_mcast6_remove(old); /* a member group outranks a send-only one */
        e = entry_new(t, group, IPOIB_MCAST6_FULL);
    }
    e->refs++;
    return e;
}

/* One reference less; true when none is left. */
bool ipoib_mcast6_unwant(struct ipoib_mcast6_table *t, const uint8_t group[IPOIB_IP6_ADDR_LEN])
{
    struct ipoib_mcast6 *e = ipoib_mcast6_find(t, group);

    if (!e || e->kind != IPOIB_MCAST6_FULL || e->refs == 0)
        return false;
    return --e->refs == 0;
}

/* Back to FREE. */
void ipoib_mcast6_remove(struct ipoib_mcast6 *e)
{
    memset(e, 0, sizeof(*e));
}

/* Find, or make a send-only entry, evicting the least recently used one. */
struct ipoib_mcast6 *ipoib_mcast6_sendonly(struct ipoib_mcast6_table *t,
                                           const uint8_t group[IPOIB_IP6_ADDR_LEN], uint64_t now,
                                           struct ipoib_mcast6 *evicted)
{
    struct ipoib_mcast6 *e = ipoib_mcast6_find(t, group);
    unsigned n;

    memset(evicted, 0, sizeof(*evicted));
    if (!e) {
        struct ipoib_mcast6 *old = oldest_sendonly(t, &n);

        if (!t->sendonly_max)
            return NULL;
        if (old && n >= t->sendonly_max) {
            *evicted = *old;
            ipoib_mcast6_remove(old);
            old = NULL;
        }
        e = entry_new(t, group, IPOIB_MCAST6_SENDONLY);
        if (!e && old) { /* full of member groups and a few send-only ones */
            *evicted = *old;
            ipoib_mcast6_remove(old);
            e = entry_new(t, group, IPOIB_MCAST6_SENDONLY);
        }
        if (!e)
            return NULL;
    }
    e->last_used = now;
    return e;
}

/* Members to IDLE, send-only entries freed. */
void ipoib_mcast6_reset(struct ipoib_mcast6_table *t)
{
    for (unsigned i = 0; i < t->max; i++) {
        struct ipoib_mcast6 *e = &t->g[i];
        if (e->state == IPOIB_MCAST6_FREE)
            continue;
        if (e->kind == IPOIB_MCAST6_SENDONLY) {
            ipoib_mcast6_remove(e);
            continue;
        }
        e->state = IPOIB_MCAST6_IDLE;
        e->txn = -1;
        e->tid = 0;
        memset(&e->info, 0, sizeof(e->info));
    }
}

/* The first IDLE entry (new, or after a rejoin). */
struct ipoib_mcast6 *ipoib_mcast6_next_idle(struct ipoib_mcast6_table *t)
{
    for (unsigned i = 0; i < t->max; i++)
        if (t->g[i].state == IPOIB_MCAST6_IDLE)
            return &t->g[i];
    return NULL;
}

/* JOINING, with the transaction that carries the join. */
void ipoib_mcast6_joining(struct ipoib_mcast6 *e, int txn, uint32_t tid)
{
    e->state = IPOIB_MCAST6_JOINING;
    e->txn = txn;
    e->tid = tid;
}

/* UP with what the SA said, or a refusal counted (the transaction asks again). */
void ipoib_mcast6_answer(struct ipoib_mcast6 *e, const struct ipoib_group *info)
{
    if (!info) {
        e->failures++;
        return;
    }
    e->info = *info;
    e->state = IPOIB_MCAST6_UP;
    e->txn = -1;
    e->tid = 0;
    e->failures = 0;
}

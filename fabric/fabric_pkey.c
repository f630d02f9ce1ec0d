/*
 * fabric_pkey.c - partitions: the P_Key a packet carries, and partition
 * enforcement at switch ports.
 *
 * The P_Key of a packet.  ibsim's client protocol carries no P_Key (nor the
 * P_Key index of the umad), so the fabric chooses it as the sender's stack
 * would with P_Key index 0, which OpenSM and libibmad's tools use:
 *   - SMPs (QP0, VL15) are exempt from P_Keys: they carry 0xFFFF and are
 *     never checked;
 *   - a GMP response carries the P_Key of the request it answers (matched by
 *     TID among the recent requests handed to a client at that port), as
 *     OpenSM answers with the request's P_Key index;
 *   - anything else carries the first valid entry of the sending port's
 *     P_Key table (index 0 unless that entry is invalid; switches: port 0).
 *
 * Enforcement.  A switch port with PortInfo PartitionEnforcementInbound
 * checks LID-routed packets entering it, one with ...Outbound those leaving
 * it, against the port's P_Key table (OpenSM copies the table of the CA
 * port behind it).  A packet that matches no entry is dropped and counted
 * (PortRcvConstraintErrors / PortXmitConstraintErrors of that port).
 * Matching (low 15 bits equal and not 0, plus the membership rule, as
 * Linux's hfi1 ingress/egress_pkey_matches_entry):
 *   inbound:  a full-member P_Key needs a full-member entry (a limited
 *             member may not send as a full one);
 *   outbound: a limited-member P_Key needs a full-member entry (two limited
 *             members cannot talk).
 */
#include <stdio.h>

#include <infiniband/mad.h>

#include "fabric_internal.h"
#include "pzf_log.h"

#define PKEY_BASE_MASK 0x7FFFu
#define PKEY_FULL_MEMBER 0x8000u
#define PKEY_DEFAULT 0xFFFFu

bool fabric_pkey_exempt(const struct fabric_pkt *p)
{
    unsigned mgmt_class = mad_get_field((void *)p->mad, 0, IB_MAD_MGMTCLASS_F);

    return p->dqp == 0 || mgmt_class == IB_SMI_CLASS || mgmt_class == IB_SMI_DIRECT_CLASS;
}

/* Whether a packet's P_Key and a table entry name the same (valid) partition. */
static bool pkey_same_partition(uint16_t pkt_pkey, uint16_t entry)
{
    return (pkt_pkey & PKEY_BASE_MASK) != 0 &&
           (pkt_pkey & PKEY_BASE_MASK) == (entry & PKEY_BASE_MASK);
}

bool fabric_pkey_match_inbound(uint16_t pkt_pkey, uint16_t entry)
{
    if (!pkey_same_partition(pkt_pkey, entry))
        return false;
    return !(pkt_pkey & PKEY_FULL_MEMBER) || (entry & PKEY_FULL_MEMBER);
}

bool fabric_pkey_match_outbound(uint16_t pkt_pkey, uint16_t entry)
{
    if (!pkey_same_partition(pkt_pkey, entry))
        return false;
    return (pkt_pkey & PKEY_FULL_MEMBER) || (entry & PKEY_FULL_MEMBER);
}

/*
 * Read block `block` of the P_Key table of (n, port) into keys; returns the
 * number of entries of it that exist (0 past the end or on an error).
 */
static unsigned pkey_block(const struct fabric_node *n, unsigned port, unsigned block,
                           uint16_t keys[BOARD_PKEY_BLOCK])
{
    unsigned cap = board_pkey_cap(n->board, port);

    if (block * BOARD_PKEY_BLOCK >= cap || board_pkey_get(n->board, port, block, keys))
        return 0;
    return cap - block * BOARD_PKEY_BLOCK < BOARD_PKEY_BLOCK ? cap - block * BOARD_PKEY_BLOCK
                                                             : BOARD_PKEY_BLOCK;
}

/* Whether an entry of the P_Key table of (n, port) matches pkt_pkey (inbound or outbound rule). */
bool fabric_pkey_table_matches(const struct fabric_node *n, unsigned port, uint16_t pkt_pkey,
                               bool inbound)
{
    uint16_t keys[BOARD_PKEY_BLOCK];
    unsigned count;

    for (unsigned block = 0; (count = pkey_block(n, port, block, keys)) > 0; block++)
        for (unsigned i = 0; i < count; i++)
            if (inbound ? fabric_pkey_match_inbound(pkt_pkey, keys[i])
                        : fabric_pkey_match_outbound(pkt_pkey, keys[i]))
                return true;
    return false;
}

bool fabric_pkey_in_table(const struct fabric_node *n, unsigned port, uint16_t pkey)
{
    uint16_t keys[BOARD_PKEY_BLOCK];
    unsigned count;

    if (!(pkey & PKEY_BASE_MASK))
        return false;
    for (unsigned block = 0; (count = pkey_block(n, port, block, keys)) > 0; block++)
        for (unsigned i = 0; i < count; i++)
            if (keys[i] == pkey)
                return true;
    return false;
}

/* The first valid entry of the P_Key table of (n, port), or 0 if there is none. */
static uint16_t pkey_table_first(const struct fabric_node *n, unsigned port)
{
    uint16_t keys[BOARD_PKEY_BLOCK];
    unsigned count;

    for (unsigned block = 0; (count = pkey_block(n, port, block, keys)) > 0; block++)
        for (unsigned i = 0; i < count; i++)
            if (keys[i] & PKEY_BASE_MASK)
                return keys[i];
    return 0;
}

_Static_assert((FABRIC_REQ_PKEYS & (FABRIC_REQ_PKEYS - 1)) == 0, "a power of two");

/*
 * The slot of a request in the direct-mapped table of recent requests: a
 * hash of its TID and where it was handed.  A newer request in the same slot
 * replaces an older one, as the oldest fall out of any bounded memory; with
 * 4096 slots and the tens of requests a manager keeps outstanding, a
 * collision before the answer is rare, and it costs only the P_Key choice of
 * that answer (the port's first entry).  Returns an index < FABRIC_REQ_PKEYS.
 */
static unsigned fabric_req_slot(uint64_t tid, uint32_t node, unsigned port)
{
    uint64_t h = tid ^ ((uint64_t)node << 8 | port) * 0x9E3779B97F4A7C15ull;

    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 32;
    return (unsigned)(h & (FABRIC_REQ_PKEYS - 1));
}

/* The P_Key of the latest request with this TID given to a client at (node, port), or 0. */
static uint16_t pkey_of_request(const struct fabric *f, uint32_t node, unsigned port, uint64_t tid)
{
    const struct fabric_req_pkey *r = &f->req_pkeys[fabric_req_slot(tid, node, port)];

    return r->pkey && r->tid == tid && r->node == node && r->port == port ? r->pkey : 0;
}

void fabric_pkey_note_request(struct fabric *f, const struct fabric_node *n, unsigned port,
                              const struct fabric_pkt *p)
{
    struct fabric_req_pkey *r;
    uint64_t tid;

    if (fabric_pkey_exempt(p) || !p->pkey || mad_get_field((void *)p->mad, 0, IB_MAD_RESPONSE_F))
        return;
    tid = mad_get_field64((void *)p->mad, 0, IB_MAD_TRID_F);
    r = &f->req_pkeys[fabric_req_slot(tid, n->index, port)];
    r->tid = tid;
    r->node = n->index;
    r->port = (uint8_t)port;
    r->pkey = p->pkey;
}

void fabric_pkey_choose(struct fabric *f, struct fabric_node *n, unsigned port,
                        struct fabric_pkt *p)
{
    unsigned ep = fabric_end_port(n, port);
    uint16_t pkey = 0;

    if (fabric_pkey_exempt(p)) {
        p->pkey = PKEY_DEFAULT;
        return;
    }
    if (mad_get_field(p->mad, 0, IB_MAD_RESPONSE_F))
        pkey = pkey_of_request(f, n->index, ep, mad_get_field64(p->mad, 0, IB_MAD_TRID_F));
    if (!pkey)
        pkey = pkey_table_first(n, ep);
    p->pkey = pkey ? pkey : PKEY_DEFAULT; /* an empty table: nothing better to say */
}

/* Whether (n, port) is a switch port that enforces partitions in that direction. */
static bool pkey_enforced(const struct fabric_node *n, unsigned port, bool inbound)
{
    struct board_port_config cfg;

    if (!n->is_switch || port == 0 || board_pkey_cap(n->board, port) == 0 ||
        board_port_config_get(n->board, port, &cfg))
        return false;
    return inbound ? cfg.part_enf_inbound : cfg.part_enf_outbound;
}

/* Count and log a packet (pkey, slid -> dlid) refused at (n, port) (rcv or xmit constraint error).
 */
static void pkey_count_reject(struct fabric *f, struct fabric_node *n, unsigned port, uint16_t pkey,
                              uint16_t slid, uint16_t dlid, bool inbound)
{
    struct board_port_counters *c = board_mem_counters(n->bm, port);

    if (c)
        board_mem_counter_add(n->bm,
                              inbound ? &c->rcv_constraint_errors : &c->xmit_constraint_errors, 1);
    f->stats.pkey_dropped++;
    pzf_log(f->verbose, PZF_LOG_INFO,
            "partition enforcement: P_Key 0x%04x (LID %u -> %u) dropped %s %s port %u", pkey, slid,
            dlid, inbound ? "entering" : "leaving", n->name, port);
}

/* Drop p at (n, port) for its P_Key and count it (rcv or xmit constraint error). */
static void pkey_reject(struct fabric *f, struct fabric_node *n, unsigned port,
                        const struct fabric_pkt *p, bool inbound)
{
    char why[96];

    pkey_count_reject(f, n, port, p->pkey, p->slid, p->dlid, inbound);
    snprintf(why, sizeof(why), "P_Key 0x%04x not in the P_Key table of %s port %u", p->pkey,
             inbound ? "ingress" : "egress", port);
    fabric_drop(f, p, why);
}

bool fabric_pkey_port_allows(struct fabric *f, struct fabric_node *n, unsigned port, uint16_t pkey,
                             uint16_t slid, uint16_t dlid, bool inbound)
{
    if (!pkey_enforced(n, port, inbound) || fabric_pkey_table_matches(n, port, pkey, inbound))
        return true;
    pkey_count_reject(f, n, port, pkey, slid, dlid, inbound);
    return false;
}

/*
 * Whether packet p may enter (inbound) or leave port of n: exempt, not
 * enforced there, or its P_Key in the table; a refusal is counted and
 * logged.  Returns true to let it pass.
 */
static bool pkey_packet_ok(struct fabric *f, struct fabric_node *n, unsigned port,
                           const struct fabric_pkt *p, bool inbound)
{
    if (fabric_pkey_exempt(p) || !pkey_enforced(n, port, inbound) ||
        fabric_pkey_table_matches(n, port, p->pkey, inbound))
        return true;
    pkey_reject(f, n, port, p, inbound);
    return false;
}

bool fabric_pkey_inbound_ok(struct fabric *f, struct fabric_node *n, unsigned port,
                            const struct fabric_pkt *p)
{
    return pkey_packet_ok(f, n, port, p, true);
}

bool fabric_pkey_outbound_ok(struct fabric *f, struct fabric_node *n, unsigned port,
                             const struct fabric_pkt *p)
{
    return pkey_packet_ok(f, n, port, p, false);
}

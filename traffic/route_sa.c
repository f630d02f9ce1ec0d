/*
 * route_sa.c - SA records into the route check's fabric (route_sa.h).
 */
#include "route_sa.h"

#include <stdio.h>

/* Whether a record's LID is one a node can own (others are skipped, not errors). */
static bool rc_lid_ok(uint16_t lid)
{
    return lid != 0 && lid < 0xc000;
}

/* One NodeRecord: a switch by its port-0 LID, a CA or router port by its LID. */
static int rc_add_node(struct rc_fabric *f, const uint8_t *rec, size_t stride)
{
    struct sa_node_record n;

    if (sa_node_record_decode(rec, stride, &n))
        return -1;
    if (!rc_lid_ok(n.lid))
        return 0; /* a port without a LID routes nothing */
    if (n.node_type == IB_NODE_SWITCH)
        return rc_fabric_add_switch(f, n.lid, n.node_guid, n.nports, n.desc);
    return rc_fabric_add_endpoint(f, n.lid, n.port_guid, n.local_port, n.desc);
}

/* One LinkRecord. */
static int rc_add_link(struct rc_fabric *f, const uint8_t *rec, size_t stride)
{
    struct sa_link_record l;

    if (sa_link_record_decode(rec, stride, &l))
        return -1;
    if (!rc_lid_ok(l.from_lid) || !rc_lid_ok(l.to_lid) || l.from_port == RC_NO_PORT ||
        l.to_port == RC_NO_PORT)
        return 0;
    return rc_fabric_add_link(f, l.from_lid, l.from_port, l.to_lid, l.to_port);
}

/* One LinearForwardingTableRecord. */
static int rc_add_lft(struct rc_fabric *f, const uint8_t *rec, size_t stride)
{
    struct sa_lft_record b;

    if (sa_lft_record_decode(rec, stride, &b))
        return -1;
    if (!rc_lid_ok(b.lid) || b.block >= 0xc000 / 64)
        return 0;
    return rc_fabric_add_lft_block(f, b.lid, b.block, b.port);
}

/*
 * One PortInfoRecord: the LMC of a CA port, or of a switch's port 0 (its
 * other ports share its base LID and have no LMC of their own).  Records
 * of LIDs no node owns, and LMCs that would take another node's LIDs, are
 * skipped (the port stays LMC 0); returns -1 only for a record too short.
 */
static int rc_add_port_info(struct rc_fabric *f, const uint8_t *rec, size_t stride)
{
    struct sa_port_info_record p;
    bool is_switch = false;

    if (sa_port_info_record_decode(rec, stride, &p))
        return -1;
    if (!rc_lid_ok(p.lid) || !rc_fabric_lid_name(f, p.lid, &is_switch) ||
        (is_switch && p.port != 0))
        return 0;
    (void)rc_fabric_set_lmc(f, p.lid, p.lmc);
    return 0;
}

/*
 * A PortInfoRecord answer that carries none (an SA without them, an error
 * status): the LMCs stay 0 and the fabric notes why.  Returns true when
 * the answer was such, false when it has records to read.
 */
static bool rc_port_info_fallback(struct rc_fabric *f, const struct sa_answer *a)
{
    char why[64];

    if (a->status && sa_status_code(a->status) == SA_STATUS_NO_RECORDS && !(a->status & 0xff))
        snprintf(why, sizeof(why), "the SA has no PortInfoRecords");
    else if (a->status)
        snprintf(why, sizeof(why), "PortInfoRecords refused: %s", sa_status_name(a->status));
    else if (a->count == 0 && !a->truncated)
        snprintf(why, sizeof(why), "the SA has no PortInfoRecords");
    else
        return false;
    rc_fabric_set_lmc_known(f, false, why);
    return true;
}

long rc_fabric_add_sa_answer(struct rc_fabric *f, const struct sa_answer *a, const char **why)
{
    int (*add)(struct rc_fabric *, const uint8_t *, size_t);
    long n = 0;

    switch (a->attr_id) {
    case IB_SA_ATTR_NODERECORD:
        add = rc_add_node;
        break;
    case IB_SA_ATTR_LINKRECORD:
        add = rc_add_link;
        break;
    case IB_SA_ATTR_LFTRECORD:
        add = rc_add_lft;
        break;
    case IB_SA_ATTR_PORTINFORECORD:
        if (rc_port_info_fallback(f, a))
            return 0;
        add = rc_add_port_info;
        break;
    default:
        *why = "not a NodeRecord, LinkRecord, LFTRecord or PortInfoRecord answer";
        return -1;
    }
    if (a->status && sa_status_code(a->status) == SA_STATUS_NO_RECORDS && !(a->status & 0xff))
        return 0;
    if (a->status) {
        *why = sa_status_name(a->status);
        return -1;
    }
    if (a->truncated) {
        *why = "the answer holds only the first RMPP segment (not reassembled)";
        return -1;
    }
    for (size_t i = 0; i < a->count; i++, n++)
        if (add(f, sa_answer_record(a, i), a->stride)) {
            *why = "a record too short for its attribute, or no memory";
            return -1;
        }
    if (a->attr_id == IB_SA_ATTR_PORTINFORECORD)
        rc_fabric_set_lmc_known(f, true, NULL);
    return n;
}

/*
 * fabric_repath.c - the emulated hosts' side of dFtree (fabric_repath.h):
 * the repath and fast-lane notices pz-dftree sends to a CA, checked and
 * answered as the host's stack would, the hot-spots each host was told
 * about, and the lanes.  The flows themselves move in fabric_traffic.c
 * (fabric_flows_move_lane()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "dftree_notice.h"
#include "fabric_internal.h"
#include "fabric_repath.h"
#include "fabric_traffic.h"
#include "pzf_array.h"
#include "pzf_log.h"

/* One hot-spot a host was told about. */
struct repath_hot {
    uint32_t host;
    uint16_t lid;
};

struct fabric_repath {
    unsigned fast_sl, slow_sl;
    uint32_t issuers[FABRIC_REPATH_ISSUERS_MAX]; /* trusted nodes; none: any */
    unsigned num_issuers;
    struct repath_hot *hot;
    size_t num_hot, cap_hot;
    struct fabric_repath_stats stats;
};

/* The state of f, created on first use; NULL on OOM. */
static struct fabric_repath *repath_get(struct fabric *f)
{
    if (!f->repath) {
        f->repath = calloc(1, sizeof(*f->repath));
        if (f->repath) {
            f->repath->fast_sl = FABRIC_FAST_SL_DEFAULT;
            f->repath->slow_sl = FABRIC_SLOW_SL_DEFAULT;
        }
    }
    return f->repath;
}

void fabric_repath_free(struct fabric *f)
{
    if (f->repath)
        free(f->repath->hot);
    free(f->repath);
    f->repath = NULL;
}

int fabric_repath_set_lanes(struct fabric *f, unsigned fast_sl, unsigned slow_sl)
{
    struct fabric_repath *r;

    if (fast_sl >= BOARD_NUM_SLS || slow_sl >= BOARD_NUM_SLS || fast_sl == slow_sl)
        return -EINVAL;
    r = repath_get(f);
    if (!r)
        return -ENOMEM;
    r->fast_sl = fast_sl;
    r->slow_sl = slow_sl;
    return 0;
}

void fabric_repath_lanes(const struct fabric *f, unsigned *fast_sl, unsigned *slow_sl)
{
    *fast_sl = f->repath ? f->repath->fast_sl : FABRIC_FAST_SL_DEFAULT;
    *slow_sl = f->repath ? f->repath->slow_sl : FABRIC_SLOW_SL_DEFAULT;
}

int fabric_repath_trust(struct fabric *f, size_t node)
{
    struct fabric_repath *r;

    if (node >= f->num_nodes)
        return -EINVAL;
    r = repath_get(f);
    if (!r)
        return -ENOMEM;
    if (r->num_issuers == FABRIC_REPATH_ISSUERS_MAX)
        return -ENOSPC;
    r->issuers[r->num_issuers++] = (uint32_t)node;
    return 0;
}

bool fabric_repath_lid_node(const struct fabric *f, uint16_t lid, size_t *node)
{
    if (lid == 0 || lid >= 0xC000)
        return false; /* not a unicast LID */
    for (size_t i = 0; i < f->num_nodes; i++) {
        const struct fabric_node *n = &f->nodes[i];

        if (n->is_switch)
            continue;
        for (unsigned p = 1; p <= n->num_ports; p++)
            if (fabric_lid_is_mine(n, p, lid)) {
                *node = i;
                return true;
            }
    }
    return false;
}

/* The index of host's entry for lid in r->hot, or -1. */
static long repath_find(const struct fabric_repath *r, size_t host, uint16_t lid)
{
    for (size_t i = 0; r && i < r->num_hot; i++)
        if (r->hot[i].host == host && r->hot[i].lid == lid)
            return (long)i;
    return -1;
}

/* Remember (slow) or forget (!slow) that host knows lid as a hot-spot; 0 or -ENOMEM. */
static int repath_note(struct fabric_repath *r, size_t host, uint16_t lid, bool slow)
{
    long i = repath_find(r, host, lid);

    if (!slow) {
        if (i >= 0)
            r->hot[i] = r->hot[--r->num_hot];
        return 0;
    }
    if (i >= 0)
        return 0;
    if (r->num_hot == r->cap_hot) {
        struct repath_hot *h = pzf_array_grow(r->hot, &r->cap_hot, sizeof(*h), 8);

        if (!h)
            return -ENOMEM;
        r->hot = h;
    }
    r->hot[r->num_hot++] = (struct repath_hot){(uint32_t)host, lid};
    return 0;
}

int fabric_repath_apply(struct fabric *f, size_t host, uint16_t hot_lid, bool slow)
{
    struct fabric_repath *r;

    if (host >= f->num_nodes || f->nodes[host].is_switch)
        return -EINVAL;
    r = repath_get(f);
    if (!r || repath_note(r, host, hot_lid, slow))
        return -ENOMEM;
    return (int)fabric_flows_move_lane(f, host, hot_lid, slow);
}

bool fabric_repath_is_hot(const struct fabric *f, size_t host, size_t dst)
{
    const struct fabric_repath *r = f->repath;

    for (size_t i = 0; r && i < r->num_hot; i++)
        if (r->hot[i].host == host && fabric_lid_is_mine(&f->nodes[dst], 1, r->hot[i].lid))
            return true;
    return false;
}

void fabric_repath_get_stats(const struct fabric *f, struct fabric_repath_stats *s)
{
    if (f->repath)
        *s = f->repath->stats;
    else
        memset(s, 0, sizeof(*s));
}

/* ---- a notice reaching a host ---- */

/* Send the host's ReportResp (status) back to the notice's sender. */
static void repath_answer(struct fabric *f, struct fabric_node *n, unsigned in_port,
                          const struct fabric_pkt *p, uint16_t status)
{
    struct fabric_pkt q;

    memset(&q, 0, sizeof(q));
    memcpy(q.mad, p->mad, FABRIC_MAD_SIZE);
    dftree_notice_answer(q.mad, status);
    q.slid = fabric_port_lid(n, in_port);
    q.dlid = p->slid;
    q.sqp = 1;
    q.dqp = p->sqp;
    q.node = n->index;
    q.port = (uint8_t)fabric_end_port(n, in_port);
    q.hops = p->hops;
    q.kind = FABRIC_PKT_ROUTE;
    fabric_enqueue(f, &q);
}

/* The name of the node whose port has LID lid, or "?". */
static const char *repath_lid_name(const struct fabric *f, uint16_t lid)
{
    for (size_t i = 0; lid && i < f->num_nodes; i++)
        for (unsigned p = 0; p <= f->nodes[i].num_ports; p++)
            if ((p == 0) == f->nodes[i].is_switch && fabric_lid_is_mine(&f->nodes[i], p, lid))
                return f->nodes[i].name;
    return "?";
}

/*
 * Whether the host trusts the notice's issuer: its IssuerLID is the packet's
 * source LID, and that port's node is trusted (any, when none is named).
 */
static bool repath_issuer_ok(const struct fabric *f, const struct fabric_pkt *p,
                             const struct dftree_notice *nt)
{
    const struct fabric_repath *r = f->repath;

    if (nt->issuer_lid == 0 || nt->issuer_lid != p->slid)
        return false;
    if (!r || r->num_issuers == 0)
        return true;
    for (unsigned i = 0; i < r->num_issuers; i++) {
        const struct fabric_node *m = &f->nodes[r->issuers[i]];

        for (unsigned q = 0; q <= m->num_ports; q++)
            if ((q == 0) == m->is_switch && fabric_lid_is_mine(m, q, p->slid))
                return true;
    }
    return false;
}

/* Take a notice the host accepted: refuse it (0x1C) or move the flows; returns the status. */
static uint16_t repath_take(struct fabric *f, struct fabric_node *n, const struct dftree_notice *nt)
{
    struct fabric_repath *r = f->repath;
    bool slow = nt->trap == DFTREE_TRAP_REPATH;
    size_t hot;
    int moved;

    if (nt->trap != DFTREE_TRAP_REPATH && nt->trap != DFTREE_TRAP_FAST_LANE) {
        pzf_log(f->verbose, PZF_LOG_ERROR, "repath: %s refuses trap 0x%04x from LID %u", n->name,
                nt->trap, nt->issuer_lid);
        return DFTREE_STATUS_INVALID;
    }
    if (!fabric_repath_lid_node(f, nt->hot_lid, &hot)) {
        pzf_log(f->verbose, PZF_LOG_ERROR,
                "repath: %s refuses a %s notice for LID %u: no CA port has that LID", n->name,
                dftree_trap_name(nt->trap), nt->hot_lid);
        return DFTREE_STATUS_INVALID;
    }
    moved = fabric_repath_apply(f, n->index, nt->hot_lid, slow);
    if (moved < 0) {
        pzf_log(f->verbose, PZF_LOG_ERROR, "repath: %s: out of memory", n->name);
        return DFTREE_STATUS_INVALID;
    }
    if (slow)
        r->stats.repaths++;
    else
        r->stats.fast++;
    r->stats.moves += (unsigned)moved;
    pzf_log(f->verbose, PZF_LOG_INFO,
            "repath: %s got %s for hot-spot LID %u (%s, switch LID %u port %u) from LID %u: %d "
            "flow(s) moved",
            n->name, dftree_trap_name(nt->trap), nt->hot_lid, f->nodes[hot].name, nt->switch_lid,
            nt->switch_port, nt->issuer_lid, moved);
    return 0;
}

bool fabric_repath_local(struct fabric *f, struct fabric_node *n, unsigned in_port,
                         const struct fabric_pkt *p)
{
    struct fabric_repath *r;
    struct dftree_notice nt;
    const char *why = "";
    size_t len = p->len ? p->len : FABRIC_MAD_SIZE;
    uint16_t status;

    if (n->is_switch || mad_get_field((void *)p->mad, 0, IB_MAD_MGMTCLASS_F) != DFTREE_MGMT_CLASS ||
        mad_get_field((void *)p->mad, 0, IB_MAD_RESPONSE_F))
        return false;
    r = repath_get(f);
    if (!r) {
        fabric_drop(f, p, "out of memory");
        return true;
    }
    r->stats.notices++;
    if (dftree_notice_parse(p->mad, len, &nt, &why) || nt.method != 0x06) {
        r->stats.dropped++;
        pzf_log(f->verbose, PZF_LOG_ERROR, "repath: %s drops a MAD of class 0x%02x from LID %u: %s",
                n->name, DFTREE_MGMT_CLASS, p->slid, *why ? why : "not a Report");
        fabric_drop(f, p, "not a dFtree notice");
        return true;
    }
    if (nt.vendor_id != DFTREE_VENDOR_ID || nt.device_id != DFTREE_DEVICE_ID) {
        r->stats.dropped++;
        pzf_log(f->verbose, PZF_LOG_ERROR,
                "repath: %s drops a notice of vendor 0x%06x device 0x%04x from LID %u", n->name,
                nt.vendor_id, nt.device_id, p->slid);
        fabric_drop(f, p, "dFtree notice of another vendor");
        return true;
    }
    if (!repath_issuer_ok(f, p, &nt)) {
        r->stats.dropped++;
        pzf_log(f->verbose, PZF_LOG_ERROR,
                "repath: %s drops a %s notice for LID %u from an unknown issuer (IssuerLID %u, "
                "source LID %u, %s)",
                n->name, dftree_trap_name(nt.trap), nt.hot_lid, nt.issuer_lid, p->slid,
                repath_lid_name(f, p->slid));
        fabric_drop(f, p, "dFtree notice from an unknown issuer");
        return true;
    }
    status = repath_take(f, n, &nt);
    if (status)
        r->stats.refused++;
    repath_answer(f, n, in_port, p, status);
    return true;
}

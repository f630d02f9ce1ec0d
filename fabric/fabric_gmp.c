/*
 * fabric_gmp.c - MADs that end at a node's agents: fabric_node_process()
 * hands one to the node/ object (the SMA, PMA and CC agent portzerod runs
 * too), and the General Services MADs of the Performance Management agent
 * (class 0x04) and the Congestion Control agent (class 0x21) are served
 * here: in-process nodes answer themselves, an external switch's requests
 * go to its agent.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "fabric_internal.h"
#include "pzf_log.h"

/* Whether a MAD of this class is served by a node's GSI agents here. */
static bool fabric_gmp_class(unsigned mgmt_class)
{
    return mgmt_class == IB_PERFORMANCE_CLASS || mgmt_class == IB_CC_CLASS;
}

/* Queue what a node's PMA or CC agent answered (LID-routed back). */
static void fabric_gmp_answer(struct fabric *f, struct fabric_node *n, unsigned in_port,
                              const struct mad_addr *to, const uint8_t *out, unsigned hops)
{
    struct fabric_pkt q;

    memset(&q, 0, sizeof(q));
    memcpy(q.mad, out, FABRIC_MAD_SIZE);
    q.slid = fabric_port_lid(n, in_port);
    q.dlid = to->dlid;
    q.sqp = 1;
    q.dqp = to->dst_qp;
    q.node = n->index;
    q.port = (uint8_t)fabric_end_port(n, in_port);
    q.hops = (uint16_t)hops;
    q.kind = FABRIC_PKT_ROUTE;
    fabric_enqueue(f, &q);
}

enum mad_verdict fabric_node_process(struct fabric *f, struct fabric_node *n, unsigned in_port,
                                     const struct fabric_pkt *p, struct mad_addr *to, uint8_t *out)
{
    struct mad_addr in = {
        .port = (uint8_t)in_port,
        .lid_routed = p->dlid != FABRIC_PERMISSIVE_LID,
        .slid = p->slid,
        .dlid = p->dlid,
        .src_qp = p->sqp,
        .dst_qp = p->dqp,
    };
    enum mad_verdict v = node_process(n->node, &in, p->mad, IB_MAD_SIZE, to, out, NULL);

    fabric_timer_update(f, n); /* a sampling session or monitor setting may have moved it */
    return v;
}

bool fabric_gmp_local(struct fabric *f, struct fabric_node *n, unsigned in_port,
                      const struct fabric_pkt *p)
{
    unsigned mgmt_class = mad_get_field((void *)p->mad, 0, IB_MAD_MGMTCLASS_F);
    struct mad_addr to;
    uint8_t out[FABRIC_MAD_SIZE];
    bool send;

    if (!fabric_gmp_class(mgmt_class) || mad_get_field((void *)p->mad, 0, IB_MAD_RESPONSE_F))
        return false;
    if (n->external) {
        if (!fabric_agent_deliver(f, n, p))
            fabric_drop(f, p, "switch agent not running");
        return true;
    }
    if (!n->node)
        return false;
    send = fabric_node_process(f, n, in_port, p, &to, out) == MAD_SEND;
    if (send)
        fabric_gmp_answer(f, n, in_port, &to, out, p->hops);
    else
        fabric_drop(f, p, "GSI agent did not answer");
    return true;
}

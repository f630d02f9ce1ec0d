/*
 * fabric_traffic_path.c - the path walk of the traffic model: from the
 * source CA's port 1 through the switches' LFTs (DLID = the destination's
 * port 1 base LID) to the destination CA; every link Active at both ends,
 * SL to VL through each hop's SLtoVLMappingTable, the path MTU the
 * smallest NeighborMTU on the way.
 */
#include <stdlib.h>
#include <string.h>

#include "fabric_internal.h"
#include "fabric_traffic_internal.h"

uint64_t tr_port_bps(const struct fabric *f, uint32_t node, unsigned port)
{
    struct board_port_status st;

    if (board_port_status(f->nodes[node].board, port, &st))
        return 0;
    return board_link_data_rate_bps(&st);
}

/* The path MTU code of a hop: NeighborMTU of the sending port (1 = 256 .. 5 = 4096). */
static unsigned tr_hop_mtu(const struct fabric_node *n, unsigned port)
{
    struct board_port_config cfg;

    if (board_port_config_get(n->board, port, &cfg) || cfg.neighbor_mtu < 1 || cfg.neighbor_mtu > 5)
        return 1;
    return cfg.neighbor_mtu;
}

/* The VL that sl takes from in_port to out_port of n (a CA: its port's table). */
static unsigned tr_vl(const struct fabric_node *n, unsigned in_port, unsigned out_port, unsigned sl)
{
    uint8_t vl[16];

    if (board_sl2vl_get(n->board, in_port, out_port, vl))
        return 0;
    return vl[sl] & 0xF;
}

/* Append the hop out of (n, port) on VL vl to w; returns the far end, or NULL (w->why set). */
static struct fabric_node *tr_hop(struct fabric *f, struct tr_flow *w, struct fabric_node *n,
                                  unsigned port, unsigned vl, unsigned *mtu)
{
    struct fabric_node *r;
    const struct fabric_peer *peer;
    uint64_t bps, rbps;

    if (!fabric_port_plugged(n, port)) {
        w->why = n->peers[port].cabled ? "cable pulled" : "no cable";
        return NULL;
    }
    peer = &n->peers[port];
    r = &f->nodes[peer->node];
    if (!fabric_port_up(n, port, true) || !fabric_port_up(r, peer->port, true)) {
        w->why = "link not Active";
        return NULL;
    }
    if (vl == 15) {
        w->why = "SL mapped to VL15";
        return NULL;
    }
    if (w->num_hops == FABRIC_FLOW_HOPS_MAX) {
        w->why = "too many hops (routing loop?)";
        return NULL;
    }
    bps = tr_port_bps(f, n->index, port);
    rbps = tr_port_bps(f, r->index, peer->port);
    w->hop_bps[w->num_hops] = bps < rbps ? bps : rbps;
    w->into_switch[w->num_hops] = r->is_switch;
    w->hops[w->num_hops++] = (struct fabric_flow_hop){
        .tx_node = n->index,
        .tx_port = (uint8_t)port,
        .rx_node = r->index,
        .rx_port = peer->port,
        .vl = (uint8_t)vl,
    };
    if (tr_hop_mtu(n, port) < *mtu)
        *mtu = tr_hop_mtu(n, port);
    if (w->hop_bps[w->num_hops - 1] == 0) {
        w->why = "link rate unknown";
        return NULL;
    }
    return r;
}

void tr_walk(struct fabric *f, struct tr_flow *w)
{
    struct fabric_node *n = &f->nodes[w->src], *dst = &f->nodes[w->dst];
    uint16_t dlid = board_mem_lid(dst->bm, 1);
    unsigned port = 1, vl, mtu = 5, out;

    w->routed = false;
    w->num_hops = 0;
    w->why = "";
    if (dlid == 0 || dlid >= FABRIC_MCAST_LID_MIN || board_mem_lid(n->bm, 1) == 0) {
        w->why = "no LID yet";
        return;
    }
    vl = tr_vl(n, 1, 1, w->sl);
    for (;;) {
        struct fabric_node *r = tr_hop(f, w, n, port, vl, &mtu);
        unsigned in = w->num_hops ? w->hops[w->num_hops - 1].rx_port : 0;

        if (!r)
            return;
        if (!r->is_switch) {
            if (r != dst)
                w->why = "routed to another CA";
            w->routed = r == dst;
            w->pkt_bytes = (128u << mtu) + FABRIC_PKT_HDR_BYTES;
            return;
        }
        out = board_mem_lft_entry(r->bm, dlid);
        if (out == BOARD_LFT_DROP || out == 0 || out > r->num_ports || out == in) {
            w->why = out == in ? "LFT sends it back where it came from" : "no LFT route";
            return;
        }
        vl = tr_vl(r, in, out, w->sl);
        n = r;
        port = out;
    }
}

/* Whether the walk w differs from fl's stored path. */
static bool tr_path_changed(const struct tr_flow *fl, const struct tr_flow *w)
{
    return fl->routed != w->routed || fl->num_hops != w->num_hops ||
           fl->pkt_bytes != w->pkt_bytes || fl->why != w->why ||
           memcmp(fl->hops, w->hops, w->num_hops * sizeof(w->hops[0])) ||
           memcmp(fl->hop_bps, w->hop_bps, w->num_hops * sizeof(w->hop_bps[0]));
}

/* Copy a walk's path into the flow. */
static void tr_path_store(struct tr_flow *fl, const struct tr_flow *w)
{
    fl->routed = w->routed;
    fl->why = w->why;
    fl->num_hops = w->num_hops;
    fl->pkt_bytes = w->pkt_bytes;
    memcpy(fl->hops, w->hops, w->num_hops * sizeof(w->hops[0]));
    memcpy(fl->hop_bps, w->hop_bps, w->num_hops * sizeof(w->hop_bps[0]));
    memcpy(fl->into_switch, w->into_switch, w->num_hops * sizeof(w->into_switch[0]));
}

bool tr_recheck(struct fabric *f, struct fabric_traffic *t)
{
    struct tr_flow *w = malloc(sizeof(*w));
    bool changed = false;

    if (!w)
        return false;
    for (size_t i = 0; i < t->num_flows; i++) {
        struct tr_flow *fl = t->flows[i];

        memset(w, 0, sizeof(*w));
        w->src = fl->src;
        w->dst = fl->dst;
        w->sl = fl->sl;
        tr_walk(f, w);
        if (tr_path_changed(fl, w)) {
            tr_path_store(fl, w);
            changed = true;
        }
    }
    free(w);
    return changed;
}

/*
 * fabric_ctl.c - what an operator does to the fabric (pzfabric-ctl):
 * pulling and plugging cables, the random loss rate, the capture file, and
 * reading a port's hardware counters.
 */
#include <errno.h>

#include "fabric_internal.h"
#include "pcap.h"
#include "pzf_log.h"

unsigned fabric_node_num_ports(const struct fabric *f, size_t node)
{
    return node < f->num_nodes ? f->nodes[node].num_ports : 0;
}

enum fabric_link_state fabric_link_get(const struct fabric *f, size_t node, unsigned port,
                                       size_t *peer_node, unsigned *peer_port)
{
    const struct fabric_node *n, *r;
    const struct fabric_peer *peer;

    if (node >= f->num_nodes || port == 0 || port > f->nodes[node].num_ports)
        return FABRIC_LINK_NONE;
    n = &f->nodes[node];
    peer = &n->peers[port];
    if (!peer->cabled)
        return FABRIC_LINK_NONE;
    if (peer_node)
        *peer_node = peer->node;
    if (peer_port)
        *peer_port = peer->port;
    if (peer->unplugged)
        return FABRIC_LINK_UNPLUGGED;
    r = &f->nodes[peer->node];
    if (fabric_port_up(n, port, false) && fabric_port_up(r, peer->port, false))
        return FABRIC_LINK_UP;
    return FABRIC_LINK_DOWN;
}

/*
 * Set both ends of the cable (n, port) - (r, rport) to plugged or not.  A
 * plugged end sees light when the other end is enabled, as fabric_couple()
 * keeps it; the coupling hook stays out of it meanwhile.
 */
static void fabric_ctl_cable(struct fabric *f, struct fabric_node *n, unsigned port,
                             struct fabric_node *r, unsigned rport, bool up)
{
    n->peers[port].unplugged = !up;
    r->peers[rport].unplugged = !up;
    f->coupling = true;
    fabric_tell_peers(f, n, port);
    board_mem_set_connected(n->bm, port, up && fabric_port_enabled(r, rport));
    board_mem_set_connected(r->bm, rport, up && fabric_port_enabled(n, port));
    f->coupling = false;
    n->downed_seen[port] = board_mem_link_downed(n->bm, port);
    r->downed_seen[rport] = board_mem_link_downed(r->bm, rport);
    fabric_mark_dirty(f, n);
    fabric_mark_dirty(f, r);
}

int fabric_link_set(struct fabric *f, size_t node, unsigned port, bool up)
{
    struct fabric_node *n, *r;
    struct fabric_peer *peer;

    if (node >= f->num_nodes || port == 0 || port > f->nodes[node].num_ports)
        return -EINVAL;
    n = &f->nodes[node];
    peer = &n->peers[port];
    if (!peer->cabled)
        return -ENOTCONN;
    if (peer->unplugged == !up)
        return -EALREADY;
    r = &f->nodes[peer->node];
    pzf_log(f->verbose, PZF_LOG_INFO, "cable %s[%u] - %s[%u] %s", n->name, port, r->name,
            peer->port, up ? "plugged in" : "pulled");
    fabric_ctl_cable(f, n, port, r, peer->port, up);
    fabric_poll_dirty(f); /* PortStateChange, Trap 128 */
    return 0;
}

int fabric_set_drop_rate(struct fabric *f, uint32_t ppm, uint64_t seed)
{
    if (ppm > FABRIC_PPM)
        return -EINVAL;
    f->drop_ppm = ppm;
    if (seed)
        f->rng = seed;
    pzf_log(f->verbose, PZF_LOG_INFO, "drop rate %u.%04u%%", ppm / 10000, ppm % 10000);
    return 0;
}

int fabric_set_link_drop(struct fabric *f, size_t node, unsigned port, uint32_t ppm)
{
    struct fabric_node *n;
    struct fabric_peer *peer;

    if (node >= f->num_nodes || ppm > FABRIC_PPM)
        return -EINVAL;
    n = &f->nodes[node];
    if (port == 0 || port > n->num_ports)
        return -EINVAL;
    peer = &n->peers[port];
    if (!peer->cabled)
        return -ENOTCONN;
    peer->drop_ppm = ppm;
    f->nodes[peer->node].peers[peer->port].drop_ppm = ppm;
    pzf_log(f->verbose, PZF_LOG_INFO, "cable %s[%u] - %s[%u] loses %u.%04u%%", n->name, port,
            f->nodes[peer->node].name, peer->port, ppm / 10000, ppm % 10000);
    return 0;
}

uint32_t fabric_link_drop(const struct fabric *f, size_t node, unsigned port)
{
    if (node >= f->num_nodes || port == 0 || port > f->nodes[node].num_ports)
        return 0;
    return f->nodes[node].peers[port].drop_ppm;
}

uint32_t fabric_drop_rate(const struct fabric *f)
{
    return f->drop_ppm;
}

void fabric_set_capture(struct fabric *f, struct pz_pcap *capture, const char *name)
{
    f->pcap = capture;
    f->pcap_name = name ? name : "capture";
}

bool fabric_capture(const struct fabric *f, const char **name, unsigned long long *packets)
{
    if (!f->pcap)
        return false;
    *name = f->pcap_name;
    *packets = pz_pcap_packets(f->pcap);
    return true;
}

int fabric_port_counters(const struct fabric *f, size_t node, unsigned port,
                         struct board_port_counters *c)
{
    const struct fabric_node *n;

    if (node >= f->num_nodes || port > f->nodes[node].num_ports)
        return -EINVAL;
    n = &f->nodes[node];
    if (!n->is_switch && port == 0)
        return -EINVAL;
    return board_port_counters(n->board, port, c);
}

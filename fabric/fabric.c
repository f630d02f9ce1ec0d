/*
 * fabric.c - the fabric's nodes and links: building them from a topology,
 * keeping the two ends of every cable consistent, and running the SMAs'
 * timers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fabric_internal.h"
#include "fabric_traffic.h"
#include "pzf_log.h"

/* LinkWidth 1x 4x 8x 12x 2x, LinkSpeed SDR DDR QDR, LinkSpeedExt FDR EDR HDR NDR: the defined bits.
 */
#define FABRIC_WIDTH_BITS 0x1F
#define FABRIC_SPEED_BITS 0x07
#define FABRIC_SPEED_EXT_BITS 0x0F

/* The modes a node's ports support: the board's, and every defined one its topology enables. */
static void fabric_supported_modes(const struct topo_node *tn, struct board_identity *id)
{
    for (unsigned p = 1; p <= tn->num_ports; p++) {
        id->width_supported |= tn->ports[p].width & FABRIC_WIDTH_BITS;
        id->speed_supported |= tn->ports[p].speed & FABRIC_SPEED_BITS;
        id->speed_ext_supported |= tn->ports[p].speed_ext & FABRIC_SPEED_EXT_BITS;
    }
}

/* The board identity of a topology node (switch or CA defaults, then the file's values). */
static void fabric_identity(const struct topo_node *tn, struct board_identity *id)
{
    if (tn->type == TOPO_SWITCH)
        board_mem_default_switch_identity(id, tn->node_guid, tn->num_ports);
    else
        board_mem_default_ca_identity(id, tn->node_guid, tn->num_ports);
    id->system_image_guid = tn->system_image_guid;
    if (tn->has_vendor_id)
        id->vendor_id = tn->vendor_id;
    if (tn->has_device_id)
        id->device_id = tn->device_id;
    if (tn->type == TOPO_SWITCH && tn->enhanced_port0)
        id->enhanced_port0 = tn->enhanced_port0 > 0;
    if (tn->type == TOPO_SWITCH) {
        id->port0_width = tn->port0_width;
        id->port0_speed = tn->port0_speed;
    }
    memset(id->node_desc, 0, sizeof(id->node_desc));
    memcpy(id->node_desc, tn->desc, strnlen(tn->desc, sizeof(id->node_desc)));
    fabric_supported_modes(tn, id);
}

/*
 * The power-on configuration of a port: the topology's width and speed
 * enables (w=/s=/e=, width=/speed=/extspeed=, link annotations), and
 * OperationalVLs = VLCap as ibsim's ports come up (OpenSM sets OperationalVLs
 * to what both ends support; finding anything else on a CA port in Init it
 * takes the link down to change it, which would bounce every CA link on the
 * first sweep).
 */
static void fabric_port_options(struct fabric_node *n, unsigned port, const struct topo_port *tp)
{
    struct board_port_config cfg;

    if (board_port_config_get(n->board, port, &cfg))
        return;
    cfg.oper_vls = n->board->id->vl_cap;
    if (tp->width)
        cfg.width_enabled = tp->width;
    if (tp->speed)
        cfg.speed_enabled = tp->speed;
    if (tp->speed_ext || tp->speed_ext_set)
        cfg.speed_ext_enabled = tp->speed_ext;
    board_port_config_set(n->board, port, &cfg);
}

/*
 * What a port that never trained reports as LinkWidthActive/LinkSpeedActive:
 * 4x (else its best width) at SDR, as hardware and ibsim do; 0 would be no
 * width at all (libibmad: "bad width 0", ibnetdiscover -p: "??").
 */
static void fabric_port_untrained(struct fabric_node *n, unsigned port)
{
    uint8_t widths = n->board->id->width_supported;
    uint8_t width = 0x80;

    while (width && !(widths & width))
        width >>= 1;
    board_mem_set_untrained_modes(n->bm, port, (widths & 0x02) ? 0x02 : width, 0x01);
}

/* Create the board of node i; returns 0 or -ENOMEM. */
static int fabric_node_init(struct fabric *f, const struct topo *t, size_t i)
{
    const struct topo_node *tn = &t->nodes[i];
    struct fabric_node *n = &f->nodes[i];
    struct board_identity *id = calloc(1, sizeof(*id));

    if (!id)
        return -ENOMEM;
    fabric_identity(tn, id);
    n->f = f;
    n->index = (uint32_t)i;
    n->agent_client = -1;
    memcpy(n->name, tn->name, sizeof(n->name));
    memcpy(n->desc, tn->desc, sizeof(n->desc));
    n->is_switch = tn->type == TOPO_SWITCH;
    n->num_ports = tn->num_ports;
    n->bm = board_mem_create(id);
    free(id);
    n->peers = calloc(n->num_ports + 1, sizeof(*n->peers));
    n->downed_seen = calloc(n->num_ports + 1, sizeof(*n->downed_seen));
    if (!n->bm || !n->peers || !n->downed_seen) {
        pzf_log(f->verbose, PZF_LOG_ERROR, "node \"%s\": cannot create its board", tn->name);
        return -ENOMEM;
    }
    n->board = board_mem_board(n->bm);
    for (unsigned p = 1; p <= n->num_ports; p++) {
        const struct topo_port *tp = &tn->ports[p];

        n->peers[p].cabled = tp->connected;
        n->peers[p].node = tp->remote_node;
        n->peers[p].port = tp->remote_port;
        fabric_port_options(n, p, tp);
        fabric_port_untrained(n, p);
    }
    return 0;
}

/* Forward a board's port change into the fabric (board_mem hook). */
static void fabric_port_hook(void *arg, unsigned port);

/* Both ends of a cable learn each other's enables (fabric_internal.h). */
void fabric_tell_peers(struct fabric *f, struct fabric_node *n, unsigned port)
{
    const struct fabric_peer *peer = &n->peers[port];
    struct fabric_node *r = &f->nodes[peer->node];
    struct board_port_config near, far;

    if (board_port_config_get(n->board, port, &near) ||
        board_port_config_get(r->board, peer->port, &far))
        return;
    board_mem_set_peer_enables(n->bm, port, &far);
    board_mem_set_peer_enables(r->bm, peer->port, &near);
}

/* Create the node/ object of n (SMA, PMA, CC agent; no monitor yet); returns 0 or -ENOMEM. */
static int fabric_node_agents(struct fabric *f, struct fabric_node *n)
{
    struct node_hooks hooks = fabric_node_hooks(n);
    struct node_config cfg;
    char err[160];

    node_default_config(&cfg);
    n->node = node_create(n->board, &cfg, &hooks, err, sizeof(err));
    if (!n->node)
        pzf_log(f->verbose, PZF_LOG_ERROR, "node \"%s\": %s", n->name, err);
    return n->node ? 0 : -ENOMEM;
}

/* Plug in every cable, then create the SMAs and install the hooks; returns 0 or a negative
 * errno. */
static int fabric_power_on(struct fabric *f)
{
    int rc;

    for (size_t i = 0; i < f->num_nodes; i++)
        for (unsigned p = 1; p <= f->nodes[i].num_ports; p++)
            if (f->nodes[i].peers[p].cabled)
                fabric_tell_peers(f, &f->nodes[i], p);
    for (size_t i = 0; i < f->num_nodes; i++)
        for (unsigned p = 1; p <= f->nodes[i].num_ports; p++)
            if (f->nodes[i].peers[p].cabled)
                board_mem_set_connected(f->nodes[i].bm, p, true);
    for (size_t i = 0; i < f->num_nodes; i++) {
        struct fabric_node *n = &f->nodes[i];

        if ((rc = fabric_node_agents(f, n)))
            return rc;
        for (unsigned p = 1; p <= n->num_ports; p++)
            n->downed_seen[p] = board_mem_link_downed(n->bm, p);
        board_mem_set_port_hook(n->bm, fabric_port_hook, n);
    }
    if ((rc = fabric_set_monitor(f, CONG_INTERVAL_DEFAULT_MS)))
        return rc;
    return fabric_timers_init(f);
}

/* A non-zero seed for the loss generator: the time and the process. */
static uint64_t fabric_seed(void)
{
    struct timespec ts;
    uint64_t seed;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    seed = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    seed ^= (uint64_t)getpid() << 32;
    return seed ? seed : 1;
}

struct fabric *fabric_create(const struct topo *t, int verbose)
{
    struct fabric *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    f->verbose = verbose;
    f->rng = fabric_seed();
    f->nodes = calloc(t->num_nodes ? t->num_nodes : 1, sizeof(*f->nodes));
    f->dirty = calloc(t->num_nodes ? t->num_nodes : 1, sizeof(*f->dirty));
    if (!f->nodes || !f->dirty)
        goto fail;
    for (size_t i = 0; i < t->num_nodes; i++, f->num_nodes++)
        if (fabric_node_init(f, t, i))
            goto fail;
    if (fabric_power_on(f) || fabric_dgram_init(f))
        goto fail;
    return f;
fail:
    /* Nodes not reached yet are still zeroed, which destroy accepts. */
    f->num_nodes = f->nodes ? t->num_nodes : 0;
    fabric_destroy(f);
    return NULL;
}

void fabric_destroy(struct fabric *f)
{
    if (!f)
        return;
    for (size_t i = 0; f->nodes && i < f->num_nodes; i++) {
        struct fabric_node *n = &f->nodes[i];

        node_destroy(n->node); /* before its board */
        board_mem_destroy(n->bm);
        free(n->peers);
        free(n->downed_seen);
    }
    fabric_traffic_destroy(f->traffic);
    fabric_repath_free(f);
    fabric_timers_free(f);
    fabric_dgram_destroy(f);
    fabric_clients_free(f);
    fabric_agent_free(f);
    free(f->nodes);
    free(f->dirty);
    free(f->queue.items);
    free(f);
}

void fabric_set_deliver(struct fabric *f, fabric_deliver_fn fn, void *arg)
{
    f->deliver = fn;
    f->deliver_arg = arg;
}

size_t fabric_num_nodes(const struct fabric *f)
{
    return f->num_nodes;
}

long fabric_find_node(const struct fabric *f, const char *name)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < f->num_nodes; i++)
        if (!strcmp(f->nodes[i].name, name))
            return (long)i;
    for (size_t i = 0; i < f->num_nodes; i++)
        if (!strcmp(f->nodes[i].desc, name))
            return (long)i;
    return -1;
}

const char *fabric_node_name(const struct fabric *f, size_t node)
{
    return node < f->num_nodes ? f->nodes[node].name : "?";
}

void fabric_get_stats(const struct fabric *f, struct fabric_stats *stats)
{
    *stats = f->stats;
}

/* Whether a port is trained (PhysState LinkUp) and, if need_active, Active. */
bool fabric_port_up(const struct fabric_node *n, unsigned port, bool need_active)
{
    struct board_port_status st;

    if (board_port_status(n->board, port, &st))
        return false;
    if (st.phys_state != BOARD_PHYS_LINKUP)
        return false;
    return !need_active || st.port_state == BOARD_PORT_ACTIVE;
}

void fabric_mark_dirty(struct fabric *f, struct fabric_node *n)
{
    if (n->dirty)
        return;
    n->dirty = true;
    f->dirty[f->num_dirty++] = n->index;
}

/* Whether a port's end of the cable is switched on (not PhysState Disabled). */
bool fabric_port_enabled(const struct fabric_node *n, unsigned port)
{
    struct board_port_status st;

    return board_port_status(n->board, port, &st) == 0 && st.phys_state != BOARD_PHYS_DISABLED;
}

/*
 * Make the far end of (n, port) follow a change of the near end: a disabled
 * port takes the light off the cable, and a link that went down at one end
 * (LinkDowned moved) goes down at the other end too, then retrains.
 */
static void fabric_couple(struct fabric *f, struct fabric_node *n, unsigned port)
{
    const struct fabric_peer *peer = &n->peers[port];
    struct fabric_node *r = &f->nodes[peer->node];
    uint32_t downed = board_mem_link_downed(n->bm, port);
    bool enabled = fabric_port_enabled(n, port);

    if (downed != n->downed_seen[port] && board_mem_connected(r->bm, peer->port)) {
        pzf_log(f->verbose, PZF_LOG_INFO, "link %s[%u] - %s[%u] went down", n->name, port, r->name,
                peer->port);
        board_mem_set_connected(r->bm, peer->port, false);
    }
    n->downed_seen[port] = downed;
    fabric_tell_peers(f, n, port); /* enables set since: the retraining uses them */
    board_mem_set_connected(r->bm, peer->port, enabled);
    board_mem_set_connected(n->bm, port, fabric_port_enabled(r, peer->port));
    r->downed_seen[peer->port] = board_mem_link_downed(r->bm, peer->port);
    n->downed_seen[port] = board_mem_link_downed(n->bm, port);
    fabric_mark_dirty(f, r);
}

static void fabric_port_hook(void *arg, unsigned port)
{
    struct fabric_node *n = arg;
    struct fabric *f = n->f;

    if (n->external && f->port_event)
        f->port_event(f->port_event_arg, n->index, port); /* its agent keeps the statuses */
    fabric_mark_dirty(f, n);
    if (f->coupling || port == 0 || port > n->num_ports || !fabric_port_plugged(n, port))
        return;
    f->coupling = true;
    fabric_couple(f, n, port);
    f->coupling = false;
}

/*
 * Poll one node until it has nothing more to send (its due work runs
 * first: monitor sample, notices, PMA poll); queue what its SMA sends.
 */
static void fabric_poll_node(struct fabric *f, struct fabric_node *n)
{
    struct mad_addr addr;
    uint8_t out[IB_MAD_SIZE];
    unsigned limit = 64; /* the trap queue is small; never spin */

    if (n->external)
        return; /* its agent runs its own timers */
    while (limit-- && node_poll(n->node, &addr, out) == MAD_SEND) {
        f->stats.traps++;
        fabric_sma_output(f, n, fabric_end_port(n, addr.port), &addr, out, 0);
    }
    fabric_timer_update(f, n); /* a call or a poll may have moved its deadline */
}

void fabric_poll_dirty(struct fabric *f)
{
    for (unsigned round = 0; round < FABRIC_POLL_ROUNDS && f->num_dirty; round++) {
        while (f->num_dirty) {
            struct fabric_node *n = &f->nodes[f->dirty[--f->num_dirty]];

            n->dirty = false;
            fabric_poll_node(f, n);
        }
        fabric_run_queue(f);
    }
}

void fabric_set_port_event(struct fabric *f, fabric_port_event_fn fn, void *arg)
{
    f->port_event = fn;
    f->port_event_arg = arg;
}

void fabric_settle(struct fabric *f)
{
    if (f->num_dirty)
        fabric_poll_dirty(f);
}

/*
 * A node whose deadline has passed (monitor sample, SMA timers, PMA poll):
 * fabric_poll_dirty() runs its work through node_poll().
 */
static void fabric_node_timers(struct fabric *f, struct fabric_node *n)
{
    if (!n->external)
        fabric_mark_dirty(f, n);
    fabric_timer_update(f, n);
}

void fabric_run_timers(struct fabric *f)
{
    size_t due = fabric_timers_due(f); /* only the nodes whose deadline has passed */

    for (size_t i = 0; i < due; i++)
        fabric_node_timers(f, &f->nodes[f->timer_due[i]]);
    fabric_agent_expire(f); /* external agents' requests whose client timeout ran out */
    fabric_poll_dirty(f);
}

void fabric_tick(struct fabric *f)
{
    fabric_traffic_tick(f); /* flow counters up to now, paths re-checked */
    fabric_agent_expire(f);
    fabric_run_timers(f);
}

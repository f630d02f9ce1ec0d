/*
 * fabric_monitor.c - the dFtree congestion monitor of every in-process
 * switch, as portzerod runs one on a real switch: the node/ object's
 * monitor and notifier (node_monitor_start()), switched on and off for the
 * whole fabric, told by the topology which ports face a CA, its log lines
 * prefixed with the switch's name.  Its samples run from node_poll() when
 * due; hot-spot notices leave as that switch's traps.  Switches served by
 * an external portzerod run their own monitor there.
 */
#include <errno.h>

#include "cong_monitor.h"
#include "fabric_internal.h"
#include "pzf_log.h"

/* The monitor's log lines: hot-spot ones and warnings with -v, the rest with -vv. */
static void fabric_node_log(void *arg, enum node_log_level level, const char *msg)
{
    struct fabric_node *n = arg;

    pzf_log(n->f->verbose, level == NODE_LOG_DEBUG ? PZF_LOG_DEBUG : PZF_LOG_INFO, "monitor: %s %s",
            n->name, msg);
}

struct node_hooks fabric_node_hooks(struct fabric_node *n)
{
    return (struct node_hooks){.log = fabric_node_log, .arg = n};
}

/* Tell each cabled port of n's monitor what the topology says is at its far end. */
static void fabric_monitor_peers(struct fabric *f, struct fabric_node *n)
{
    for (unsigned p = 1; p <= n->num_ports; p++) {
        const struct fabric_peer *peer = &n->peers[p];

        if (!peer->cabled)
            continue;
        node_set_peer(n->node, p, f->nodes[peer->node].is_switch ? CONG_PEER_SWITCH : CONG_PEER_CA);
    }
}

/* Start switch n's monitor with interval_ms, or give the running one that interval; 0 or -errno. */
static int fabric_monitor_start(struct fabric *f, struct fabric_node *n, unsigned interval_ms)
{
    struct cong_monitor *mon = node_cong(n->node);
    struct cong_monitor_config cfg;
    int rc;

    if (mon) { /* other settings (the vendor attribute's) stay */
        cong_monitor_get_config(mon, &cfg);
        cfg.interval_ms = interval_ms;
        return cong_monitor_set_config(mon, &cfg) ? -EINVAL : 0;
    }
    cong_monitor_default_config(&cfg);
    cfg.interval_ms = interval_ms;
    rc = node_monitor_start(n->node, &cfg);
    if (rc == 0)
        fabric_monitor_peers(f, n);
    return rc;
}

int fabric_set_monitor(struct fabric *f, unsigned interval_ms)
{
    if (interval_ms && interval_ms < CONG_INTERVAL_MIN_MS)
        return -EINVAL;
    for (size_t i = 0; i < f->num_nodes; i++) {
        struct fabric_node *n = &f->nodes[i];
        int rc;

        if (!n->is_switch || !n->node)
            continue;
        if (!interval_ms) {
            node_monitor_stop(n->node);
            continue;
        }
        rc = fabric_monitor_start(f, n, interval_ms);
        if (rc)
            return rc;
    }
    f->monitor_interval_ms = interval_ms;
    fabric_timers_all(f);
    return 0;
}

/*
 * node_monitor.c - the switch's dFtree congestion monitor (pma/cong_monitor.h):
 * read through the PMA's 64-bit counters, attached to the PMA (the vendor
 * attribute 0xFF30), sampled from node_poll() when due, its class changes
 * logged and handed to the notifier.
 */
#include "node_internal.h"

#include <errno.h>

#include "pma.h"

int node_monitor_start(struct node *n, const struct cong_monitor_config *cfg)
{
    if (cong_monitor_config_check(cfg))
        return -EINVAL;
    if (n->mon)
        return cong_monitor_set_config(n->mon, cfg) ? -EINVAL : 0;
    n->mon = cong_monitor_create(n->board, cong_monitor_read_pma, n->pma, cfg);
    if (!n->mon)
        return -ENOMEM;
    node_discovery_reset(n); /* a new monitor knows no peer and has told the SM nothing */
    pma_set_cong_monitor(n->pma, n->mon);
    return 0;
}

void node_monitor_stop(struct node *n)
{
    if (!n->mon)
        return;
    pma_set_cong_monitor(n->pma, NULL);
    cong_monitor_destroy(n->mon);
    n->mon = NULL;
}

void node_set_peer(struct node *n, unsigned port, enum cong_peer peer)
{
    if (n->mon)
        cong_monitor_set_peer(n->mon, port, peer);
}

uint64_t node_monitor_deadline(const struct node *n)
{
    return n->mon ? cong_monitor_next_deadline(n->mon) : UINT64_MAX;
}

/* Log one class change: hot-spot onsets and clears at info, the others at debug. */
static void node_log_event(const struct node *n, const struct cong_event *ev)
{
    bool hot = ev->to == CONG_PORT_HOTSPOT || ev->from == CONG_PORT_HOTSPOT;

    node_log(n, hot ? NODE_LOG_INFO : NODE_LOG_DEBUG,
             "port %u %s -> %s (congestion %llu ticks/s, utilisation %u.%u%%)", ev->port,
             cong_port_class_name((enum cong_port_class)ev->from),
             cong_port_class_name((enum cong_port_class)ev->to),
             (unsigned long long)ev->sample.congestion, ev->sample.util_permille / 10,
             ev->sample.util_permille % 10);
}

void node_monitor_poll(struct node *n, uint64_t now)
{
    struct cong_event ev;

    if (!n->mon || cong_monitor_next_deadline(n->mon) > now)
        return;
    cong_monitor_poll(n->mon);
    while (cong_monitor_next_event(n->mon, &ev))
        node_log_event(n, &ev);
    node_notify(n); /* after each sample: the SM hears within one interval */
}

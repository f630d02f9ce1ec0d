/*
 * fabric_monitor.c - the dFtree congestion monitor of every in-process
 * switch (pma/cong_monitor.h), as portzerod runs one on a real switch.
 *
 * One monitor per switch reads its PMA's 64-bit counters, knows from the
 * topology which ports face a CA, is attached to the PMA (the vendor
 * attribute) and is polled from fabric_tick() when due.  Hot-spot onsets
 * and clears become vendor notices of that switch's SMA, which the fabric
 * delivers to the SM like any trap.  Notices are state-based, as in the
 * agent (agent/pz_monitor.c): once the SMA knows its master SM, each port
 * whose hot-spot state differs from what the SM was last told gets one.
 * Switches served by an external portzerod run their own monitor there.
 */
#include <errno.h>
#include <stdlib.h>

#include "cong_monitor.h"
#include "fabric_internal.h"
#include "pzf_log.h"

/* Tell each cabled port of n's monitor what the topology says is at its far end. */
static void fabric_monitor_peers(struct fabric *f, struct fabric_node *n)
{
    for (unsigned p = 1; p <= n->num_ports; p++) {
        const struct fabric_peer *peer = &n->peers[p];

        if (!peer->cabled)
            continue;
        cong_monitor_set_peer(n->mon, p,
                              f->nodes[peer->node].is_switch ? CONG_PEER_SWITCH : CONG_PEER_CA);
    }
}

/* Create the monitor of switch n with interval_ms; returns 0 or -1. */
static int fabric_monitor_create(struct fabric *f, struct fabric_node *n, unsigned interval_ms)
{
    struct cong_monitor_config cfg;

    cong_monitor_default_config(&cfg);
    cfg.interval_ms = interval_ms;
    n->mon = cong_monitor_create(n->board, cong_monitor_read_pma, n->pma, &cfg);
    n->mon_notified = calloc(n->num_ports + 1, sizeof(*n->mon_notified));
    if (!n->mon || !n->mon_notified)
        return -1;
    fabric_monitor_peers(f, n);
    pma_set_cong_monitor(n->pma, n->mon);
    return 0;
}

/* Detach and free the monitor of n, if it has one. */
void fabric_monitor_free(struct fabric_node *n)
{
    if (n->mon && n->pma)
        pma_set_cong_monitor(n->pma, NULL);
    cong_monitor_destroy(n->mon);
    free(n->mon_notified);
    n->mon = NULL;
    n->mon_notified = NULL;
}

int fabric_set_monitor(struct fabric *f, unsigned interval_ms)
{
    if (interval_ms && interval_ms < CONG_INTERVAL_MIN_MS)
        return -EINVAL;
    for (size_t i = 0; i < f->num_nodes; i++) {
        struct fabric_node *n = &f->nodes[i];
        struct cong_monitor_config cfg;

        if (!n->is_switch || !n->pma)
            continue;
        if (!interval_ms) {
            fabric_monitor_free(n);
        } else if (n->mon) {
            cong_monitor_get_config(n->mon, &cfg);
            cfg.interval_ms = interval_ms;
            if (cong_monitor_set_config(n->mon, &cfg))
                return -EINVAL;
        } else if (fabric_monitor_create(f, n, interval_ms)) {
            fabric_monitor_free(n);
            return -ENOMEM;
        }
    }
    f->monitor_interval_ms = interval_ms;
    fabric_timers_all(f);
    return 0;
}

/* Queue the notice of port p's hot-spot state (hot: onset, else clear); returns 0 or -1. */
static int fabric_monitor_notice(struct fabric_node *n, unsigned p, const struct cong_port_view *v,
                                 bool hot)
{
    struct cong_event ev = {
        .port = p,
        .from = hot ? CONG_PORT_NORMAL : CONG_PORT_HOTSPOT,
        .to = hot ? CONG_PORT_HOTSPOT : v->cls,
        .sample = v->last,
    };
    uint8_t details[CONG_NOTICE_DETAILS_LEN];
    unsigned trap = cong_event_notice(n->mon, &ev, details);

    if (!trap)
        return -1;
    return sma_send_vendor_notice(n->sma, trap, details, sizeof(details)) ? -1 : 0;
}

/* Notify the SM of n's ports whose hot-spot state it has not heard of yet. */
static void fabric_monitor_notify(struct fabric *f, struct fabric_node *n)
{
    if (!sma_lid(n->sma, 0) || !sma_master_sm_lid(n->sma, 0))
        return;
    for (unsigned p = 1; p <= n->num_ports; p++) {
        struct cong_port_view v;
        bool hot;

        if (cong_monitor_port(n->mon, p, &v))
            continue;
        hot = v.cls == CONG_PORT_HOTSPOT;
        if (hot == (bool)n->mon_notified[p] || fabric_monitor_notice(n, p, &v, hot))
            continue;
        n->mon_notified[p] = hot;
        fabric_mark_dirty(f, n); /* fabric_poll_dirty() sends the trap */
    }
}

/* Log the class changes of n's last sample (hot-spot ones with -v, the rest with -vv). */
static void fabric_monitor_events(struct fabric *f, struct fabric_node *n)
{
    struct cong_event ev;

    while (cong_monitor_next_event(n->mon, &ev)) {
        bool hot = ev.to == CONG_PORT_HOTSPOT || ev.from == CONG_PORT_HOTSPOT;

        pzf_log(f->verbose, hot ? PZF_LOG_INFO : PZF_LOG_DEBUG,
                "monitor: %s port %u %s -> %s (congestion %llu ticks/s)", n->name, ev.port,
                cong_port_class_name((enum cong_port_class)ev.from),
                cong_port_class_name((enum cong_port_class)ev.to),
                (unsigned long long)ev.sample.congestion);
    }
}

void fabric_monitor_tick(struct fabric *f, struct fabric_node *n, uint64_t now)
{
    if (!n->mon || n->external || cong_monitor_next_deadline(n->mon) > now)
        return;
    cong_monitor_poll(n->mon);
    fabric_monitor_events(f, n);
    fabric_monitor_notify(f, n); /* after each sample: the SM hears within one interval */
}

/*
 * node_notify.c - the notifier: hot-spot onsets and clears told to the
 * master SM as vendor notices of the switch's SMA (trap 0x0001 / 0x0002
 * with the monitor's port record, cong_event_notice()), resent by the SMA
 * until repressed.
 *
 * Notices are state-based: after each sample, if the SMA knows its master
 * SM (it has a LID and a MasterSMLID), every port whose hot-spot state
 * differs from what the SM was last told gets one notice.  Before that
 * nothing is queued -- a trap queue filled with stale onsets would crowd
 * out the SMA's own traps -- and once the SM is known it hears of the
 * hot-spots that exist at that time; so does a new master SM (another
 * MasterSMLID), which has heard of none.  A full trap queue leaves the port
 * unnotified until the next sample.
 */
#include "node_internal.h"

#include "sma.h"

/* Whether the SMA can reach its master SM (it has a LID and knows the SM's). */
static bool node_sm_known(const struct node *n)
{
    return sma_lid(n->sma, 0) != 0 && sma_master_sm_lid(n->sma, 0) != 0;
}

/*
 * Queue the notice that tells the SM port p's hot-spot state is now hot
 * (onset) or not (clear), from its newest sample v; returns 0 or -1.
 */
static int node_send_notice(struct node *n, unsigned p, const struct cong_port_view *v, bool hot)
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

/*
 * Forget what an earlier master SM was told when the SMA names another one
 * (a failover, or an SM started elsewhere): the new SM has heard of no
 * hot-spot, so every port counts as told "not hot" to it.  Returns nothing.
 */
static void node_notify_follow_sm(struct node *n)
{
    uint16_t sm = sma_master_sm_lid(n->sma, 0);

    if (sm == n->notified_sm)
        return;
    for (unsigned p = 1; p <= n->num_ports; p++)
        n->ports[p].notified_hot = false;
    n->notified_sm = sm;
}

void node_notify(struct node *n)
{
    if (!n->cfg.notices || !node_sm_known(n))
        return;
    node_notify_follow_sm(n);
    for (unsigned p = 1; p <= n->num_ports; p++) {
        struct node_port *pp = &n->ports[p];
        struct cong_port_view v;
        bool hot;

        if (cong_monitor_port(n->mon, p, &v))
            continue;
        hot = v.cls == CONG_PORT_HOTSPOT;
        if (hot == pp->notified_hot)
            continue;
        if (node_send_notice(n, p, &v, hot)) {
            node_log(n, NODE_LOG_WARN, "port %u: the hot-spot notice could not be queued", p);
            continue; /* tried again after the next sample */
        }
        pp->notified_hot = hot;
        node_log(n, NODE_LOG_INFO, "port %u: hot-spot %s notice queued for SM LID %u", p,
                 hot ? "onset" : "clear", sma_master_sm_lid(n->sma, 0));
    }
}

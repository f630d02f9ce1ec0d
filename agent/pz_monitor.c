/*
 * pz_monitor.c - the agent's congestion monitor glue: sampling from the
 * event loop, class changes to log lines and hot-spot notices, and the
 * neighbour discovery that says which ports face a CA (see pz_monitor.h).
 *
 * Notices are state-based: after each sample, if the SMA knows its master
 * SM (it has a LID and a MasterSMLID), every port whose hot-spot state
 * differs from what the SM was last told gets a notice (onset or clear).  Before that nothing
 * is queued -- a trap queue filled with stale onsets would crowd out the
 * SMA's own traps -- and once the SM is known it hears of the hot-spots
 * that exist at that time.  The vendor PMA attribute shows the state at
 * any time.
 */
#include "pz_monitor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "cong_monitor.h"
#include "pma.h"
#include "pz_log.h"
#include "sma.h"

#define PZM_MAD_SIZE IB_MAD_SIZE
#define PZM_SCAN_NS 200000000ull          /* port states scanned this often */
#define PZM_DISC_TIMEOUT_NS 1000000000ull /* answer timeout of one discovery SMP */
#define PZM_DISC_TRIES 3                  /* sends before a port's discovery gives up */
#define PZM_DISC_RETRY_NS 10000000000ull  /* then it starts again this much later */
#define PZM_TID_TAG PZ_MONITOR_TID_TAG    /* low 32 TID bits of discovery SMPs: tag | seq | port */
#define PZM_PERMISSIVE_LID 0xFFFF

/* Where a port's neighbour discovery stands. */
enum pzm_disc {
    PZM_DISC_IDLE = 0, /* port not Active, or never seen Active */
    PZM_DISC_WAIT,     /* a SubnGet(NodeInfo) is out */
    PZM_DISC_DONE,     /* the neighbour's NodeType is known */
    PZM_DISC_FAILED,   /* no answer after PZM_DISC_TRIES sends: retry later */
};

/* The glue's state of one port. */
struct pzm_port {
    bool active;          /* PortState Active at the last scan */
    uint8_t disc;         /* enum pzm_disc */
    uint8_t tries;        /* sends of the current discovery */
    uint32_t tid;         /* low 32 TID bits of the SMP that is out */
    uint64_t deadline_ns; /* answer timeout (WAIT) or retry time (FAILED) */
    bool notified_hot;    /* what the SM was last told: hot-spot or not */
};

struct pz_monitor {
    const struct board *board;
    struct sma *sma;
    struct pma *pma;
    struct cong_monitor *mon;
    pz_monitor_send_fn send;
    void *send_arg;
    bool notices;  /* monitor_notices */
    bool discover; /* no monitor_ca_ports: discover the peers */
    uint32_t seq;  /* discovery SMPs sent, for their TIDs */
    uint64_t next_scan_ns;
    unsigned num_ports;
    struct pzm_port *ports; /* [0..num_ports], 0 unused */
};

/* The monitor's tunables from the agent's configuration; returns 0 or -EINVAL. */
static int pzm_config(const struct pz_config *cfg, struct cong_monitor_config *mc)
{
    cong_monitor_default_config(mc);
    mc->interval_ms = cfg->monitor_interval_ms;
    mc->threshold_ticks = cfg->monitor_threshold;
    mc->low_util_percent = (uint8_t)cfg->monitor_low_util;
    mc->clear_percent = (uint8_t)cfg->monitor_clear;
    return cong_monitor_config_check(mc);
}

/* Set every port's peer from a monitor_ca_ports list; returns 0 or -1. */
static int pzm_set_listed_peers(struct pz_monitor *m, const char *list)
{
    uint8_t mask[(PZ_CONFIG_MAX_PORT + 8) / 8];

    if (pz_config_port_list(list, mask) < 0)
        return -1;
    for (unsigned p = 1; p <= m->num_ports && p <= PZ_CONFIG_MAX_PORT; p++)
        cong_monitor_set_peer(m->mon, p,
                              mask[p / 8] & (1u << (p % 8)) ? CONG_PEER_CA : CONG_PEER_SWITCH);
    return 0;
}

struct pz_monitor *pz_monitor_create(const struct pz_config *cfg, const struct board *board,
                                     struct sma *sma, struct pma *pma, pz_monitor_send_fn send,
                                     void *arg, char *err, size_t errlen)
{
    struct cong_monitor_config mc;
    struct pz_monitor *m;

    if (pzm_config(cfg, &mc)) {
        snprintf(err, errlen, "monitor: bad settings");
        return NULL;
    }
    m = calloc(1, sizeof(*m));
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->board = board;
    m->sma = sma;
    m->pma = pma;
    m->send = send;
    m->send_arg = arg;
    m->notices = cfg->monitor_notices;
    m->discover = cfg->monitor_ca_ports[0] == '\0';
    m->mon = cong_monitor_create(board, cong_monitor_read_pma, pma, &mc);
    m->num_ports = m->mon ? cong_monitor_num_ports(m->mon) : 0;
    m->ports = calloc(m->num_ports + 1, sizeof(*m->ports));
    if (!m->mon || !m->ports || (!m->discover && pzm_set_listed_peers(m, cfg->monitor_ca_ports))) {
        snprintf(err, errlen, "monitor: cannot create it");
        pz_monitor_destroy(m);
        return NULL;
    }
    pma_set_cong_monitor(pma, m->mon);
    pz_log(PZ_LOG_INFO, "monitor: %u ports every %u ms, threshold %llu ticks/s, CA ports %s",
           m->num_ports, mc.interval_ms, (unsigned long long)mc.threshold_ticks,
           m->discover ? "discovered" : cfg->monitor_ca_ports);
    return m;
}

void pz_monitor_destroy(struct pz_monitor *m)
{
    if (!m)
        return;
    if (m->mon)
        pma_set_cong_monitor(m->pma, NULL);
    cong_monitor_destroy(m->mon);
    free(m->ports);
    free(m);
}

const struct cong_monitor *pz_monitor_cong(const struct pz_monitor *m)
{
    return m->mon;
}

/* The earliest discovery deadline (answer timeout or retry), UINT64_MAX if none. */
static uint64_t pzm_disc_deadline(const struct pz_monitor *m)
{
    uint64_t next = UINT64_MAX;

    for (unsigned p = 1; p <= m->num_ports; p++) {
        const struct pzm_port *pp = &m->ports[p];

        if ((pp->disc == PZM_DISC_WAIT || pp->disc == PZM_DISC_FAILED) && pp->deadline_ns < next)
            next = pp->deadline_ns;
    }
    return next;
}

uint64_t pz_monitor_next_deadline(const struct pz_monitor *m)
{
    uint64_t next = cong_monitor_next_deadline(m->mon), disc = pzm_disc_deadline(m);

    if (m->discover && m->next_scan_ns < next)
        next = m->next_scan_ns;
    return disc < next ? disc : next;
}

/* Send a directed-route SubnGet(NodeInfo) out of port (HopCount 1); returns 0 or -1. */
static int pzm_disc_send(struct pz_monitor *m, unsigned port, uint64_t now)
{
    struct pzm_port *pp = &m->ports[port];
    struct mad_addr to = {.lid_routed = false, .dlid = PZM_PERMISSIVE_LID};
    uint8_t mad[PZM_MAD_SIZE], path[64];

    memset(mad, 0, sizeof(mad));
    memset(path, 0, sizeof(path));
    pp->tid = PZM_TID_TAG | ((++m->seq & 0xFFFFFu) << 8) | (port & 0xFFu);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SMI_DIRECT_CLASS);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
    mad_set_field64(mad, 0, IB_MAD_TRID_F, pp->tid);
    mad_set_field(mad, 0, IB_MAD_ATTRID_F, IB_ATTR_NODE_INFO);
    mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, 1);
    mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, 0);
    mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, PZM_PERMISSIVE_LID);
    mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, PZM_PERMISSIVE_LID);
    path[1] = (uint8_t)port; /* InitialPath [0, port] */
    mad_set_array(mad, 0, IB_DRSMP_PATH_F, path);
    pp->disc = PZM_DISC_WAIT;
    pp->tries++;
    pp->deadline_ns = now + PZM_DISC_TIMEOUT_NS;
    if (m->send(m->send_arg, mad, &to)) {
        pz_log(PZ_LOG_WARN, "monitor: discovery SMP out of port %u could not be sent", port);
        return -1;
    }
    pz_log(PZ_LOG_DEBUG, "monitor: asked the neighbour at port %u for its NodeInfo", port);
    return 0;
}

/* Start discovering the neighbour of port. */
static void pzm_disc_start(struct pz_monitor *m, unsigned port, uint64_t now)
{
    m->ports[port].tries = 0;
    pzm_disc_send(m, port, now);
}

/* Retry or give up discoveries whose answer did not come in time. */
static void pzm_disc_timeouts(struct pz_monitor *m, uint64_t now)
{
    for (unsigned p = 1; p <= m->num_ports; p++) {
        struct pzm_port *pp = &m->ports[p];

        if (pp->deadline_ns > now)
            continue;
        if (pp->disc == PZM_DISC_FAILED && pp->active) {
            pzm_disc_start(m, p, now);
        } else if (pp->disc == PZM_DISC_WAIT && pp->tries < PZM_DISC_TRIES) {
            pzm_disc_send(m, p, now);
        } else if (pp->disc == PZM_DISC_WAIT) {
            pz_log(PZ_LOG_WARN, "monitor: no answer from the neighbour at port %u", p);
            pp->disc = PZM_DISC_FAILED;
            pp->deadline_ns = now + PZM_DISC_RETRY_NS;
        }
    }
}

/*
 * Read every port's state: a port that became Active has its neighbour
 * discovered; one that left Active forgets it (the cable may move).
 */
static void pzm_scan(struct pz_monitor *m, uint64_t now)
{
    for (unsigned p = 1; p <= m->num_ports; p++) {
        struct pzm_port *pp = &m->ports[p];
        struct board_port_status st;
        bool active =
            board_port_status(m->board, p, &st) == 0 && st.port_state == BOARD_PORT_ACTIVE;

        if (active && !pp->active) {
            pp->active = true;
            pzm_disc_start(m, p, now);
        } else if (!active && pp->active) {
            pp->active = false;
            pp->disc = PZM_DISC_IDLE;
            cong_monitor_set_peer(m->mon, p, CONG_PEER_UNKNOWN);
        }
    }
}

/* The peer a NodeInfo NodeType stands for. */
static enum cong_peer pzm_peer_of(unsigned node_type)
{
    switch (node_type) {
    case 1: /* channel adapter */
        return CONG_PEER_CA;
    case 2: /* switch */
        return CONG_PEER_SWITCH;
    default: /* a router, or nonsense: never a hot-spot */
        return CONG_PEER_UNKNOWN;
    }
}

bool pz_monitor_take_mad(struct pz_monitor *m, const uint8_t *mad)
{
    uint32_t tid = (uint32_t)mad_get_field64((void *)mad, 0, IB_MAD_TRID_F);
    unsigned port = tid & 0xFFu, type;
    struct pzm_port *pp;

    /*
     * Only the low 32 TID bits are ours: the MAD layer (the kernel's, or
     * umad2sim) owns the high ones.
     */
    if (!m || !m->discover || (tid & 0xF0000000u) != PZM_TID_TAG ||
        mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) != IB_SMI_DIRECT_CLASS ||
        mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_GET ||
        !mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F) || port == 0 || port > m->num_ports)
        return false;
    pp = &m->ports[port];
    if (pp->disc != PZM_DISC_WAIT || pp->tid != tid)
        return true; /* a late answer to an SMP already given up on: ours, ignored */
    if (mad_get_field((void *)mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_NODE_INFO ||
        mad_get_field((void *)mad, 0, IB_DRSMP_STATUS_F) != 0) {
        pz_log(PZ_LOG_WARN, "monitor: the neighbour at port %u refused NodeInfo", port);
        return true; /* retried at the timeout */
    }
    type = mad_get_field((void *)mad, IB_SMP_DATA_OFFS, IB_NODE_TYPE_F);
    pp->disc = PZM_DISC_DONE;
    cong_monitor_set_peer(m->mon, port, pzm_peer_of(type));
    pz_log(PZ_LOG_INFO, "monitor: port %u faces a %s", port,
           type == 1   ? "CA"
           : type == 2 ? "switch"
                       : "router or unknown node");
    return true;
}

/* Log one class change. */
static void pzm_log_event(const struct cong_event *ev)
{
    pz_log(ev->to == CONG_PORT_HOTSPOT || ev->from == CONG_PORT_HOTSPOT ? PZ_LOG_INFO
                                                                        : PZ_LOG_DEBUG,
           "monitor: port %u %s -> %s (congestion %llu ticks/s, utilisation %u.%u%%)", ev->port,
           cong_port_class_name((enum cong_port_class)ev->from),
           cong_port_class_name((enum cong_port_class)ev->to),
           (unsigned long long)ev->sample.congestion, ev->sample.util_permille / 10,
           ev->sample.util_permille % 10);
}

/* Whether the SMA can reach its master SM (it has a LID and knows the SM's). */
static bool pzm_sm_known(const struct pz_monitor *m)
{
    return sma_lid(m->sma, 0) != 0 && sma_master_sm_lid(m->sma, 0) != 0;
}

/*
 * Queue the notice that tells the SM port p's hot-spot state is now hot
 * (onset) or not (clear), from its newest sample v; returns 0 or -1.
 */
static int pzm_send_notice(struct pz_monitor *m, unsigned p, const struct cong_port_view *v,
                           bool hot)
{
    struct cong_event ev = {
        .port = p,
        .from = hot ? CONG_PORT_NORMAL : CONG_PORT_HOTSPOT,
        .to = hot ? CONG_PORT_HOTSPOT : v->cls,
        .sample = v->last,
    };
    uint8_t details[CONG_NOTICE_DETAILS_LEN];
    unsigned trap = cong_event_notice(m->mon, &ev, details);

    if (!trap)
        return -1;
    return sma_send_vendor_notice(m->sma, trap, details, sizeof(details)) ? -1 : 0;
}

/* Tell the SM of every port whose hot-spot state it has not heard of yet. */
static void pzm_notify(struct pz_monitor *m)
{
    if (!m->notices || !pzm_sm_known(m))
        return;
    for (unsigned p = 1; p <= m->num_ports; p++) {
        struct pzm_port *pp = &m->ports[p];
        struct cong_port_view v;
        bool hot;

        if (cong_monitor_port(m->mon, p, &v))
            continue;
        hot = v.cls == CONG_PORT_HOTSPOT;
        if (hot == pp->notified_hot)
            continue;
        if (pzm_send_notice(m, p, &v, hot)) {
            pz_log(PZ_LOG_WARN, "monitor: port %u: the hot-spot notice could not be queued", p);
            continue; /* tried again at the next poll */
        }
        pp->notified_hot = hot;
        pz_log(PZ_LOG_INFO, "monitor: port %u: hot-spot %s notice queued for SM LID %u", p,
               hot ? "onset" : "clear", sma_master_sm_lid(m->sma, 0));
    }
}

void pz_monitor_poll(struct pz_monitor *m)
{
    uint64_t now = board_now_ns(m->board);
    struct cong_event ev;

    if (m->discover && now >= m->next_scan_ns) {
        m->next_scan_ns = now + PZM_SCAN_NS;
        pzm_scan(m, now);
    }
    if (m->discover)
        pzm_disc_timeouts(m, now);
    if (cong_monitor_next_deadline(m->mon) <= now) {
        cong_monitor_poll(m->mon);
        while (cong_monitor_next_event(m->mon, &ev))
            pzm_log_event(&ev);
        pzm_notify(m); /* after each sample: the SM hears within one interval */
    }
}

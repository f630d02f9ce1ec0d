/*
 * cong_monitor.c - the local congestion monitor (dFtree): sampling of
 * PortXmitWait and PortXmitData, rates over the actual elapsed board time,
 * classification with hysteresis, per-port history and the event queue.
 *
 * Rules, per port and sampling round:
 * - Link down (or an unknown rate): class NORMAL, no measurement, the
 *   baseline is dropped (the round that finds it down records a zero
 *   sample); the next round with the link up only takes a baseline.
 * - A counter below its previous value (reset), a counter at 2^32-1 or
 *   2^64-1 on two reads in a row (stuck saturated), or a reader error: the
 *   sample is invalid; the class stays, the baseline restarts, it is counted.
 * - Onset (from NORMAL): congestion >= threshold -> HOTSPOT if the port
 *   faces a CA, else LOW_UTIL if utilisation < low_util, else CONGESTED.
 * - A congested class holds until congestion < threshold * clear% / 100;
 *   meanwhile LOW_UTIL and CONGESTED swap only CONG_UTIL_MARGIN_PERMILLE
 *   beyond the low-utilisation threshold, and a change of peer moves the
 *   port to the class its new peer calls for.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cong_monitor.h"
#include "pma.h"
#include "pma_vendor.h"

#define CONG_NS_PER_S 1000000000ull
#define CONG_NS_PER_MS 1000000ull
#define CONG_SAT32 0xFFFFFFFFull
#define CONG_SAT64 UINT64_MAX

_Static_assert(CONG_NOTICE_DETAILS_LEN == PZ_CMN_LEN, "notice record sizes differ");

/* Monitor state of one port. */
struct cong_port {
    uint8_t cls;  /* enum cong_port_class */
    uint8_t peer; /* enum cong_peer */
    bool valid;   /* at least one complete interval measured */
    bool have_base;
    uint64_t base_wait; /* counters and board time of the baseline */
    uint64_t base_data;
    uint64_t base_ns;
    uint64_t link_bps;
    struct cong_sample last;
    uint64_t since_ns;
    uint32_t changes;
    uint32_t invalid;
    struct cong_sample *hist; /* ring of cfg.history samples */
    unsigned hist_next;       /* where the next sample goes */
    unsigned hist_count;
};

struct cong_monitor {
    const struct board *board;
    cong_read_fn read;
    void *arg;
    struct cong_monitor_config cfg;
    unsigned num_ports;
    struct cong_port *ports;        /* num_ports + 1; [0] unused */
    struct cong_sample *hist_store; /* num_ports + 1 rings of cfg.history */
    uint64_t last_ns;               /* board time of the last round (or creation) */
    uint64_t next_ns;               /* board time of the next round */
    struct cong_event events[CONG_EVENT_QUEUE];
    unsigned ev_first;
    unsigned ev_count;
    struct cong_monitor_stats stats;
};

/* a * b / c, sticking at UINT64_MAX instead of overflowing (c > 0). */
static uint64_t cong_mul_div(uint64_t a, uint64_t b, uint64_t c)
{
#ifdef __SIZEOF_INT128__
    unsigned __int128 q = (unsigned __int128)a * b / c;

    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
#else
    long double q = (long double)a * (long double)b / (long double)c;

    return q >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)q;
#endif
}

void cong_monitor_default_config(struct cong_monitor_config *cfg)
{
    cfg->interval_ms = CONG_INTERVAL_DEFAULT_MS;
    cfg->threshold_ticks = CONG_THRESHOLD_DEFAULT;
    cfg->low_util_percent = CONG_LOW_UTIL_DEFAULT;
    cfg->clear_percent = CONG_CLEAR_DEFAULT;
    cfg->history = CONG_HISTORY_DEFAULT;
}

int cong_monitor_config_check(const struct cong_monitor_config *cfg)
{
    if (!cfg || cfg->interval_ms < CONG_INTERVAL_MIN_MS || cfg->threshold_ticks == 0)
        return -EINVAL;
    if (cfg->low_util_percent < 1 || cfg->low_util_percent > 100)
        return -EINVAL;
    if (cfg->clear_percent < 1 || cfg->clear_percent > 100)
        return -EINVAL;
    if (cfg->history < 1 || cfg->history > CONG_HISTORY_MAX)
        return -EINVAL;
    return 0;
}

/* Link data rate of port in bits/s; 0 when the link is not up. */
static uint64_t cong_link_rate(const struct cong_monitor *m, unsigned port)
{
    struct board_port_status st;

    if (board_port_status(m->board, port, &st) != 0 || st.phys_state != BOARD_PHYS_LINKUP ||
        st.port_state < BOARD_PORT_INIT)
        return 0;
    return board_link_data_rate_bps(&st);
}

/*
 * Give every port a ring of len samples in a new store, keeping the newest
 * samples of the old rings.  Returns 0 or -ENOMEM (nothing changed).
 */
static int cong_hist_resize(struct cong_monitor *m, unsigned len)
{
    struct cong_sample *store = calloc((size_t)(m->num_ports + 1) * len, sizeof(*store));

    if (!store)
        return -ENOMEM;
    for (unsigned p = 0; p <= m->num_ports; p++) {
        struct cong_port *cp = &m->ports[p];
        unsigned keep = cp->hist_count < len ? cp->hist_count : len;
        struct cong_sample *ring = store + (size_t)p * len;

        /* Oldest kept first, so the newest ends at index keep - 1. */
        for (unsigned i = 0; i < keep; i++)
            ring[keep - 1 - i] =
                cp->hist[(cp->hist_next + m->cfg.history - 1 - i) % m->cfg.history];
        cp->hist = ring;
        cp->hist_count = keep;
        cp->hist_next = keep % len;
    }
    free(m->hist_store);
    m->hist_store = store;
    return 0;
}

/* Take a port's baseline from counters read at now. */
static void cong_rebase(struct cong_port *cp, uint64_t wait, uint64_t data, uint64_t now)
{
    cp->have_base = true;
    cp->base_wait = wait;
    cp->base_data = data;
    cp->base_ns = now;
}

struct cong_monitor *cong_monitor_create(const struct board *board, cong_read_fn read, void *arg,
                                         const struct cong_monitor_config *cfg)
{
    struct cong_monitor_config def;
    struct cong_monitor *m;
    uint64_t now;

    if (!cfg) {
        cong_monitor_default_config(&def);
        cfg = &def;
    }
    if (!board || !board->id || !board->ops || !read || cong_monitor_config_check(cfg) != 0)
        return NULL;
    m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->board = board;
    m->read = read;
    m->arg = arg;
    m->num_ports = board->id->num_ports;
    m->ports = calloc(m->num_ports + 1, sizeof(*m->ports));
    m->cfg = *cfg;
    m->hist_store = calloc((size_t)(m->num_ports + 1) * cfg->history, sizeof(*m->hist_store));
    if (!m->ports || !m->hist_store) {
        cong_monitor_destroy(m);
        return NULL;
    }
    now = board_now_ns(board);
    for (unsigned p = 0; p <= m->num_ports; p++) {
        struct cong_port *cp = &m->ports[p];
        uint64_t wait, data;

        cp->hist = m->hist_store + (size_t)p * cfg->history;
        cp->since_ns = now;
        if (p == 0)
            continue;
        cp->link_bps = cong_link_rate(m, p);
        if (cp->link_bps && read(arg, p, &wait, &data) == 0)
            cong_rebase(cp, wait, data, now);
    }
    m->last_ns = now;
    m->next_ns = now + cfg->interval_ms * CONG_NS_PER_MS;
    return m;
}

void cong_monitor_destroy(struct cong_monitor *m)
{
    if (!m)
        return;
    free(m->hist_store);
    free(m->ports);
    free(m);
}

int cong_monitor_set_config(struct cong_monitor *m, const struct cong_monitor_config *cfg)
{
    if (cong_monitor_config_check(cfg) != 0)
        return -EINVAL;
    if (cfg->history != m->cfg.history && cong_hist_resize(m, cfg->history) != 0)
        return -ENOMEM;
    m->cfg = *cfg;
    /* The next round comes one new interval after the last one. */
    m->next_ns = m->last_ns + cfg->interval_ms * CONG_NS_PER_MS;
    return 0;
}

void cong_monitor_get_config(const struct cong_monitor *m, struct cong_monitor_config *cfg)
{
    *cfg = m->cfg;
}

int cong_monitor_set_peer(struct cong_monitor *m, unsigned port, enum cong_peer peer)
{
    if (port < 1 || port > m->num_ports || (unsigned)peer > CONG_PEER_SWITCH)
        return -EINVAL;
    m->ports[port].peer = (uint8_t)peer;
    return 0;
}

uint64_t cong_monitor_next_deadline(const struct cong_monitor *m)
{
    return m->next_ns;
}

/* Queue an event, dropping the oldest when the queue is full. */
static void cong_queue_event(struct cong_monitor *m, const struct cong_event *ev)
{
    if (m->ev_count == CONG_EVENT_QUEUE) {
        m->ev_first = (m->ev_first + 1) % CONG_EVENT_QUEUE;
        m->ev_count--;
        m->stats.events_dropped++;
    }
    m->events[(m->ev_first + m->ev_count) % CONG_EVENT_QUEUE] = *ev;
    m->ev_count++;
    m->stats.events++;
}

/* Move port to class cls as of sample s; returns 1 when that is a change (event queued). */
static unsigned cong_set_class(struct cong_monitor *m, unsigned port, uint8_t cls,
                               const struct cong_sample *s)
{
    struct cong_port *cp = &m->ports[port];
    struct cong_event ev;

    if (cp->cls == cls)
        return 0;
    ev.port = port;
    ev.from = cp->cls;
    ev.to = cls;
    ev.sample = *s;
    ev.sample.cls = cls;
    cp->cls = cls;
    cp->since_ns = s->time_ns;
    cp->changes++;
    cong_queue_event(m, &ev);
    return 1;
}

/* The class a congested port facing peer takes at utilisation util_pm (onset rule). */
static uint8_t cong_onset_class(const struct cong_monitor *m, uint8_t peer, uint32_t util_pm)
{
    if (peer == CONG_PEER_CA)
        return CONG_PORT_HOTSPOT;
    return util_pm < m->cfg.low_util_percent * 10u ? CONG_PORT_LOW_UTIL : CONG_PORT_CONGESTED;
}

/* The class of a port after a sample of congestion c and utilisation util_pm. */
static uint8_t cong_classify(const struct cong_monitor *m, const struct cong_port *cp, uint64_t c,
                             uint32_t util_pm)
{
    uint32_t low = m->cfg.low_util_percent * 10u;

    if (cp->cls == CONG_PORT_NORMAL)
        return c >= m->cfg.threshold_ticks ? cong_onset_class(m, cp->peer, util_pm)
                                           : CONG_PORT_NORMAL;
    if (c < cong_mul_div(m->cfg.threshold_ticks, m->cfg.clear_percent, 100))
        return CONG_PORT_NORMAL;
    if (cp->peer == CONG_PEER_CA || cp->cls == CONG_PORT_HOTSPOT)
        return cong_onset_class(m, cp->peer, util_pm); /* follows a change of peer */
    if (cp->cls == CONG_PORT_LOW_UTIL && util_pm >= low + CONG_UTIL_MARGIN_PERMILLE)
        return CONG_PORT_CONGESTED;
    if (cp->cls == CONG_PORT_CONGESTED && util_pm + CONG_UTIL_MARGIN_PERMILLE < low)
        return CONG_PORT_LOW_UTIL;
    return cp->cls;
}

/* Append s to a port's history ring. */
static void cong_hist_push(const struct cong_monitor *m, struct cong_port *cp,
                           const struct cong_sample *s)
{
    cp->hist[cp->hist_next] = *s;
    cp->hist_next = (cp->hist_next + 1) % m->cfg.history;
    if (cp->hist_count < m->cfg.history)
        cp->hist_count++;
}

/* Count a discarded sample of cp (cause: one of the stats counters). */
static void cong_invalid(struct cong_monitor *m, struct cong_port *cp, uint64_t *cause)
{
    cp->invalid++;
    m->stats.invalid++;
    (*cause)++;
}

/* Whether v is the value a saturating 32- or 64-bit counter sticks at. */
static bool cong_saturated(uint64_t v)
{
    return v == CONG_SAT32 || v == CONG_SAT64;
}

/*
 * Check a reading against the port's baseline; returns false (sample
 * counted invalid, baseline restarted at the reading) for a counter that
 * went backwards or stuck saturated.
 */
static bool cong_reading_ok(struct cong_monitor *m, struct cong_port *cp, uint64_t wait,
                            uint64_t data, uint64_t now)
{
    bool ok = true;

    if (wait < cp->base_wait || data < cp->base_data) {
        cong_invalid(m, cp, &m->stats.counter_resets);
        ok = false;
    } else if ((cong_saturated(wait) && wait == cp->base_wait) ||
               (cong_saturated(data) && data == cp->base_data)) {
        cong_invalid(m, cp, &m->stats.saturations);
        ok = false;
    }
    if (!ok)
        cong_rebase(cp, wait, data, now);
    return ok;
}

/*
 * A round that finds port's link down at now (was_bps: its link rate at the
 * round before): the baseline is dropped and the class is NORMAL.  When the
 * link was up before, the zero sample the event carries also becomes the
 * port's newest sample and enters its history, so no reader goes on showing
 * the rates of a link that is gone, and the history shows where the class
 * ended.  Returns the number of events queued (0 or 1).
 */
static unsigned cong_port_down(struct cong_monitor *m, unsigned port, uint64_t was_bps,
                               uint64_t now)
{
    struct cong_port *cp = &m->ports[port];
    struct cong_sample s = {.time_ns = now, .cls = CONG_PORT_NORMAL};

    cp->have_base = false;
    cp->valid = false;
    if (was_bps) {
        cp->last = s;
        cong_hist_push(m, cp, &s);
    }
    return cong_set_class(m, port, CONG_PORT_NORMAL, &s);
}

/* Sample one port at now; returns the number of events queued (0 or 1). */
static unsigned cong_sample_port(struct cong_monitor *m, unsigned port, uint64_t now)
{
    struct cong_port *cp = &m->ports[port];
    struct cong_sample s = {.time_ns = now};
    uint64_t was_bps = cp->link_bps;
    uint64_t wait, data, elapsed, util;

    cp->link_bps = cong_link_rate(m, port);
    if (!cp->link_bps)
        return cong_port_down(m, port, was_bps, now);
    if (m->read(m->arg, port, &wait, &data) != 0) {
        cong_invalid(m, cp, &m->stats.read_errors);
        cp->have_base = false;
        return 0;
    }
    if (!cp->have_base) {
        cong_rebase(cp, wait, data, now);
        return 0;
    }
    elapsed = now - cp->base_ns;
    if (elapsed == 0 || !cong_reading_ok(m, cp, wait, data, now))
        return 0;
    s.congestion = cong_mul_div(wait - cp->base_wait, CONG_NS_PER_S, elapsed);
    s.bandwidth = cong_mul_div(data - cp->base_data, 4 * CONG_NS_PER_S, elapsed);
    util = cong_mul_div(s.bandwidth, 8000, cp->link_bps);
    s.util_permille = util > 1000 ? 1000 : (uint32_t)util;
    cong_rebase(cp, wait, data, now);
    s.cls = cong_classify(m, cp, s.congestion, s.util_permille);
    cp->valid = true;
    cp->last = s;
    cong_hist_push(m, cp, &s);
    return cong_set_class(m, port, s.cls, &s);
}

unsigned cong_monitor_poll(struct cong_monitor *m)
{
    uint64_t now = board_now_ns(m->board);
    uint64_t interval = m->cfg.interval_ms * CONG_NS_PER_MS;
    unsigned events = 0;

    if (now < m->next_ns)
        return 0;
    for (unsigned p = 1; p <= m->num_ports; p++)
        events += cong_sample_port(m, p, now);
    m->stats.samples++;
    m->last_ns = now;
    /* Keep the cadence when polled a little late; restart it after a stall. */
    m->next_ns += interval;
    if (m->next_ns <= now)
        m->next_ns = now + interval;
    return events;
}

bool cong_monitor_next_event(struct cong_monitor *m, struct cong_event *ev)
{
    if (!m->ev_count)
        return false;
    *ev = m->events[m->ev_first];
    m->ev_first = (m->ev_first + 1) % CONG_EVENT_QUEUE;
    m->ev_count--;
    return true;
}

int cong_monitor_port(const struct cong_monitor *m, unsigned port, struct cong_port_view *v)
{
    const struct cong_port *cp;

    if (port < 1 || port > m->num_ports)
        return -EINVAL;
    cp = &m->ports[port];
    v->cls = cp->cls;
    v->peer = cp->peer;
    v->valid = cp->valid;
    v->link_bps = cp->link_bps;
    v->last = cp->last;
    v->since_ns = cp->since_ns;
    v->changes = cp->changes;
    v->invalid = cp->invalid;
    return 0;
}

unsigned cong_monitor_history(const struct cong_monitor *m, unsigned port, struct cong_sample *out,
                              unsigned max)
{
    const struct cong_port *cp;
    unsigned n;

    if (port < 1 || port > m->num_ports)
        return 0;
    cp = &m->ports[port];
    n = cp->hist_count < max ? cp->hist_count : max;
    for (unsigned i = 0; i < n; i++)
        out[i] = cp->hist[(cp->hist_next + m->cfg.history - 1 - i) % m->cfg.history];
    return n;
}

uint64_t cong_monitor_samples(const struct cong_monitor *m)
{
    return m->stats.samples;
}

unsigned cong_monitor_num_ports(const struct cong_monitor *m)
{
    return m->num_ports;
}

void cong_monitor_get_stats(const struct cong_monitor *m, struct cong_monitor_stats *st)
{
    *st = m->stats;
}

int cong_monitor_read_pma(void *pma, unsigned port, uint64_t *xmit_wait, uint64_t *xmit_data)
{
    struct pma_counters c;
    int rc = pma_port_counters64(pma, port, &c);

    if (rc != 0)
        return rc;
    *xmit_wait = c.total.xmit_wait;
    *xmit_data = c.total.xmit_data;
    return 0;
}

unsigned cong_event_notice(const struct cong_monitor *m, const struct cong_event *ev,
                           uint8_t details[CONG_NOTICE_DETAILS_LEN])
{
    unsigned trap;

    if (ev->port < 1 || ev->port > m->num_ports)
        return 0;
    if (ev->to == CONG_PORT_HOTSPOT && ev->from != CONG_PORT_HOTSPOT)
        trap = CONG_TRAP_HOTSPOT_ONSET;
    else if (ev->from == CONG_PORT_HOTSPOT && ev->to != CONG_PORT_HOTSPOT)
        trap = CONG_TRAP_HOTSPOT_CLEAR;
    else
        return 0;
    memset(details, 0, CONG_NOTICE_DETAILS_LEN);
    details[PZ_CMN_PORT] = (uint8_t)ev->port;
    details[PZ_CMN_CLASS] = ev->to;
    details[PZ_CMN_PREV_CLASS] = ev->from;
    details[PZ_CMN_PEER] = m->ports[ev->port].peer;
    be_put(details + PZ_CMN_CONGESTION, ev->sample.congestion, 8);
    be_put(details + PZ_CMN_BANDWIDTH, ev->sample.bandwidth, 8);
    be_put(details + PZ_CMN_UTIL, ev->sample.util_permille, 2);
    be_put(details + PZ_CMN_LINK_RATE, m->ports[ev->port].link_bps, 8);
    be_put(details + PZ_CMN_TIME, ev->sample.time_ns, 8);
    be_put(details + PZ_CMN_CHANGES, m->ports[ev->port].changes, 4);
    be_put(details + PZ_CMN_INTERVAL, m->cfg.interval_ms, 4);
    return trap;
}

const char *cong_port_class_name(enum cong_port_class cls)
{
    static const char *const names[] = {
        [CONG_PORT_NORMAL] = "normal",
        [CONG_PORT_HOTSPOT] = "hot-spot",
        [CONG_PORT_LOW_UTIL] = "low-util",
        [CONG_PORT_CONGESTED] = "congested",
    };

    if ((unsigned)cls >= sizeof(names) / sizeof(names[0]) || !names[cls])
        return "unknown";
    return names[cls];
}

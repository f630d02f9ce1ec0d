/*
 * pz_dftree.c - pz-dftree, the dFtree manager: the paper's performance
 * manager and optimiser as a daemon beside the SM, attached like the diags.
 *
 *   pz-dftree [-C ca] [-P port] [-t ms] [--poll MS [--no-notices]] [--sample MS]
 *             [--check MS] [--recheck MS] [--issuers LID[-LID]] [-v]
 *   pz-dftree [-C ca] [-P port] [-t ms] --send repath|fast-lane --hot LID --to LID
 *
 * It subscribes at the SA (InformInfo, IsGeneric 0, VendorID 0x0002C9,
 * DeviceID 0x7A70: portzero's hot-spot onset and clear notices) and takes
 * the Reports OpenSM forwards.  On an onset it finds the hot-spot's LID
 * (the end port cabled to the reported switch port, LinkRecord), reads the
 * switch's monitor (PZ_CongestionMonitor: threshold, low-utilisation
 * level, the port's figures), finds the contributors by the paper's rule
 * (dftree_rule.h) from two PortCountersExtended readings of every end port
 * --sample ms apart, and sends each a repath notice (dftree_notice.h); on
 * the clear it sends them the fast-lane notice.  Every --recheck ms, while
 * a hot-spot is on, end ports not told yet are measured again and new
 * contributors repathed.  With --poll MS it reads
 * every switch's monitor summary every MS instead (or as well): an SM that
 * forwards nothing, or the PM-sweep baseline.  Every --check ms it asks the
 * SA whether it still holds the subscription and subscribes again if not
 * (an SM restart), then reconciles with one poll round.  Every decision is
 * logged on stderr with its figures.  SIGTERM/SIGINT: exit 0; flows stay
 * on the lane they are on.  dftree/README.md has the details.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "dftree_notice.h"
#include "dftree_rule.h"
#include "dftree_sa.h"
#include "dftree_umad.h"
#include "pma_vendor.h"

#define DT_HOT_MAX 64
#define DT_CONTRIB_MAX 1024
#define DT_EXIT_ERROR 1
#define DT_EXIT_USAGE 2
#define DT_DEFAULT_THRESHOLD 100000 /* the monitor's default, if its summary cannot be read */
#define DT_DEFAULT_LOW_UTIL 50
#define PZ_TRAP_ONSET 0x0001 /* the switches' hot-spot notices (pma/README.md) */
#define PZ_TRAP_CLEAR 0x0002

/* The signal that asked us to stop (0 while running). */
static volatile sig_atomic_t dt_stop;

/* Command-line options. */
struct dt_opts {
    const char *ca;
    int port;
    int timeout_ms;
    unsigned poll_ms;    /* 0: notices only */
    unsigned sample_ms;  /* between the two counter readings of the contributor rule */
    unsigned check_ms;   /* subscription check, 0: never */
    unsigned recheck_ms; /* contributors of hot-spots still on looked for again, 0: never */
    bool no_notices;     /* --no-notices: no subscription, --poll alone */
    uint16_t lid_begin, lid_end;
    uint32_t vendor_id;
    uint16_t device_id;
    int verbose;
    const char *send; /* --send: "repath" or "fast-lane" */
    uint16_t send_hot, send_to;
};

/* A hot-spot being handled: where it was reported, its LID, whom we told. */
struct dt_hot {
    uint16_t switch_lid;
    uint8_t port;
    uint16_t hot_lid;
    struct dt_rule rule; /* the reporting switch's */
    uint16_t *contrib;
    unsigned num_contrib;
    uint64_t onset_ns;
};

/* The manager. */
struct dt_mgr {
    struct dt_opts o;
    struct dt_port p;
    struct dt_fabric fab;
    struct dt_hot hot[DT_HOT_MAX];
    unsigned num_hot;
    bool subscribed;
    uint64_t start_ns;
    uint64_t onsets, clears, repaths, fast_lanes, no_answer;
};

/* Monotonic time, ns. */
static uint64_t dt_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Log a line on stderr: "pz-dftree: [seconds since start] message". */
static void dt_log(const struct dt_mgr *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void dt_log(const struct dt_mgr *m, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "pz-dftree: [%.3f] %s\n", (double)(dt_now() - m->start_ns) / 1e9, msg);
    fflush(stderr);
}

/* A node's description for the log, or "?". */
static const char *dt_name(const struct dt_mgr *m, uint16_t lid)
{
    const struct dt_node *n = dt_fabric_by_lid(&m->fab, lid);

    return n ? n->desc : "?";
}

/* Sleep ms milliseconds (a signal ends it early). */
static void dt_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};

    nanosleep(&ts, NULL);
}

/* ---- notices to the hosts ---- */

/*
 * Send a repath or fast-lane notice for hot_lid to the port with LID to;
 * returns the host's answer status, or -1 when it did not answer (logged).
 */
static int dt_notify(struct dt_mgr *m, uint16_t to, uint16_t trap, uint16_t hot_lid,
                     uint16_t switch_lid, unsigned port)
{
    struct dftree_notice n = {
        .vendor_id = m->o.vendor_id,
        .device_id = m->o.device_id,
        .issuer_lid = m->p.lid,
        .trap = trap,
        .hot_lid = hot_lid,
        .switch_lid = switch_lid,
        .switch_port = (uint8_t)port,
    };
    uint8_t req[DFTREE_MAD_SIZE];
    const uint8_t *ans;
    struct dftree_notice a;
    const char *why;
    int len;

    for (unsigned i = 0; i < 8; i++) {
        n.issuer_gid[i] = (uint8_t)(m->p.gid_prefix >> (56 - 8 * i));
        n.issuer_gid[8 + i] = (uint8_t)(m->p.port_guid >> (56 - 8 * i));
    }
    dftree_notice_build(req, &n);
    if (dt_rpc(&m->p, DT_AGENT_VENDOR, to, req, &ans, &len) ||
        dftree_notice_parse(ans, (size_t)len, &a, &why)) {
        m->no_answer++;
        dt_log(m, "%s notice for hot-spot LID %u to LID %u (%s): no answer", dftree_trap_name(trap),
               hot_lid, to, dt_name(m, to));
        return -1;
    }
    dt_log(m, "%s notice for hot-spot LID %u to LID %u (%s): answered, status 0x%04x%s",
           dftree_trap_name(trap), hot_lid, to, dt_name(m, to), a.status,
           a.status ? " (refused)" : "");
    return a.status;
}

/* ---- contributors ---- */

/* Whether lid is one of known[0..n). */
static bool dt_known(const uint16_t *known, unsigned n, uint16_t lid)
{
    for (unsigned i = 0; i < n; i++)
        if (known[i] == lid)
            return true;
    return false;
}

/* The end ports to measure: all but the hot-spot's and the known ones; their count. */
static size_t dt_candidates(const struct dt_mgr *m, uint16_t hot_lid, const uint16_t *known,
                            unsigned num_known, const struct dt_node **c)
{
    size_t n = 0;

    for (size_t i = 0; i < m->fab.count; i++)
        if (!m->fab.nodes[i].is_switch && m->fab.nodes[i].lid != hot_lid &&
            !dt_known(known, num_known, m->fab.nodes[i].lid))
            c[n++] = &m->fab.nodes[i];
    return n;
}

/* Which end ports dt_contributors() measures and what it logs. */
struct dt_search {
    const struct dt_rule *rule;
    uint16_t hot_lid;
    const uint16_t *known; /* contributors already told: not measured again */
    unsigned num_known;
    bool recheck; /* log only the contributors found */
};

/*
 * Find the contributors to s->hot_lid by s->rule: two readings of every
 * candidate sample_ms apart.  Their LIDs go to out (at most max); returns
 * how many, every decision logged (on a recheck only the contributors).
 */
static unsigned dt_contributors(struct dt_mgr *m, const struct dt_search *s, uint16_t *out,
                                unsigned max)
{
    const struct dt_rule *r = s->rule;
    const struct dt_node **c = calloc(m->fab.count + 1, sizeof(*c));
    struct dt_reading *a = calloc(m->fab.count + 1, sizeof(*a));
    bool *ok = calloc(m->fab.count + 1, sizeof(*ok));
    size_t n = c ? dt_candidates(m, s->hot_lid, s->known, s->num_known, c) : 0, quiet = 0;
    unsigned found = 0;

    if (!c || !a || !ok) {
        dt_log(m, "out of memory: no contributors");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        ok[i] = dt_pma_counters(&m->p, c[i]->lid, c[i]->port, &a[i]) == 0;
    dt_sleep_ms(m->o.sample_ms);
    for (size_t i = 0; i < n; i++) {
        struct dt_reading b;
        struct dt_figures fg;

        if (!ok[i] || dt_pma_counters(&m->p, c[i]->lid, c[i]->port, &b)) {
            if (!s->recheck)
                dt_log(m, "  LID %u (%s): counters unreadable: not a contributor", c[i]->lid,
                       c[i]->desc);
            continue;
        }
        dt_rule_apply(r, &a[i], &b, c[i]->link_bps, &fg);
        if (fg.contributor && found < max)
            out[found++] = c[i]->lid;
        if (!fg.contributor && ((fg.valid && fg.congestion == 0 && !m->o.verbose) || s->recheck)) {
            quiet++;
            continue;
        }
        dt_log(m,
               "  LID %u (%s): congestion %" PRIu64 " ticks/s (threshold %" PRIu64
               "), utilisation %u.%u%% (low below %u%%) of %" PRIu64 " b/s: %s%s",
               c[i]->lid, c[i]->desc, fg.congestion, r->threshold, fg.util_permille / 10,
               fg.util_permille % 10, r->low_util_pct, c[i]->link_bps, fg.why,
               fg.contributor ? ": CONTRIBUTOR" : "");
    }
    if (quiet && !s->recheck)
        dt_log(m, "  %zu more end ports without congestion: not contributors", quiet);
out:
    free(c);
    free(a);
    free(ok);
    return found;
}

/* ---- onset and clear ---- */

/* The hot-spot reported at (switch_lid, port), or NULL. */
static struct dt_hot *dt_find_hot(struct dt_mgr *m, uint16_t switch_lid, unsigned port)
{
    for (unsigned i = 0; i < m->num_hot; i++)
        if (m->hot[i].switch_lid == switch_lid && m->hot[i].port == port)
            return &m->hot[i];
    return NULL;
}

/* The end port behind (switch_lid, port): its LID, or 0 (logged). */
static uint16_t dt_hot_lid(struct dt_mgr *m, uint16_t switch_lid, unsigned port)
{
    const char *why = "";
    uint16_t lid = dt_sa_peer_lid(&m->p, switch_lid, port, &why);
    const struct dt_node *n;

    if (!lid) {
        dt_log(m, "onset at switch LID %u port %u: no end port found behind it (%s): ignored",
               switch_lid, port, why);
        return 0;
    }
    n = dt_fabric_by_lid(&m->fab, lid);
    if (!n && dt_sa_read_fabric(&m->p, &m->fab, &why) == 0)
        n = dt_fabric_by_lid(&m->fab, lid);
    if (!n || n->is_switch) {
        dt_log(m, "onset at switch LID %u port %u: LID %u behind it is %s: ignored", switch_lid,
               port, lid, n ? "a switch" : "unknown to the SA");
        return 0;
    }
    return lid;
}

/* The switch's rule (its monitor's settings; the defaults, logged, if unreadable). */
static void dt_switch_rule(struct dt_mgr *m, uint16_t switch_lid, unsigned port, struct dt_rule *r)
{
    struct dt_monitor mon;
    struct dt_port_record rec;
    int rc = dt_pma_monitor(&m->p, switch_lid, &mon);

    if (rc) {
        *r = (struct dt_rule){DT_DEFAULT_THRESHOLD, DT_DEFAULT_LOW_UTIL};
        dt_log(m,
               "switch LID %u: monitor summary unreadable (%d): threshold %" PRIu64
               " ticks/s, low utilisation %u%% assumed",
               switch_lid, rc, r->threshold, r->low_util_pct);
        return;
    }
    *r = mon.rule;
    if (dt_pma_port_record(&m->p, switch_lid, port, &rec) == 0)
        dt_log(m,
               "switch LID %u (%s) port %u: class %u, congestion %" PRIu64
               " ticks/s (threshold %" PRIu64 "), utilisation %u.%u%%, interval %u ms",
               switch_lid, dt_name(m, switch_lid), port, rec.cls, rec.congestion, r->threshold,
               rec.util_permille / 10, rec.util_permille % 10, mon.interval_ms);
}

/* A hot-spot onset at (switch_lid, port), reported by via: find, decide, repath. */
static void dt_onset(struct dt_mgr *m, uint16_t switch_lid, unsigned port, const char *via)
{
    struct dt_hot *h;
    struct dt_rule r;
    uint16_t lid;
    uint16_t *contrib;

    if (dt_find_hot(m, switch_lid, port)) {
        dt_log(m, "onset at switch LID %u port %u (%s): already handled", switch_lid, port, via);
        return;
    }
    if (m->num_hot == DT_HOT_MAX) {
        dt_log(m, "onset at switch LID %u port %u (%s): %d hot-spots already: ignored", switch_lid,
               port, via, DT_HOT_MAX);
        return;
    }
    m->onsets++;
    dt_log(m, "onset at switch LID %u (%s) port %u (%s)", switch_lid, dt_name(m, switch_lid), port,
           via);
    lid = dt_hot_lid(m, switch_lid, port);
    if (!lid)
        return;
    dt_log(m, "hot-spot: LID %u (%s)", lid, dt_name(m, lid));
    dt_switch_rule(m, switch_lid, port, &r);
    contrib = calloc(DT_CONTRIB_MAX, sizeof(*contrib));
    if (!contrib) {
        dt_log(m, "out of memory");
        return;
    }
    h = &m->hot[m->num_hot++];
    *h = (struct dt_hot){switch_lid, (uint8_t)port, lid, r, contrib, 0, dt_now()};
    h->num_contrib = dt_contributors(m, &(struct dt_search){&h->rule, lid, NULL, 0, false}, contrib,
                                     DT_CONTRIB_MAX);
    dt_log(m, "hot-spot LID %u: %u contributor(s): sending repath notices", lid, h->num_contrib);
    for (unsigned i = 0; i < h->num_contrib; i++)
        if (dt_notify(m, contrib[i], DFTREE_TRAP_REPATH, lid, switch_lid, port) >= 0)
            m->repaths++;
    dt_log(m, "hot-spot LID %u handled in %.1f ms", lid, (double)(dt_now() - h->onset_ns) / 1e6);
}

/* A hot-spot clear at (switch_lid, port): the fast-lane notices. */
static void dt_clear(struct dt_mgr *m, uint16_t switch_lid, unsigned port, const char *via)
{
    struct dt_hot *h = dt_find_hot(m, switch_lid, port);

    if (!h) {
        dt_log(m, "clear at switch LID %u port %u (%s): no hot-spot of ours there: nothing to do",
               switch_lid, port, via);
        return;
    }
    m->clears++;
    dt_log(m,
           "clear at switch LID %u port %u (%s): hot-spot LID %u (%s) over after %.3f s: "
           "fast-lane notices to %u contributor(s)",
           switch_lid, port, via, h->hot_lid, dt_name(m, h->hot_lid),
           (double)(dt_now() - h->onset_ns) / 1e9, h->num_contrib);
    for (unsigned i = 0; i < h->num_contrib; i++)
        if (dt_notify(m, h->contrib[i], DFTREE_TRAP_FAST_LANE, h->hot_lid, switch_lid, port) >= 0)
            m->fast_lanes++;
    free(h->contrib);
    *h = m->hot[--m->num_hot];
}

/*
 * While hot-spots are on: end ports that became contributors since (a
 * host not told yet started sending to the hot-spot) get their repath
 * notice too.  Returns nothing; new contributors are logged.
 */
static void dt_recheck(struct dt_mgr *m)
{
    for (unsigned i = 0; i < m->num_hot && !dt_stop; i++) {
        struct dt_hot *h = &m->hot[i];
        struct dt_search s = {&h->rule, h->hot_lid, h->contrib, h->num_contrib, true};
        uint16_t *fresh = h->contrib + h->num_contrib;
        unsigned n = dt_contributors(m, &s, fresh, DT_CONTRIB_MAX - h->num_contrib);

        if (!n)
            continue;
        dt_log(m, "recheck of hot-spot LID %u (%s): %u new contributor(s): sending repath notices",
               h->hot_lid, dt_name(m, h->hot_lid), n);
        h->num_contrib += n;
        for (unsigned k = 0; k < n; k++)
            if (dt_notify(m, fresh[k], DFTREE_TRAP_REPATH, h->hot_lid, h->switch_lid, h->port) >= 0)
                m->repaths++;
    }
}

/* ---- notices from the switches (SA Reports) ---- */

/* n big-endian bytes at p. */
static uint64_t dt_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Take one forwarded Notice: an onset or clear from a portzero switch, else logged and ignored. */
static void dt_take_report(struct dt_mgr *m, const struct dt_report *r)
{
    const uint8_t *n = r->notice;
    bool generic = n[0] & 0x80;
    uint32_t vendor = (uint32_t)dt_be(n + 1, 3);
    uint16_t device = (uint16_t)dt_be(n + 4, 2);
    uint16_t issuer = (uint16_t)dt_be(n + 6, 2);
    uint16_t trap = (uint16_t)dt_be(n + 10, 2);
    const uint8_t *rec = n + 14; /* the monitor's port record (pma/README.md) */

    if (generic || vendor != m->o.vendor_id || device != m->o.device_id) {
        dt_log(m,
               "Report from LID %u: not a portzero notice (generic %d vendor 0x%06x device "
               "0x%04x): ignored",
               r->from_lid, generic, vendor, device);
        return;
    }
    if (trap != PZ_TRAP_ONSET && trap != PZ_TRAP_CLEAR) {
        /* portzerod's others (0x0003, reachability lost) share vendor and device */
        dt_log(m, "notice 0x%04x from LID %u: not a hot-spot onset or clear: ignored", trap,
               issuer);
        return;
    }
    dt_log(m,
           "notice 0x%04x from switch LID %u port %u: class %u -> %u, congestion %" PRIu64
           " ticks/s, utilisation %u.%u%%",
           trap, issuer, rec[PZ_CMN_PORT], rec[PZ_CMN_PREV_CLASS], rec[PZ_CMN_CLASS],
           dt_be(rec + PZ_CMN_CONGESTION, 8), (unsigned)dt_be(rec + PZ_CMN_UTIL, 2) / 10,
           (unsigned)dt_be(rec + PZ_CMN_UTIL, 2) % 10);
    if (trap == PZ_TRAP_ONSET)
        dt_onset(m, issuer, rec[PZ_CMN_PORT], "notice");
    else
        dt_clear(m, issuer, rec[PZ_CMN_PORT], "notice");
}

/* ---- polling: the switches' monitor summaries ---- */

/*
 * One poll round: every switch's hot-spot mask; new hot-spot ports are
 * onsets, handled ports no longer hot are clears.  Returns 0, or -1 when
 * the fabric could not be read.
 */
static int dt_poll_round(struct dt_mgr *m, const char *via)
{
    const char *why = "";

    if (dt_sa_read_fabric(&m->p, &m->fab, &why)) {
        dt_log(m, "%s: cannot read the fabric from the SA: %s", via, why);
        return -1;
    }
    for (size_t i = 0; i < m->fab.count && !dt_stop; i++) {
        const struct dt_node *sw = &m->fab.nodes[i];
        uint16_t lid = sw->lid;
        struct dt_monitor mon;

        if (!sw->is_switch || dt_pma_monitor(&m->p, lid, &mon))
            continue; /* not a switch, or no portzero monitor */
        for (unsigned p = 1; p <= mon.num_ports && p < 256; p++)
            if (pz_mask_test(mon.hot_mask, p) && !dt_find_hot(m, lid, p))
                dt_onset(m, lid, p, via);
        for (unsigned h = 0; h < m->num_hot; h++)
            if (m->hot[h].switch_lid == lid && !pz_mask_test(mon.hot_mask, m->hot[h].port)) {
                dt_clear(m, lid, m->hot[h].port, via);
                h--; /* the last entry moved here */
            }
    }
    return 0;
}

/* ---- the subscription ---- */

/* Subscribe at the SA; returns 0, or the refusal's status / -1 (logged). */
static int dt_subscribe(struct dt_mgr *m)
{
    struct dt_subscription s = {m->o.vendor_id, m->o.device_id, m->o.lid_begin, m->o.lid_end, true};
    int rc = dt_sa_inform(&m->p, &s);

    if (rc == 0) {
        m->subscribed = true;
        dt_log(m,
               "subscribed at the SA (LID %u): InformInfo IsGeneric 0, VendorID 0x%06x, "
               "DeviceID 0x%04x, issuers %s%u-%u",
               m->p.sm_lid, s.vendor_id, s.device_id, s.lid_begin == 0xFFFF ? "all " : "",
               s.lid_begin, s.lid_end);
    } else if (rc > 0) {
        dt_log(m, "the SA refused the subscription: status 0x%04x%s", rc,
               m->o.poll_ms ? "; going on with --poll" : "");
    } else {
        dt_log(m, "no answer from the SA (LID %u) to the subscription", m->p.sm_lid);
    }
    return rc;
}

/*
 * The periodic check: the SM may have moved or restarted (its InformInfo
 * table is then empty): subscribe again and reconcile with a poll round.
 */
static void dt_check(struct dt_mgr *m)
{
    uint16_t old_sm = m->p.sm_lid;
    int held;

    if (dt_port_refresh(&m->p, m->o.ca, m->o.port) == 0 && m->p.sm_lid != old_sm)
        dt_log(m, "the SM moved: LID %u -> %u", old_sm, m->p.sm_lid);
    held = dt_sa_subscribed(&m->p);
    if (held == 1)
        return;
    if (held < 0) {
        if (m->subscribed)
            dt_log(m, "the SA (LID %u) does not answer: trying again", m->p.sm_lid);
        m->subscribed = false;
        return;
    }
    dt_log(m, "the SA (LID %u) holds no subscription of ours (an SM restart?): subscribing again",
           m->p.sm_lid);
    m->subscribed = false;
    if (dt_subscribe(m) == 0)
        dt_poll_round(m, "reconcile");
}

/* ---- the daemon ---- */

/* Signal handler: remember the signal; the loop notices it within a second. */
static void dt_on_signal(int sig)
{
    dt_stop = sig;
}

/* Run until a signal; returns the exit status. */
static int dt_run(struct dt_mgr *m)
{
    bool notices = !m->o.no_notices;
    uint64_t next_check =
        notices && m->o.check_ms ? dt_now() + (uint64_t)m->o.check_ms * 1000000u : UINT64_MAX;
    uint64_t next_poll = UINT64_MAX, next_recheck = UINT64_MAX;
    int rc = notices ? dt_subscribe(m) : 0;

    if (rc != 0 && !m->o.poll_ms)
        return DT_EXIT_ERROR; /* refused or unanswered, and nothing else to go on */
    if (!notices)
        dt_log(m, "no subscription (--no-notices): polling every %u ms", m->o.poll_ms);
    if (rc == 0 || m->o.poll_ms)
        dt_poll_round(m, "start");
    if (m->o.poll_ms)
        next_poll = dt_now() + (uint64_t)m->o.poll_ms * 1000000u;
    printf("ready\n");
    fflush(stdout);
    while (!dt_stop) {
        uint64_t now = dt_now(), wake = next_check < next_poll ? next_check : next_poll;

        if (m->num_hot && m->o.recheck_ms && next_recheck == UINT64_MAX)
            next_recheck = now + (uint64_t)m->o.recheck_ms * 1000000u;
        if (!m->num_hot)
            next_recheck = UINT64_MAX;
        wake = next_recheck < wake ? next_recheck : wake;
        uint64_t wait_ms = now >= wake ? 0 : (wake - now) / 1000000u + 1;
        struct dt_report r;
        /* at most a second: a signal is noticed within it */
        int got = dt_next_report(&m->p, wait_ms > 1000 ? 1000 : (int)wait_ms, &r);

        if (got < 0 && !dt_stop) {
            dt_log(m, "receive error: stopping");
            return DT_EXIT_ERROR;
        }
        if (got > 0)
            dt_take_report(m, &r);
        now = dt_now();
        if (now >= next_poll) {
            dt_poll_round(m, "poll");
            next_poll = dt_now() + (uint64_t)m->o.poll_ms * 1000000u;
        }
        if (now >= next_recheck) {
            dt_recheck(m);
            next_recheck = dt_now() + (uint64_t)m->o.recheck_ms * 1000000u;
        }
        if (now >= next_check) {
            dt_check(m);
            next_check = dt_now() + (uint64_t)m->o.check_ms * 1000000u;
        }
    }
    dt_log(m,
           "stopping on signal %d: %" PRIu64 " onsets, %" PRIu64 " clears, %" PRIu64
           " repath and %" PRIu64 " fast-lane notices answered, %" PRIu64 " unanswered; %" PRIu64
           " MADs sent, %" PRIu64 " received; %u hot-spot(s) still "
           "on: their flows stay on the slow lane",
           (int)dt_stop, m->onsets, m->clears, m->repaths, m->fast_lanes, m->no_answer, m->p.sent,
           m->p.received, m->num_hot);
    return 0;
}

/* --send: one notice, its answer on stdout; returns the exit status. */
static int dt_send_one(struct dt_mgr *m)
{
    uint16_t trap = strcmp(m->o.send, "repath") == 0 ? DFTREE_TRAP_REPATH : DFTREE_TRAP_FAST_LANE;
    int st = dt_notify(m, m->o.send_to, trap, m->o.send_hot, 0, 0);

    if (st < 0) {
        printf("no answer\n");
        return DT_EXIT_ERROR;
    }
    printf("status=0x%04x\n", st);
    return st ? DT_EXIT_ERROR : 0;
}

/* ---- options ---- */

/* Print the usage text on out. */
static void dt_usage(FILE *out)
{
    fputs("usage: pz-dftree [-C ca] [-P port] [-t ms] [--poll MS [--no-notices]] [--sample MS]\n"
          "                 [--check MS] [--recheck MS] [--issuers LID[-LID]] [--vendor-id ID]\n"
          "                 [--device-id ID] [-v]\n"
          "       pz-dftree [-C ca] [-P port] [-t ms] --send repath|fast-lane --hot LID --to LID\n"
          "  -C, --Ca CA        the umad device (default: the first)\n"
          "  -P, --Port PORT    its port (default: the first active)\n"
          "  -t, --timeout MS   per MAD (default 200, 3 retries)\n"
          "  --poll MS          also read every switch's monitor every MS ms (0: notices only)\n"
          "  --no-notices       no subscription: --poll alone (the PM-sweep baseline)\n"
          "  --sample MS        the contributor rule's measurement (default 50)\n"
          "  --check MS         check the subscription every MS ms (default 2000; 0: never)\n"
          "  --recheck MS       look for new contributors of hot-spots still on every MS ms\n"
          "                     (default 2000; 0: never)\n"
          "  --issuers LID[-LID] subscribe to notices of these LIDs only (default: all)\n"
          "  --vendor-id ID, --device-id ID  the switches' (default 0x0002C9, 0x7A70)\n"
          "  --send repath|fast-lane --hot LID --to LID  send one notice, print its answer\n"
          "  -v, --verbose      log every end port's figures\n"
          "exit status: 0 stopped by a signal (or --send answered 0), 1 error, 2 bad usage\n",
          out);
}

/* Parse a number min..max (decimal or 0x) into *v; 0 or -1. */
static int dt_number(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
    char *end;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *v = strtoul(s, &end, 0);
    return errno || *end || *v < min || *v > max ? -1 : 0;
}

/* Parse LID or LID-LID into the issuer range; 0 or -1. */
static int dt_range(const char *s, struct dt_opts *o)
{
    char first[16];
    const char *dash = strchr(s, '-');
    unsigned long a, b;

    if (!dash)
        dash = s + strlen(s);
    if ((size_t)(dash - s) >= sizeof(first))
        return -1;
    memcpy(first, s, (size_t)(dash - s));
    first[dash - s] = '\0';
    if (dt_number(first, 1, 0xFFFF, &a))
        return -1;
    b = a;
    if (*dash && dt_number(dash + 1, a, 0xFFFF, &b))
        return -1;
    o->lid_begin = (uint16_t)a;
    o->lid_end = (uint16_t)b;
    return 0;
}

/* Parse the command line into *o; 0, or the exit status (100: help printed). */
static int dt_parse(int argc, char **argv, struct dt_opts *o)
{
    static const struct option longs[] = {
        {"Ca", required_argument, NULL, 'C'},
        {"Port", required_argument, NULL, 'P'},
        {"timeout", required_argument, NULL, 't'},
        {"poll", required_argument, NULL, 'p'},
        {"sample", required_argument, NULL, 's'},
        {"check", required_argument, NULL, 'c'},
        {"issuers", required_argument, NULL, 'i'},
        {"vendor-id", required_argument, NULL, 'V'},
        {"device-id", required_argument, NULL, 'D'},
        {"send", required_argument, NULL, 'S'},
        {"hot", required_argument, NULL, 'H'},
        {"to", required_argument, NULL, 'T'},
        {"no-notices", no_argument, NULL, 'N'},
        {"recheck", required_argument, NULL, 'R'},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    unsigned long v;
    int opt;

    while ((opt = getopt_long(argc, argv, "C:P:t:vh", longs, NULL)) != -1) {
        int bad = 0;

        switch (opt) {
        case 'C':
            o->ca = optarg;
            break;
        case 'P':
            bad = dt_number(optarg, 0, 255, &v);
            o->port = (int)v;
            break;
        case 't':
            bad = dt_number(optarg, 1, 60000, &v);
            o->timeout_ms = (int)v;
            break;
        case 'p':
            bad = dt_number(optarg, 0, 3600000, &v) || (v && v < 10);
            o->poll_ms = (unsigned)v;
            break;
        case 's':
            bad = dt_number(optarg, 1, 60000, &v);
            o->sample_ms = (unsigned)v;
            break;
        case 'c':
            bad = dt_number(optarg, 0, 3600000, &v) || (v && v < 100);
            o->check_ms = (unsigned)v;
            break;
        case 'R':
            bad = dt_number(optarg, 0, 3600000, &v) || (v && v < 100);
            o->recheck_ms = (unsigned)v;
            break;
        case 'i':
            bad = dt_range(optarg, o);
            break;
        case 'V':
            bad = dt_number(optarg, 0, 0xFFFFFF, &v);
            o->vendor_id = (uint32_t)v;
            break;
        case 'D':
            bad = dt_number(optarg, 0, 0xFFFF, &v);
            o->device_id = (uint16_t)v;
            break;
        case 'S':
            bad = strcmp(optarg, "repath") && strcmp(optarg, "fast-lane");
            o->send = optarg;
            break;
        case 'H':
        case 'T':
            bad = dt_number(optarg, 0, 0xFFFF, &v);
            *(opt == 'H' ? &o->send_hot : &o->send_to) = (uint16_t)v;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'N':
            o->no_notices = true;
            break;
        case 'h':
            dt_usage(stdout);
            return 100;
        default:
            dt_usage(stderr);
            return DT_EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "pz-dftree: bad value \"%s\" for -%c\n", optarg, opt);
            return DT_EXIT_USAGE;
        }
    }
    if (optind != argc || (o->send && !o->send_to) || (o->no_notices && !o->poll_ms)) {
        dt_usage(stderr);
        return DT_EXIT_USAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static struct dt_mgr m; /* large (its hot-spot table): not on the stack */
    struct sigaction sa;
    char err[256];
    int rc;

    m.o = (struct dt_opts){.timeout_ms = 200,
                           .sample_ms = 50,
                           .check_ms = 2000,
                           .recheck_ms = 2000,
                           .lid_begin = 0xFFFF,
                           .lid_end = 0xFFFF,
                           .vendor_id = DFTREE_VENDOR_ID,
                           .device_id = DFTREE_DEVICE_ID};
    rc = dt_parse(argc, argv, &m.o);
    if (rc)
        return rc == 100 ? 0 : rc;
    m.start_ns = dt_now();
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = dt_on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    if (dt_port_open(&m.p, m.o.ca, m.o.port, m.o.timeout_ms, 3, err, sizeof(err))) {
        fprintf(stderr, "pz-dftree: %s\n", err);
        dt_port_close(&m.p);
        return DT_EXIT_ERROR;
    }
    dt_log(&m, "port LID %u, SM LID %u%s", m.p.lid, m.p.sm_lid,
           m.o.poll_ms ? "" : "; notices only (no --poll)");
    rc = m.o.send ? dt_send_one(&m) : dt_run(&m);
    for (unsigned i = 0; i < m.num_hot; i++)
        free(m.hot[i].contrib);
    dt_fabric_free(&m.fab);
    dt_port_close(&m.p);
    return rc;
}

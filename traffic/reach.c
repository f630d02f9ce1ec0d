/*
 * reach.c - switch-to-switch reachability table (see reach.h).
 */
#include "reach.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct reach {
    struct reach_config cfg;
    reach_change_fn fn;
    void *arg;
    struct reach_peer *peers;
    size_t n;
    size_t n_listed; /* peers[0..n_listed) are discovery's; the rest are kept as lost */
    uint16_t gen;    /* high half of the next probe's sequence number */
};

/* Name of a status. */
const char *reach_status_name(enum reach_status s)
{
    static const char *const names[] = {
        [REACH_UNKNOWN] = "unknown",
        [REACH_REACHABLE] = "reachable",
        [REACH_UNREACHABLE] = "unreachable",
        [REACH_NO_AGENT] = "no-agent",
        [REACH_LOST] = "lost",
    };

    if ((unsigned)s >= sizeof(names) / sizeof(names[0]) || !names[s])
        return "unknown";
    return names[s];
}

/* A table with no peers; NULL on OOM or a bad configuration. */
struct reach *reach_create(const struct reach_config *cfg, reach_change_fn fn, void *arg)
{
    struct reach *r;

    if (!cfg || !cfg->interval_ns || !cfg->timeout_ns || cfg->timeout_ns >= cfg->interval_ns ||
        !cfg->lost_after)
        return NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->cfg = *cfg;
    r->fn = fn;
    r->arg = arg;
    return r;
}

/* Free the table. */
void reach_destroy(struct reach *r)
{
    if (!r)
        return;
    free(r->peers);
    free(r);
}

/* Whether the SM must hear of a change from old to s: a loss, or the end of one. */
static bool reach_notifiable(enum reach_status old, enum reach_status s)
{
    return s == REACH_UNREACHABLE || s == REACH_LOST ||
           (s == REACH_REACHABLE && (old == REACH_UNREACHABLE || old == REACH_LOST));
}

/* Move peer p to status s at now and report the change (no-op if unchanged). */
static void reach_change(struct reach *r, struct reach_peer *p, enum reach_status s, uint64_t now)
{
    enum reach_status old = p->status;

    if (old == s)
        return;
    p->status = s;
    p->since_ns = now;
    if (reach_notifiable(old, s) && p->notice_changes < UINT8_MAX)
        p->notice_changes++;
    if (r->fn)
        r->fn(r->arg, p, old);
}

/* The known peer with node GUID guid in the current table, or NULL. */
static struct reach_peer *reach_find_guid(struct reach *r, uint64_t guid)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->peers[i].guid == guid)
            return &r->peers[i];
    return NULL;
}

/* Copy the identity fields of id into p. */
static void reach_copy_identity(struct reach_peer *p, const struct reach_peer *id)
{
    p->guid = id->guid;
    p->lid = id->lid;
    memcpy(p->name, id->name, sizeof(p->name));
    p->name[REACH_NAME_LEN] = '\0';
    p->has_service = id->has_service;
    p->qpn = id->qpn;
    p->qkey = id->qkey;
    p->hops = id->hops;
}

/* Peer i of n's new entry built from id and the old state (if any); returns it. */
static struct reach_peer reach_merge_one(const struct reach *r, const struct reach_peer *old,
                                         const struct reach_peer *id, size_t i, size_t n,
                                         uint64_t now)
{
    struct reach_peer p;

    if (old) {
        p = *old;
        if (old->lid != id->lid || old->qpn != id->qpn || old->qkey != id->qkey)
            p.outstanding = false;
    } else {
        memset(&p, 0, sizeof(p));
        p.since_ns = now;
        /* Spread the first probes over one interval. */
        p.next_ns = now + (n ? r->cfg.interval_ns / n * i : 0);
    }
    reach_copy_identity(&p, id);
    if (!id->hops && old)
        p.hops = old->hops; /* keep what the last route check found */
    if (!p.has_service)
        p.outstanding = false;
    return p;
}

/* Whether ids[0..n) lists the node GUID guid. */
static bool reach_listed(const struct reach_peer *ids, size_t n, uint64_t guid)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i].guid == guid)
            return true;
    return false;
}

/* Whether old peer p, not listed any more, is kept as lost: it answered once and is not past its
 * keeping time. */
static bool reach_keep_lost(const struct reach *r, const struct reach_peer *p, uint64_t now)
{
    if (!r->cfg.lost_keep_ns || !p->replies)
        return false;
    return p->status != REACH_LOST || now - p->since_ns < r->cfg.lost_keep_ns;
}

/* Count the old peers that set_peers keeps as lost beside ids[0..n); returns it. */
static size_t reach_count_kept(const struct reach *r, const struct reach_peer *ids, size_t n,
                               uint64_t now)
{
    size_t k = 0;

    for (size_t i = 0; i < r->n; i++)
        k += !reach_listed(ids, n, r->peers[i].guid) && reach_keep_lost(r, &r->peers[i], now);
    return k;
}

/* After a swap: the status changes of the listed peers' identity (service gone or come). */
static void reach_listed_changes(struct reach *r, uint64_t now)
{
    for (size_t i = 0; i < r->n_listed; i++) {
        struct reach_peer *p = &r->peers[i];

        if (!p->has_service)
            reach_change(r, p, REACH_NO_AGENT, now);
        else if (p->status == REACH_NO_AGENT) {
            p->status = REACH_UNKNOWN;
            p->misses = 0;
            p->next_ns = now;
        }
    }
}

/* After a swap: the kept peers that were not lost yet become lost. */
static void reach_kept_changes(struct reach *r, uint64_t now)
{
    for (size_t i = r->n_listed; i < r->n; i++) {
        struct reach_peer *p = &r->peers[i];

        p->has_service = false;
        p->outstanding = false;
        p->misses = 0;
        reach_change(r, p, REACH_LOST, now);
    }
}

/* Replace the peer list (see reach.h). */
int reach_set_peers(struct reach *r, const struct reach_peer *ids, size_t n, uint64_t now)
{
    size_t kept = reach_count_kept(r, ids, n, now), i, k = n;
    struct reach_peer *np = NULL;

    if (n + kept > REACH_MAX_PEERS)
        return -EINVAL;
    if (n + kept) {
        np = calloc(n + kept, sizeof(*np));
        if (!np)
            return -ENOMEM;
    }
    for (i = 0; i < n; i++) {
        const struct reach_peer *old = reach_find_guid(r, ids[i].guid);

        np[i] = reach_merge_one(r, old, &ids[i], i, n, now);
        if (old && (size_t)(old - r->peers) >= r->n_listed) {
            np[i].misses = 0; /* back in the subnet: probe it now, lost until it answers */
            np[i].next_ns = now;
        }
    }
    for (i = 0; i < r->n; i++)
        if (!reach_listed(ids, n, r->peers[i].guid) && reach_keep_lost(r, &r->peers[i], now))
            np[k++] = r->peers[i];
    free(r->peers);
    r->peers = np;
    r->n = n + kept;
    r->n_listed = n;
    reach_listed_changes(r, now);
    reach_kept_changes(r, now);
    return 0;
}

/* Fill up to max probes due at now (see reach.h). */
size_t reach_due(struct reach *r, uint64_t now, struct reach_probe *out, size_t max)
{
    size_t i, k = 0;

    for (i = 0; i < r->n && k < max; i++) {
        struct reach_peer *p = &r->peers[i];

        if (!p->has_service || p->outstanding || p->next_ns > now)
            continue;
        p->seq = (uint32_t)r->gen++ << 16 | (uint32_t)i;
        p->outstanding = true;
        p->sent_ns = now;
        p->next_ns = now + r->cfg.interval_ns;
        p->probes++;
        out[k++] = (struct reach_probe){
            .index = i, .dlid = p->lid, .qpn = p->qpn, .qkey = p->qkey, .seq = p->seq};
    }
    return k;
}

/* A reply to probe seq (see reach.h). */
bool reach_reply(struct reach *r, uint32_t seq, uint16_t slid, uint64_t rtt_ns, uint64_t now)
{
    size_t i = seq & 0xFFFFu;
    struct reach_peer *p;

    if (i >= r->n)
        return false;
    p = &r->peers[i];
    if (!p->outstanding || p->seq != seq || p->lid != slid)
        return false;
    p->outstanding = false;
    p->replies++;
    p->rtt_ns = rtt_ns;
    p->misses = 0;
    reach_change(r, p, REACH_REACHABLE, now);
    return true;
}

/* Drop the lost peers kept past cfg.lost_keep_ns (they sit behind the listed ones, unprobed). */
static void reach_forget_lost(struct reach *r, uint64_t now)
{
    size_t i, k = r->n_listed;

    for (i = r->n_listed; i < r->n; i++)
        if (now - r->peers[i].since_ns < r->cfg.lost_keep_ns)
            r->peers[k++] = r->peers[i];
    r->n = k;
}

/* Count timed-out probes as misses (see reach.h). */
void reach_expire(struct reach *r, uint64_t now)
{
    size_t i;

    reach_forget_lost(r, now);
    for (i = 0; i < r->n; i++) {
        struct reach_peer *p = &r->peers[i];

        if (!p->outstanding || now - p->sent_ns < r->cfg.timeout_ns)
            continue;
        p->outstanding = false;
        if (p->misses < r->cfg.lost_after)
            p->misses++;
        if (p->misses >= r->cfg.lost_after)
            reach_change(r, p, REACH_UNREACHABLE, now);
    }
}

/* The earliest deadline of a probe to send or to expire. */
uint64_t reach_next_deadline(const struct reach *r)
{
    uint64_t best = UINT64_MAX;
    size_t i;

    for (i = r->n_listed; i < r->n; i++)
        if (r->peers[i].since_ns + r->cfg.lost_keep_ns < best)
            best = r->peers[i].since_ns + r->cfg.lost_keep_ns;
    for (i = 0; i < r->n; i++) {
        const struct reach_peer *p = &r->peers[i];
        uint64_t t;

        if (!p->has_service)
            continue;
        t = p->outstanding ? p->sent_ns + r->cfg.timeout_ns : p->next_ns;
        if (t < best)
            best = t;
    }
    return best;
}

/* Make every probed peer due now. */
void reach_probe_all_now(struct reach *r, uint64_t now)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (!r->peers[i].outstanding)
            r->peers[i].next_ns = now;
}

/* The peers and their number. */
const struct reach_peer *reach_peers(const struct reach *r, size_t *n)
{
    *n = r->n;
    return r->peers;
}

/* Set the hop count of the peer with this LID. */
bool reach_set_hops(struct reach *r, uint16_t lid, uint8_t hops)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->peers[i].lid == lid) {
            r->peers[i].hops = hops;
            return true;
        }
    return false;
}

/* A peer whose notice is due (see reach.h). */
bool reach_notice_due(const struct reach *r, size_t *index)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->peers[i].notice_changes) {
            *index = i;
            return true;
        }
    return false;
}

/* Peer index's notice was taken. */
void reach_notice_told(struct reach *r, size_t index)
{
    if (index < r->n)
        r->peers[index].notice_changes = 0;
}

/* A new master SM: the unreachable peers are due again. */
void reach_notice_new_sm(struct reach *r)
{
    size_t i;

    for (i = 0; i < r->n; i++)
        if (r->peers[i].status == REACH_UNREACHABLE && !r->peers[i].notice_changes)
            r->peers[i].notice_changes = 1;
}

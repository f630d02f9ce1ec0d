/*
 * route_check.c - the route check (route_check.h says what it finds).
 *
 * rc_check() builds per switch a dense LFT (LIDs up to the highest one a
 * node owns) and a port -> neighbour table, then walks the routes one
 * destination LID at a time (every LID of a port's LMC range): each switch's outcome for that LID
 * (hops, or why it fails) is kept, so a walk stops at the first switch already known.  The channel
 * dependencies of a destination are the pairs (s -> x, x -> y) of consecutive channels on the
 * routes to it; they are collected, sorted, made unique and searched for a cycle.
 */
#include "route_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RC_LIDS 65536
#define RC_PORTS 256
#define RC_UNICAST_MAX 0xbfff /* LIDs above are multicast (and 0xffff permissive) */
#define RC_NONE (-1)
#define RC_PENDING (-100) /* on the path being walked */
#define RC_STEP_NEXT 0x7fffffff
#define RC_DEFAULT_MAX_LOOPS 64

struct rc_link_rec {
    uint16_t from_lid, to_lid;
    uint8_t from_port, to_port;
};

struct rc_block {
    uint16_t lid, block;
    uint8_t port[64];
};

struct rc_fabric {
    struct rc_switch *sw;
    size_t nsw, capsw;
    struct rc_endpoint *ep;
    size_t nep, capep;
    struct rc_link_rec *links;
    size_t nlinks, caplinks;
    struct rc_block *blocks;
    size_t nblocks, capblocks;
    int32_t *owner; /* LID -> switch index (>= 0), endpoint -(i + 2), RC_NONE (all LMC LIDs) */
    uint16_t max_lid;
    bool lmc_known;
    char lmc_why[64];
};

/* Scratch of one check. */
struct rc_work {
    struct rc_fabric *f;
    const struct rc_options *o;
    struct rc_result *r;
    size_t lids;   /* max_lid + 1: the dense LFT's width */
    uint8_t *lft;  /* nsw x lids */
    int32_t *peer; /* nsw x RC_PORTS: neighbour (owner code) */
    int32_t *chan; /* nsw x RC_PORTS: channel index or RC_NONE */
    uint32_t *chan_from;
    uint8_t *chan_port;
    size_t nchan;
    /* per destination */
    int32_t downer; /* the destination LID's owner code */
    uint32_t cur, *stamp;
    int32_t *res; /* hops (>= 0) or -reason */
    uint32_t *fail_at;
    uint8_t *port, *fail_port;
    uint32_t *path;
    /* dependencies */
    uint64_t *deps;
    size_t ndeps, capdeps;
    int failed; /* out of memory */
};

/* Make room for one more element in *arr (capacity *cap, n used); 0 or -1. */
static int rc_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    size_t ncap;
    void *p;

    if (n < *cap)
        return 0;
    ncap = *cap ? *cap * 2 : 64;
    p = realloc(*arr, ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

/* Copy a description, NUL-terminated and cut to RC_DESC_LEN. */
static void rc_copy_desc(char *dst, const char *src)
{
    size_t n = src ? strnlen(src, RC_DESC_LEN) : 0;

    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Whether lid is a unicast LID a node can own. */
static bool rc_unicast(uint16_t lid)
{
    return lid != 0 && lid <= RC_UNICAST_MAX;
}

struct rc_fabric *rc_fabric_new(void)
{
    struct rc_fabric *f = calloc(1, sizeof(*f));

    if (!f)
        return NULL;
    f->owner = malloc(RC_LIDS * sizeof(*f->owner));
    if (!f->owner) {
        free(f);
        return NULL;
    }
    for (size_t i = 0; i < RC_LIDS; i++)
        f->owner[i] = RC_NONE;
    snprintf(f->lmc_why, sizeof(f->lmc_why), "not asked");
    return f;
}

void rc_fabric_free(struct rc_fabric *f)
{
    if (!f)
        return;
    free(f->sw);
    free(f->ep);
    free(f->links);
    free(f->blocks);
    free(f->owner);
    free(f);
}

int rc_fabric_add_switch(struct rc_fabric *f, uint16_t lid, uint64_t guid, uint8_t nports,
                         const char *desc)
{
    struct rc_switch *s;

    if (!rc_unicast(lid))
        return -1;
    if (f->owner[lid] != RC_NONE)
        return 0; /* a LID is one node's: the first record wins */
    if (rc_grow((void **)&f->sw, &f->capsw, f->nsw, sizeof(*f->sw)))
        return -1;
    s = &f->sw[f->nsw];
    s->lid = lid;
    s->guid = guid;
    s->nports = nports;
    s->lmc = 0;
    rc_copy_desc(s->desc, desc);
    f->owner[lid] = (int32_t)f->nsw++;
    if (lid > f->max_lid)
        f->max_lid = lid;
    return 0;
}

int rc_fabric_add_endpoint(struct rc_fabric *f, uint16_t lid, uint64_t guid, uint8_t port,
                           const char *desc)
{
    struct rc_endpoint *e;

    if (!rc_unicast(lid))
        return -1;
    if (f->owner[lid] != RC_NONE)
        return 0;
    if (rc_grow((void **)&f->ep, &f->capep, f->nep, sizeof(*f->ep)))
        return -1;
    e = &f->ep[f->nep];
    e->lid = lid;
    e->guid = guid;
    e->port = port;
    e->lmc = 0;
    rc_copy_desc(e->desc, desc);
    f->owner[lid] = -(int32_t)f->nep - 2;
    f->nep++;
    if (lid > f->max_lid)
        f->max_lid = lid;
    return 0;
}

int rc_fabric_add_link(struct rc_fabric *f, uint16_t from_lid, uint8_t from_port, uint16_t to_lid,
                       uint8_t to_port)
{
    struct rc_link_rec *l;

    if (!rc_unicast(from_lid) || !rc_unicast(to_lid) || from_port == RC_NO_PORT ||
        to_port == RC_NO_PORT)
        return -1;
    if (rc_grow((void **)&f->links, &f->caplinks, f->nlinks, sizeof(*f->links)))
        return -1;
    l = &f->links[f->nlinks++];
    l->from_lid = from_lid;
    l->from_port = from_port;
    l->to_lid = to_lid;
    l->to_port = to_port;
    return 0;
}

int rc_fabric_add_lft_block(struct rc_fabric *f, uint16_t lid, uint16_t block,
                            const uint8_t port[64])
{
    struct rc_block *b;

    if (!rc_unicast(lid) || block > RC_UNICAST_MAX / 64)
        return -1;
    if (rc_grow((void **)&f->blocks, &f->capblocks, f->nblocks, sizeof(*f->blocks)))
        return -1;
    b = &f->blocks[f->nblocks++];
    b->lid = lid;
    b->block = block;
    memcpy(b->port, port, 64);
    return 0;
}

int rc_fabric_set_lmc(struct rc_fabric *f, uint16_t lid, uint8_t lmc)
{
    int32_t o = rc_unicast(lid) ? f->owner[lid] : RC_NONE;
    uint8_t *cur;
    uint32_t n, old;

    if (o == RC_NONE || lmc > RC_LMC_MAX)
        return -1;
    if (o >= 0 && f->sw[o].lid == lid)
        cur = &f->sw[o].lmc;
    else if (o <= -2 && f->ep[-o - 2].lid == lid)
        cur = &f->ep[-o - 2].lmc;
    else
        return -1; /* lid is not the node's base LID */
    n = 1u << lmc;
    old = 1u << *cur;
    for (uint32_t k = 1; k < n; k++)
        if (lid + k > RC_UNICAST_MAX || (f->owner[lid + k] != RC_NONE && f->owner[lid + k] != o))
            return -1;
    for (uint32_t k = n; k < old; k++)
        f->owner[lid + k] = RC_NONE; /* a smaller LMC than told before */
    for (uint32_t k = 1; k < n; k++)
        f->owner[lid + k] = o;
    *cur = lmc;
    if (lid + n - 1 > f->max_lid)
        f->max_lid = (uint16_t)(lid + n - 1);
    return 0;
}

void rc_fabric_set_lmc_known(struct rc_fabric *f, bool known, const char *why)
{
    f->lmc_known = known;
    snprintf(f->lmc_why, sizeof(f->lmc_why), "%s", known || !why ? "" : why);
}

bool rc_fabric_lmc_known(const struct rc_fabric *f, const char **why)
{
    if (why)
        *why = f->lmc_why;
    return f->lmc_known;
}

const struct rc_switch *rc_fabric_switches(const struct rc_fabric *f, size_t *n)
{
    *n = f->nsw;
    return f->sw;
}

const char *rc_fabric_lid_name(const struct rc_fabric *f, uint16_t lid, bool *is_switch)
{
    int32_t o = f->owner[lid];

    if (is_switch)
        *is_switch = o >= 0;
    if (o >= 0)
        return f->sw[o].desc;
    if (o <= -2)
        return f->ep[-o - 2].desc;
    return NULL;
}

size_t rc_fabric_links(const struct rc_fabric *f)
{
    return f->nlinks;
}

size_t rc_fabric_lft_blocks(const struct rc_fabric *f)
{
    return f->nblocks;
}

const char *rc_reason_name(enum rc_reason why)
{
    static const char *const names[] = {
        [RC_ROUTED] = "routed",
        [RC_NO_ENTRY] = "no LFT entry",
        [RC_PORT_ZERO] = "LFT port 0 at a transit switch",
        [RC_NO_LINK] = "LFT port not linked",
        [RC_WRONG_CA] = "delivered to another CA",
        [RC_LOOP] = "forwarding loop",
    };

    if ((unsigned)why >= sizeof(names) / sizeof(names[0]) || !names[why])
        return "unknown";
    return names[why];
}

/* --- tables ---------------------------------------------------------------- */

/* The dense LFTs: every entry RC_NO_PORT, then the blocks of known switches. */
static int rc_build_lfts(struct rc_work *w)
{
    struct rc_fabric *f = w->f;

    w->lids = (size_t)f->max_lid + 1;
    w->lft = malloc(f->nsw * w->lids);
    if (!w->lft)
        return -1;
    memset(w->lft, RC_NO_PORT, f->nsw * w->lids);
    for (size_t i = 0; i < f->nblocks; i++) {
        const struct rc_block *b = &f->blocks[i];
        int32_t s = f->owner[b->lid];
        size_t first = (size_t)b->block * 64;

        if (s < 0 || first >= w->lids)
            continue;
        for (size_t k = 0; k < 64 && first + k < w->lids; k++)
            w->lft[(size_t)s * w->lids + first + k] = b->port[k];
    }
    return 0;
}

/* Record that switch s's port leads to owner code q (ports beyond the switch's count ignored). */
static void rc_set_peer(struct rc_work *w, int32_t s, uint8_t port, int32_t q)
{
    const struct rc_switch *sw = &w->f->sw[s];

    if (port == 0 || (sw->nports && port > sw->nports))
        return;
    w->peer[(size_t)s * RC_PORTS + port] = q;
}

/* Neighbours from the links (both directions, whichever the SA listed), then channels. */
static int rc_build_peers(struct rc_work *w)
{
    struct rc_fabric *f = w->f;
    size_t n = f->nsw * RC_PORTS;

    w->peer = malloc(n * sizeof(*w->peer));
    w->chan = malloc(n * sizeof(*w->chan));
    if (!w->peer || !w->chan)
        return -1;
    for (size_t i = 0; i < n; i++)
        w->peer[i] = w->chan[i] = RC_NONE;
    for (size_t i = 0; i < f->nlinks; i++) {
        const struct rc_link_rec *l = &f->links[i];
        int32_t a = f->owner[l->from_lid], b = f->owner[l->to_lid];

        if (a == RC_NONE || b == RC_NONE)
            continue;
        if (a >= 0)
            rc_set_peer(w, a, l->from_port, b);
        if (b >= 0)
            rc_set_peer(w, b, l->to_port, a);
    }
    w->chan_from = malloc(n * sizeof(*w->chan_from));
    w->chan_port = malloc(n);
    if (!w->chan_from || !w->chan_port)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (w->peer[i] >= 0) {
            w->chan[i] = (int32_t)w->nchan;
            w->chan_from[w->nchan] = (uint32_t)(i / RC_PORTS);
            w->chan_port[w->nchan++] = (uint8_t)(i % RC_PORTS);
        }
    return 0;
}

/* Per-destination scratch. */
static int rc_alloc_walk(struct rc_work *w)
{
    size_t n = w->f->nsw;

    w->stamp = calloc(n, sizeof(*w->stamp));
    w->res = malloc(n * sizeof(*w->res));
    w->fail_at = malloc(n * sizeof(*w->fail_at));
    w->port = malloc(n);
    w->fail_port = malloc(n);
    w->path = malloc((n + 1) * sizeof(*w->path));
    return w->stamp && w->res && w->fail_at && w->port && w->fail_port && w->path ? 0 : -1;
}

static void rc_free_work(struct rc_work *w)
{
    free(w->lft);
    free(w->peer);
    free(w->chan);
    free(w->chan_from);
    free(w->chan_port);
    free(w->stamp);
    free(w->res);
    free(w->fail_at);
    free(w->port);
    free(w->fail_port);
    free(w->path);
    free(w->deps);
}

/* --- walking ----------------------------------------------------------------- */

/*
 * One hop at switch at towards dlid: returns RC_STEP_NEXT with *next, or
 * the hops from here when the packet leaves here (0: at is the
 * destination, 1: delivered to its CA), or -reason.  *port: the LFT port.
 */
static int32_t rc_step(const struct rc_work *w, uint32_t at, uint16_t dlid, uint32_t *next,
                       uint8_t *port)
{
    int32_t q;

    *port = 0;
    if ((int32_t)at == w->downer)
        return 0;
    *port = w->lft[(size_t)at * w->lids + dlid];
    if (*port == RC_NO_PORT)
        return -RC_NO_ENTRY;
    if (*port == 0)
        return -RC_PORT_ZERO;
    q = w->peer[(size_t)at * RC_PORTS + *port];
    if (q == RC_NONE)
        return -RC_NO_LINK;
    if (q >= 0) {
        *next = (uint32_t)q;
        return RC_STEP_NEXT;
    }
    return q == w->downer ? 1 : -RC_WRONG_CA;
}

/* Keep the loop path[from..n-1] of the route to dlid (up to the option's limit). */
static void rc_keep_loop(struct rc_work *w, size_t from, size_t n, uint16_t dlid)
{
    struct rc_result *r = w->r;
    size_t max = w->o->max_loops ? w->o->max_loops : RC_DEFAULT_MAX_LOOPS;
    struct rc_loop *l;

    if (r->nloops >= max)
        return;
    if (!r->loops) {
        r->loops = calloc(max, sizeof(*r->loops));
        if (!r->loops) {
            w->failed = 1;
            return;
        }
    }
    l = &r->loops[r->nloops];
    l->sw = malloc((n - from) * sizeof(*l->sw));
    if (!l->sw) {
        w->failed = 1;
        return;
    }
    memcpy(l->sw, w->path + from, (n - from) * sizeof(*l->sw));
    l->len = n - from;
    l->dlid = dlid;
    r->nloops++;
}

/* Walk from switch s towards dlid until a known switch or the end; record on the way back. */
static void rc_walk(struct rc_work *w, uint32_t s, uint16_t dlid)
{
    size_t n = 0;
    uint32_t at = s, next = 0, fat = s;
    int32_t res;
    uint8_t fport = 0;

    for (;;) {
        if (w->stamp[at] == w->cur) {
            if (w->res[at] == RC_PENDING) {
                size_t i = n;

                while (i > 0 && w->path[i - 1] != at)
                    i--;
                rc_keep_loop(w, i ? i - 1 : 0, n, dlid);
                res = -RC_LOOP;
                fat = at;
                fport = w->port[at];
            } else {
                res = w->res[at];
                fat = w->fail_at[at];
                fport = w->fail_port[at];
            }
            break;
        }
        w->stamp[at] = w->cur;
        w->res[at] = RC_PENDING;
        w->path[n++] = at;
        res = rc_step(w, at, dlid, &next, &w->port[at]);
        if (res != RC_STEP_NEXT) {
            n--;
            w->res[at] = res;
            w->fail_at[at] = fat = at;
            w->fail_port[at] = fport = w->port[at];
            break;
        }
        at = next;
    }
    while (n > 0) {
        uint32_t x = w->path[--n];

        if (res >= 0)
            res++;
        w->res[x] = res;
        w->fail_at[x] = fat;
        w->fail_port[x] = fport;
    }
}

/* Note the route from switch s (to this destination) in the result's counters and lists. */
static void rc_account(struct rc_work *w, uint32_t s, bool to_switch)
{
    struct rc_result *r = w->r;
    int32_t res = w->res[s];

    if (to_switch)
        r->pairs++;
    else
        r->ca_pairs++;
    if (res >= 0) {
        if (to_switch)
            r->routed++;
        else
            r->ca_routed++;
        if ((unsigned)res > r->max_hops)
            r->max_hops = (unsigned)res;
        return;
    }
    if (-res == RC_LOOP)
        r->loop_routes++;
    r->nunrouted++;
}

/* Append the unrouted route s -> dlid to the kept list. */
static void rc_keep_unrouted(struct rc_work *w, size_t *cap, uint32_t s, uint16_t dlid)
{
    struct rc_result *r = w->r;
    struct rc_unrouted *u;

    if (w->res[s] >= 0 || (w->o->max_unrouted && r->nunrouted_kept >= w->o->max_unrouted))
        return;
    if (rc_grow((void **)&r->unrouted, cap, r->nunrouted_kept, sizeof(*r->unrouted))) {
        w->failed = 1;
        return;
    }
    u = &r->unrouted[r->nunrouted_kept++];
    u->src = s;
    u->dlid = dlid;
    u->at = w->fail_at[s];
    u->port = w->fail_port[s];
    u->reason = (uint8_t)-w->res[s];
}

/* The channel dependencies of the routes to one destination. */
static void rc_collect_deps(struct rc_work *w)
{
    for (uint32_t s = 0; s < w->f->nsw; s++) {
        int32_t c1, c2, x;

        if (w->res[s] < 2)
            continue; /* fewer than two links: no dependency starts here */
        c1 = w->chan[(size_t)s * RC_PORTS + w->port[s]];
        x = w->peer[(size_t)s * RC_PORTS + w->port[s]];
        if (c1 < 0 || x < 0)
            continue;
        c2 = w->chan[(size_t)x * RC_PORTS + w->port[x]];
        if (c2 < 0)
            continue; /* x hands it to a CA */
        if (rc_grow((void **)&w->deps, &w->capdeps, w->ndeps, sizeof(*w->deps))) {
            w->failed = 1;
            return;
        }
        w->deps[w->ndeps++] = (uint64_t)c1 << 32 | (uint32_t)c2;
    }
}

/* Every route to dlid (owned by switch dsw, or by a CA when dsw < 0). */
static void rc_destination(struct rc_work *w, uint16_t dlid, int32_t dsw, size_t *ucap)
{
    w->cur++;
    w->downer = w->f->owner[dlid];
    for (uint32_t s = 0; s < w->f->nsw; s++)
        if (w->stamp[s] != w->cur)
            rc_walk(w, s, dlid);
    for (uint32_t s = 0; s < w->f->nsw; s++) {
        if ((int32_t)s == dsw)
            continue;
        rc_account(w, s, dsw >= 0);
        rc_keep_unrouted(w, ucap, s, dlid);
    }
    rc_collect_deps(w);
}

/* --- the cycle search ------------------------------------------------------------ */

static int rc_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* Sort and make the dependencies unique; their count goes to the result. */
static void rc_unique_deps(struct rc_work *w)
{
    size_t n = 0;

    if (w->ndeps > 1)
        qsort(w->deps, w->ndeps, sizeof(*w->deps), rc_cmp_u64);
    for (size_t i = 0; i < w->ndeps; i++)
        if (n == 0 || w->deps[i] != w->deps[n - 1])
            w->deps[n++] = w->deps[i];
    w->ndeps = n;
    w->r->dependencies = n;
}

/* Fill the result's cycle with the channels stack[from..n-1]. */
static int rc_keep_cycle(struct rc_work *w, const uint32_t *stack, size_t from, size_t n)
{
    struct rc_result *r = w->r;

    r->cycle = true;
    r->cycle_len = n - from;
    r->cycle_channels = malloc(r->cycle_len * sizeof(*r->cycle_channels));
    if (!r->cycle_channels)
        return -1;
    for (size_t i = from; i < n; i++) {
        uint32_t c = stack[i];
        struct rc_channel *ch = &r->cycle_channels[i - from];

        ch->from = w->chan_from[c];
        ch->port = w->chan_port[c];
        ch->to = (uint32_t)w->peer[(size_t)ch->from * RC_PORTS + ch->port];
    }
    return 0;
}

/*
 * Depth-first search over the dependency graph (adjacency: the sorted deps,
 * first[c] .. first[c + 1]) with an explicit stack; stops at the first back
 * edge and keeps that cycle.  Returns 0 or -1 without memory.
 */
static int rc_find_cycle(struct rc_work *w)
{
    size_t n = w->nchan, sp = 0;
    size_t *first = calloc(n + 1, sizeof(*first)), *next = malloc(n * sizeof(*next));
    uint8_t *color = calloc(n, 1); /* 0 new, 1 on the stack, 2 done */
    uint32_t *stack = malloc(n * sizeof(*stack));
    int rc = -1;

    if (!first || !next || !color || !stack)
        goto out;
    for (size_t i = 0; i < w->ndeps; i++)
        first[(w->deps[i] >> 32) + 1]++;
    for (size_t c = 0; c < n; c++)
        first[c + 1] += first[c];
    rc = 0;
    for (size_t root = 0; root < n && !w->r->cycle; root++) {
        if (color[root])
            continue;
        color[root] = 1;
        next[root] = first[root];
        stack[sp++] = (uint32_t)root;
        while (sp > 0 && !w->r->cycle) {
            uint32_t u = stack[sp - 1], v;

            if (next[u] == first[u + 1]) {
                color[u] = 2;
                sp--;
                continue;
            }
            v = (uint32_t)w->deps[next[u]++];
            if (color[v] == 0) {
                color[v] = 1;
                next[v] = first[v];
                stack[sp++] = v;
            } else if (color[v] == 1) {
                size_t i = sp;

                while (stack[i - 1] != v)
                    i--;
                rc = rc_keep_cycle(w, stack, i - 1, sp);
            }
        }
    }
out:
    free(first);
    free(next);
    free(color);
    free(stack);
    return rc;
}

/* --- the check --------------------------------------------------------------------- */

/* The LIDs the switches and CA ports own, and their LMCs, into the result. */
static void rc_count_lids(const struct rc_fabric *f, struct rc_result *r)
{
    r->lmc_known = f->lmc_known;
    for (size_t i = 0; i < f->nsw + f->nep; i++) {
        uint8_t lmc = i < f->nsw ? f->sw[i].lmc : f->ep[i - f->nsw].lmc;

        if (i < f->nsw)
            r->switch_lids += 1u << lmc;
        else
            r->ca_lids += 1u << lmc;
        if (lmc)
            r->lmc_ports++;
        if (lmc > r->max_lmc)
            r->max_lmc = lmc;
    }
}

int rc_check(struct rc_fabric *f, const struct rc_options *o, struct rc_result *r)
{
    static const struct rc_options defaults;
    struct rc_work w = {.f = f, .o = o ? o : &defaults, .r = r};
    size_t ucap = 0;
    int rc = -1;

    memset(r, 0, sizeof(*r));
    if (!f || f->nsw == 0)
        return -1;
    r->switches = f->nsw;
    r->endpoints = f->nep;
    if (rc_build_lfts(&w) || rc_build_peers(&w) || rc_alloc_walk(&w))
        goto out;
    r->channels = w.nchan;
    rc_count_lids(f, r);
    for (size_t d = 0; d < f->nsw && !w.failed; d++)
        for (uint32_t k = 0; k < 1u << f->sw[d].lmc && !w.failed; k++)
            rc_destination(&w, (uint16_t)(f->sw[d].lid + k), (int32_t)d, &ucap);
    if (w.o->all_routes)
        for (size_t e = 0; e < f->nep && !w.failed; e++)
            for (uint32_t k = 0; k < 1u << f->ep[e].lmc && !w.failed; k++)
                rc_destination(&w, (uint16_t)(f->ep[e].lid + k), -1, &ucap);
    if (w.failed)
        goto out;
    rc_unique_deps(&w);
    rc = rc_find_cycle(&w);
out:
    rc_free_work(&w);
    if (rc)
        rc_result_free(r);
    return rc;
}

void rc_result_free(struct rc_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nloops; i++)
        free(r->loops[i].sw);
    free(r->loops);
    free(r->unrouted);
    free(r->cycle_channels);
    memset(r, 0, sizeof(*r));
}

/* --- one route's length ------------------------------------------------------ */

/* The LFT port of switch lid for dlid from the blocks (RC_NO_PORT: none). */
static uint8_t rc_lft_lookup(const struct rc_fabric *f, uint16_t lid, uint16_t dlid)
{
    for (size_t i = 0; i < f->nblocks; i++)
        if (f->blocks[i].lid == lid && f->blocks[i].block == dlid / 64)
            return f->blocks[i].port[dlid % 64];
    return RC_NO_PORT;
}

/* The LID at the other end of (lid, port), whichever way the SA listed the link; 0: none. */
static uint16_t rc_link_peer(const struct rc_fabric *f, uint16_t lid, uint8_t port)
{
    for (size_t i = 0; i < f->nlinks; i++) {
        const struct rc_link_rec *l = &f->links[i];

        if (l->from_lid == lid && l->from_port == port)
            return l->to_lid;
        if (l->to_lid == lid && l->to_port == port)
            return l->from_lid;
    }
    return 0;
}

int rc_route_hops(const struct rc_fabric *f, uint16_t src_lid, uint16_t dlid)
{
    uint16_t at = src_lid;
    int32_t downer;

    if (!f || src_lid > f->max_lid || f->owner[src_lid] < 0 || !rc_unicast(dlid))
        return -1;
    downer = f->owner[dlid];
    if (downer == RC_NONE)
        return -1;                     /* nobody owns dlid */
    at = f->sw[f->owner[src_lid]].lid; /* its LFT and links are its base LID's */
    for (int hops = 0; (size_t)hops <= f->nsw; hops++) {
        uint8_t port;

        if (f->owner[at] == downer)
            return hops;
        port = rc_lft_lookup(f, at, dlid);
        if (port == RC_NO_PORT || port == 0)
            return -1;
        at = rc_link_peer(f, at, port);
        if (!at || at > f->max_lid)
            return -1;
        if (f->owner[at] < 0) /* a CA: delivered there if it owns dlid */
            return f->owner[at] == downer ? hops + 1 : -1;
    }
    return -1; /* more hops than switches: a loop */
}

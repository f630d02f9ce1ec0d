/*
 * mad_router.c - requests by class, answers by TID tag (see mad_router.h).
 */
#include "mad_router.h"

#include <infiniband/mad.h>

#include <string.h>

enum mad_kind mad_router_kind(const uint8_t *mad)
{
    if (mad_get_field((void *)mad, 0, IB_MAD_BASEVER_F) != 1)
        return MAD_KIND_BAD;
    return mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F) ? MAD_KIND_ANSWER : MAD_KIND_REQUEST;
}

void mad_router_init(struct mad_router *r)
{
    memset(r, 0, sizeof(*r));
}

int mad_router_add_agent(struct mad_router *r, uint8_t mgmt_class, mad_request_fn fn, void *arg)
{
    if (r->nagents == MAD_ROUTER_MAX_CLASSES || !fn)
        return -1;
    for (unsigned i = 0; i < r->nagents; i++)
        if (r->agents[i].mgmt_class == mgmt_class)
            return -1;
    r->agents[r->nagents].mgmt_class = mgmt_class;
    r->agents[r->nagents].fn = fn;
    r->agents[r->nagents].arg = arg;
    r->nagents++;
    return 0;
}

/* Whether two clients' tags can both match one TID in one class. */
static bool mad_router_overlap(uint8_t class_a, uint32_t mask_a, uint32_t tag_a, uint8_t class_b,
                               uint32_t mask_b, uint32_t tag_b)
{
    uint32_t common = mask_a & mask_b;

    if (class_a && class_b && class_a != class_b)
        return false;
    return (tag_a & common) == (tag_b & common);
}

int mad_router_add_client(struct mad_router *r, uint8_t mgmt_class, uint32_t tid_mask,
                          uint32_t tid_tag, mad_answer_fn fn, void *arg)
{
    if (r->nclients == MAD_ROUTER_MAX_CLIENTS || !fn || !tid_mask || (tid_tag & ~tid_mask))
        return -1;
    for (unsigned i = 0; i < r->nclients; i++)
        if (mad_router_overlap(mgmt_class, tid_mask, tid_tag, r->clients[i].mgmt_class,
                               r->clients[i].tid_mask, r->clients[i].tid_tag))
            return -1;
    r->clients[r->nclients].mgmt_class = mgmt_class;
    r->clients[r->nclients].tid_mask = tid_mask;
    r->clients[r->nclients].tid_tag = tid_tag;
    r->clients[r->nclients].fn = fn;
    r->clients[r->nclients].arg = arg;
    r->nclients++;
    return 0;
}

/* Give an answer to the client whose tag its TID carries; false when none. */
static bool mad_router_answer(struct mad_router *r, const uint8_t *in, size_t len)
{
    uint8_t mgmt_class = (uint8_t)mad_get_field((void *)in, 0, IB_MAD_MGMTCLASS_F);
    uint32_t tid = (uint32_t)mad_get_field64((void *)in, 0, IB_MAD_TRID_F);

    for (unsigned i = 0; i < r->nclients; i++) {
        if ((r->clients[i].mgmt_class && r->clients[i].mgmt_class != mgmt_class) ||
            (tid & r->clients[i].tid_mask) != r->clients[i].tid_tag)
            continue;
        r->clients[i].fn(r->clients[i].arg, in, len);
        return true;
    }
    return false;
}

/* The agent serving mgmt_class, or -1. */
static int mad_router_agent_of(const struct mad_router *r, uint8_t mgmt_class)
{
    for (unsigned i = 0; i < r->nagents; i++)
        if (r->agents[i].mgmt_class == mgmt_class)
            return (int)i;
    return -1;
}

enum mad_verdict mad_router_dispatch(struct mad_router *r, const struct mad_addr *from,
                                     const uint8_t *in, size_t len, struct mad_addr *to,
                                     uint8_t *out, enum mad_route *how)
{
    int a = mad_router_agent_of(r, (uint8_t)mad_get_field((void *)in, 0, IB_MAD_MGMTCLASS_F));
    enum mad_kind kind = mad_router_kind(in);

    *how = MAD_ROUTED_NOBODY;
    if (kind == MAD_KIND_BAD) {
        r->stats.bad++;
        return MAD_DROP;
    }
    if (kind == MAD_KIND_ANSWER && mad_router_answer(r, in, len)) {
        r->stats.answers++;
        *how = MAD_ROUTED_ANSWER;
        return MAD_DROP;
    }
    /*
     * A request, or an answer no client asked for: the class's agent.  The
     * SMA takes answers too: a returning directed-route SMP passes through
     * the switch (it forwards it, or drops what is not for it).
     */
    if (a < 0) {
        if (kind == MAD_KIND_ANSWER)
            r->stats.no_client++;
        else
            r->stats.no_agent++;
        return MAD_DROP;
    }
    if (kind == MAD_KIND_REQUEST)
        r->stats.requests++;
    *how = MAD_ROUTED_REQUEST;
    return r->agents[a].fn(r->agents[a].arg, from, in, to, out);
}

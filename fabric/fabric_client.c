/*
 * fabric_client.c - clients attached to the fabric: attach/detach, IsSM,
 * which client a MAD reaching a port belongs to, and the timeout a real
 * MAD layer reports for a request nobody answered.
 *
 * Which client gets a MAD that reaches (node, port):
 *   - a response goes to the client that sent a request with its TID;
 *   - a request of a subnet manager class (SMI traps and SMInfo, SA) goes to
 *     the subnet manager client there (SET_ISSM / issm at attach);
 *   - anything else is dropped: a client only ever gets classes it has an
 *     agent for (umad2sim crashes on a MAD of a class it did not register).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "fabric_internal.h"
#include "pzf_log.h"

#define FABRIC_CAP_IS_SM 0x00000002u /* PortInfo:CapabilityMask.IsSM */

/*
 * TrapRepress TIDs.  umad2sim (ibsim 0.10, umad2sim_write()) writes its
 * agent number into TID bits 32-47 of every MAD a client sends without the
 * Response bit, a TrapRepress too; the kernel's MAD layer leaves the TID of
 * a TrapRepress alone (ib_umad_write(): ib_response_mad()).  An SMA matches
 * a TrapRepress to its trap by the whole TID, so without repair it never
 * sees one and resends the trap for ever (OpenSM re-sweeps on each).  The
 * last traps handed to a client are remembered with their source LID, and
 * a TrapRepress the client sends to that LID gets back the TID of the
 * latest of them that differs from it only in those bits.
 */
#define FABRIC_CLIENT_TRAPS 64
#define FABRIC_TID_UMAD_AGENT 0x0000FFFF00000000ull

struct fabric_client_trap {
    uint64_t tid;
    uint16_t slid; /* the trap's source LID, where its TrapRepress goes; 0: unused */
};

/*
 * The ring of a client's last FABRIC_CLIENT_TIDS request TIDs is indexed by
 * an open-addressed hash table (linear probing, twice the ring's size): a
 * slot holds 1 + the ring index of the latest request with a TID, 0 when
 * empty, so an answer finds its client in O(1) instead of a ring scan.
 */
#define FABRIC_TID_SLOTS (2 * FABRIC_CLIENT_TIDS)
#define FABRIC_TID_SLOT_BITS 13
_Static_assert(FABRIC_TID_SLOTS == 1u << FABRIC_TID_SLOT_BITS, "slots are a power of two");
_Static_assert(FABRIC_CLIENT_TIDS < 0xFFFF, "a slot holds a ring index + 1");

/*
 * The allocation c->tids points to: the request ring first (so c->tids is
 * its start and free(c->tids) frees it), its index, then the traps.
 * Private to this file.
 */
struct fabric_client_mem {
    struct fabric_sent_tid tids[FABRIC_CLIENT_TIDS];
    uint16_t tid_slots[FABRIC_TID_SLOTS];
    struct fabric_client_trap traps[FABRIC_CLIENT_TRAPS];
    unsigned trap_next;
};

static struct fabric_client_mem *fabric_client_mem(const struct fabric_client *c)
{
    return (struct fabric_client_mem *)(void *)c->tids;
}

/* The attached client numbered client, or NULL. */
static struct fabric_client *fabric_client(const struct fabric *f, unsigned client)
{
    if (client >= f->num_clients || !f->clients[client].used)
        return NULL;
    return &f->clients[client];
}

/* Make room for client number client; returns 0 or -ENOMEM. */
static int fabric_clients_grow(struct fabric *f, unsigned client)
{
    size_t cap = f->num_clients ? f->num_clients : 8;
    struct fabric_client *clients;

    if (client < f->num_clients)
        return 0;
    while (cap <= client)
        cap *= 2;
    clients = realloc(f->clients, cap * sizeof(*clients));
    if (!clients)
        return -ENOMEM;
    memset(clients + f->num_clients, 0, (cap - f->num_clients) * sizeof(*clients));
    f->clients = clients;
    f->num_clients = cap;
    return 0;
}

bool fabric_has_sm_client(const struct fabric *f, const struct fabric_node *n, unsigned port)
{
    for (size_t i = 0; i < f->num_clients; i++) {
        const struct fabric_client *c = &f->clients[i];

        if (c->used && c->issm && c->node == n->index && c->port == port)
            return true;
    }
    return false;
}

/* Make IsSM of (n, port) say whether a subnet manager client is there; returns 0 or -EIO. */
static int fabric_update_issm(struct fabric *f, struct fabric_node *n, unsigned port)
{
    bool want = fabric_has_sm_client(f, n, port);
    uint32_t capmask, wanted;
    uint8_t pi[64];

    if (fabric_host_get_attr(f, n, port, IB_ATTR_PORT_INFO, port, pi))
        return -EIO;
    capmask = mad_get_field(pi, 0, IB_PORT_CAPMASK_F);
    wanted = want ? capmask | FABRIC_CAP_IS_SM : capmask & ~FABRIC_CAP_IS_SM;
    if (wanted == capmask)
        return 0;
    if (sma_set_capability_mask(node_sma(n->node), port, wanted,
                                (uint16_t)mad_get_field(pi, 0, IB_PORT_CAPMASK2_F)))
        return -EIO;
    fabric_mark_dirty(f, n); /* the SMA queued Trap 144 */
    return 0;
}

int fabric_client_attach(struct fabric *f, unsigned client, size_t node, bool issm)
{
    struct fabric_client_mem *mem;
    struct fabric_client *c;
    int rc;

    if (node >= f->num_nodes)
        return -EINVAL;
    rc = fabric_clients_grow(f, client);
    if (rc)
        return rc;
    c = &f->clients[client];
    if (c->used)
        return -EEXIST;
    memset(c, 0, sizeof(*c));
    mem = calloc(1, sizeof(*mem));
    if (!mem)
        return -ENOMEM;
    c->tids = mem->tids;
    c->used = true;
    c->last_seq = ++f->seq; /* a new client counts as heard from */
    c->node = (uint32_t)node;
    c->port = f->nodes[node].is_switch ? 0 : 1;
    pzf_log(f->verbose, PZF_LOG_INFO, "client %u attached at %s port %u%s", client,
            f->nodes[node].name, c->port, issm ? " (SM)" : "");
    if (issm)
        return fabric_client_set_issm(f, client, true);
    return 0;
}

void fabric_client_detach(struct fabric *f, unsigned client)
{
    struct fabric_client *c = fabric_client(f, client);
    bool was_sm;

    if (!c)
        return;
    was_sm = c->issm;
    c->used = false;
    fabric_agent_client_gone(f, client);
    free(c->tids);
    c->tids = NULL;
    pzf_log(f->verbose, PZF_LOG_INFO, "client %u detached from %s", client, f->nodes[c->node].name);
    if (was_sm) {
        fabric_update_issm(f, &f->nodes[c->node], c->port);
        fabric_poll_dirty(f);
    }
}

bool fabric_client_attached(const struct fabric *f, unsigned client)
{
    return fabric_client(f, client) != NULL;
}

int fabric_client_where(const struct fabric *f, unsigned client, size_t *node, unsigned *port)
{
    const struct fabric_client *c = fabric_client(f, client);

    if (!c)
        return -ENOENT;
    *node = c->node;
    *port = c->port;
    return 0;
}

int fabric_client_set_issm(struct fabric *f, unsigned client, bool issm)
{
    struct fabric_client *c = fabric_client(f, client);
    int rc;

    if (!c)
        return -ENOENT;
    c->issm = issm;
    rc = fabric_update_issm(f, &f->nodes[c->node], c->port);
    fabric_poll_dirty(f);
    return rc;
}

int fabric_client_get_attr(struct fabric *f, unsigned client, uint16_t attr_id, uint32_t attr_mod,
                           uint8_t data[64])
{
    struct fabric_client *c = fabric_client(f, client);

    if (!c)
        return -ENOENT;
    if (fabric_host_get_attr(f, &f->nodes[c->node], c->port, attr_id, attr_mod, data))
        return -EIO;
    return 0;
}

int fabric_client_rereg_count(struct fabric *f, unsigned client, uint32_t *count)
{
    struct fabric_client *c = fabric_client(f, client);

    if (!c)
        return -ENOENT;
    if (f->nodes[c->node].external)
        return -EIO;
    *count = sma_client_reregister_count(node_sma(f->nodes[c->node].node), c->port);
    return 0;
}

/* The home slot of tid in a client's TID index. */
static unsigned fabric_tid_home(uint64_t tid)
{
    return (unsigned)((tid * 0x9E3779B97F4A7C15ull) >> (64 - FABRIC_TID_SLOT_BITS));
}

/* The slot of the index holding ring entry r, or FABRIC_TID_SLOTS if none does. */
static unsigned fabric_tid_slot_of(const struct fabric_client_mem *mem, unsigned r)
{
    unsigned i = fabric_tid_home(mem->tids[r].tid);

    for (; mem->tid_slots[i]; i = (i + 1) % FABRIC_TID_SLOTS)
        if (mem->tid_slots[i] == r + 1)
            return i;
    return FABRIC_TID_SLOTS;
}

/* Whether home slot k lies cyclically in (i, j]: an entry at j may not move to i. */
static bool fabric_tid_between(unsigned i, unsigned k, unsigned j)
{
    return i <= j ? (i < k && k <= j) : (i < k || k <= j);
}

/* Empty slot i of the index, shifting back the entries probed past it. */
static void fabric_tid_unslot(struct fabric_client_mem *mem, unsigned i)
{
    for (unsigned j = (i + 1) % FABRIC_TID_SLOTS; mem->tid_slots[j];
         j = (j + 1) % FABRIC_TID_SLOTS) {
        unsigned k = fabric_tid_home(mem->tids[mem->tid_slots[j] - 1].tid);

        if (fabric_tid_between(i, k, j))
            continue;
        mem->tid_slots[i] = mem->tid_slots[j];
        i = j;
    }
    mem->tid_slots[i] = 0;
}

/* Remember that client c sent a request with this TID as MAD number seq. */
static void fabric_client_note_tid(struct fabric_client *c, uint64_t tid, uint64_t seq)
{
    struct fabric_client_mem *mem = fabric_client_mem(c);
    unsigned r = c->tid_next, i;

    if (c->tid_count == FABRIC_CLIENT_TIDS) { /* the oldest entry leaves the ring */
        i = fabric_tid_slot_of(mem, r);
        if (i < FABRIC_TID_SLOTS)
            fabric_tid_unslot(mem, i);
    }
    c->tids[r].tid = tid;
    c->tids[r].seq = seq;
    for (i = fabric_tid_home(tid); mem->tid_slots[i]; i = (i + 1) % FABRIC_TID_SLOTS)
        if (c->tids[mem->tid_slots[i] - 1].tid == tid)
            break; /* an older request with this TID: the new one replaces it */
    mem->tid_slots[i] = (uint16_t)(r + 1);
    c->tid_next = (r + 1) % FABRIC_CLIENT_TIDS;
    if (c->tid_count < FABRIC_CLIENT_TIDS)
        c->tid_count++;
}

/* When client c last sent a request with this TID (its seq), or 0 if it did not lately. */
static uint64_t fabric_client_sent_tid(const struct fabric_client *c, uint64_t tid)
{
    const struct fabric_client_mem *mem = fabric_client_mem(c);

    for (unsigned i = fabric_tid_home(tid); mem->tid_slots[i]; i = (i + 1) % FABRIC_TID_SLOTS)
        if (c->tids[mem->tid_slots[i] - 1].tid == tid)
            return c->tids[mem->tid_slots[i] - 1].seq;
    return 0;
}

/* Remember that a trap with this TID from source LID slid was handed to client c. */
static void fabric_client_note_trap(struct fabric_client *c, uint64_t tid, uint16_t slid)
{
    struct fabric_client_mem *mem = fabric_client_mem(c);

    mem->traps[mem->trap_next].tid = tid;
    mem->traps[mem->trap_next].slid = slid;
    mem->trap_next = (mem->trap_next + 1) % FABRIC_CLIENT_TRAPS;
}

/*
 * m, or in *fixed a copy of it with its TID repaired if m is a TrapRepress
 * whose TID umad2sim changed (see FABRIC_TID_UMAD_AGENT).
 */
static const struct fabric_mad *fabric_client_fix_repress(const struct fabric_client *c,
                                                          const struct fabric_mad *m,
                                                          struct fabric_mad *fixed)
{
    const struct fabric_client_mem *mem = fabric_client_mem(c);
    unsigned mgmt_class = mad_get_field((void *)m->mad, 0, IB_MAD_MGMTCLASS_F);
    uint64_t tid = mad_get_field64((void *)m->mad, 0, IB_MAD_TRID_F);

    if (mad_get_field((void *)m->mad, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_TRAP_REPRESS ||
        mad_get_field((void *)m->mad, 0, IB_MAD_RESPONSE_F) ||
        (mgmt_class != IB_SMI_CLASS && mgmt_class != IB_SMI_DIRECT_CLASS))
        return m;
    for (unsigned n = 1; n <= FABRIC_CLIENT_TRAPS; n++) {
        const struct fabric_client_trap *t =
            &mem->traps[(mem->trap_next + FABRIC_CLIENT_TRAPS - n) % FABRIC_CLIENT_TRAPS];

        if (t->slid == 0 || t->slid != m->dlid ||
            (t->tid & ~FABRIC_TID_UMAD_AGENT) != (tid & ~FABRIC_TID_UMAD_AGENT))
            continue;
        if (t->tid == tid)
            return m;
        *fixed = *m;
        mad_set_field64(fixed->mad, 0, IB_MAD_TRID_F, t->tid);
        return fixed;
    }
    return m;
}

/* Whether a subnet manager takes requests of this management class. */
static bool fabric_sm_class(unsigned mgmt_class)
{
    return mgmt_class == IB_SMI_CLASS || mgmt_class == IB_SMI_DIRECT_CLASS ||
           mgmt_class == IB_SA_CLASS;
}

/* Whether p is an SA Report (a Notice the SA forwards to an InformInfo subscriber). */
static bool fabric_sa_report(const struct fabric_pkt *p)
{
    return mad_get_field((void *)p->mad, 0, IB_MAD_MGMTCLASS_F) == IB_SA_CLASS &&
           mad_get_field((void *)p->mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_REPORT &&
           !mad_get_field((void *)p->mad, 0, IB_MAD_RESPONSE_F);
}

/* Whether m is an SA Set(InformInfo): its sender subscribes to Reports. */
static bool fabric_sa_subscribe(const struct fabric_mad *m)
{
    return mad_get_field((void *)m->mad, 0, IB_MAD_MGMTCLASS_F) == IB_SA_CLASS &&
           mad_get_field((void *)m->mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_SET &&
           !mad_get_field((void *)m->mad, 0, IB_MAD_RESPONSE_F) &&
           mad_get_field((void *)m->mad, 0, IB_MAD_ATTRID_F) == IB_SA_ATTR_INFORMINFO;
}

/*
 * The client at (n, port) that packet p is for, or -1: for a response the
 * client that sent its TID last; for an SA Report the client that
 * subscribed (sent an SA Set(InformInfo)) and was heard from last, as the
 * kernel hands a Report to the agent registered for it; for another
 * request the subnet manager client that was heard from last (a killed SM
 * that never detached stays in the table until a send to it fails, and a
 * restarted one reuses its TIDs).
 */
static long fabric_pick_client(const struct fabric *f, const struct fabric_node *n, unsigned port,
                               const struct fabric_pkt *p)
{
    bool response = mad_get_field((void *)p->mad, 0, IB_MAD_RESPONSE_F);
    unsigned mgmt_class = mad_get_field((void *)p->mad, 0, IB_MAD_MGMTCLASS_F);
    uint64_t tid = mad_get_field64((void *)p->mad, 0, IB_MAD_TRID_F);
    bool report = !response && fabric_sa_report(p);
    uint64_t best_seq = 0;
    long best = -1;

    if (!response && !fabric_sm_class(mgmt_class))
        return -1;
    for (size_t i = 0; i < f->num_clients; i++) {
        const struct fabric_client *c = &f->clients[i];
        uint64_t seq;

        if (!c->used || c->node != n->index || c->port != port)
            continue;
        if (response)
            seq = fabric_client_sent_tid(c, tid);
        else if (report)
            seq = c->sa_subscriber ? c->last_seq + 1 : 0;
        else
            seq = c->issm ? c->last_seq + 1 : 0;
        if (seq > best_seq) {
            best_seq = seq;
            best = (long)i;
        }
    }
    return best;
}

void fabric_mad_of(struct fabric_mad *m, const struct fabric_pkt *p)
{
    memcpy(m->mad, p->mad, sizeof(m->mad));
    m->slid = p->slid;
    m->dlid = p->dlid;
    m->sqp = p->sqp;
    m->dqp = p->dqp;
    m->status = 0;
    m->len = p->len;
    m->timeout_ms = 0;
}

bool fabric_to_client(struct fabric *f, struct fabric_node *n, unsigned port,
                      const struct fabric_pkt *p)
{
    long client = fabric_pick_client(f, n, port, p);
    struct fabric_mad m;

    if (client < 0)
        return false;
    fabric_mad_of(&m, p);
    f->stats.to_clients++;
    if (mad_get_field(m.mad, 0, IB_MAD_METHOD_F) == IB_MAD_METHOD_TRAP &&
        !mad_get_field(m.mad, 0, IB_MAD_RESPONSE_F))
        fabric_client_note_trap(&f->clients[client], mad_get_field64(m.mad, 0, IB_MAD_TRID_F),
                                p->slid);
    if (f->run.active)
        f->run.answered = true;
    pzf_log(f->verbose, PZF_LOG_DEBUG, "to client %ld at %s[%u]: class 0x%02x attr 0x%04x", client,
            n->name, port, mad_get_field(m.mad, 0, IB_MAD_MGMTCLASS_F),
            mad_get_field(m.mad, 0, IB_MAD_ATTRID_F));
    fabric_agent_settle(f, (unsigned)client, m.mad);
    if (f->deliver)
        f->deliver(f->deliver_arg, (unsigned)client, &m);
    return true;
}

/* Whether a MAD with this method waits for an answer (a real stack would time it out). */
bool fabric_expects_answer(const uint8_t *mad)
{
    unsigned method = mad_get_field((void *)mad, 0, IB_MAD_METHOD_F);

    if (mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F))
        return false;
    return method != IB_MAD_METHOD_SEND && method != IB_MAD_METHOD_TRAP &&
           method != IB_MAD_METHOD_TRAP_REPRESS;
}

/* Return a request to its sender with status "timed out", as the MAD layer would. */
void fabric_client_timeout(struct fabric *f, unsigned client, const struct fabric_mad *m)
{
    struct fabric_mad back = *m;

    back.status = FABRIC_STATUS_TIMEOUT;
    f->stats.timeouts++;
    if (f->deliver)
        f->deliver(f->deliver_arg, client, &back);
}

int fabric_client_send(struct fabric *f, unsigned client, const struct fabric_mad *m)
{
    struct fabric_client *c = fabric_client(f, client);
    struct fabric_mad fixed;

    if (!c)
        return -ENOENT;
    f->stats.from_clients++;
    m = fabric_client_fix_repress(c, m, &fixed);
    f->run.active = true;
    f->run.client = client;
    f->run.answered = false;
    f->run.req = NULL; /* an agent's answer is no request: nothing to defer */
    if (fabric_agent_output(f, client, m)) {
        fabric_run_queue(f);
        f->run.active = false;
        /* Lost on its way (a link, the drop rate): its requester times out now. */
        if (!f->run.answered && mad_get_field((void *)m->mad, 0, IB_MAD_RESPONSE_F))
            fabric_agent_lost(f, m->mad);
        fabric_poll_dirty(f);
        return 0; /* an external switch agent's answer or trap */
    }
    f->run.active = false;
    c->last_seq = ++f->seq;
    if (fabric_sa_subscribe(m))
        c->sa_subscriber = true;
    if (!mad_get_field((void *)m->mad, 0, IB_MAD_RESPONSE_F))
        fabric_client_note_tid(c, mad_get_field64((void *)m->mad, 0, IB_MAD_TRID_F), f->seq);
    f->run.active = true;
    f->run.client = client;
    f->run.answered = false;
    f->run.req = m;
    fabric_host_send(f, c, m);
    fabric_run_queue(f);
    f->run.active = false;
    if (!f->run.answered && fabric_expects_answer(m->mad) && fabric_client(f, client))
        fabric_client_timeout(f, client, m);
    fabric_poll_dirty(f);
    return 0;
}

void fabric_clients_free(struct fabric *f)
{
    for (size_t i = 0; i < f->num_clients; i++)
        free(f->clients[i].tids);
    free(f->clients);
    f->clients = NULL;
    f->num_clients = 0;
}

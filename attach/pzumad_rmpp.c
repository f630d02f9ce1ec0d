/*
 * pzumad_rmpp.c - the RMPP of the kernel's umad layer for clients attached
 * through umad2sim (part of libpzumad2sim.so).
 *
 * On hardware, the kernel runs RMPP (IBA 13.6) for every agent registered
 * with an rmpp_version: a umad_send() of a MAD longer than 256 bytes with
 * the RMPP Active flag goes out as DATA segments, window by window as the
 * receiver ACKs them, resent on timeouts; received DATA segments are
 * ACKed and reassembled, and read() returns the whole MAD; ACK, STOP and
 * ABORT never reach the client.  umad2sim (ibsim 0.10-0.12) does none of
 * it and clips every write to 256 bytes, so OpenSM's SA answers arrive as
 * their first segment: saquery lists only the records of the first 200
 * bytes of a table.
 *
 * umad2sim interposes libc (open/read/write/ioctl/poll), below libibumad;
 * this file interposes libibumad's own entry points, above it, for the
 * application (its calls reach these definitions first because the
 * library is preloaded; libibumad's are reached with dlsym(RTLD_NEXT)):
 *   - umad_register, umad_register_oui, umad_register2: remember which
 *     agent of which descriptor wants RMPP; umad_unregister and
 *     umad_close_port forget them;
 *   - umad_send: a MAD of an RMPP class with the Active flag, from an RMPP
 *     agent, becomes a send transfer (rmpp.c cuts it); every other MAD
 *     passes through unchanged;
 *   - umad_recv: on a descriptor with an RMPP agent, reads one MAD at a
 *     time through libibumad; DATA segments go to their reassembly (the
 *     ACKs go out at once), ACK/STOP/ABORT to their send transfer, and the
 *     call returns only a plain MAD or a completed one, within the
 *     caller's timeout: with timeout 0 it returns what libibumad returns
 *     when nothing is queued (-EWOULDBLOCK) once the queue holds nothing
 *     more for the client, so poll()-then-umad_recv() readers keep
 *     working.  A completed MAD longer than the caller's buffer is
 *     answered as the kernel does: -ENOSPC, *length set to its length,
 *     the header and the first segment copied, the MAD kept for the next
 *     call on that descriptor.
 * Timers (ACK timeouts with resends and a final ABORT TMR, a reassembly's
 * 40 s lifetime ending in ABORT T2L) run in whichever thread is inside
 * umad_recv or umad_send: waits are cut into slices of at most 1 s while a
 * descriptor has an RMPP agent.  One mutex guards all state; it is held
 * while segments are written (umad2sim's write only queues them to the
 * simulator's socket), never while waiting.
 *
 * Limits: PZU_MAX_LEN bytes a transfer, PZU_MAX_SENDS / PZU_MAX_RECVS
 * transfers at once; past them a send fails with EMSGSIZE/ENOBUFS and a
 * reassembly is answered with STOP (resources exhausted).  Protocol errors
 * (ABORTs, STOPs, retries used up) are reported on stderr, one line each.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <infiniband/umad.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pzumad_timeout.h"
#include "rmpp.h"

#define PZU_HDR sizeof(struct ib_user_mad) /* umad_size() */
#define PZU_MAX_AGENTS 64
#define PZU_MAX_SENDS 256
#define PZU_MAX_RECVS 64
#define PZU_MAX_PENDING 16
#define PZU_MAX_LEN (32u << 20) /* 32 MiB: an SA table of ~150000 PathRecords */
#define PZU_SLICE_MS 1000
#define PZU_DONE_KEEP_MS 10000 /* a completed reassembly re-ACKs duplicates this long */

/* An agent registered through this library. */
struct pzu_agent {
    bool used;
    bool rmpp;
    int fd;
    int id;
    uint8_t mgmt_class;
};

/* A MAD being sent in segments. */
struct pzu_sendx {
    struct pzu_sendx *next;
    int fd;
    int agent;
    uint64_t tid;
    uint8_t mgmt_class;
    int ack_ms;       /* wait for an ACK */
    int64_t deadline; /* when the ACK is late */
    struct pzr_send s;
    uint8_t hdr[PZU_HDR]; /* the client's umad header: the address */
    uint8_t mad[];
};

/* A MAD being reassembled, or a completed one kept to re-ACK duplicates. */
struct pzu_recvx {
    struct pzu_recvx *next;
    int fd;
    uint64_t tid;
    uint8_t mgmt_class;
    uint8_t method;
    uint16_t slid;    /* network order, as umad's addr */
    uint32_t sqp;     /* network order */
    int64_t deadline; /* active: its lifetime; complete: when it is forgotten */
    struct pzr_recv r;
    uint8_t hdr[PZU_HDR]; /* the first segment's umad header */
};

/* A completed MAD the client's buffer was too small for. */
struct pzu_pending {
    struct pzu_pending *next;
    int fd;
    size_t len;     /* MAD bytes */
    uint8_t umad[]; /* header + MAD */
};

/* The library's state, under one lock. */
static struct {
    pthread_mutex_t lock;
    struct pzu_agent agents[PZU_MAX_AGENTS];
    struct pzu_sendx *sends;
    unsigned n_sends;
    struct pzu_recvx *recvs;
    unsigned n_recvs;
    struct pzu_pending *pending;
    unsigned n_pending;
} pzu = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A libibumad function after this library; returns it or NULL (message on stderr). */
static void *pzu_next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);

    if (!f)
        fprintf(stderr, "libpzumad2sim.so: %s not found after this library\n", name);
    return f;
}

#define PZU_REAL(type, name)                                                                       \
    static __typeof__(type) real;                                                                  \
    if (!real)                                                                                     \
        real = (type)pzu_next(name);

/* Monotonic time in milliseconds; returns it. */
static int64_t pzu_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Report an RMPP protocol event on stderr, one line. */
static void pzu_report(const char *fmt, ...)
{
    char line[256];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    fprintf(stderr, "libpzumad2sim.so: RMPP: %s\n", line);
}

/* libibumad's umad_send; returns its value (-EIO if it is missing). */
static int pzu_real_send(int fd, int agent, void *umad, int length, int timeout_ms, int retries)
{
    PZU_REAL(int (*)(int, int, void *, int, int, int), "umad_send")
    if (!real) {
        errno = ENOSYS;
        return -EIO;
    }
    return real(fd, agent, umad, length, timeout_ms, retries);
}

/* libibumad's umad_recv; returns its value. */
static int pzu_real_recv(int fd, void *umad, int *length, int timeout_ms)
{
    PZU_REAL(int (*)(int, void *, int *, int), "umad_recv")
    if (!real) {
        errno = ENOSYS;
        return -ENOSYS;
    }
    return real(fd, umad, length, timeout_ms);
}

/* ---- agents (lock held) ---- */

/* Remember agent id of fd (rmpp: it wants RMPP). */
static void pzu_agent_add(int fd, int id, int mgmt_class, bool rmpp)
{
    struct pzu_agent *free_slot = NULL;

    for (unsigned i = 0; i < PZU_MAX_AGENTS; i++) {
        struct pzu_agent *a = &pzu.agents[i];

        if (a->used && a->fd == fd && a->id == id)
            free_slot = a;
        else if (!a->used && !free_slot)
            free_slot = a;
    }
    if (!free_slot) {
        pzu_report("more than %d agents: agent %d of fd %d runs without RMPP", PZU_MAX_AGENTS, id,
                   fd);
        return;
    }
    *free_slot = (struct pzu_agent){
        .used = true, .rmpp = rmpp, .fd = fd, .id = id, .mgmt_class = (uint8_t)mgmt_class};
}

/* Forget agent id of fd (id < 0: every agent of fd). */
static void pzu_agent_remove(int fd, int id)
{
    for (unsigned i = 0; i < PZU_MAX_AGENTS; i++) {
        struct pzu_agent *a = &pzu.agents[i];

        if (a->used && a->fd == fd && (id < 0 || a->id == id))
            a->used = false;
    }
}

/* The RMPP agent of fd with id, or else for mgmt_class (id < 0: by class only); returns its id
 * or -1. */
static int pzu_agent_rmpp(int fd, int id, uint8_t mgmt_class)
{
    int by_class = -1;

    for (unsigned i = 0; i < PZU_MAX_AGENTS; i++) {
        const struct pzu_agent *a = &pzu.agents[i];

        if (!a->used || a->fd != fd)
            continue;
        if (!a->rmpp || a->mgmt_class != mgmt_class)
            continue;
        if (a->id == id && id >= 0)
            return a->id;
        if (by_class < 0)
            by_class = a->id;
    }
    return by_class;
}

/* Whether fd has an RMPP agent; returns it. */
static bool pzu_fd_rmpp(int fd)
{
    bool found = false;

    pthread_mutex_lock(&pzu.lock);
    for (unsigned i = 0; i < PZU_MAX_AGENTS && !found; i++)
        found = pzu.agents[i].used && pzu.agents[i].fd == fd && pzu.agents[i].rmpp;
    pthread_mutex_unlock(&pzu.lock);
    return found;
}

/* ---- sending (lock held) ---- */

/* Send one 256-byte MAD with umad header hdr from agent of fd; returns umad_send's value. */
static int pzu_xmit(int fd, int agent, const uint8_t *hdr, const uint8_t *mad)
{
    uint8_t buf[PZU_HDR + PZR_MAD_SIZE];

    memcpy(buf, hdr, PZU_HDR);
    memcpy(buf + PZU_HDR, mad, PZR_MAD_SIZE);
    return pzu_real_send(fd, agent, buf, PZR_MAD_SIZE, 0, 0);
}

/* Answer the received MAD mad (umad header hdr) on fd with an ACK/STOP/ABORT. */
static void pzu_reply(int fd, const uint8_t *hdr, const uint8_t *mad, uint8_t type, uint8_t status,
                      uint32_t seg_num, uint32_t newwin)
{
    uint8_t out[PZR_MAD_SIZE];
    int agent = pzu_agent_rmpp(fd, -1, pzr_mad_class(mad));

    if (agent < 0)
        return;
    pzr_build_reply(out, mad, type, status, seg_num, newwin);
    pzu_xmit(fd, agent, hdr, out);
}

/* Send x's segments the window allows; returns 0 or umad_send's error. */
static int pzu_send_window(struct pzu_sendx *x)
{
    uint8_t seg[PZR_MAD_SIZE];
    uint32_t n;

    while ((n = pzr_send_next(&x->s)) != 0) {
        int rc;

        pzr_send_segment(&x->s, n, seg);
        rc = pzu_xmit(x->fd, x->agent, x->hdr, seg);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Unlink and free send transfer x. */
static void pzu_send_drop(struct pzu_sendx *x)
{
    for (struct pzu_sendx **p = &pzu.sends; *p; p = &(*p)->next) {
        if (*p == x) {
            *p = x->next;
            pzu.n_sends--;
            break;
        }
    }
    free(x);
}

/* Send an ABORT with status along x's data (its receiver drops the reassembly). */
static void pzu_send_abort(struct pzu_sendx *x, uint8_t status)
{
    uint8_t seg[PZR_MAD_SIZE];
    struct pzr_hdr h;

    pzr_send_segment(&x->s, 1, seg);
    pzr_hdr_get(seg, &h);
    h.type = PZR_TYPE_ABORT;
    h.flags = PZR_FLAG_ACTIVE;
    h.status = status;
    h.seg_num = 0;
    h.paylen_newwin = 0;
    pzr_hdr_put(seg, &h);
    memset(seg + x->s.hdr_len, 0, PZR_MAD_SIZE - x->s.hdr_len);
    pzu_xmit(x->fd, x->agent, x->hdr, seg);
}

/*
 * The send transfer of fd that a MAD of class and tid from address from answers, or NULL.
 * Two requesters may use the same TID (each numbers its own requests): a transfer is its
 * TID and class to one peer, so the ACK must come from the LID and QP it goes to.
 */
static struct pzu_sendx *pzu_send_find(int fd, uint64_t tid, uint8_t mgmt_class,
                                       const ib_mad_addr_t *from)
{
    for (struct pzu_sendx *x = pzu.sends; x; x = x->next) {
        const ib_mad_addr_t *to = &((const struct ib_user_mad *)x->hdr)->addr;

        if (x->fd == fd && x->tid == tid && x->mgmt_class == mgmt_class && to->lid == from->lid &&
            to->qpn == from->qpn)
            return x;
    }
    return NULL;
}

/* ---- receiving (lock held) ---- */

/* Unlink and free reassembly x. */
static void pzu_recv_drop(struct pzu_recvx *x)
{
    for (struct pzu_recvx **p = &pzu.recvs; *p; p = &(*p)->next) {
        if (*p == x) {
            *p = x->next;
            pzu.n_recvs--;
            break;
        }
    }
    pzr_recv_free(&x->r);
    free(x);
}

/* The reassembly on fd of the segment mad from address addr, or NULL (any_method: match on
 * TID, class and sender only, for a STOP or ABORT). */
static struct pzu_recvx *pzu_recv_find(int fd, const uint8_t *mad, const ib_mad_addr_t *addr,
                                       bool any_method)
{
    uint64_t tid = pzr_mad_tid(mad);

    for (struct pzu_recvx *x = pzu.recvs; x; x = x->next) {
        if (x->fd != fd || x->tid != tid || x->mgmt_class != pzr_mad_class(mad) ||
            x->slid != addr->lid || x->sqp != addr->qpn)
            continue;
        if (any_method || x->method == pzr_mad_method(mad))
            return x;
    }
    return NULL;
}

/* Keep a completed MAD for fd's next umad_recv (the oldest goes past PZU_MAX_PENDING). */
static void pzu_pending_add(struct pzu_pending *p)
{
    struct pzu_pending **tail = &pzu.pending;

    if (pzu.n_pending >= PZU_MAX_PENDING) {
        struct pzu_pending *old = pzu.pending;

        pzu_report("a %zu-byte MAD on fd %d dropped: never read with a buffer large enough",
                   old->len, old->fd);
        pzu.pending = old->next;
        pzu.n_pending--;
        free(old);
    }
    while (*tail)
        tail = &(*tail)->next;
    p->next = NULL;
    *tail = p;
    pzu.n_pending++;
}

/* Take fd's oldest kept MAD, or NULL. */
static struct pzu_pending *pzu_pending_take(int fd)
{
    for (struct pzu_pending **p = &pzu.pending; *p; p = &(*p)->next) {
        if ((*p)->fd == fd) {
            struct pzu_pending *found = *p;

            *p = found->next;
            pzu.n_pending--;
            return found;
        }
    }
    return NULL;
}

/* A completed reassembly x as a client umad (header + MAD); returns it, or NULL without memory. */
static struct pzu_pending *pzu_recv_complete(struct pzu_recvx *x)
{
    struct pzu_pending *p = malloc(sizeof(*p) + PZU_HDR + x->r.len);
    struct ib_user_mad *u;

    if (!p) {
        pzu_report("no memory for a %zu-byte MAD: dropped", x->r.len);
        return NULL;
    }
    p->fd = x->fd;
    p->len = x->r.len;
    memcpy(p->umad, x->hdr, PZU_HDR);
    memcpy(p->umad + PZU_HDR, x->r.buf, x->r.len);
    u = (struct ib_user_mad *)p->umad;
    u->length = (uint32_t)(PZU_HDR + x->r.len);
    u->status = 0;
    return p;
}

/* Take DATA segment mad (len bytes, umad header hdr) on fd; returns the MAD it completes, or
 * NULL. */
static struct pzu_pending *pzu_on_data(int fd, const uint8_t *hdr, const uint8_t *mad, size_t len)
{
    const ib_mad_addr_t *addr = &((const struct ib_user_mad *)hdr)->addr;
    struct pzu_recvx *x = pzu_recv_find(fd, mad, addr, false);
    uint8_t bad = pzr_data_check(mad, len);
    enum pzr_recv_verdict v;
    struct pzr_reply reply;
    struct pzu_pending *done = NULL;

    if (bad) {
        pzu_report("bad DATA segment (TID 0x%016llx): ABORT status %u",
                   (unsigned long long)pzr_mad_tid(mad), bad);
        pzu_reply(fd, hdr, mad, PZR_TYPE_ABORT, bad, 0, 0);
        if (x && !x->r.complete)
            pzu_recv_drop(x);
        return NULL;
    }
    if (!x) {
        if (!pzr_data_is_first(mad))
            return NULL; /* no transfer: a late segment of a dropped one */
        if (pzu.n_recvs >= PZU_MAX_RECVS) {
            pzu_report("%d reassemblies at once: STOP (TID 0x%016llx)", PZU_MAX_RECVS,
                       (unsigned long long)pzr_mad_tid(mad));
            pzu_reply(fd, hdr, mad, PZR_TYPE_STOP, PZR_STATUS_RESX, 0, 0);
            return NULL;
        }
        x = calloc(1, sizeof(*x));
        if (!x) {
            pzu_reply(fd, hdr, mad, PZR_TYPE_STOP, PZR_STATUS_RESX, 0, 0);
            return NULL;
        }
        x->fd = fd;
        x->tid = pzr_mad_tid(mad);
        x->mgmt_class = pzr_mad_class(mad);
        x->method = pzr_mad_method(mad);
        x->slid = addr->lid;
        x->sqp = addr->qpn;
        x->deadline = pzu_now_ms() + PZR_RECV_TIMEOUT_MS;
        memcpy(x->hdr, hdr, PZU_HDR);
        x->next = pzu.recvs;
        pzu.recvs = x;
        pzu.n_recvs++;
        v = pzr_recv_start(&x->r, mad, len, PZU_MAX_LEN, &reply);
    } else {
        v = pzr_recv_feed(&x->r, mad, len, &reply);
    }
    switch (v) {
    case PZR_RECV_DROP:
        break;
    case PZR_RECV_ACK:
        pzu_reply(fd, hdr, mad, PZR_TYPE_ACK, 0, reply.seg_num, reply.newwin);
        break;
    case PZR_RECV_DONE:
        pzu_reply(fd, hdr, mad, PZR_TYPE_ACK, 0, reply.seg_num, reply.newwin);
        done = pzu_recv_complete(x);
        pzr_recv_free(&x->r);
        x->deadline = pzu_now_ms() + PZU_DONE_KEEP_MS;
        break;
    case PZR_RECV_STOP:
        pzu_report("MAD longer than %u bytes (TID 0x%016llx): STOP", PZU_MAX_LEN,
                   (unsigned long long)x->tid);
        pzu_reply(fd, hdr, mad, PZR_TYPE_STOP, PZR_STATUS_RESX, 0, 0);
        pzu_recv_drop(x);
        break;
    case PZR_RECV_ABORT:
        pzu_report("inconsistent DATA (TID 0x%016llx): ABORT status %u", (unsigned long long)x->tid,
                   reply.status);
        pzu_reply(fd, hdr, mad, PZR_TYPE_ABORT, reply.status, 0, 0);
        pzu_recv_drop(x);
        break;
    }
    return done;
}

/* Take an ACK mad (umad header hdr) on fd for one of our send transfers. */
static void pzu_on_ack(int fd, const uint8_t *hdr, const uint8_t *mad)
{
    const ib_mad_addr_t *addr = &((const struct ib_user_mad *)hdr)->addr;
    struct pzu_sendx *x = pzu_send_find(fd, pzr_mad_tid(mad), pzr_mad_class(mad), addr);
    struct pzr_hdr h;
    uint8_t status = 0;

    if (!x)
        return; /* unmatched (a late ACK of a finished transfer) */
    pzr_hdr_get(mad, &h);
    switch (pzr_send_ack(&x->s, h.seg_num, h.paylen_newwin, h.status, &status)) {
    case PZR_SEND_IGNORE:
        break;
    case PZR_SEND_MORE:
        x->deadline = pzu_now_ms() + x->ack_ms;
        pzu_send_window(x);
        break;
    case PZR_SEND_DONE:
        pzu_send_drop(x);
        break;
    case PZR_SEND_ABORT:
    case PZR_SEND_GIVE_UP:
        pzu_report("bad ACK (TID 0x%016llx, segment %u, window %u): ABORT status %u",
                   (unsigned long long)x->tid, h.seg_num, h.paylen_newwin, status);
        pzu_reply(fd, hdr, mad, PZR_TYPE_ABORT, status, 0, 0);
        pzu_send_drop(x);
        break;
    }
}

/* Take a STOP or ABORT mad on fd: ends the transfer it names. */
static void pzu_on_stop_abort(int fd, const uint8_t *hdr, const uint8_t *mad)
{
    const ib_mad_addr_t *addr = &((const struct ib_user_mad *)hdr)->addr;
    struct pzu_sendx *s = pzu_send_find(fd, pzr_mad_tid(mad), pzr_mad_class(mad), addr);
    struct pzu_recvx *r = pzu_recv_find(fd, mad, addr, true);
    struct pzr_hdr h;

    pzr_hdr_get(mad, &h);
    if (s) {
        pzu_report("%s from the receiver (TID 0x%016llx, status %u): send dropped",
                   h.type == PZR_TYPE_STOP ? "STOP" : "ABORT", (unsigned long long)s->tid,
                   h.status);
        pzu_send_drop(s);
    }
    if (r && !r->r.complete) {
        pzu_report("%s from the sender (TID 0x%016llx, status %u): reassembly dropped",
                   h.type == PZR_TYPE_STOP ? "STOP" : "ABORT", (unsigned long long)r->tid,
                   h.status);
        pzu_recv_drop(r);
    }
}

/* Run the timers due at now: resend or give up late sends, end old reassemblies. */
static void pzu_service(int64_t now)
{
    struct pzu_sendx *s = pzu.sends, *snext;
    struct pzu_recvx *r = pzu.recvs, *rnext;

    for (; s; s = snext) {
        snext = s->next;
        if (now < s->deadline)
            continue;
        if (pzr_send_timeout(&s->s) == PZR_SEND_MORE) {
            s->deadline = now + s->ack_ms;
            pzu_send_window(s);
            continue;
        }
        pzu_report("no ACK after the retries (TID 0x%016llx, segment %u of %u): ABORT",
                   (unsigned long long)s->tid, s->s.last_ack, s->s.seg_count);
        pzu_send_abort(s, PZR_STATUS_TMR);
        pzu_send_drop(s);
    }
    for (; r; r = rnext) {
        rnext = r->next;
        if (now < r->deadline)
            continue;
        if (!r->r.complete) {
            pzu_report("reassembly not complete in %d s (TID 0x%016llx, %u segments): ABORT",
                       PZR_RECV_TIMEOUT_MS / 1000, (unsigned long long)r->tid, r->r.seg_num);
            pzu_reply(r->fd, r->hdr, r->r.buf, PZR_TYPE_ABORT, PZR_STATUS_T2L, 0, 0);
        }
        pzu_recv_drop(r);
    }
}

/* Milliseconds until the next timer after now, capped at PZU_SLICE_MS; returns them. */
static int pzu_next_timer_ms(int64_t now)
{
    int64_t next = now + PZU_SLICE_MS;

    for (struct pzu_sendx *s = pzu.sends; s; s = s->next)
        if (s->deadline < next)
            next = s->deadline;
    for (struct pzu_recvx *r = pzu.recvs; r; r = r->next)
        if (r->deadline < next)
            next = r->deadline;
    return next <= now ? 0 : (int)(next - now);
}

/* ---- the interposed entry points ---- */

/*
 * Remember agent id of fd, when the registration succeeded (id >= 0), with
 * its class and whether it asked for RMPP; returns id.
 */
static int pzu_registered(int fd, int id, int mgmt_class, uint8_t rmpp_version)
{
    if (id >= 0) {
        pthread_mutex_lock(&pzu.lock);
        pzu_agent_add(fd, id, mgmt_class, rmpp_version != 0);
        pthread_mutex_unlock(&pzu.lock);
    }
    return id;
}

/* umad_register(): libibumad's, remembering an RMPP agent; returns its value. */
int umad_register(int fd, int mgmt_class, int mgmt_version, uint8_t rmpp_version,
                  long method_mask[16 / sizeof(long)])
{
    PZU_REAL(int (*)(int, int, int, uint8_t, long *), "umad_register")

    if (!real)
        return -EPERM;
    return pzu_registered(fd, real(fd, mgmt_class, mgmt_version, rmpp_version, method_mask),
                          mgmt_class, rmpp_version);
}

/* umad_register_oui(): libibumad's, remembering an RMPP agent; returns its value. */
int umad_register_oui(int fd, int mgmt_class, uint8_t rmpp_version, uint8_t oui[3],
                      long method_mask[16 / sizeof(long)])
{
    PZU_REAL(int (*)(int, int, uint8_t, uint8_t *, long *), "umad_register_oui")

    if (!real)
        return -EPERM;
    return pzu_registered(fd, real(fd, mgmt_class, rmpp_version, oui, method_mask), mgmt_class,
                          rmpp_version);
}

/* umad_register2(): libibumad's, remembering an RMPP agent (unless the client runs RMPP
 * itself, UMAD_USER_RMPP); returns its value. */
int umad_register2(int port_fd, struct umad_reg_attr *attr, uint32_t *agent_id)
{
    PZU_REAL(int (*)(int, struct umad_reg_attr *, uint32_t *), "umad_register2")
    int rc;

    if (!real)
        return ENOSYS;
    rc = real(port_fd, attr, agent_id);
    if (rc == 0 && attr && agent_id) {
        pthread_mutex_lock(&pzu.lock);
        pzu_agent_add(port_fd, (int)*agent_id, attr->mgmt_class,
                      attr->rmpp_version != 0 && !(attr->flags & UMAD_USER_RMPP));
        pthread_mutex_unlock(&pzu.lock);
    }
    return rc;
}

/* umad_unregister(): forgets the agent, then libibumad's; returns its value. */
int umad_unregister(int fd, int agentid)
{
    PZU_REAL(int (*)(int, int), "umad_unregister")

    pthread_mutex_lock(&pzu.lock);
    pzu_agent_remove(fd, agentid);
    pthread_mutex_unlock(&pzu.lock);
    return real ? real(fd, agentid) : -EINVAL;
}

/* umad_close_port(): forgets fd's agents, transfers and kept MADs, then libibumad's; returns
 * its value. */
int umad_close_port(int fd)
{
    PZU_REAL(int (*)(int), "umad_close_port")
    struct pzu_pending *p;

    pthread_mutex_lock(&pzu.lock);
    pzu_agent_remove(fd, -1);
    for (struct pzu_sendx *s = pzu.sends, *n; s; s = n) {
        n = s->next;
        if (s->fd == fd)
            pzu_send_drop(s);
    }
    for (struct pzu_recvx *r = pzu.recvs, *n; r; r = n) {
        n = r->next;
        if (r->fd == fd)
            pzu_recv_drop(r);
    }
    while ((p = pzu_pending_take(fd)) != NULL)
        free(p);
    pthread_mutex_unlock(&pzu.lock);
    return real ? real(fd) : 0;
}

/* Whether a client's send of mad (len bytes) from agent of fd is an RMPP transfer to run. */
static bool pzu_send_is_rmpp(int fd, int agent, const uint8_t *mad, int len)
{
    struct pzr_hdr h;
    bool rmpp;

    if (len < PZR_RMPP_HDR_END || !pzr_class_is_rmpp(pzr_mad_class(mad)) ||
        (unsigned)len < pzr_data_offset(pzr_mad_class(mad)))
        return false;
    pzr_hdr_get(mad, &h);
    if (!(h.flags & PZR_FLAG_ACTIVE))
        return false;
    pthread_mutex_lock(&pzu.lock);
    rmpp = pzu_agent_rmpp(fd, agent, pzr_mad_class(mad)) == agent;
    pthread_mutex_unlock(&pzu.lock);
    return rmpp;
}

/* Start sending the RMPP MAD in umad (len MAD bytes); returns 0 or -EIO with errno. */
static int pzu_send_start(int fd, int agent, const void *umad, int len, int timeout_ms, int retries)
{
    struct pzu_sendx *x;
    int rc;

    if ((unsigned)len > PZU_MAX_LEN) {
        errno = EMSGSIZE;
        return -EIO;
    }
    x = calloc(1, sizeof(*x) + (size_t)len);
    if (!x) {
        errno = ENOMEM;
        return -EIO;
    }
    memcpy(x->hdr, umad, PZU_HDR);
    memcpy(x->mad, (const uint8_t *)umad + PZU_HDR, (size_t)len);
    x->fd = fd;
    x->agent = agent;
    x->tid = pzr_mad_tid(x->mad);
    x->mgmt_class = pzr_mad_class(x->mad);
    x->ack_ms =
        timeout_ms <= 0 || timeout_ms > PZR_ACK_TIMEOUT_MS ? PZR_ACK_TIMEOUT_MS : timeout_ms;
    pzr_send_init(&x->s, x->mad, (size_t)len, retries);

    pthread_mutex_lock(&pzu.lock);
    pzu_service(pzu_now_ms());
    if (pzu.n_sends >= PZU_MAX_SENDS) {
        pthread_mutex_unlock(&pzu.lock);
        free(x);
        errno = ENOBUFS;
        return -EIO;
    }
    x->next = pzu.sends;
    pzu.sends = x;
    pzu.n_sends++;
    x->deadline = pzu_now_ms() + x->ack_ms;
    rc = pzu_send_window(x);
    if (rc < 0)
        pzu_send_drop(x);
    pthread_mutex_unlock(&pzu.lock);
    return rc < 0 ? rc : 0;
}

/* umad_send(): an RMPP MAD of an RMPP agent is sent as a transfer, everything else by
 * libibumad; returns 0 or a negative errno value. */
int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
    struct ib_user_mad *u = umad;

    if (!umad || !pzu_send_is_rmpp(fd, agentid, (const uint8_t *)umad + PZU_HDR, length)) {
        int rc;

        pzu_timeout_begin(timeout_ms, retries); /* for pzfabric (pzumad_timeout.c) */
        rc = pzu_real_send(fd, agentid, umad, length, timeout_ms, retries);
        pzu_timeout_end();
        return rc;
    }
    u->agent_id = (uint32_t)agentid; /* as libibumad leaves it */
    u->timeout_ms = (uint32_t)timeout_ms;
    u->retries = (uint32_t)retries;
    return pzu_send_start(fd, agentid, umad, length, timeout_ms, retries);
}

/* Hand the completed MAD p to the client's buffer umad (*length MAD bytes); returns the
 * agent id, or -ENOSPC (*length set to the MAD's length, p kept). Frees p unless kept. */
static int pzu_deliver(struct pzu_pending *p, void *umad, int *length)
{
    const struct ib_user_mad *u = (const struct ib_user_mad *)p->umad;
    int agent = (int)u->agent_id;

    if (*length >= 0 && (size_t)*length >= p->len) {
        memcpy(umad, p->umad, PZU_HDR + p->len);
        *length = (int)p->len;
        free(p);
        return agent;
    }
    memcpy(umad, p->umad, PZU_HDR + (*length > 0 ? (size_t)*length : 0));
    *length = (int)p->len;
    pthread_mutex_lock(&pzu.lock);
    pzu_pending_add(p);
    pthread_mutex_unlock(&pzu.lock);
    errno = ENOSPC;
    return -ENOSPC;
}

/* Hand a plain MAD (buf: header + len bytes) to the client as umad2sim's read does: as much as
 * its buffer holds; returns agent. */
static int pzu_deliver_plain(const uint8_t *buf, int len, int agent, void *umad, int *length)
{
    int n = len < *length ? len : *length;

    if (n < 0)
        n = 0;
    memcpy(umad, buf, PZU_HDR + (size_t)n);
    *length = n;
    return agent;
}

/* pzu_process's value for a MAD the RMPP layer took (never an agent id nor an errno value). */
#define PZU_TAKEN INT_MIN

/* Process a MAD (buf: header + len bytes, agent from libibumad) received on fd: a plain MAD
 * or a completed one goes to the client (returns what umad_recv returns), RMPP traffic is
 * taken (returns PZU_TAKEN). */
static int pzu_process(int fd, const uint8_t *buf, int len, int agent, void *umad, int *length)
{
    const uint8_t *mad = buf + PZU_HDR;
    struct pzu_pending *done = NULL;
    enum pzr_kind kind = pzr_classify(mad, (size_t)len);

    if (kind == PZR_KIND_PLAIN)
        return pzu_deliver_plain(buf, len, agent, umad, length);
    pthread_mutex_lock(&pzu.lock);
    if (pzu_agent_rmpp(fd, agent, pzr_mad_class(mad)) < 0) {
        pthread_mutex_unlock(&pzu.lock);
        return pzu_deliver_plain(buf, len, agent, umad, length); /* not an RMPP agent's */
    }
    switch (kind) {
    case PZR_KIND_DATA:
        done = pzu_on_data(fd, buf, mad, (size_t)len);
        break;
    case PZR_KIND_ACK:
        pzu_on_ack(fd, buf, mad);
        break;
    case PZR_KIND_STOP:
    case PZR_KIND_ABORT:
        pzu_on_stop_abort(fd, buf, mad);
        break;
    case PZR_KIND_BAD_VERSION:
    case PZR_KIND_BAD_TYPE:
        pzu_report("RMPP %s (TID 0x%016llx): ABORT",
                   kind == PZR_KIND_BAD_TYPE ? "type unknown" : "version unsupported",
                   (unsigned long long)pzr_mad_tid(mad));
        pzu_reply(fd, buf, mad, PZR_TYPE_ABORT,
                  kind == PZR_KIND_BAD_TYPE ? PZR_STATUS_BADT : PZR_STATUS_UNV, 0, 0);
        break;
    case PZR_KIND_PLAIN:
        break;
    }
    pthread_mutex_unlock(&pzu.lock);
    return done ? pzu_deliver(done, umad, length) : PZU_TAKEN;
}

/* umad_recv(): on a descriptor with an RMPP agent, the next plain or completed MAD within
 * timeout_ms (RMPP traffic taken on the way); elsewhere libibumad's. Returns the agent id or a
 * negative errno value, as libibumad. */
int umad_recv(int fd, void *umad, int *length, int timeout_ms)
{
    int64_t start = pzu_now_ms();
    struct pzu_pending *kept;

    if (!umad || !length || !pzu_fd_rmpp(fd))
        return pzu_real_recv(fd, umad, length, timeout_ms);
    pthread_mutex_lock(&pzu.lock);
    kept = pzu_pending_take(fd);
    pthread_mutex_unlock(&pzu.lock);
    if (kept)
        return pzu_deliver(kept, umad, length);
    for (;;) {
        uint8_t buf[PZU_HDR + PZR_MAD_SIZE];
        int64_t now = pzu_now_ms();
        int len = PZR_MAD_SIZE, wait, rc;

        pthread_mutex_lock(&pzu.lock);
        pzu_service(now);
        wait = pzu_next_timer_ms(now);
        pthread_mutex_unlock(&pzu.lock);
        if (timeout_ms >= 0 && start + timeout_ms - now < wait)
            wait = start + timeout_ms - now < 0 ? 0 : (int)(start + timeout_ms - now);
        rc = pzu_real_recv(fd, buf, &len, wait);
        if (rc == -ETIMEDOUT || rc == -EWOULDBLOCK) {
            if (timeout_ms < 0 || pzu_now_ms() < start + timeout_ms)
                continue;
            rc = timeout_ms == 0 ? -EWOULDBLOCK : -ETIMEDOUT;
            errno = -rc;
            return rc;
        }
        if (rc < 0) {
            *length = len;
            return rc;
        }
        rc = pzu_process(fd, buf, len, rc, umad, length);
        if (rc != PZU_TAKEN)
            return rc;
    }
}

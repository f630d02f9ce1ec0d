/*
 * mad_io_board_rmpp.c - the receiving half of RMPP (IBA 1.2.1 13.6) for
 * mad_io over the board/sim connection.  Over umad the MAD layer reassembles
 * a multi-packet answer (the kernel on hardware, libpzumad2sim.so in
 * emulation) for an agent registered with rmpp_version 1; the board/sim
 * transport delivers the segments as the fabric carried them, so this file
 * does the kernel's part: ACK the segments (first, each window, last),
 * reassemble, answer bad or oversized transfers with ABORT or STOP.  The
 * protocol logic is mad/rmpp.c's (shared with libpzumad2sim.so); only the
 * transfers in progress and their addresses live here.  portzerod only
 * receives multi-packet MADs (its SA table answers), it sends none.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "mad_io_internal.h"
#include "rmpp.h"

#define MAD_IO_RMPP_SLOTS 8            /* transfers at once (SA queries in flight) */
#define MAD_IO_RMPP_MAX_LEN (8u << 20) /* the largest table taken whole */

/* One transfer being reassembled. */
struct mad_io_rmpp_slot {
    bool used;
    uint64_t tid;
    uint16_t slid;
    uint64_t deadline_ms;
    struct pzr_recv r;
};

struct mad_io_rmpp {
    struct mad_io_rmpp_slot slot[MAD_IO_RMPP_SLOTS];
};

/* Monotonic milliseconds. */
static uint64_t mad_io_rmpp_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

struct mad_io_rmpp *mad_io_rmpp_create(void)
{
    return calloc(1, sizeof(struct mad_io_rmpp));
}

/* Forget a transfer and what it held. */
static void mad_io_rmpp_drop(struct mad_io_rmpp_slot *s)
{
    pzr_recv_free(&s->r);
    memset(s, 0, sizeof(*s));
}

void mad_io_rmpp_destroy(struct mad_io_rmpp *r)
{
    if (!r)
        return;
    for (unsigned i = 0; i < MAD_IO_RMPP_SLOTS; i++)
        mad_io_rmpp_drop(&r->slot[i]);
    free(r);
}

bool mad_io_rmpp_wants(const uint8_t *mad)
{
    enum pzr_kind k = pzr_classify(mad, IB_MAD_SIZE);

    return k != PZR_KIND_PLAIN;
}

/* Send the ACK/STOP/ABORT that answers segment seg back to where it came from. */
static void mad_io_rmpp_reply(struct board_sim *bs, const uint8_t *seg, const struct mad_addr *from,
                              uint8_t type, uint8_t status, uint32_t seg_num, uint32_t newwin)
{
    uint8_t out[IB_MAD_SIZE];
    struct mad_addr to = {
        .dlid = from->slid, .dst_qp = from->src_qp, .sl = from->sl, .lid_routed = true};

    pzr_build_reply(out, seg, type, status, seg_num, newwin);
    mad_io_board_send(bs, out, &to);
}

/*
 * The slot of the transfer seg belongs to (TID and sender), a new one for a
 * first segment (stale transfers past their lifetime are dropped first), or
 * NULL.
 */
static struct mad_io_rmpp_slot *mad_io_rmpp_slot(struct mad_io_rmpp *r, const uint8_t *seg,
                                                 const struct mad_addr *from, bool *fresh)
{
    uint64_t tid = pzr_mad_tid(seg), now = mad_io_rmpp_now_ms();
    struct mad_io_rmpp_slot *free_slot = NULL;

    *fresh = false;
    for (unsigned i = 0; i < MAD_IO_RMPP_SLOTS; i++) {
        struct mad_io_rmpp_slot *s = &r->slot[i];

        if (s->used && now > s->deadline_ms)
            mad_io_rmpp_drop(s);
        if (s->used && s->tid == tid && s->slid == from->slid)
            return s;
        if (!s->used && !free_slot)
            free_slot = s;
    }
    if (!free_slot || !pzr_data_is_first(seg))
        return NULL;
    free_slot->used = true;
    free_slot->tid = tid;
    free_slot->slid = from->slid;
    free_slot->deadline_ms = now + PZR_RECV_TIMEOUT_MS;
    *fresh = true;
    return free_slot;
}

int mad_io_rmpp_take(struct mad_io_rmpp *r, struct board_sim *bs, const uint8_t *mad,
                     const struct mad_addr *from, uint8_t **whole, size_t *len)
{
    enum pzr_kind kind = pzr_classify(mad, IB_MAD_SIZE);
    struct mad_io_rmpp_slot *s;
    struct pzr_reply reply = {0};
    enum pzr_recv_verdict v;
    uint8_t bad;
    bool fresh;

    if (kind == PZR_KIND_BAD_VERSION || kind == PZR_KIND_BAD_TYPE) {
        mad_io_rmpp_reply(bs, mad, from, PZR_TYPE_ABORT,
                          kind == PZR_KIND_BAD_VERSION ? PZR_STATUS_UNV : PZR_STATUS_BADT, 0, 0);
        return 0;
    }
    if (kind != PZR_KIND_DATA)
        return 0; /* ACK/STOP/ABORT: this side sends no transfers */
    bad = pzr_data_check(mad, IB_MAD_SIZE);
    if (bad) {
        mad_io_rmpp_reply(bs, mad, from, PZR_TYPE_ABORT, bad, 0, 0);
        return 0;
    }
    s = mad_io_rmpp_slot(r, mad, from, &fresh);
    if (!s) {
        if (pzr_data_is_first(mad)) /* no room for another transfer */
            mad_io_rmpp_reply(bs, mad, from, PZR_TYPE_STOP, PZR_STATUS_RESX, 0, 0);
        return 0;
    }
    v = fresh ? pzr_recv_start(&s->r, mad, IB_MAD_SIZE, MAD_IO_RMPP_MAX_LEN, &reply)
              : pzr_recv_feed(&s->r, mad, IB_MAD_SIZE, &reply);
    switch (v) {
    case PZR_RECV_DROP:
        return 0;
    case PZR_RECV_ACK:
        mad_io_rmpp_reply(bs, mad, from, PZR_TYPE_ACK, 0, reply.seg_num, reply.newwin);
        return 0;
    case PZR_RECV_DONE:
        mad_io_rmpp_reply(bs, mad, from, PZR_TYPE_ACK, 0, reply.seg_num, reply.newwin);
        *whole = s->r.buf; /* the caller's now */
        *len = s->r.len;
        s->r.buf = NULL;
        mad_io_rmpp_drop(s);
        return 1;
    case PZR_RECV_STOP:
        mad_io_rmpp_reply(bs, mad, from, PZR_TYPE_STOP, PZR_STATUS_RESX, 0, 0);
        break;
    case PZR_RECV_ABORT:
        mad_io_rmpp_reply(bs, mad, from, PZR_TYPE_ABORT, reply.status, 0, 0);
        break;
    }
    mad_io_rmpp_drop(s);
    return 0;
}

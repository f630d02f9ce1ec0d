/*
 * board_mem.c - in-memory implementation of the board interface.
 */
#include "board_mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct board_mem_port {
    struct board_port_status st;
    struct board_port_config cfg;
    bool connected;
    uint16_t lid;
    uint8_t lmc;
    uint32_t link_downed;
    struct board_port_config peer; /* the far end's enables (board_mem_set_peer_enables) */
    /*
     * NULL until something counts on the port (reads as zeros): a CA's port
     * 0 and an uncabled port never do (1.6 kB each).
     */
    struct board_port_counters *counters;
    uint16_t *pkeys; /* pkey_cap entries */
    uint8_t *vlarb;  /* 4 blocks x 64 bytes, or NULL until the first Set (reads as zeros) */
};

/* One queued datagram. */
struct bm_dgram {
    struct board_dgram_addr a;
    size_t len;
    uint8_t payload[]; /* len bytes */
};

/*
 * A ring of BOARD_MEM_DGRAM_QUEUE datagrams; its slots are allocated with
 * the first datagram (a fabric's 700 boards have 9 queues each, nearly all
 * of them never used: 4.6 kB a board).
 */
struct bm_dgram_queue {
    struct bm_dgram **items; /* BOARD_MEM_DGRAM_QUEUE slots, or NULL */
    unsigned head;
    unsigned count;
};

/* A port-0 UD QP: its Q_Key and receive queue. */
struct bm_qp {
    bool open;
    uint32_t qkey;
    struct bm_dgram_queue rx;
};

struct board_mem {
    struct board board;
    struct board_identity id;
    struct board_ops ops;
    struct board_mem_port *ports; /* num_ports + 1 */
    /*
     * The forwarding tables hold only what was programmed: the LFT the
     * blocks up to the highest one set (or up to LinearFDBTop's block, so an
     * SM programming block by block grows it once), the MFT the blocks up to
     * the highest one set.  What lies beyond reads as an unprogrammed
     * table: LFT entries 0xFF, MFT masks 0.
     */
    uint8_t *lft; /* lft_blocks x 64 entries */
    unsigned lft_blocks;
    uint16_t lft_top;
    uint16_t *mft; /* mft_blocks x 32 entries x positions */
    unsigned mft_blocks;
    unsigned mft_positions;
    uint8_t *sl2vl; /* (n+1) x (n+1) x 16, or NULL until the first Set (reads as zeros) */
    bool manual_clock;
    uint64_t clock_ns;
    uint64_t status_gen; /* moves at every port change (bm_notify) */
    board_mem_port_hook hook;
    void *hook_arg;
    board_mem_counters_hook counters_hook;
    void *counters_hook_arg;
    struct bm_qp qps[BOARD_QP_MAX]; /* handle i has QP number BOARD_MEM_DGRAM_QPN + i */
    board_mem_dgram_hook dgram_hook;
    void *dgram_hook_arg;
    struct bm_dgram_queue dgram_tx;
    unsigned long dgram_overflows;
};

/* Number of ports including port 0. */
static unsigned bm_nports(const struct board_mem *bm)
{
    return (unsigned)bm->id.num_ports + 1;
}

/* Whether port is a valid index for this board. */
static bool bm_port_ok(const struct board_mem *bm, unsigned port)
{
    if (bm->id.node_type == BOARD_NODE_CA)
        return port >= 1 && port <= bm->id.num_ports;
    return port <= bm->id.num_ports;
}

/* Tell the hook, if any, that a port changed. */
static void bm_notify(struct board_mem *bm, unsigned port)
{
    bm->status_gen++; /* every change of a port's status ends here */
    if (bm->hook)
        bm->hook(bm->hook_arg, port);
}

/* Record that port p's link went down (the event the fabric and the SMA see). */
static void bm_note_link_down(struct board_mem_port *p)
{
    if (p->link_downed < UINT32_MAX)
        p->link_downed++;
}

/*
 * Record a link that failed on port p: the event, and LinkDownedCounter
 * ("the port training state machine failed link error recovery and downed
 * the link"), as when a cable is pulled or the peer leaves the link.  A
 * port taken down on command (PortState Down, PortPhysicalState Disabled)
 * has not failed: bm_note_link_down() only.
 */
static void bm_count_link_downed(struct board_mem *bm, struct board_mem_port *p)
{
    struct board_port_counters *c = board_mem_counters(bm, (unsigned)(p - bm->ports));

    bm_note_link_down(p);
    if (c)
        board_mem_counter_add(bm, &c->link_downed, 1);
}

/* The highest set bit of v (the fastest/widest mode both allow), or 0. */
static uint8_t bm_highest_bit(uint8_t v)
{
    uint8_t b = 0x80;

    while (b && !(v & b))
        b >>= 1;
    return b;
}

/* Train a port according to its cable and enable state. */
static void bm_retrain(struct board_mem *bm, unsigned port)
{
    struct board_mem_port *p = &bm->ports[port];
    bool was_up = p->st.port_state != BOARD_PORT_DOWN;

    if (p->st.phys_state == BOARD_PHYS_DISABLED) {
        p->st.port_state = BOARD_PORT_DOWN;
    } else if (p->connected) {
        p->st.phys_state = BOARD_PHYS_LINKUP;
        p->st.port_state = BOARD_PORT_INIT;
        /* The best mode both ends enable (the far end: anything until told). */
        p->st.width_active =
            bm_highest_bit(p->cfg.width_enabled & bm->id.width_supported & p->peer.width_enabled);
        p->st.speed_active =
            bm_highest_bit(p->cfg.speed_enabled & bm->id.speed_supported & p->peer.speed_enabled);
        p->st.speed_ext_active = bm_highest_bit(
            p->cfg.speed_ext_enabled & bm->id.speed_ext_supported & p->peer.speed_ext_enabled);
    } else {
        p->st.phys_state = BOARD_PHYS_POLLING;
        p->st.port_state = BOARD_PORT_DOWN;
    }
    if (was_up && p->st.port_state == BOARD_PORT_DOWN)
        bm_count_link_downed(bm, p);
}

static int bm_port_status(void *ctx, unsigned port, struct board_port_status *st)
{
    struct board_mem *bm = ctx;

    if (!bm_port_ok(bm, port))
        return -EINVAL;
    *st = bm->ports[port].st;
    st->link_down_events = bm->ports[port].link_downed;
    return 0;
}

/* The port status generation: moves with every bm_notify(). */
static uint64_t bm_port_status_gen(void *ctx)
{
    const struct board_mem *bm = ctx;

    return bm->status_gen;
}

static int bm_port_config_get(void *ctx, unsigned port, struct board_port_config *cfg)
{
    struct board_mem *bm = ctx;

    if (!bm_port_ok(bm, port))
        return -EINVAL;
    *cfg = bm->ports[port].cfg;
    return 0;
}

static int bm_port_config_set(void *ctx, unsigned port, const struct board_port_config *cfg)
{
    struct board_mem *bm = ctx;

    if (!bm_port_ok(bm, port))
        return -EINVAL;
    bm->ports[port].cfg = *cfg;
    return 0;
}

static int bm_port_state_set(void *ctx, unsigned port, enum board_port_state state)
{
    struct board_mem *bm = ctx;
    struct board_mem_port *p;

    if (!bm_port_ok(bm, port))
        return -EINVAL;
    p = &bm->ports[port];
    switch (state) {
    case BOARD_PORT_DOWN:
        /*
         * Down drops the link; a cabled, enabled port then retrains to Init.
         * On command: the link did not fail, LinkDownedCounter stays.
         */
        if (p->st.port_state != BOARD_PORT_DOWN)
            bm_note_link_down(p);
        p->st.port_state = BOARD_PORT_DOWN;
        /* Retraining applies the current width/speed enables. */
        if (p->connected && p->st.phys_state != BOARD_PHYS_DISABLED)
            bm_retrain(bm, port);
        break;
    case BOARD_PORT_ARMED:
    case BOARD_PORT_ACTIVE:
        if (p->st.port_state == BOARD_PORT_DOWN)
            return -EAGAIN;
        p->st.port_state = (uint8_t)state;
        break;
    default:
        return -EINVAL;
    }
    bm_notify(bm, port);
    return 0;
}

static int bm_phys_state_set(void *ctx, unsigned port, enum board_phys_state state)
{
    struct board_mem *bm = ctx;
    struct board_mem_port *p;

    if (!bm_port_ok(bm, port) || (port == 0 && bm->id.node_type == BOARD_NODE_SWITCH))
        return -EINVAL;
    p = &bm->ports[port];
    if (state == BOARD_PHYS_DISABLED) {
        if (p->st.port_state != BOARD_PORT_DOWN)
            bm_note_link_down(p); /* on command: LinkDownedCounter stays */
        p->st.phys_state = BOARD_PHYS_DISABLED;
        p->st.port_state = BOARD_PORT_DOWN;
    } else if (state == BOARD_PHYS_POLLING) {
        /*
         * Polling (re)starts link training: out of Disabled, and on a
         * trained link too, which goes down on command and retrains with
         * the current enables (ibportstate reset; qib does the same).
         */
        if (p->st.phys_state == BOARD_PHYS_DISABLED) {
            p->st.phys_state = BOARD_PHYS_POLLING;
        } else if (p->st.port_state != BOARD_PORT_DOWN) {
            bm_note_link_down(p); /* on command: LinkDownedCounter stays */
            p->st.port_state = BOARD_PORT_DOWN;
        }
        if (p->st.port_state == BOARD_PORT_DOWN)
            bm_retrain(bm, port);
    } else {
        return -EINVAL;
    }
    bm_notify(bm, port);
    return 0;
}

static int bm_lft_get(void *ctx, unsigned block, uint8_t *entries)
{
    struct board_mem *bm = ctx;

    if (((uint64_t)block + 1) * BOARD_LFT_BLOCK > bm->id.lft_cap)
        return -EINVAL;
    if (block >= bm->lft_blocks)
        memset(entries, BOARD_LFT_DROP, BOARD_LFT_BLOCK); /* never programmed */
    else
        memcpy(entries, bm->lft + (size_t)block * BOARD_LFT_BLOCK, BOARD_LFT_BLOCK);
    return 0;
}

/*
 * Make the LFT hold block: grow it to that block, or to LinearFDBTop's if
 * that is further (within LinearFDBCap).  Returns 0 or -ENOMEM.
 */
static int bm_lft_grow(struct board_mem *bm, unsigned block)
{
    unsigned want = block + 1, top = bm->lft_top / BOARD_LFT_BLOCK + 1;
    uint8_t *lft;

    if (block < bm->lft_blocks)
        return 0;
    if (top > want && (uint64_t)top * BOARD_LFT_BLOCK <= bm->id.lft_cap)
        want = top;
    lft = realloc(bm->lft, (size_t)want * BOARD_LFT_BLOCK);
    if (!lft)
        return -ENOMEM;
    memset(lft + (size_t)bm->lft_blocks * BOARD_LFT_BLOCK, BOARD_LFT_DROP,
           (size_t)(want - bm->lft_blocks) * BOARD_LFT_BLOCK);
    bm->lft = lft;
    bm->lft_blocks = want;
    return 0;
}

static int bm_lft_set(void *ctx, unsigned block, const uint8_t *entries)
{
    struct board_mem *bm = ctx;

    if (((uint64_t)block + 1) * BOARD_LFT_BLOCK > bm->id.lft_cap)
        return -EINVAL;
    if (bm_lft_grow(bm, block))
        return -ENOMEM;
    memcpy(bm->lft + (size_t)block * BOARD_LFT_BLOCK, entries, BOARD_LFT_BLOCK);
    return 0;
}

/* Index of the first MFT word of (block, position), or -1 if out of range. */
static long bm_mft_index(const struct board_mem *bm, unsigned block, unsigned position)
{
    if (((uint64_t)block + 1) * BOARD_MFT_BLOCK > bm->id.mft_cap || position >= bm->mft_positions)
        return -1;
    return ((long)block * BOARD_MFT_BLOCK) * bm->mft_positions + position;
}

static int bm_mft_get(void *ctx, unsigned block, unsigned position, uint16_t *masks)
{
    struct board_mem *bm = ctx;
    long base = bm_mft_index(bm, block, position);

    if (base < 0)
        return -EINVAL;
    if (block >= bm->mft_blocks) {
        memset(masks, 0, BOARD_MFT_BLOCK * sizeof(*masks)); /* never programmed */
        return 0;
    }
    for (unsigned i = 0; i < BOARD_MFT_BLOCK; i++)
        masks[i] = bm->mft[base + (long)i * bm->mft_positions];
    return 0;
}

/* Make the MFT hold block (all positions); returns 0 or -ENOMEM. */
static int bm_mft_grow(struct board_mem *bm, unsigned block)
{
    size_t per_block = (size_t)BOARD_MFT_BLOCK * bm->mft_positions;
    uint16_t *mft;

    if (block < bm->mft_blocks)
        return 0;
    mft = realloc(bm->mft, (size_t)(block + 1) * per_block * sizeof(*mft));
    if (!mft)
        return -ENOMEM;
    memset(mft + bm->mft_blocks * per_block, 0,
           (block + 1 - bm->mft_blocks) * per_block * sizeof(*mft));
    bm->mft = mft;
    bm->mft_blocks = block + 1;
    return 0;
}

static int bm_mft_set(void *ctx, unsigned block, unsigned position, const uint16_t *masks)
{
    struct board_mem *bm = ctx;
    long base = bm_mft_index(bm, block, position);

    if (base < 0)
        return -EINVAL;
    if (bm_mft_grow(bm, block))
        return -ENOMEM;
    for (unsigned i = 0; i < BOARD_MFT_BLOCK; i++)
        bm->mft[base + (long)i * bm->mft_positions] = masks[i];
    return 0;
}

/* The P_Key table size of port if block is within it, else -EINVAL. */
static int bm_pkey_block_cap(struct board_mem *bm, unsigned port, unsigned block)
{
    unsigned cap;

    if (!bm_port_ok(bm, port))
        return -EINVAL;
    cap = board_pkey_cap(&bm->board, port);
    return (uint64_t)block * BOARD_PKEY_BLOCK < cap ? (int)cap : -EINVAL;
}

static int bm_pkey_get(void *ctx, unsigned port, unsigned block, uint16_t *keys)
{
    struct board_mem *bm = ctx;
    int cap = bm_pkey_block_cap(bm, port, block);

    if (cap < 0)
        return cap;
    for (unsigned i = 0; i < BOARD_PKEY_BLOCK; i++) {
        unsigned idx = block * BOARD_PKEY_BLOCK + i;
        keys[i] = idx < (unsigned)cap ? bm->ports[port].pkeys[idx] : 0;
    }
    return 0;
}

static int bm_pkey_set(void *ctx, unsigned port, unsigned block, const uint16_t *keys)
{
    struct board_mem *bm = ctx;
    int cap = bm_pkey_block_cap(bm, port, block);

    if (cap < 0)
        return cap;
    for (unsigned i = 0; i < BOARD_PKEY_BLOCK; i++) {
        unsigned idx = block * BOARD_PKEY_BLOCK + i;
        if (idx < (unsigned)cap)
            bm->ports[port].pkeys[idx] = keys[i];
    }
    return 0;
}

/* Offset of the 16 VLs of (in, out) in the SL-to-VL table, or -1 if out of range. */
static long bm_sl2vl_offset(const struct board_mem *bm, unsigned in, unsigned out)
{
    unsigned n = bm_nports(bm);

    if (in >= n || out >= n)
        return -1;
    return ((long)in * n + out) * 16;
}

static int bm_sl2vl_get(void *ctx, unsigned in, unsigned out, uint8_t *vl)
{
    struct board_mem *bm = ctx;
    long at = bm_sl2vl_offset(bm, in, out);

    if (at < 0)
        return -EINVAL;
    if (bm->sl2vl)
        memcpy(vl, bm->sl2vl + at, 16);
    else
        memset(vl, 0, 16); /* never programmed: every SL to VL0 */
    return 0;
}

/*
 * The table is allocated with its first Set: (n+1)^2 x 16 bytes (22 kB on a
 * 36-port switch) that an SM without QoS never writes.
 */
static int bm_sl2vl_set(void *ctx, unsigned in, unsigned out, const uint8_t *vl)
{
    struct board_mem *bm = ctx;
    long at = bm_sl2vl_offset(bm, in, out);
    size_t n = bm_nports(bm);

    if (at < 0)
        return -EINVAL;
    if (!bm->sl2vl && !(bm->sl2vl = calloc(n * n, 16)))
        return -ENOMEM;
    memcpy(bm->sl2vl + at, vl, 16);
    return 0;
}

static int bm_vlarb_get(void *ctx, unsigned port, unsigned block, uint8_t *entries)
{
    struct board_mem *bm = ctx;

    if (port >= bm_nports(bm) || block > 3)
        return -EINVAL;
    if (bm->ports[port].vlarb)
        memcpy(entries, bm->ports[port].vlarb + block * 64, 64);
    else
        memset(entries, 0, 64); /* never programmed */
    return 0;
}

static int bm_vlarb_set(void *ctx, unsigned port, unsigned block, const uint8_t *entries)
{
    struct board_mem *bm = ctx;

    if (port >= bm_nports(bm) || block > 3)
        return -EINVAL;
    if (!bm->ports[port].vlarb && !(bm->ports[port].vlarb = calloc(4 * 64, 1)))
        return -ENOMEM;
    memcpy(bm->ports[port].vlarb + block * 64, entries, 64);
    return 0;
}

static int bm_set_lid(void *ctx, unsigned port, uint16_t lid, uint8_t lmc)
{
    struct board_mem *bm = ctx;

    if (port >= bm_nports(bm))
        return -EINVAL;
    bm->ports[port].lid = lid;
    bm->ports[port].lmc = lmc;
    return 0;
}

static int bm_set_lft_top(void *ctx, uint16_t top)
{
    struct board_mem *bm = ctx;

    bm->lft_top = top;
    return 0;
}

static uint64_t bm_now_ns(void *ctx)
{
    struct board_mem *bm = ctx;
    struct timespec ts;

    if (bm->manual_clock)
        return bm->clock_ns;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int bm_port_counters(void *ctx, unsigned port, struct board_port_counters *c)
{
    struct board_mem *bm = ctx;

    if (port >= bm_nports(bm))
        return -EINVAL;
    if (bm->counters_hook)
        bm->counters_hook(bm->counters_hook_arg, port); /* bring them up to date first */
    if (bm->ports[port].counters)
        *c = *bm->ports[port].counters;
    else
        memset(c, 0, sizeof(*c)); /* nothing counted yet */
    return 0;
}

/* Append a copy of a datagram to q; returns 0, -ENOBUFS (full) or -ENOMEM. */
static int bm_dgram_push(struct board_mem *bm, struct bm_dgram_queue *q,
                         const struct board_dgram_addr *a, const void *payload, size_t len)
{
    struct bm_dgram *d;

    if (q->count == BOARD_MEM_DGRAM_QUEUE) {
        bm->dgram_overflows++;
        return -ENOBUFS;
    }
    if (!q->items && !(q->items = calloc(BOARD_MEM_DGRAM_QUEUE, sizeof(*q->items))))
        return -ENOMEM;
    d = malloc(sizeof(*d) + len);
    if (!d)
        return -ENOMEM;
    d->a = *a;
    d->len = len;
    if (len)
        memcpy(d->payload, payload, len);
    q->items[(q->head + q->count) % BOARD_MEM_DGRAM_QUEUE] = d;
    q->count++;
    return 0;
}

/* Take the oldest datagram of q into a/buf; its length, -EAGAIN or -EMSGSIZE (dropped). */
static int bm_dgram_pop(struct bm_dgram_queue *q, struct board_dgram_addr *a, void *buf, size_t cap)
{
    struct bm_dgram *d;
    int rc;

    if (!q->count)
        return -EAGAIN;
    d = q->items[q->head];
    q->items[q->head] = NULL;
    q->head = (q->head + 1) % BOARD_MEM_DGRAM_QUEUE;
    q->count--;
    if (d->len > cap) {
        rc = -EMSGSIZE;
    } else {
        *a = d->a;
        if (d->len)
            memcpy(buf, d->payload, d->len);
        rc = (int)d->len;
    }
    free(d);
    return rc;
}

/* Free every datagram of q. */
static void bm_dgram_flush(struct bm_dgram_queue *q)
{
    while (q->count) {
        free(q->items[q->head]);
        q->head = (q->head + 1) % BOARD_MEM_DGRAM_QUEUE;
        q->count--;
    }
}

/* Free every datagram of q and its slots. */
static void bm_dgram_free(struct bm_dgram_queue *q)
{
    bm_dgram_flush(q);
    free(q->items);
    q->items = NULL;
}

/* QP handle qp if it is open, else NULL. */
static struct bm_qp *bm_qp_get(struct board_mem *bm, int qp)
{
    if (qp < 0 || qp >= BOARD_QP_MAX || !bm->qps[qp].open)
        return NULL;
    return &bm->qps[qp];
}

/* Open handle qp (free) with Q_Key qkey; returns qp. */
static int bm_qp_start(struct board_mem *bm, int qp, uint32_t qkey, uint32_t *qpn)
{
    bm->qps[qp].open = true;
    bm->qps[qp].qkey = qkey;
    if (qpn)
        *qpn = BOARD_MEM_DGRAM_QPN + (uint32_t)qp;
    return qp;
}

/* Open the lowest free QP handle; returns it or -ENOSPC. */
static int bm_qp_open(void *ctx, uint32_t qkey, uint32_t *qpn)
{
    struct board_mem *bm = ctx;

    for (int qp = 0; qp < BOARD_QP_MAX; qp++)
        if (!bm->qps[qp].open)
            return bm_qp_start(bm, qp, qkey, qpn);
    return -ENOSPC;
}

static int bm_qp_set_qkey(void *ctx, int qp, uint32_t qkey)
{
    struct bm_qp *q = bm_qp_get(ctx, qp);

    if (!q)
        return -EBADF;
    q->qkey = qkey;
    return 0;
}

/* Close a QP: what waits in its receive queue is dropped. */
static void bm_qp_close(void *ctx, int qp)
{
    struct bm_qp *q = bm_qp_get(ctx, qp);

    if (!q)
        return;
    bm_dgram_flush(&q->rx);
    q->open = false;
    q->qkey = 0;
}

/* Whether a send address is one the hardware would take (QP, SL, DLID, length). */
static bool bm_dgram_addr_ok(const struct board_dgram_addr *a, size_t len)
{
    return a && len <= BOARD_DGRAM_MAX_PAYLOAD && a->sl <= 15 && a->dst_qp > 1 &&
           a->dst_qp <= BOARD_DGRAM_MCAST_QPN && a->dlid != 0 && a->dlid != 0xFFFF;
}

static int bm_qp_send(void *ctx, int qp, const struct board_dgram_addr *a, const void *payload,
                      size_t len)
{
    struct board_mem *bm = ctx;
    struct bm_qp *q = bm_qp_get(bm, qp);
    struct board_dgram_addr sent;

    if (!q)
        return -EBADF;
    if (!bm_dgram_addr_ok(a, len) || (len && !payload))
        return -EINVAL;
    sent = *a;
    sent.src_qp = BOARD_MEM_DGRAM_QPN + (uint32_t)qp;
    sent.slid = bm->ports[bm->id.node_type == BOARD_NODE_CA ? 1 : 0].lid;
    if (sent.qkey & BOARD_DGRAM_QKEY_CONTROLLED)
        sent.qkey = q->qkey;
    if (bm->dgram_hook)
        return bm->dgram_hook(bm->dgram_hook_arg, &sent, payload, len);
    return bm_dgram_push(bm, &bm->dgram_tx, &sent, payload, len);
}

static int bm_qp_recv(void *ctx, int qp, struct board_dgram_addr *a, void *buf, size_t cap)
{
    struct bm_qp *q = bm_qp_get(ctx, qp);

    if (!q)
        return -EBADF;
    if (!a || (cap && !buf))
        return -EINVAL;
    return bm_dgram_pop(&q->rx, a, buf, cap);
}

static int bm_qp_fd(void *ctx, int qp)
{
    (void)ctx;
    (void)qp;
    return -1;
}

/* The single-QP interface: QP handle 0 (opened, or its Q_Key changed). */
static int bm_dgram_open(void *ctx, uint32_t qkey, uint32_t *qpn)
{
    struct board_mem *bm = ctx;

    bm_qp_start(bm, 0, qkey, qpn);
    return 0;
}

static int bm_dgram_send(void *ctx, const struct board_dgram_addr *a, const void *payload,
                         size_t len)
{
    int rc = bm_qp_send(ctx, 0, a, payload, len);

    return rc == -EBADF ? -ENOTCONN : rc;
}

static int bm_dgram_recv(void *ctx, struct board_dgram_addr *a, void *buf, size_t cap)
{
    struct board_mem *bm = ctx;

    if (!a || (cap && !buf))
        return -EINVAL;
    return bm_dgram_pop(&bm->qps[0].rx, a, buf, cap);
}

static int bm_dgram_fd(void *ctx)
{
    (void)ctx;
    return -1;
}

static const struct board_ops bm_ops = {
    .port_status = bm_port_status,
    .port_config_get = bm_port_config_get,
    .port_config_set = bm_port_config_set,
    .port_state_set = bm_port_state_set,
    .phys_state_set = bm_phys_state_set,
    .lft_get = bm_lft_get,
    .lft_set = bm_lft_set,
    .mft_get = bm_mft_get,
    .mft_set = bm_mft_set,
    .pkey_get = bm_pkey_get,
    .pkey_set = bm_pkey_set,
    .sl2vl_get = bm_sl2vl_get,
    .sl2vl_set = bm_sl2vl_set,
    .vlarb_get = bm_vlarb_get,
    .vlarb_set = bm_vlarb_set,
    .set_lid = bm_set_lid,
    .set_lft_top = bm_set_lft_top,
    .now_ns = bm_now_ns,
    .port_counters = bm_port_counters,
    .dgram_open = bm_dgram_open,
    .dgram_send = bm_dgram_send,
    .dgram_recv = bm_dgram_recv,
    .dgram_fd = bm_dgram_fd,
    .qp_open = bm_qp_open,
    .qp_set_qkey = bm_qp_set_qkey,
    .qp_send = bm_qp_send,
    .qp_recv = bm_qp_recv,
    .qp_fd = bm_qp_fd,
    .qp_close = bm_qp_close,
    .port_status_gen = bm_port_status_gen,
};

/*
 * The identity fields board_mem's switches and CAs share: zeroed, then the
 * GUIDs, vendor, revision, VL/MTU/VLArb capabilities, widths and speeds.
 */
static void bm_common_identity(struct board_identity *id, uint64_t node_guid, unsigned num_ports)
{
    memset(id, 0, sizeof(*id));
    id->node_guid = node_guid;
    id->system_image_guid = node_guid;
    id->num_ports = (uint8_t)num_ports;
    id->vendor_id = 0x0002c9;
    id->revision = 1;
    id->vl_cap = 4;
    id->mtu_cap = 5;
    id->vlarb_high_cap = 8;
    id->vlarb_low_cap = 8;
    id->width_supported = 3;
    id->speed_supported = 7;
    id->speed_ext_supported = 3;
    id->guid_cap = 1;
}

void board_mem_default_switch_identity(struct board_identity *id, uint64_t node_guid,
                                       unsigned num_ports)
{
    bm_common_identity(id, node_guid, num_ports);
    id->node_type = BOARD_NODE_SWITCH;
    id->port_guid[0] = node_guid;
    id->device_id = 0x7a70; /* outside OpenSM's Mellanox FDR10 device list */
    strncpy(id->node_desc, "portzero switch", sizeof(id->node_desc) - 1);
    id->lft_cap = 0xC000;
    id->mft_cap = 1024;
    id->partition_cap = 32;
    id->partition_enforcement_cap = 32;
    id->enhanced_port0 = false;
    id->optimized_sl2vl = true;
    id->enforcement_caps = true;
}

void board_mem_default_ca_identity(struct board_identity *id, uint64_t node_guid,
                                   unsigned num_ports)
{
    bm_common_identity(id, node_guid, num_ports);
    id->node_type = BOARD_NODE_CA;
    for (unsigned p = 1; p <= num_ports; p++)
        id->port_guid[p] = node_guid + p;
    id->device_id = 0x7a71;
    strncpy(id->node_desc, "portzero HCA", sizeof(id->node_desc) - 1);
    id->partition_cap = 64; /* no forwarding tables, no partition enforcement */
}

/* Set the power-on state of one port. */
static int bm_init_port(struct board_mem *bm, unsigned port)
{
    struct board_mem_port *p = &bm->ports[port];
    unsigned cap = board_pkey_cap(&bm->board, port);

    p->pkeys = calloc(cap ? cap : 1, sizeof(uint16_t));
    if (!p->pkeys)
        return -ENOMEM;
    if (cap)
        p->pkeys[0] = 0xFFFF; /* default partition, full member */
    p->cfg.width_enabled = bm->id.width_supported;
    p->cfg.speed_enabled = bm->id.speed_supported;
    p->cfg.speed_ext_enabled = bm->id.speed_ext_supported;
    p->peer.width_enabled = 0xFF;
    p->peer.speed_enabled = 0xFF;
    p->peer.speed_ext_enabled = 0xFF;
    p->cfg.link_down_default = BOARD_PHYS_POLLING;
    p->cfg.neighbor_mtu = bm->id.mtu_cap;
    p->cfg.oper_vls = 1;
    p->cfg.hoq_life = 0x10;
    p->cfg.vl_stall_count = 7;
    if (port == 0 && bm->id.node_type == BOARD_NODE_SWITCH) {
        /* The management port is always "up" towards the switch core. */
        p->st.phys_state = BOARD_PHYS_LINKUP;
        p->st.port_state = BOARD_PORT_ACTIVE;
        p->st.width_active = bm->id.port0_width ? bm->id.port0_width : 2;
        p->st.speed_active = bm->id.port0_speed ? bm->id.port0_speed : 1;
    } else {
        p->st.phys_state = BOARD_PHYS_POLLING;
        p->st.port_state = BOARD_PORT_DOWN;
    }
    return 0;
}

struct board_mem *board_mem_create(const struct board_identity *id)
{
    struct board_mem *bm;
    unsigned n;

    if (!id || id->num_ports == 0 || id->num_ports > BOARD_MAX_PORTS ||
        (id->node_type != BOARD_NODE_CA && id->node_type != BOARD_NODE_SWITCH) ||
        id->lft_cap % BOARD_LFT_BLOCK || id->mft_cap % BOARD_MFT_BLOCK)
        return NULL;
    bm = calloc(1, sizeof(*bm));
    if (!bm)
        return NULL;
    bm->id = *id;
    bm->ops = bm_ops;
    bm->board.id = &bm->id;
    bm->board.ops = &bm->ops;
    bm->board.ctx = bm;
    n = bm_nports(bm);
    bm->mft_positions = (n + 15) / 16;
    bm->ports = calloc(n, sizeof(*bm->ports));
    /* The LFT and MFT grow as they are programmed, the SL-to-VL table comes with its first Set. */
    if (!bm->ports)
        goto fail;
    for (unsigned p = 0; p < n; p++)
        if (bm_init_port(bm, p))
            goto fail;
    return bm;
fail:
    board_mem_destroy(bm);
    return NULL;
}

void board_mem_destroy(struct board_mem *bm)
{
    if (!bm)
        return;
    if (bm->ports) {
        for (unsigned p = 0; p < bm_nports(bm); p++) {
            free(bm->ports[p].pkeys);
            free(bm->ports[p].vlarb);
            free(bm->ports[p].counters);
        }
    }
    for (int qp = 0; qp < BOARD_QP_MAX; qp++)
        bm_dgram_free(&bm->qps[qp].rx);
    bm_dgram_free(&bm->dgram_tx);
    free(bm->ports);
    free(bm->lft);
    free(bm->mft);
    free(bm->sl2vl);
    free(bm);
}

struct board *board_mem_board(struct board_mem *bm)
{
    return &bm->board;
}

void board_mem_use_manual_clock(struct board_mem *bm, uint64_t start_ns)
{
    bm->manual_clock = true;
    bm->clock_ns = start_ns;
}

void board_mem_advance_ns(struct board_mem *bm, uint64_t delta_ns)
{
    bm->clock_ns += delta_ns;
}

void board_mem_set_connected(struct board_mem *bm, unsigned port, bool connected)
{
    if (port == 0 || port > bm->id.num_ports)
        return;
    if (bm->ports[port].connected == connected)
        return;
    bm->ports[port].connected = connected;
    bm_retrain(bm, port);
    bm_notify(bm, port);
}

void board_mem_set_peer_enables(struct board_mem *bm, unsigned port,
                                const struct board_port_config *peer)
{
    if (port == 0 || port > bm->id.num_ports)
        return;
    bm->ports[port].peer.width_enabled = peer->width_enabled;
    bm->ports[port].peer.speed_enabled = peer->speed_enabled;
    bm->ports[port].peer.speed_ext_enabled = peer->speed_ext_enabled;
}

void board_mem_set_untrained_modes(struct board_mem *bm, unsigned port, uint8_t width,
                                   uint8_t speed)
{
    struct board_mem_port *p;

    if (port == 0 || port > bm->id.num_ports)
        return;
    p = &bm->ports[port];
    if (p->st.phys_state == BOARD_PHYS_LINKUP || p->st.width_active || p->st.speed_active)
        return; /* it trained: a down link keeps its last modes */
    p->st.width_active = width;
    p->st.speed_active = speed;
}

bool board_mem_connected(const struct board_mem *bm, unsigned port)
{
    return port <= bm->id.num_ports && bm->ports[port].connected;
}

void board_mem_set_port_hook(struct board_mem *bm, board_mem_port_hook hook, void *arg)
{
    bm->hook = hook;
    bm->hook_arg = arg;
}

void board_mem_set_counters_hook(struct board_mem *bm, board_mem_counters_hook hook, void *arg)
{
    bm->counters_hook = hook;
    bm->counters_hook_arg = arg;
}

uint8_t board_mem_lft_entry(const struct board_mem *bm, uint16_t dlid)
{
    if (dlid >= bm->id.lft_cap || dlid > bm->lft_top || dlid / BOARD_LFT_BLOCK >= bm->lft_blocks)
        return BOARD_LFT_DROP;
    return bm->lft[dlid];
}

uint16_t board_mem_lft_top(const struct board_mem *bm)
{
    return bm->lft_top;
}

bool board_mem_mft_has_port(const struct board_mem *bm, uint16_t mlid, unsigned port)
{
    unsigned idx, pos;

    if (mlid < 0xC000 || (unsigned)(mlid - 0xC000) >= bm->id.mft_cap || port > bm->id.num_ports)
        return false;
    idx = mlid - 0xC000u;
    pos = port / 16;
    if (idx / BOARD_MFT_BLOCK >= bm->mft_blocks)
        return false; /* never programmed */
    return (bm->mft[(size_t)idx * bm->mft_positions + pos] >> (port % 16)) & 1;
}

uint16_t board_mem_lid(const struct board_mem *bm, unsigned port)
{
    return port <= bm->id.num_ports ? bm->ports[port].lid : 0;
}

uint8_t board_mem_lmc(const struct board_mem *bm, unsigned port)
{
    return port <= bm->id.num_ports ? bm->ports[port].lmc : 0;
}

uint32_t board_mem_link_downed(const struct board_mem *bm, unsigned port)
{
    return port <= bm->id.num_ports ? bm->ports[port].link_downed : 0;
}

struct board_port_counters *board_mem_counters(struct board_mem *bm, unsigned port)
{
    struct board_mem_port *p;

    if (port >= bm_nports(bm))
        return NULL;
    p = &bm->ports[port];
    if (!p->counters)
        p->counters = calloc(1, sizeof(*p->counters)); /* the port's first count */
    return p->counters;
}

int board_mem_xmit_counters(struct board_mem *bm, unsigned port, uint64_t *xmit_wait,
                            uint64_t *xmit_data)
{
    const struct board_port_counters *c;

    if (port >= bm_nports(bm))
        return -EINVAL;
    if (bm->counters_hook)
        bm->counters_hook(bm->counters_hook_arg, port); /* bring them up to date first */
    c = bm->ports[port].counters;
    *xmit_wait = c ? c->xmit_wait : 0;
    *xmit_data = c ? c->xmit_data : 0;
    return 0;
}

void board_mem_counter_add(const struct board_mem *bm, uint64_t *counter, uint64_t delta)
{
    unsigned bits = bm->id.counter_bits;

    *counter += delta;
    if (bits && bits < 64)
        *counter &= (UINT64_C(1) << bits) - 1;
}

void board_mem_set_dgram_hook(struct board_mem *bm, board_mem_dgram_hook hook, void *arg)
{
    bm->dgram_hook = hook;
    bm->dgram_hook_arg = arg;
}

bool board_mem_qp_info(const struct board_mem *bm, int qp, uint32_t *qpn, uint32_t *qkey)
{
    if (qp < 0 || qp >= BOARD_QP_MAX || !bm->qps[qp].open)
        return false;
    if (qpn)
        *qpn = BOARD_MEM_DGRAM_QPN + (uint32_t)qp;
    if (qkey)
        *qkey = bm->qps[qp].qkey;
    return true;
}

bool board_mem_dgram_is_open(const struct board_mem *bm, uint32_t *qpn, uint32_t *qkey)
{
    if (qpn)
        *qpn = BOARD_MEM_DGRAM_QPN;
    if (qkey)
        *qkey = bm->qps[0].qkey;
    return bm->qps[0].open;
}

int board_mem_qp_deliver(struct board_mem *bm, int qp, const struct board_dgram_addr *a,
                         const void *payload, size_t len)
{
    if (!a || len > BOARD_DGRAM_MAX_PAYLOAD || (len && !payload) || qp < 0 || qp >= BOARD_QP_MAX)
        return -EINVAL;
    if (!bm->qps[qp].open)
        return -ENOTCONN;
    return bm_dgram_push(bm, &bm->qps[qp].rx, a, payload, len);
}

int board_mem_dgram_deliver(struct board_mem *bm, const struct board_dgram_addr *a,
                            const void *payload, size_t len)
{
    return board_mem_qp_deliver(bm, 0, a, payload, len);
}

int board_mem_dgram_pop_sent(struct board_mem *bm, struct board_dgram_addr *a, void *buf,
                             size_t cap)
{
    return bm_dgram_pop(&bm->dgram_tx, a, buf, cap);
}

unsigned long board_mem_dgram_overflows(const struct board_mem *bm)
{
    return bm->dgram_overflows;
}

/*
 * fuzz_pma.c - libFuzzer target: random PMA and Congestion Control MADs over
 * random counter and agent state.
 *
 * The input is a small header that shapes the node (switch or CA, number of
 * ports, enhanced port 0, hardware counter width) followed by a stream of
 * operations: feed a MAD to the PMA or to the CC agent, bump a hardware
 * counter, advance the clock, run pma_poll(), log a congestion event, read
 * the 64-bit counters.  A congestion monitor reading the PMA is attached, so
 * its vendor attribute (0xFF30) is fuzzed too and polls sample it.  Every
 * answer is checked for basic sanity; ASan/UBSan and the leak checker catch
 * the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "board_mem.h"
#include "cc_agent.h"
#include "cong_monitor.h"
#include "fuzz_input.h"
#include "pma.h"

/* Operation codes of the input stream (low 3 bits of the op byte). */
enum fuzz_op {
    FUZZ_PMA_MAD = 0,
    FUZZ_CC_MAD = 1,
    FUZZ_COUNTER = 2,
    FUZZ_CLOCK = 3,
    FUZZ_POLL = 4,
    FUZZ_LOG = 5,
    FUZZ_READ64 = 6,
    FUZZ_PMA_MAD2 = 7,
};

/* The node under test. */
struct fuzz_node {
    struct board_identity id;
    struct board_mem *bm;
    struct pma *pma;
    struct cc_agent *cc;
    struct cong_monitor *mon;
};

/* Build the node's identity from the input header. */
static void fuzz_identity(struct fuzz_in *in, struct board_identity *id)
{
    fuzz_identity_base(in, id);
    id->counter_bits = (uint8_t)(fuzz_byte(in) % 65);
}

/* Header bit 2: cable every port, so the congestion monitor has links to sample. */
static void fuzz_cable(struct board_mem *bm, const struct board_identity *id, uint8_t shape)
{
    if (shape & 4)
        for (unsigned p = 1; p <= id->num_ports; p++)
            board_mem_set_connected(bm, p, true);
}

/* Check what an agent asked to transmit; abort (a fuzzer finding) if absurd. */
static void fuzz_check_send(const struct board_identity *id, const struct mad_addr *to,
                            const uint8_t *mad, const uint8_t *req, unsigned mgmt_class)
{
    if (to->port > id->num_ports || !to->lid_routed || to->qkey != IB_DEFAULT_QP1_QKEY)
        abort();
    if (mad_get_field((void *)mad, 0, IB_MAD_BASEVER_F) != 1 ||
        mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) != mgmt_class ||
        mad_get_field((void *)mad, 0, IB_MAD_METHOD_F) != IB_MAD_METHOD_GET ||
        !mad_get_field((void *)mad, 0, IB_MAD_RESPONSE_F))
        abort();
    if (memcmp(mad + 8, req + 8, 12) != 0) /* TID, AttributeID, AttributeModifier */
        abort();
}

/* Feed one MAD built from the input to the PMA (cc false) or the CC agent. */
static void fuzz_mad(struct fuzz_in *in, struct fuzz_node *f, bool cc)
{
    uint8_t mad[256] = {0}, out[256];
    struct mad_addr from = {0}, to;
    uint8_t hdr = fuzz_byte(in);
    unsigned mgmt_class = cc ? IB_CC_CLASS : IB_PERFORMANCE_CLASS;
    size_t n = in->left < sizeof(mad) ? in->left : sizeof(mad);
    size_t len = hdr & 0x80 ? n : sizeof(mad);

    memcpy(mad, in->p, n);
    in->p += n;
    in->left -= n;
    if (hdr & 1) {
        /* Mostly-valid header so the fuzzer reaches the attribute handlers. */
        mad[0] = 1;
        mad[1] = (uint8_t)mgmt_class;
        mad[2] = cc ? 2 : 1;
        mad[3] &= 0x7F;
        mad[16] = 0;
    }
    from.port = (uint8_t)((hdr >> 1) % (f->id.num_ports + 1));
    from.lid_routed = true;
    from.slid = (uint16_t)(mad[250] << 8 | mad[251]);
    from.src_qp = mad[252];
    if (cc) {
        if (cc_process(f->cc, &from, mad, len, &to, out) == MAD_SEND)
            fuzz_check_send(&f->id, &to, out, mad, mgmt_class);
    } else if (pma_process(f->pma, &from, mad, len, &to, out) == MAD_SEND) {
        fuzz_check_send(&f->id, &to, out, mad, mgmt_class);
    }
}

/* Bump one hardware counter of one port by an input-chosen amount. */
static void fuzz_counter(struct fuzz_in *in, struct fuzz_node *f)
{
    unsigned port = fuzz_byte(in) % (f->id.num_ports + 1);
    unsigned which = fuzz_byte(in) % (sizeof(struct board_port_counters) / sizeof(uint64_t));
    struct board_port_counters *c = board_mem_counters(f->bm, port);
    uint64_t delta = fuzz_u64(in);

    if (c)
        board_mem_counter_add(f->bm, (uint64_t *)c + which, delta);
}

/* Run one operation of the stream. */
static void fuzz_op(struct fuzz_in *in, struct fuzz_node *f, uint8_t op)
{
    struct pma_counters c64;

    switch (op & 7) {
    case FUZZ_PMA_MAD:
    case FUZZ_PMA_MAD2:
        fuzz_mad(in, f, false);
        break;
    case FUZZ_CC_MAD:
        fuzz_mad(in, f, true);
        break;
    case FUZZ_COUNTER:
        fuzz_counter(in, f);
        break;
    case FUZZ_CLOCK:
        board_mem_advance_ns(f->bm, (uint64_t)fuzz_byte(in) << (op >> 3));
        break;
    case FUZZ_POLL:
        pma_poll(f->pma);
        if (pma_next_deadline(f->pma) < board_now_ns(board_mem_board(f->bm)))
            abort(); /* poll leaves nothing overdue */
        if (f->mon) {
            struct cong_event ev;

            cong_monitor_poll(f->mon);
            while (cong_monitor_next_event(f->mon, &ev))
                if (ev.port < 1 || ev.port > f->id.num_ports || ev.from == ev.to)
                    abort();
        }
        break;
    case FUZZ_LOG:
        cc_log_event(f->cc, fuzz_byte(in), fuzz_byte(in), fuzz_byte(in), cc_timestamp(f->cc));
        cc_log_port_marked(f->cc, fuzz_byte(in));
        break;
    case FUZZ_READ64:
        pma_port_counters64(f->pma, fuzz_byte(in) % (f->id.num_ports + 2), &c64);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    struct fuzz_node f;
    unsigned ops = 0;

    fuzz_identity(&in, &f.id);
    f.bm = board_mem_create(&f.id);
    if (!f.bm)
        return 0;
    fuzz_cable(f.bm, &f.id, size ? data[0] : 0);
    board_mem_use_manual_clock(f.bm, 1);
    f.pma = pma_create(board_mem_board(f.bm));
    f.cc = cc_create(board_mem_board(f.bm));
    f.mon = f.pma ? cong_monitor_create(board_mem_board(f.bm), cong_monitor_read_pma, f.pma, NULL)
                  : NULL;
    if (f.mon) {
        pma_set_cong_monitor(f.pma, f.mon);
        cong_monitor_set_peer(f.mon, 1, CONG_PEER_CA);
    }
    if (f.pma && f.cc)
        while (in.left && ops++ < 64)
            fuzz_op(&in, &f, fuzz_byte(&in));
    cc_destroy(f.cc);
    pma_destroy(f.pma);
    cong_monitor_destroy(f.mon);
    board_mem_destroy(f.bm);
    return 0;
}

/*
 * fuzz_echo.c - libFuzzer target: datagrams from a hostile peer to the echo
 * service (traffic/pz_echo.c) on board_mem's in-memory datagram QP, mixed
 * with ping runs and clock steps.
 *
 * Input: records of a 1-byte op, a 2-byte big-endian length and that many
 * bytes (a short tail is one last record).  op & 3: 0 = deliver the bytes
 * as a datagram (op bit 2: with a GRH) and poll, 1 = start a ping run whose
 * count and length come from the first bytes, 2 = advance the clock, 3 =
 * feed the bytes to pz_echo_input directly.  Checked: every datagram the
 * service sends is an echo datagram of version 1, a reply has exactly the
 * length of the request it answers, and the counters add up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board_mem.h"
#include "pz_echo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define QKEY 0x505a0001u

/* Take everything the service sent and check it; abort on a bad one. */
static void drain_sent(struct board_mem *bm, size_t request_len, int expect_reply)
{
    static uint8_t buf[BOARD_DGRAM_MAX_PAYLOAD];
    struct board_dgram_addr a;
    struct pz_echo_hdr h;
    int n;

    while ((n = board_mem_dgram_pop_sent(bm, &a, buf, sizeof(buf))) >= 0) {
        if (pz_echo_decode(buf, (size_t)n, &h) != PZ_ECHO_OK || a.qkey != QKEY)
            abort();
        if (expect_reply && (h.type != PZ_ECHO_REPLY || (size_t)n != request_len))
            abort();
        if (!expect_reply && h.type != PZ_ECHO_REQUEST)
            abort();
    }
}

/* Deliver one datagram from a peer and let the service take it. */
static void deliver(struct board_mem *bm, struct pz_echo *e, uint8_t op, const uint8_t *p,
                    size_t len)
{
    struct board_dgram_addr a = {.dlid = 1,
                                 .slid = (uint16_t)(2 + op),
                                 .sl = (uint8_t)(op >> 4),
                                 .pkey = 0xFFFF,
                                 .src_qp = 0x100 + op,
                                 .dst_qp = BOARD_MEM_DGRAM_QPN,
                                 .qkey = QKEY,
                                 .has_grh = (op & 4) != 0};

    if (a.has_grh)
        memset(a.grh, op, sizeof(a.grh));
    if (board_mem_dgram_deliver(bm, &a, p, len))
        return;
    if (pz_echo_poll(e, 64) < 0)
        abort();
    drain_sent(bm, len, 1);
}

/* Start a ping run shaped by the record's bytes. */
static void ping(struct board_mem *bm, struct pz_echo *e, const uint8_t *p, size_t len)
{
    struct pz_echo_ping pg = {.dlid = 3, .dst_qp = 0x200, .pkey = 0xFFFF, .count = 1, .len = 20};

    if (len >= 1)
        pg.count = p[0] % 8; /* 0: refused */
    if (len >= 3)
        pg.len = (size_t)(p[1] << 8 | p[2]) % (BOARD_DGRAM_MAX_PAYLOAD + 2);
    if (pz_echo_ping_start(e, &pg, NULL, NULL) > (int)pg.count)
        abort();
    drain_sent(bm, 0, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct board_identity id;
    struct board_mem *bm;
    struct pz_echo *e;
    struct pz_echo_stats st;

    board_mem_default_switch_identity(&id, 0x1234, 4);
    bm = board_mem_create(&id);
    if (!bm)
        return 0;
    board_mem_use_manual_clock(bm, 1);
    board_dgram_open(board_mem_board(bm), QKEY, NULL);
    board_set_lid(board_mem_board(bm), 0, 1, 0);
    e = pz_echo_create(board_mem_board(bm), QKEY);
    while (e && size > 0) {
        uint8_t op = data[0];
        size_t len = size >= 3 ? (size_t)(data[1] << 8 | data[2]) : 0;
        const uint8_t *p = data + (size >= 3 ? 3 : size);
        size_t left = size - (size_t)(p - data);

        if (len > left)
            len = left;
        switch (op & 3) {
        case 0:
            deliver(bm, e, op, p, len);
            break;
        case 1:
            ping(bm, e, p, len);
            break;
        case 2:
            board_mem_advance_ns(bm, (uint64_t)op << 10);
            break;
        default:
            pz_echo_input(e, &(struct board_dgram_addr){.slid = 9, .src_qp = 0x300}, p, len);
            drain_sent(bm, len, 1);
            break;
        }
        data = p + len;
        size = left - len;
    }
    if (e) {
        pz_echo_stats(e, &st);
        if (st.requests + st.malformed + st.replies + st.stray_replies != st.received ||
            st.replies_sent + st.send_errors < st.requests)
            abort();
    }
    pz_echo_destroy(e);
    board_mem_destroy(bm);
    return 0;
}

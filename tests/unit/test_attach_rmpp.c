/*
 * test_attach_rmpp.c - RMPP's pure parts (mad/rmpp.c), the segmenting
 * and reassembly inside libpzumad2sim.so.
 *
 * The header offsets are checked against libibmad's fields; SA MADs are
 * cut into segments and checked against the Linux kernel's numbers
 * (PayloadLength seg_count * 220 - pad in the first segment, 220 - pad in
 * the last); a sender and a receiver are run against each other, window by
 * window, losslessly and with lost and duplicated segments and ACKs; every
 * error answer (BAD_SEG, BAD_STATUS, BAD_LEN, STOP RESX, W2S, S2B, retries
 * used up) is provoked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "rmpp.h"
#include "pzt_main.h"
#include "pzt_fields.h"
#include "pzt_same.h"

#define SA_HDR 56
#define SA_DATA 200

/* An SA GetTableResp of 56 + data_len bytes, data bytes numbered; returns it (free it). */
static uint8_t *sa_table(size_t data_len)
{
    uint8_t *mad = calloc(1, SA_HDR + data_len);

    assert_non_null(mad);
    PZT_SET_FIELDS(mad, {IB_MAD_CLASSVER_F, 2}, {IB_MAD_MGMTCLASS_F, IB_SA_CLASS},
                   {IB_MAD_BASEVER_F, 1}, {IB_MAD_METHOD_F, IB_MAD_METHOD_GET_TABLE});
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1); /* GetTableResp, 0x92 */
    mad_set_field64(mad, 0, IB_MAD_TRID_F, 0x1122334455667788ull);
    PZT_SET_FIELDS(mad, {IB_MAD_ATTRID_F, 0x11}, {IB_SA_RMPP_FLAGS_F, PZR_FLAG_ACTIVE},
                   {IB_SA_ATTROFFS_F, 108 / 8});
    for (size_t i = 0; i < data_len; i++)
        mad[SA_HDR + i] = (uint8_t)(i * 7 + i / 251);
    return mad;
}

/* An SA table of segs full segments and its sender s (window win); returns the table (free it). */
static uint8_t *sa_sender(struct pzr_send *s, size_t segs, unsigned win)
{
    uint8_t *mad = sa_table(segs * SA_DATA);

    pzr_send_init(s, mad, SA_HDR + segs * SA_DATA, win);
    return mad;
}

/* Segment 1 of s into seg, and the receiver r started on it: it must be ACKed. */
static void recv_first(struct pzr_send *s, struct pzr_recv *r, uint8_t *seg,
                       struct pzr_reply *reply)
{
    pzr_send_segment(s, 1, seg);
    assert_int_equal(pzr_recv_start(r, seg, PZR_MAD_SIZE, 1u << 20, reply), PZR_RECV_ACK);
}

/* The header fields sit where libibmad has them. */
static void test_header_matches_libibmad(void **state)
{
    uint8_t mad[PZR_MAD_SIZE] = {0};
    struct pzr_hdr h = {.version = 1,
                        .type = PZR_TYPE_ACK,
                        .flags = PZR_FLAG_ACTIVE | PZR_FLAG_LAST,
                        .rtime = 0x1f,
                        .status = 121,
                        .seg_num = 0x01020304,
                        .paylen_newwin = 0xa0b0c0d0};
    struct pzr_hdr back;

    PZT_SET_FIELDS(mad, {IB_MAD_MGMTCLASS_F, IB_SA_CLASS}, {IB_MAD_METHOD_F, 0x12},
                   {IB_MAD_RESPONSE_F, 1});
    mad_set_field64(mad, 0, IB_MAD_TRID_F, 0xfedcba9876543210ull);
    pzr_hdr_put(mad, &h);
    assert_int_equal(pzr_mad_class(mad), IB_SA_CLASS);
    assert_int_equal(pzr_mad_method(mad), 0x92);
    assert_true(pzr_mad_tid(mad) == 0xfedcba9876543210ull);
    PZT_EXPECT_FIELDS(mad, {IB_SA_RMPP_VERS_F, 1}, {IB_SA_RMPP_TYPE_F, PZR_TYPE_ACK},
                      {IB_SA_RMPP_FLAGS_F, PZR_FLAG_ACTIVE | PZR_FLAG_LAST},
                      {IB_SA_RMPP_RESP_F, 0x1f}, {IB_SA_RMPP_STATUS_F, 121},
                      {IB_SA_RMPP_D1_F, 0x01020304}, {IB_SA_RMPP_D2_F, 0xa0b0c0d0});
    pzr_hdr_get(mad, &back);
    PZT_EXPECT_SAME(back, h, version, type, flags, rtime, status, seg_num, paylen_newwin);
}

/* Classes and their data offsets as Linux's ib_is_mad_class_rmpp / ib_get_mad_data_offset. */
static void test_classes(void **state)
{
    assert_true(pzr_class_is_rmpp(0x03));
    assert_true(pzr_class_is_rmpp(0x06));
    assert_true(pzr_class_is_rmpp(0x10));
    assert_true(pzr_class_is_rmpp(0x12));
    assert_true(pzr_class_is_rmpp(0x30));
    assert_true(pzr_class_is_rmpp(0x4f));
    assert_false(pzr_class_is_rmpp(0x01));
    assert_false(pzr_class_is_rmpp(0x04));
    assert_false(pzr_class_is_rmpp(0x81));
    assert_false(pzr_class_is_rmpp(0x50));
    assert_int_equal(pzr_data_offset(0x03), 56);
    assert_int_equal(pzr_data_offset(0x06), 64);
    assert_int_equal(pzr_data_offset(0x40), 40);
    assert_int_equal(pzr_data_offset(0x04), 24);
}

/* What a received MAD is. */
static void test_classify(void **state)
{
    uint8_t mad[PZR_MAD_SIZE] = {0};
    struct pzr_hdr h = {.version = 1, .type = PZR_TYPE_DATA, .flags = PZR_FLAG_ACTIVE};

    mad[1] = IB_SA_CLASS;
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_PLAIN); /* not active */
    pzr_hdr_put(mad, &h);
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_DATA);
    assert_int_equal(pzr_classify(mad, 40), PZR_KIND_PLAIN); /* shorter than the SA header */
    h.type = PZR_TYPE_ACK;
    pzr_hdr_put(mad, &h);
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_ACK);
    h.type = PZR_TYPE_STOP;
    pzr_hdr_put(mad, &h);
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_STOP);
    h.type = PZR_TYPE_ABORT;
    pzr_hdr_put(mad, &h);
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_ABORT);
    h.type = 9;
    pzr_hdr_put(mad, &h);
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_BAD_TYPE);
    h.version = 2;
    pzr_hdr_put(mad, &h);
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_BAD_VERSION);
    mad[1] = 0x04; /* PerfMgt: no RMPP, whatever the bytes say */
    assert_int_equal(pzr_classify(mad, sizeof(mad)), PZR_KIND_PLAIN);
}

/* Segment count, padding and PayloadLength as the kernel computes them. */
static void test_segmenting_numbers(void **state)
{
    static const struct {
        size_t data_len;
        uint32_t segs, pad, first_paylen, last_paylen;
    } rows[] = {
        {0, 1, 200, 20, 20},          /* no records: one segment, the SA header only */
        {108, 1, 92, 128, 128},       /* one NodeRecord */
        {200, 1, 0, 220, 220},        /* exactly one segment */
        {201, 2, 199, 241, 21},       /* one byte into the second */
        {1000, 5, 0, 1100, 220},      /* exactly five */
        {75816, 380, 184, 83416, 36}, /* 702 NodeRecords of 108 bytes */
    };

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        uint8_t *mad = sa_table(rows[i].data_len);
        uint8_t seg[PZR_MAD_SIZE];
        struct pzr_send s;
        struct pzr_hdr h;

        assert_int_equal(pzr_send_init(&s, mad, SA_HDR + rows[i].data_len, 3), rows[i].segs);
        assert_int_equal(s.pad, rows[i].pad);
        pzr_send_segment(&s, 1, seg);
        pzr_hdr_get(seg, &h);
        assert_int_equal(h.version, 1);
        assert_int_equal(h.type, PZR_TYPE_DATA);
        assert_int_equal(h.seg_num, 1);
        assert_true(h.flags & PZR_FLAG_FIRST);
        assert_int_equal(!!(h.flags & PZR_FLAG_LAST), rows[i].segs == 1);
        assert_int_equal(h.paylen_newwin, rows[i].first_paylen);
        pzr_send_segment(&s, rows[i].segs, seg);
        pzr_hdr_get(seg, &h);
        assert_true(h.flags & PZR_FLAG_LAST);
        assert_int_equal(h.paylen_newwin, rows[i].last_paylen);
        free(mad);
    }
}

/* Every segment carries the MAD and SA headers and its slice of the data, zero padded. */
static void test_segment_contents(void **state)
{
    size_t data_len = 3 * SA_DATA + 17;
    uint8_t *mad = sa_table(data_len);
    uint8_t seg[PZR_MAD_SIZE];
    struct pzr_send s;

    assert_int_equal(pzr_send_init(&s, mad, SA_HDR + data_len, 0), 4);
    for (uint32_t n = 1; n <= 4; n++) {
        size_t off = SA_HDR + (n - 1) * SA_DATA;
        size_t len = n < 4 ? SA_DATA : 17;

        pzr_send_segment(&s, n, seg);
        assert_memory_equal(seg, mad, 24);           /* MAD header */
        assert_memory_equal(seg + 36, mad + 36, 20); /* SA header */
        assert_int_equal(mad_get_field(seg, 0, IB_SA_RMPP_D1_F), n);
        assert_int_equal(mad_get_field(seg, 0, IB_SA_RMPP_FLAGS_F) & PZR_FLAG_ACTIVE, 1);
        assert_memory_equal(seg + SA_HDR, mad + off, len);
        for (size_t i = SA_HDR + len; i < PZR_MAD_SIZE; i++)
            assert_int_equal(seg[i], 0);
        if (n > 1 && n < 4)
            assert_int_equal(mad_get_field(seg, 0, IB_SA_RMPP_D2_F), 0);
    }
    free(mad);
}

/* A link between a sender and a receiver: what is lost, what is counted. */
struct link {
    uint32_t drop_seg;     /* lose this DATA segment once (0: none) */
    uint32_t dup_seg;      /* deliver this one twice */
    uint32_t drop_ack_seg; /* lose the ACK of this segment once */
    unsigned acks, segments, timeouts;
};

/* Run s against a fresh receiver over l until the message is acknowledged; returns the
 * receiver (complete, its buffer to free). */
static struct pzr_recv run_transfer(struct pzr_send *s, struct link *l)
{
    struct pzr_recv r;
    bool started = false;
    bool done = false;

    memset(&r, 0, sizeof(r));
    for (int rounds = 0; !done; rounds++) {
        uint8_t seg[PZR_MAD_SIZE];
        uint32_t n;
        bool acked = false;

        assert_true(rounds < 1000);
        while (!done && (n = pzr_send_next(s)) != 0) {
            struct pzr_reply reply;
            enum pzr_recv_verdict v;
            int copies = n == l->dup_seg ? 2 : 1;

            pzr_send_segment(s, n, seg);
            l->segments++;
            if (n == l->drop_seg) {
                l->drop_seg = 0;
                continue;
            }
            if (n == l->dup_seg)
                l->dup_seg = 0;
            for (int c = 0; c < copies; c++) {
                assert_int_equal(pzr_data_check(seg, sizeof(seg)), 0);
                if (!started) {
                    assert_true(pzr_data_is_first(seg));
                    v = pzr_recv_start(&r, seg, sizeof(seg), 1u << 20, &reply);
                    started = true;
                } else {
                    v = pzr_recv_feed(&r, seg, sizeof(seg), &reply);
                }
                assert_true(v == PZR_RECV_DROP || v == PZR_RECV_ACK || v == PZR_RECV_DONE);
                if (v == PZR_RECV_DROP)
                    continue;
                l->acks++;
                if (reply.seg_num == l->drop_ack_seg) {
                    l->drop_ack_seg = 0;
                    continue;
                }
                uint8_t st = 0;
                enum pzr_send_verdict sv = pzr_send_ack(s, reply.seg_num, reply.newwin, 0, &st);

                assert_true(sv == PZR_SEND_MORE || sv == PZR_SEND_DONE || sv == PZR_SEND_IGNORE);
                acked = true;
                if (sv == PZR_SEND_DONE)
                    done = true;
            }
        }
        if (!done && !acked) {
            l->timeouts++;
            assert_int_equal(pzr_send_timeout(s), PZR_SEND_MORE);
        }
    }
    assert_true(r.complete);
    return r;
}

/* A 380-segment table goes through whole: the first segment's headers, all data. */
static void test_round_trip(void **state)
{
    size_t data_len = 702 * 108;
    uint8_t *mad = sa_table(data_len);
    struct link l = {0};
    struct pzr_send s;
    struct pzr_recv r;

    assert_int_equal(pzr_send_init(&s, mad, SA_HDR + data_len, 0), 380);
    r = run_transfer(&s, &l);
    assert_int_equal(r.len, SA_HDR + data_len);
    assert_memory_equal(r.buf + 36 + 20, mad + 56, data_len);
    assert_memory_equal(r.buf, mad, 24);
    assert_int_equal(mad_get_field(r.buf, 0, IB_SA_RMPP_D1_F), 1);
    assert_int_equal(l.segments, 380);
    assert_int_equal(l.timeouts, 0);
    /* ACKs: the first segment, each window's last (65, 129, ..., 321), the message's last */
    assert_int_equal(l.acks, 1 + 5 + 1);
    pzr_recv_free(&r);
    free(mad);
}

/* A lost segment, a duplicate, a lost ACK: resent after a timeout, reassembled exactly. */
static void test_loss_and_duplicates(void **state)
{
    size_t data_len = 150 * SA_DATA - 3;
    uint8_t *mad = sa_table(data_len);
    struct link lost = {.drop_seg = 70};
    struct link dup = {.dup_seg = 3};
    struct link lost_ack = {.drop_ack_seg = 65};
    struct link lost_last_ack = {.drop_ack_seg = 150};
    struct link *links[] = {&lost, &dup, &lost_ack, &lost_last_ack};

    for (size_t i = 0; i < 4; i++) {
        struct pzr_send s;
        struct pzr_recv r;

        assert_int_equal(pzr_send_init(&s, mad, SA_HDR + data_len, 2), 150);
        r = run_transfer(&s, links[i]);
        assert_int_equal(r.len, SA_HDR + data_len);
        assert_memory_equal(r.buf + SA_HDR, mad + SA_HDR, data_len);
        pzr_recv_free(&r);
    }
    assert_int_equal(lost.timeouts, 1);
    assert_int_equal(dup.timeouts, 0);
    assert_int_equal(lost_ack.timeouts, 1);
    assert_int_equal(lost_last_ack.timeouts, 1);
    free(mad);
}

/* After completion a duplicate is re-ACKed; a segment out of order or beyond the window is
 * dropped. */
static void test_receiver_window(void **state)
{
    struct pzr_send s;
    uint8_t seg[PZR_MAD_SIZE];
    struct pzr_reply reply;
    struct pzr_recv r;
    uint8_t *mad = sa_sender(&s, 100, 0);

    recv_first(&s, &r, seg, &reply);
    assert_int_equal(reply.seg_num, 1);
    assert_int_equal(reply.newwin, 1 + PZR_WINDOW);
    pzr_send_segment(&s, 3, seg); /* 2 missing */
    assert_int_equal(pzr_recv_feed(&r, seg, sizeof(seg), &reply), PZR_RECV_DROP);
    pzr_send_segment(&s, 80, seg); /* beyond the window */
    assert_int_equal(pzr_recv_feed(&r, seg, sizeof(seg), &reply), PZR_RECV_DROP);
    pzr_send_segment(&s, 2, seg);
    assert_int_equal(pzr_recv_feed(&r, seg, sizeof(seg), &reply), PZR_RECV_DROP);
    assert_int_equal(pzr_recv_feed(&r, seg, sizeof(seg), &reply), PZR_RECV_ACK); /* dup */
    assert_int_equal(reply.seg_num, 2);
    assert_int_equal(reply.newwin, 1 + PZR_WINDOW);
    pzr_recv_free(&r);
    free(mad);
}

/* DATA segments that get an ABORT: status set, first without First, First on another. */
static void test_data_check(void **state)
{
    struct pzr_send s;
    uint8_t seg[PZR_MAD_SIZE];
    uint8_t *mad = sa_sender(&s, 3, 0);

    pzr_send_segment(&s, 1, seg);
    assert_int_equal(pzr_data_check(seg, sizeof(seg)), 0);
    assert_int_equal(pzr_data_check(seg, 40), PZR_STATUS_BAD_LEN);
    mad_set_field(seg, 0, IB_SA_RMPP_STATUS_F, 5);
    assert_int_equal(pzr_data_check(seg, sizeof(seg)), PZR_STATUS_BAD_STATUS);
    pzr_send_segment(&s, 1, seg);
    mad_set_field(seg, 0, IB_SA_RMPP_FLAGS_F, PZR_FLAG_ACTIVE);
    assert_int_equal(pzr_data_check(seg, sizeof(seg)), PZR_STATUS_BAD_SEG);
    pzr_send_segment(&s, 2, seg);
    mad_set_field(seg, 0, IB_SA_RMPP_FLAGS_F, PZR_FLAG_ACTIVE | PZR_FLAG_FIRST);
    assert_int_equal(pzr_data_check(seg, sizeof(seg)), PZR_STATUS_BAD_SEG);
    mad_set_field(seg, 0, IB_SA_RMPP_D1_F, 0);
    mad_set_field(seg, 0, IB_SA_RMPP_FLAGS_F, PZR_FLAG_ACTIVE);
    assert_int_equal(pzr_data_check(seg, sizeof(seg)), PZR_STATUS_BAD_SEG);
    free(mad);
}

/* A last segment whose PayloadLength cannot be: ABORT BAD_LEN; too long to hold: STOP. */
static void test_bad_length_and_too_long(void **state)
{
    struct pzr_send s;
    uint8_t seg[PZR_MAD_SIZE];
    struct pzr_reply reply;
    struct pzr_recv r;
    uint8_t *mad = sa_sender(&s, 2, 0);

    recv_first(&s, &r, seg, &reply);
    pzr_send_segment(&s, 2, seg);
    mad_set_field(seg, 0, IB_SA_RMPP_D2_F, 221); /* more than a segment holds */
    assert_int_equal(pzr_recv_feed(&r, seg, sizeof(seg), &reply), PZR_RECV_ABORT);
    assert_int_equal(reply.status, PZR_STATUS_BAD_LEN);
    pzr_recv_free(&r);

    recv_first(&s, &r, seg, &reply);
    pzr_send_segment(&s, 2, seg);
    mad_set_field(seg, 0, IB_SA_RMPP_D2_F, 19); /* less than the SA header */
    assert_int_equal(pzr_recv_feed(&r, seg, sizeof(seg), &reply), PZR_RECV_ABORT);
    pzr_recv_free(&r);

    pzr_send_segment(&s, 1, seg); /* announces 440 bytes */
    assert_int_equal(pzr_recv_start(&r, seg, sizeof(seg), 300, &reply), PZR_RECV_STOP);
    assert_int_equal(reply.status, PZR_STATUS_RESX);
    pzr_recv_free(&r);
    mad_set_field(seg, 0, IB_SA_RMPP_D2_F, 0); /* unannounced: stopped when it grows */
    assert_int_equal(pzr_recv_start(&r, seg, sizeof(seg), 300, &reply), PZR_RECV_ACK);
    pzr_send_segment(&s, 2, seg);
    assert_int_equal(pzr_recv_feed(&r, seg, sizeof(seg), &reply), PZR_RECV_STOP);
    pzr_recv_free(&r);
    free(mad);
}

/* ACKs the sender refuses, ignores, and retries running out. */
static void test_sender_acks(void **state)
{
    struct pzr_send s;
    uint8_t st = 0;
    uint8_t *mad = sa_sender(&s, 10, 1);

    assert_int_equal(pzr_send_next(&s), 1);
    assert_int_equal(pzr_send_next(&s), 0); /* window of one until the first ACK */
    assert_int_equal(pzr_send_ack(&s, 1, 0, 0, &st), PZR_SEND_ABORT);
    assert_int_equal(st, PZR_STATUS_W2S);
    assert_int_equal(pzr_send_ack(&s, 2, 5, 0, &st), PZR_SEND_ABORT);
    assert_int_equal(st, PZR_STATUS_S2B);
    assert_int_equal(pzr_send_ack(&s, 1, 4, 7, &st), PZR_SEND_ABORT);
    assert_int_equal(st, PZR_STATUS_BAD_STATUS);
    assert_int_equal(pzr_send_ack(&s, 1, 4, 0, &st), PZR_SEND_MORE);
    assert_int_equal(pzr_send_next(&s), 2);
    assert_int_equal(pzr_send_next(&s), 3);
    assert_int_equal(pzr_send_next(&s), 4);
    assert_int_equal(pzr_send_next(&s), 0);
    assert_int_equal(pzr_send_ack(&s, 1, 3, 0, &st), PZR_SEND_IGNORE); /* old window */
    assert_int_equal(pzr_send_timeout(&s), PZR_SEND_MORE);
    assert_int_equal(pzr_send_next(&s), 2); /* resent from the last ACK */
    assert_int_equal(pzr_send_timeout(&s), PZR_SEND_GIVE_UP);
    assert_int_equal(pzr_send_ack(&s, 10, 20, 0, &st), PZR_SEND_ABORT); /* beyond window 4 */
    free(mad);
}

/* The ACK and ABORT answering a segment: its headers, the response bit flipped. */
static void test_reply(void **state)
{
    struct pzr_send s;
    uint8_t seg[PZR_MAD_SIZE], out[PZR_MAD_SIZE], abort[PZR_MAD_SIZE];
    struct pzr_hdr h;
    uint8_t *mad = sa_sender(&s, 1, 0);

    pzr_send_segment(&s, 1, seg);
    pzr_build_reply(out, seg, PZR_TYPE_ACK, 0, 1, 65);
    assert_int_equal(pzr_mad_method(out), IB_MAD_METHOD_GET_TABLE);
    assert_true(pzr_mad_tid(out) == 0x1122334455667788ull);
    assert_memory_equal(out + 36, seg + 36, 20);
    pzr_hdr_get(out, &h);
    assert_int_equal(h.type, PZR_TYPE_ACK);
    assert_int_equal(h.flags, PZR_FLAG_ACTIVE);
    assert_int_equal(h.seg_num, 1);
    assert_int_equal(h.paylen_newwin, 65);
    assert_int_equal(pzr_classify(out, sizeof(out)), PZR_KIND_ACK);
    for (size_t i = SA_HDR; i < PZR_MAD_SIZE; i++)
        assert_int_equal(out[i], 0);
    pzr_build_reply(abort, out, PZR_TYPE_ABORT, PZR_STATUS_TMR, 0, 0);
    assert_int_equal(pzr_mad_method(abort), IB_MAD_METHOD_GET_TABLE | 0x80);
    assert_int_equal(pzr_classify(abort, sizeof(abort)), PZR_KIND_ABORT);
    assert_int_equal(mad_get_field(abort, 0, IB_SA_RMPP_STATUS_F), PZR_STATUS_TMR);
    free(mad);
}

PZT_MAIN(test_header_matches_libibmad, test_classes, test_classify, test_segmenting_numbers,
         test_segment_contents, test_round_trip, test_loss_and_duplicates, test_receiver_window,
         test_data_check, test_bad_length_and_too_long, test_sender_acks, test_reply)

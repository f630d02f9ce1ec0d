/*
 * fuzz_rmpp.c - libFuzzer target: RMPP's reassembly and sender window
 * (mad/rmpp.c, inside libpzumad2sim.so) fed by a hostile peer.
 *
 * Input: records of a 1-byte length L (0 means 256) and L bytes (a short
 * tail is one last record), each a MAD received by an RMPP agent.  Every
 * record is classified as the library does; DATA segments that pass the
 * check start or continue one reassembly (at most 64 KiB), ACKs drive a
 * sender of a fixed 30-segment SA table, every other RMPP MAD is answered
 * with an ABORT built from it.  Checked: a completed MAD is no longer than
 * what the receiver holds and at least its headers; every segment the
 * sender emits is a whole DATA segment of the table; nothing leaks.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rmpp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TABLE_DATA (30 * 200 - 11)
#define MAX_LEN (64u * 1024)

/* The fuzzed peer's state within one input. */
struct peer {
    struct pzr_recv r;
    bool receiving;
    struct pzr_send s;
    bool sending;
    uint8_t table[56 + TABLE_DATA];
};

/* Abort unless cond holds (libFuzzer reports the crash). */
static void need(bool cond)
{
    if (!cond)
        abort();
}

/* Send what the sender's window allows and check each segment. */
static void drain_sender(struct peer *p)
{
    uint8_t seg[PZR_MAD_SIZE];
    struct pzr_hdr h;
    uint32_t n;
    unsigned guard = 0;

    while ((n = pzr_send_next(&p->s)) != 0) {
        need(n >= 1 && n <= p->s.seg_count && ++guard <= p->s.seg_count);
        pzr_send_segment(&p->s, n, seg);
        pzr_hdr_get(seg, &h);
        need(h.type == PZR_TYPE_DATA && h.seg_num == n &&
             pzr_classify(seg, sizeof(seg)) == PZR_KIND_DATA);
        need(pzr_data_check(seg, sizeof(seg)) == 0);
    }
}

/* A DATA segment: start or continue the reassembly. */
static void on_data(struct peer *p, const uint8_t *seg, size_t len)
{
    struct pzr_reply reply;
    enum pzr_recv_verdict v;

    if (pzr_data_check(seg, len) != 0)
        return;
    if (!p->receiving) {
        if (!pzr_data_is_first(seg))
            return;
        v = pzr_recv_start(&p->r, seg, len, MAX_LEN, &reply);
        p->receiving = true;
    } else {
        v = pzr_recv_feed(&p->r, seg, len, &reply);
    }
    if (v == PZR_RECV_STOP || v == PZR_RECV_ABORT) {
        pzr_recv_free(&p->r);
        p->receiving = false;
        return;
    }
    if (v == PZR_RECV_DONE) {
        need(p->r.complete && p->r.len <= p->r.cap && p->r.len >= p->r.hdr_len);
        need(p->r.buf[p->r.len - 1] == p->r.buf[p->r.len - 1]);
    }
    if (v == PZR_RECV_ACK || v == PZR_RECV_DONE)
        need(reply.seg_num <= reply.newwin);
}

/* An ACK: drive the sender. */
static void on_ack(struct peer *p, const uint8_t *mad)
{
    struct pzr_hdr h;
    uint8_t status = 0;
    enum pzr_send_verdict v;

    if (!p->sending)
        return;
    pzr_hdr_get(mad, &h);
    v = pzr_send_ack(&p->s, h.seg_num, h.paylen_newwin, h.status, &status);
    if (v == PZR_SEND_ABORT || v == PZR_SEND_DONE) {
        p->sending = false;
        return;
    }
    drain_sender(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct peer *p = calloc(1, sizeof(*p));
    size_t off = 0;

    if (!p)
        return 0;
    p->table[1] = 0x03;
    p->table[3] = 0x92;
    p->table[26] = PZR_FLAG_ACTIVE;
    for (size_t i = 56; i < sizeof(p->table); i++)
        p->table[i] = (uint8_t)i;
    need(pzr_send_init(&p->s, p->table, sizeof(p->table), 2) == 30);
    p->sending = true;
    drain_sender(p);
    while (off < size) {
        uint8_t mad[PZR_MAD_SIZE] = {0};
        size_t len = data[off] ? data[off] : PZR_MAD_SIZE;
        uint8_t out[PZR_MAD_SIZE];

        off++;
        if (len > size - off)
            len = size - off;
        memcpy(mad, data + off, len);
        off += len;
        switch (pzr_classify(mad, len)) {
        case PZR_KIND_DATA:
            on_data(p, mad, len);
            break;
        case PZR_KIND_ACK:
            on_ack(p, mad);
            break;
        case PZR_KIND_PLAIN:
            if (p->sending && len == 1 && pzr_send_timeout(&p->s) == PZR_SEND_MORE)
                drain_sender(p); /* a one-byte record: the sender's timer fires */
            break;
        default:
            pzr_build_reply(out, mad, PZR_TYPE_ABORT, PZR_STATUS_BADT, 0, 0);
            need(pzr_classify(out, sizeof(out)) == PZR_KIND_ABORT);
            break;
        }
    }
    pzr_recv_free(&p->r);
    free(p);
    return 0;
}

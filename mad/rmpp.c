/*
 * rmpp.c - RMPP's pure parts: header, segmentation, the sender's window and
 * the receiver's reassembly (see rmpp.h).  The rules follow IBA 1.2.1
 * section 13.6 as Linux's mad_rmpp.c runs them, the peer that OpenSM and
 * infiniband-diags meet on hardware:
 *   - every segment carries the MAD header and the class header (the SA's
 *     20 bytes) of the message, then seg_size = 256 - data offset bytes of
 *     its data; PayloadLength counts RMPP payload, the class header of every
 *     segment included: seg_count * 220 - pad in the first segment,
 *     220 - pad in the last (pad: the zero bytes ending the last segment);
 *   - the receiver grants windows of PZR_WINDOW segments, ACKs the first
 *     segment, each window's last and the message's last, re-ACKs
 *     duplicates, and drops a segment beyond its window; the sender starts
 *     with a window of one segment and, without an ACK, resends from the
 *     last acknowledged one.
 * This receiver keeps only in-order segments (Linux also keeps the later
 * ones of a window): a gap costs a resend after the sender's timeout.
 *
 * The header fields are read at their fixed IBA offsets (13.4.2, 13.6.2.1)
 * rather than through libibmad: the library these functions go into is
 * preloaded into every tool, OpenSM included, and must not add libibmad to
 * their link maps (the unit test checks the offsets against libibmad).
 */
#include "rmpp.h"

#include <stdlib.h>
#include <string.h>

#include "mad.h"

#define PZR_OFF_CLASS 1
#define PZR_OFF_METHOD 3
#define PZR_OFF_RMPP 24
#define PZR_METHOD_RESP 0x80

/* MgmtClass of mad; returns it. */
uint8_t pzr_mad_class(const uint8_t *mad)
{
    return mad[PZR_OFF_CLASS];
}

/* Method of mad; returns it. */
uint8_t pzr_mad_method(const uint8_t *mad)
{
    return mad[PZR_OFF_METHOD];
}

/* TransactionID of mad; returns it. */
uint64_t pzr_mad_tid(const uint8_t *mad)
{
    return mad_tid(mad);
}

/* Whether mgmt_class carries RMPP (Linux's ib_is_mad_class_rmpp); returns it. */
bool pzr_class_is_rmpp(uint8_t mgmt_class)
{
    return mgmt_class == 0x03 || mgmt_class == 0x06 || mgmt_class == 0x10 || mgmt_class == 0x12 ||
           (mgmt_class >= 0x30 && mgmt_class <= 0x4f);
}

/* Data offset of mgmt_class (Linux's ib_get_mad_data_offset); returns it. */
unsigned pzr_data_offset(uint8_t mgmt_class)
{
    if (mgmt_class == 0x03)
        return 56; /* SA header */
    if (mgmt_class == 0x06 || mgmt_class == 0x10 || mgmt_class == 0x12)
        return 64; /* device management header */
    if (mgmt_class >= 0x30 && mgmt_class <= 0x4f)
        return 40; /* vendor header with OUI */
    return 24;
}

/* Read mad's RMPP header into h. */
void pzr_hdr_get(const uint8_t *mad, struct pzr_hdr *h)
{
    const uint8_t *p = mad + PZR_OFF_RMPP;

    h->version = p[0];
    h->type = p[1];
    h->flags = p[2] & 0x07;
    h->rtime = p[2] >> 3;
    h->status = p[3];
    h->seg_num = be32_get(p + 4);
    h->paylen_newwin = be32_get(p + 8);
}

/* Write h into mad's RMPP header. */
void pzr_hdr_put(uint8_t *mad, const struct pzr_hdr *h)
{
    uint8_t *p = mad + PZR_OFF_RMPP;

    p[0] = h->version;
    p[1] = h->type;
    p[2] = (uint8_t)(h->rtime << 3 | (h->flags & 0x07));
    p[3] = h->status;
    be32_put(p + 4, h->seg_num);
    be32_put(p + 8, h->paylen_newwin);
}

/* Classify a received MAD for an RMPP agent; returns its kind. */
enum pzr_kind pzr_classify(const uint8_t *mad, size_t len)
{
    struct pzr_hdr h;

    if (len < PZR_RMPP_HDR_END || !pzr_class_is_rmpp(pzr_mad_class(mad)))
        return PZR_KIND_PLAIN;
    if (len < pzr_data_offset(pzr_mad_class(mad)))
        return PZR_KIND_PLAIN;
    pzr_hdr_get(mad, &h);
    if (!(h.flags & PZR_FLAG_ACTIVE))
        return PZR_KIND_PLAIN;
    if (h.version != PZR_VERSION)
        return PZR_KIND_BAD_VERSION;
    switch (h.type) {
    case PZR_TYPE_DATA:
        return PZR_KIND_DATA;
    case PZR_TYPE_ACK:
        return PZR_KIND_ACK;
    case PZR_TYPE_STOP:
        return PZR_KIND_STOP;
    case PZR_TYPE_ABORT:
        return PZR_KIND_ABORT;
    default:
        return PZR_KIND_BAD_TYPE;
    }
}

/* Fill out with the ACK/STOP/ABORT answering segment in (Linux's format_ack, nack_recv). */
void pzr_build_reply(uint8_t *out, const uint8_t *in, uint8_t type, uint8_t status,
                     uint32_t seg_num, uint32_t newwin)
{
    unsigned hdr_len = pzr_data_offset(pzr_mad_class(in));
    struct pzr_hdr h;

    memset(out, 0, PZR_MAD_SIZE);
    memcpy(out, in, hdr_len);
    out[PZR_OFF_METHOD] ^= PZR_METHOD_RESP;
    pzr_hdr_get(in, &h);
    h.version = PZR_VERSION;
    h.type = type;
    h.flags = PZR_FLAG_ACTIVE;
    h.status = status;
    h.seg_num = seg_num;
    h.paylen_newwin = newwin;
    pzr_hdr_put(out, &h);
}

/* ---- sender ---- */

/* Prepare s for mad; returns the segment count, 0 if len is shorter than the class header. */
uint32_t pzr_send_init(struct pzr_send *s, const uint8_t *mad, size_t len, int retries)
{
    size_t data_len;

    memset(s, 0, sizeof(*s));
    if (len < PZR_RMPP_HDR_END)
        return 0;
    s->hdr_len = pzr_data_offset(pzr_mad_class(mad));
    if (len < s->hdr_len || s->hdr_len >= PZR_MAD_SIZE)
        return 0;
    s->mad = mad;
    s->len = len;
    s->seg_size = PZR_MAD_SIZE - s->hdr_len;
    data_len = len - s->hdr_len;
    s->seg_count = (uint32_t)((data_len + s->seg_size - 1) / s->seg_size);
    if (s->seg_count == 0)
        s->seg_count = 1; /* no data: one segment of padding, as Linux */
    s->pad = (uint32_t)((size_t)s->seg_count * s->seg_size - data_len);
    s->newwin = 1;
    s->retries_left = retries < 0 ? 0 : retries;
    return s->seg_count;
}

/* Fill out with DATA segment seg of s. */
void pzr_send_segment(const struct pzr_send *s, uint32_t seg, uint8_t *out)
{
    size_t off = s->hdr_len + (size_t)(seg - 1) * s->seg_size;
    size_t n = off < s->len ? s->len - off : 0;
    struct pzr_hdr h;

    memset(out, 0, PZR_MAD_SIZE);
    memcpy(out, s->mad, s->hdr_len);
    if (n > s->seg_size)
        n = s->seg_size;
    memcpy(out + s->hdr_len, s->mad + off, n);
    pzr_hdr_get(s->mad, &h);
    h.version = PZR_VERSION;
    h.type = PZR_TYPE_DATA;
    h.flags = PZR_FLAG_ACTIVE;
    h.rtime = 0;
    h.status = 0;
    h.seg_num = seg;
    h.paylen_newwin = 0;
    if (seg == 1) {
        h.flags |= PZR_FLAG_FIRST;
        h.paylen_newwin = s->seg_count * (uint32_t)PZR_SEG_RMPP_DATA - s->pad;
    }
    if (seg == s->seg_count) {
        h.flags |= PZR_FLAG_LAST;
        h.paylen_newwin = (uint32_t)PZR_SEG_RMPP_DATA - s->pad;
    }
    pzr_hdr_put(out, &h);
}

/* The next segment to send within the window; returns it (counted sent) or 0. */
uint32_t pzr_send_next(struct pzr_send *s)
{
    if (s->seg_sent >= s->seg_count || s->seg_sent >= s->newwin)
        return 0;
    return ++s->seg_sent;
}

/* Take an ACK (Linux's process_rmpp_ack); returns the verdict, *status for an ABORT. */
enum pzr_send_verdict pzr_send_ack(struct pzr_send *s, uint32_t seg_num, uint32_t newwin,
                                   uint8_t ack_status, uint8_t *status)
{
    if (ack_status) {
        *status = PZR_STATUS_BAD_STATUS;
        return PZR_SEND_ABORT;
    }
    if (newwin < seg_num) {
        *status = PZR_STATUS_W2S;
        return PZR_SEND_ABORT;
    }
    if (seg_num > s->seg_count || seg_num > s->newwin) {
        *status = PZR_STATUS_S2B;
        return PZR_SEND_ABORT;
    }
    if (newwin < s->newwin || seg_num < s->last_ack)
        return PZR_SEND_IGNORE; /* old ACK */
    s->last_ack = seg_num;
    s->newwin = newwin > s->seg_count ? s->seg_count : newwin;
    if (s->last_ack == s->seg_count)
        return PZR_SEND_DONE;
    if (s->seg_sent < s->last_ack)
        s->seg_sent = s->last_ack;
    return PZR_SEND_MORE;
}

/* No ACK in time (Linux's ib_retry_rmpp); returns PZR_SEND_MORE or PZR_SEND_GIVE_UP. */
enum pzr_send_verdict pzr_send_timeout(struct pzr_send *s)
{
    if (s->retries_left <= 0)
        return PZR_SEND_GIVE_UP;
    s->retries_left--;
    s->seg_sent = s->last_ack;
    return PZR_SEND_MORE;
}

/* ---- receiver ---- */

/* Check a DATA segment (Linux's process_rmpp_data); returns 0 or the ABORT's status. */
uint8_t pzr_data_check(const uint8_t *seg, size_t len)
{
    struct pzr_hdr h;

    if (len < pzr_data_offset(pzr_mad_class(seg)))
        return PZR_STATUS_BAD_LEN;
    pzr_hdr_get(seg, &h);
    if (h.status)
        return PZR_STATUS_BAD_STATUS;
    if (h.seg_num == 0)
        return PZR_STATUS_BAD_SEG;
    if ((h.seg_num == 1) != !!(h.flags & PZR_FLAG_FIRST))
        return PZR_STATUS_BAD_SEG;
    return 0;
}

/* Whether checked DATA segment seg is a transfer's first; returns it. */
bool pzr_data_is_first(const uint8_t *seg)
{
    struct pzr_hdr h;

    pzr_hdr_get(seg, &h);
    return h.seg_num == 1;
}

/* Make room for need bytes in r->buf; returns 0, or -1 past max_len or out of memory. */
static int pzr_recv_reserve(struct pzr_recv *r, size_t need)
{
    size_t cap = r->cap ? r->cap : 4 * PZR_MAD_SIZE;
    uint8_t *buf;

    if (need > r->max_len)
        return -1;
    if (need <= r->cap)
        return 0;
    while (cap < need)
        cap *= 2;
    if (cap > r->max_len)
        cap = r->max_len;
    buf = realloc(r->buf, cap);
    if (!buf)
        return -1;
    memset(buf + r->cap, 0, cap - r->cap);
    r->buf = buf;
    r->cap = cap;
    return 0;
}

/* Copy segment seg (len bytes) to its place in r: the whole first, the data of later ones. */
static void pzr_recv_store(struct pzr_recv *r, const uint8_t *seg, size_t len, uint32_t num)
{
    size_t data = PZR_MAD_SIZE - r->hdr_len;
    size_t n = len > PZR_MAD_SIZE ? PZR_MAD_SIZE : len;

    if (num == 1) {
        memcpy(r->buf, seg, n);
        return;
    }
    if (n > r->hdr_len)
        memcpy(r->buf + r->hdr_len + (size_t)(num - 1) * data, seg + r->hdr_len, n - r->hdr_len);
}

/* The last segment seg arrived: sets r's length from its PayloadLength; returns 0 or -1 when
 * that is inconsistent (more data than a segment holds, or less than its class header). */
static int pzr_recv_finish(struct pzr_recv *r, const uint8_t *seg)
{
    struct pzr_hdr h;
    size_t class_hdr = r->hdr_len - PZR_RMPP_HDR_END;
    size_t data = PZR_MAD_SIZE - r->hdr_len;

    pzr_hdr_get(seg, &h);
    if (h.paylen_newwin < class_hdr || h.paylen_newwin - class_hdr > data)
        return -1;
    r->len = r->hdr_len + (size_t)(r->seg_num - 1) * data + (h.paylen_newwin - class_hdr);
    r->complete = true;
    return 0;
}

/* Store in-order segment num and answer it; returns the verdict. */
static enum pzr_recv_verdict pzr_recv_accept(struct pzr_recv *r, const uint8_t *seg, size_t len,
                                             uint32_t num, struct pzr_reply *reply)
{
    struct pzr_hdr h;
    size_t need = r->hdr_len + (size_t)num * (PZR_MAD_SIZE - r->hdr_len);

    if (pzr_recv_reserve(r, need) != 0) {
        reply->status = PZR_STATUS_RESX;
        return PZR_RECV_STOP;
    }
    pzr_recv_store(r, seg, len, num);
    r->seg_num = num;
    pzr_hdr_get(seg, &h);
    if (h.flags & PZR_FLAG_LAST) {
        if (pzr_recv_finish(r, seg) != 0) {
            reply->status = PZR_STATUS_BAD_LEN;
            return PZR_RECV_ABORT;
        }
        reply->seg_num = r->seg_num;
        reply->newwin = r->newwin;
        return PZR_RECV_DONE;
    }
    if (r->seg_num != r->newwin)
        return PZR_RECV_DROP;
    r->newwin += PZR_WINDOW;
    reply->seg_num = r->seg_num;
    reply->newwin = r->newwin;
    return PZR_RECV_ACK;
}

/* Start r from its first segment (Linux's start_rmpp); returns the verdict. */
enum pzr_recv_verdict pzr_recv_start(struct pzr_recv *r, const uint8_t *seg, size_t len,
                                     size_t max_len, struct pzr_reply *reply)
{
    struct pzr_hdr h;

    memset(r, 0, sizeof(*r));
    memset(reply, 0, sizeof(*reply));
    r->hdr_len = pzr_data_offset(pzr_mad_class(seg));
    r->max_len = max_len;
    r->newwin = 1;
    pzr_hdr_get(seg, &h);
    if (h.paylen_newwin > max_len) {
        reply->status = PZR_STATUS_RESX; /* announced too long to hold */
        return PZR_RECV_STOP;
    }
    return pzr_recv_accept(r, seg, len, 1, reply);
}

/* Continue r with a segment (Linux's continue_rmpp, in order only); returns the verdict. */
enum pzr_recv_verdict pzr_recv_feed(struct pzr_recv *r, const uint8_t *seg, size_t len,
                                    struct pzr_reply *reply)
{
    struct pzr_hdr h;

    memset(reply, 0, sizeof(*reply));
    pzr_hdr_get(seg, &h);
    if (r->complete || h.seg_num <= r->seg_num) {
        reply->seg_num = r->seg_num; /* duplicate: the sender missed our ACK */
        reply->newwin = r->newwin;
        return PZR_RECV_ACK;
    }
    if (h.seg_num > r->newwin || h.seg_num != r->seg_num + 1)
        return PZR_RECV_DROP;
    return pzr_recv_accept(r, seg, len, h.seg_num, reply);
}

/* Free r's buffer. */
void pzr_recv_free(struct pzr_recv *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = 0;
}

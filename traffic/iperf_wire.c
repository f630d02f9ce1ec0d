/*
 * iperf_wire.c - iperf 2's test headers and server report (see iperf_wire.h).
 */
#include "iperf_wire.h"

#include <string.h>

#include "byte_order.h"

int iperf_client_hdr_parse(const uint8_t *buf, size_t len, struct iperf_client_hdr *out)
{
    if (len < IPERF_CLIENT_HDR_LEN)
        return -1;
    out->flags = be32_get(buf);
    out->threads = (int32_t)be32_get(buf + 4);
    out->port = (int32_t)be32_get(buf + 8);
    out->buflen = (int32_t)be32_get(buf + 12);
    out->winband = (int32_t)be32_get(buf + 16);
    out->amount = (int32_t)be32_get(buf + 20);
    return 0;
}

void iperf_client_hdr_encode(uint8_t *buf, const struct iperf_client_hdr *c)
{
    be32_put(buf, c->flags);
    be32_put(buf + 4, (uint32_t)c->threads);
    be32_put(buf + 8, (uint32_t)c->port);
    be32_put(buf + 12, (uint32_t)c->buflen);
    be32_put(buf + 16, (uint32_t)c->winband);
    be32_put(buf + 20, (uint32_t)c->amount);
}

bool iperf_udp_seq64(const uint8_t *buf, size_t len)
{
    return len >= IPERF_UDP_HDR_LEN + 4 &&
           (be32_get(buf + IPERF_UDP_HDR_LEN) & IPERF_FLAG_SEQNO64B);
}

int iperf_udp_parse(const uint8_t *buf, size_t len, bool seq64, struct iperf_udp_hdr *out)
{
    uint32_t id;

    if (len < IPERF_UDP_HDR_MIN || (seq64 && len < IPERF_UDP_HDR_LEN))
        return -1;
    id = be32_get(buf);
    if (seq64)
        out->seq = (int64_t)((uint64_t)be32_get(buf + 12) << 32 | id);
    else
        out->seq = (int32_t)id;
    out->tv_sec = be32_get(buf + 4);
    out->tv_usec = be32_get(buf + 8);
    out->has_client = iperf_client_hdr_parse(buf + IPERF_UDP_HDR_LEN,
                                             len > IPERF_UDP_HDR_LEN ? len - IPERF_UDP_HDR_LEN : 0,
                                             &out->client) == 0;
    return 0;
}

int iperf_udp_encode(uint8_t *buf, size_t len, int64_t seq, uint32_t tv_sec, uint32_t tv_usec,
                     const struct iperf_client_hdr *c)
{
    if (len < IPERF_UDP_LEN_MIN)
        return -1;
    be32_put(buf, (uint32_t)(uint64_t)seq);
    be32_put(buf + 4, tv_sec);
    be32_put(buf + 8, tv_usec);
    be32_put(buf + 12, (uint32_t)((uint64_t)seq >> 32));
    iperf_client_hdr_encode(buf + IPERF_UDP_HDR_LEN, c);
    return 0;
}

size_t iperf_report_encode(uint8_t *buf, size_t len, const struct iperf_report *r)
{
    uint8_t *s = buf + IPERF_UDP_HDR_LEN; /* the server header */
    uint8_t *ext2 = s + IPERF_REPORT_BASE_LEN + 60;

    if (len < IPERF_REPORT_LEN)
        return 0;
    memset(buf, 0, IPERF_REPORT_LEN);
    be32_put(s, r->flags);
    be32_put(s + 4, (uint32_t)(r->bytes >> 32));
    be32_put(s + 8, (uint32_t)r->bytes);
    be32_put(s + 12, r->stop_sec);
    be32_put(s + 16, r->stop_usec);
    be32_put(s + 20, (uint32_t)r->lost);
    be32_put(s + 24, (uint32_t)r->outorder);
    be32_put(s + 28, (uint32_t)r->datagrams);
    be32_put(s + 32, r->jitter_sec);
    be32_put(s + 36, r->jitter_usec);
    be32_put(ext2, (uint32_t)(r->lost >> 32));
    be32_put(ext2 + 4, (uint32_t)(r->outorder >> 32));
    be32_put(ext2 + 8, (uint32_t)(r->datagrams >> 32));
    return IPERF_REPORT_LEN;
}

int iperf_report_parse(const uint8_t *buf, size_t len, struct iperf_report *out)
{
    const uint8_t *s = buf + IPERF_UDP_HDR_LEN;
    const uint8_t *ext2 = s + IPERF_REPORT_BASE_LEN + 60;
    bool wide;

    if (len < IPERF_UDP_HDR_LEN + IPERF_REPORT_BASE_LEN)
        return -1;
    out->flags = be32_get(s);
    if (!(out->flags & IPERF_FLAG_VERSION1))
        return -1;
    wide = (out->flags & IPERF_FLAG_SEQNO64B) && len >= IPERF_REPORT_LEN;
    out->bytes = (uint64_t)be32_get(s + 4) << 32 | be32_get(s + 8);
    out->stop_sec = be32_get(s + 12);
    out->stop_usec = be32_get(s + 16);
    out->lost = (wide ? (uint64_t)be32_get(ext2) << 32 : 0) | be32_get(s + 20);
    out->outorder = (wide ? (uint64_t)be32_get(ext2 + 4) << 32 : 0) | be32_get(s + 24);
    out->datagrams = (wide ? (uint64_t)be32_get(ext2 + 8) << 32 : 0) | be32_get(s + 28);
    out->jitter_sec = be32_get(s + 32);
    out->jitter_usec = be32_get(s + 36);
    return 0;
}

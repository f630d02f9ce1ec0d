/*
 * fuzz_iperf.c - libFuzzer target: hostile bytes to iperf 2's parsers
 * (traffic/iperf_wire.c, iperf_format.c), as the server takes a UDP
 * datagram or TCP stream start and as the client takes a server report.
 * Checked: the parsers never read past the input (ASan), a parsed report
 * re-encodes to bytes that parse to the same report, and a datagram's
 * sequence number survives an encode/parse round trip.
 */
#include <stdlib.h>
#include <string.h>

#include "iperf_format.h"
#include "iperf_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether two reports carry the same values (field by field: structs have padding). */
static bool same_report(const struct iperf_report *a, const struct iperf_report *b)
{
    return a->flags == b->flags && a->bytes == b->bytes && a->stop_sec == b->stop_sec &&
           a->stop_usec == b->stop_usec && a->lost == b->lost && a->outorder == b->outorder &&
           a->datagrams == b->datagrams && a->jitter_sec == b->jitter_sec &&
           a->jitter_usec == b->jitter_usec;
}

/* Report -> bytes -> report must be the identity; abort when not. */
static void check_report(const uint8_t *data, size_t size)
{
    struct iperf_report r, back;
    uint8_t buf[IPERF_REPORT_LEN];

    if (iperf_report_parse(data, size, &r))
        return;
    if (!(r.flags & IPERF_FLAG_SEQNO64B) || size < IPERF_REPORT_LEN) {
        /* read as 32-bit counters: widen the flags so the copy carries them */
        r.flags |= IPERF_FLAG_SEQNO64B;
    }
    if (iperf_report_encode(buf, sizeof(buf), &r) != IPERF_REPORT_LEN ||
        iperf_report_parse(buf, sizeof(buf), &back) || !same_report(&r, &back))
        abort();
}

/* Datagram -> seq -> datagram must keep the sequence number; abort when not. */
static void check_udp(const uint8_t *data, size_t size, bool seq64)
{
    struct iperf_udp_hdr h, back;
    uint8_t buf[IPERF_UDP_LEN_MIN];

    if (iperf_udp_parse(data, size, seq64, &h))
        return;
    if (iperf_udp_encode(buf, sizeof(buf), h.seq, h.tv_sec, h.tv_usec, &h.client) ||
        iperf_udp_parse(buf, sizeof(buf), true, &back) || back.seq != h.seq)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct iperf_client_hdr c;
    char *text;

    check_udp(data, size, iperf_udp_seq64(data, size));
    check_udp(data, size, false);
    check_report(data, size);
    iperf_client_hdr_parse(data, size, &c);
    text = malloc(size + 1);
    if (text) {
        char b[32];
        double rate;

        memcpy(text, data, size);
        text[size] = '\0';
        rate = iperf_parse_rate(text);
        if (rate != 0 && (rate < 1 || rate > 100e9))
            abort();
        iperf_format_rate(rate, b, sizeof(b));
        iperf_format_bytes(rate, b, sizeof(b));
        free(text);
    }
    return 0;
}

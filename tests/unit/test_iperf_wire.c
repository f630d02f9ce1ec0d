/*
 * test_iperf_wire.c - iperf 2's wire formats (traffic/iperf_wire.c) and
 * number formats (traffic/iperf_format.c): the bytes of a datagram and a
 * server report as captured from Debian's iperf 2.1.8, round trips, and
 * what short or garbage input gives.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>

#include <cmocka.h>

#include "iperf_format.h"
#include "iperf_wire.h"
#include "pzt_main.h"
#include "pzt_same.h"

/* The first 40 bytes of iperf 2.1.8's UDP datagram 1 (-u -b 1M -t 2), from tshark. */
static const uint8_t captured_udp[40] = {
    0x00, 0x00, 0x00, 0x01, 0x6b, 0x06, 0x15, 0x3f, 0x00, 0x05, 0x22, 0x3a, 0x00, 0x00,
    0x00, 0x00, 0x48, 0x01, 0x00, 0x98, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x13, 0x89,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0x38};

/* A captured datagram parses into its sequence number, timestamp and header. */
static void test_udp_captured(void **state)
{
    struct iperf_udp_hdr h;

    assert_true(iperf_udp_seq64(captured_udp, sizeof(captured_udp)));
    assert_int_equal(iperf_udp_parse(captured_udp, sizeof(captured_udp), true, &h), 0);
    assert_int_equal(h.seq, 1);
    assert_int_equal(h.tv_sec, 0x6b06153f);
    assert_int_equal(h.tv_usec, 0x0005223a);
    assert_true(h.has_client);
    assert_int_equal(h.client.flags, 0x48010098);
    assert_int_equal(h.client.threads, 1);
    assert_int_equal(h.client.port, 5001);
    assert_int_equal(h.client.amount, -200);
}

/* The final datagram's negative sequence number, in both widths. */
static void test_udp_negative(void **state)
{
    uint8_t buf[IPERF_UDP_LEN_MIN];
    struct iperf_client_hdr c = {.flags = IPERF_FLAG_SEQNO64B};
    struct iperf_udp_hdr h;

    assert_int_equal(iperf_udp_encode(buf, sizeof(buf), -182, 1, 2, &c), 0);
    assert_int_equal(buf[0], 0xff);
    assert_int_equal(buf[3], 0x4a);
    assert_int_equal(iperf_udp_parse(buf, sizeof(buf), true, &h), 0);
    assert_int_equal(h.seq, -182);
    assert_int_equal(iperf_udp_parse(buf, sizeof(buf), false, &h), 0);
    assert_int_equal(h.seq, -182); /* the low word alone, signed */
    assert_int_equal(iperf_udp_encode(buf, IPERF_UDP_LEN_MIN - 1, 1, 0, 0, &c), -1);
}

/* Too short: no datagram, no header; 12 bytes is iperf 2.0's header. */
static void test_udp_short(void **state)
{
    struct iperf_udp_hdr h;

    assert_int_equal(iperf_udp_parse(captured_udp, 11, false, &h), -1);
    assert_int_equal(iperf_udp_parse(captured_udp, 12, false, &h), 0);
    assert_false(h.has_client);
    assert_int_equal(iperf_udp_parse(captured_udp, 12, true, &h), -1);
    assert_false(iperf_udp_seq64(captured_udp, 19));
}

/* A report as 2.1.8's server sent it (the 56 bytes the client reads first). */
static void test_report_round_trip(void **state)
{
    struct iperf_report r = {.flags = IPERF_FLAG_VERSION1 | IPERF_FLAG_SEQNO64B,
                             .bytes = 267540,
                             .stop_sec = 2,
                             .stop_usec = 18949,
                             .lost = 0x100000003ull,
                             .outorder = 1,
                             .datagrams = 182,
                             .jitter_usec = 5};
    uint8_t buf[IPERF_REPORT_LEN];
    struct iperf_report back;

    assert_int_equal(iperf_report_encode(buf, sizeof(buf), &r), IPERF_REPORT_LEN);
    assert_memory_equal(buf, (uint8_t[16]){0}, 16);
    assert_int_equal(buf[16], 0x88);
    assert_int_equal(iperf_report_parse(buf, sizeof(buf), &back), 0);
    PZT_EXPECT_SAME(back, r, flags, bytes, stop_sec, stop_usec, lost, outorder, datagrams,
                    jitter_sec, jitter_usec);
    /* Without the 64-bit extension only the low words count. */
    assert_int_equal(iperf_report_parse(buf, 56, &back), 0);
    assert_int_equal(back.lost, 3);
    assert_int_equal(iperf_report_encode(buf, IPERF_REPORT_LEN - 1, &r), 0);
}

/* A 2.1 header ack (28 bytes) or a report without its flag is no report. */
static void test_report_garbage(void **state)
{
    uint8_t buf[IPERF_REPORT_LEN] = {0};
    struct iperf_report r;

    assert_int_equal(iperf_report_parse(buf, 28, &r), -1);
    assert_int_equal(iperf_report_parse(buf, sizeof(buf), &r), -1);
}

/* iperf's adaptive units and -b's suffixes. */
static void test_format(void **state)
{
    char b[32];

    assert_string_equal(iperf_format_bytes(267540, b, sizeof(b)), " 261 KBytes");
    assert_string_equal(iperf_format_bytes(1.86 * 1073741824.0, b, sizeof(b)), "1.86 GBytes");
    assert_string_equal(iperf_format_rate(1.06e6, b, sizeof(b)), "1.06 Mbits/sec");
    assert_string_equal(iperf_format_rate(16.0e9, b, sizeof(b)), "16.0 Gbits/sec");
    assert_true(iperf_parse_rate("10M") == 10e6);
    assert_true(iperf_parse_rate("2.5g") == 2.5e9);
    assert_true(iperf_parse_rate("500000") == 500000);
    assert_true(iperf_parse_rate("10X") == 0);
    assert_true(iperf_parse_rate("-1") == 0);
    assert_true(iperf_parse_rate("0") == 0);
    assert_true(iperf_parse_rate("1e300") == 0);
    assert_true(iperf_parse_rate("") == 0);
}

PZT_MAIN(test_udp_captured, test_udp_negative, test_udp_short, test_report_round_trip,
         test_report_garbage, test_format)

/*
 * iperf_wire.h - the iperf 2 wire formats, as Debian's iperf 2.1.8 sends and
 * expects them (learnt from iperf 2's payloads.h for facts and from captures
 * of real iperf between two namespaces), as plain encoders and parsers: no
 * lwIP, no I/O, so the fuzzer and the unit test drive them directly.
 *
 * All fields are big-endian 32-bit words.
 *
 * A UDP test datagram starts with:
 *   0 id        sequence number, low 32 bits (signed when 32-bit sequences)
 *   4 tv_sec    sender's wall clock, seconds
 *   8 tv_usec   ... microseconds
 *  12 id2       sequence number, high 32 bits (with IPERF_FLAG_SEQNO64B)
 * then the client header (below).  Sequence numbers count from 1; the
 * client ends a test by sending a negative sequence number (-(last + 1)),
 * repeated every 10 ms for up to 2 s, until the server answers with its
 * report: a datagram of a zeroed UDP header and the server header.
 *
 * The client header (iperf's client_hdr_v1): flags, number of threads (-P),
 * port, buffer length, window/bandwidth, amount (negative: time in 10 ms
 * units; positive: bytes).  A TCP test stream starts with it too.  With
 * flags 0 a server treats everything as test data (iperf 2.0's plain test).
 *
 * The server report (server_hdr): flags, total bytes (high, low), duration
 * (s, us), lost, out of order, datagrams, jitter (s, us), 60 bytes of
 * transit extension (read only with SERVER_HEADER_EXTEND), then the high
 * 32 bits of lost, out of order and datagrams (read with SEQNO64B).
 */
#ifndef PZ_IPERF_WIRE_H
#define PZ_IPERF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPERF_PORT 5001

#define IPERF_FLAG_VERSION1 0x80000000u /* dual/tradeoff test (2.0 clients) */
#define IPERF_FLAG_EXTEND 0x40000000u   /* extended client header follows */
#define IPERF_FLAG_SEQNO64B 0x08000000u /* 64-bit sequence numbers */
#define IPERF_FLAG_VERSION2 0x04000000u

#define IPERF_UDP_HDR_LEN 16    /* id, tv_sec, tv_usec, id2 */
#define IPERF_UDP_HDR_MIN 12    /* iperf 2.0's header had no id2 */
#define IPERF_CLIENT_HDR_LEN 24 /* six words */
#define IPERF_REPORT_BASE_LEN 40
#define IPERF_REPORT_LEN (IPERF_UDP_HDR_LEN + 40 + 60 + 12) /* 128, as 2.1.8 sends it */

/* Smallest and largest UDP test datagram this code sends. */
#define IPERF_UDP_LEN_MIN (IPERF_UDP_HDR_LEN + IPERF_CLIENT_HDR_LEN)
#define IPERF_UDP_LEN_MAX 1472

/* The client header. */
struct iperf_client_hdr {
    uint32_t flags;
    int32_t threads, port, buflen, winband, amount;
};

/* A UDP test datagram's header. */
struct iperf_udp_hdr {
    int64_t seq; /* negative: the test's end */
    uint32_t tv_sec, tv_usec;
    bool has_client;                /* the datagram was long enough for the client header */
    struct iperf_client_hdr client; /* valid when has_client */
};

/* A server report. */
struct iperf_report {
    uint32_t flags;
    uint64_t bytes;
    uint32_t stop_sec, stop_usec; /* the test's duration */
    uint64_t lost, outorder, datagrams;
    uint32_t jitter_sec, jitter_usec;
};

/*
 * Parse a UDP test datagram of len bytes; seq64: the test uses 64-bit
 * sequence numbers (from its first datagram's flags: iperf_udp_seq64).
 * Returns 0, or -1 when it is too short to be one.
 */
int iperf_udp_parse(const uint8_t *buf, size_t len, bool seq64, struct iperf_udp_hdr *out);

/* Whether a test's first datagram announces 64-bit sequence numbers. */
bool iperf_udp_seq64(const uint8_t *buf, size_t len);

/*
 * Write a UDP test datagram's headers into buf (len >= IPERF_UDP_LEN_MIN):
 * the sequence number (64-bit form), the timestamp, the client header.
 * Returns 0, or -1 when len is too short.
 */
int iperf_udp_encode(uint8_t *buf, size_t len, int64_t seq, uint32_t tv_sec, uint32_t tv_usec,
                     const struct iperf_client_hdr *c);

/* Parse / write the client header (IPERF_CLIENT_HDR_LEN bytes); parse returns 0 or -1. */
int iperf_client_hdr_parse(const uint8_t *buf, size_t len, struct iperf_client_hdr *out);
void iperf_client_hdr_encode(uint8_t *buf, const struct iperf_client_hdr *c);

/*
 * Write a server report datagram (IPERF_REPORT_LEN bytes) into buf.
 * Returns its length, or 0 when len is too short.
 */
size_t iperf_report_encode(uint8_t *buf, size_t len, const struct iperf_report *r);

/*
 * Parse a server report datagram (as iperf 2.1.8's client reads it).
 * Returns 0, or -1 when it is too short or carries no report flag.
 */
int iperf_report_parse(const uint8_t *buf, size_t len, struct iperf_report *out);

#endif

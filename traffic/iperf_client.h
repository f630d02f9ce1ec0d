/*
 * iperf_client.h - an iperf 2 compatible client on lwIP: a run of streams,
 * TCP or UDP, each to its own destination (iperf -c's -P streams to one
 * address, or the traffic matrix's one stream per peer), against any iperf
 * 2 server (Debian's `iperf -s`, or another switch's iperf_server).
 *
 * TCP: each stream connects and writes its test pattern (the client
 * header with flags 0, then digits, as iperf fills its buffer) for the
 * test's time; it then stops writing, closes and counts until everything
 * written is acknowledged: a stream's bytes are the bytes the peer
 * acknowledged, so they equal what the server counted.
 * UDP: each stream sends datagrams paced to its rate (checked every
 * millisecond), with sequence numbers and timestamps, then the final
 * negative sequence number every 10 ms until the server report comes
 * (at most 2 s, as iperf).
 *
 * The streams live in lwIP's tcpip thread (its timers and callbacks); the
 * owner starts and stops the run under the core lock and reads progress
 * under the run's mutex; an eventfd says that the run finished.
 */
#ifndef PZ_IPERF_CLIENT_H
#define PZ_IPERF_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "iperf_wire.h"

#define IPERF_CLIENT_MAX_STREAMS 64
#define IPERF_CLIENT_MAX_SECONDS 3600

/* A run's settings. */
struct iperf_client_config {
    bool udp;
    uint64_t rate_bps;   /* UDP: bits/s per stream (> 0) */
    unsigned seconds;    /* 1 .. IPERF_CLIENT_MAX_SECONDS */
    unsigned len;        /* TCP: write size; UDP: datagram payload (IPERF_UDP_LEN_MIN .. 1472) */
    uint16_t port;       /* 0 = 5001 */
    unsigned nstreams;   /* 1 .. IPERF_CLIENT_MAX_STREAMS */
    const uint32_t *dst; /* [nstreams], host order */
    /*
     * [nstreams] IPv6 destinations (network order), or NULL: stream i goes
     * to dst6[i] when dst[i] is 0 (so a matrix mixes the families)
     */
    const uint8_t (*dst6)[16];
};

/* How a stream ended. */
enum iperf_stream_state {
    IPERF_STREAM_CONNECTING,
    IPERF_STREAM_RUNNING,
    IPERF_STREAM_FINISHING, /* TCP: waiting for acks; UDP: for the server report */
    IPERF_STREAM_DONE,      /* ended as planned (UDP: with the report) */
    IPERF_STREAM_NO_REPORT, /* UDP: no server report in 2 s */
    IPERF_STREAM_FAILED,    /* TCP: refused, reset, or no connection in 5 s */
};

/* A stream's progress. */
struct iperf_stream_result {
    uint32_t dst;        /* IPv4 destination; 0 for IPv6 */
    bool v6;             /* an IPv6 stream: its destination is dst6 */
    uint8_t dst6[16];    /* network order */
    char local_text[48]; /* TCP: the local address lwIP chose (either family), once connected */
    uint16_t local_port;
    enum iperf_stream_state state;
    uint64_t bytes;     /* TCP: acknowledged; UDP: sent */
    uint64_t datagrams; /* UDP: sent, the first final one included (not its repeats) */
    uint64_t start_ns;  /* connected / first datagram (CLOCK_MONOTONIC) */
    uint64_t
        end_ns; /* TCP: writing stopped (or the stream failed); UDP: final datagram; 0 before */
    bool have_report;
    struct iperf_report report; /* UDP: the server's */
};

struct iperf_client;

/* Start a run (takes the core lock).  NULL: bad settings or no memory. */
struct iperf_client *iperf_client_start(const struct iperf_client_config *cfg);

/* A descriptor that polls readable once the run finished. */
int iperf_client_fd(const struct iperf_client *c);

/* Whether every stream ended. */
bool iperf_client_done(struct iperf_client *c);

/* When the run started (CLOCK_MONOTONIC ns). */
uint64_t iperf_client_start_ns(const struct iperf_client *c);

/* A copy of stream i's progress (under the run's mutex). */
struct iperf_stream_result iperf_client_stream(struct iperf_client *c, unsigned i);

/* Abort what still runs and free (NULL is fine).  Takes the core lock. */
void iperf_client_stop(struct iperf_client *c);

#endif

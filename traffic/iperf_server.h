/*
 * iperf_server.h - an iperf 2 compatible server on lwIP (TCP and UDP,
 * port 5001 by default), so `iperf -c SWITCH [-u]` from any host, or
 * another switch's client (iperf_client.h), measures the path to this
 * switch's management CPU.
 *
 * TCP: every connection is a sink; its bytes are counted and acknowledged.
 * UDP: one session per source address and port; sequence numbers give the
 * loss and the out-of-order count, the senders' timestamps the jitter
 * (RFC 1889's estimator, as iperf computes it); at the client's negative
 * sequence number the server report goes back to it (again for every
 * repeat of the final datagram).
 *
 * Everything runs in lwIP's tcpip thread; it touches no switch state.  The
 * owner reads the counters and the recent tests under the core lock.
 */
#ifndef PZ_IPERF_SERVER_H
#define PZ_IPERF_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#define IPERF_SERVER_MAX_TCP 64        /* connections at once */
#define IPERF_SERVER_MAX_UDP 64        /* UDP sessions at once */
#define IPERF_SERVER_HISTORY 32        /* finished tests remembered */
#define IPERF_SERVER_UDP_IDLE_MS 10000 /* a silent UDP session is ended after this */

/* Counters since the start. */
struct iperf_server_stats {
    uint64_t tcp_tests, tcp_bytes, udp_tests, udp_datagrams, udp_bytes;
    uint64_t reports_sent; /* UDP server reports, repeats included */
    uint64_t malformed;    /* UDP datagrams too short to be a test's */
    uint64_t refused;      /* tests refused: too many at once, or no memory */
};

/* One finished (or timed out) test. */
struct iperf_server_test {
    uint32_t peer;     /* host order, an IPv4 peer */
    bool peer_v6;      /* an IPv6 peer: its address is peer6 */
    uint8_t peer6[16]; /* network order */
    uint16_t peer_port;
    bool udp;
    bool ended; /* UDP: the client's final datagram came (else it went silent) */
    uint64_t bytes;
    uint64_t duration_us;
    uint64_t datagrams, lost, outorder; /* UDP */
    double jitter_ms;                   /* UDP */
};

struct iperf_server;

/* Listen on port (0 = 5001), TCP and UDP.  Takes the core lock.  NULL on failure. */
struct iperf_server *iperf_server_start(uint16_t port);

/* Close everything and free (NULL is fine).  Takes the core lock. */
void iperf_server_stop(struct iperf_server *s);

/* A copy of the counters (under the core lock). */
struct iperf_server_stats iperf_server_stats(struct iperf_server *s);

/*
 * Copy up to max finished tests, newest first, into out (under the core
 * lock).  Returns how many.
 */
unsigned iperf_server_history(struct iperf_server *s, struct iperf_server_test *out, unsigned max);

#endif

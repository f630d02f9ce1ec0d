/*
 * ip_ping.h - ICMP and ICMPv6 echo (ping) from the switch's lwIP stack.
 *
 * A ping run sends `count` echo requests, one every `interval_ms`, and
 * waits up to `timeout_ms` after the last for its replies.  Requests leave
 * from the owner's thread under lwIP's core lock; replies are taken by a raw
 * ICMP pcb in lwIP's tcpip thread and recorded under the run's mutex; the
 * owner polls the run for progress.  It touches no switch state.
 */
#ifndef PZ_IP_PING_H
#define PZ_IP_PING_H

#include <stdbool.h>
#include <stdint.h>

#define IP_PING_MAX_COUNT 1000

/* One request's fate. */
struct ip_ping_reply {
    uint16_t seq;
    uint8_t ttl;
    uint64_t rtt_ns;
};

/* What a run has seen so far. */
struct ip_ping_stats {
    unsigned sent, received, errors; /* errors: the stack refused to send */
    uint64_t rtt_min_ns, rtt_max_ns, rtt_sum_ns;
    double rtt_sumsq_ms2;   /* sum of the squared RTTs, ms^2 (iputils' mdev) */
    uint64_t first_sent_ns; /* when the first request went out, 0 before */
};

struct ip_ping;

/*
 * Start pinging dst (host order) count times (1..IP_PING_MAX_COUNT), one
 * request every interval_ms, payload_len bytes of payload (8..1472).
 * Returns the run, or NULL (bad arguments, no memory, lwIP not started).
 */
struct ip_ping *ip_ping_start(uint32_t dst, unsigned count, unsigned interval_ms,
                              unsigned timeout_ms, unsigned payload_len);

/*
 * Send what is due at now (CLOCK_MONOTONIC ns) and take the replies that
 * arrived: up to max of them into out (each once).  Returns how many.
 */
unsigned ip_ping_poll(struct ip_ping *p, uint64_t now, struct ip_ping_reply *out, unsigned max);

/* A descriptor that polls readable when a reply arrived (ip_ping_poll clears it). */
int ip_ping_fd(const struct ip_ping *p);

/* When the run next has work (ns): a request to send, or the end of the wait. */
uint64_t ip_ping_next_deadline(const struct ip_ping *p);

/*
 * The same for IPv6 destination dst (16 bytes, network order; a link-local
 * one is reached on the IP plane's one interface): ICMPv6 echo, its
 * checksum computed by lwIP's raw pcb over the pseudo-header.
 */
struct ip_ping *ip_ping_start6(const uint8_t dst[16], unsigned count, unsigned interval_ms,
                               unsigned timeout_ms, unsigned payload_len);

/* Whether every request was sent and every reply came or timed out. */
bool ip_ping_done(const struct ip_ping *p, uint64_t now);

/* The counters so far. */
struct ip_ping_stats ip_ping_stats(const struct ip_ping *p);

/* Stop and free (NULL is fine). */
void ip_ping_stop(struct ip_ping *p);

#endif

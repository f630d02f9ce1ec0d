/*
 * ip_echo.h - the echo service (RFC 862) on lwIP: TCP and UDP, port 7 by
 * default, so a byte stream can be checked end to end through the switch's
 * IP plane.  Its callbacks run in lwIP's tcpip thread; it touches no switch
 * state.
 */
#ifndef PZ_IP_ECHO_H
#define PZ_IP_ECHO_H

#include <stdint.h>

#define IP_ECHO_PORT 7

/* Counters. */
struct ip_echo_stats {
    uint64_t tcp_connections;
    uint64_t tcp_bytes;
    uint64_t udp_datagrams;
    uint64_t refused; /* connections refused: too many at once, or no memory */
};

struct ip_echo;

/*
 * Listen on TCP and UDP port (0 = IP_ECHO_PORT) on every interface, with
 * at most max_conns TCP connections at once (0 = 16).  Takes the core lock
 * itself.  Returns NULL if a port is taken or memory is short.
 */
struct ip_echo *ip_echo_start(uint16_t port, unsigned max_conns);

/* Close the listeners and abort every connection (NULL is fine). */
void ip_echo_stop(struct ip_echo *e);

/* A copy of the counters (taken under the core lock). */
struct ip_echo_stats ip_echo_stats(struct ip_echo *e);

#endif

/*
 * ip_listen.h - a service's TCP listener and UDP socket on one port (lwIP
 * raw API), as the echo service and the iperf server open them, and the
 * closing of a TCP connection the services and the iperf client share.
 */
#ifndef PZ_IP_LISTEN_H
#define PZ_IP_LISTEN_H

#include <stdbool.h>
#include <stdint.h>

#include <lwip/tcp.h>
#include <lwip/udp.h>

/* What a service listens with; both NULL until ip_listen_open() succeeds. */
struct ip_listen {
    struct tcp_pcb *tcp; /* the listening pcb */
    struct udp_pcb *udp;
};

/*
 * Bind TCP and UDP to port (any address), listen with backlog, and pass arg
 * to accept (TCP) and recv (UDP).  Call under the core lock.  Returns true,
 * or false with nothing left open.
 */
bool ip_listen_open(struct ip_listen *l, uint16_t port, uint8_t backlog, void *arg,
                    tcp_accept_fn accept, udp_recv_fn recv);

/* Close what ip_listen_open() opened.  Call under the core lock. */
void ip_listen_close(struct ip_listen *l);

/*
 * Forget a connection's pcb: its callbacks off (arg, recv, sent, err,
 * poll), then close it, or abort it when abort is true or the close fails.
 * Call under the core lock.  Returns ERR_ABRT when it aborted, else ERR_OK
 * (lwIP's rule: a callback returns ERR_ABRT only after tcp_abort()).
 */
err_t ip_tcp_release(struct tcp_pcb *pcb, bool abort);

#endif

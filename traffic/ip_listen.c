/*
 * ip_listen.c - a service's TCP listener and UDP socket on one port, the
 * closing of a TCP connection (ip_listen.h).
 */
#include "ip_listen.h"

bool ip_listen_open(struct ip_listen *l, uint16_t port, uint8_t backlog, void *arg,
                    tcp_accept_fn accept, udp_recv_fn recv)
{
    struct tcp_pcb *pcb = tcp_new();

    l->tcp = NULL;
    l->udp = udp_new();
    if (pcb && l->udp && tcp_bind(pcb, IP_ANY_TYPE, port) == ERR_OK &&
        udp_bind(l->udp, IP_ANY_TYPE, port) == ERR_OK)
        l->tcp = tcp_listen_with_backlog(pcb, backlog); /* frees pcb when it succeeds */
    if (l->tcp) {
        tcp_arg(l->tcp, arg);
        tcp_accept(l->tcp, accept);
        udp_recv(l->udp, recv, arg);
        return true;
    }
    if (pcb)
        tcp_close(pcb);
    if (l->udp)
        udp_remove(l->udp);
    l->udp = NULL;
    return false;
}

void ip_listen_close(struct ip_listen *l)
{
    tcp_close(l->tcp);
    udp_remove(l->udp);
}

err_t ip_tcp_release(struct tcp_pcb *pcb, bool abort)
{
    tcp_arg(pcb, NULL);
    tcp_recv(pcb, NULL);
    tcp_sent(pcb, NULL);
    tcp_err(pcb, NULL);
    tcp_poll(pcb, NULL, 0);
    if (abort || tcp_close(pcb) != ERR_OK) {
        tcp_abort(pcb);
        return ERR_ABRT;
    }
    return ERR_OK;
}

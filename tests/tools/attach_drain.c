/*
 * attach_drain.c - libpzumad2sim.so holds a client's DISCONNECT until the
 * simulator has read the client's last MAD (attach/pzumad_drain.c).
 *
 * Linked against the library, so its write() is the one this program's
 * writes reach, as umad2sim's do when both are preloaded.  A "simulator"
 * thread owns the far ends of two AF_UNIX datagram socket pairs (packets,
 * control); the main thread writes a sim_request and then, at once, a
 * DISCONNECT, as umad2sim's exit handler does after saquery's last RMPP
 * ACK.  The simulator reads the control socket first (as ibsim does), after
 * a pause, and reports what it found there:
 *   - DISCONNECT seen while the packet was still unread: the library let it
 *     pass too early (without the drain: always);
 *   - otherwise the packet was read first, and the DISCONNECT came after.
 * The check is one of order, not of time: the pause only makes the wrong
 * order certain without the drain; the drain waits up to 2 s, far more than
 * the pause.  Exit 0 when the order was right, 1 otherwise.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sim_proto.h"

/* The simulator's ends: packets[1], ctl[1]; the client's: packets[0], ctl[0]. */
struct drain_bed {
    int packets[2], ctl[2];
    int packet_read_first; /* 1: the packet was read before the DISCONNECT arrived */
};

/* Whether fd has a datagram waiting now. */
static int readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};

    return poll(&p, 1, 0) == 1;
}

/* The simulator: after a pause, reads the control socket first if it has something (ibsim's
 * order), else the packet and then waits for the control message. */
static void *simulator(void *arg)
{
    struct drain_bed *b = arg;
    const struct timespec pause = {0, 300 * 1000000L};
    struct sim_request req;
    struct sim_ctl ctl;

    nanosleep(&pause, NULL);
    if (readable(b->ctl[1])) {
        b->packet_read_first = 0;
        return NULL;
    }
    if (read(b->packets[1], &req, sizeof(req)) != (ssize_t)sizeof(req))
        return NULL;
    if (read(b->ctl[1], &ctl, sizeof(ctl)) == (ssize_t)sizeof(ctl) &&
        ctl.type == SIM_CTL_DISCONNECT)
        b->packet_read_first = 1;
    return NULL;
}

int main(void)
{
    struct drain_bed b = {.packet_read_first = -1};
    struct sim_request req;
    struct sim_ctl ctl;
    pthread_t t;

    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, b.packets) != 0 ||
        socketpair(AF_UNIX, SOCK_DGRAM, 0, b.ctl) != 0) {
        perror("socketpair");
        return 2;
    }
    memset(&req, 0, sizeof(req));
    req.mad[0] = 1; /* an RMPP ACK's header would do; the content is not looked at */
    memset(&ctl, 0, sizeof(ctl));
    ctl.magic = SIM_PROTO_MAGIC;
    ctl.type = SIM_CTL_DISCONNECT;
    if (pthread_create(&t, NULL, simulator, &b) != 0)
        return 2;
    if (write(b.packets[0], &req, sizeof(req)) != (ssize_t)sizeof(req) ||
        write(b.ctl[0], &ctl, sizeof(ctl)) != (ssize_t)sizeof(ctl)) {
        perror("write");
        return 2;
    }
    pthread_join(t, NULL);
    printf("packet read before the DISCONNECT: %s\n", b.packet_read_first == 1 ? "yes" : "no");
    return b.packet_read_first == 1 ? 0 : 1;
}

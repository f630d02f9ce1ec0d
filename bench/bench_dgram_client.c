/*
 * bench_dgram_client.c - port-0 datagrams per second between two pzfabric
 * nodes, each attached as its port-0 stack over "<sockname>:dgram" (the
 * board/sim datagram path an external portzerod uses, and the one every
 * IPoIB datagram will take): node A sends to node B with up to WINDOW
 * datagrams not yet received, for SECONDS.
 *
 *   bench_dgram_client SOCKNAME NODE_A NODE_B SECONDS [WINDOW [SIZE]]
 *
 * Both nodes need LIDs (an SM must have swept).  Prints "<received>
 * <seconds> <per second> <lost>" on one line; exit status 1 if nothing
 * arrived.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board_sim_dgram.h"

#define DGRAM_QKEY 0x1234ABCDu

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Receive every datagram waiting at d; returns how many. */
static unsigned long drain(struct board_sim_dgram *d, uint8_t *buf, size_t cap)
{
    struct board_dgram_addr a;
    unsigned long n = 0;

    while (board_sim_dgram_recv(d, &a, buf, cap) >= 0)
        n++;
    return n;
}

/* Attach node; returns the stack or NULL (message printed). */
static struct board_sim_dgram *attach(const char *sockname, const char *node)
{
    char err[128];
    struct board_sim_dgram *d =
        board_sim_dgram_connect(sockname, node, DGRAM_QKEY, err, sizeof(err));

    if (!d)
        fprintf(stderr, "bench_dgram_client: %s: %s\n", node, err);
    return d;
}

int main(int argc, char **argv)
{
    static uint8_t buf[BOARD_DGRAM_MAX_PAYLOAD];
    double seconds = argc > 4 ? atof(argv[4]) : 0, start, end;
    long window = argc > 5 ? atol(argv[5]) : 64;
    long size = argc > 6 ? atol(argv[6]) : 256;
    unsigned long sent = 0, received = 0, lost = 0;
    struct board_dgram_addr to = {.pkey = 0xFFFF, .qkey = DGRAM_QKEY};
    struct board_sim_dgram *a, *b;

    if (seconds <= 0 || window < 1 || size < 1 || size > BOARD_DGRAM_MAX_PAYLOAD) {
        fprintf(stderr,
                "usage: bench_dgram_client SOCKNAME NODE_A NODE_B SECONDS [WINDOW [SIZE]]\n");
        return 2;
    }
    a = attach(argv[1], argv[2]);
    b = a ? attach(argv[1], argv[3]) : NULL;
    if (!b) {
        board_sim_dgram_close(a);
        return 1;
    }
    to.dlid = board_sim_dgram_lid(b);
    to.dst_qp = board_sim_dgram_qpn(b);
    start = now_s();
    end = start + seconds;
    while (now_s() < end) {
        struct pollfd pfd = {.fd = board_sim_dgram_fd(b), .events = POLLIN};

        while (sent - received - lost < (unsigned long)window &&
               board_sim_dgram_send(a, &to, buf, (size_t)size) == 0)
            sent++;
        if (poll(&pfd, 1, 100) <= 0)
            lost = sent - received; /* nothing for 100 ms: the rest is lost */
        received += drain(b, buf, sizeof(buf));
    }
    seconds = now_s() - start;
    received += drain(b, buf, sizeof(buf));
    printf("%lu %.3f %.0f %lu\n", received, seconds, (double)received / seconds, sent - received);
    board_sim_dgram_close(a);
    board_sim_dgram_close(b);
    return received ? 0 : 1;
}

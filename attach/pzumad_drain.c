/*
 * pzumad_drain.c - a client's last MADs reach the simulator before its
 * disconnect does.
 *
 * umad2sim says goodbye from an atexit() handler: a DISCONNECT on its
 * control socket, while the last MADs it wrote may still wait, unread, in
 * the simulator's packet socket.  ibsim reads its control sockets before
 * its clients' packets and drops the packets of a client that is gone, so
 * saquery's final RMPP ACK (written just before it exits) was lost whenever
 * ibsim was slow to run, and OpenSM aborted the transfer ("no ACK after the
 * retries") on a loaded machine.  On hardware a MAD that umad accepted is
 * the HCA's to send whatever the process does next.
 *
 * So the write() that umad2sim's packet and control writes pass through
 * (pzumad_timeout.c) notes every socket a sim_request went to, and before a
 * DISCONNECT goes out it waits, at most PZU_DRAIN_MS, until the simulator
 * has read everything written there: an AF_UNIX datagram stays charged to
 * its sender's socket (SIOCOUTQ) until the receiver reads it.
 */
#define _GNU_SOURCE
#include <linux/sockios.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include "pzumad_timeout.h"

#define PZU_DRAIN_FDS 8   /* packet sockets remembered (umad2sim: one a device) */
#define PZU_DRAIN_MS 2000 /* the longest wait before a DISCONNECT */
#define PZU_DRAIN_STEP_NS 1000000L

/* The packet sockets written to, as fd + 1 (0: a free slot); any thread adds. */
static int pzu_packet_fds[PZU_DRAIN_FDS];

/* Whether fd is already among the noted packet sockets. */
static int pzu_drain_known(int fd)
{
    for (int i = 0; i < PZU_DRAIN_FDS; i++)
        if (__atomic_load_n(&pzu_packet_fds[i], __ATOMIC_ACQUIRE) == fd + 1)
            return 1;
    return 0;
}

/* Whether fd is an AF_UNIX datagram socket, as umad2sim's packet socket is (a write of a
 * sim_request's size to a file, a pipe or another socket is the program's own). */
static int pzu_drain_is_packet_socket(int fd)
{
    struct stat st;
    int domain = 0, type = 0;
    socklen_t len = sizeof(domain);

    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
        getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0 || domain != AF_UNIX)
        return 0;
    len = sizeof(type);
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_DGRAM;
}

void pzu_drain_note_packet_fd(int fd)
{
    if (fd < 0 || pzu_drain_known(fd) || !pzu_drain_is_packet_socket(fd))
        return;
    for (int i = 0; i < PZU_DRAIN_FDS; i++) {
        int want = 0;

        if (__atomic_compare_exchange_n(&pzu_packet_fds[i], &want, fd + 1, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE) ||
            want == fd + 1)
            return;
    }
}

/* Waits until fd's queue toward the simulator is empty, or until deadline_ns passed. */
static void pzu_drain_fd(int fd, int64_t deadline_ns)
{
    const struct timespec step = {0, PZU_DRAIN_STEP_NS};
    struct timespec now;
    int queued;

    for (;;) {
        if (ioctl(fd, SIOCOUTQ, &queued) != 0 || queued <= 0)
            return;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((int64_t)now.tv_sec * 1000000000 + now.tv_nsec >= deadline_ns)
            return;
        nanosleep(&step, NULL);
    }
}

void pzu_drain_before_ctl(const void *buf, size_t count)
{
    struct sim_ctl ctl;
    struct timespec now;
    int64_t deadline;

    if (count != sizeof(ctl))
        return;
    memcpy(&ctl, buf, sizeof(ctl));
    if (ctl.magic != SIM_PROTO_MAGIC || ctl.type != SIM_CTL_DISCONNECT)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    deadline = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec + (int64_t)PZU_DRAIN_MS * 1000000;
    for (int i = 0; i < PZU_DRAIN_FDS; i++) {
        int v = __atomic_load_n(&pzu_packet_fds[i], __ATOMIC_ACQUIRE);

        if (v > 0)
            pzu_drain_fd(v - 1, deadline);
    }
}

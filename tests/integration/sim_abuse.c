/*
 * sim_abuse.c - a misbehaving ibsim client for pzfabric's robustness test.
 *
 *   sim_abuse SOCKNAME NODE
 *
 * Sends malformed control messages (short, long, bad magic, unknown type,
 * unknown client, unknown node), attaches more clients than ibsim allows
 * (ibsim has 10), fires thousands of garbage and mutated MADs, and then
 * checks that the server still answers properly: a control request and a
 * directed-route NodeInfo Get to NODE's own SMA.  Exit status 0 = all good.
 */
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <infiniband/mad.h>

#include "mad_header.h"
#include "sim_proto.h"

#define ABUSE_CLIENTS 24 /* more than ibsim's fixed 10 */
#define ABUSE_PACKETS 5000
#define ABUSE_WAIT_MS 3000

static const char *sockname; /* set once from argv */

/* Fill *a with the abstract name "\0<sockname>:<suffix><num>\0"; returns its length. */
static socklen_t abuse_addr(struct sockaddr_un *a, const char *suffix, long num)
{
    char name[96];
    int len = num >= 0 ? snprintf(name, sizeof(name), "%s:%s%ld", sockname, suffix, num)
                       : snprintf(name, sizeof(name), "%s:%s", sockname, suffix);

    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path + 1, name, (size_t)len);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)len + 2);
}

/* A datagram socket bound to <suffix><num> and connected to <peer_suffix>[peer_num]. */
static int abuse_socket(const char *suffix, long num, const char *peer_suffix, long peer_num)
{
    struct sockaddr_un a;
    socklen_t len;
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

    if (fd < 0)
        return -1;
    len = abuse_addr(&a, suffix, num);
    if (bind(fd, (struct sockaddr *)&a, len))
        goto fail;
    if (peer_suffix) {
        len = abuse_addr(&a, peer_suffix, peer_num);
        if (connect(fd, (struct sockaddr *)&a, len))
            goto fail;
    }
    return fd;
fail:
    perror("sim_abuse: socket");
    close(fd);
    return -1;
}

/* Connect a client's packet socket to the server's <sockname>:out<id>; returns 0 or -1. */
static int sim_connect_out(int fd, int id)
{
    struct sockaddr_un a;
    socklen_t len = abuse_addr(&a, "out", id);

    return connect(fd, (struct sockaddr *)&a, len);
}

/* Wait up to ABUSE_WAIT_MS for fd to be readable; returns 1 if so. */
static int abuse_wait(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};

    return poll(&p, 1, ABUSE_WAIT_MS) == 1;
}

/* Send a control message and read the answer; returns the answer's type or -1. */
static int abuse_ctl(int fd, uint32_t client, uint32_t type, const void *data, size_t len,
                     struct sim_ctl *answer)
{
    struct sim_ctl ctl = {.magic = SIM_PROTO_MAGIC, .clientid = client, .type = type};

    ctl.len = (uint32_t)len;
    if (len)
        memcpy(ctl.data, data, len);
    if (send(fd, &ctl, sizeof(ctl), 0) != sizeof(ctl) || !abuse_wait(fd) ||
        recv(fd, answer, sizeof(*answer), 0) != sizeof(*answer))
        return -1;
    return (int)answer->type;
}

/* Send raw bytes on the control socket that get no answer (malformed). */
static void abuse_raw(int fd, const void *buf, size_t len)
{
    if (send(fd, buf, len, 0) < 0)
        perror("sim_abuse: send");
}

/* Attach a client with the fake pid and node; returns its id or -1. */
static int abuse_connect(int ctl_fd, long pid, const char *node)
{
    struct sim_client_info info = {.id = (uint32_t)pid};
    struct sim_ctl answer;

    snprintf(info.nodeid, sizeof(info.nodeid), "%s", node);
    if (abuse_ctl(ctl_fd, 0, SIM_CTL_CONNECT, &info, sizeof(info), &answer) != SIM_CTL_CONNECT)
        return -1;
    memcpy(&info, answer.data, sizeof(info));
    return (int)info.id;
}

/* Malformed control messages: none may crash the server; errors come back as errors. */
static int abuse_control(int ctl_fd)
{
    struct sim_ctl bad = {.magic = 0x12345678, .type = SIM_CTL_GET_NODEINFO}, answer;
    uint8_t big[300] = {0};
    int failures = 0;

    abuse_raw(ctl_fd, "short", 5);
    abuse_raw(ctl_fd, big, sizeof(big));
    abuse_raw(ctl_fd, &bad, sizeof(bad));
    if (abuse_ctl(ctl_fd, 0, 99, NULL, 0, &answer) != SIM_CTL_ERROR) {
        fprintf(stderr, "unknown control type: not answered with an error\n");
        failures++;
    }
    if (abuse_ctl(ctl_fd, 123456, SIM_CTL_GET_NODEINFO, NULL, 0, &answer) != SIM_CTL_ERROR) {
        fprintf(stderr, "unknown client: not answered with an error\n");
        failures++;
    }
    if (abuse_connect(ctl_fd, 1, "NoSuchNode") != -1) {
        fprintf(stderr, "attach to an unknown node: accepted\n");
        failures++;
    }
    return failures;
}

/* A DR NodeInfo Get with hop count 0 (for the client's own node). */
static void abuse_nodeinfo_req(struct sim_request *r, uint64_t tid)
{
    memset(r, 0, sizeof(*r));
    r->dlid = htons(0xFFFF);
    r->slid = htons(0xFFFF);
    r->length = htobe64(256);
    mad_header_init(r->mad, IB_SMI_DIRECT_CLASS, 1, IB_MAD_METHOD_GET, tid, IB_ATTR_NODE_INFO, 0);
    mad_dr_init(r->mad, 0, 0, 0xFFFF, 0xFFFF, NULL);
}

/* Read and discard whatever is waiting on fd. */
static void abuse_drain(int fd)
{
    struct sim_request r;

    while (recv(fd, &r, sizeof(r), MSG_DONTWAIT) > 0)
        ;
}

/* Garbage and mutated MADs of every size on one client's socket. */
static void abuse_packets(int fd)
{
    uint8_t buf[600];
    unsigned seed = 4242;

    for (int i = 0; i < ABUSE_PACKETS; i++) {
        size_t len = sizeof(struct sim_request);
        struct sim_request r;

        if (i % 10 == 0)
            len = (size_t)rand_r(&seed) % sizeof(buf);
        abuse_nodeinfo_req(&r, (uint64_t)i);
        memcpy(buf, &r, sizeof(r));
        for (int m = 0; m < 1 + i % 8; m++)
            buf[(size_t)rand_r(&seed) % sizeof(r)] = (uint8_t)rand_r(&seed);
        if (i % 7 == 0) /* fully random */
            for (size_t b = 0; b < len; b++)
                buf[b] = (uint8_t)rand_r(&seed);
        send(fd, buf, len, MSG_DONTWAIT);
        if (i % 64 == 0)
            abuse_drain(fd);
    }
    abuse_drain(fd);
}

/* After the abuse: a DR NodeInfo Get must be answered with status 0 and a NodeInfo. */
static int abuse_check_alive(int fd)
{
    struct sim_request r, answer;
    uint64_t tid = 0x0123456789abcdefull;

    abuse_drain(fd);
    abuse_nodeinfo_req(&r, tid);
    if (send(fd, &r, sizeof(r), 0) != sizeof(r))
        return 1;
    while (abuse_wait(fd)) {
        if (recv(fd, &answer, sizeof(answer), 0) != sizeof(answer))
            continue;
        if (mad_get_field64(answer.mad, 0, IB_MAD_TRID_F) != tid)
            continue;
        if (ntohl(answer.status) || !mad_get_field(answer.mad, 0, IB_MAD_RESPONSE_F) ||
            mad_get_field(answer.mad, 0, IB_DRSMP_STATUS_F) ||
            mad_get_field(answer.mad + 64, 0, IB_NODE_NPORTS_F) == 0) {
            fprintf(stderr, "NodeInfo answer is wrong\n");
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "no answer to a NodeInfo Get after the abuse\n");
    return 1;
}

int main(int argc, char **argv)
{
    long base = (long)getpid() * 100;
    int ctl_fd, fds[ABUSE_CLIENTS], ids[ABUSE_CLIENTS], failures = 0;
    struct sim_ctl answer;

    if (argc != 3) {
        fprintf(stderr, "usage: sim_abuse SOCKNAME NODE\n");
        return 2;
    }
    sockname = argv[1];
    ctl_fd = abuse_socket("ctl", base, "ctl", -1);
    if (ctl_fd < 0)
        return 1;
    failures += abuse_control(ctl_fd);
    for (int i = 0; i < ABUSE_CLIENTS; i++) {
        fds[i] = abuse_socket("in", base + i, NULL, 0);
        ids[i] = fds[i] < 0 ? -1 : abuse_connect(ctl_fd, base + i, argv[2]);
        if (ids[i] < 0 || sim_connect_out(fds[i], ids[i])) {
            fprintf(stderr, "client %d of %d could not attach\n", i + 1, ABUSE_CLIENTS);
            return 1;
        }
    }
    abuse_packets(fds[ABUSE_CLIENTS - 1]);
    failures += abuse_check_alive(fds[0]);
    if (abuse_ctl(ctl_fd, (uint32_t)ids[0], SIM_CTL_GET_NODEINFO, NULL, 0, &answer) !=
        SIM_CTL_GET_NODEINFO) {
        fprintf(stderr, "GET_NODEINFO failed after the abuse\n");
        failures++;
    }
    for (int i = 0; i < ABUSE_CLIENTS; i++)
        abuse_ctl(ctl_fd, (uint32_t)ids[i], SIM_CTL_DISCONNECT, NULL, 0, &answer);
    printf("sim_abuse: %d failures\n", failures);
    return failures ? 1 : 0;
}

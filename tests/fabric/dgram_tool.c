/*
 * dgram_tool.c - a port-0 datagram stack of a pzfabric node for the tests,
 * through the board/sim datagram API (board/board_sim_dgram.h).
 *
 *   dgram_tool --sockname NAME --node NODE [--qkey Q] recv COUNT [TIMEOUT_MS]
 *       attach, print "qpn 0x.. lid N", then one line per datagram received:
 *       "seq I slid S dlid D sl L src_qp 0x.. dst_qp 0x.. qkey 0x.. pkey 0x..
 *       len N grh 0|1 payload ok|bad"; exit 0 once COUNT arrived, 1 on timeout.
 *   dgram_tool ... send DLID QPN COUNT [SIZE [SL [PKEY [QKEY [grh]]]]]
 *       attach, print "qpn 0x.. lid N", post COUNT datagrams of SIZE bytes
 *       (default 100): 4-byte sequence number, then a pattern.  "grh": with
 *       a GRH (HopLimit 1, DGID fe80::1234).
 *   dgram_tool ... abuse
 *       malformed messages on the datagram socket: before and after an
 *       attach, an unknown node, more stacks on NODE (up to its QP limit
 *       each its own QP, then refused); prints what the
 *       fabric answered; exit 0 if every answer was the expected one.
 */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "board_sim_dgram.h"

/* Command line. */
struct opts {
    const char *sockname;
    const char *node;
    uint32_t qkey;
    int argc; /* what follows the options */
    char **argv;
};

/* Byte i of the payload of datagram seq. */
static uint8_t pattern(uint32_t seq, size_t i)
{
    return (uint8_t)(i * 7 + seq);
}

/* Milliseconds of CLOCK_MONOTONIC. */
static long long now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Attach as NODE's stack and print its QP number and LID; NULL on failure. */
static struct board_sim_dgram *attach(const struct opts *o)
{
    char err[256];
    struct board_sim_dgram *d =
        board_sim_dgram_connect(o->sockname, o->node, o->qkey, err, sizeof(err));

    if (!d) {
        fprintf(stderr, "dgram_tool: %s\n", err);
        return NULL;
    }
    printf("qpn 0x%06x lid %u\n", board_sim_dgram_qpn(d), board_sim_dgram_lid(d));
    fflush(stdout);
    return d;
}

/* Print one received datagram and whether its payload is the sender's pattern. */
static void print_dgram(const struct board_dgram_addr *a, const uint8_t *buf, int len)
{
    uint32_t seq = len >= 4 ? (uint32_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3] : 0;
    int ok = len >= 4;

    for (int i = 4; ok && i < len; i++)
        ok = buf[i] == pattern(seq, (size_t)i);
    printf("seq %u slid %u dlid %u sl %u src_qp 0x%06x dst_qp 0x%06x qkey 0x%08x pkey 0x%04x "
           "len %d grh %d payload %s\n",
           seq, a->slid, a->dlid, a->sl, a->src_qp, a->dst_qp, a->qkey, a->pkey, len, a->has_grh,
           ok ? "ok" : "bad");
    fflush(stdout);
}

/* recv COUNT [TIMEOUT_MS] */
static int cmd_recv(const struct opts *o)
{
    long count = o->argc > 0 ? strtol(o->argv[0], NULL, 0) : 1;
    long long deadline = now_ms() + (o->argc > 1 ? strtol(o->argv[1], NULL, 0) : 10000);
    static uint8_t buf[BOARD_DGRAM_MAX_PAYLOAD];
    struct board_sim_dgram *d = attach(o);
    long got = 0;

    if (!d)
        return 2;
    while (got < count && now_ms() < deadline) {
        struct pollfd pfd = {.fd = board_sim_dgram_fd(d), .events = POLLIN};
        struct board_dgram_addr a;
        int len;

        poll(&pfd, 1, 100);
        while ((len = board_sim_dgram_recv(d, &a, buf, sizeof(buf))) >= 0) {
            print_dgram(&a, buf, len);
            got++;
        }
        if (len != -EAGAIN) {
            fprintf(stderr, "dgram_tool: receive failed: %s\n", strerror(-len));
            break;
        }
    }
    board_sim_dgram_close(d);
    return got >= count ? 0 : 1;
}

/* send DLID QPN COUNT [SIZE [SL [PKEY [QKEY]]]] */
static int cmd_send(const struct opts *o)
{
    static uint8_t buf[BOARD_DGRAM_MAX_PAYLOAD];
    struct board_dgram_addr a = {.pkey = 0xFFFF};
    struct board_sim_dgram *d;
    long count;
    size_t size;

    if (o->argc < 3) {
        fprintf(stderr, "dgram_tool: send DLID QPN COUNT [SIZE [SL [PKEY [QKEY [grh]]]]]\n");
        return 2;
    }
    a.dlid = (uint16_t)strtoul(o->argv[0], NULL, 0);
    a.dst_qp = (uint32_t)strtoul(o->argv[1], NULL, 0);
    count = strtol(o->argv[2], NULL, 0);
    size = o->argc > 3 ? strtoul(o->argv[3], NULL, 0) : 100;
    a.sl = (uint8_t)(o->argc > 4 ? strtoul(o->argv[4], NULL, 0) : 0);
    a.pkey = (uint16_t)(o->argc > 5 ? strtoul(o->argv[5], NULL, 0) : 0xFFFF);
    a.qkey = o->argc > 6 ? (uint32_t)strtoul(o->argv[6], NULL, 0) : o->qkey;
    if (o->argc > 7 && !strcmp(o->argv[7], "grh")) {
        a.has_grh = true;
        a.grh[7] = 1;     /* HopLimit */
        a.grh[24] = 0xFE; /* DGID fe80::1234 */
        a.grh[25] = 0x80;
        a.grh[38] = 0x12;
        a.grh[39] = 0x34;
    }
    if (size < 4 || size > sizeof(buf))
        return 2;
    d = attach(o);
    if (!d)
        return 2;
    for (long seq = 0; seq < count; seq++) {
        buf[0] = (uint8_t)(seq >> 24);
        buf[1] = (uint8_t)(seq >> 16);
        buf[2] = (uint8_t)(seq >> 8);
        buf[3] = (uint8_t)seq;
        for (size_t i = 4; i < size; i++)
            buf[i] = pattern((uint32_t)seq, i);
        if (board_sim_dgram_send(d, &a, buf, size)) {
            fprintf(stderr, "dgram_tool: send %ld failed\n", seq);
            board_sim_dgram_close(d);
            return 1;
        }
    }
    printf("sent %ld\n", count);
    board_sim_dgram_close(d);
    return 0;
}

/* A raw connection to "<sockname>:dgram", or -1. */
static int raw_connect(const char *sockname)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int len = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "%s:dgram", sockname);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa,
                           (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)len))) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Wait for a message on fd: its length, 0 for the fabric closing, -1 for none within 2 s. */
static long raw_wait(int fd, uint8_t *buf, size_t cap)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};

    if (poll(&pfd, 1, 2000) != 1)
        return -1;
    return recv(fd, buf, cap, 0);
}

/* The status of an ATTACHED answer in buf (n bytes), or 1 if it is not one. */
static int attached_status(const uint8_t *buf, long n)
{
    struct board_sim_dgram_msg m;

    if (n <= 0 || board_sim_dgram_decode(buf, (size_t)n, &m) || m.op != BOARD_SIM_DGRAM_ATTACHED)
        return 1;
    return m.status;
}

/* Report one abuse case; returns 0 if it went as expected. */
static int expect(const char *what, int ok)
{
    printf("%s: %s\n", what, ok ? "ok" : "UNEXPECTED");
    return ok ? 0 : 1;
}

/* The QP number of an accepted ATTACHED answer, or 0. */
static uint32_t attached_qpn(const uint8_t *buf, long n)
{
    struct board_sim_dgram_msg m;

    if (n <= 0 || board_sim_dgram_decode(buf, (size_t)n, &m) || m.op != BOARD_SIM_DGRAM_ATTACHED ||
        m.status)
        return 0;
    return m.a.src_qp;
}

/*
 * More stacks on the node that holds one (QP first): each further one up to
 * BOARD_QP_MAX in all is its own QP, the next one is refused.  Returns the
 * number of unexpected answers.
 */
static int abuse_more_qps(const struct opts *o, uint32_t first)
{
    struct board_dgram_addr a = {.qkey = o->qkey};
    uint8_t buf[BOARD_SIM_DGRAM_HDR + BOARD_SIM_DGRAM_NAME_MAX];
    uint32_t qpns[BOARD_QP_MAX] = {first};
    int fds[BOARD_QP_MAX + 1], fails = 0, distinct = first != 0;
    size_t len = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_ATTACH, 0, &a, o->node,
                                        strlen(o->node));
    long n;

    for (int i = 1; i <= BOARD_QP_MAX; i++) {
        fds[i] = raw_connect(o->sockname);
        send(fds[i], buf, len, 0);
        n = raw_wait(fds[i], buf, sizeof(buf));
        if (i < BOARD_QP_MAX) {
            qpns[i] = attached_qpn(buf, n);
            distinct += qpns[i] != 0;
            for (int k = 0; k < i; k++)
                distinct -= qpns[i] && qpns[k] == qpns[i];
        } else {
            fails +=
                expect("a stack beyond the node's QPs refused", attached_status(buf, n) == -EBUSY);
        }
        len = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_ATTACH, 0, &a, o->node,
                                     strlen(o->node));
    }
    fails +=
        expect("further stacks on the node attached, each its own QP", distinct == BOARD_QP_MAX);
    for (int i = 1; i <= BOARD_QP_MAX; i++)
        close(fds[i]);
    return fails;
}

/* On a new connection, send one message (op, payload text) as the first; returns the
 * status of the ATTACHED answer (attached_status() of what came back). */
static int first_answer_status(const struct opts *o, enum board_sim_dgram_op op, const char *text)
{
    static uint8_t buf[BOARD_SIM_DGRAM_MAX + 64];
    struct board_dgram_addr a = {.qkey = 1};
    int fd = raw_connect(o->sockname);
    size_t len = board_sim_dgram_encode(buf, sizeof(buf), op, 0, &a, text, strlen(text));
    long n;

    send(fd, buf, len, 0);
    n = raw_wait(fd, buf, sizeof(buf));
    close(fd);
    return attached_status(buf, n);
}

/* abuse: malformed and refused messages. */
static int cmd_abuse(const struct opts *o)
{
    static uint8_t buf[BOARD_SIM_DGRAM_MAX + 64];
    struct board_dgram_addr a = {.qkey = 1};
    int fails = 0, fd;
    long n;
    size_t len;

    /* Garbage before ATTACH: an error answer, then the fabric closes. */
    fd = raw_connect(o->sockname);
    memset(buf, 0xA5, 100);
    send(fd, buf, 100, 0);
    n = raw_wait(fd, buf, sizeof(buf));
    fails += expect("garbage before attach refused", attached_status(buf, n) == -EPROTO);
    fails += expect("then closed", raw_wait(fd, buf, sizeof(buf)) == 0);
    close(fd);

    fails += expect("unknown node refused",
                    first_answer_status(o, BOARD_SIM_DGRAM_ATTACH, "NoSuchNode") == -ENOENT);
    fails += expect("send before attach refused",
                    first_answer_status(o, BOARD_SIM_DGRAM_SEND, "x") == -EPROTO);

    /* Attached: garbage, truncated, oversized, unknown ops, bad addresses: no answer, no harm. */
    fd = raw_connect(o->sockname);
    len = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_ATTACH, 0, &a, o->node,
                                 strlen(o->node));
    send(fd, buf, len, 0);
    n = raw_wait(fd, buf, sizeof(buf));
    fails += expect("attach accepted", attached_status(buf, n) == 0);
    fails += abuse_more_qps(o, attached_qpn(buf, n));
    memset(buf, 0x5A, sizeof(buf));
    send(fd, buf, 3, 0);
    send(fd, buf, BOARD_SIM_DGRAM_MAX + 10, 0);
    a = (struct board_dgram_addr){.dlid = 1, .dst_qp = 0x200, .qkey = 1, .pkey = 0xFFFF};
    len = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_SEND, 0, &a, "abc", 3);
    send(fd, buf, len - 1, 0);         /* length field says 3, 2 came */
    buf[5] = BOARD_SIM_DGRAM_ATTACHED; /* a server-only message type */
    send(fd, buf, len, 0);
    buf[5] = BOARD_SIM_DGRAM_SEND;
    buf[24] = 0; /* destination QP 0x000000: a MAD QP */
    buf[25] = 0;
    buf[26] = 0;
    buf[27] = 0;
    send(fd, buf, len, 0);
    a = (struct board_dgram_addr){.dlid = 0xC000, .dst_qp = 0x200, .qkey = 1, .pkey = 0xFFFF};
    len = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_SEND, 0, &a, "abc", 3);
    send(fd, buf, len, 0); /* multicast LID to a unicast QP */
    a.dlid = 0xFFFF;
    len = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_SEND, 0, &a, "abc", 3);
    send(fd, buf, len, 0); /* permissive DLID */
    a = (struct board_dgram_addr){.dlid = 1, .dst_qp = 0x200, .qkey = 1, .pkey = 0x1234};
    len = board_sim_dgram_encode(buf, sizeof(buf), BOARD_SIM_DGRAM_SEND, 0, &a, "abc", 3);
    send(fd, buf, len, 0); /* a P_Key the node does not have */
    n = raw_wait(fd, buf, sizeof(buf));
    fails += expect("no answer to posted messages, connection kept", n == -1);
    close(fd);
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct opts o = {.sockname = getenv("IBSIM_SOCKNAME"), .qkey = 0x0B1B};
    int i;

    for (i = 1; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--sockname"))
            o.sockname = argv[i + 1];
        else if (!strcmp(argv[i], "--node"))
            o.node = argv[i + 1];
        else if (!strcmp(argv[i], "--qkey"))
            o.qkey = (uint32_t)strtoul(argv[i + 1], NULL, 0);
        else
            break;
    }
    if (!o.sockname)
        o.sockname = "sim";
    if (i >= argc || !o.node) {
        fprintf(stderr, "usage: dgram_tool [--sockname NAME] --node NODE [--qkey Q] "
                        "recv|send|abuse ...\n");
        return 2;
    }
    o.argc = argc - i - 1;
    o.argv = argv + i + 1;
    if (!strcmp(argv[i], "recv"))
        return cmd_recv(&o);
    if (!strcmp(argv[i], "send"))
        return cmd_send(&o);
    if (!strcmp(argv[i], "abuse"))
        return cmd_abuse(&o);
    fprintf(stderr, "dgram_tool: unknown command %s\n", argv[i]);
    return 2;
}

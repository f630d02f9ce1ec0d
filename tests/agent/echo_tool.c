/*
 * echo_tool.c - the requester side of the switch-to-switch echo service
 * (traffic/pz_echo.h) for the tests: attaches as a pzfabric node's port-0
 * stack (board/board_sim_dgram.h) and runs the agent's own echo code on it.
 *
 *   echo_tool --sockname NAME --node NODE [--qkey Q] ping DLID QPN COUNT [SIZE [TIMEOUT_MS]]
 *       print "qpn 0x.. lid N"; post COUNT requests of SIZE bytes (default
 *       100) with pz_echo_ping_start, then one line per matched reply:
 *       "reply seq I slid S sl L pkey 0x.... qkey 0x........ src_qp 0x.. len N
 *       rtt_ns T"; finally "sent N received M malformed K stray J"; exit 0
 *       once every reply arrived, 1 on timeout (default 10000 ms).
 *   echo_tool ... bad DLID QPN [WAIT_MS]
 *       post malformed echo datagrams (empty, short, bad magic, bad version,
 *       bad type, an unsolicited reply), then listen WAIT_MS (default 1000)
 *       ms; print "sent 6 answers K"; exit 0 if nothing came back.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "board_sim_dgram.h"
#include "pz_echo.h"

/* Board ops that only know the datagram QP and the clock (all pz_echo uses). */
static int et_open(void *ctx, uint32_t qkey, uint32_t *qpn)
{
    return board_sim_dgram_open(ctx, qkey, qpn);
}

static int et_send(void *ctx, const struct board_dgram_addr *a, const void *p, size_t len)
{
    return board_sim_dgram_send(ctx, a, p, len);
}

static int et_recv(void *ctx, struct board_dgram_addr *a, void *buf, size_t cap)
{
    return board_sim_dgram_recv(ctx, a, buf, cap);
}

static int et_fd(void *ctx)
{
    return board_sim_dgram_fd(ctx);
}

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t et_now(void *ctx)
{
    struct timespec ts;

    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct board_ops et_ops = {
    .now_ns = et_now,
    .dgram_open = et_open,
    .dgram_send = et_send,
    .dgram_recv = et_recv,
    .dgram_fd = et_fd,
};

/* Print one matched reply (pz_echo_reply_fn). */
static void et_reply(void *arg, uint32_t seq, uint64_t rtt_ns, const struct board_dgram_addr *from,
                     size_t len)
{
    (void)arg;
    printf("reply seq %u slid %u sl %u pkey 0x%04x qkey 0x%08x src_qp 0x%06x len %zu rtt_ns %llu\n",
           (unsigned)seq, from->slid, from->sl, from->pkey, (unsigned)from->qkey,
           (unsigned)from->src_qp, len, (unsigned long long)rtt_ns);
}

/* Wait up to ms for the stack's descriptor to poll readable. */
static void et_wait(const struct board *b, int ms)
{
    struct pollfd pfd = {.fd = board_dgram_fd(b), .events = POLLIN};

    poll(&pfd, 1, ms < 0 ? 0 : ms);
}

/* The "ping" command; returns the exit status. */
static int et_ping(const struct board *b, struct pz_echo *e, int argc, char **argv)
{
    struct pz_echo_ping p = {.pkey = 0xFFFF, .len = 100};
    struct pz_echo_ping_result r;
    struct pz_echo_stats st;
    uint64_t deadline;

    if (argc < 3)
        return 2;
    p.dlid = (uint16_t)strtoul(argv[0], NULL, 0);
    p.dst_qp = (uint32_t)strtoul(argv[1], NULL, 0);
    p.count = (unsigned)strtoul(argv[2], NULL, 0);
    if (argc > 3)
        p.len = strtoul(argv[3], NULL, 0);
    deadline = et_now(NULL) + (argc > 4 ? strtoull(argv[4], NULL, 0) : 10000) * 1000000ull;
    if (pz_echo_ping_start(e, &p, et_reply, NULL) < 0) {
        fprintf(stderr, "echo_tool: bad ping parameters\n");
        return 2;
    }
    for (;;) {
        if (pz_echo_poll(e, 64) == -ENOTCONN)
            break;
        pz_echo_ping_result(e, &r);
        if (r.received == p.count || et_now(NULL) >= deadline)
            break;
        et_wait(b, 50);
    }
    pz_echo_ping_result(e, &r);
    pz_echo_stats(e, &st);
    printf("sent %u received %u malformed %llu stray %llu\n", r.sent, r.received,
           (unsigned long long)st.malformed, (unsigned long long)st.stray_replies);
    return r.received == p.count ? 0 : 1;
}

/* The "bad" command; returns the exit status. */
static int et_bad(const struct board *b, uint32_t qkey, int argc, char **argv)
{
    uint8_t good[64], bad[64], buf[BOARD_DGRAM_MAX_PAYLOAD];
    struct pz_echo_hdr h = {.type = PZ_ECHO_REQUEST, .seq = 77};
    struct board_dgram_addr a = {.pkey = 0xFFFF, .qkey = qkey}, from;
    static const struct {
        unsigned off;
        uint8_t val;
        size_t len;
    } kinds[] = {{0, 0, 0},     {0, 'P', PZ_ECHO_HDR_LEN - 1}, {3, 'X', 64}, {4, 9, 64},
                 {5, 0x7F, 64}, {5, PZ_ECHO_REPLY, 64}};
    uint64_t deadline;
    int answers = 0;

    if (argc < 2)
        return 2;
    a.dlid = (uint16_t)strtoul(argv[0], NULL, 0);
    a.dst_qp = (uint32_t)strtoul(argv[1], NULL, 0);
    pz_echo_encode(good, sizeof(good), &h);
    memset(good + PZ_ECHO_HDR_LEN, 0xEE, sizeof(good) - PZ_ECHO_HDR_LEN);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        memcpy(bad, good, sizeof(bad));
        bad[kinds[i].off] = kinds[i].val;
        if (board_dgram_send(b, &a, bad, kinds[i].len)) {
            fprintf(stderr, "echo_tool: send refused\n");
            return 2;
        }
    }
    deadline = et_now(NULL) + (argc > 2 ? strtoull(argv[2], NULL, 0) : 1000) * 1000000ull;
    while (et_now(NULL) < deadline) {
        int n = board_dgram_recv(b, &from, buf, sizeof(buf));

        if (n == -EAGAIN)
            et_wait(b, 50);
        else if (n >= 0)
            answers++;
        else
            break;
    }
    printf("sent %zu answers %d\n", sizeof(kinds) / sizeof(kinds[0]), answers);
    return answers ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *sockname = "sim", *node = NULL;
    uint32_t qkey = PZ_ECHO_QKEY_DEFAULT, qpn = 0;
    char err[256];
    int i, rc = 2;

    for (i = 1; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--sockname"))
            sockname = argv[i + 1];
        else if (!strcmp(argv[i], "--node"))
            node = argv[i + 1];
        else if (!strcmp(argv[i], "--qkey"))
            qkey = (uint32_t)strtoul(argv[i + 1], NULL, 0);
        else
            break;
    }
    if (i >= argc || !node) {
        fprintf(stderr, "usage: echo_tool [--sockname NAME] --node NODE [--qkey Q] "
                        "ping DLID QPN COUNT [SIZE [TIMEOUT_MS]] | bad DLID QPN [WAIT_MS]\n");
        return 2;
    }
    struct board_sim_dgram *d = board_sim_dgram_connect(sockname, node, qkey, err, sizeof(err));

    if (!d) {
        fprintf(stderr, "echo_tool: %s\n", err);
        return 1;
    }
    struct board_identity id = {.node_type = BOARD_NODE_SWITCH};
    struct board b = {.id = &id, .ops = &et_ops, .ctx = d};
    struct pz_echo *e = pz_echo_create(&b, qkey);

    if (e && board_dgram_open(&b, qkey, &qpn) == 0) {
        printf("qpn 0x%06x lid %u\n", (unsigned)qpn, board_sim_dgram_lid(d));
        fflush(stdout);
        if (!strcmp(argv[i], "ping"))
            rc = et_ping(&b, e, argc - i - 1, argv + i + 1);
        else if (!strcmp(argv[i], "bad"))
            rc = et_bad(&b, qkey, argc - i - 1, argv + i + 1);
        else
            fprintf(stderr, "echo_tool: unknown command %s\n", argv[i]);
    }
    pz_echo_destroy(e);
    board_sim_dgram_close(d);
    return rc;
}

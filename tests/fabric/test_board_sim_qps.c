/*
 * test_board_sim_qps.c - port-0 QPs of a board/sim board through pzfabric's
 * sockets: a fabric and its socket server run in-process (a thread serves
 * the sockets), a board_sim takes over switch S2 over "<sockname>:board"
 * and opens two QPs with different Q_Keys itself (board_qp_open: one
 * "<sockname>:dgram" connection each); a stack attached at S1 over the
 * datagram socket sends to each.  Each QP receives only its own datagrams.
 *
 *   S1 [1] S2[1]        LIDs: S1 1, S2 2
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "board_sim.h"
#include "board_sim_dgram.h"
#include "fabric.h"
#include "fabric_bed.h"
#include "sim_proto.h"
#include "sim_server.h"
#include "pzt_main.h"

#define QKEY_IP 0x0B1Bu
#define QKEY_ECHO 0x505A0001u

static const char net[] = "Switch 4 \"S1\"\n"
                          "[1] \"S2\"[1]\n"
                          "\n"
                          "Switch 4 \"S2\"\n"
                          "[1] \"S1\"[1]\n";

/* The fabric, its server and the thread that serves the sockets. */
struct bed {
    struct fabric *f;
    struct sim_server *s;
    pthread_t thread;
    atomic_bool stop;
    char sockname[64];
    int umad_in, umad_ctl; /* this process's umad client at S2 (as umad2sim's) */
};

/* A datagram socket bound to the abstract address "\0sockname:suffix\0" (ibsim's form). */
static int umad_socket(const struct bed *b, const char *suffix, struct sockaddr_un *sa,
                       socklen_t *len)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int n;

    memset(sa, 0, sizeof(*sa));
    sa->sun_family = AF_UNIX;
    n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "%s:%s", b->sockname, suffix);
    *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)n + 2);
    return fd;
}

/*
 * Connect a umad client of this process at S2 over NAME:ctl, as umad2sim
 * does: the fabric lets a board/sim attach only where its process has one.
 */
static void umad_connect(struct bed *b)
{
    struct sockaddr_un sa;
    socklen_t len;
    char suffix[32];
    struct sim_ctl ctl = {.magic = SIM_PROTO_MAGIC, .type = SIM_CTL_CONNECT};
    struct sim_client_info info = {.id = (uint32_t)getpid()};
    struct pollfd pfd;

    snprintf(suffix, sizeof(suffix), "in%d", (int)getpid());
    b->umad_in = umad_socket(b, suffix, &sa, &len);
    assert_int_equal(bind(b->umad_in, (struct sockaddr *)&sa, len), 0);
    snprintf(suffix, sizeof(suffix), "ctl%d", (int)getpid());
    b->umad_ctl = umad_socket(b, suffix, &sa, &len);
    assert_int_equal(bind(b->umad_ctl, (struct sockaddr *)&sa, len), 0);
    close(umad_socket(b, "ctl", &sa, &len));
    assert_int_equal(connect(b->umad_ctl, (struct sockaddr *)&sa, len), 0);
    strcpy(info.nodeid, "S2");
    memcpy(ctl.data, &info, sizeof(info));
    ctl.len = sizeof(info);
    assert_int_equal(send(b->umad_ctl, &ctl, sizeof(ctl), 0), (ssize_t)sizeof(ctl));
    pfd = (struct pollfd){.fd = b->umad_ctl, .events = POLLIN};
    assert_int_equal(poll(&pfd, 1, 2000), 1);
    assert_int_equal(recv(b->umad_ctl, &ctl, sizeof(ctl), 0), (ssize_t)sizeof(ctl));
    assert_int_equal(ctl.type, SIM_CTL_CONNECT);
}

/* Serve the fabric's sockets until told to stop. */
static void *serve(void *arg)
{
    struct bed *b = arg;

    while (!atomic_load(&b->stop))
        sim_server_run_once(b->s, 20);
    return NULL;
}

/* Build the fabric (LIDs, links Active, LFTs) and start its server. */
static int setup(void **state)
{
    static const uint16_t lids[2] = {1, 2};
    static const uint8_t s1[2] = {0, 1}, s2[2] = {1, 0};
    char err[256];
    struct bed *b = calloc(1, sizeof(*b));

    assert_non_null(b);
    b->f = fbed_fabric(net);
    board_set_lid(fbed_board(b->f, "S1"), 0, 1, 0);
    board_set_lid(fbed_board(b->f, "S2"), 0, 2, 0);
    fbed_activate(b->f, "S1", 1);
    fbed_activate(b->f, "S2", 1);
    fbed_program_lft(b->f, "S1", lids, s1, 2);
    fbed_program_lft(b->f, "S2", lids, s2, 2);
    assert_int_equal(fabric_agent_expect(b->f, fbed_node(b->f, "S2")), 0); /* pzfabric --agent S2 */
    snprintf(b->sockname, sizeof(b->sockname), "pztest-qps-%d", (int)getpid());
    b->s = sim_server_create(b->sockname, b->f, 0, err, sizeof(err));
    assert_non_null(b->s);
    assert_int_equal(pthread_create(&b->thread, NULL, serve, b), 0);
    umad_connect(b);
    *state = b;
    return 0;
}

static int teardown(void **state)
{
    struct bed *b = *state;

    atomic_store(&b->stop, true);
    pthread_join(b->thread, NULL);
    close(b->umad_ctl);
    close(b->umad_in);
    sim_server_destroy(b->s);
    fabric_destroy(b->f);
    free(b);
    return 0;
}

/* Wait up to 2 s for a datagram on QP qp of board bd: its length or a negative errno. */
static int recv_wait(const struct board *bd, int qp, struct board_dgram_addr *a, void *buf,
                     size_t cap)
{
    for (int i = 0; i < 100; i++) {
        struct pollfd pfd = {.fd = board_qp_fd(bd, qp), .events = POLLIN};
        int n = board_qp_recv(bd, qp, a, buf, cap);

        if (n != -EAGAIN)
            return n;
        poll(&pfd, 1, 20);
    }
    return -EAGAIN;
}

/* Send len bytes from the S1 stack to S2's QP qpn with Q_Key qkey. */
static void send_to_s2(struct board_sim_dgram *s1, uint32_t qpn, uint32_t qkey, size_t len)
{
    static const uint8_t payload[64] = {1, 2, 3};
    struct board_dgram_addr a = {.dlid = 2, .pkey = 0xFFFF, .dst_qp = qpn, .qkey = qkey};

    assert_int_equal(board_sim_dgram_send(s1, &a, payload, len), 0);
}

/* Two QPs the board opened itself, each with its Q_Key: each gets its own datagrams. */
static void test_two_qps(void **state)
{
    struct bed *b = *state;
    char err[256];
    struct board_sim *bs = board_sim_connect(b->sockname, "S2", err, sizeof(err));
    struct board_sim_dgram *s1;
    const struct board *bd;
    struct board_dgram_addr got;
    uint32_t qpn_ip = 0, qpn_echo = 0;
    uint8_t buf[128];
    int ip, echo;

    if (!bs)
        fail_msg("board_sim_connect: %s", err);
    bd = board_sim_board(bs);
    assert_true(board_has_qps(bd));
    assert_false(board_has_dgram(bd)); /* no connection given: the single-QP ops stay off */
    ip = board_qp_open(bd, QKEY_IP, &qpn_ip);
    echo = board_qp_open(bd, QKEY_ECHO, &qpn_echo);
    assert_int_equal(ip, 0);
    assert_int_equal(echo, 1);
    assert_int_not_equal(qpn_ip, qpn_echo);
    assert_true(board_qp_fd(bd, ip) >= 0 && board_qp_fd(bd, echo) >= 0);
    s1 = board_sim_dgram_connect(b->sockname, "S1", QKEY_IP, err, sizeof(err));
    assert_non_null(s1);

    send_to_s2(s1, qpn_echo, QKEY_ECHO, 20);
    assert_int_equal(recv_wait(bd, echo, &got, buf, sizeof(buf)), 20);
    assert_int_equal(got.dst_qp, qpn_echo);
    assert_int_equal(got.qkey, QKEY_ECHO);
    assert_int_equal(got.src_qp, board_sim_dgram_qpn(s1));
    send_to_s2(s1, qpn_ip, QKEY_IP, 21);
    assert_int_equal(recv_wait(bd, ip, &got, buf, sizeof(buf)), 21);
    assert_int_equal(got.dst_qp, qpn_ip);
    send_to_s2(s1, qpn_echo, QKEY_IP, 22); /* Q_Key violation at the echo QP: dropped */
    send_to_s2(s1, qpn_ip, QKEY_IP, 23);   /* sent after it: when it is in, the other was judged */
    assert_int_equal(recv_wait(bd, ip, &got, buf, sizeof(buf)), 23);
    assert_int_equal(board_qp_recv(bd, echo, &got, buf, sizeof(buf)), -EAGAIN);

    /* The echo QP answers as itself. */
    struct board_dgram_addr a = {
        .dlid = 1, .pkey = 0xFFFF, .dst_qp = board_sim_dgram_qpn(s1), .qkey = QKEY_IP};
    assert_int_equal(board_qp_send(bd, echo, &a, "pong", 4), 0);
    for (int i = 0; i < 100; i++) {
        struct pollfd pfd = {.fd = board_sim_dgram_fd(s1), .events = POLLIN};
        int n = board_sim_dgram_recv(s1, &got, buf, sizeof(buf));

        if (n != -EAGAIN) {
            assert_int_equal(n, 4);
            break;
        }
        poll(&pfd, 1, 20);
    }
    assert_int_equal(got.src_qp, qpn_echo);
    assert_memory_equal(buf, "pong", 4);

    /* A new Q_Key; closing one leaves the other. */
    assert_int_equal(board_qp_set_qkey(bd, echo, 0x99), 0);
    send_to_s2(s1, qpn_echo, 0x99, 24);
    assert_int_equal(recv_wait(bd, echo, &got, buf, sizeof(buf)), 24);
    board_qp_close(bd, echo);
    assert_int_equal(board_qp_recv(bd, echo, &got, buf, sizeof(buf)), -EBADF);
    send_to_s2(s1, qpn_ip, QKEY_IP, 25);
    assert_int_equal(recv_wait(bd, ip, &got, buf, sizeof(buf)), 25);

    /* The node's limit: BOARD_QP_MAX attached QPs (s1 is on S1). */
    for (int i = 1; i < BOARD_QP_MAX; i++)
        assert_int_equal(board_qp_open(bd, 1, NULL), i);
    assert_int_equal(board_qp_open(bd, 1, NULL), -ENOSPC);
    board_sim_dgram_close(s1);
    board_sim_close(bs); /* closes its QPs */
}

PZT_MAIN_SETUP(setup, teardown, test_two_qps)

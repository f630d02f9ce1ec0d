/*
 * test_board_sim.c - board/sim: an SMA whose board is a remote switch.
 *
 * A server thread executes board/sim requests on an in-memory board (as
 * pzfabric does for a switch); the SMA under test sits on the board_sim
 * client at the other end of a SOCK_SEQPACKET socketpair.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board_mem.h"
#include "board_sim.h"
#include "board_sim_mad.h"
#include "board_sim_proto.h"
#include "pzt.h"
#include "pzt_main.h"

/* The fabric side: an in-memory switch and the socket it serves. */
struct server {
    struct board_identity id;
    struct board_mem *bm;
    int fd;
    pthread_t thread;
    unsigned served;
    unsigned rejected;
    /*
     * As pzfabric (version 4): grant BOARD_SIM_ATTACH_MADS, answer
     * COUNTERS_MANY, send every MAD back as the fabric's (ingress port 3)
     * and a MAD of its own (TID 0xF00 + n) before every answer, so that
     * MADs arrive while the client waits for an answer.
     */
    bool mads;
    unsigned injected;
};

/* board_sim_serve_counters_many's emitter: send one answer. */
static void server_emit(void *arg, const struct board_sim_msg *m)
{
    send(((struct server *)arg)->fd, m, sizeof(*m), MSG_NOSIGNAL);
}

/* Send a MAD from the fabric: m's, or (NULL) an SMP Get with TID 0xF00 + n. */
static void server_send_mad(struct server *s, const struct board_sim_mad *m)
{
    struct board_sim_mad own = {.slid = 0xFFFF, .dlid = 0xFFFF, .len = 256, .port = 3};
    struct board_sim_msg msg;

    if (!m) {
        own.mad[0] = 1;
        own.mad[1] = 0x81;
        own.mad[2] = 1;
        own.mad[3] = 0x01;
        own.mad[15] = (uint8_t)s->injected;
        own.mad[14] = 0x0F;
        s->injected++;
        m = &own;
    }
    board_sim_pack_mad(&msg, 0, m);
    send(s->fd, &msg, sizeof(msg), MSG_NOSIGNAL);
}

/* What the version-4 server does with a message the plain one does not know; true if handled. */
static bool server_mads(struct server *s, const uint8_t *buf, size_t n)
{
    struct board_sim_msg m;
    struct board_sim_mad mad;

    if (!s->mads || board_sim_msg_decode(buf, n, &m))
        return false;
    if (m.op == BOARD_SIM_MAD) {
        if (board_sim_unpack_mad(&m, &mad) == 0) {
            mad.port = 3;
            server_send_mad(s, &mad);
        }
        return true;
    }
    server_send_mad(s, NULL); /* arrives before the answer */
    if (m.op != BOARD_SIM_COUNTERS_MANY)
        return false;
    board_sim_serve_counters_many(board_mem_board(s->bm), &m, server_emit, s);
    return true;
}

/* Serve requests until the peer goes away. */
static void *server_main(void *arg)
{
    struct server *s = arg;
    uint8_t buf[4096];
    struct board_sim_msg resp;
    ssize_t n;

    while ((n = recv(s->fd, buf, sizeof(buf), 0)) > 0) {
        if (server_mads(s, buf, (size_t)n))
            continue;
        if (board_sim_serve(board_mem_board(s->bm), buf, (size_t)n, &resp))
            s->rejected++;
        else
            s->served++;
        if (!board_sim_reply_wanted(&resp))
            continue; /* posted (LFT Set): never answered */
        if (s->mads && ntohs(resp.op) == BOARD_SIM_ATTACH && resp.status == 0)
            resp.c = htonl(BOARD_SIM_ATTACH_EVENTS | BOARD_SIM_ATTACH_MADS);
        if (send(s->fd, &resp, sizeof(resp), MSG_NOSIGNAL) < 0)
            break;
    }
    return NULL;
}

/* Start a server for an 8-port switch (mads: as pzfabric); returns the client's end. */
static int server_start_opts(struct server *s, bool mads)
{
    int sv[2];

    memset(s, 0, sizeof(*s));
    s->mads = mads;
    board_mem_default_switch_identity(&s->id, 0x0002c90000abcd00ull, 8);
    strcpy(s->id.node_desc, "remote spine");
    s->bm = board_mem_create(&s->id);
    assert_non_null(s->bm);
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    s->fd = sv[1];
    assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
    return sv[0];
}

/* Start a plain board/sim server (board_sim_serve only). */
static int server_start(struct server *s)
{
    return server_start_opts(s, false);
}

/* Stop the server (after the client closed its end). */
static void server_stop(struct server *s)
{
    pthread_join(s->thread, NULL);
    close(s->fd);
    board_mem_destroy(s->bm);
}

/* Attach gives the remote identity; the SMA answers NodeInfo from it. */
static void test_attach_identity(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));
    const struct board_identity *id;

    assert_non_null(bs);
    id = board_sim_board(bs)->id;
    assert_int_equal(id->num_ports, 8);
    assert_true(id->node_guid == 0x0002c90000abcd00ull);
    assert_string_equal(id->node_desc, "remote spine");
    assert_int_equal(id->lft_cap, s.id.lft_cap);
    assert_int_equal(id->mft_cap, s.id.mft_cap);
    board_sim_close(bs);
    server_stop(&s);
}

/* SMPs through an SMA on board_sim program the remote tables. */
static void test_sma_over_board_sim(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));
    struct pzt_node n = {0};
    uint8_t data[64] = {0}, resp[64];
    uint16_t keys[32];

    assert_non_null(bs);
    n.board = board_sim_board(bs);
    n.id = *n.board->id;
    n.sma = sma_create(n.board);
    assert_non_null(n.sma);
    board_mem_set_connected(s.bm, 3, true);

    /* LFT block 1: LID 64 -> port 3, LID 65 -> port 0. */
    data[0] = 3;
    data[1] = 0;
    memset(data + 2, 0xFF, 62);
    assert_int_equal(pzt_set(&n, IB_ATTR_LINEARFORWTBL, 1, data, resp), 0);
    assert_int_equal(resp[0], 3);
    assert_int_equal(resp[2], 0xFF);

    /* SwitchInfo LinearFDBTop and the switch LID reach the remote board. */
    assert_int_equal(pzt_get(&n, IB_ATTR_SWITCH_INFO, 0, data), 0);
    mad_set_field(data, 0, IB_SW_LINEAR_FDB_TOP_F, 65);
    assert_int_equal(pzt_set(&n, IB_ATTR_SWITCH_INFO, 0, data, NULL), 0);
    assert_int_equal(board_mem_lft_top(s.bm), 65);
    assert_int_equal(board_mem_lft_entry(s.bm, 64), 3);
    assert_int_equal(board_mem_lft_entry(s.bm, 65), 0);
    pzt_assign_lid(&n, 65, 1, 18);
    assert_int_equal(board_mem_lid(s.bm, 0), 65);

    /* Port 3 is cabled on the remote side: PortInfo shows it trained. */
    assert_int_equal(pzt_get(&n, IB_ATTR_PORT_INFO, 3, data), 0);
    assert_int_equal(mad_get_field(data, 0, IB_PORT_PHYS_STATE_F), BOARD_PHYS_LINKUP);
    assert_int_equal(mad_get_field(data, 0, IB_PORT_STATE_F), BOARD_PORT_INIT);

    /* P_Key Set on port 3 lands in the remote table. */
    memset(data, 0, sizeof(data));
    data[0] = 0x80;
    data[1] = 0x01;
    assert_int_equal(pzt_set(&n, IB_ATTR_PKEY_TBL, 3u << 16, data, resp), 0);
    assert_int_equal(board_pkey_get(board_mem_board(s.bm), 3, 0, keys), 0);
    assert_int_equal(keys[0], 0x8001);

    /* MFT and SL2VL round trips. */
    memset(data, 0, sizeof(data));
    data[0] = 0x00;
    data[1] = 0x0A; /* MLID 0xC000: ports 1 and 3 */
    assert_int_equal(pzt_set(&n, IB_ATTR_MULTICASTFORWTBL, 0, data, resp), 0);
    assert_true(board_mem_mft_has_port(s.bm, 0xC000, 3));
    assert_false(board_mem_mft_has_port(s.bm, 0xC000, 2));
    memset(data, 0x12, 8);
    assert_int_equal(pzt_set(&n, IB_ATTR_SLVL_TABLE, (2u << 8) | 3, data, resp), 0);
    assert_int_equal(resp[7], 0x12);

    /* Hardware counters travel whole: first, middle and last fields. */
    {
        struct board_port_counters *hw = board_mem_counters(s.bm, 3), c;

        hw->symbol_errors = 7;
        hw->xmit_wait = 0x0123456789abcdefull;
        hw->rcv_becn_sl[15] = 99;
        assert_int_equal(board_port_counters(n.board, 3, &c), 0);
        assert_int_equal(c.symbol_errors, 7);
        assert_true(c.xmit_wait == 0x0123456789abcdefull);
        assert_int_equal(c.rcv_becn_sl[15], 99);
        assert_int_equal(c.link_downed, 0);
    }

    sma_destroy(n.sma);
    board_sim_close(bs);
    server_stop(&s);
    assert_int_equal(s.rejected, 0);
    assert_true(s.served > 10);
}

/* Garbage gets an error response and the server keeps serving. */
static void test_garbage_rejected(void **state)
{
    struct server s;
    int fd = server_start(&s);
    uint8_t junk[100], buf[4096];
    struct board_sim_msg m, resp;
    char err[128];
    struct board_sim *bs;

    memset(junk, 0xA5, sizeof(junk));
    assert_int_equal(send(fd, junk, sizeof(junk), 0), (ssize_t)sizeof(junk));
    assert_true(recv(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(resp));
    assert_int_equal(board_sim_msg_decode(buf, sizeof(resp), &resp), 0);
    assert_true(resp.status < 0);
    /* A well-formed message with an unknown op is rejected too. */
    board_sim_msg_request(&m, 7, BOARD_SIM_LFT_GET, 0, 0, 0);
    m.op = htons(999);
    assert_int_equal(send(fd, &m, sizeof(m), 0), (ssize_t)sizeof(m));
    assert_true(recv(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(resp));
    /* An out-of-range block gets the board's error, not a crash. */
    board_sim_msg_request(&m, 8, BOARD_SIM_LFT_GET, 0xFFFFFFFFu, 0, 0);
    assert_int_equal(send(fd, &m, sizeof(m), 0), (ssize_t)sizeof(m));
    assert_true(recv(fd, buf, sizeof(buf), 0) == (ssize_t)sizeof(resp));
    assert_int_equal(board_sim_msg_decode(buf, sizeof(resp), &resp), 0);
    assert_int_equal(resp.seq, 8);
    assert_true(resp.status < 0);
    /* Still serving: a normal attach works afterwards. */
    bs = board_sim_attach_fd(fd, "spine-1", err, sizeof(err));
    assert_non_null(bs);
    board_sim_close(bs);
    server_stop(&s);
    assert_int_equal(s.rejected, 2);
}

/*
 * LFT block Sets are posted: no answer crosses the socket, a Get right after
 * sees the block, the remote table has it once any later request has been
 * answered (requests run in order), and a block beyond LinearFDBCap is
 * refused locally with the board's -EINVAL without reaching the fabric.
 */
static void test_lft_set_posted(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));
    const struct board *b;
    struct board_port_status st;
    uint8_t e[64], got[64], buf[4096];
    unsigned served, last = s.id.lft_cap / 64;

    assert_non_null(bs);
    b = board_sim_board(bs);
    for (unsigned i = 0; i < 64; i++)
        e[i] = (uint8_t)(i % 9);
    assert_int_equal(board_lft_set(b, 2, e), 0);
    assert_int_equal(board_lft_get(b, 2, got), 0);
    assert_memory_equal(got, e, sizeof(e));
    assert_int_equal(board_lft_set(b, last, e), -EINVAL);
    assert_int_equal(board_lft_set(b, 0xFFFFFFFFu, e), -EINVAL);
    /* A synchronous request after the Set: answered after the Set ran. */
    assert_int_equal(board_port_status(b, 1, &st), 0);
    served = s.served;
    assert_int_equal(served, 3); /* ATTACH, the posted Set, PORT_STATUS: not the refused ones */
    memset(got, 0xEE, sizeof(got));
    assert_int_equal(board_lft_get(board_mem_board(s.bm), 2, got), 0);
    assert_memory_equal(got, e, sizeof(e));
    /* Nothing else came back: no answer to the posted Set. */
    assert_true(recv(board_sim_fd(bs), buf, sizeof(buf), MSG_DONTWAIT) < 0);
    assert_int_equal(board_sim_errors(bs), 0);
    board_sim_close(bs);
    server_stop(&s);
    assert_int_equal(s.rejected, 0);
}

/*
 * MAD_RX: a board without receive records says so (-EOPNOTSUPP) through
 * board/sim, and a record survives the wire byte for byte.
 */
static void test_mad_rx(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));
    struct board_mad_rx rx = {.port = 7, .hop_ptr = 63}, back;
    uint8_t d[BOARD_SIM_DATA];

    assert_non_null(bs);
    assert_int_equal(board_mad_rx(board_sim_board(bs), 0x1234567800000001ull, &back), -EOPNOTSUPP);
    assert_int_equal(board_mad_rx(board_mem_board(s.bm), 1, &back), -EOPNOTSUPP);
    for (unsigned i = 0; i < BOARD_MAD_TAIL; i++)
        rx.tail[i] = (uint8_t)(0xA0 + i);
    board_sim_pack_mad_rx(d, &rx);
    memset(&back, 0, sizeof(back));
    board_sim_unpack_mad_rx(d, &back);
    assert_memory_equal(&back, &rx, sizeof(rx));
    assert_int_equal(board_sim_errors(bs), 0);
    board_sim_close(bs);
    server_stop(&s);
}

/* Give each port of the server's switch distinct counters. */
static void set_counters(struct server *s)
{
    for (unsigned p = 0; p <= 8; p++) {
        struct board_port_counters *c = board_mem_counters(s->bm, p);

        c->xmit_data = 1000 + p;
        c->rcv_pkts = 7 * p;
        c->xmit_wait = 0x100000000ull + p;
    }
}

/* Read ports 1..8 at once and one by one; both must agree with the server's. */
static void check_counters_many(struct board_sim *bs)
{
    struct board_port_counters many[8], one;

    assert_int_equal(board_port_counters_many(board_sim_board(bs), 1, 8, many), 0);
    for (unsigned i = 0; i < 8; i++) {
        assert_int_equal(board_port_counters(board_sim_board(bs), 1 + i, &one), 0);
        assert_memory_equal(&one, &many[i], sizeof(one));
        assert_int_equal(many[i].xmit_data, 1001 + i);
        assert_true(many[i].xmit_wait == 0x100000001ull + i);
    }
    /* A port beyond the switch: the error, the ports before it read. */
    assert_int_not_equal(board_port_counters_many(board_sim_board(bs), 7, 3, many), 0);
    assert_int_equal(many[1].xmit_data, 1008);
}

/* COUNTERS_MANY against a server that only knows board_sim_serve: port by port. */
static void test_counters_many_fallback(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));

    assert_non_null(bs);
    set_counters(&s);
    check_counters_many(bs);
    board_sim_close(bs);
    server_stop(&s);
}

/* COUNTERS_MANY against a version-4 server: one request, its answers between MADs. */
static void test_counters_many(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd_flags(server_start_opts(&s, true), "spine-1",
                                                     BOARD_SIM_ATTACH_MADS, err, sizeof(err));

    assert_non_null(bs);
    set_counters(&s);
    check_counters_many(bs);
    assert_true(board_sim_mad_pending(bs)); /* the server's MADs came meanwhile */
    assert_int_equal(board_sim_errors(bs), 0);
    board_sim_close(bs);
    server_stop(&s);
}

/*
 * MADs over the board connection: sent and received whole, with the
 * ingress port; MADs that come while a request waits are queued (pending)
 * and received in order; the receive record of an SMP request is the
 * MAD's own, without a round trip.
 */
static void test_mads_over_board(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd_flags(server_start_opts(&s, true), "spine-1",
                                                     BOARD_SIM_ATTACH_MADS, err, sizeof(err));
    struct board_sim_mad m = {.slid = 0, .dlid = 5, .sqp = 1, .dqp = 1, .len = 100}, got;
    struct board_mad_rx rx;
    uint16_t keys[32];
    unsigned n = 0;

    assert_non_null(bs);
    assert_true(board_sim_carries_mads(bs));
    for (unsigned i = 0; i < 100; i++)
        m.mad[i] = (uint8_t)(i + 1);
    assert_int_equal(board_sim_mad_send(bs, &m), 0);
    /*
     * A request: the server's MAD sent before ATTACH's answer (TID 0xF00),
     * the echo of ours and the server's before this answer (0xF01) wait in
     * the queue, in that order.
     */
    assert_int_equal(board_pkey_get(board_sim_board(bs), 1, 0, keys), 0);
    assert_true(board_sim_mad_pending(bs));
    board_sim_wake(bs);
    assert_int_equal(board_sim_mad_recv(bs, &got), 1);
    assert_int_equal(got.mad[14] << 8 | got.mad[15], 0xF00);
    assert_int_equal(board_sim_mad_recv(bs, &got), 1);
    assert_int_equal(got.len, 100);
    assert_int_equal(got.port, 3);
    assert_int_equal(got.dlid, 5);
    assert_int_equal(got.sqp, 1);
    assert_memory_equal(got.mad, m.mad, 100);
    assert_int_equal(got.mad[100], 0); /* the rest reads as zeros */
    assert_int_equal(board_sim_mad_recv(bs, &got), 1);
    assert_int_equal(got.mad[14] << 8 | got.mad[15], 0xF01);
    /* The receive record of the last SMP request taken, without a round trip. */
    assert_int_equal(board_mad_rx(board_sim_board(bs), 0xF01, &rx), 0);
    assert_int_equal(rx.port, 3);
    assert_int_equal(rx.tail[0], 0);
    assert_int_equal(board_mad_rx(board_sim_board(bs), 0xF00, &rx), -ENOENT);
    while (board_sim_mad_recv(bs, &got) == 1)
        n++;
    assert_int_equal(n, 0);
    assert_false(board_sim_mad_pending(bs));
    assert_int_equal(board_sim_errors(bs), 0);
    board_sim_close(bs);
    server_stop(&s);
}

/*
 * With the MADs on the connection, a posted LFT write goes out with the
 * next MAD (one sendmmsg), and the fabric executes it before it sees the
 * MAD: when the MAD comes back the switch has the block.
 */
static void test_posted_with_mad(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd_flags(server_start_opts(&s, true), "spine-1",
                                                     BOARD_SIM_ATTACH_MADS, err, sizeof(err));
    struct board_sim_mad m = {.dlid = 0xFFFF, .slid = 0xFFFF, .len = 256}, got;
    uint8_t e[64], back[64];
    int rc;

    assert_non_null(bs);
    for (unsigned i = 0; i < 64; i++)
        e[i] = (uint8_t)(i % 9);
    assert_int_equal(board_lft_set(board_sim_board(bs), 2, e), 0);
    assert_int_equal(board_lft_set(board_sim_board(bs), 3, e), 0);
    m.mad[1] = 0x81;
    m.mad[3] = 0x81; /* a GetResp */
    assert_int_equal(board_sim_mad_send(bs, &m), 0);
    /* The echo of our MAD comes after the server's own (TID 0xF00 at ATTACH). */
    for (unsigned tries = 0; tries < 50; tries++) {
        struct pollfd pfd = {.fd = board_sim_fd(bs), .events = POLLIN};

        if (!board_sim_mad_pending(bs))
            poll(&pfd, 1, 100);
        board_sim_wake(bs);
        while ((rc = board_sim_mad_recv(bs, &got)) == 1 && got.mad[3] != 0x81)
            ;
        if (rc == 1)
            break;
    }
    assert_int_equal(rc, 1);
    assert_int_equal(board_lft_get(board_mem_board(s.bm), 2, back), 0);
    assert_memory_equal(back, e, 64);
    assert_int_equal(board_lft_get(board_mem_board(s.bm), 3, back), 0);
    assert_memory_equal(back, e, 64);
    /* A write with nothing after it goes out with board_sim_flush(). */
    assert_int_equal(board_lft_set(board_sim_board(bs), 4, e), 0);
    assert_int_equal(board_sim_flush(bs), 0);
    assert_int_equal(board_sim_errors(bs), 0);
    board_sim_close(bs);
    pthread_join(s.thread, NULL); /* the server saw the end after the write */
    assert_int_equal(board_lft_get(board_mem_board(s.bm), 4, back), 0);
    assert_memory_equal(back, e, 64);
    close(s.fd);
    board_mem_destroy(s.bm);
}

/* A fabric that does not carry MADs refuses an agent that asks for them. */
static void test_mads_refused(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd_flags(server_start(&s), "spine-1",
                                                     BOARD_SIM_ATTACH_MADS, err, sizeof(err));

    assert_null(bs);
    assert_non_null(strstr(err, "does not carry MADs"));
    server_stop(&s);
}

/* Send a MAD of class cls (TID n) from the fabric without blocking; whether the socket took it. */
static bool server_try_mad(struct server *s, uint8_t cls, unsigned n)
{
    struct board_sim_mad m = {.slid = 0xFFFF, .dlid = 0xFFFF, .len = 256, .port = 3};
    struct board_sim_msg msg;

    m.mad[0] = 1;
    m.mad[1] = cls;
    m.mad[2] = 1;
    m.mad[3] = 0x01; /* Get */
    m.mad[14] = (uint8_t)(n >> 8);
    m.mad[15] = (uint8_t)n;
    board_sim_pack_mad(&msg, 0, &m);
    return send(s->fd, &msg, sizeof(msg), MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(msg);
}

/*
 * An SMP flood: the management port's receive queue keeps
 * BOARD_SIM_SMP_DEPTH SMP requests, drops the rest as they arrive (counted
 * in the VL15Dropped of the port they entered by, 3), and lets the GMPs that came
 * behind the flood through, all of them, in order.
 */
static void test_smp_flood_dropped(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd_flags(server_start_opts(&s, true), "spine-1",
                                                     BOARD_SIM_ATTACH_MADS, err, sizeof(err));
    struct board_port_counters c0, c1;
    struct board_sim_mad got;
    unsigned smps = 0, gmps = 0, got_smps = 0, got_gmps = 0, next_gmp = 0, ahead = 0;

    assert_non_null(bs);
    while (board_sim_mad_recv(bs, &got) == 1) /* the server's MAD before ATTACH's answer */
        ;
    assert_int_equal(board_port_counters(board_sim_board(bs), 3, &c0), 0);
    while (board_sim_mad_recv(bs, &got) == 1) /* and the one before this answer */
        ;
    /* the fabric sends while the socket takes them; the agent takes one MAD between */
    while (smps < 4 * BOARD_SIM_SMP_DEPTH || gmps < 8) {
        while (smps < 4 * BOARD_SIM_SMP_DEPTH && server_try_mad(&s, 0x81, smps))
            smps++;
        while (smps == 4 * BOARD_SIM_SMP_DEPTH && gmps < 8 &&
               server_try_mad(&s, 0x04, 0x8000 + gmps))
            gmps++;
        board_sim_wake(bs);
        assert_int_equal(board_sim_mad_recv(bs, &got), 1);
        got_smps++; /* the flood's SMPs come first */
        assert_int_equal(got.mad[1], 0x81);
    }
    board_sim_wake(bs);
    while (board_sim_mad_recv(bs, &got) == 1) {
        if (got.mad[1] == 0x04) {
            assert_int_equal(got.mad[14] << 8 | got.mad[15], 0x8000 + next_gmp++);
            got_gmps++;
        } else {
            got_smps++;
            ahead += !got_gmps;
        }
        if (!board_sim_mad_pending(bs))
            board_sim_wake(bs); /* as the agent loop does when the socket is readable */
    }
    assert_int_equal(got_gmps, 8);
    assert_true(board_sim_smp_dropped(bs) > 0);
    assert_int_equal(got_smps + board_sim_smp_dropped(bs), smps);
    /* the GMPs sent behind the flood waited for a queue's worth of SMPs at most */
    assert_true(ahead <= BOARD_SIM_SMP_DEPTH + BOARD_SIM_MAD_BATCH);
    assert_int_equal(board_sim_mad_dropped(bs), 0);
    /* port 3's VL15Dropped counts them, port 1's what the agent noted, port 0's none */
    board_sim_note_vl15_dropped(bs, 1, 5);
    assert_int_equal(board_port_counters(board_sim_board(bs), 3, &c1), 0);
    assert_int_equal(c1.vl15_dropped - c0.vl15_dropped, board_sim_smp_dropped(bs));
    assert_int_equal(board_port_counters(board_sim_board(bs), 1, &c1), 0);
    assert_int_equal(c1.vl15_dropped, 5);
    assert_int_equal(board_port_counters(board_sim_board(bs), 0, &c1), 0);
    assert_int_equal(c1.vl15_dropped, 0);
    board_sim_close(bs);
    server_stop(&s);
}

/* When the fabric goes away, operations fail promptly with -EIO. */
static void test_fabric_gone(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));
    uint8_t e[64];

    assert_non_null(bs);
    shutdown(s.fd, SHUT_RDWR);
    pthread_join(s.thread, NULL);
    assert_int_equal(board_lft_get(board_sim_board(bs), 0, e), -EIO);
    assert_true(board_sim_errors(bs) >= 1);
    memset(e, 1, sizeof(e));
    assert_int_equal(board_lft_set(board_sim_board(bs), 0, e), -EIO); /* posted: the send fails */
    board_sim_close(bs);
    close(s.fd);
    board_mem_destroy(s.bm);
}

/* A port's first P_Key block is read from the fabric once and kept until the agent writes it
 * (the IP plane reads port 0's every 100 ms). */
static void test_pkey_block0_kept(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));
    const struct board *b;
    uint16_t k[BOARD_PKEY_BLOCK], w[BOARD_PKEY_BLOCK] = {0xffff, 0x8001};
    unsigned served;

    assert_non_null(bs);
    b = board_sim_board(bs);
    assert_int_equal(board_pkey_get(b, 0, 0, k), 0);
    served = s.served;
    assert_int_equal(board_pkey_get(b, 0, 0, k), 0);
    assert_int_equal(s.served, served); /* kept */
    assert_int_equal(board_pkey_get(b, 1, 0, k), 0);
    assert_int_equal(s.served, served + 1); /* another port's: read once */
    assert_int_equal(board_pkey_set(b, 0, 0, w), 0);
    assert_int_equal(board_pkey_get(b, 0, 0, k), 0);
    assert_int_equal(s.served, served + 3); /* the Set, then one read of what the switch holds */
    assert_int_equal(k[1], 0x8001);
    assert_int_equal(board_pkey_get(b, 0, 0, k), 0);
    assert_int_equal(board_pkey_get(b, 1, 0, k), 0);
    assert_int_equal(s.served, served + 3);
    board_sim_close(bs);
    server_stop(&s);
}

PZT_MAIN(test_attach_identity, test_sma_over_board_sim, test_garbage_rejected, test_lft_set_posted,
         test_fabric_gone, test_mad_rx, test_counters_many_fallback, test_counters_many,
         test_mads_over_board, test_mads_refused, test_posted_with_mad, test_smp_flood_dropped,
         test_pkey_block0_kept)

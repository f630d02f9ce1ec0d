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
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "board_mem.h"
#include "board_sim.h"
#include "board_sim_proto.h"
#include "pzt.h"

/* The fabric side: an in-memory switch and the socket it serves. */
struct server {
    struct board_identity id;
    struct board_mem *bm;
    int fd;
    pthread_t thread;
    unsigned served;
    unsigned rejected;
};

/* Serve requests until the peer goes away. */
static void *server_main(void *arg)
{
    struct server *s = arg;
    uint8_t buf[4096];
    struct board_sim_msg resp;
    ssize_t n;

    while ((n = recv(s->fd, buf, sizeof(buf), 0)) > 0) {
        if (board_sim_serve(board_mem_board(s->bm), buf, (size_t)n, &resp))
            s->rejected++;
        else
            s->served++;
        if (!board_sim_reply_wanted(&resp))
            continue; /* posted (LFT Set): never answered */
        if (send(s->fd, &resp, sizeof(resp), MSG_NOSIGNAL) < 0)
            break;
    }
    return NULL;
}

/* Start a server for an 8-port switch; returns the client's end. */
static int server_start(struct server *s)
{
    int sv[2];

    memset(s, 0, sizeof(*s));
    board_mem_default_switch_identity(&s->id, 0x0002c90000abcd00ull, 8);
    strcpy(s->id.node_desc, "remote spine");
    s->bm = board_mem_create(&s->id);
    assert_non_null(s->bm);
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    s->fd = sv[1];
    assert_int_equal(pthread_create(&s->thread, NULL, server_main, s), 0);
    return sv[0];
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

    (void)state;
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

    (void)state;
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

    (void)state;
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

    (void)state;
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

    (void)state;
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

/* When the fabric goes away, operations fail promptly with -EIO. */
static void test_fabric_gone(void **state)
{
    struct server s;
    char err[128];
    struct board_sim *bs = board_sim_attach_fd(server_start(&s), "spine-1", err, sizeof(err));
    uint8_t e[64];

    (void)state;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_attach_identity),  cmocka_unit_test(test_sma_over_board_sim),
        cmocka_unit_test(test_garbage_rejected), cmocka_unit_test(test_lft_set_posted),
        cmocka_unit_test(test_fabric_gone),      cmocka_unit_test(test_mad_rx),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

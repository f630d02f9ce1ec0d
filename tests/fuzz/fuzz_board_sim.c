/*
 * fuzz_board_sim.c - libFuzzer target for the board/sim protocol, three ways
 * chosen by the top two bits of the first byte:
 *   0, 3: requests from a hostile agent, executed on an in-memory switch
 *         (board_sim_serve, what pzfabric does); the low bits size the switch;
 *   1:    what a hostile fabric sends an agent that attached with
 *         BOARD_SIM_ATTACH_MADS (MADs, port events, stale answers, junk),
 *         taken by board_sim's MAD queue over a socketpair
 *         (board_sim_mad_recv, the kept port statuses, board_mad_rx);
 *   2:    MAD messages from a hostile agent on its board connection, decoded
 *         and sent into a small fabric as its switch's client, as
 *         fabric/server/board_server.c does (board_sim_unpack_mad, fabric_client_send);
 *         every MAD the fabric hands back is packed and unpacked again.
 * Modes 1 and 2 read records: a 2-byte big-endian length and that many
 * bytes, laid over a zeroed message (a short tail is one last record).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "board_mem.h"
#include "board_sim_mad.h"
#include "board_sim_proto.h"
#include "fabric.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_RECORDS 48 /* what a socketpair's buffer holds at once */

/* Two switches cabled port 1 to port 1 (the fabric of mode 2). */
static const char net[] = "Switch 4 \"S1\"\n[1] \"S2\"[1]\n\nSwitch 4 \"S2\"\n[1] \"S1\"[1]\n";

/* Mode 0: the input is a sequence of requests; a short tail is sent as it is. */
static void fuzz_serve(const uint8_t *data, size_t size)
{
    struct board_identity id;
    struct board_mem *bm;
    struct board_sim_msg resp, check;
    size_t msg = sizeof(struct board_sim_msg);

    board_mem_default_switch_identity(&id, 0x10, 1 + data[0] % 48);
    id.lft_cap = 64 * 8;
    bm = board_mem_create(&id);
    if (!bm)
        return;
    for (size_t off = 1; off < size; off += msg) {
        size_t n = size - off < msg ? size - off : msg;

        board_sim_serve(board_mem_board(bm), data + off, n, &resp);
        /* Every answer is itself a well-formed message. */
        if (board_sim_msg_decode(&resp, sizeof(resp), &check))
            abort();
    }
    board_mem_destroy(bm);
}

/*
 * The next record at *off into msg (zeroed, at most sizeof(*msg) bytes);
 * returns its length as sent (0 when the input is used up).
 */
static size_t next_record(const uint8_t *data, size_t size, size_t *off, struct board_sim_msg *msg)
{
    size_t len = size - *off;

    if (*off >= size)
        return 0;
    if (len >= 2 && (size_t)(data[*off] << 8 | data[*off + 1]) <= len - 2) {
        len = (size_t)(data[*off] << 8 | data[*off + 1]);
        *off += 2;
    }
    memset(msg, 0, sizeof(*msg));
    memcpy(msg, data + *off, len < sizeof(*msg) ? len : sizeof(*msg));
    *off += len;
    return len ? len : 1;
}

/* The ATTACH answer a fabric that carries MADs gives (seq 1: the first request). */
static void attach_answer(int fd)
{
    struct board_identity id;
    struct board_sim_msg m;

    board_mem_default_switch_identity(&id, 0x20, 8);
    id.lft_cap = 64 * 4;
    board_sim_msg_request(&m, 1, BOARD_SIM_ATTACH, BOARD_SIM_VERSION, 0,
                          BOARD_SIM_ATTACH_EVENTS | BOARD_SIM_ATTACH_MADS);
    board_sim_pack_identity(m.data, &id);
    send(fd, &m, sizeof(m), MSG_DONTWAIT);
}

/* Mode 1: a hostile fabric's messages to an agent that takes its MADs on the connection. */
static void fuzz_agent_side(const uint8_t *data, size_t size)
{
    struct board_sim_msg msg;
    struct board_sim_mad m;
    struct board_port_status st;
    struct board_mad_rx rx;
    struct board_sim *bs;
    size_t off = 1, len;
    char err[128];
    int sv[2], rc;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv))
        return;
    attach_answer(sv[1]);
    bs = board_sim_attach_fd_flags(sv[0], "S1", BOARD_SIM_ATTACH_MADS, err, sizeof(err));
    if (!bs) {
        close(sv[1]);
        return;
    }
    for (unsigned k = 0; k < FUZZ_MAX_RECORDS && (len = next_record(data, size, &off, &msg)); k++)
        send(sv[1], &msg, len & 1 ? sizeof(msg) : len % (sizeof(msg) + 2), MSG_DONTWAIT);
    close(sv[1]);
    for (unsigned k = 0; k < 4 * FUZZ_MAX_RECORDS; k++) {
        board_sim_wake(bs);
        rc = board_sim_mad_recv(bs, &m);
        if (rc <= 0)
            break;
        if (m.len < BOARD_SIM_MAD_MIN || m.len > BOARD_SIM_MAD_BYTES)
            abort();
        board_port_status(board_sim_board(bs), m.port % 10, &st);
        board_mad_rx(board_sim_board(bs), (uint64_t)m.mad[8] << 56 | m.mad[15], &rx);
    }
    board_sim_close(bs);
}

/* fabric_deliver_fn of mode 2: every MAD the fabric hands out survives the board/sim codec. */
static void deliver(void *arg, unsigned client, const struct fabric_mad *fm)
{
    struct board_sim_mad m = {0}, back;
    struct board_sim_msg wire, decoded;

    (void)arg;
    (void)client;
    m.slid = fm->slid;
    m.dlid = fm->dlid;
    m.sqp = fm->sqp;
    m.dqp = fm->dqp;
    m.status = fm->status;
    m.len = fm->len && fm->len <= BOARD_SIM_MAD_BYTES ? fm->len : BOARD_SIM_MAD_BYTES;
    memcpy(m.mad, fm->mad, sizeof(m.mad));
    board_sim_pack_mad(&wire, 0, &m);
    if (board_sim_msg_decode(&wire, sizeof(wire), &decoded) ||
        board_sim_unpack_mad(&decoded, &back) || back.len != m.len || back.slid != m.slid ||
        back.dlid != m.dlid || back.dqp != m.dqp || memcmp(back.mad, m.mad, m.len))
        abort();
}

/* Mode 2: MAD messages from the agent of S1 (client 0); S2 has a umad client (1). */
static void fuzz_fabric_side(const uint8_t *data, size_t size)
{
    char err[TOPO_ERR_MAX];
    struct topo *t = topo_parse(net, sizeof(net) - 1, "fuzz", err);
    struct fabric *f = t ? fabric_create(t, 0) : NULL;
    struct board_sim_msg msg, decoded;
    struct board_sim_mad m;
    struct fabric_mad fm;
    size_t off = 1;

    topo_free(t);
    if (!f)
        return;
    fabric_set_deliver(f, deliver, NULL);
    if (fabric_client_attach(f, 0, 0, false) || fabric_agent_attach(f, 0, 0) ||
        fabric_client_attach(f, 1, 1, false)) {
        fabric_destroy(f);
        return;
    }
    for (unsigned k = 0; k < 4 * FUZZ_MAX_RECORDS && next_record(data, size, &off, &msg); k++) {
        if (board_sim_msg_decode(&msg, sizeof(msg), &decoded) || board_sim_unpack_mad(&decoded, &m))
            continue;
        memset(&fm, 0, sizeof(fm));
        memcpy(fm.mad, m.mad, sizeof(fm.mad));
        fm.slid = m.slid;
        fm.dlid = m.dlid;
        fm.sqp = m.sqp;
        fm.dqp = m.dqp;
        fm.len = m.len;
        fabric_client_send(f, 0, &fm);
    }
    fabric_destroy(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!size)
        return 0;
    switch (data[0] >> 6) {
    case 1:
        fuzz_agent_side(data, size);
        break;
    case 2:
        fuzz_fabric_side(data, size);
        break;
    default:
        fuzz_serve(data, size);
        break;
    }
    return 0;
}

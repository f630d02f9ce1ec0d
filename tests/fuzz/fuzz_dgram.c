/*
 * fuzz_dgram.c - libFuzzer target: messages on pzfabric's "<sockname>:dgram"
 * socket from a hostile stack (board_sim_dgram_decode), and the datagrams
 * they carry sent through a small fabric (fabric_dgram_send), as
 * fabric/server/dgram_server.c does with them.
 *
 * Input: a sequence of records, each a 2-byte big-endian length and that
 * many bytes of message; a short tail is one last message.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board_sim_dgram.h"
#include "fabric.h"
#include "fabric_dgram.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two switches with LIDs 1 and 2, cabled and Active, S1 routing LID 2 to S2. */
static const char net[] = "Switch 4 \"S1\"\n[1] \"S2\"[1]\n\nSwitch 4 \"S2\"\n[1] \"S1\"[1]\n";

/* Count what reaches the stack (fabric_dgram_rx_fn). */
static void rx(void *arg, size_t node, const struct board_dgram_addr *a, const uint8_t *payload,
               size_t len)
{
    (void)node;
    (void)a;
    if (len > BOARD_DGRAM_MAX_PAYLOAD || (len && !payload))
        abort();
    (*(unsigned long *)arg)++;
}

/* Build the fabric of the test (once per input: inputs must not influence each other). */
static struct fabric *make_fabric(unsigned long *got)
{
    char err[TOPO_ERR_MAX];
    struct topo *t = topo_parse(net, sizeof(net) - 1, "fuzz", err);
    struct fabric *f = t ? fabric_create(t, 0) : NULL;
    uint8_t lft[BOARD_LFT_BLOCK];

    topo_free(t);
    if (!f)
        return NULL;
    for (size_t n = 0; n < 2; n++) {
        const struct board *b = fabric_node_board(f, n);

        board_set_lid(b, 0, (uint16_t)(n + 1), 0);
        board_port_state_set(b, 1, BOARD_PORT_ARMED);
        board_port_state_set(b, 1, BOARD_PORT_ACTIVE);
        memset(lft, BOARD_LFT_DROP, sizeof(lft));
        lft[1] = n == 0 ? 0 : 1;
        lft[2] = n == 0 ? 1 : 0;
        board_lft_set(b, 0, lft);
        board_set_lft_top(b, BOARD_LFT_BLOCK - 1);
        fabric_dgram_attach(f, n, 0x0B1B, rx, got, NULL);
    }
    return f;
}

/* Handle one message from the stack of S1, as dgram_server.c does after ATTACH. */
static void one_message(struct fabric *f, const uint8_t *msg, size_t len)
{
    struct board_sim_dgram_msg m, again;
    uint8_t buf[BOARD_SIM_DGRAM_MAX];
    size_t n;

    if (board_sim_dgram_decode(msg, len, &m))
        return;
    /* What decodes re-encodes to a message that decodes the same. */
    n = board_sim_dgram_encode(buf, sizeof(buf), (enum board_sim_dgram_op)m.op, m.status, &m.a,
                               m.payload, m.len);
    if (!n || board_sim_dgram_decode(buf, n, &again) || again.len != m.len ||
        again.a.dlid != m.a.dlid || again.a.qkey != m.a.qkey || again.a.dst_qp != m.a.dst_qp ||
        memcmp(again.payload, m.payload, m.len))
        abort();
    if (m.op == BOARD_SIM_DGRAM_SEND)
        fabric_dgram_send(f, 0, &m.a, m.payload, m.len);
    else if (m.op == BOARD_SIM_DGRAM_QKEY)
        fabric_dgram_set_qkey(f, 1, m.a.qkey);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned long got = 0;
    struct fabric *f = make_fabric(&got);
    size_t off = 0;

    if (!f)
        return 0;
    while (off < size) {
        size_t len = size - off;

        if (len >= 2 && (size_t)(data[off] << 8 | data[off + 1]) <= len - 2) {
            len = (size_t)(data[off] << 8 | data[off + 1]);
            off += 2;
        }
        one_message(f, data + off, len);
        off += len;
    }
    fabric_destroy(f);
    return 0;
}

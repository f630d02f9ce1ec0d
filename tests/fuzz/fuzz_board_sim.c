/*
 * fuzz_board_sim.c - libFuzzer target: board/sim requests from a hostile
 * agent, executed on an in-memory switch (what pzfabric does).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board_mem.h"
#include "board_sim_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct board_identity id;
    struct board_mem *bm;
    struct board_sim_msg resp, check;
    size_t msg = sizeof(struct board_sim_msg);

    board_mem_default_switch_identity(&id, 0x10, 1 + (size ? data[0] % 48 : 0));
    id.lft_cap = 64 * 8;
    bm = board_mem_create(&id);
    if (!bm)
        return 0;
    /* The input is a sequence of messages; a short tail is sent as it is. */
    for (size_t off = size ? 1 : 0; off < size; off += msg) {
        size_t n = size - off < msg ? size - off : msg;

        board_sim_serve(board_mem_board(bm), data + off, n, &resp);
        /* Every answer is itself a well-formed message. */
        if (board_sim_msg_decode(&resp, sizeof(resp), &check))
            abort();
    }
    board_mem_destroy(bm);
    return 0;
}

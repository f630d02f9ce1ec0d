/*
 * fuzz_sma.c - libFuzzer target: random SMPs over random SMA state.
 *
 * The input is a small header that shapes the node (switch or CA, number of
 * ports, enhanced port 0, LFT/MFT caps) followed by a stream of operations:
 * feed a MAD on a port, cable or uncable a port, advance the clock, run
 * sma_poll().  Every answer is checked for basic sanity; ASan/UBSan and the
 * leak checker catch the rest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "board_mem.h"
#include "fuzz_input.h"
#include "sma.h"

/* Operation codes of the input stream (low 2 bits of the op byte). */
enum fuzz_op { FUZZ_MAD = 0, FUZZ_CABLE = 1, FUZZ_CLOCK = 2, FUZZ_POLL = 3 };

/* Build the node under test from the input header. */
static void fuzz_identity(struct fuzz_in *in, struct board_identity *id)
{
    uint8_t shape = fuzz_identity_base(in, id);

    id->optimized_sl2vl = shape & 4;
    id->speed_ext_supported = shape & 8 ? 3 : 0;
    id->guid_cap = (uint8_t)(1 + (shape >> 4) % 12);
    if (id->node_type == BOARD_NODE_SWITCH) {
        id->lft_cap = (uint16_t)(64 * (1 + fuzz_byte(in) % 16));
        id->mft_cap = (uint16_t)(32 * (fuzz_byte(in) % 4));
        id->partition_enforcement_cap = (uint16_t)(32 * (fuzz_byte(in) % 3));
    }
}

/* Check what the SMA asked to transmit; abort (a fuzzer finding) if absurd. */
static void fuzz_check_send(const struct board_identity *id, const struct mad_addr *to,
                            const uint8_t *mad)
{
    if (to->port > id->num_ports)
        abort();
    if (mad_get_field((void *)mad, 0, IB_MAD_BASEVER_F) != 1)
        abort();
}

/* Feed one MAD built from the input. */
static void fuzz_mad(struct fuzz_in *in, struct sma *sma, const struct board_identity *id)
{
    uint8_t mad[256] = {0}, out[256];
    struct mad_addr from = {0}, to;
    uint8_t hdr = fuzz_byte(in);
    size_t n;

    n = in->left < sizeof(mad) ? in->left : sizeof(mad);
    memcpy(mad, in->p, n);
    in->p += n;
    in->left -= n;
    if (hdr & 1) {
        /* Mostly-valid header so the fuzzer reaches the attribute handlers. */
        mad[0] = 1;
        mad[1] = hdr & 2 ? 0x81 : 0x01;
        mad[2] = 1;
    }
    from.port = (uint8_t)((hdr >> 2) % (id->num_ports + 1));
    from.slid = (uint16_t)(mad[250] << 8 | mad[251]);
    from.lid_routed = mad[1] == 0x01;
    if (sma_process(sma, &from, mad, sizeof(mad), &to, out) == MAD_SEND)
        fuzz_check_send(id, &to, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_in in = {data, size};
    struct board_identity id;
    struct board_mem *bm;
    struct sma *sma;
    uint8_t out[256];
    struct mad_addr to;
    unsigned ops = 0;

    fuzz_identity(&in, &id);
    bm = board_mem_create(&id);
    if (!bm)
        return 0;
    board_mem_use_manual_clock(bm, 1);
    sma = sma_create(board_mem_board(bm));
    if (!sma) {
        board_mem_destroy(bm);
        return 0;
    }
    while (in.left && ops++ < 64) {
        uint8_t op = fuzz_byte(&in);

        switch (op & 3) {
        case FUZZ_MAD:
            fuzz_mad(&in, sma, &id);
            break;
        case FUZZ_CABLE:
            board_mem_set_connected(bm, 1 + (op >> 3) % id.num_ports, op & 4);
            break;
        case FUZZ_CLOCK:
            board_mem_advance_ns(bm, (uint64_t)fuzz_byte(&in) << (op >> 2));
            break;
        case FUZZ_POLL:
            for (unsigned i = 0; i < 16 && sma_poll(sma, &to, out) == MAD_SEND; i++)
                fuzz_check_send(&id, &to, out);
            break;
        }
    }
    sma_destroy(sma);
    board_mem_destroy(bm);
    return 0;
}

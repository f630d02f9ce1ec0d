/*
 * test_board_mem_tables.c - board_mem's forwarding tables hold only what was
 * programmed, and that changes no answer: unprogrammed LFT blocks read 0xFF
 * (below and above the programmed ones, up to LinearFDBCap), unprogrammed MFT
 * blocks read 0, blocks beyond the capacity are refused as before, and the
 * LFT the fabric routes by agrees with the blocks read back.  The SL-to-VL
 * table and a port's counters, allocated at first use, read as zeros
 * before; the port status generation moves with every port change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "board_mem.h"
#include "pzt_main.h"

/* A fresh 36-port switch. */
static struct board_mem *new_switch(void)
{
    struct board_identity id;

    board_mem_default_switch_identity(&id, 0x1234, 36);
    return board_mem_create(&id);
}

/* Whether all n bytes at p are v. */
static int all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static void test_lft_unprogrammed_reads(void **state)
{
    struct board_mem *bm = new_switch();
    const struct board *b = board_mem_board(bm);
    unsigned last = b->id->lft_cap / BOARD_LFT_BLOCK - 1;
    uint8_t e[BOARD_LFT_BLOCK], set[BOARD_LFT_BLOCK];

    assert_int_equal(board_lft_get(b, 0, e), 0);
    assert_true(all_bytes(e, sizeof(e), BOARD_LFT_DROP));
    assert_int_equal(board_lft_get(b, last, e), 0);
    assert_true(all_bytes(e, sizeof(e), BOARD_LFT_DROP));
    assert_int_equal(board_lft_get(b, last + 1, e), -EINVAL);

    memset(set, 7, sizeof(set));
    assert_int_equal(board_lft_set(b, 5, set), 0);
    assert_int_equal(board_lft_get(b, 5, e), 0);
    assert_memory_equal(e, set, sizeof(e));
    assert_int_equal(board_lft_get(b, 4, e), 0); /* below: grown, never set */
    assert_true(all_bytes(e, sizeof(e), BOARD_LFT_DROP));
    assert_int_equal(board_lft_get(b, 6, e), 0); /* above: not held */
    assert_true(all_bytes(e, sizeof(e), BOARD_LFT_DROP));
    assert_int_equal(board_lft_set(b, last + 1, set), -EINVAL);
    assert_int_equal(board_lft_set(b, last, set), 0); /* the capacity is unchanged */
    assert_int_equal(board_lft_get(b, last, e), 0);
    assert_memory_equal(e, set, sizeof(e));
    board_mem_destroy(bm);
}

static void test_lft_top_and_routing(void **state)
{
    struct board_mem *bm = new_switch();
    const struct board *b = board_mem_board(bm);
    uint8_t set[BOARD_LFT_BLOCK], e[BOARD_LFT_BLOCK];

    assert_int_equal(board_set_lft_top(b, 700), 0); /* as OpenSM: top first, then blocks */
    memset(set, 3, sizeof(set));
    assert_int_equal(board_lft_set(b, 1, set), 0);
    assert_int_equal(board_mem_lft_top(bm), 700);
    assert_int_equal(board_mem_lft_entry(bm, 64), 3);
    assert_int_equal(board_mem_lft_entry(bm, 63), BOARD_LFT_DROP);
    assert_int_equal(board_mem_lft_entry(bm, 700), BOARD_LFT_DROP);
    assert_int_equal(board_mem_lft_entry(bm, 5000), BOARD_LFT_DROP);
    assert_int_equal(board_lft_get(b, 10, e), 0);
    assert_true(all_bytes(e, sizeof(e), BOARD_LFT_DROP));
    board_mem_destroy(bm);
}

static void test_mft_unprogrammed_reads(void **state)
{
    struct board_mem *bm = new_switch();
    const struct board *b = board_mem_board(bm);
    unsigned last = b->id->mft_cap / BOARD_MFT_BLOCK - 1;
    uint16_t m[BOARD_MFT_BLOCK], set[BOARD_MFT_BLOCK];

    memset(m, 0xAA, sizeof(m));
    assert_int_equal(board_mft_get(b, last, 2, m), 0);
    for (unsigned i = 0; i < BOARD_MFT_BLOCK; i++)
        assert_int_equal(m[i], 0);
    assert_int_equal(board_mft_get(b, last + 1, 0, m), -EINVAL);
    for (unsigned i = 0; i < BOARD_MFT_BLOCK; i++)
        set[i] = (uint16_t)(0x10 + i);
    assert_int_equal(board_mft_set(b, 2, 1, set), 0);
    assert_int_equal(board_mft_get(b, 2, 1, m), 0);
    assert_memory_equal(m, set, sizeof(m));
    assert_int_equal(board_mft_get(b, 2, 0, m), 0); /* another position of the block */
    for (unsigned i = 0; i < BOARD_MFT_BLOCK; i++)
        assert_int_equal(m[i], 0);
    assert_int_equal(board_mft_get(b, 3, 1, m), 0);
    for (unsigned i = 0; i < BOARD_MFT_BLOCK; i++)
        assert_int_equal(m[i], 0);
    /* MLID 0xC000 + 64 is entry 0 of block 2: position 1 holds ports 16..31, mask 0x10 = port 20.
     */
    assert_true(board_mem_mft_has_port(bm, 0xC000 + 64, 20));
    assert_false(board_mem_mft_has_port(bm, 0xC000 + 64, 21));
    assert_false(board_mem_mft_has_port(bm, 0xC000 + 200, 20));
    board_mem_destroy(bm);
}

static void test_sl2vl_unprogrammed_reads(void **state)
{
    struct board_mem *bm = new_switch();
    const struct board *b = board_mem_board(bm);
    uint8_t vl[16], set[16];

    assert_int_equal(board_sl2vl_get(b, 3, 36, vl), 0);
    assert_true(all_bytes(vl, sizeof(vl), 0));
    assert_int_equal(board_sl2vl_get(b, 37, 0, vl), -EINVAL);
    assert_int_equal(board_sl2vl_set(b, 0, 37, vl), -EINVAL);
    for (unsigned i = 0; i < sizeof(set); i++)
        set[i] = (uint8_t)(i % 8);
    assert_int_equal(board_sl2vl_set(b, 3, 36, set), 0);
    assert_int_equal(board_sl2vl_get(b, 3, 36, vl), 0);
    assert_memory_equal(vl, set, sizeof(vl));
    assert_int_equal(board_sl2vl_get(b, 36, 3, vl), 0); /* another pair: never set */
    assert_true(all_bytes(vl, sizeof(vl), 0));
    board_mem_destroy(bm);
}

static void test_counters_first_count(void **state)
{
    struct board_mem *bm = new_switch();
    const struct board *b = board_mem_board(bm);
    struct board_port_counters c, zero;
    uint64_t wait = 1, data = 1;

    memset(&zero, 0, sizeof(zero));
    memset(&c, 0xAA, sizeof(c));
    assert_int_equal(board_port_counters(b, 5, &c), 0); /* never counted */
    assert_memory_equal(&c, &zero, sizeof(c));
    assert_int_equal(board_mem_xmit_counters(bm, 5, &wait, &data), 0);
    assert_true(wait == 0 && data == 0);
    board_mem_counter_add(bm, &board_mem_counters(bm, 5)->xmit_data, 100);
    board_mem_counter_add(bm, &board_mem_counters(bm, 5)->xmit_wait, 7);
    board_mem_counter_add(bm, &board_mem_counters(bm, 5)->vl_op_packets[15], 1);
    assert_int_equal(board_port_counters(b, 5, &c), 0);
    assert_true(c.xmit_data == 100 && c.xmit_wait == 7 && c.vl_op_packets[15] == 1);
    assert_int_equal(board_mem_xmit_counters(bm, 5, &wait, &data), 0);
    assert_true(wait == 7 && data == 100);
    assert_int_equal(board_mem_xmit_counters(bm, 37, &wait, &data), -EINVAL);
    assert_null(board_mem_counters(bm, 37));
    board_mem_destroy(bm);
}

static void test_port_status_gen(void **state)
{
    struct board_mem *bm = new_switch();
    const struct board *b = board_mem_board(bm);
    uint64_t g0, g1, g2;

    assert_true(board_port_status_gen(b, &g0));
    assert_true(board_port_status_gen(b, &g1));
    assert_true(g0 == g1);                /* nothing changed */
    board_mem_set_connected(bm, 4, true); /* trains to Init */
    assert_true(board_port_status_gen(b, &g1));
    assert_true(g1 != g0);
    assert_int_equal(board_port_state_set(b, 4, BOARD_PORT_ARMED), 0);
    assert_true(board_port_status_gen(b, &g2));
    assert_true(g2 != g1);
    assert_int_equal(board_phys_state_set(b, 4, BOARD_PHYS_DISABLED), 0);
    assert_true(board_port_status_gen(b, &g1));
    assert_true(g1 != g2);
    board_mem_destroy(bm);
}

PZT_MAIN(test_lft_unprogrammed_reads, test_lft_top_and_routing, test_mft_unprogrammed_reads,
         test_sl2vl_unprogrammed_reads, test_counters_first_count, test_port_status_gen)

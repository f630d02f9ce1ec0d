/*
 * test_board_mem_tables.c - board_mem's forwarding tables hold only what was
 * programmed, and that changes no answer: unprogrammed LFT blocks read 0xFF
 * (below and above the programmed ones, up to LinearFDBCap), unprogrammed MFT
 * blocks read 0, blocks beyond the capacity are refused as before, and the
 * LFT the fabric routes by agrees with the blocks read back.
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

PZT_MAIN(test_lft_unprogrammed_reads, test_lft_top_and_routing, test_mft_unprogrammed_reads)

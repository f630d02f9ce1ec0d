/*
 * fabric_bed.c - the fabric tests' shared building steps (fabric_bed.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board.h"
#include "fabric_bed.h"
#include "topo.h"

const char fbed_net_2s4h[] = FBED_NET_2S4H("", "");

void fbed_2s4h_up(const struct fabric *f)
{
    static const char *const cas[4] = {"H1", "H2", "H3", "H4"};

    board_set_lid(fbed_board(f, "S1"), 0, 1, 0);
    board_set_lid(fbed_board(f, "S2"), 0, 2, 0);
    for (unsigned i = 0; i < 4; i++) {
        board_set_lid(fbed_board(f, cas[i]), 1, (uint16_t)(11 + i), 0);
        fbed_activate(f, cas[i], 1);
        fbed_activate(f, i < 2 ? "S1" : "S2", i % 2 + 1);
    }
    fbed_activate(f, "S1", 3);
    fbed_activate(f, "S2", 3);
}

struct fabric *fbed_fabric(const char *net)
{
    char err[TOPO_ERR_MAX];
    struct topo *t = topo_parse(net, strlen(net), "test", err);
    struct fabric *f;

    assert_non_null(t);
    f = fabric_create(t, 0);
    topo_free(t);
    assert_non_null(f);
    return f;
}

struct fabric *fbed_2s4h_routed(const uint16_t *lids, const uint8_t *s1, const uint8_t *s2,
                                size_t n)
{
    struct fabric *f = fbed_fabric(fbed_net_2s4h);

    fbed_2s4h_up(f);
    fbed_program_lft(f, "S1", lids, s1, n);
    fbed_program_lft(f, "S2", lids, s2, n);
    return f;
}

int fbed_teardown(void **state)
{
    struct fabric **f = *state; /* the struct's first member */

    fabric_destroy(*f);
    free(*state);
    return 0;
}

size_t fbed_node(const struct fabric *f, const char *name)
{
    long i = fabric_find_node(f, name);

    assert_true(i >= 0);
    return (size_t)i;
}

const struct board *fbed_board(const struct fabric *f, const char *name)
{
    return fabric_node_board(f, fbed_node(f, name));
}

void fbed_activate(const struct fabric *f, const char *name, unsigned port)
{
    assert_int_equal(board_port_state_set(fbed_board(f, name), port, BOARD_PORT_ARMED), 0);
    assert_int_equal(board_port_state_set(fbed_board(f, name), port, BOARD_PORT_ACTIVE), 0);
}

void fbed_program_lft(const struct fabric *f, const char *name, const uint16_t *lids,
                      const uint8_t *ports, size_t n)
{
    uint8_t block[BOARD_LFT_BLOCK];

    memset(block, BOARD_LFT_DROP, sizeof(block));
    for (size_t i = 0; i < n; i++) {
        assert_true(lids[i] < BOARD_LFT_BLOCK);
        block[lids[i]] = ports[i];
    }
    assert_int_equal(board_lft_set(fbed_board(f, name), 0, block), 0);
    assert_int_equal(board_set_lft_top(fbed_board(f, name), BOARD_LFT_BLOCK - 1), 0);
}

uint64_t fbed_counter(const struct fabric *f, const char *name, unsigned port, size_t offset)
{
    struct board_port_counters c;

    assert_int_equal(fabric_port_counters(f, fbed_node(f, name), port, &c), 0);
    return *(const uint64_t *)((const char *)&c + offset);
}

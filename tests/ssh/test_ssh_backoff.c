/*
 * test_ssh_backoff.c - the per-address password back-off (ssh/ssh_backoff.c):
 * no wait below the threshold, turns spaced by a doubling delay up to the
 * cap however many attempts queue, addresses apart, a login or a quiet
 * period forgetting, and the bounded table forgetting the least recently
 * used address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pzt_main.h"
#include "ssh_backoff.h"

static const struct ssh_backoff_config cfg = {
    .after = 3, .base_ms = 100, .max_ms = 400, .forget_ms = 10000, .table = 2};

/* The delay doubles from the threshold on and stops at the cap. */
static void test_delays(void **state)
{
    struct ssh_backoff *bo = ssh_backoff_new(&cfg);
    static const uint64_t want[] = {0, 0, 0, 100, 200, 400, 400, 400};

    (void)state;

    for (uint32_t f = 0; f < 8; f++)
        assert_int_equal(ssh_backoff_delay(bo, f), want[f]);
    assert_int_equal(ssh_backoff_delay(bo, UINT32_MAX), 400);
    ssh_backoff_free(bo);
}

/* Below the threshold: no wait; then each failure pushes the next turn one delay on,
 * and queued attempts take turns one delay apart. */
static void test_turns(void **state)
{
    struct ssh_backoff *bo = ssh_backoff_new(&cfg);

    (void)state;

    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 1000, NULL), 0);
    assert_int_equal(ssh_backoff_failed(bo, "10.0.0.1", 1000), 1);
    assert_int_equal(ssh_backoff_failed(bo, "10.0.0.1", 1010), 2);
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 1020, NULL), 0);
    assert_int_equal(ssh_backoff_failed(bo, "10.0.0.1", 1020), 3);       /* back-off starts */
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 1050, NULL), 70);  /* 1020 + 100 */
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 1050, NULL), 170); /* the next turn */
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.2", 1050, NULL), 0);   /* another address */
    assert_int_equal(ssh_backoff_failed(bo, "10.0.0.1", 1120), 4);
    /* turns reserved up to 1320; the failure wants 1120 + 200 = 1320 at least */
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 1130, NULL), 190);
    ssh_backoff_free(bo);
}

/* *turn names the turn in back-off, also when the attempt comes after it (no wait: the
 * turn is now), and is 0 outside back-off. */
static void test_turn_reported(void **state)
{
    struct ssh_backoff *bo = ssh_backoff_new(&cfg);
    uint64_t turn = 1;

    (void)state;

    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 1000, &turn), 0);
    assert_int_equal(turn, 0); /* no failures */
    for (int i = 0; i < 3; i++)
        ssh_backoff_failed(bo, "10.0.0.1", 1000);
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 1040, &turn), 60);
    assert_int_equal(turn, 1100); /* 1000 + 100 */
    assert_int_equal(ssh_backoff_failed(bo, "10.0.0.1", 1150), 4);
    /* the next turn is due at 1150 + 200; an attempt at 2000 is late: no wait */
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 2000, &turn), 0);
    assert_int_equal(turn, 2000);
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.1", 2000, &turn), 200); /* one delay on */
    assert_int_equal(turn, 2200);
    assert_int_equal(ssh_backoff_turn(bo, "10.0.0.9", 2000, &turn), 0);
    assert_int_equal(turn, 0); /* another address */
    ssh_backoff_free(bo);
}

/* A login, or forget_ms without a failure, starts the address afresh. */
static void test_forget(void **state)
{
    struct ssh_backoff *bo = ssh_backoff_new(&cfg);

    (void)state;

    for (int i = 0; i < 5; i++)
        ssh_backoff_failed(bo, "a", 0);
    assert_true(ssh_backoff_turn(bo, "a", 1, NULL) > 0);
    ssh_backoff_success(bo, "a");
    assert_int_equal(ssh_backoff_turn(bo, "a", 2, NULL), 0);
    for (int i = 0; i < 5; i++)
        ssh_backoff_failed(bo, "a", 100);
    assert_int_equal(ssh_backoff_failed(bo, "a", 10099), 6); /* 9999 ms quiet: kept */
    assert_int_equal(ssh_backoff_turn(bo, "a", 10100, NULL), 399);
    assert_int_equal(ssh_backoff_failed(bo, "a", 20099), 1); /* 10000 ms quiet: afresh */
    assert_int_equal(ssh_backoff_turn(bo, "a", 20100, NULL), 0);
    ssh_backoff_free(bo);
}

/* The table holds 2 addresses: a third replaces the least recently used. */
static void test_table_bounded(void **state)
{
    struct ssh_backoff *bo = ssh_backoff_new(&cfg);

    (void)state;

    for (int i = 0; i < 3; i++) {
        ssh_backoff_failed(bo, "a", 10);
        ssh_backoff_failed(bo, "b", 20);
    }
    assert_true(ssh_backoff_turn(bo, "a", 30, NULL) > 0); /* a used at 30, b at 20 */
    assert_int_equal(ssh_backoff_failed(bo, "c", 40), 1);
    assert_int_equal(ssh_backoff_failed(bo, "b", 50), 1); /* b was forgotten */
    assert_int_equal(ssh_backoff_failed(bo, "c", 60), 2); /* b replaced a */
    assert_int_equal(ssh_backoff_failed(bo, "a", 70), 1);
    ssh_backoff_free(bo);
}

PZT_MAIN(test_delays, test_turns, test_turn_reported, test_forget, test_table_bounded)

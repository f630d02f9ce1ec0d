/*
 * test_dftree_rule.c - the dFtree contributor rule (dftree/dftree_rule.h):
 * figures from two PortCountersExtended readings, the threshold and the
 * low-utilisation level at their edges, invalid intervals, link rates.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dftree_rule.h"
#include "pzt_main.h"

#define SEC 1000000000ull
#define GBPS 1000000000ull

static const struct dt_rule rule = {.threshold = 100000, .low_util_pct = 50};

/* Readings one second apart: words sent and ticks waited in that second. */
static void apply(uint64_t words, uint64_t waited, uint64_t link_bps, struct dt_figures *f)
{
    struct dt_reading a = {1000, 5000, 7 * SEC}, b = {1000 + words, 5000 + waited, 8 * SEC};

    dt_rule_apply(&rule, &a, &b, link_bps, f);
}

/* The paper's contributor: congested (XmitWait/s at the threshold or above) with low utilisation.
 */
static void test_contributor(void **state)
{
    struct dt_figures f;

    /* 8.33 Gb/s of 100 (words of 4 bytes), 916000 ticks/s waited. */
    apply(8333333333ull / 32, 916000, 100 * GBPS, &f);
    assert_true(f.valid);
    assert_int_equal(f.congestion, 916000);
    assert_int_equal(f.bandwidth, 8333333333ull / 32 * 4);
    assert_int_equal(f.util_permille, 83);
    assert_true(f.contributor);
    /* At the threshold exactly: congested. */
    apply(1, 100000, 100 * GBPS, &f);
    assert_true(f.contributor);
    apply(1, 99999, 100 * GBPS, &f);
    assert_false(f.contributor);
    assert_string_equal(f.why, "congestion below the threshold");
}

/* Utilisation at or above the level: a congested sender, not a contributor. */
static void test_busy_sender(void **state)
{
    struct dt_figures f;

    apply(50 * GBPS / 32, 500000, 100 * GBPS, &f); /* 50.0 % */
    assert_int_equal(f.util_permille, 500);
    assert_false(f.contributor);
    apply(499 * GBPS / 10 / 32, 500000, 100 * GBPS, &f); /* 49.9 % */
    assert_int_equal(f.util_permille, 499);
    assert_true(f.contributor);
    apply(200 * GBPS / 32, 0, 100 * GBPS, &f); /* capped */
    assert_int_equal(f.util_permille, 1000);
}

/* No time, counters that went back, an unknown link rate: no measurement. */
static void test_invalid(void **state)
{
    struct dt_reading a = {100, 100, 5 * SEC}, b = a;
    struct dt_figures f;

    dt_rule_apply(&rule, &a, &b, 100 * GBPS, &f);
    assert_false(f.valid);
    assert_false(f.contributor);
    b.at_ns += SEC;
    b.xmit_wait = 50;
    dt_rule_apply(&rule, &a, &b, 100 * GBPS, &f);
    assert_false(f.valid);
    b.xmit_wait = 1000000;
    dt_rule_apply(&rule, &a, &b, 0, &f);
    assert_false(f.valid);
    assert_string_equal(f.why, "link rate unknown");
}

/* Link data rates from PortInfo's encodings. */
static void test_link_rates(void **state)
{
    assert_int_equal(dt_link_data_bps(2, 1, 0), 8 * GBPS);       /* 4x SDR */
    assert_int_equal(dt_link_data_bps(2, 4, 0), 32 * GBPS);      /* 4x QDR */
    assert_int_equal(dt_link_data_bps(2, 4, 2), 100 * GBPS);     /* 4x EDR */
    assert_int_equal(dt_link_data_bps(1, 4, 1), 13636000000ull); /* 1x FDR */
    assert_int_equal(dt_link_data_bps(8, 2, 0), 48 * GBPS);      /* 12x DDR */
    assert_int_equal(dt_link_data_bps(3, 4, 0), 0);              /* no such width */
    assert_int_equal(dt_link_data_bps(2, 0, 0), 0);              /* no speed */
}

PZT_MAIN(test_contributor, test_busy_sender, test_invalid, test_link_rates)

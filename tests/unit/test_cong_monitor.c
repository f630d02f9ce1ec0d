/*
 * test_cong_monitor.c - the dFtree congestion monitor on synthetic counter
 * series: a test reader hands out counter values the test writes, an
 * in-memory board supplies link state and a manual clock.  Threshold edges,
 * hysteresis, CA- vs switch-facing ports, low-util vs congested, counter
 * reset and saturation, link down, reader errors, the actual elapsed time,
 * configuration checks, the event queue, the history, the notice record and
 * the standard PMA reader.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "board_mem.h"
#include "cong_monitor.h"
#include "pma.h"
#include "pma_vendor.h"
#include "pzt_main.h"
#include "pzt_same.h"

#define NPORTS 8
#define MS 1000000ull
#define SEC 1000000000ull
#define THR CONG_THRESHOLD_DEFAULT
/* 4x EDR: 100 Gb/s of data, 12.5 GB/s. */
#define LINK_BPS 100000000000ull
#define LINK_BYTES (LINK_BPS / 8)

/* A monitor on an 8-port switch whose counters the test writes. */
struct fx {
    struct board_identity id;
    struct board_mem *bm;
    struct board *board;
    struct cong_monitor *m;
    uint64_t wait[NPORTS + 1];
    uint64_t data[NPORTS + 1];
    int fail[NPORTS + 1]; /* reader error for this port */
    unsigned reads;
};

/* The test reader: the values in f->wait/f->data. */
static int fx_read(void *arg, unsigned port, uint64_t *w, uint64_t *d)
{
    struct fx *f = arg;

    f->reads++;
    if (port < 1 || port > NPORTS)
        return -EINVAL;
    if (f->fail[port])
        return -EIO;
    *w = f->wait[port];
    *d = f->data[port];
    return 0;
}

/* All ports cabled, monitor created with interval_ms (other tunables default). */
static struct fx *fx_new(uint32_t interval_ms)
{
    struct fx *f = calloc(1, sizeof(*f));
    struct cong_monitor_config cfg;

    assert_non_null(f);
    board_mem_default_switch_identity(&f->id, 0x0002c90000003000ull, NPORTS);
    f->bm = board_mem_create(&f->id);
    assert_non_null(f->bm);
    board_mem_use_manual_clock(f->bm, SEC);
    f->board = board_mem_board(f->bm);
    for (unsigned p = 1; p <= NPORTS; p++)
        board_mem_set_connected(f->bm, p, true);
    cong_monitor_default_config(&cfg);
    cfg.interval_ms = interval_ms;
    f->m = cong_monitor_create(f->board, fx_read, f, &cfg);
    assert_non_null(f->m);
    return f;
}

static void fx_free(struct fx *f)
{
    cong_monitor_destroy(f->m);
    board_mem_destroy(f->bm);
    free(f);
}

/*
 * Let dt_ns pass with port p waiting wait_per_s ticks/s and sending at
 * util_pm per mille of the link, then poll.  Returns the events queued.
 */
static unsigned step(struct fx *f, unsigned p, uint64_t dt_ns, uint64_t wait_per_s,
                     unsigned util_pm)
{
    f->wait[p] += wait_per_s * dt_ns / SEC;
    f->data[p] += LINK_BYTES / 4 * util_pm / 1000 * dt_ns / SEC;
    board_mem_advance_ns(f->bm, dt_ns);
    return cong_monitor_poll(f->m);
}

/* The class of port p. */
static unsigned cls(struct fx *f, unsigned p)
{
    struct cong_port_view v;

    assert_int_equal(cong_monitor_port(f->m, p, &v), 0);
    return v.cls;
}

static struct cong_monitor_stats stats(struct fx *f)
{
    struct cong_monitor_stats st;

    cong_monitor_get_stats(f->m, &st);
    return st;
}

/* Pop one event and check it. */
static void expect_event(struct fx *f, unsigned port, unsigned from, unsigned to)
{
    struct cong_event ev;

    assert_true(cong_monitor_next_event(f->m, &ev));
    assert_int_equal(ev.port, port);
    assert_int_equal(ev.from, from);
    assert_int_equal(ev.to, to);
    assert_int_equal(ev.sample.cls, to);
}

/* Port p faces a CA and turns hot-spot: a second at twice the threshold, util_pm per mille. */
static void make_hotspot(struct fx *f, unsigned p, unsigned util_pm)
{
    cong_monitor_set_peer(f->m, p, CONG_PEER_CA);
    step(f, p, SEC, 2 * THR, util_pm);
    expect_event(f, p, CONG_PORT_NORMAL, CONG_PORT_HOTSPOT);
}

static void expect_no_event(struct fx *f)
{
    struct cong_event ev;

    assert_false(cong_monitor_next_event(f->m, &ev));
}

/* ---- configuration ---- */

static void test_config_check(void **state)
{
    struct cong_monitor_config cfg, good;
    struct fx *f = fx_new(1000);

    cong_monitor_default_config(&good);
    assert_int_equal(good.interval_ms, 1000);
    assert_true(good.threshold_ticks == 100000);
    assert_int_equal(good.low_util_percent, 50);
    assert_int_equal(good.clear_percent, 50);
    assert_int_equal(good.history, CONG_HISTORY_DEFAULT);
    assert_int_equal(cong_monitor_config_check(&good), 0);

    cfg = good;
    cfg.interval_ms = 99;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    assert_null(cong_monitor_create(f->board, fx_read, f, &cfg));
    assert_int_equal(cong_monitor_set_config(f->m, &cfg), -EINVAL);
    cfg.interval_ms = 100;
    assert_int_equal(cong_monitor_config_check(&cfg), 0);
    cfg = good;
    cfg.threshold_ticks = 0;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    cfg = good;
    cfg.low_util_percent = 0;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    cfg.low_util_percent = 101;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    cfg.low_util_percent = 100;
    assert_int_equal(cong_monitor_config_check(&cfg), 0);
    cfg = good;
    cfg.clear_percent = 0;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    cfg.clear_percent = 101;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    cfg = good;
    cfg.history = 0;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    cfg.history = CONG_HISTORY_MAX + 1;
    assert_int_equal(cong_monitor_config_check(&cfg), -EINVAL);
    assert_int_equal(cong_monitor_config_check(NULL), -EINVAL);
    assert_null(cong_monitor_create(f->board, NULL, f, &good));

    /* A rejected config leaves the old one. */
    cong_monitor_get_config(f->m, &cfg);
    PZT_EXPECT_SAME(cfg, good, interval_ms, threshold_ticks, low_util_percent, clear_percent,
                    history);
    assert_int_equal(cong_monitor_set_peer(f->m, 0, CONG_PEER_CA), -EINVAL);
    assert_int_equal(cong_monitor_set_peer(f->m, NPORTS + 1, CONG_PEER_CA), -EINVAL);
    assert_int_equal(cong_monitor_set_peer(f->m, 1, (enum cong_peer)3), -EINVAL);
    assert_int_equal(cong_monitor_num_ports(f->m), NPORTS);
    assert_string_equal(cong_port_class_name(CONG_PORT_HOTSPOT), "hot-spot");
    assert_string_equal(cong_port_class_name(CONG_PORT_LOW_UTIL), "low-util");
    fx_free(f);
}

/* Sampling rounds come every interval; an interval change counts from the last round. */
static void test_schedule(void **state)
{
    struct fx *f = fx_new(1000);
    struct cong_monitor_config cfg;
    unsigned reads;

    assert_true(cong_monitor_next_deadline(f->m) == 2 * SEC);
    board_mem_advance_ns(f->bm, SEC - 1);
    reads = f->reads;
    assert_int_equal(cong_monitor_poll(f->m), 0);
    assert_int_equal(f->reads, reads); /* nothing due: nothing read */
    assert_true(cong_monitor_samples(f->m) == 0);
    board_mem_advance_ns(f->bm, 1);
    cong_monitor_poll(f->m);
    assert_true(cong_monitor_samples(f->m) == 1);
    assert_int_equal(f->reads, reads + NPORTS);
    assert_true(cong_monitor_next_deadline(f->m) == 3 * SEC);

    /* Polled late: the cadence stays. */
    board_mem_advance_ns(f->bm, SEC + 30 * MS);
    cong_monitor_poll(f->m);
    assert_true(cong_monitor_next_deadline(f->m) == 4 * SEC);
    /* After a stall longer than an interval it restarts from now. */
    board_mem_advance_ns(f->bm, 5 * SEC);
    cong_monitor_poll(f->m);
    assert_true(cong_monitor_next_deadline(f->m) == 8 * SEC + 30 * MS + SEC);

    cong_monitor_get_config(f->m, &cfg);
    cfg.interval_ms = 100;
    assert_int_equal(cong_monitor_set_config(f->m, &cfg), 0);
    assert_true(cong_monitor_next_deadline(f->m) == 8 * SEC + 30 * MS + 100 * MS);
    fx_free(f);
}

/* ---- classification ---- */

/* A CA-facing port: hot-spot exactly at the threshold, not one tick/s below. */
static void test_threshold_edge(void **state)
{
    struct fx *f = fx_new(1000);
    struct cong_port_view v;

    assert_int_equal(cong_monitor_set_peer(f->m, 2, CONG_PEER_CA), 0);
    assert_int_equal(step(f, 2, SEC, THR - 1, 900), 0);
    assert_int_equal(cls(f, 2), CONG_PORT_NORMAL);
    assert_int_equal(cong_monitor_port(f->m, 2, &v), 0);
    assert_true(v.valid);
    assert_true(v.last.congestion == THR - 1);
    assert_true(v.link_bps == LINK_BPS);
    assert_int_equal(v.last.util_permille, 900);
    assert_true(v.last.bandwidth == LINK_BYTES * 9 / 10);
    expect_no_event(f);

    assert_int_equal(step(f, 2, SEC, THR, 900), 1);
    assert_int_equal(cls(f, 2), CONG_PORT_HOTSPOT);
    expect_event(f, 2, CONG_PORT_NORMAL, CONG_PORT_HOTSPOT);
    expect_no_event(f);
    assert_int_equal(cong_monitor_port(f->m, 2, &v), 0);
    assert_true(v.since_ns == 3 * SEC);
    assert_int_equal(v.changes, 1);
    /* The other ports saw nothing. */
    for (unsigned p = 1; p <= NPORTS; p++)
        if (p != 2)
            assert_int_equal(cls(f, p), CONG_PORT_NORMAL);
    fx_free(f);
}

/* A hot-spot holds until congestion falls below clear% of the threshold. */
static void test_hysteresis(void **state)
{
    struct fx *f = fx_new(1000);

    make_hotspot(f, 1, 100);
    assert_int_equal(step(f, 1, SEC, THR * 60 / 100, 100), 0);
    assert_int_equal(cls(f, 1), CONG_PORT_HOTSPOT);
    assert_int_equal(step(f, 1, SEC, THR / 2, 100), 0); /* exactly the clear level */
    assert_int_equal(cls(f, 1), CONG_PORT_HOTSPOT);
    assert_int_equal(step(f, 1, SEC, THR / 2 - 1, 100), 1);
    assert_int_equal(cls(f, 1), CONG_PORT_NORMAL);
    expect_event(f, 1, CONG_PORT_HOTSPOT, CONG_PORT_NORMAL);
    /* Back on only at the full threshold. */
    assert_int_equal(step(f, 1, SEC, THR * 99 / 100, 100), 0);
    assert_int_equal(cls(f, 1), CONG_PORT_NORMAL);
    assert_int_equal(step(f, 1, SEC, THR, 100), 1);
    expect_event(f, 1, CONG_PORT_NORMAL, CONG_PORT_HOTSPOT);
    fx_free(f);
}

/* Switch-facing (or unknown) ports are never hot-spots: low-util or congested. */
static void test_ca_vs_switch_facing(void **state)
{
    struct fx *f = fx_new(1000);

    cong_monitor_set_peer(f->m, 1, CONG_PEER_CA);
    cong_monitor_set_peer(f->m, 2, CONG_PEER_SWITCH);
    /* port 3: unknown peer */
    f->wait[1] += 2 * THR;
    f->wait[2] += 2 * THR;
    f->wait[3] += 2 * THR;
    f->data[1] += LINK_BYTES / 4 / 10; /* 10 % */
    f->data[2] += LINK_BYTES / 4 / 10;
    f->data[3] += LINK_BYTES / 4 * 8 / 10; /* 80 % */
    board_mem_advance_ns(f->bm, SEC);
    assert_int_equal(cong_monitor_poll(f->m), 3);
    expect_event(f, 1, CONG_PORT_NORMAL, CONG_PORT_HOTSPOT);
    expect_event(f, 2, CONG_PORT_NORMAL, CONG_PORT_LOW_UTIL);
    expect_event(f, 3, CONG_PORT_NORMAL, CONG_PORT_CONGESTED);

    /* A peer learnt later moves the class at the next sample. */
    cong_monitor_set_peer(f->m, 2, CONG_PEER_CA);
    cong_monitor_set_peer(f->m, 1, CONG_PEER_SWITCH);
    f->wait[1] += 2 * THR;
    f->wait[2] += 2 * THR;
    f->data[1] += LINK_BYTES / 4 / 10;
    f->data[2] += LINK_BYTES / 4 / 10;
    f->wait[3] += 2 * THR;
    f->data[3] += LINK_BYTES / 4 * 8 / 10;
    board_mem_advance_ns(f->bm, SEC);
    assert_int_equal(cong_monitor_poll(f->m), 2);
    expect_event(f, 1, CONG_PORT_HOTSPOT, CONG_PORT_LOW_UTIL);
    expect_event(f, 2, CONG_PORT_LOW_UTIL, CONG_PORT_HOTSPOT);
    expect_no_event(f);
    fx_free(f);
}

/* LOW_UTIL and CONGESTED swap only 10 points beyond the utilisation threshold. */
static void test_low_util_margin(void **state)
{
    struct fx *f = fx_new(1000);

    cong_monitor_set_peer(f->m, 4, CONG_PEER_SWITCH);
    assert_int_equal(step(f, 4, SEC, THR, 499), 1);
    expect_event(f, 4, CONG_PORT_NORMAL, CONG_PORT_LOW_UTIL);
    assert_int_equal(step(f, 4, SEC, THR, 599), 0);
    assert_int_equal(cls(f, 4), CONG_PORT_LOW_UTIL);
    assert_int_equal(step(f, 4, SEC, THR, 600), 1);
    expect_event(f, 4, CONG_PORT_LOW_UTIL, CONG_PORT_CONGESTED);
    assert_int_equal(step(f, 4, SEC, THR, 400), 0);
    assert_int_equal(cls(f, 4), CONG_PORT_CONGESTED);
    assert_int_equal(step(f, 4, SEC, THR, 399), 1);
    expect_event(f, 4, CONG_PORT_CONGESTED, CONG_PORT_LOW_UTIL);
    /* Onset uses the plain threshold: exactly 50 % is congested. */
    assert_int_equal(step(f, 4, SEC, 0, 0), 1);
    expect_event(f, 4, CONG_PORT_LOW_UTIL, CONG_PORT_NORMAL);
    assert_int_equal(step(f, 4, SEC, THR, 500), 1);
    expect_event(f, 4, CONG_PORT_NORMAL, CONG_PORT_CONGESTED);
    fx_free(f);
}

/* Onset and clear within two intervals, with a partial first interval. */
static void test_detection_latency(void **state)
{
    struct fx *f = fx_new(100);
    uint64_t start, onset = 0, clear = 0;
    struct cong_event ev;

    cong_monitor_set_peer(f->m, 5, CONG_PEER_CA);
    /* Congestion at 1.2 x threshold starts 70 ms into an interval. */
    for (unsigned i = 0; i < 7; i++)
        step(f, 5, 10 * MS, 0, 0);
    start = board_now_ns(f->board);
    for (unsigned i = 0; i < 40 && !onset; i++)
        if (step(f, 5, 10 * MS, THR * 12 / 10, 900) && cong_monitor_next_event(f->m, &ev))
            onset = ev.sample.time_ns;
    assert_true(onset > start);
    assert_true(onset - start <= 200 * MS);
    assert_true(onset - start > 100 * MS); /* the partial interval was not enough */
    /* It stops 40 ms into an interval. */
    for (unsigned i = 0; i < 3; i++)
        step(f, 5, 10 * MS, THR * 12 / 10, 900);
    start = board_now_ns(f->board);
    for (unsigned i = 0; i < 40 && !clear; i++)
        if (step(f, 5, 10 * MS, 0, 0) && cong_monitor_next_event(f->m, &ev))
            clear = ev.sample.time_ns;
    assert_int_equal(ev.to, CONG_PORT_NORMAL);
    assert_true(clear > start && clear - start <= 200 * MS);
    fx_free(f);
}

/* Rates use the actual elapsed board time, not the nominal interval. */
static void test_actual_interval(void **state)
{
    struct fx *f = fx_new(1000);
    struct cong_port_view v;

    cong_monitor_set_peer(f->m, 6, CONG_PEER_CA);
    /* 1.5 s late-ish round with 1.5 x threshold ticks: exactly the threshold rate. */
    f->wait[6] += THR * 3 / 2;
    f->data[6] += LINK_BYTES / 4 * 3 / 2 / 4; /* 25 % over 1.5 s */
    board_mem_advance_ns(f->bm, 1500 * MS);
    assert_int_equal(cong_monitor_poll(f->m), 1);
    cong_monitor_port(f->m, 6, &v);
    assert_true(v.last.congestion == THR);
    assert_int_equal(v.last.util_permille, 250);
    assert_true(v.last.time_ns == SEC + 1500 * MS);
    /*
     * An absurd data rate (a glitch) caps at 1000 per mille: 6710887181250000
     * words in 0.5 s is 2^32 + 500 per mille, which a 32-bit cast would
     * have turned into 500.
     */
    f->data[7] += 6710887181250000ull;
    f->wait[7] += 1;
    /* A short round (0.5 s) after it: THR/2 ticks is THR per second. */
    f->wait[6] += THR / 2;
    board_mem_advance_ns(f->bm, 500 * MS);
    assert_int_equal(cong_monitor_poll(f->m), 0);
    cong_monitor_port(f->m, 6, &v);
    assert_true(v.last.congestion == THR);
    assert_int_equal(v.cls, CONG_PORT_HOTSPOT);
    cong_monitor_port(f->m, 7, &v);
    assert_int_equal(v.last.util_permille, 1000);
    assert_true(v.last.bandwidth == 6710887181250000ull * 8);
    fx_free(f);
}

/* ---- bad samples ---- */

/* A counter reset between samples: invalid, class kept, baseline restarted. */
static void test_counter_reset(void **state)
{
    struct fx *f = fx_new(1000);
    struct cong_port_view v;

    cong_monitor_set_peer(f->m, 3, CONG_PEER_CA);
    f->wait[3] = 5000000;
    f->data[3] = 1000;
    board_mem_advance_ns(f->bm, SEC); /* baseline was 0: a 5M/s onset */
    assert_int_equal(cong_monitor_poll(f->m), 1);
    expect_event(f, 3, CONG_PORT_NORMAL, CONG_PORT_HOTSPOT);

    f->wait[3] = 10; /* reset, then 10 ticks */
    board_mem_advance_ns(f->bm, SEC);
    assert_int_equal(cong_monitor_poll(f->m), 0);
    assert_int_equal(cls(f, 3), CONG_PORT_HOTSPOT);
    cong_monitor_port(f->m, 3, &v);
    assert_int_equal(v.invalid, 1);
    assert_true(v.last.congestion == 5000000); /* the last valid sample */
    assert_true(stats(f).counter_resets == 1);
    assert_true(stats(f).invalid == 1);

    /* Data counter reset alone counts too. */
    f->wait[3] += 2 * THR;
    f->data[3] = 0;
    board_mem_advance_ns(f->bm, SEC);
    assert_int_equal(cong_monitor_poll(f->m), 0);
    assert_true(stats(f).counter_resets == 2);

    /* Measured from the new baseline: 30 ticks in 1 s clears. */
    f->wait[3] += 30;
    board_mem_advance_ns(f->bm, SEC);
    assert_int_equal(cong_monitor_poll(f->m), 1);
    cong_monitor_port(f->m, 3, &v);
    assert_true(v.last.congestion == 30);
    expect_event(f, 3, CONG_PORT_HOTSPOT, CONG_PORT_NORMAL);
    fx_free(f);
}

/* 32-bit saturating counters: a value stuck at 2^32-1 is no measurement. */
static void test_saturation(void **state)
{
    struct fx *f = fx_new(1000);
    struct cong_port_view v;

    cong_monitor_set_peer(f->m, 7, CONG_PEER_CA);
    f->wait[7] = 0xFFFFFFFFull - 3 * THR;
    f->data[7] = 100;
    board_mem_advance_ns(f->bm, SEC);
    cong_monitor_poll(f->m); /* baseline was 0: reads as a big rate */
    expect_event(f, 7, CONG_PORT_NORMAL, CONG_PORT_HOTSPOT);
    /* Reaches the ceiling: a lower bound, still a valid sample. */
    f->wait[7] = 0xFFFFFFFFull;
    board_mem_advance_ns(f->bm, SEC);
    assert_int_equal(cong_monitor_poll(f->m), 0);
    cong_monitor_port(f->m, 7, &v);
    assert_true(v.last.congestion == 3 * THR);
    assert_int_equal(v.invalid, 0);
    /* Stuck there: a zero delta must not clear the hot-spot. */
    for (unsigned i = 0; i < 3; i++) {
        board_mem_advance_ns(f->bm, SEC);
        assert_int_equal(cong_monitor_poll(f->m), 0);
        assert_int_equal(cls(f, 7), CONG_PORT_HOTSPOT);
    }
    cong_monitor_port(f->m, 7, &v);
    assert_int_equal(v.invalid, 3);
    assert_true(stats(f).saturations == 3);
    /* The same for the data counter at 2^64-1. */
    f->data[7] = UINT64_MAX;
    f->wait[7] = 0xFFFFFFFFull; /* still stuck */
    board_mem_advance_ns(f->bm, SEC);
    cong_monitor_poll(f->m);
    assert_true(stats(f).saturations == 4);
    /* The manager resets the counters: one invalid (reset), then measurements again. */
    f->wait[7] = 0;
    f->data[7] = 0;
    board_mem_advance_ns(f->bm, SEC);
    assert_int_equal(cong_monitor_poll(f->m), 0);
    assert_true(stats(f).counter_resets == 1);
    assert_int_equal(step(f, 7, SEC, 0, 0), 1);
    expect_event(f, 7, CONG_PORT_HOTSPOT, CONG_PORT_NORMAL);
    fx_free(f);
}

/* Reader errors: invalid, class kept; the next good read is a new baseline. */
static void test_reader_error(void **state)
{
    struct fx *f = fx_new(1000);

    make_hotspot(f, 8, 500);
    f->fail[8] = 1;
    assert_int_equal(step(f, 8, SEC, 0, 0), 0);
    assert_int_equal(cls(f, 8), CONG_PORT_HOTSPOT);
    assert_true(stats(f).read_errors == 1);
    f->fail[8] = 0;
    assert_int_equal(step(f, 8, SEC, 0, 0), 0); /* baseline only */
    assert_int_equal(cls(f, 8), CONG_PORT_HOTSPOT);
    assert_int_equal(step(f, 8, SEC, 0, 0), 1);
    expect_event(f, 8, CONG_PORT_HOTSPOT, CONG_PORT_NORMAL);
    fx_free(f);
}

/* Link down: NORMAL at once with a zero sample, then none; link up: a baseline first. */
static void test_link_down(void **state)
{
    struct fx *f = fx_new(1000);
    struct cong_sample h[4];
    struct cong_port_view v;
    struct cong_event ev;

    make_hotspot(f, 2, 500);
    board_mem_set_connected(f->bm, 2, false);
    assert_int_equal(step(f, 2, SEC, 2 * THR, 0), 1);
    assert_true(cong_monitor_next_event(f->m, &ev));
    assert_int_equal(ev.to, CONG_PORT_NORMAL);
    assert_true(ev.sample.time_ns == 3 * SEC);
    assert_true(ev.sample.congestion == 0);
    cong_monitor_port(f->m, 2, &v);
    assert_false(v.valid);
    assert_true(v.link_bps == 0);
    /* The newest sample is the link-down one the event carries, not the hot-spot's rates. */
    assert_true(v.last.time_ns == 3 * SEC && v.last.congestion == 0 && v.last.bandwidth == 0);
    assert_int_equal(v.last.util_permille, 0);
    assert_int_equal(v.last.cls, CONG_PORT_NORMAL);
    /* History kept, the zero sample on top of it, once however long the link stays down. */
    step(f, 2, SEC, 2 * THR, 0);
    assert_int_equal(cong_monitor_history(f->m, 2, h, 4), 2);
    assert_true(h[0].time_ns == 3 * SEC && h[0].congestion == 0);
    assert_int_equal(h[0].cls, CONG_PORT_NORMAL);
    assert_true(h[1].time_ns == 2 * SEC && h[1].congestion == 2 * THR);
    assert_int_equal(h[1].cls, CONG_PORT_HOTSPOT);

    board_mem_set_connected(f->bm, 2, true);
    assert_int_equal(step(f, 2, SEC, 2 * THR, 500), 0); /* baseline */
    cong_monitor_port(f->m, 2, &v);
    assert_false(v.valid);
    assert_true(v.link_bps == LINK_BPS);
    assert_int_equal(step(f, 2, SEC, 3 * THR, 500), 1);
    expect_event(f, 2, CONG_PORT_NORMAL, CONG_PORT_HOTSPOT);
    /* The second onset's run of hot-spot samples starts after the zero sample. */
    assert_int_equal(cong_monitor_history(f->m, 2, h, 4), 3);
    assert_true(h[0].congestion == 3 * THR && h[1].congestion == 0);
    /* A port that is down from the start never samples. */
    board_mem_set_connected(f->bm, 4, false);
    step(f, 4, SEC, 5 * THR, 500);
    assert_int_equal(cls(f, 4), CONG_PORT_NORMAL);
    cong_monitor_port(f->m, 4, &v);
    assert_false(v.valid);
    fx_free(f);
}

/* ---- events and history ---- */

/* Events come out oldest first; a full queue drops the oldest and counts. */
static void test_event_queue(void **state)
{
    struct fx *f = fx_new(100);
    unsigned total = CONG_EVENT_QUEUE + 6;
    struct cong_event ev;
    uint64_t prev = 0;
    unsigned n = 0;

    cong_monitor_set_peer(f->m, 1, CONG_PEER_CA);
    for (unsigned i = 0; i < total; i++)
        assert_int_equal(step(f, 1, 100 * MS, i % 2 ? 0 : 2 * THR, 500), 1);
    assert_true(stats(f).events == total);
    assert_true(stats(f).events_dropped == 6);
    while (cong_monitor_next_event(f->m, &ev)) {
        assert_true(ev.sample.time_ns > prev);
        /* The 7th event (index 6) is the oldest kept: onsets at even indexes. */
        assert_int_equal(ev.to, (n + 6) % 2 ? CONG_PORT_NORMAL : CONG_PORT_HOTSPOT);
        prev = ev.sample.time_ns;
        n++;
    }
    assert_int_equal(n, CONG_EVENT_QUEUE);
    assert_true(prev == board_now_ns(f->board));
    fx_free(f);
}

/* History: newest first, at most cfg.history; a resize keeps the newest. */
static void test_history(void **state)
{
    struct fx *f = fx_new(1000);
    struct cong_sample h[CONG_HISTORY_MAX];
    struct cong_monitor_config cfg;
    unsigned n;

    assert_int_equal(cong_monitor_history(f->m, 1, h, CONG_HISTORY_MAX), 0);
    for (unsigned i = 1; i <= 20; i++)
        step(f, 1, SEC, i * 1000, 0);
    n = cong_monitor_history(f->m, 1, h, CONG_HISTORY_MAX);
    assert_int_equal(n, CONG_HISTORY_DEFAULT);
    for (unsigned i = 0; i < n; i++)
        assert_true(h[i].congestion == (20 - i) * 1000ull);
    assert_int_equal(cong_monitor_history(f->m, 1, h, 3), 3);
    assert_true(h[2].congestion == 18000);
    assert_int_equal(cong_monitor_history(f->m, 0, h, 3), 0);
    assert_int_equal(cong_monitor_history(f->m, NPORTS + 1, h, 3), 0);

    cong_monitor_get_config(f->m, &cfg);
    cfg.history = 4;
    assert_int_equal(cong_monitor_set_config(f->m, &cfg), 0);
    n = cong_monitor_history(f->m, 1, h, CONG_HISTORY_MAX);
    assert_int_equal(n, 4);
    assert_true(h[0].congestion == 20000 && h[3].congestion == 17000);
    step(f, 1, SEC, 21000, 0);
    n = cong_monitor_history(f->m, 1, h, CONG_HISTORY_MAX);
    assert_int_equal(n, 4);
    assert_true(h[0].congestion == 21000 && h[3].congestion == 18000);
    cfg.history = CONG_HISTORY_MAX;
    assert_int_equal(cong_monitor_set_config(f->m, &cfg), 0);
    step(f, 1, SEC, 22000, 0);
    n = cong_monitor_history(f->m, 1, h, CONG_HISTORY_MAX);
    assert_int_equal(n, 5);
    assert_true(h[0].congestion == 22000 && h[4].congestion == 18000);
    fx_free(f);
}

/* The notice record of hot-spot onset and clear; no notice for other changes. */
static void test_event_notice(void **state)
{
    struct fx *f = fx_new(1000);
    uint8_t d[CONG_NOTICE_DETAILS_LEN];
    struct cong_event ev;

    cong_monitor_set_peer(f->m, 3, CONG_PEER_CA);
    step(f, 3, SEC, 250000, 300);
    assert_true(cong_monitor_next_event(f->m, &ev));
    memset(d, 0xAA, sizeof(d));
    assert_int_equal(cong_event_notice(f->m, &ev, d), CONG_TRAP_HOTSPOT_ONSET);
    assert_int_equal(d[PZ_CMN_PORT], 3);
    assert_int_equal(d[PZ_CMN_CLASS], CONG_PORT_HOTSPOT);
    assert_int_equal(d[PZ_CMN_PREV_CLASS], CONG_PORT_NORMAL);
    assert_int_equal(d[PZ_CMN_PEER], CONG_PEER_CA);
    assert_true(be_get(d + PZ_CMN_CONGESTION, 8) == 250000);
    assert_true(be_get(d + PZ_CMN_BANDWIDTH, 8) == LINK_BYTES * 3 / 10);
    assert_int_equal(be_get(d + PZ_CMN_UTIL, 2), 300);
    assert_int_equal(be_get(d + 22, 2), 0);
    assert_true(be_get(d + PZ_CMN_LINK_RATE, 8) == LINK_BPS);
    assert_true(be_get(d + PZ_CMN_TIME, 8) == 2 * SEC);
    assert_int_equal(be_get(d + PZ_CMN_CHANGES, 4), 1);
    assert_int_equal(be_get(d + PZ_CMN_INTERVAL, 4), 1000);
    assert_int_equal(be_get(d + 48, 2), 0);

    step(f, 3, SEC, 0, 0);
    assert_true(cong_monitor_next_event(f->m, &ev));
    assert_int_equal(cong_event_notice(f->m, &ev, d), CONG_TRAP_HOTSPOT_CLEAR);
    assert_int_equal(d[PZ_CMN_CLASS], CONG_PORT_NORMAL);
    assert_int_equal(d[PZ_CMN_PREV_CLASS], CONG_PORT_HOTSPOT);
    assert_true(be_get(d + PZ_CMN_CONGESTION, 8) == 0);

    /* A switch-facing port's changes call for no notice. */
    cong_monitor_set_peer(f->m, 4, CONG_PEER_SWITCH);
    step(f, 4, SEC, THR, 100);
    assert_true(cong_monitor_next_event(f->m, &ev));
    assert_int_equal(ev.to, CONG_PORT_LOW_UTIL);
    assert_int_equal(cong_event_notice(f->m, &ev, d), 0);
    fx_free(f);
}

/* The standard reader through a PMA on an in-memory board with 32-bit hardware counters. */
static void test_pma_reader(void **state)
{
    struct board_identity id;
    struct board_mem *bm;
    struct pma *pma;
    struct cong_monitor *m;
    struct cong_port_view v;
    uint64_t w, d;

    board_mem_default_switch_identity(&id, 0x0002c90000004000ull, 4);
    id.counter_bits = 32;
    bm = board_mem_create(&id);
    assert_non_null(bm);
    board_mem_use_manual_clock(bm, SEC);
    board_mem_set_connected(bm, 1, true);
    pma = pma_create(board_mem_board(bm));
    assert_non_null(pma);
    assert_int_equal(cong_monitor_read_pma(pma, 5, &w, &d), -EINVAL);
    m = cong_monitor_create(board_mem_board(bm), cong_monitor_read_pma, pma, NULL);
    assert_non_null(m);
    cong_monitor_set_peer(m, 1, CONG_PEER_CA);
    /* The hardware counter wraps at 2^32 between samples; the PMA's 64-bit view does not. */
    board_mem_counter_add(bm, &board_mem_counters(bm, 1)->xmit_wait, 0xFFFFFFF0ull);
    board_mem_counter_add(bm, &board_mem_counters(bm, 1)->xmit_data, 1000);
    board_mem_advance_ns(bm, 500 * MS);
    pma_poll(pma);
    board_mem_counter_add(bm, &board_mem_counters(bm, 1)->xmit_wait, 0x20);
    board_mem_advance_ns(bm, 500 * MS);
    assert_int_equal(cong_monitor_poll(m), 1);
    cong_monitor_port(m, 1, &v);
    assert_true(v.last.congestion == 0x100000010ull);
    assert_true(v.last.bandwidth == 4000);
    assert_int_equal(v.cls, CONG_PORT_HOTSPOT);
    assert_int_equal(cong_monitor_read_pma(pma, 1, &w, &d), 0);
    assert_true(w == 0x100000010ull && d == 1000);
    cong_monitor_destroy(m);
    pma_destroy(pma);
    board_mem_destroy(bm);
}

PZT_MAIN(test_config_check, test_schedule, test_threshold_edge, test_hysteresis,
         test_ca_vs_switch_facing, test_low_util_margin, test_detection_latency,
         test_actual_interval, test_counter_reset, test_saturation, test_reader_error,
         test_link_down, test_event_queue, test_history, test_event_notice, test_pma_reader)

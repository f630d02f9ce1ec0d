/*
 * bench_cong_monitor.c - CPU cost of the congestion monitor: CPU time per
 * port per sample for a 36-port switch sampled every 100 ms.
 *
 * A 36-port in-memory switch with a PMA and a monitor reading it through
 * cong_monitor_read_pma() (what portzerod runs).  Every round bumps every
 * port's hardware counters (a few ports go in and out of congestion, so
 * classes change and events are drained), advances the manual clock by
 * 100 ms and samples.  CPU time is CLOCK_PROCESS_CPUTIME_ID.  Measured in
 * the same run: (0) the rounds without sampling (traffic and clock only,
 * subtracted from the others), (1) the reference: reading every port's
 * counters through the PMA (pma_port_counters64(), the floor any monitor
 * pays), (2) a plain memcpy of every port's counter struct, (3) the monitor.
 * Prints ns per port per sample, the ratios, and the fraction of one core
 * the monitor needs at 100 ms for 36 ports.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "board_mem.h"
#include "cong_monitor.h"
#include "pma.h"

#define BENCH_PORTS 36
#define BENCH_INTERVAL_MS 100
#define BENCH_ROUNDS 20000
#define BENCH_PASSES 3

/* What a round does besides the traffic. */
enum bench_kind {
    BENCH_NOTHING,  /* traffic and clock only */
    BENCH_PMA_READ, /* read every port through the PMA */
    BENCH_MEMCPY,   /* copy every port's counter struct */
    BENCH_MONITOR,  /* cong_monitor_poll() and drain its events */
};

/* The switch under test. */
struct bench {
    struct board_mem *bm;
    struct pma *pma;
    struct cong_monitor *mon;
    uint64_t round;
    uint64_t sink; /* keeps the optimiser from dropping reads */
    uint64_t events;
};

/* Process CPU time in seconds. */
static double bench_cpu(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One round of traffic: every port sends; ports 1-4 congest for 10 rounds in 20. */
static void bench_traffic(struct bench *b)
{
    bool congested = (b->round / 10) % 2 == 0;

    for (unsigned p = 1; p <= BENCH_PORTS; p++) {
        struct board_port_counters *c = board_mem_counters(b->bm, p);

        board_mem_counter_add(b->bm, &c->xmit_data, 100000000 + p);
        board_mem_counter_add(b->bm, &c->xmit_pkts, 50000);
        if (p <= 4 && congested)
            board_mem_counter_add(b->bm, &c->xmit_wait, 30000);
    }
    board_mem_advance_ns(b->bm, BENCH_INTERVAL_MS * 1000000ull);
    b->round++;
}

/* The per-round work of kind. */
static void bench_work(struct bench *b, enum bench_kind kind)
{
    struct pma_counters c;
    struct board_port_counters copy;
    struct cong_event ev;

    switch (kind) {
    case BENCH_NOTHING:
        break;
    case BENCH_PMA_READ:
        for (unsigned p = 1; p <= BENCH_PORTS; p++)
            if (pma_port_counters64(b->pma, p, &c) == 0)
                b->sink += c.total.xmit_wait + c.total.xmit_data;
        break;
    case BENCH_MEMCPY:
        for (unsigned p = 1; p <= BENCH_PORTS; p++) {
            memcpy(&copy, board_mem_counters(b->bm, p), sizeof(copy));
            b->sink += copy.xmit_wait + copy.xmit_data;
        }
        break;
    case BENCH_MONITOR:
        cong_monitor_poll(b->mon);
        while (cong_monitor_next_event(b->mon, &ev))
            b->events++;
        break;
    }
}

/* CPU seconds for BENCH_ROUNDS rounds of kind. */
static double bench_run(struct bench *b, enum bench_kind kind)
{
    double start = bench_cpu();

    for (unsigned i = 0; i < BENCH_ROUNDS; i++) {
        bench_traffic(b);
        bench_work(b, kind);
    }
    return bench_cpu() - start;
}

/* Nanoseconds per port per sample of kind, net of the traffic rounds (best of the passes). */
static double bench_ns_per_port(struct bench *b, enum bench_kind kind)
{
    double best = 1e30;

    for (unsigned i = 0; i < BENCH_PASSES; i++) {
        double base = bench_run(b, BENCH_NOTHING);
        double t = bench_run(b, kind) - base;

        if (t < best)
            best = t;
    }
    if (best < 0)
        best = 0;
    return best * 1e9 / ((double)BENCH_ROUNDS * BENCH_PORTS);
}

int main(void)
{
    struct board_identity id;
    struct cong_monitor_config cfg;
    struct bench b = {0};
    double mon, pma_read, copy, core;

    board_mem_default_switch_identity(&id, 0x0002c90000000200ull, BENCH_PORTS);
    id.counter_bits = 64; /* the traffic-only rounds do not poll the PMA */
    b.bm = board_mem_create(&id);
    if (!b.bm)
        return 1;
    board_mem_use_manual_clock(b.bm, 1000000000ull);
    for (unsigned p = 1; p <= BENCH_PORTS; p++)
        board_mem_set_connected(b.bm, p, true);
    b.pma = pma_create(board_mem_board(b.bm));
    cong_monitor_default_config(&cfg);
    cfg.interval_ms = BENCH_INTERVAL_MS;
    b.mon = b.pma ? cong_monitor_create(board_mem_board(b.bm), cong_monitor_read_pma, b.pma, &cfg)
                  : NULL;
    if (!b.mon)
        return 1;
    for (unsigned p = 1; p <= 2; p++)
        cong_monitor_set_peer(b.mon, p, CONG_PEER_CA);

    pma_read = bench_ns_per_port(&b, BENCH_PMA_READ);
    copy = bench_ns_per_port(&b, BENCH_MEMCPY);
    mon = bench_ns_per_port(&b, BENCH_MONITOR);
    if (cong_monitor_samples(b.mon) < BENCH_ROUNDS || b.events == 0) {
        printf("bench_cong_monitor: FAILED: the monitor did not sample (%llu rounds, %llu "
               "events)\n",
               (unsigned long long)cong_monitor_samples(b.mon), (unsigned long long)b.events);
        return 1;
    }
    core = mon * 1e-9 * BENCH_PORTS / (BENCH_INTERVAL_MS * 1e-3);
    printf("bench_cong_monitor: %d-port switch, %d ms sampling, %d rounds x %d passes, CPU time\n",
           BENCH_PORTS, BENCH_INTERVAL_MS, BENCH_ROUNDS, BENCH_PASSES);
    printf("monitor (read via PMA + classify + events) %8.1f ns/port/sample\n", mon);
    printf("ref: counters read through the PMA         %8.1f ns/port  ratio %.2f\n", pma_read,
           pma_read > 0 ? mon / pma_read : 0);
    printf("ref: memcpy of the counter struct          %8.1f ns/port  ratio %.2f\n", copy,
           copy > 0 ? mon / copy : 0);
    printf("one core at %d ms for %d ports: %.5f %% (%.2f us per sample of the switch)\n",
           BENCH_INTERVAL_MS, BENCH_PORTS, core * 100, mon * BENCH_PORTS / 1000);
    printf("events drained: %llu (sink %llu)\n", (unsigned long long)b.events,
           (unsigned long long)(b.sink & 0xFF));
    cong_monitor_destroy(b.mon);
    pma_destroy(b.pma);
    board_mem_destroy(b.bm);
    return 0;
}

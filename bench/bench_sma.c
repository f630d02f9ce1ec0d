/*
 * bench_sma.c - in-process SMPs per second on one core.
 *
 * Measures NodeInfo Get (directed route, one hop), PortInfo Get and
 * LinearForwardingTable block Set answered by the SMA library.  The
 * reference measured in the same run is an "echo agent" that does the least
 * any agent must do per SMP (copy the request, turn it into a response); the
 * ratio says how much the real work costs on top.  The published figure of
 * an InfiniScale IV switch (about 2,500 LFT-block SMPs/s) is printed as a
 * second, fixed reference.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <infiniband/mad.h>

#include "board_mem.h"
#include "mad_header.h"
#include "sma.h"

#define BENCH_SECONDS 1.0
#define INFINISCALE_IV_LFT_PER_S 2500.0

/* Seconds on the monotonic clock. */
static double bench_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Build a request SMP. */
static void bench_smp(uint8_t *mad, unsigned mgmt_class, unsigned method, unsigned attr,
                      uint32_t mod)
{
    static const uint8_t path[2] = {0, 1};

    mad_header_init(mad, mgmt_class, 1, method, 0, attr, mod);
    if (mgmt_class == IB_SMI_DIRECT_CLASS)
        mad_dr_init(mad, 1, 1, 0xFFFF, 0xFFFF, path);
}

/* The reference: copy the request and make it a response. */
static int bench_echo(const uint8_t *in, uint8_t *out)
{
    memcpy(out, in, 256);
    mad_set_field(out, 0, IB_MAD_METHOD_F, 1);
    mad_set_field(out, 0, IB_MAD_RESPONSE_F, 1);
    return out[3] != 0;
}

/* Run one SMP kind for BENCH_SECONDS; returns SMPs per second (0 on failure). */
static double bench_sma_rate(struct sma *sma, uint8_t *req, bool lft, bool echo)
{
    struct mad_addr from = {.port = 1, .slid = 1, .lid_routed = true}, to;
    uint8_t out[256];
    unsigned long n = 0, answered = 0;
    double start = bench_now(), elapsed;

    do {
        for (unsigned i = 0; i < 1024; i++, n++) {
            if (lft)
                mad_set_field(req, 0, IB_MAD_ATTRMOD_F, (uint32_t)(n % 768));
            if (echo)
                answered += bench_echo(req, out);
            else
                answered += sma_process(sma, &from, req, 256, &to, out) == MAD_SEND;
        }
        elapsed = bench_now() - start;
    } while (elapsed < BENCH_SECONDS);
    return answered == n ? (double)n / elapsed : 0;
}

/* Measure one SMP kind and print it with its ratios. */
static int bench_one(struct sma *sma, const char *name, unsigned mgmt_class, unsigned method,
                     unsigned attr, uint32_t mod, bool lft)
{
    uint8_t req[256];
    double rate, ref;

    bench_smp(req, mgmt_class, method, attr, mod);
    ref = bench_sma_rate(sma, req, lft, true);
    rate = bench_sma_rate(sma, req, lft, false);
    if (rate == 0) {
        printf("%-28s FAILED: the SMA did not answer every SMP\n", name);
        return 1;
    }
    printf("%-28s %12.0f SMPs/s  echo-agent ref %12.0f/s  ratio %.3f", name, rate, ref, rate / ref);
    if (lft)
        printf("  vs InfiniScale IV (2,500/s, published) x%.0f", rate / INFINISCALE_IV_LFT_PER_S);
    printf("\n");
    return 0;
}

int main(void)
{
    struct board_identity id;
    struct board_mem *bm;
    struct sma *sma;
    int rc = 0;

    board_mem_default_switch_identity(&id, 0x0002c90000000100ull, 36);
    bm = board_mem_create(&id);
    sma = bm ? sma_create(board_mem_board(bm)) : NULL;
    if (!sma)
        return 1;
    for (unsigned p = 1; p <= 36; p++)
        board_mem_set_connected(bm, p, true);
    printf("bench_sma: in-process SMA, one core, %.1f s per measurement\n", BENCH_SECONDS);
    rc |= bench_one(sma, "NodeInfo Get (DR, 1 hop)", IB_SMI_DIRECT_CLASS, IB_MAD_METHOD_GET,
                    IB_ATTR_NODE_INFO, 0, false);
    rc |= bench_one(sma, "PortInfo Get (port 5)", IB_SMI_CLASS, IB_MAD_METHOD_GET,
                    IB_ATTR_PORT_INFO, 5, false);
    rc |= bench_one(sma, "LFT block Set", IB_SMI_CLASS, IB_MAD_METHOD_SET, IB_ATTR_LINEARFORWTBL, 0,
                    true);
    sma_destroy(sma);
    board_mem_destroy(bm);
    return rc;
}

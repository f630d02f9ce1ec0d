/*
 * bench_lft_client.c - LinearForwardingTable block Sets per second, end to
 * end, as seen by a client on a CA: directed-route SMPs through libibumad
 * (umad2sim in emulation) with a window of requests outstanding.
 *
 *   bench_lft_client PATH SECONDS [WINDOW]     e.g. bench_lft_client 0,1,1 2 4
 *
 * WINDOW defaults to 4, OpenSM's max_wire_smps: the SMPs it keeps in flight.
 *
 * Prints "<answered> <seconds> <per second> <errors>" on one line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "bench_window.h"
#include "mad_header.h"

/* Build one DR Set LinearForwardingTable for block into mad. */
static void build_set(uint8_t *mad, uint64_t tid, unsigned block, int hops, const uint8_t *path)
{
    mad_header_init(mad, IB_SMI_DIRECT_CLASS, 1, IB_MAD_METHOD_SET, tid, IB_ATTR_LINEARFORWTBL,
                    block);
    mad_dr_init(mad, (unsigned)hops, 0, 0xFFFF, 0xFFFF, path);
    memset(mad + 64, (int)(block % 8) + 1, 64);
}

/* The directed route every request takes. */
struct lft_route {
    uint8_t path[64];
    int hops;
};

/* bench_window_client.build: request seq writes block seq % 768. */
static void lft_build(void *arg, uint8_t *mad, uint64_t tid, unsigned long seq)
{
    const struct lft_route *r = arg;

    build_set(mad, tid, (unsigned)(seq % 768), r->hops, r->path);
}

/* bench_window_client.good: SMP status 0. */
static int lft_good(void *arg, const uint8_t *mad)
{
    (void)arg;
    return mad_get_field((void *)mad, 0, IB_DRSMP_STATUS_F) == 0;
}

int main(int argc, char **argv)
{
    struct lft_route r = {.path = {0}};
    double seconds = argc > 2 ? atof(argv[2]) : 0;
    int window = argc > 3 ? atoi(argv[3]) : 4;
    struct bench_window_client c = bench_dr_client("bench_lft_client", lft_build, lft_good, &r);

    r.hops = argc > 2 ? bench_parse_path(argv[1], r.path) : -1;
    if (r.hops < 1 || seconds <= 0 || window < 1 || window > BENCH_MAX_WINDOW) {
        fprintf(stderr, "usage: bench_lft_client PATH SECONDS [WINDOW<=64]\n");
        return 2;
    }
    return bench_window_run(&c, seconds, window);
}

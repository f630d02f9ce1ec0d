/*
 * bench_smp_client.c - directed-route SMP Gets per second, end to end, as
 * seen by a client on a CA: NodeInfo or PortInfo Gets through libibumad
 * (umad2sim in emulation) with a window of requests outstanding.
 *
 *   bench_smp_client nodeinfo|portinfo PATH SECONDS [WINDOW]
 *       e.g. bench_smp_client nodeinfo 0,1,19 2 1     (synchronous)
 *            bench_smp_client portinfo 0,1,19 2 16    (pipelined)
 *
 * PortInfo Gets cycle over ports 1..8 of the target.  Prints "<answered>
 * <seconds> <per second> <errors>" on one line; an answer with a non-zero
 * status, or for another attribute, counts as an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "bench_window.h"
#include "mad_header.h"

/* What every request asks, and the route it takes. */
struct smp_request {
    unsigned attr; /* IB_ATTR_NODE_INFO or IB_ATTR_PORT_INFO */
    uint8_t path[64];
    int hops;
};

/* bench_window_client.build: a DR Get of the attribute (PortInfo: port 1 + seq % 8). */
static void smp_build(void *arg, uint8_t *mad, uint64_t tid, unsigned long seq)
{
    const struct smp_request *r = arg;
    unsigned mod = r->attr == IB_ATTR_PORT_INFO ? 1 + (unsigned)(seq % 8) : 0;

    mad_header_init(mad, IB_SMI_DIRECT_CLASS, 1, IB_MAD_METHOD_GET, tid, r->attr, mod);
    mad_dr_init(mad, (unsigned)r->hops, 0, 0xFFFF, 0xFFFF, r->path);
}

/* bench_window_client.good: status 0, a GetResp for the attribute asked. */
static int smp_good(void *arg, const uint8_t *mad)
{
    const struct smp_request *r = arg;
    void *m = (void *)mad;

    return mad_get_field(m, 0, IB_DRSMP_STATUS_F) == 0 &&
           mad_get_field(m, 0, IB_MAD_METHOD_F) == (IB_MAD_METHOD_GET_RESPONSE & 0x7F) &&
           mad_get_field(m, 0, IB_MAD_ATTRID_F) == r->attr;
}

int main(int argc, char **argv)
{
    struct smp_request r = {.hops = -1};
    double seconds = argc > 3 ? atof(argv[3]) : 0;
    int window = argc > 4 ? atoi(argv[4]) : 1;
    struct bench_window_client c = bench_dr_client("bench_smp_client", smp_build, smp_good, &r);

    if (argc > 3) {
        r.attr = !strcmp(argv[1], "nodeinfo")   ? IB_ATTR_NODE_INFO
                 : !strcmp(argv[1], "portinfo") ? IB_ATTR_PORT_INFO
                                                : 0;
        r.hops = bench_parse_path(argv[2], r.path);
    }
    if (!r.attr || r.hops < 1 || seconds <= 0 || window < 1 || window > BENCH_MAX_WINDOW) {
        fprintf(stderr, "usage: bench_smp_client nodeinfo|portinfo PATH SECONDS [WINDOW<=64]\n");
        return 2;
    }
    return bench_window_run(&c, seconds, window);
}

/*
 * bench_pce_client.c - PortCountersExtended Gets per second, end to end, as
 * seen by a client on a CA: LID-routed PMA GMPs (class 0x04, QP1) through
 * libibumad (umad2sim in emulation) with a window of requests outstanding.
 *
 *   bench_pce_client LID PORT SECONDS [WINDOW]     e.g. bench_pce_client 2 1 2 16
 *
 * Prints "<answered> <seconds> <per second> <errors>" on one line; an
 * answer with a non-zero MAD status, or whose PortSelect is not PORT,
 * counts as an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "bench_window.h"
#include "mad_header.h"

/* Build one Get(PortCountersExtended) of port into mad. */
static void build_get(uint8_t *mad, uint64_t tid, unsigned port)
{
    mad_header_init(mad, IB_PERFORMANCE_CLASS, 1, IB_MAD_METHOD_GET, tid, IB_GSI_PORT_COUNTERS_EXT,
                    0);
    mad_set_field(mad + IB_PC_DATA_OFFS, 0, IB_PC_EXT_PORT_SELECT_F, port);
}

/* Whether mad is a good answer for port: a GetResp, status 0, the port echoed. */
static int good_answer(const uint8_t *mad, unsigned port)
{
    void *m = (void *)mad;

    return mad_get_field(m, 0, IB_MAD_METHOD_F) == (IB_MAD_METHOD_GET_RESPONSE & 0x7F) &&
           mad_get_field(m, 0, IB_MAD_STATUS_F) == 0 &&
           mad_get_field((uint8_t *)m + IB_PC_DATA_OFFS, 0, IB_PC_EXT_PORT_SELECT_F) == port;
}

/* bench_window_client.build: request seq asks for the port in *arg. */
static void pce_build(void *arg, uint8_t *mad, uint64_t tid, unsigned long seq)
{
    (void)seq;
    build_get(mad, tid, *(const unsigned *)arg);
}

/* bench_window_client.good. */
static int pce_good(void *arg, const uint8_t *mad)
{
    return good_answer(mad, *(const unsigned *)arg);
}

int main(int argc, char **argv)
{
    long lid = argc > 3 ? strtol(argv[1], NULL, 0) : 0;
    long port = argc > 3 ? strtol(argv[2], NULL, 0) : -1;
    double seconds = argc > 3 ? atof(argv[3]) : 0;
    int window = argc > 4 ? atoi(argv[4]) : 16;
    unsigned uport;
    struct bench_window_client c =
        bench_client("bench_pce_client", IB_PERFORMANCE_CLASS, pce_build, pce_good, &uport);

    if (lid < 1 || lid > 0xBFFF || port < 0 || port > 255 || seconds <= 0 || window < 1 ||
        window > BENCH_MAX_WINDOW) {
        fprintf(stderr, "usage: bench_pce_client LID PORT SECONDS [WINDOW<=64]\n");
        return 2;
    }
    uport = (unsigned)port;
    c.dlid = (int)lid;
    c.dqp = 1;
    c.qkey = IB_DEFAULT_QP1_QKEY;
    return bench_window_run(&c, seconds, window);
}

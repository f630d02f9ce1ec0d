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
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#define BENCH_MAD 256
#define BENCH_MAX_WINDOW 64

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Build one Get(PortCountersExtended) of port into mad. */
static void build_get(uint8_t *mad, uint64_t tid, unsigned port)
{
    memset(mad, 0, BENCH_MAD);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_PERFORMANCE_CLASS);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_GET);
    mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
    mad_set_field(mad, 0, IB_MAD_ATTRID_F, IB_GSI_PORT_COUNTERS_EXT);
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

int main(int argc, char **argv)
{
    long lid = argc > 3 ? strtol(argv[1], NULL, 0) : 0;
    long port = argc > 3 ? strtol(argv[2], NULL, 0) : -1;
    double seconds = argc > 3 ? atof(argv[3]) : 0;
    int window = argc > 4 ? atoi(argv[4]) : 16;
    unsigned long sent = 0, answered = 0, errors = 0;
    int portid, agent, outstanding = 0;
    void *umad;
    double start, end;

    if (lid < 1 || lid > 0xBFFF || port < 0 || port > 255 || seconds <= 0 || window < 1 ||
        window > BENCH_MAX_WINDOW) {
        fprintf(stderr, "usage: bench_pce_client LID PORT SECONDS [WINDOW<=64]\n");
        return 2;
    }
    if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0 ||
        (agent = umad_register(portid, IB_PERFORMANCE_CLASS, 1, 0, NULL)) < 0) {
        fprintf(stderr, "bench_pce_client: cannot open a umad port\n");
        return 1;
    }
    umad = calloc(1, umad_size() + BENCH_MAD);
    if (!umad)
        return 1;
    start = now_s();
    end = start + seconds;
    while (now_s() < end || outstanding > 0) {
        while (outstanding < window && now_s() < end) {
            /* umad2sim routes a response to the agent in the TID's high word. */
            uint64_t tid = (uint64_t)agent << 32 | (uint32_t)++sent;

            build_get(umad_get_mad(umad), tid, (unsigned)port);
            umad_set_addr(umad, (int)lid, 1, 0, IB_DEFAULT_QP1_QKEY);
            if (umad_send(portid, agent, umad, BENCH_MAD, 1000, 0) < 0) {
                errors++;
                break;
            }
            outstanding++;
        }
        {
            int len = BENCH_MAD;

            if (umad_recv(portid, umad, &len, 2000) < 0) {
                errors += (unsigned long)outstanding;
                break; /* nothing came back in 2 s: give up */
            }
            outstanding--;
            if (umad_status(umad) || !good_answer(umad_get_mad(umad), (unsigned)port))
                errors++;
            else
                answered++;
        }
    }
    seconds = now_s() - start;
    printf("%lu %.3f %.0f %lu\n", answered, seconds, (double)answered / seconds, errors);
    free(umad);
    umad_close_port(portid);
    return errors && !answered ? 1 : 0;
}

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

/* Parse "0,1,1" into path[1..]; returns the hop count or -1. */
static int parse_path(const char *s, uint8_t *path)
{
    int hops = -1;
    char *end;

    for (;;) {
        long v = strtol(s, &end, 10);

        if (end == s || v < 0 || v > 255 || hops >= 63)
            return -1;
        if (hops >= 0)
            path[hops + 1] = (uint8_t)v;
        hops++;
        if (*end == '\0')
            return hops;
        if (*end != ',')
            return -1;
        s = end + 1;
    }
}

/* Build one DR Set LinearForwardingTable for block into mad. */
static void build_set(uint8_t *mad, uint64_t tid, unsigned block, int hops, const uint8_t *path)
{
    memset(mad, 0, BENCH_MAD);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, IB_SMI_DIRECT_CLASS);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, IB_MAD_METHOD_SET);
    mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
    mad_set_field(mad, 0, IB_MAD_ATTRID_F, IB_ATTR_LINEARFORWTBL);
    mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, block);
    mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, (unsigned)hops);
    mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, 0xFFFF);
    mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, 0xFFFF);
    memcpy(mad + 128, path, 64); /* InitialPath: libibmad has it only as a whole */
    memset(mad + 64, (int)(block % 8) + 1, 64);
}

int main(int argc, char **argv)
{
    uint8_t path[64] = {0};
    int hops = argc > 2 ? parse_path(argv[1], path) : -1;
    double seconds = argc > 2 ? atof(argv[2]) : 0;
    int window = argc > 3 ? atoi(argv[3]) : 4;
    unsigned long sent = 0, answered = 0, errors = 0;
    int portid, agent, outstanding = 0;
    void *umad;
    double start, end;

    if (hops < 1 || seconds <= 0 || window < 1 || window > BENCH_MAX_WINDOW) {
        fprintf(stderr, "usage: bench_lft_client PATH SECONDS [WINDOW<=64]\n");
        return 2;
    }
    if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0 ||
        (agent = umad_register(portid, IB_SMI_DIRECT_CLASS, 1, 0, NULL)) < 0) {
        fprintf(stderr, "bench_lft_client: cannot open a umad port\n");
        return 1;
    }
    umad = calloc(1, umad_size() + BENCH_MAD);
    start = now_s();
    end = start + seconds;
    while (now_s() < end || outstanding > 0) {
        while (outstanding < window && now_s() < end) {
            /* umad2sim routes a response to the agent in the TID's high word. */
            uint64_t tid = (uint64_t)agent << 32 | (uint32_t)++sent;

            build_set(umad_get_mad(umad), tid, (unsigned)(sent % 768), hops, path);
            umad_set_addr(umad, 0xFFFF, 0, 0, 0);
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
            if (umad_status(umad) || mad_get_field(umad_get_mad(umad), 0, IB_DRSMP_STATUS_F) != 0)
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

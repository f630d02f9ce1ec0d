/*
 * bench_window.c - the windowed request loop of the bench clients (bench_window.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include "bench_window.h"

/* Seconds on the monotonic clock. */
static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct bench_window_client bench_client(const char *name, int mgmt_class,
                                        void (*build)(void *arg, uint8_t *mad, uint64_t tid,
                                                      unsigned long seq),
                                        int (*good)(void *arg, const uint8_t *mad), void *arg)
{
    return (struct bench_window_client){
        .name = name,
        .mgmt_class = mgmt_class,
        .class_version = 1,
        .build = build,
        .good = good,
        .arg = arg,
    };
}

struct bench_window_client bench_dr_client(const char *name,
                                           void (*build)(void *arg, uint8_t *mad, uint64_t tid,
                                                         unsigned long seq),
                                           int (*good)(void *arg, const uint8_t *mad), void *arg)
{
    struct bench_window_client c = bench_client(name, IB_SMI_DIRECT_CLASS, build, good, arg);

    c.dlid = 0xFFFF;
    return c;
}

int bench_parse_path(const char *s, uint8_t *path)
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

int bench_window_run(const struct bench_window_client *c, double seconds, int window)
{
    unsigned long sent = 0, answered = 0, errors = 0;
    int portid, agent, outstanding = 0;
    void *umad;
    double start, end;

    if (umad_init() < 0 || (portid = umad_open_port(NULL, 0)) < 0 ||
        (agent = umad_register(portid, c->mgmt_class, c->class_version, 0, NULL)) < 0) {
        fprintf(stderr, "%s: cannot open a umad port\n", c->name);
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

            c->build(c->arg, umad_get_mad(umad), tid, sent);
            umad_set_addr(umad, c->dlid, c->dqp, 0, (int)c->qkey);
            if (umad_send(portid, agent, umad, BENCH_MAD, 1000, 0) < 0) {
                errors++;
                break;
            }
            outstanding++;
        }
        int len = BENCH_MAD;

        if (umad_recv(portid, umad, &len, 2000) < 0) {
            errors += (unsigned long)outstanding;
            break; /* nothing came back in 2 s: give up */
        }
        outstanding--;
        if (umad_status(umad) || !c->good(c->arg, umad_get_mad(umad)))
            errors++;
        else
            answered++;
    }
    seconds = now_s() - start;
    printf("%lu %.3f %.0f %lu\n", answered, seconds, (double)answered / seconds, errors);
    free(umad);
    umad_close_port(portid);
    return errors && !answered ? 1 : 0;
}

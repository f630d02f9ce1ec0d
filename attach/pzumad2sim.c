/*
 * pzumad2sim.c - libpzumad2sim.so, the repair that makes Debian's
 * libumad2sim.so (ibsim 0.10-0.12) deliver whole MADs.  Preload it after
 * umad2sim (pz-attach does):
 *
 *   LD_PRELOAD="/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so libpzumad2sim.so"
 *
 * What is wrong in umad2sim (facts from ibsim's umad2sim/umad2sim.c).  Its
 * receiver thread, one per emulated device, allocates a receive block of
 * sizeof(struct sim_request) = 288 bytes for every MAD, reads the
 * simulator's 288-byte sim_request from the packet socket into a stack
 * copy, and copies the MAD into the block behind a struct ib_user_mad
 * header (64 bytes), clipped to the block: 288 - 64 = 224 bytes of the
 * 256.  It records the block's size as 64 + the request's length (320 for
 * a full MAD), and the client's read() of the umad file descriptor then
 * copies those 320 bytes out of the 288-byte block.  So:
 *   - MAD bytes 224-255 never arrive: the client gets the 32 bytes of heap
 *     that follow the block.  PortCountersExtended's PortXmitWait,
 *     VL15Dropped and QP1Dropped, the end of a CongestionLog or of an SA
 *     record come out as garbage (perfquery -x, ibqueryerrors, OpenSM's
 *     perfmgr);
 *   - every MAD is a 32-byte heap over-read inside the client, which
 *     AddressSanitizer and valgrind report in any instrumented client
 *     (portzerod under ASan stops at its first MAD).
 * The length is the simulator's to set, so no server can avoid this: any
 * full-size MAD loses its last 32 bytes.
 *
 * Why a preload.  The defect is inside Debian's packaged client library,
 * which every OFED tool (OpenSM, infiniband-diags, portzerod) is attached
 * through, and which we neither rebuild nor replace; a second preloaded
 * library reaches exactly the three calls umad2sim makes on its receive
 * path, without copying any of it:
 *   - pthread_create(): umad2sim's calls reach this one; a thread whose
 *     start routine lies in libumad2sim.so is marked as a receiver;
 *   - malloc(): on a receiver thread, a request for sizeof(struct
 *     sim_request) bytes (the receive block) gets a zeroed block of
 *     64 + 256 bytes, remembered as pending; every other allocation, on
 *     every thread, goes to the next malloc unchanged (libc's, or the
 *     sanitizer's or valgrind's, which then still see the block);
 *   - read(): umad2sim reads the packet socket through the read() that
 *     follows it in the search order, i.e. this one when this library is
 *     loaded after it; on a receiver thread, a whole sim_request read is
 *     the MAD of the pending block: its bytes 224-255 go into the block
 *     where umad2sim's copy stops, and a length above 256 is clipped to
 *     256 before umad2sim sees it, so the client's read() stays inside the
 *     block.
 * If this library is loaded before umad2sim, umad2sim's reads bypass it;
 * it notices (a receive block allocated while the previous one was never
 * read into) and says so once on stderr.
 *
 * The same library also runs RMPP for umad2sim's clients (pzumad_rmpp.c).
 *
 * With PZ_UMAD2SIM_MAD_LOG=FILE in the environment it also appends the
 * CLOCK_REALTIME time ("seconds.nanoseconds") at which each MAD arrived to
 * FILE: the time a remote agent read its counters is then known to within
 * a round trip (the tests measure rates with it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <endian.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "pzumad_timeout.h"
#include "sim_proto.h"

#define PZU_MAD_SIZE 256                                 /* sizeof(sim_request.mad) */
#define PZU_HDR_SIZE sizeof(struct ib_user_mad)          /* umad_size() */
#define PZU_REQ_SIZE sizeof(struct sim_request)          /* umad2sim's block size */
#define PZU_COPIED (PZU_REQ_SIZE - PZU_HDR_SIZE)         /* MAD bytes umad2sim copies */
#define PZU_BLOCK_SIZE (PZU_HDR_SIZE + PZU_MAD_SIZE)     /* what the client's read() copies */
#define PZU_MAD_OFFSET offsetof(struct sim_request, mad) /* the MAD in a sim_request */

_Static_assert(PZU_COPIED < PZU_MAD_SIZE, "umad2sim's block holds the whole MAD: nothing to fix");

/* Thread state; initial-exec TLS, so reaching it never allocates (malloc() reads it). */
#define PZU_TLS __thread __attribute__((tls_model("initial-exec")))

/* This thread is a umad2sim receiver thread. */
static PZU_TLS int pzu_receiver;
/* The receive block this receiver allocated last and has not read a MAD into yet. */
static PZU_TLS uint8_t *pzu_pending;
/* This thread is inside dlsym() looking up the next malloc(). */
static PZU_TLS int pzu_resolving;

void *__libc_malloc(size_t size);
void *malloc(size_t size);
ssize_t read(int fd, void *buf, size_t count);
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                   void *arg);

/* What a receiver thread starts with: umad2sim's routine and its argument. */
struct pzu_start {
    void *(*start)(void *);
    void *arg;
};

/* The malloc() after this library; returns it (libc's while dlsym() itself allocates). */
static void *(*pzu_next_malloc(void))(size_t)
{
    static void *(*next)(size_t);
    void *(*found)(size_t);

    if (next)
        return next;
    if (pzu_resolving)
        return __libc_malloc;
    pzu_resolving = 1;
    found = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    pzu_resolving = 0;
    if (!found)
        return __libc_malloc;
    next = found;
    return next;
}

/* Say once on stderr that umad2sim's reads bypass this library. */
static void pzu_warn_order(void)
{
    static int warned;
    static const char msg[] = "libpzumad2sim.so: umad2sim's reads do not reach it; load it after "
                              "libumad2sim.so in LD_PRELOAD (pz-attach does)\n";

    if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        return;
    if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
        /* nowhere left to say it */
    }
}

/* A receiver's receive block: zeroed, room for the header and a whole MAD; returns it or NULL. */
static void *pzu_receive_block(void)
{
    uint8_t *block = pzu_next_malloc()(PZU_BLOCK_SIZE);

    if (pzu_pending)
        pzu_warn_order();
    if (block)
        memset(block, 0, PZU_BLOCK_SIZE);
    pzu_pending = block;
    return block;
}

/* malloc(): a receiver's receive block is enlarged, all else passes on; returns the memory. */
void *malloc(size_t size)
{
    if (pzu_receiver && size == PZU_REQ_SIZE)
        return pzu_receive_block();
    return pzu_next_malloc()(size);
}

/* Append the time now to $PZ_UMAD2SIM_MAD_LOG, if set. */
static void pzu_log_arrival(void)
{
    const char *file = getenv("PZ_UMAD2SIM_MAD_LOG");
    struct timespec ts;
    char line[48];
    int fd, n;

    if (!file || clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return;
    n = snprintf(line, sizeof(line), "%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
    fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n) {
        /* a lost time stamp only fails the test that asked for it */
    }
    close(fd);
}

/* Complete the pending block from the sim_request in req and clip its length to a MAD. */
static void pzu_fill_pending(struct sim_request *req)
{
    memcpy(pzu_pending + PZU_HDR_SIZE + PZU_COPIED,
           (const uint8_t *)req + PZU_MAD_OFFSET + PZU_COPIED, PZU_MAD_SIZE - PZU_COPIED);
    if (be64toh(req->length) > PZU_MAD_SIZE)
        req->length = htobe64(PZU_MAD_SIZE);
    pzu_timeout_strip(req); /* another client's umad timeout is no status of ours */
    pzu_log_arrival();
}

/* read(): the next read(), and on a receiver a whole sim_request completes its block; returns
 * what the next read() returned. */
ssize_t read(int fd, void *buf, size_t count)
{
    static ssize_t (*next_read)(int, void *, size_t);
    ssize_t n;

    if (!next_read)
        next_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    n = next_read(fd, buf, count);
    if (!pzu_receiver || !pzu_pending)
        return n;
    if (n == (ssize_t)PZU_REQ_SIZE && count == PZU_REQ_SIZE)
        pzu_fill_pending(buf);
    pzu_pending = NULL;
    return n;
}

/* A receiver thread's start: marks the thread, then runs umad2sim's routine; returns its value. */
static void *pzu_receiver_start(void *p)
{
    struct pzu_start s = *(struct pzu_start *)p;

    free(p);
    pzu_receiver = 1;
    return s.start(s.arg);
}

/* Whether code at addr lies in libumad2sim.so. */
static int pzu_in_umad2sim(void *addr)
{
    Dl_info info;
    const char *base;

    if (!dladdr(addr, &info) || !info.dli_fname)
        return 0;
    base = strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    return strncmp(base, "libumad2sim.so", strlen("libumad2sim.so")) == 0;
}

/* pthread_create(): the next one; umad2sim's threads start marked as receivers; returns its
 * value. */
int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    static int (*next_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    struct pzu_start *s;
    int ret;

    if (!next_create)
        next_create = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                               void *))dlsym(RTLD_NEXT, "pthread_create");
    if (!pzu_in_umad2sim((void *)start))
        return next_create(thread, attr, start, arg);
    s = malloc(sizeof(*s));
    if (!s)
        return next_create(thread, attr, start, arg);
    s->start = start;
    s->arg = arg;
    ret = next_create(thread, attr, pzu_receiver_start, s);
    if (ret != 0)
        free(s);
    return ret;
}

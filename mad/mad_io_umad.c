/*
 * mad_io_umad.c - mad_io over libibumad.
 *
 * The agent registers for the two SMI classes, the PMA class and the
 * Congestion Control class, each with a method mask that holds every
 * request method it serves (Get, Set, TrapRepress) so that
 * unsolicited requests reach it, and as a client (no methods) of the SA
 * class, so that the answers to its own SA requests (IPoIB joins, path
 * queries) come back.
 *
 * Under umad2sim (pzfabric, ibsim) the umad descriptor is a fake one
 * (>= 1024) and umad2sim's poll() waits on that descriptor alone whenever it
 * is in the set: the agent's other descriptors (signals, datagram QPs,
 * lwIP's queue) would never wake it.  There a reader thread takes the MADs
 * (blocking in umad2sim's poll on the umad descriptor alone) into a queue
 * and signals an eventfd, which is what mad_io_fd() returns; the agent loop
 * then polls only real descriptors.  With the kernel's umad the descriptor
 * is real and no thread runs.
 */
#include "mad_io_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/mad.h>
#include <infiniband/umad.h>

/* MADs the reader thread may hold for the agent loop. */
#define MAD_IO_QUEUE 256
/*
 * SMP requests it holds at most: QP0's receive queue.  One more is dropped
 * and counted (VL15Dropped) as board_sim_mad.h explains; other MADs wait for
 * room instead (the GSI's answers to the agent's own requests).
 */
#define MAD_IO_SMP_DEPTH 128
/* The reader thread checks for a stop this often (ms) while no MAD comes. */
#define MAD_IO_READER_POLL_MS 100
/* umad2sim hands out descriptors from here up (its poll() treats them specially). */
#define MAD_IO_UMAD2SIM_FD_BASE 1024

/* The longest MAD taken (a reassembled RMPP answer: an SA table). */
#define MAD_IO_MAX_LEN (16u << 20)

/* One received MAD and where it came from. */
struct mad_io_rx {
    uint8_t mad[IB_MAD_SIZE];
    struct mad_addr addr;
    uint8_t *whole; /* a MAD longer than IB_MAD_SIZE: all of it (malloc'd), else NULL */
    size_t len;     /* its length */
};

/* A umad receive buffer that grows for reassembled RMPP answers. */
struct mad_io_buf {
    void *umad;
    size_t cap; /* MAD bytes it holds after the umad header */
};

/* The reader thread's queue (umad2sim only). */
struct mad_io_reader {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t room; /* signalled when the loop takes a MAD */
    int efd;             /* readable while the queue holds MADs */
    atomic_bool stop;
    bool failed; /* umad_recv failed: reported once through mad_io_recv */
    unsigned head, count;
    unsigned smps;                    /* SMP requests among them */
    atomic_ulong smp_dropped;         /* SMP requests that found MAD_IO_SMP_DEPTH waiting */
    atomic_ulong smp_dropped_on[256]; /* the same by ingress port (0: not known) */
    struct mad_io_rx q[MAD_IO_QUEUE];
    struct mad_io_buf buf; /* the thread's receive buffer */
};

struct mad_io_umad {
    int portid;
    int agent_lid;                /* agent id for class 0x01 */
    int agent_dr;                 /* agent id for class 0x81 */
    int agent_pma;                /* agent id for class 0x04 (PMA), or -1 */
    int agent_cc;                 /* agent id for class 0x21 (Congestion Control), or -1 */
    int agent_sa;                 /* agent id for class 0x03 (SA client, RMPP), or -1 */
    struct mad_io_buf rx;         /* receive buffer: umad header + a MAD (or more) */
    struct mad_io_rx last;        /* the MAD mad_io_recv returned last (its whole copy) */
    void *tx_umad;                /* send buffer */
    struct mad_io_reader *reader; /* umad2sim: the reader thread, else NULL */
};

#define MAD_GSI_QKEY 0x80010000u /* the well-known Q_Key of QP1 */
#define MAD_IO_CC_CLASS 0x21

/* Register one class (class version version); returns the agent id or -1. */
static int mad_io_register(int portid, unsigned mgmt_class, unsigned version)
{
    long method_mask[16 / sizeof(long)];

    memset(method_mask, 0, sizeof(method_mask));
    /* bit n of the 128-bit mask = method n */
    ((uint8_t *)method_mask)[IB_MAD_METHOD_GET / 8] |= 1u << (IB_MAD_METHOD_GET % 8);
    ((uint8_t *)method_mask)[IB_MAD_METHOD_SET / 8] |= 1u << (IB_MAD_METHOD_SET % 8);
    ((uint8_t *)method_mask)[IB_MAD_METHOD_TRAP_REPRESS / 8] |= 1u
                                                                << (IB_MAD_METHOD_TRAP_REPRESS % 8);
    return umad_register(portid, (int)mgmt_class, (int)version, 0, method_mask);
}

/*
 * The physical port a MAD entered by, as far as umad lets us know.  umad has
 * no field for it; a kernel that did the directed-route hop processing (as
 * Linux does for switch devices) leaves it in ReturnPath[HopCount] with
 * HopPointer == HopCount + 1.  Otherwise it is taken as the management port.
 */
static uint8_t mad_io_ingress_port(const uint8_t *mad)
{
    unsigned hc, hp;

    if (mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F) != IB_SMI_DIRECT_CLASS ||
        mad_get_field((void *)mad, 0, IB_DRSMP_DIRECTION_F))
        return 0;
    hc = mad_get_field((void *)mad, 0, IB_DRSMP_HOPCNT_F);
    hp = mad_get_field((void *)mad, 0, IB_DRSMP_HOPPTR_F);
    if (hc == 0 || hc >= 64 || hp != hc + 1)
        return 0;
    return mad[192 + hc]; /* ReturnPath[hc]; libibmad has only the whole path */
}

/*
 * Bytes a umad buffer needs: header and MAD.  The MAD starts at
 * umad_get_mad(), sizeof(struct ib_user_mad) (64) into the buffer.
 * libibumad's umad_size() says 56 until a port is open (it switches to the
 * header with pkey_index, 64, when the kernel or umad2sim supports it), so
 * call this after umad_open_port; the larger of the two is taken anyway, a
 * buffer of 56 + 256 bytes being 8 bytes short of the MAD's end.
 */
static size_t mad_io_umad_bytes(void)
{
    size_t hdr = umad_size();

    return (hdr > sizeof(struct ib_user_mad) ? hdr : sizeof(struct ib_user_mad)) + IB_MAD_SIZE;
}

/* The common MAD header's size: shorter is no MAD. */
#define MAD_IO_HDR_SIZE 24

/*
 * Whether a received MAD of len bytes is whole.  SMPs are always 256 bytes;
 * a GMP may come shorter, as its sender sent it (OpenSM's SA answers are
 * the SA header and one record, e.g. 112 bytes for an MCMemberRecord): the
 * rest reads as zeros.
 */
static bool mad_io_length_ok(const uint8_t *mad, int len)
{
    if (len < MAD_IO_HDR_SIZE)
        return false;
    if (mad[1] == IB_SMI_CLASS || mad[1] == IB_SMI_DIRECT_CLASS)
        return len >= IB_MAD_SIZE;
    return true;
}

/* Make b hold len MAD bytes; 0 or -1 (too long, no memory). */
static int mad_io_buf_reserve(struct mad_io_buf *b, size_t len)
{
    size_t hdr = mad_io_umad_bytes() - IB_MAD_SIZE;
    void *p;

    if (len <= b->cap)
        return 0;
    if (len > MAD_IO_MAX_LEN)
        return -1;
    p = realloc(b->umad, hdr + len);
    if (!p)
        return -1;
    b->umad = p;
    b->cap = len;
    return 0;
}

static void mad_io_buf_free(struct mad_io_buf *b)
{
    free(b->umad);
    b->umad = NULL;
    b->cap = 0;
}

/*
 * umad_recv into b, growing it when the MAD layer says a reassembled MAD
 * is longer (-ENOSPC, the MAD kept for the next read).  Returns umad_recv's
 * result, *len the MAD's length.
 */
static int mad_io_buf_recv(int portid, struct mad_io_buf *b, int timeout_ms, int *len)
{
    for (;;) {
        int rc;

        *len = (int)b->cap;
        rc = umad_recv(portid, b->umad, len, timeout_ms);
        if (rc != -ENOSPC || *len <= (int)b->cap)
            return rc;
        if (mad_io_buf_reserve(b, (size_t)*len))
            return -ENOMEM;
    }
}

/*
 * Receive one MAD from umad into b.  Returns 1 with rx filled (rx->whole
 * set for a MAD longer than IB_MAD_SIZE), 0 if none is waiting within
 * timeout_ms (or it was a send completion or truncated), -1 on error.
 */
static int mad_io_umad_recv(int portid, struct mad_io_buf *b, int timeout_ms, struct mad_io_rx *rx)
{
    int len;
    int rc = mad_io_buf_recv(portid, b, timeout_ms, &len);
    ib_mad_addr_t *ma;
    struct mad_addr *addr = &rx->addr;

    rx->whole = NULL;
    rx->len = 0;
    if (rc < 0)
        return rc == -ETIMEDOUT || rc == -EAGAIN ? 0 : -1;
    if (umad_status(b->umad) || !mad_io_length_ok(umad_get_mad(b->umad), len))
        return 0; /* a send completion, or a truncated MAD: nothing to serve */
    memset(rx->mad, 0, IB_MAD_SIZE);
    memcpy(rx->mad, umad_get_mad(b->umad), (size_t)(len < IB_MAD_SIZE ? len : IB_MAD_SIZE));
    rx->len = (size_t)len;
    if (len > IB_MAD_SIZE) {
        rx->whole = malloc((size_t)len);
        if (!rx->whole)
            return 0; /* dropped: its requester times out */
        memcpy(rx->whole, umad_get_mad(b->umad), (size_t)len);
    }
    ma = umad_get_mad_addr(b->umad);
    memset(addr, 0, sizeof(*addr));
    addr->slid = ntohs(ma->lid);
    addr->sl = ma->sl;
    addr->src_qp = ntohl(ma->qpn);
    addr->lid_routed = addr->slid != 0xFFFF;
    addr->port = mad_io_ingress_port(rx->mad);
    return 1;
}

/* Wait (umad2sim's poll on the umad descriptor alone) for a MAD; true if one may wait. */
static bool mad_io_reader_wait(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};

    return poll(&pfd, 1, MAD_IO_READER_POLL_MS) > 0;
}

/* Whether a MAD is an SMP request (SMI or directed-route SMI class, not a response). */
static bool mad_io_is_smp_request(const uint8_t *mad)
{
    return (mad[1] == IB_SMI_CLASS || mad[1] == IB_SMI_DIRECT_CLASS) && !(mad[3] & 0x80);
}

/*
 * Append one MAD to the queue, waiting for room, or drop an SMP request
 * that finds MAD_IO_SMP_DEPTH waiting; false when told to stop.
 */
static bool mad_io_reader_push(struct mad_io_reader *r, const struct mad_io_rx *rx)
{
    uint64_t one = 1;
    bool smp = mad_io_is_smp_request(rx->mad);

    pthread_mutex_lock(&r->lock);
    if (smp && r->smps >= MAD_IO_SMP_DEPTH) {
        pthread_mutex_unlock(&r->lock);
        atomic_fetch_add(&r->smp_dropped_on[rx->addr.port], 1);
        atomic_fetch_add(&r->smp_dropped, 1);
        free(rx->whole);
        return true;
    }
    while (r->count == MAD_IO_QUEUE && !atomic_load(&r->stop))
        pthread_cond_wait(&r->room, &r->lock);
    if (atomic_load(&r->stop)) {
        pthread_mutex_unlock(&r->lock);
        free(rx->whole);
        return false;
    }
    r->q[(r->head + r->count) % MAD_IO_QUEUE] = *rx;
    r->smps += smp;
    if (r->count++ == 0 && write(r->efd, &one, sizeof(one)) < 0)
        r->failed = true; /* cannot happen with a counter below 2^64 - 1 */
    pthread_mutex_unlock(&r->lock);
    return true;
}

/* Tell the loop that umad failed (mad_io_recv returns -1 once). */
static void mad_io_reader_fail(struct mad_io_reader *r)
{
    uint64_t one = 1;

    pthread_mutex_lock(&r->lock);
    r->failed = true;
    if (write(r->efd, &one, sizeof(one)) < 0)
        (void)0; /* the loop sees failed on its next wake anyway */
    pthread_mutex_unlock(&r->lock);
}

/* Reader thread: move MADs from umad to the queue until told to stop. */
static void *mad_io_reader_main(void *arg)
{
    struct mad_io_umad *io = arg;
    struct mad_io_reader *r = io->reader;
    int fd = umad_get_fd(io->portid);
    struct mad_io_rx rx;

    while (!atomic_load(&r->stop)) {
        if (!mad_io_reader_wait(fd))
            continue;
        int rc = mad_io_umad_recv(io->portid, &r->buf, 0, &rx);

        if (rc < 0) {
            mad_io_reader_fail(r);
            break;
        }
        if (rc > 0 && !mad_io_reader_push(r, &rx))
            break;
    }
    return NULL;
}

/* Start the reader thread (umad2sim); returns 0 or -1 with a message in err. */
static int mad_io_reader_start(struct mad_io_umad *io, char *err, size_t errlen)
{
    struct mad_io_reader *r = calloc(1, sizeof(*r));

    if (!r || mad_io_buf_reserve(&r->buf, IB_MAD_SIZE)) {
        free(r);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->room, NULL);
    atomic_init(&r->stop, false);
    io->reader = r;
    if (r->efd < 0 || pthread_create(&r->thread, NULL, mad_io_reader_main, io)) {
        snprintf(err, errlen, "cannot start the MAD reader thread");
        if (r->efd >= 0)
            close(r->efd);
        mad_io_buf_free(&r->buf);
        free(r);
        io->reader = NULL;
        return -1;
    }
    return 0;
}

/* Stop the reader thread (within MAD_IO_READER_POLL_MS) and free its queue. */
static void mad_io_reader_stop(struct mad_io_umad *io)
{
    struct mad_io_reader *r = io->reader;

    if (!r)
        return;
    atomic_store(&r->stop, true);
    pthread_mutex_lock(&r->lock);
    pthread_cond_broadcast(&r->room);
    pthread_mutex_unlock(&r->lock);
    pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->room);
    close(r->efd);
    while (r->count) {
        free(r->q[r->head].whole);
        r->head = (r->head + 1) % MAD_IO_QUEUE;
        r->count--;
    }
    mad_io_buf_free(&r->buf);
    free(r);
    io->reader = NULL;
}

/* Take one MAD from the reader's queue: 1, 0 (empty; the eventfd is cleared) or -1. */
static int mad_io_reader_take(struct mad_io_reader *r, struct mad_io_rx *rx)
{
    uint64_t n;
    int rc = 0;

    pthread_mutex_lock(&r->lock);
    if (r->count) {
        *rx = r->q[r->head]; /* the whole copy's ownership moves too */
        r->smps -= mad_io_is_smp_request(rx->mad);
        r->head = (r->head + 1) % MAD_IO_QUEUE;
        r->count--;
        pthread_cond_signal(&r->room);
        rc = 1;
    } else if (r->failed) {
        r->failed = false;
        rc = -1;
    }
    if (!r->count && read(r->efd, &n, sizeof(n)) < 0)
        (void)0; /* already clear */
    pthread_mutex_unlock(&r->lock);
    return rc;
}

struct mad_io_umad *mad_io_umad_open(const char *ca, unsigned port, char *err, size_t errlen)
{
    struct mad_io_umad *io;

    if (umad_init() < 0) {
        snprintf(err, errlen, "umad_init failed");
        return NULL;
    }
    io = calloc(1, sizeof(*io));
    if (!io) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    io->portid = umad_open_port(ca && *ca ? ca : NULL, (int)port);
    if (io->portid < 0) {
        snprintf(err, errlen, "cannot open umad port %s:%u: %s", ca && *ca ? ca : "(first)", port,
                 strerror(-io->portid));
        goto fail;
    }
    io->tx_umad = calloc(1, mad_io_umad_bytes());
    if (mad_io_buf_reserve(&io->rx, IB_MAD_SIZE) || !io->tx_umad) {
        snprintf(err, errlen, "out of memory");
        umad_close_port(io->portid);
        goto fail;
    }
    io->agent_lid = mad_io_register(io->portid, IB_SMI_CLASS, 1);
    io->agent_dr = mad_io_register(io->portid, IB_SMI_DIRECT_CLASS, 1);
    /* The GSI agents are optional: without them the switch still has its SMA. */
    io->agent_pma = mad_io_register(io->portid, IB_PERFORMANCE_CLASS, 1);
    io->agent_cc = mad_io_register(io->portid, MAD_IO_CC_CLASS, 2);
    /* A client of the SA: no methods, only the answers to its own requests;
     * with RMPP, so that GetTable answers (the route check's tables) arrive
     * reassembled (the kernel's umad; libpzumad2sim.so under umad2sim). */
    io->agent_sa = umad_register(io->portid, IB_SA_CLASS, 2, 1, NULL);
    if (io->agent_lid < 0 || io->agent_dr < 0) {
        snprintf(err, errlen, "cannot register the SMI classes (is another SMA running?)");
        umad_close_port(io->portid);
        goto fail;
    }
    if (umad_get_fd(io->portid) >= MAD_IO_UMAD2SIM_FD_BASE &&
        mad_io_reader_start(io, err, errlen)) {
        umad_close_port(io->portid);
        goto fail;
    }
    return io;
fail:
    mad_io_buf_free(&io->rx);
    free(io->tx_umad);
    free(io);
    return NULL;
}

void mad_io_umad_close(struct mad_io_umad *io)
{
    if (!io)
        return;
    if (io->reader) {
        /*
         * umad2sim: stop our reader, but leave the port open and the agents
         * registered until the process ends (portzerod ends with _exit, so
         * umad2sim's exit destructor does not run either).  umad2sim's own
         * reader thread dereferences a NULL descriptor record for any MAD that
         * arrives after the descriptor was closed or its agent unregistered
         * (and, in its destructor, after its sockets closed): with an SM
         * sweeping at that moment, that crashed the agent on SIGTERM.
         */
        mad_io_reader_stop(io);
        mad_io_buf_free(&io->rx);
        free(io->last.whole);
        free(io->tx_umad);
        free(io);
        return;
    }
    if (io->agent_sa >= 0)
        umad_unregister(io->portid, io->agent_sa);
    umad_unregister(io->portid, io->agent_lid);
    umad_unregister(io->portid, io->agent_dr);
    if (io->agent_pma >= 0)
        umad_unregister(io->portid, io->agent_pma);
    if (io->agent_cc >= 0)
        umad_unregister(io->portid, io->agent_cc);
    umad_close_port(io->portid);
    mad_io_buf_free(&io->rx);
    free(io->last.whole);
    free(io->tx_umad);
    free(io);
}

int mad_io_umad_fd(const struct mad_io_umad *io)
{
    return io->reader ? io->reader->efd : umad_get_fd(io->portid);
}

int mad_io_umad_take(struct mad_io_umad *io, uint8_t mad[IB_MAD_SIZE], struct mad_addr *addr)
{
    int rc;

    free(io->last.whole);
    io->last.whole = NULL;
    io->last.len = 0;
    rc = io->reader ? mad_io_reader_take(io->reader, &io->last)
                    : mad_io_umad_recv(io->portid, &io->rx, 0, &io->last);
    if (rc > 0) {
        memcpy(mad, io->last.mad, IB_MAD_SIZE);
        *addr = io->last.addr;
    }
    return rc;
}

size_t mad_io_umad_whole(const struct mad_io_umad *io, const uint8_t **whole)
{
    *whole = io->last.whole;
    return io->last.whole ? io->last.len : 0;
}

int mad_io_umad_send(struct mad_io_umad *io, const uint8_t mad[IB_MAD_SIZE],
                     const struct mad_addr *addr)
{
    unsigned mgmt_class = mad_get_field((void *)mad, 0, IB_MAD_MGMTCLASS_F);
    int dlid = addr->lid_routed ? addr->dlid : 0xFFFF;
    int agent = io->agent_lid;

    if (mgmt_class == IB_SMI_DIRECT_CLASS)
        agent = io->agent_dr;
    else if (mgmt_class == IB_PERFORMANCE_CLASS)
        agent = io->agent_pma;
    else if (mgmt_class == MAD_IO_CC_CLASS)
        agent = io->agent_cc;
    else if (mgmt_class == IB_SA_CLASS)
        agent = io->agent_sa;
    if (agent < 0)
        return -1;
    memset(io->tx_umad, 0, mad_io_umad_bytes());
    memcpy(umad_get_mad(io->tx_umad), mad, IB_MAD_SIZE);
    if (mgmt_class == IB_SMI_CLASS || mgmt_class == IB_SMI_DIRECT_CLASS)
        umad_set_addr(io->tx_umad, dlid, 0, addr->sl, 0);
    else
        umad_set_addr(io->tx_umad, dlid, (int)addr->dst_qp, addr->sl, (int)MAD_GSI_QKEY);
    return umad_send(io->portid, agent, io->tx_umad, IB_MAD_SIZE, 0, 0) < 0 ? -1 : 0;
}

unsigned long mad_io_umad_smp_dropped(const struct mad_io_umad *io, int port)
{
    if (!io->reader || port > 255)
        return 0;
    return atomic_load(port < 0 ? &io->reader->smp_dropped : &io->reader->smp_dropped_on[port]);
}

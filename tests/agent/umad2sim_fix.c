/*
 * umad2sim_fix.c - a preload library that repairs how Debian's
 * libumad2sim.so (ibsim 0.10) receives MADs, for the tests that check the
 * last bytes of a MAD.  Load it after umad2sim:
 *
 *   LD_PRELOAD="/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so umad2sim_fix.so"
 *
 * umad2sim's receiver thread allocates sizeof(struct sim_request) = 288
 * bytes per MAD, reads the simulator's 288-byte sim_request, and copies the
 * MAD behind a 64-byte umad header, at most 288 - 64 = 224 bytes of it; then
 * the client's read() copies 64 + 256 bytes out of that 288-byte block.  So
 * MAD bytes 224-255 never arrive: a client sees whatever the heap held there
 * (PortCountersExtended's VL15Dropped, PortXmitWait and QP1Dropped, the tail
 * of the CongestionLog), different from run to run.
 *
 * The repair, without touching umad2sim: a 288-byte malloc() gets a zeroed
 * 512-byte block, remembered per thread; umad2sim's read of the
 * simulator's socket reaches read() here (it looks "read" up with
 * RTLD_NEXT), which copies the MAD's bytes 224-255 from the sim_request into
 * that block, where umad2sim's copy stops.  Other allocations and reads pass
 * through unchanged.
 *
 * With PZT_MAD_LOG=FILE in the environment it also appends the CLOCK_REALTIME
 * time ("seconds.nanoseconds") of every MAD it receives to FILE: the time a
 * PMA read its counters is then known to within a round trip, not a process
 * run (tests/agent/test_perfquery_flags.sh measures rates with it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define FIX_SIM_REQUEST_SIZE 288 /* sizeof(struct sim_request), ibsim 0.10 */
#define FIX_SIM_MAD_OFFSET 32    /* its mad[256] */
#define FIX_UMAD_HDR_SIZE 64     /* umad_size(): struct ib_user_mad before the MAD */
#define FIX_COPIED 224           /* what umad2sim copies: 288 - 64 */
#define FIX_MAD_SIZE 256
#define FIX_BLOCK_SIZE 512 /* header + MAD + slack */

void *__libc_malloc(size_t size);
void *malloc(size_t size);
ssize_t read(int fd, void *buf, size_t count);

/* The receive block this thread allocated last and has not filled yet. */
static __thread uint8_t *fix_pending;

/* malloc(): 288-byte requests get a zeroed 512-byte block (remembered); returns the block. */
void *malloc(size_t size)
{
    uint8_t *p;

    if (size != FIX_SIM_REQUEST_SIZE)
        return __libc_malloc(size);
    p = __libc_malloc(FIX_BLOCK_SIZE);
    if (p)
        memset(p, 0, FIX_BLOCK_SIZE);
    fix_pending = p;
    return p;
}

/* Append the time now to $PZT_MAD_LOG, if set. */
static void fix_log_time(void)
{
    const char *file = getenv("PZT_MAD_LOG");
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
        /* a lost time stamp only makes the test that asked for it fail */
    }
    close(fd);
}

/* read(): libc's, plus the MAD tail of a sim_request into the pending block; returns read()'s. */
ssize_t read(int fd, void *buf, size_t count)
{
    static ssize_t (*real_read)(int, void *, size_t);
    ssize_t n;

    if (!real_read)
        real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    n = real_read(fd, buf, count);
    if (n == FIX_SIM_REQUEST_SIZE && count == FIX_SIM_REQUEST_SIZE && fix_pending) {
        memcpy(fix_pending + FIX_UMAD_HDR_SIZE + FIX_COPIED,
               (const uint8_t *)buf + FIX_SIM_MAD_OFFSET + FIX_COPIED, FIX_MAD_SIZE - FIX_COPIED);
        fix_pending = NULL;
        fix_log_time();
    }
    return n;
}

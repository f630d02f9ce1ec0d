/*
 * pzumad_timeout.c - tell pzfabric how long a request's client waits.
 *
 * On hardware the kernel's MAD layer times a request out after the
 * umad_send() caller's timeout_ms x (retries + 1) and hands it back with
 * status ETIMEDOUT; umad2sim has no timer, so the simulator returns
 * unanswered requests itself.  pzfabric cannot know when an external agent
 * (a portzerod) will not answer, so it needs the client's own timeout:
 * umad_send() (pzumad_rmpp.c) notes it for its thread, and the write() that
 * umad2sim then does on its packet socket (reached through the write() that
 * follows umad2sim in the search order: this one) carries it in the
 * sim_request's status (SIM_STATUS_TIMEOUT_TAG, sim_proto.h), which
 * umad2sim always sends as 0.  A receiver clears it again from requests
 * that reach this client (ibsim forwards a client's request as it came).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "pzumad_timeout.h"

#define PZU_TLS __thread __attribute__((tls_model("initial-exec")))
#define PZU_MAD_RESPONSE_BIT 0x80 /* MAD byte 3, the method's R bit */

/* The status the next sim_request this thread writes carries, 0: none. */
static PZU_TLS uint32_t pzu_send_status;

void pzu_timeout_begin(int timeout_ms, int retries)
{
    uint64_t total;

    pzu_send_status = 0;
    if (timeout_ms <= 0)
        return;
    total = (uint64_t)timeout_ms * (uint64_t)(retries > 0 ? retries + 1 : 1);
    if (total > SIM_STATUS_TIMEOUT_MASK)
        total = SIM_STATUS_TIMEOUT_MASK;
    pzu_send_status = SIM_STATUS_TIMEOUT_TAG | (uint32_t)total;
}

void pzu_timeout_end(void)
{
    pzu_send_status = 0;
}

void pzu_timeout_strip(struct sim_request *req)
{
    if (!(req->mad[3] & PZU_MAD_RESPONSE_BIT) &&
        (ntohl(req->status) & ~SIM_STATUS_TIMEOUT_MASK) == SIM_STATUS_TIMEOUT_TAG)
        req->status = 0;
}

/*
 * write(): the next write(); a whole sim_request written while umad_send()
 * runs on this thread carries the noted timeout, and its socket is noted
 * for the drain before a DISCONNECT (pzumad_drain.c).  Returns what the
 * next write() returned.
 */
ssize_t write(int fd, const void *buf, size_t count)
{
    static ssize_t (*next_write)(int, const void *, size_t);
    struct sim_request req;

    if (!next_write)
        next_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    if (count == sizeof(req))
        pzu_drain_note_packet_fd(fd);
    else
        pzu_drain_before_ctl(buf, count);
    if (!pzu_send_status || count != sizeof(req))
        return next_write(fd, buf, count);
    memcpy(&req, buf, sizeof(req));
    if (req.status == 0 && !(req.mad[3] & PZU_MAD_RESPONSE_BIT))
        req.status = htonl(pzu_send_status);
    pzu_send_status = 0; /* one MAD a umad_send() */
    return next_write(fd, &req, sizeof(req));
}

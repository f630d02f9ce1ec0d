/*
 * pz_simclient.c - ibsim protocol client (see pz_simclient.h).  The socket
 * names and the message layouts are in fabric/server/sim_proto.h.
 */
#include "pz_simclient.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipoib.h"
#include "sim_proto.h"

#define CTL_TIMEOUT_MS 1000

struct pz_simclient {
    char name[64];
    int ctl_fd;
    int pkt_fd;
    uint32_t id;
};

/* Fill *a with "\0<name>:<suffix><num>\0" (num < 0: none); returns its length or 0. */
static socklen_t sim_addr(const char *name, const char *suffix, long num, struct sockaddr_un *a)
{
    char path[sizeof(a->sun_path) - 2];
    int n = num < 0 ? snprintf(path, sizeof(path), "%s:%s", name, suffix)
                    : snprintf(path, sizeof(path), "%s:%s%ld", name, suffix, num);

    if (n < 0 || (size_t)n >= sizeof(path))
        return 0;
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    memcpy(a->sun_path + 1, path, (size_t)n);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n + 1);
}

/* A datagram socket bound to name:suffix<num>; returns it or -1. */
static int bound_socket(const char *name, const char *suffix, long num)
{
    struct sockaddr_un a;
    socklen_t len = sim_addr(name, suffix, num, &a);
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    if (fd < 0)
        return -1;
    if (!len || bind(fd, (struct sockaddr *)&a, len)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Connect fd to name:suffix<num>; returns 0 or -1. */
static int connect_to(int fd, const char *name, const char *suffix, long num)
{
    struct sockaddr_un a;
    socklen_t len = sim_addr(name, suffix, num, &a);

    return len ? connect(fd, (struct sockaddr *)&a, len) : -1;
}

/*
 * Send one control message and wait for its answer; returns 0 or -1.  An
 * answer of another type (a late one, after a timed-out call) is skipped.
 */
static int ctl_call(struct pz_simclient *c, uint32_t type, struct sim_ctl *ctl)
{
    struct sim_ctl ans;

    ctl->magic = SIM_PROTO_MAGIC;
    ctl->clientid = c->id;
    ctl->type = type;
    if (send(c->ctl_fd, ctl, sizeof(*ctl), 0) != (ssize_t)sizeof(*ctl))
        return -1;
    for (int stale = 0; stale < 8; stale++) {
        if (recv(c->ctl_fd, &ans, sizeof(ans), 0) != (ssize_t)sizeof(ans))
            return -1;
        if (ans.magic != SIM_PROTO_MAGIC)
            return -1;
        if (ans.type == SIM_CTL_ERROR) /* the answer to this call: refused */
            return -1;
        if (ans.type == type) {
            *ctl = ans;
            return 0;
        }
    }
    return -1;
}

/* Open the sockets, then CONNECT: the server connects its out<id> to our in<pid>. */
struct pz_simclient *pz_simclient_connect(const char *sockname, const char *node, char *err,
                                          size_t errlen)
{
    struct pz_simclient *c = calloc(1, sizeof(*c));
    struct sim_client_info info = {0};
    struct sim_ctl ctl = {0};
    struct timeval tv = {.tv_sec = CTL_TIMEOUT_MS / 1000,
                         .tv_usec = (CTL_TIMEOUT_MS % 1000) * 1000};
    long pid = (long)getpid();

    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(c->name, sizeof(c->name), "%s", sockname);
    c->pkt_fd = -1;
    c->ctl_fd = bound_socket(c->name, "ctl", pid);
    if (c->ctl_fd < 0 || connect_to(c->ctl_fd, c->name, "ctl", -1) ||
        setsockopt(c->ctl_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
        snprintf(err, errlen, "cannot reach simulator \"%s\": %s", sockname, strerror(errno));
        goto fail;
    }
    c->pkt_fd = bound_socket(c->name, "in", pid);
    if (c->pkt_fd < 0) {
        snprintf(err, errlen, "cannot bind \"%s:in%ld\": %s", sockname, pid, strerror(errno));
        goto fail;
    }
    info.id = (uint32_t)pid;
    snprintf(info.nodeid, sizeof(info.nodeid), "%s", node);
    memcpy(ctl.data, &info, sizeof(info));
    ctl.len = sizeof(info);
    if (ctl_call(c, SIM_CTL_CONNECT, &ctl)) {
        snprintf(err, errlen, "simulator \"%s\" refused to attach node \"%s\"", sockname, node);
        goto fail;
    }
    memcpy(&info, ctl.data, sizeof(info));
    c->id = info.id;
    if (connect_to(c->pkt_fd, c->name, "out", (long)c->id)) {
        snprintf(err, errlen, "cannot connect to \"%s:out%u\": %s", sockname, c->id,
                 strerror(errno));
        goto fail;
    }
    return c;
fail:
    if (c->pkt_fd >= 0)
        close(c->pkt_fd);
    if (c->ctl_fd >= 0)
        close(c->ctl_fd);
    free(c);
    return NULL;
}

int pz_simclient_fd(const struct pz_simclient *c)
{
    return c->pkt_fd;
}

/* One sim_request: LIDs as 16-bit network order widened, QPs network order. */
int pz_simclient_send(struct pz_simclient *c, uint16_t dlid, uint32_t dqp, uint32_t sqp,
                      const uint8_t mad[256])
{
    struct sim_request r = {0};

    r.dlid = htons(dlid);
    r.dqp = htonl(dqp);
    r.sqp = htonl(sqp);
    r.length = htobe64(sizeof(r.mad));
    memcpy(r.mad, mad, sizeof(r.mad));
    if (send(c->pkt_fd, &r, sizeof(r), MSG_DONTWAIT) != (ssize_t)sizeof(r))
        return -errno;
    return 0;
}

int pz_simclient_send_gmp(struct pz_simclient *c, uint16_t dlid, const void *mad, size_t len)
{
    uint8_t buf[256] = {0};

    memcpy(buf, mad, len < sizeof(buf) ? len : sizeof(buf));
    return pz_simclient_send(c, dlid, 1, 1, buf);
}

/* One sim_request from the server, if one waits. */
int pz_simclient_recv(struct pz_simclient *c, uint8_t mad[256], uint16_t *slid, uint32_t *status)
{
    struct sim_request r;
    ssize_t n = recv(c->pkt_fd, &r, sizeof(r), MSG_DONTWAIT);
    uint64_t len;

    if (n < 0)
        return -errno;
    if (n != (ssize_t)sizeof(r))
        return -EPROTO;
    len = be64toh(r.length);
    if (len > sizeof(r.mad))
        return -EPROTO;
    memset(mad, 0, 256);
    memcpy(mad, r.mad, (size_t)len);
    *slid = ntohs((uint16_t)r.slid);
    *status = ntohl(r.status);
    return 0;
}

/* A 64-byte attribute through a control message. */
static int ctl_attr(struct pz_simclient *c, uint32_t type, uint8_t out[64])
{
    struct sim_ctl ctl = {0};

    if (ctl_call(c, type, &ctl))
        return -1;
    memcpy(out, ctl.data, 64);
    return 0;
}

int pz_simclient_nodeinfo(struct pz_simclient *c, uint8_t out[64])
{
    return ctl_attr(c, SIM_CTL_GET_NODEINFO, out);
}

int pz_simclient_portinfo(struct pz_simclient *c, uint8_t out[64])
{
    return ctl_attr(c, SIM_CTL_GET_PORTINFO, out);
}

int pz_simclient_pkeys(struct pz_simclient *c, uint8_t out[64])
{
    return ctl_attr(c, SIM_CTL_GET_PKEYS, out);
}

int pz_simclient_rereg_count(struct pz_simclient *c, uint32_t *count)
{
    uint8_t be[64];

    if (ctl_attr(c, SIM_CTL_PZ_GET_REREG, be))
        return -1;
    *count = (uint32_t)be[0] << 24 | (uint32_t)be[1] << 16 | (uint32_t)be[2] << 8 | be[3];
    return 0;
}

int pz_simclient_ipoib_port(struct pz_simclient *c, uint64_t port_guid, uint16_t pkey,
                            struct ipoib_port *p)
{
    uint8_t pi[64], pk[64];
    uint32_t rereg = 0;

    if (pz_simclient_portinfo(c, pi) || pz_simclient_pkeys(c, pk))
        return -1;
    if (pz_simclient_rereg_count(c, &rereg))
        rereg = 0;
    ipoib_port_from_attrs(pi, pk, port_guid, pkey, p);
    p->reregister = rereg;
    return 0;
}

/* DISCONNECT (best effort), close both sockets. */
void pz_simclient_close(struct pz_simclient *c)
{
    struct sim_ctl ctl = {0};

    if (!c)
        return;
    ctl_call(c, SIM_CTL_DISCONNECT, &ctl);
    close(c->pkt_fd);
    close(c->ctl_fd);
    free(c);
}

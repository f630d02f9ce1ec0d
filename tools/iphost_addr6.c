/*
 * iphost_addr6.c - the TUN device's IPv6 addresses from rtnetlink
 * (see iphost_addr6.h).
 *
 * Why rtnetlink by hand: glibc's getifaddrs() lists addresses but neither
 * their DAD state (IFA_F_TENTATIVE, IFA_F_DADFAILED) nor changes as they
 * happen, and those are what this follows. A netlink library (libmnl,
 * libnl) would frame the same two message types; the framing here is the
 * kernel's <linux/netlink.h> macros plus length checks on every message and
 * attribute, fuzzed by fuzz_iphost_addr6, and keeps pz-iphost's
 * dependencies to what the rest of the suite installs.
 */
#include "iphost_addr6.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define NL_BUF 16384
#define DUMP_TIMEOUT_MS 1000

/* A netlink route socket bound to groups (0: none); returns its fd or -1. */
static int nl_socket(unsigned groups, bool nonblock)
{
    struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = groups};
    int fd =
        socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | (nonblock ? SOCK_NONBLOCK : 0), NETLINK_ROUTE);

    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

int iphost_addr6_open(struct iphost_addr6 *w, unsigned ifindex)
{
    struct timeval tv = {.tv_sec = DUMP_TIMEOUT_MS / 1000};

    w->ifindex = ifindex;
    w->seq = 0;
    w->event_fd = nl_socket(RTMGRP_IPV6_IFADDR, true);
    w->dump_fd = nl_socket(0, false);
    if (w->event_fd < 0 || w->dump_fd < 0 ||
        setsockopt(w->dump_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
        iphost_addr6_close(w);
        return -1;
    }
    return 0;
}

void iphost_addr6_close(struct iphost_addr6 *w)
{
    if (w->event_fd >= 0)
        close(w->event_fd);
    if (w->dump_fd >= 0)
        close(w->dump_fd);
    w->event_fd = w->dump_fd = -1;
}

/*
 * The next whole message of a buffer of size bytes at *off (advanced past
 * it), or NULL at the end or at a truncated or malformed one.
 */
static const struct nlmsghdr *nl_next(const void *buf, size_t size, size_t *off)
{
    const struct nlmsghdr *nh;

    if (*off >= size || size - *off < sizeof(*nh))
        return NULL;
    nh = (const struct nlmsghdr *)((const uint8_t *)buf + *off);
    if (nh->nlmsg_len < sizeof(*nh) || nh->nlmsg_len > size - *off)
        return NULL;
    *off += NLMSG_ALIGN(nh->nlmsg_len);
    return nh;
}

/* True if the message is an IPv6 address of device ifindex being added or removed. */
static bool is_our_addr_msg(unsigned ifindex, const struct nlmsghdr *nh)
{
    const struct ifaddrmsg *ifa = NLMSG_DATA(nh);

    if (nh->nlmsg_type != RTM_NEWADDR && nh->nlmsg_type != RTM_DELADDR)
        return false;
    if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
        return false;
    return ifa->ifa_family == AF_INET6 && ifa->ifa_index == ifindex;
}

/*
 * Receive one netlink buffer from the kernel (another sender's is dropped);
 * returns its length, 0 for a dropped one, or -1 with errno set.
 */
static int nl_recv(int fd, void *buf, size_t size)
{
    struct sockaddr_nl from;
    socklen_t flen = sizeof(from);
    ssize_t n = recvfrom(fd, buf, size, 0, (struct sockaddr *)&from, &flen);

    if (n < 0)
        return -1;
    if (flen != sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0)
        return 0; /* not the kernel: a process of the namespace */
    return (int)n;
}

bool iphost_addr6_changed(struct iphost_addr6 *w)
{
    uint8_t buf[NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
    const struct nlmsghdr *nh;
    bool changed = false;
    int len;

    for (;;) {
        len = nl_recv(w->event_fd, buf, sizeof(buf));
        if (len < 0 && errno == ENOBUFS) /* events lost: the list must be read again */
            changed = true;
        if (len < 0 && (errno == EINTR || errno == ENOBUFS))
            continue;
        if (len < 0)
            return changed;
        for (size_t off = 0; (nh = nl_next(buf, (size_t)len, &off)) != NULL;)
            changed |= is_our_addr_msg(w->ifindex, nh);
    }
}

/* Send RTM_GETADDR (dump, IPv6); returns 0 or -1. */
static int request_dump(struct iphost_addr6 *w)
{
    struct {
        struct nlmsghdr nh;
        struct ifaddrmsg ifa;
    } req = {.nh = {.nlmsg_len = sizeof(req),
                    .nlmsg_type = RTM_GETADDR,
                    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
                    .nlmsg_seq = ++w->seq},
             .ifa = {.ifa_family = AF_INET6}};
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

    return sendto(w->dump_fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) ==
                   (ssize_t)sizeof(req)
               ? 0
               : -1;
}

/*
 * One RTM_NEWADDR of the dump into out (when it is an IPv6 address of our
 * device, usable or tentative).  Returns true if it was taken.
 */
static bool take_addr(unsigned ifindex, const struct nlmsghdr *nh, struct ipoib6_addr *out)
{
    const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
    const struct rtattr *rta = IFA_RTA(ifa);
    const uint8_t *addr = NULL, *local = NULL;
    uint32_t flags;
    int len;

    if (nh->nlmsg_type != RTM_NEWADDR || !is_our_addr_msg(ifindex, nh))
        return false;
    flags = ifa->ifa_flags;
    len = (int)IFA_PAYLOAD(nh);
    for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
        if (rta->rta_type == IFA_ADDRESS && RTA_PAYLOAD(rta) == 16)
            addr = RTA_DATA(rta);
        else if (rta->rta_type == IFA_LOCAL && RTA_PAYLOAD(rta) == 16)
            local = RTA_DATA(rta);
        else if (rta->rta_type == IFA_FLAGS && RTA_PAYLOAD(rta) == 4)
            memcpy(&flags, RTA_DATA(rta), 4);
    }
    if (local) /* with a peer, IFA_ADDRESS is the peer's */
        addr = local;
    if (!addr || (flags & IFA_F_DADFAILED))
        return false;
    memset(out, 0, sizeof(*out));
    memcpy(out->addr, addr, 16);
    out->prefix_len = ifa->ifa_prefixlen;
    out->tentative = (flags & IFA_F_TENTATIVE) != 0;
    return true;
}

enum iphost_addr6_step iphost_addr6_parse(unsigned ifindex, unsigned seq, const void *buf,
                                          size_t size, struct ipoib6_addr *out, unsigned max,
                                          unsigned *count)
{
    const struct nlmsghdr *nh;

    for (size_t off = 0; (nh = nl_next(buf, size, &off)) != NULL;) {
        if (nh->nlmsg_seq != seq)
            continue; /* an answer to an earlier, abandoned dump */
        if (nh->nlmsg_type == NLMSG_DONE)
            return IPHOST_ADDR6_DONE;
        if (nh->nlmsg_type == NLMSG_ERROR)
            return IPHOST_ADDR6_ERROR;
        if (*count < max && take_addr(ifindex, nh, &out[*count]))
            (*count)++;
    }
    return IPHOST_ADDR6_MORE;
}

int iphost_addr6_list(struct iphost_addr6 *w, struct ipoib6_addr *out, unsigned max)
{
    uint8_t buf[NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
    unsigned count = 0;

    if (request_dump(w))
        return -1;
    for (;;) {
        int len = nl_recv(w->dump_fd, buf, sizeof(buf));
        if (len < 0 && errno == EINTR)
            continue;
        if (len < 0)
            return -1; /* SO_RCVTIMEO: no answer within a second */
        switch (iphost_addr6_parse(w->ifindex, w->seq, buf, (size_t)len, out, max, &count)) {
        case IPHOST_ADDR6_DONE:
            return (int)count;
        case IPHOST_ADDR6_ERROR:
            return -1;
        default:
            break;
        }
    }
}

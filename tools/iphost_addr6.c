/*
 * iphost_addr6.c - the TUN device's IPv6 addresses from rtnetlink
 * (see iphost_addr6.h).
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

/* True if the message is an IPv6 address of our device being added or removed. */
static bool is_our_addr_msg(const struct iphost_addr6 *w, const struct nlmsghdr *nh)
{
    const struct ifaddrmsg *ifa = NLMSG_DATA(nh);

    if (nh->nlmsg_type != RTM_NEWADDR && nh->nlmsg_type != RTM_DELADDR)
        return false;
    if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)))
        return false;
    return ifa->ifa_family == AF_INET6 && ifa->ifa_index == w->ifindex;
}

bool iphost_addr6_changed(struct iphost_addr6 *w)
{
    uint8_t buf[NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
    bool changed = false;
    ssize_t n;

    while ((n = recv(w->event_fd, buf, sizeof(buf), 0)) != 0) {
        if (n < 0) {
            if (errno == ENOBUFS) /* events lost: the list must be read again */
                changed = true;
            if (errno == EINTR || errno == ENOBUFS)
                continue;
            break;
        }
        for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
             nh = NLMSG_NEXT(nh, n))
            changed |= is_our_addr_msg(w, nh);
    }
    return changed;
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
static bool take_addr(const struct iphost_addr6 *w, const struct nlmsghdr *nh,
                      struct ipoib6_addr *out)
{
    const struct ifaddrmsg *ifa = NLMSG_DATA(nh);
    const struct rtattr *rta = IFA_RTA(ifa);
    int len = (int)IFA_PAYLOAD(nh);
    const uint8_t *addr = NULL, *local = NULL;
    uint32_t flags = ifa->ifa_flags;

    if (nh->nlmsg_type != RTM_NEWADDR || !is_our_addr_msg(w, nh))
        return false;
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

int iphost_addr6_list(struct iphost_addr6 *w, struct ipoib6_addr *out, unsigned max)
{
    uint8_t buf[NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
    unsigned count = 0;

    if (request_dump(w))
        return -1;
    for (;;) {
        ssize_t n = recv(w->dump_fd, buf, sizeof(buf), 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, (size_t)n);
             nh = NLMSG_NEXT(nh, n)) {
            if (nh->nlmsg_seq != w->seq)
                continue; /* an answer to an earlier, abandoned dump */
            if (nh->nlmsg_type == NLMSG_DONE)
                return (int)count;
            if (nh->nlmsg_type == NLMSG_ERROR)
                return -1;
            if (count < max && take_addr(w, nh, &out[count]))
                count++;
        }
    }
}

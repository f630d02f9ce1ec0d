/*
 * iphost_addr6.h - the IPv6 addresses Linux holds on pz-iphost's TUN device,
 * followed with rtnetlink, so the IPoIB endpoint answers neighbour discovery
 * for every one of them (an address added in the namespace with `ip -6 addr
 * add`, a router's address in the prefix it advertises), not only the ones
 * given on the command line.
 */
#ifndef PZ_IPHOST_ADDR6_H
#define PZ_IPHOST_ADDR6_H

#include <stdbool.h>

#include "ipoib6.h"

/* Two rtnetlink sockets of the namespace: one for change events, one for dumps. */
struct iphost_addr6 {
    int event_fd; /* RTMGRP_IPV6_IFADDR notifications; poll it */
    int dump_fd;  /* RTM_GETADDR requests and their answers */
    unsigned ifindex;
    unsigned seq;
};

/*
 * Open both sockets; must run inside the namespace (a netlink socket stays in
 * the namespace it was created in).  Returns 0, or -1 with errno set.
 */
int iphost_addr6_open(struct iphost_addr6 *w, unsigned ifindex);

/* Close both sockets (safe on a closed or zeroed watcher with fds at -1). */
void iphost_addr6_close(struct iphost_addr6 *w);

/*
 * Read every pending event; returns true when one may have changed the
 * device's IPv6 addresses (an address message for ifindex, or lost events).
 */
bool iphost_addr6_changed(struct iphost_addr6 *w);

/*
 * The device's IPv6 addresses as the kernel lists them now (addresses whose
 * DAD failed left out; a tentative one flagged), at most max.  Returns how
 * many were written, or -1 when the dump failed.
 */
int iphost_addr6_list(struct iphost_addr6 *w, struct ipoib6_addr *out, unsigned max);

/* What one buffer of a dump's answer said. */
enum iphost_addr6_step {
    IPHOST_ADDR6_MORE,  /* more buffers follow */
    IPHOST_ADDR6_DONE,  /* NLMSG_DONE: the list is complete */
    IPHOST_ADDR6_ERROR, /* NLMSG_ERROR: the dump failed */
};

/*
 * Read one received buffer (len bytes, aligned for struct nlmsghdr) of the
 * answer to dump seq: each IPv6 address of device ifindex is appended to
 * out at *count while *count < max.  Messages of another sequence number
 * are skipped, a truncated one ends the buffer.  Pure: the fuzz target's.
 */
enum iphost_addr6_step iphost_addr6_parse(unsigned ifindex, unsigned seq, const void *buf,
                                          size_t len, struct ipoib6_addr *out, unsigned max,
                                          unsigned *count);

#endif

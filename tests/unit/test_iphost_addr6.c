/*
 * test_iphost_addr6.c - pz-iphost's reader of rtnetlink address dumps
 * (tools/iphost_addr6.c, iphost_addr6_parse): messages built here as the
 * kernel lays them out (struct nlmsghdr, struct ifaddrmsg, rtattrs), read
 * back into the endpoint's address form.  The live path (sockets in a
 * namespace) is tests/net/test_ipplane6.sh and tests/agent/test_agent_ip6.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <linux/if_addr.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "iphost_addr6.h"
#include "pzt_main.h"

#define IFINDEX 2
#define SEQ 7

/* A dump answer being written. */
struct dump {
    uint8_t buf[1024] __attribute__((aligned(NLMSG_ALIGNTO)));
    size_t len;
};

/* Append one rtattr (type, 16-byte address or 4-byte value) to the message at m. */
static void put_attr(struct dump *d, struct nlmsghdr *m, unsigned short type, const void *data,
                     size_t n)
{
    struct rtattr *rta = (struct rtattr *)(d->buf + d->len);

    rta->rta_type = type;
    rta->rta_len = (unsigned short)RTA_LENGTH(n);
    memcpy(RTA_DATA(rta), data, n);
    d->len += RTA_ALIGN(rta->rta_len);
    m->nlmsg_len = (uint32_t)(d->buf + d->len - (uint8_t *)m);
}

/* Append an RTM_NEWADDR of family 10 for address text (IFA_ADDRESS) on ifindex. */
static struct nlmsghdr *put_addr(struct dump *d, const char *text, unsigned plen, int ifindex,
                                 unsigned flags, unsigned seq)
{
    struct nlmsghdr *m = (struct nlmsghdr *)(d->buf + d->len);
    struct ifaddrmsg *ifa = NLMSG_DATA(m);
    uint8_t a[16];

    memset(m, 0, NLMSG_SPACE(sizeof(*ifa)));
    m->nlmsg_type = RTM_NEWADDR;
    m->nlmsg_seq = seq;
    ifa->ifa_family = AF_INET6;
    ifa->ifa_prefixlen = (unsigned char)plen;
    ifa->ifa_flags = (unsigned char)flags;
    ifa->ifa_index = (unsigned)ifindex;
    d->len += NLMSG_SPACE(sizeof(*ifa));
    assert_int_equal(inet_pton(AF_INET6, text, a), 1);
    put_attr(d, m, IFA_ADDRESS, a, 16);
    return m;
}

/* Append NLMSG_DONE. */
static void put_done(struct dump *d, unsigned seq)
{
    struct nlmsghdr *m = (struct nlmsghdr *)(d->buf + d->len);

    memset(m, 0, NLMSG_SPACE(4));
    m->nlmsg_type = NLMSG_DONE;
    m->nlmsg_seq = seq;
    m->nlmsg_len = NLMSG_LENGTH(4);
    d->len += NLMSG_SPACE(4);
}

/* True if got holds text. */
static int is_addr(const struct ipoib6_addr *got, const char *text)
{
    uint8_t a[16];

    assert_int_equal(inet_pton(AF_INET6, text, a), 1);
    return memcmp(got->addr, a, 16) == 0;
}

/* Our device's addresses in order; another device's, another sequence's and DAD-failed skipped. */
static void test_dump(void **state)
{
    struct dump d = {0};
    struct ipoib6_addr out[8];
    unsigned count = 0;
    uint32_t ext = IFA_F_TENTATIVE;
    uint8_t local[16];

    put_addr(&d, "fe80::200:0:10:d", 64, IFINDEX, IFA_F_PERMANENT, SEQ);
    put_addr(&d, "fd00:81::100", 64, IFINDEX, 0, SEQ);
    put_addr(&d, "fd00:1::1", 64, IFINDEX + 1, 0, SEQ); /* another device */
    put_addr(&d, "fd00:2::1", 64, IFINDEX, 0, SEQ - 1); /* an abandoned dump */
    put_addr(&d, "fd00:3::1", 64, IFINDEX, IFA_F_DADFAILED, SEQ);
    put_attr(&d, put_addr(&d, "fd00:4::1", 48, IFINDEX, 0, SEQ), IFA_FLAGS, &ext, 4);
    assert_int_equal(inet_pton(AF_INET6, "fd00:5::5", local), 1);
    put_attr(&d, put_addr(&d, "fd00:5::9", 64, IFINDEX, 0, SEQ), IFA_LOCAL, local, 16);
    put_done(&d, SEQ);
    assert_int_equal(iphost_addr6_parse(IFINDEX, SEQ, d.buf, d.len, out, 8, &count),
                     IPHOST_ADDR6_DONE);
    assert_int_equal(count, 4);
    assert_true(is_addr(&out[0], "fe80::200:0:10:d"));
    assert_int_equal(out[0].prefix_len, 64);
    assert_false(out[0].tentative);
    assert_true(is_addr(&out[1], "fd00:81::100"));
    assert_true(is_addr(&out[2], "fd00:4::1")); /* the 32-bit IFA_FLAGS say tentative */
    assert_int_equal(out[2].prefix_len, 48);
    assert_true(out[2].tentative);
    assert_true(is_addr(&out[3], "fd00:5::5")); /* with a peer, IFA_LOCAL is ours */
}

/* A buffer without NLMSG_DONE asks for more; max bounds what is taken; an error ends. */
static void test_more_max_error(void **state)
{
    struct dump d = {0};
    struct ipoib6_addr out[2];
    unsigned count = 0;
    struct nlmsghdr *err;

    put_addr(&d, "fd00::1", 64, IFINDEX, 0, SEQ);
    put_addr(&d, "fd00::2", 64, IFINDEX, 0, SEQ);
    put_addr(&d, "fd00::3", 64, IFINDEX, 0, SEQ);
    assert_int_equal(iphost_addr6_parse(IFINDEX, SEQ, d.buf, d.len, out, 2, &count),
                     IPHOST_ADDR6_MORE);
    assert_int_equal(count, 2);
    assert_true(is_addr(&out[1], "fd00::2"));
    d.len = 0;
    put_done(&d, SEQ);
    err = (struct nlmsghdr *)d.buf;
    err->nlmsg_type = NLMSG_ERROR;
    assert_int_equal(iphost_addr6_parse(IFINDEX, SEQ, d.buf, d.len, out, 2, &count),
                     IPHOST_ADDR6_ERROR);
}

/* Truncated and lying lengths end the buffer without reading past it. */
static void test_truncated(void **state)
{
    struct dump d = {0};
    struct ipoib6_addr out[4];
    unsigned count = 0;
    struct nlmsghdr *m;

    m = put_addr(&d, "fd00::1", 64, IFINDEX, 0, SEQ);
    assert_int_equal(iphost_addr6_parse(IFINDEX, SEQ, d.buf, d.len - 1, out, 4, &count),
                     IPHOST_ADDR6_MORE);
    assert_int_equal(count, 0);
    m->nlmsg_len = (uint32_t)d.len + 100; /* longer than the buffer */
    assert_int_equal(iphost_addr6_parse(IFINDEX, SEQ, d.buf, d.len, out, 4, &count),
                     IPHOST_ADDR6_MORE);
    assert_int_equal(count, 0);
    m->nlmsg_len = NLMSG_LENGTH(2); /* shorter than its ifaddrmsg */
    assert_int_equal(iphost_addr6_parse(IFINDEX, SEQ, d.buf, d.len, out, 4, &count),
                     IPHOST_ADDR6_MORE);
    assert_int_equal(count, 0);
    m->nlmsg_len = 4; /* shorter than a header: the buffer ends */
    assert_int_equal(iphost_addr6_parse(IFINDEX, SEQ, d.buf, d.len, out, 4, &count),
                     IPHOST_ADDR6_MORE);
    assert_int_equal(count, 0);
}

PZT_MAIN(test_dump, test_more_max_error, test_truncated)

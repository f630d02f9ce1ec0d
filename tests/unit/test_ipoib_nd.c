/*
 * test_ipoib_nd.c - IPv6 on IPoIB, the pure parts (ipoib/ipoib_ip6.c,
 * ipoib/ipoib_nd.c): the interface identifier and link-local address from
 * a port GUID, solicited-node groups, IPv6 MGIDs, and neighbour discovery
 * messages with the IPoIB link-layer option: a byte-exact Neighbor
 * Solicitation (the vector was decoded by tshark as a valid ICMPv6 NS with a
 * good checksum), round trips of RS/RA/NS/NA, the checksum against a fold
 * written here, and one refusal for each rule of RFC 4861 sections 6.1 and
 * 7.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "ipoib_ip6.h"
#include "ipoib_nd.h"
#include "pzt_main.h"

#define GUID_A 0x0002c90300001234ull
#define GUID_B 0x0002c90300005678ull

/* The 16 bytes of an address written as text (the test's own parser: inet_pton). */
static void addr_of(const char *text, uint8_t out[16])
{
    assert_int_equal(inet_pton(AF_INET6, text, out), 1);
}

/* An RFC 1071 one's complement checksum over pseudo-header and message, written apart. */
static uint16_t fold_checksum(const uint8_t *pkt)
{
    size_t icmp_len = (size_t)pkt[4] << 8 | pkt[5];
    uint8_t buf[40 + 2048] = {0};
    uint64_t sum = 0;
    size_t n = 0;

    memcpy(buf, pkt + 8, 32);
    buf[32] = (uint8_t)(icmp_len >> 24);
    buf[33] = (uint8_t)(icmp_len >> 16);
    buf[34] = (uint8_t)(icmp_len >> 8);
    buf[35] = (uint8_t)icmp_len;
    buf[39] = 58;
    memcpy(buf + 40, pkt + 40, icmp_len);
    buf[40 + 2] = buf[40 + 3] = 0; /* the stored checksum counts as 0 */
    n = 40 + icmp_len + (icmp_len & 1);
    for (size_t i = 0; i < n; i += 2)
        sum += (uint32_t)buf[i] << 8 | buf[i + 1];
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* Store a checksum computed by the test's own fold (after a mutation). */
static void refold(uint8_t *pkt)
{
    uint16_t c = fold_checksum(pkt);
    pkt[42] = (uint8_t)(c >> 8);
    pkt[43] = (uint8_t)c;
}

/* Our IPoIB address on host A: QPN 0x48, GID fe80::2:c903:0:1234. */
static void lladdr_a(struct ipoib_lladdr *a)
{
    memset(a, 0, sizeof(*a));
    a->qpn = 0x48;
    ipoib_gid_make(0xfe80000000000000ull, GUID_A, a->gid);
}

/* ---- addresses and groups ------------------------------------------------ */

/* The IID is the GUID with the u bit complemented; the link-local is fe80::IID. */
static void test_iid_linklocal(void **state)
{
    static const uint8_t want_iid[8] = {0x02, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x34};
    uint8_t iid[8], ll[16];
    char text[46];

    ipoib_ip6_iid(GUID_A, iid);
    assert_memory_equal(iid, want_iid, 8);
    ipoib_ip6_linklocal(GUID_A, ll);
    assert_string_equal(ipoib_ip6_str(ll, text), "fe80::202:c903:0:1234");
    assert_true(ipoib_ip6_is_linklocal(ll));
    assert_false(ipoib_ip6_is_multicast(ll));
    /* A locally administered GUID (u bit set) gets it cleared. */
    ipoib_ip6_iid(0x0200000000000001ull, iid);
    assert_int_equal(iid[0], 0x00);
    assert_int_equal(iid[7], 0x01);
}

/* Solicited-node: ff02::1:ff and the low 24 bits; all-nodes is ff02::1. */
static void test_solicited_node(void **state)
{
    uint8_t a[16], g[16], all[16];
    char text[46];

    addr_of("2001:db8::202:c903:0:1234", a);
    ipoib_ip6_solicited_node(a, g);
    assert_string_equal(ipoib_ip6_str(g, text), "ff02::1:ff00:1234");
    assert_true(ipoib_ip6_is_solicited_node(g));
    ipoib_ip6_solicited_node(a, a); /* in place */
    assert_memory_equal(a, g, 16);
    ipoib_ip6_all_nodes(all);
    assert_string_equal(ipoib_ip6_str(all, text), "ff02::1");
    assert_false(ipoib_ip6_is_solicited_node(all));
    addr_of("ff02::1:fe00:1234", a);
    assert_false(ipoib_ip6_is_solicited_node(a));
}

/* MGIDs: ff12:601b:<P_Key|0x8000> then the group's low 80 bits. */
static void test_ip6_mgid(void **state)
{
    static const struct {
        const char *group;
        uint16_t pkey;
        const char *mgid;
    } cases[] = {
        {"ff02::1", 0xffff, "ff12:601b:ffff::1"},
        {"ff02::2", 0x7fff, "ff12:601b:ffff::2"},
        {"ff02::16", 0xffff, "ff12:601b:ffff::16"},
        {"ff02::1:ffab:cdef", 0xffff, "ff12:601b:ffff::1:ffab:cdef"},
        {"ff02::1", 0x0001, "ff12:601b:8001::1"},
        {"ff05::1:3", 0xffff, "ff12:601b:ffff::1:3"},
    };
    uint8_t g[16], mgid[16], want[16];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        addr_of(cases[i].group, g);
        addr_of(cases[i].mgid, want);
        ipoib_ip6_mcast_mgid(cases[i].pkey, 2, g, mgid);
        assert_memory_equal(mgid, want, 16);
    }
    addr_of("ff02::1", g);
    ipoib_ip6_mcast_mgid(0xffff, 5, g, mgid);
    assert_int_equal(mgid[1], 0x15);
}

/* Prefix match over whole and partial bytes. */
static void test_prefix_match(void **state)
{
    uint8_t a[16], b[16];

    addr_of("2001:db8:1:2::1", a);
    addr_of("2001:db8:1:2:ffff::9", b);
    assert_true(ipoib_ip6_prefix_match(a, b, 64));
    assert_false(ipoib_ip6_prefix_match(a, b, 65));
    assert_true(ipoib_ip6_prefix_match(a, b, 0));
    addr_of("2001:db8:1:3::1", b);
    assert_true(ipoib_ip6_prefix_match(a, b, 63));
    assert_false(ipoib_ip6_prefix_match(a, b, 64));
    assert_true(ipoib_ip6_prefix_match(a, a, 200));
}

/* ---- neighbour discovery --------------------------------------------------- */

/*
 * A multicast NS from fe80::202:c903:0:1234 for fe80::202:c903:0:5678 with
 * our link-layer address: IPv6 header, ICMPv6 135, target, option type 1
 * length 3, two zero bytes, flags 0, QPN 0x000048, GID.  tshark 4.0 decoded
 * this packet (LINKTYPE_IPV6) as an NS with a good checksum and a source
 * link-layer option of length 3 (24 bytes).
 */
static const uint8_t golden_ns[] = {
    0x60, 0x00, 0x00, 0x00, 0x00, 0x30, 0x3a, 0xff, /* version, length 48, ICMPv6, 255 */
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x34,
    0xff, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0xff, 0x00, 0x56, 0x78,
    0x87, 0x00, 0x4d, 0x58, 0x00, 0x00, 0x00, 0x00, /* NS, code 0, checksum, reserved */
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x56, 0x78,
    0x01, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x48, /* SLLA, 3, pad, flags + QPN */
    0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xc9, 0x03, 0x00, 0x00, 0x12, 0x34,
};

/* The NS of host A soliciting host B, as a struct. */
static void ns_a_to_b(struct ipoib_nd *m)
{
    memset(m, 0, sizeof(*m));
    m->type = IPOIB_ND_NS;
    ipoib_ip6_linklocal(GUID_A, m->src);
    ipoib_ip6_linklocal(GUID_B, m->target);
    ipoib_ip6_solicited_node(m->target, m->dst);
    m->has_slla = true;
    lladdr_a(&m->slla);
}

/* Build gives the golden bytes; parse gives the struct back. */
static void test_ns_golden(void **state)
{
    struct ipoib_nd m, got;
    uint8_t buf[256];
    size_t len;

    ns_a_to_b(&m);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(len, sizeof(golden_ns));
    assert_memory_equal(buf, golden_ns, sizeof(golden_ns));
    assert_int_equal(fold_checksum(buf), 0x4d58);
    assert_int_equal(ipoib_icmp6_checksum(golden_ns, 48), 0);
    assert_true(ipoib_nd_is_nd(golden_ns, sizeof(golden_ns)));
    assert_int_equal(ipoib_nd_parse(golden_ns, sizeof(golden_ns), &got), IPOIB_ND_OK);
    assert_int_equal(got.type, IPOIB_ND_NS);
    assert_memory_equal(got.src, m.src, 16);
    assert_memory_equal(got.dst, m.dst, 16);
    assert_memory_equal(got.target, m.target, 16);
    assert_true(got.has_slla);
    assert_false(got.has_tlla);
    assert_true(ipoib_lladdr_equal(&got.slla, &m.slla));
    assert_int_equal(got.slla.qpn, 0x48);
    /* Trailing bytes after the payload length are ignored; a short buffer is not. */
    memcpy(buf, golden_ns, sizeof(golden_ns));
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns) + 8, &got), IPOIB_ND_OK);
    assert_int_equal(ipoib_nd_parse(golden_ns, sizeof(golden_ns) - 1, &got), IPOIB_ND_NOT_IP6);
    /* A build into too small a buffer writes nothing. */
    assert_int_equal(ipoib_nd_build(&m, buf, sizeof(golden_ns) - 1), 0);
}

/* NA, RS and RA survive build and parse with every field. */
static void test_roundtrip(void **state)
{
    struct ipoib_nd m, got;
    uint8_t buf[512];
    size_t len;

    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_NA;
    ipoib_ip6_linklocal(GUID_B, m.src);
    ipoib_ip6_linklocal(GUID_A, m.dst);
    ipoib_ip6_linklocal(GUID_B, m.target);
    m.na_flags = IPOIB_NA_SOLICITED | IPOIB_NA_OVERRIDE;
    m.has_tlla = true;
    lladdr_a(&m.tlla);
    m.tlla.qpn = 0xabcdef;
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(len, 40 + 24 + 24);
    assert_int_equal(fold_checksum(buf), (uint16_t)(buf[42] << 8 | buf[43]));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_OK);
    assert_int_equal(got.na_flags, IPOIB_NA_SOLICITED | IPOIB_NA_OVERRIDE);
    assert_true(got.has_tlla);
    assert_int_equal(got.tlla.qpn, 0xabcdef);

    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_RS;
    ipoib_ip6_linklocal(GUID_A, m.src);
    addr_of("ff02::2", m.dst);
    m.has_slla = true;
    lladdr_a(&m.slla);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(len, 40 + 8 + 24);
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_OK);
    assert_int_equal(got.type, IPOIB_ND_RS);
    assert_true(got.has_slla);

    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_RA;
    ipoib_ip6_linklocal(GUID_B, m.src);
    addr_of("ff02::1", m.dst);
    m.ra_hop_limit = 64;
    m.ra_lifetime = 1800;
    m.ra_reachable_ms = 30000;
    m.ra_retrans_ms = 1000;
    m.has_slla = true;
    lladdr_a(&m.slla);
    m.has_mtu = true;
    m.mtu = 2044;
    m.n_prefix = 2;
    addr_of("fd00:79::", m.prefix[0].prefix);
    m.prefix[0].len = 64;
    m.prefix[0].flags = IPOIB_ND_PREFIX_ONLINK | IPOIB_ND_PREFIX_AUTO;
    m.prefix[0].valid_lifetime = 86400;
    m.prefix[0].preferred_lifetime = 14400;
    addr_of("2001:db8:5::", m.prefix[1].prefix);
    m.prefix[1].len = 48;
    m.prefix[1].flags = IPOIB_ND_PREFIX_ONLINK;
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(len, 40 + 16 + 24 + 8 + 2 * 32);
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_OK);
    assert_int_equal(got.ra_hop_limit, 64);
    assert_int_equal(got.ra_lifetime, 1800);
    assert_int_equal(got.ra_reachable_ms, 30000);
    assert_int_equal(got.ra_retrans_ms, 1000);
    assert_true(got.has_mtu);
    assert_int_equal(got.mtu, 2044);
    assert_int_equal(got.n_prefix, 2);
    assert_memory_equal(got.prefix[0].prefix, m.prefix[0].prefix, 16);
    assert_int_equal(got.prefix[0].len, 64);
    assert_int_equal(got.prefix[0].flags, IPOIB_ND_PREFIX_ONLINK | IPOIB_ND_PREFIX_AUTO);
    assert_int_equal(got.prefix[0].valid_lifetime, 86400);
    assert_int_equal(got.prefix[0].preferred_lifetime, 14400);
    assert_int_equal(got.prefix[1].len, 48);
    assert_int_equal(got.prefix[1].flags, IPOIB_ND_PREFIX_ONLINK);
}

/* A DAD probe: from ::, to the solicited-node group, no option: valid. */
static void test_dad_probe(void **state)
{
    struct ipoib_nd m, got;
    uint8_t buf[256];
    size_t len;

    ns_a_to_b(&m);
    memset(m.src, 0, 16);
    m.has_slla = false;
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(len, 40 + 24);
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_OK);
    assert_true(ipoib_ip6_is_unspecified(got.src));
}

/*
 * Options a type does not use are skipped unchecked; unknown ones too; only
 * the first link-layer option of a kind counts.
 */
static void test_options_ignored(void **state)
{
    uint8_t buf[256];
    struct ipoib_nd got;
    size_t len = sizeof(golden_ns);

    memcpy(buf, golden_ns, len);
    /* An unknown option (type 200, 8 bytes) and a TLLA of length 1 on an NS. */
    memcpy(buf + len, (const uint8_t[]){200, 1, 1, 2, 3, 4, 5, 6, 2, 1, 0, 0, 0, 0, 0, 0}, 16);
    len += 16;
    /* A second SLLA naming another QPN. */
    memcpy(buf + len, golden_ns + 64, 24);
    buf[len + 7] = 0x99;
    len += 24;
    buf[5] = (uint8_t)(len - 40);
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_OK);
    assert_false(got.has_tlla);
    assert_int_equal(got.slla.qpn, 0x48);
}

/* One packet per refusal: the golden NS (or a built one) changed in one place. */
static void test_refusals(void **state)
{
    uint8_t buf[256];
    struct ipoib_nd m, got;
    size_t len;

    /* Too short for an IPv6 header; not IPv6; not ICMPv6. */
    assert_int_equal(ipoib_nd_parse(golden_ns, 39, &got), IPOIB_ND_SHORT);
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[0] = 0x40;
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_NOT_IP6);
    assert_false(ipoib_nd_is_nd(buf, sizeof(golden_ns)));
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[6] = 17;
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_NOT_ICMP6);
    assert_false(ipoib_nd_is_nd(buf, sizeof(golden_ns)));

    /* An echo request is not neighbour discovery; a redirect is refused by name. */
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[40] = 128;
    refold(buf);
    assert_false(ipoib_nd_is_nd(buf, sizeof(golden_ns)));
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_TYPE);
    buf[40] = IPOIB_ND_REDIRECT;
    refold(buf);
    assert_true(ipoib_nd_is_nd(buf, sizeof(golden_ns)));
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_REDIRECT_MSG);

    /* Hop limit 254 (forwarded from off the link); code 1; a flipped bit. */
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[7] = 254;
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_HOPLIMIT);
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[41] = 1;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_CODE);
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[70] ^= 0x10;
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_CHECKSUM);

    /* ICMPv6 shorter than an NS's 24 bytes (payload length 20). */
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[5] = 20;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_SHORT);

    /* Option length 0; an option past the end; an SLLA of length 1 (lwIP's 6-byte form). */
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[65] = 0;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_OPT_ZERO);
    buf[65] = 4;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_OPT_TRUNC);
    buf[65] = 1;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns), &got), IPOIB_ND_LLADDR_LEN);
    /* A lone byte of option: truncated. */
    memcpy(buf, golden_ns, sizeof(golden_ns));
    buf[5] = 25;
    buf[88] = 0;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, sizeof(golden_ns) + 1, &got), IPOIB_ND_OPT_TRUNC);

    /* NS for a multicast target. */
    ns_a_to_b(&m);
    addr_of("ff02::1", m.target);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_TARGET_MCAST);
    /* DAD probe to all-nodes, and one with a source link-layer option. */
    ns_a_to_b(&m);
    memset(m.src, 0, 16);
    m.has_slla = false;
    addr_of("ff02::1", m.dst);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_DAD_DST);
    ns_a_to_b(&m);
    memset(m.src, 0, 16);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_DAD_SLLA);

    /* NA: multicast target; solicited to a multicast destination. */
    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_NA;
    ipoib_ip6_linklocal(GUID_B, m.src);
    addr_of("ff02::1", m.dst);
    ipoib_ip6_linklocal(GUID_B, m.target);
    m.na_flags = IPOIB_NA_OVERRIDE;
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_OK); /* unsolicited: fine */
    m.na_flags |= IPOIB_NA_SOLICITED;
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_NA_SOLICITED_MCAST);
    m.na_flags = 0;
    addr_of("ff02::1:ff00:1", m.target);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_TARGET_MCAST);

    /* RS from :: with a source link-layer option. */
    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_RS;
    addr_of("ff02::2", m.dst);
    m.has_slla = true;
    lladdr_a(&m.slla);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_DAD_SLLA);

    /* RA from a global address; RA with a prefix or MTU option of the wrong length. */
    memset(&m, 0, sizeof(m));
    m.type = IPOIB_ND_RA;
    addr_of("2001:db8::1", m.src);
    addr_of("ff02::1", m.dst);
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_RA_SRC);
    ipoib_ip6_linklocal(GUID_B, m.src);
    m.has_mtu = true;
    m.mtu = 2044;
    len = ipoib_nd_build(&m, buf, sizeof(buf));
    assert_int_equal(ipoib_nd_parse(buf, len, &got), IPOIB_ND_OK);
    memcpy(buf + len, (const uint8_t[]){5, 1, 0, 0, 0, 0, 5, 0}, 8); /* a second MTU: ignored */
    buf[5] += 8;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, len + 8, &got), IPOIB_ND_OK);
    assert_int_equal(got.mtu, 2044);
    buf[len + 1] = 2; /* the second MTU option now 16 bytes long */
    memset(buf + len + 8, 0, 8);
    buf[5] += 8;
    refold(buf);
    assert_int_equal(ipoib_nd_parse(buf, len + 16, &got), IPOIB_ND_OPT_LEN);
}

/* Every reason has a name; an unknown value is "?". */
static void test_result_names(void **state)
{
    for (int r = 0; r < IPOIB_ND_RESULT_COUNT; r++)
        assert_string_not_equal(ipoib_nd_result_name((enum ipoib_nd_result)r), "?");
    assert_string_equal(ipoib_nd_result_name(IPOIB_ND_RESULT_COUNT), "?");
    assert_string_equal(ipoib_nd_result_name(IPOIB_ND_CHECKSUM), "checksum");
}

PZT_MAIN(test_iid_linklocal, test_solicited_node, test_ip6_mgid, test_prefix_match, test_ns_golden,
         test_roundtrip, test_dad_probe, test_options_ignored, test_refusals, test_result_names)

/*
 * ipoib_nd.c - parse and build IPv6 neighbour discovery messages whose
 * link-layer address options carry IPoIB addresses.
 *
 * Written by hand: lwIP's nd6 holds at most 6-byte hardware addresses in
 * Debian's build, and the IPoIB layer answers neighbour discovery itself,
 * as it answers ARP (see README.md).
 */
#include "ipoib_nd.h"

#include <string.h>

#define ICMP6_HDR_LEN 4 /* type, code, checksum */
#define PREFIX_OPT_UNITS 4
#define MTU_OPT_UNITS 1

/* The fixed part of each type, from the ICMPv6 header to the first option. */
static size_t fixed_len(uint8_t type)
{
    switch (type) {
    case IPOIB_ND_RS:
        return 8;
    case IPOIB_ND_RA:
        return 16;
    case IPOIB_ND_NS:
    case IPOIB_ND_NA:
        return 24;
    case IPOIB_ND_REDIRECT:
        return 40;
    default:
        return 0;
    }
}

/* Add len bytes to a one's complement sum as 16-bit big-endian words. */
static uint32_t sum_words(uint32_t sum, const uint8_t *p, size_t len)
{
    for (size_t i = 0; i + 1 < len; i += 2)
        sum += be16_get(p + i);
    if (len & 1)
        sum += (uint32_t)p[len - 1] << 8;
    return sum;
}

/* Pseudo-header (source, destination, length, next header 58) plus the message. */
uint16_t ipoib_icmp6_checksum(const uint8_t *pkt, size_t icmp_len)
{
    uint32_t sum = 0;

    sum = sum_words(sum, pkt + 8, 32); /* source and destination */
    sum += (uint32_t)(icmp_len >> 16) + (uint32_t)(icmp_len & 0xffff);
    sum += IPOIB_IP6_NH_ICMP6;
    sum = sum_words(sum, pkt + IPOIB_IP6_HDR_LEN, icmp_len);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* Version 6, next header ICMPv6, the first byte of a discovery type. */
bool ipoib_nd_is_nd(const uint8_t *pkt, size_t len)
{
    uint8_t type;

    if (len < IPOIB_IP6_HDR_LEN + ICMP6_HDR_LEN || pkt[0] >> 4 != 6 || pkt[6] != IPOIB_IP6_NH_ICMP6)
        return false;
    type = pkt[IPOIB_IP6_HDR_LEN];
    return type >= IPOIB_ND_RS && type <= IPOIB_ND_REDIRECT;
}

/* Read a link-layer address option of exactly 24 bytes into *a (the first one kept). */
static enum ipoib_nd_result opt_lladdr(const uint8_t *opt, bool *has, struct ipoib_lladdr *a)
{
    if (opt[1] != IPOIB_ND_LLADDR_OPT_UNITS)
        return IPOIB_ND_LLADDR_LEN;
    if (!*has) {
        ipoib_lladdr_unpack(opt + 4, a);
        *has = true;
    }
    return IPOIB_ND_OK;
}

/* Read a prefix information option of an RA; past IPOIB_ND_PREFIX_MAX they are ignored. */
static enum ipoib_nd_result opt_prefix(const uint8_t *opt, struct ipoib_nd *m)
{
    struct ipoib_nd_prefix *p;

    if (opt[1] != PREFIX_OPT_UNITS)
        return IPOIB_ND_OPT_LEN;
    if (m->n_prefix >= IPOIB_ND_PREFIX_MAX)
        return IPOIB_ND_OK;
    p = &m->prefix[m->n_prefix++];
    p->len = opt[2];
    p->flags = opt[3] & (IPOIB_ND_PREFIX_ONLINK | IPOIB_ND_PREFIX_AUTO);
    p->valid_lifetime = be32_get(opt + 4);
    p->preferred_lifetime = be32_get(opt + 8);
    memcpy(p->prefix, opt + 16, IPOIB_IP6_ADDR_LEN);
    return IPOIB_ND_OK;
}

/* Read the MTU option of an RA (the first one). */
static enum ipoib_nd_result opt_mtu(const uint8_t *opt, struct ipoib_nd *m)
{
    if (opt[1] != MTU_OPT_UNITS)
        return IPOIB_ND_OPT_LEN;
    if (!m->has_mtu) {
        m->mtu = be32_get(opt + 4);
        m->has_mtu = true;
    }
    return IPOIB_ND_OK;
}

/*
 * Whether option type opt belongs to message type type (RFC 4861 section
 * 4): the others are ignored, as are unknown ones.
 */
static bool option_used(uint8_t type, uint8_t opt)
{
    switch (opt) {
    case IPOIB_ND_OPT_SLLA:
        return type != IPOIB_ND_NA;
    case IPOIB_ND_OPT_TLLA:
        return type == IPOIB_ND_NA;
    case IPOIB_ND_OPT_PREFIX:
    case IPOIB_ND_OPT_MTU:
        return type == IPOIB_ND_RA;
    default:
        return false;
    }
}

/* Read one option that belongs to m's type. */
static enum ipoib_nd_result parse_option(const uint8_t *opt, struct ipoib_nd *m)
{
    switch (opt[0]) {
    case IPOIB_ND_OPT_SLLA:
        return opt_lladdr(opt, &m->has_slla, &m->slla);
    case IPOIB_ND_OPT_TLLA:
        return opt_lladdr(opt, &m->has_tlla, &m->tlla);
    case IPOIB_ND_OPT_PREFIX:
        return opt_prefix(opt, m);
    default:
        return opt_mtu(opt, m);
    }
}

/*
 * Walk the options: each has a non-zero length within the message; the
 * ones m's type uses are checked and read, others skipped (RFC 4861
 * sections 4 and 4.6).
 */
static enum ipoib_nd_result parse_options(const uint8_t *opt, size_t len, struct ipoib_nd *m)
{
    while (len > 0) {
        size_t olen;

        if (len < 2)
            return IPOIB_ND_OPT_TRUNC;
        if (opt[1] == 0)
            return IPOIB_ND_OPT_ZERO;
        olen = (size_t)opt[1] * 8;
        if (olen > len)
            return IPOIB_ND_OPT_TRUNC;
        if (option_used(m->type, opt[0])) {
            enum ipoib_nd_result r = parse_option(opt, m);
            if (r != IPOIB_ND_OK)
                return r;
        }
        opt += olen;
        len -= olen;
    }
    return IPOIB_ND_OK;
}

/* Read the fixed part after the ICMPv6 header of each type. */
static void parse_fixed(const uint8_t *icmp, struct ipoib_nd *m)
{
    if (m->type == IPOIB_ND_NS || m->type == IPOIB_ND_NA) {
        memcpy(m->target, icmp + 8, IPOIB_IP6_ADDR_LEN);
        if (m->type == IPOIB_ND_NA)
            m->na_flags = icmp[4] & (IPOIB_NA_ROUTER | IPOIB_NA_SOLICITED | IPOIB_NA_OVERRIDE);
    } else if (m->type == IPOIB_ND_RA) {
        m->ra_hop_limit = icmp[4];
        m->ra_flags = icmp[5];
        m->ra_lifetime = be16_get(icmp + 6);
        m->ra_reachable_ms = be32_get(icmp + 8);
        m->ra_retrans_ms = be32_get(icmp + 12);
    }
}

/* The rules of RFC 4861 sections 6.1 and 7.1 that depend on the addresses. */
static enum ipoib_nd_result check_addresses(const struct ipoib_nd *m)
{
    bool from_unspec = ipoib_ip6_is_unspecified(m->src);

    switch (m->type) {
    case IPOIB_ND_NS:
        if (ipoib_ip6_is_multicast(m->target))
            return IPOIB_ND_TARGET_MCAST;
        if (from_unspec && !ipoib_ip6_is_solicited_node(m->dst))
            return IPOIB_ND_DAD_DST;
        if (from_unspec && m->has_slla)
            return IPOIB_ND_DAD_SLLA;
        break;
    case IPOIB_ND_NA:
        if (ipoib_ip6_is_multicast(m->target))
            return IPOIB_ND_TARGET_MCAST;
        if (ipoib_ip6_is_multicast(m->dst) && (m->na_flags & IPOIB_NA_SOLICITED))
            return IPOIB_ND_NA_SOLICITED_MCAST;
        break;
    case IPOIB_ND_RS:
        if (from_unspec && m->has_slla)
            return IPOIB_ND_DAD_SLLA;
        break;
    case IPOIB_ND_RA:
        if (!ipoib_ip6_is_linklocal(m->src))
            return IPOIB_ND_RA_SRC;
        break;
    }
    return IPOIB_ND_OK;
}

/* The IPv6 and ICMPv6 headers, then the fixed part, options and address rules. */
enum ipoib_nd_result ipoib_nd_parse(const uint8_t *pkt, size_t len, struct ipoib_nd *m)
{
    const uint8_t *icmp = pkt + IPOIB_IP6_HDR_LEN;
    size_t icmp_len, fixed;
    enum ipoib_nd_result r;

    if (len < IPOIB_IP6_HDR_LEN)
        return IPOIB_ND_SHORT;
    icmp_len = be16_get(pkt + 4);
    if (pkt[0] >> 4 != 6 || IPOIB_IP6_HDR_LEN + icmp_len > len)
        return IPOIB_ND_NOT_IP6;
    if (pkt[6] != IPOIB_IP6_NH_ICMP6)
        return IPOIB_ND_NOT_ICMP6;
    if (icmp_len < ICMP6_HDR_LEN)
        return IPOIB_ND_SHORT;
    if (icmp[0] == IPOIB_ND_REDIRECT)
        return IPOIB_ND_REDIRECT_MSG;
    fixed = fixed_len(icmp[0]);
    if (!fixed)
        return IPOIB_ND_TYPE;
    if (pkt[7] != IPOIB_ND_HOP_LIMIT)
        return IPOIB_ND_HOPLIMIT;
    if (icmp[1] != 0)
        return IPOIB_ND_CODE;
    if (icmp_len < fixed)
        return IPOIB_ND_SHORT;
    if (ipoib_icmp6_checksum(pkt, icmp_len) != 0)
        return IPOIB_ND_CHECKSUM;
    memset(m, 0, sizeof(*m));
    m->type = icmp[0];
    memcpy(m->src, pkt + 8, IPOIB_IP6_ADDR_LEN);
    memcpy(m->dst, pkt + 24, IPOIB_IP6_ADDR_LEN);
    parse_fixed(icmp, m);
    r = parse_options(icmp + fixed, icmp_len - fixed, m);
    if (r != IPOIB_ND_OK)
        return r;
    return check_addresses(m);
}

/* Write a link-layer address option of type `type` at out; returns its length. */
static size_t put_lladdr(uint8_t *out, uint8_t type, const struct ipoib_lladdr *a)
{
    out[0] = type;
    out[1] = IPOIB_ND_LLADDR_OPT_UNITS;
    out[2] = 0;
    out[3] = 0;
    ipoib_lladdr_pack(a, out + 4);
    return IPOIB_ND_LLADDR_OPT_LEN;
}

/* Write a prefix information option; returns its length (32). */
static size_t put_prefix(uint8_t *out, const struct ipoib_nd_prefix *p)
{
    memset(out, 0, PREFIX_OPT_UNITS * 8);
    out[0] = IPOIB_ND_OPT_PREFIX;
    out[1] = PREFIX_OPT_UNITS;
    out[2] = p->len;
    out[3] = p->flags;
    be32_put(out + 4, p->valid_lifetime);
    be32_put(out + 8, p->preferred_lifetime);
    memcpy(out + 16, p->prefix, IPOIB_IP6_ADDR_LEN);
    return PREFIX_OPT_UNITS * 8;
}

/* Write an MTU option; returns its length (8). */
static size_t put_mtu(uint8_t *out, uint32_t mtu)
{
    memset(out, 0, MTU_OPT_UNITS * 8);
    out[0] = IPOIB_ND_OPT_MTU;
    out[1] = MTU_OPT_UNITS;
    be32_put(out + 4, mtu);
    return MTU_OPT_UNITS * 8;
}

/* The bytes m's options take. */
static size_t options_len(const struct ipoib_nd *m)
{
    size_t n = 0;

    if (m->has_slla)
        n += IPOIB_ND_LLADDR_OPT_LEN;
    if (m->has_tlla)
        n += IPOIB_ND_LLADDR_OPT_LEN;
    if (m->type == IPOIB_ND_RA) {
        if (m->has_mtu)
            n += MTU_OPT_UNITS * 8;
        n += (size_t)(m->n_prefix > IPOIB_ND_PREFIX_MAX ? IPOIB_ND_PREFIX_MAX : m->n_prefix) *
             PREFIX_OPT_UNITS * 8;
    }
    return n;
}

/* Write the fixed part of m's type after the ICMPv6 header (zeroed already). */
static void put_fixed(uint8_t *icmp, const struct ipoib_nd *m)
{
    if (m->type == IPOIB_ND_NS || m->type == IPOIB_ND_NA) {
        if (m->type == IPOIB_ND_NA)
            icmp[4] = m->na_flags;
        memcpy(icmp + 8, m->target, IPOIB_IP6_ADDR_LEN);
    } else if (m->type == IPOIB_ND_RA) {
        icmp[4] = m->ra_hop_limit;
        icmp[5] = m->ra_flags;
        be16_put(icmp + 6, m->ra_lifetime);
        be32_put(icmp + 8, m->ra_reachable_ms);
        be32_put(icmp + 12, m->ra_retrans_ms);
    }
}

/* IPv6 header, ICMPv6 fixed part, options, checksum. */
size_t ipoib_nd_build(const struct ipoib_nd *m, uint8_t *out, size_t max)
{
    size_t fixed = m->type == IPOIB_ND_REDIRECT ? 0 : fixed_len(m->type);
    size_t icmp_len, pos;
    uint8_t *icmp = out + IPOIB_IP6_HDR_LEN;

    if (!fixed)
        return 0;
    icmp_len = fixed + options_len(m);
    if (max < IPOIB_IP6_HDR_LEN + icmp_len)
        return 0;
    memset(out, 0, IPOIB_IP6_HDR_LEN + fixed);
    out[0] = 0x60;
    be16_put(out + 4, (uint16_t)icmp_len);
    out[6] = IPOIB_IP6_NH_ICMP6;
    out[7] = IPOIB_ND_HOP_LIMIT;
    memcpy(out + 8, m->src, IPOIB_IP6_ADDR_LEN);
    memcpy(out + 24, m->dst, IPOIB_IP6_ADDR_LEN);
    icmp[0] = m->type;
    put_fixed(icmp, m);
    pos = fixed;
    if (m->has_slla)
        pos += put_lladdr(icmp + pos, IPOIB_ND_OPT_SLLA, &m->slla);
    if (m->has_tlla)
        pos += put_lladdr(icmp + pos, IPOIB_ND_OPT_TLLA, &m->tlla);
    if (m->type == IPOIB_ND_RA) {
        if (m->has_mtu)
            pos += put_mtu(icmp + pos, m->mtu);
        for (unsigned i = 0; i < m->n_prefix && i < IPOIB_ND_PREFIX_MAX; i++)
            pos += put_prefix(icmp + pos, &m->prefix[i]);
    }
    be16_put(icmp + 2, ipoib_icmp6_checksum(out, icmp_len));
    return IPOIB_IP6_HDR_LEN + icmp_len;
}

/* Names for logs: the reason as one word. */
const char *ipoib_nd_result_name(enum ipoib_nd_result r)
{
    static const char *const names[] = {
        [IPOIB_ND_OK] = "ok",
        [IPOIB_ND_SHORT] = "short",
        [IPOIB_ND_NOT_IP6] = "not-ipv6",
        [IPOIB_ND_NOT_ICMP6] = "not-icmpv6",
        [IPOIB_ND_TYPE] = "type",
        [IPOIB_ND_HOPLIMIT] = "hop-limit",
        [IPOIB_ND_CODE] = "code",
        [IPOIB_ND_CHECKSUM] = "checksum",
        [IPOIB_ND_OPT_ZERO] = "option-length-0",
        [IPOIB_ND_OPT_TRUNC] = "option-truncated",
        [IPOIB_ND_LLADDR_LEN] = "lladdr-length",
        [IPOIB_ND_OPT_LEN] = "option-length",
        [IPOIB_ND_TARGET_MCAST] = "target-multicast",
        [IPOIB_ND_DAD_DST] = "dad-destination",
        [IPOIB_ND_DAD_SLLA] = "unspecified-source-lladdr",
        [IPOIB_ND_NA_SOLICITED_MCAST] = "na-solicited-multicast",
        [IPOIB_ND_RA_SRC] = "ra-source",
        [IPOIB_ND_REDIRECT_MSG] = "redirect",
    };

    if ((unsigned)r >= sizeof(names) / sizeof(names[0]) || !names[r])
        return "?";
    return names[r];
}

/*
 * ipoib_nd.h - IPv6 neighbour discovery messages on an IPoIB link (RFC 4861
 * with RFC 4391 section 9.1): Router Solicitation and Advertisement,
 * Neighbor Solicitation and Advertisement, whose link-layer address options
 * carry the 20-byte IPoIB address.  A whole IPv6 packet is parsed (every
 * validity check of RFC 4861 sections 6.1 and 7.1, each refusal with its
 * reason) or built (with the ICMPv6 checksum).
 */
#ifndef PZ_IPOIB_ND_H
#define PZ_IPOIB_ND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ipoib_ip6.h"
#include "ipoib_wire.h"

/* ICMPv6 types of neighbour discovery. */
#define IPOIB_ND_RS 133
#define IPOIB_ND_RA 134
#define IPOIB_ND_NS 135
#define IPOIB_ND_NA 136
#define IPOIB_ND_REDIRECT 137

/* Option types. */
#define IPOIB_ND_OPT_SLLA 1 /* source link-layer address */
#define IPOIB_ND_OPT_TLLA 2 /* target link-layer address */
#define IPOIB_ND_OPT_PREFIX 3
#define IPOIB_ND_OPT_MTU 5

/*
 * The IPoIB link-layer address option: type, length 3 (units of 8 bytes),
 * two reserved zero bytes, the 20-byte address (flags, QPN, GID).
 */
#define IPOIB_ND_LLADDR_OPT_LEN 24
#define IPOIB_ND_LLADDR_OPT_UNITS 3

/* NA flags (the first byte after the checksum). */
#define IPOIB_NA_ROUTER 0x80
#define IPOIB_NA_SOLICITED 0x40
#define IPOIB_NA_OVERRIDE 0x20

/* Prefix information flags. */
#define IPOIB_ND_PREFIX_ONLINK 0x80
#define IPOIB_ND_PREFIX_AUTO 0x40

#define IPOIB_ND_PREFIX_MAX 4 /* prefix options kept from one RA; more are ignored */
#define IPOIB_ND_HOP_LIMIT 255

/* One prefix information option of an RA. */
struct ipoib_nd_prefix {
    uint8_t prefix[IPOIB_IP6_ADDR_LEN];
    uint8_t len;   /* prefix length in bits */
    uint8_t flags; /* IPOIB_ND_PREFIX_ONLINK, IPOIB_ND_PREFIX_AUTO */
    uint32_t valid_lifetime, preferred_lifetime;
};

/* One neighbour discovery message, its IPv6 addresses and the options it carries. */
struct ipoib_nd {
    uint8_t type; /* IPOIB_ND_RS .. IPOIB_ND_NA */
    uint8_t src[IPOIB_IP6_ADDR_LEN];
    uint8_t dst[IPOIB_IP6_ADDR_LEN];
    uint8_t target[IPOIB_IP6_ADDR_LEN]; /* NS, NA */
    uint8_t na_flags;                   /* NA: IPOIB_NA_* */
    bool has_slla, has_tlla;            /* the first option of each type counts */
    struct ipoib_lladdr slla, tlla;
    /* RA */
    uint8_t ra_hop_limit, ra_flags;
    uint16_t ra_lifetime; /* s; 0: not a default router */
    uint32_t ra_reachable_ms, ra_retrans_ms;
    bool has_mtu;
    uint32_t mtu;
    unsigned n_prefix;
    struct ipoib_nd_prefix prefix[IPOIB_ND_PREFIX_MAX];
};

/* Why a packet was refused; IPOIB_ND_OK when it is a valid message. */
enum ipoib_nd_result {
    IPOIB_ND_OK,
    IPOIB_ND_SHORT,              /* shorter than its header or its type's fixed part */
    IPOIB_ND_NOT_IP6,            /* version is not 6, or the payload length overruns */
    IPOIB_ND_NOT_ICMP6,          /* next header is not ICMPv6 */
    IPOIB_ND_TYPE,               /* not RS, RA, NS or NA */
    IPOIB_ND_HOPLIMIT,           /* IPv6 hop limit is not 255 */
    IPOIB_ND_CODE,               /* ICMP code is not 0 */
    IPOIB_ND_CHECKSUM,           /* ICMPv6 checksum wrong */
    IPOIB_ND_OPT_ZERO,           /* an option of length 0 */
    IPOIB_ND_OPT_TRUNC,          /* an option runs past the end */
    IPOIB_ND_LLADDR_LEN,         /* a link-layer address option whose length is not 3 */
    IPOIB_ND_OPT_LEN,            /* a prefix or MTU option of the wrong length */
    IPOIB_ND_TARGET_MCAST,       /* NS/NA target is multicast */
    IPOIB_ND_DAD_DST,            /* NS from :: not to a solicited-node group */
    IPOIB_ND_DAD_SLLA,           /* NS or RS from :: with a source address option */
    IPOIB_ND_NA_SOLICITED_MCAST, /* NA to a multicast address with S set */
    IPOIB_ND_RA_SRC,             /* RA from a source that is not link-local */
    IPOIB_ND_REDIRECT_MSG,       /* a Redirect: not handled by a host without routes to learn */
    IPOIB_ND_RESULT_COUNT,
};

/*
 * True if an IPv6 packet of len bytes is ICMPv6 (no extension header) of a
 * neighbour discovery type (133..137), so it belongs to the IPoIB layer,
 * not to the host stack.
 */
bool ipoib_nd_is_nd(const uint8_t *pkt, size_t len);

/*
 * Parse one IPv6 packet of len bytes (bytes after its payload length are
 * ignored).  Every check runs before *m is used, so a refusal leaves
 * nothing to act on.  Returns IPOIB_ND_OK and fills *m, or the reason.
 */
enum ipoib_nd_result ipoib_nd_parse(const uint8_t *pkt, size_t len, struct ipoib_nd *m);

/*
 * Build m as a whole IPv6 packet (hop limit 255, the ICMPv6 checksum) into
 * out[max], with the options it says: the link-layer addresses, and for an
 * RA the MTU and the prefixes.  Returns the length, or 0 if max is short or
 * the type unknown.
 */
size_t ipoib_nd_build(const struct ipoib_nd *m, uint8_t *out, size_t max);

/*
 * The ICMPv6 checksum of the icmp_len bytes after the IPv6 header of pkt
 * (RFC 8200 section 8.1 pseudo-header), as it would be stored.  Over a
 * message whose stored checksum is right this is 0.
 */
uint16_t ipoib_icmp6_checksum(const uint8_t *pkt, size_t icmp_len);

/* A short name for r, for logs and counters. */
const char *ipoib_nd_result_name(enum ipoib_nd_result r);

#endif

/*
 * ipoib_arp.h - IPoIB ARP (RFC 4391 section 9.1): Ethernet-style ARP with
 * hardware type 32 and 20-byte hardware addresses, 56 bytes long.
 */
#ifndef PZ_IPOIB_ARP_H
#define PZ_IPOIB_ARP_H

#include <stddef.h>
#include <stdint.h>

#include "ipoib_wire.h"

#define IPOIB_ARP_LEN 56   /* 8 + 2 * (20 + 4) */
#define IPOIB_ARP_HTYPE 32 /* ARPHRD_INFINIBAND */
#define IPOIB_ARP_OP_REQUEST 1
#define IPOIB_ARP_OP_REPLY 2

/* One IPoIB ARP message; IPv4 addresses in host order. */
struct ipoib_arp {
    uint16_t op;
    struct ipoib_lladdr sha; /* sender hardware address */
    uint32_t spa;            /* sender protocol address */
    struct ipoib_lladdr tha; /* target hardware address (zero in requests) */
    uint32_t tpa;            /* target protocol address */
};

/* Why an ARP message was refused. */
enum ipoib_arp_parse_result {
    IPOIB_ARP_OK,
    IPOIB_ARP_SHORT,     /* fewer than 56 bytes */
    IPOIB_ARP_BAD_HTYPE, /* hardware type is not 32 */
    IPOIB_ARP_BAD_PTYPE, /* protocol is not IPv4 */
    IPOIB_ARP_BAD_HLEN,  /* hardware length is not 20 */
    IPOIB_ARP_BAD_PLEN,  /* protocol length is not 4 */
    IPOIB_ARP_BAD_OP,    /* neither request nor reply */
};

/*
 * Parse an ARP body (after the encapsulation header).  Extra bytes after
 * the 56 (padding) are ignored.  Returns IPOIB_ARP_OK and fills *arp, or
 * the reason for refusing it.
 */
enum ipoib_arp_parse_result ipoib_arp_parse(const uint8_t *buf, size_t len, struct ipoib_arp *arp);

/* Write arp into out[56]. */
void ipoib_arp_build(const struct ipoib_arp *arp, uint8_t out[IPOIB_ARP_LEN]);

/* A short name for r, for logs and counters. */
const char *ipoib_arp_parse_result_name(enum ipoib_arp_parse_result r);

#endif

/*
 * ipoib_wire.h - IPoIB datagram-mode wire formats (RFC 4391): the 4-byte
 * encapsulation header, the 20-byte link-layer address, and the multicast
 * GIDs that IPv4 broadcast and multicast map to.
 */
#ifndef PZ_IPOIB_WIRE_H
#define PZ_IPOIB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad.h"

#define IPOIB_ENCAP_LEN 4   /* EtherType (16 bits) + reserved (16 bits) */
#define IPOIB_LLADDR_LEN 20 /* flags/QPN (4 bytes) + port GID (16 bytes) */
#define IPOIB_GID_LEN 16
#define IPOIB_MCAST_QPN 0xFFFFFFu /* destination QP of every multicast send */
#define IPOIB_QPN_MASK 0xFFFFFFu
#define IPOIB_DEFAULT_PKEY 0xFFFFu
#define IPOIB_DEFAULT_QKEY 0x00000B1Bu /* OpenSM's Q_Key of IP groups */

#define IPOIB_ETHERTYPE_IPV4 0x0800u
#define IPOIB_ETHERTYPE_ARP 0x0806u
#define IPOIB_ETHERTYPE_IPV6 0x86DDu

/* An IPoIB link-layer address: QPN and port GID (RFC 4391 section 9.1.1). */
struct ipoib_lladdr {
    uint8_t flags;              /* octet 0: reserved bits; 0x80 = connected mode */
    uint32_t qpn;               /* 24 bits */
    uint8_t gid[IPOIB_GID_LEN]; /* subnet prefix + port GUID, network order */
};

/* Big-endian access: mad.h (be16_get, be32_get, be16_put, be32_put). */

/* Write a into out[20]. */
void ipoib_lladdr_pack(const struct ipoib_lladdr *a, uint8_t out[IPOIB_LLADDR_LEN]);

/* Read in[20] into *a. */
void ipoib_lladdr_unpack(const uint8_t in[IPOIB_LLADDR_LEN], struct ipoib_lladdr *a);

/* True if a and b name the same QP on the same port (flags ignored). */
bool ipoib_lladdr_equal(const struct ipoib_lladdr *a, const struct ipoib_lladdr *b);

/* Build a port GID from a subnet prefix and a port GUID (both host order). */
void ipoib_gid_make(uint64_t prefix, uint64_t guid, uint8_t gid[IPOIB_GID_LEN]);

/* The port GUID half of gid, host order. */
uint64_t ipoib_gid_guid(const uint8_t gid[IPOIB_GID_LEN]);

/*
 * The IPv4 broadcast group's MGID for partition pkey:
 * ff12:401b:<pkey|0x8000>:0:0:0:ffff:ffff.  Returns nothing.
 */
void ipoib_bcast_mgid(uint16_t pkey, uint8_t mgid[IPOIB_GID_LEN]);

/*
 * The MGID of IPv4 multicast group ip (host order) at link-local scope:
 * ff12:401b:<pkey>:0:0:0:<low 28 bits of ip>.
 */
void ipoib_ipv4_mcast_mgid(uint16_t pkey, uint32_t ip, uint8_t mgid[IPOIB_GID_LEN]);

/*
 * Prepend nothing, just write the encapsulation header for ethertype into
 * out[4].
 */
void ipoib_encap_write(uint16_t ethertype, uint8_t out[IPOIB_ENCAP_LEN]);

/*
 * Read the encapsulation header of a received payload.  Returns the
 * ethertype, or -1 if len is too short.  A non-zero reserved field is
 * accepted (RFC 4391: receivers ignore it).
 */
int ipoib_encap_read(const uint8_t *payload, size_t len);

#endif

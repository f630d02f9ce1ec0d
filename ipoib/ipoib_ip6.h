/*
 * ipoib_ip6.h - IPv6 addresses on an IPoIB link (RFC 4391 sections 4 and 8):
 * the interface identifier from the port GUID, the link-local address, the
 * solicited-node group of an address and the MGID an IPv6 multicast group
 * maps to.  Addresses are 16 bytes in network order.
 */
#ifndef PZ_IPOIB_IP6_H
#define PZ_IPOIB_IP6_H

#include <stdbool.h>
#include <stdint.h>

#include "ipoib_wire.h"

#define IPOIB_IP6_ADDR_LEN 16
#define IPOIB_IP6_HDR_LEN 40
#define IPOIB_IP6_MIN_MTU 1280 /* RFC 8200: every IPv6 link carries this */
#define IPOIB_IP6_NH_ICMP6 58

/*
 * The 64-bit interface identifier of a port with GUID guid (host order),
 * into iid[8]: the GUID as an EUI-64 with the universal/local bit
 * complemented (RFC 4391 section 8, RFC 4291 appendix A).  For a GUID from
 * an IEEE OUI (u bit 0) this is what Linux's ipoib makes (it sets the bit).
 */
void ipoib_ip6_iid(uint64_t guid, uint8_t iid[8]);

/* fe80::/64 followed by the interface identifier of guid, into addr[16]. */
void ipoib_ip6_linklocal(uint64_t guid, uint8_t addr[IPOIB_IP6_ADDR_LEN]);

/*
 * The solicited-node multicast group of addr (RFC 4291 section 2.7.1):
 * ff02::1:ff00:0/104 with the low 24 bits of addr, into group[16].
 */
void ipoib_ip6_solicited_node(const uint8_t addr[IPOIB_IP6_ADDR_LEN],
                              uint8_t group[IPOIB_IP6_ADDR_LEN]);

/* All-nodes, ff02::1, into group[16]. */
void ipoib_ip6_all_nodes(uint8_t group[IPOIB_IP6_ADDR_LEN]);

/*
 * The MGID of IPv6 multicast group `group` in partition pkey (RFC 4391
 * section 4): ff, 0x10 | scope, the IPv6 signature 60 1b, the P_Key with
 * the full-member bit, then the low 80 bits of the group.  scope is that
 * of the partition's broadcast group (2, link-local), as Linux's ipoib
 * maps it, so both ends name every group alike.
 */
void ipoib_ip6_mcast_mgid(uint16_t pkey, uint8_t scope, const uint8_t group[IPOIB_IP6_ADDR_LEN],
                          uint8_t mgid[IPOIB_GID_LEN]);

/* True for ::. */
bool ipoib_ip6_is_unspecified(const uint8_t addr[IPOIB_IP6_ADDR_LEN]);

/* True for ff00::/8. */
bool ipoib_ip6_is_multicast(const uint8_t addr[IPOIB_IP6_ADDR_LEN]);

/* True for fe80::/10. */
bool ipoib_ip6_is_linklocal(const uint8_t addr[IPOIB_IP6_ADDR_LEN]);

/* True if group is the solicited-node group of some address: ff02::1:ffXX:XXXX. */
bool ipoib_ip6_is_solicited_node(const uint8_t group[IPOIB_IP6_ADDR_LEN]);

/* True if a and b agree in their first prefix_len bits (0..128). */
bool ipoib_ip6_prefix_match(const uint8_t a[IPOIB_IP6_ADDR_LEN],
                            const uint8_t b[IPOIB_IP6_ADDR_LEN], unsigned prefix_len);

/* Write addr as text (RFC 5952: lower case, the longest run of zeros as ::) into buf[46]. */
const char *ipoib_ip6_str(const uint8_t addr[IPOIB_IP6_ADDR_LEN], char buf[46]);

#endif

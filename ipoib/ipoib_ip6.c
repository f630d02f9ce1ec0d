/*
 * ipoib_ip6.c - IPv6 addresses and multicast GIDs on an IPoIB link
 * (RFC 4391 sections 4 and 8).
 */
#include "ipoib_ip6.h"

#include <arpa/inet.h>
#include <string.h>

/* The GUID big-endian, the universal/local bit (0x02 of byte 0) complemented. */
void ipoib_ip6_iid(uint64_t guid, uint8_t iid[8])
{
    be64_put(iid, guid);
    iid[0] ^= 0x02;
}

/* fe80:0:0:0 then the interface identifier. */
void ipoib_ip6_linklocal(uint64_t guid, uint8_t addr[IPOIB_IP6_ADDR_LEN])
{
    memset(addr, 0, IPOIB_IP6_ADDR_LEN);
    addr[0] = 0xfe;
    addr[1] = 0x80;
    ipoib_ip6_iid(guid, addr + 8);
}

/* ff02::1:ff then the last three bytes of addr. */
void ipoib_ip6_solicited_node(const uint8_t addr[IPOIB_IP6_ADDR_LEN],
                              uint8_t group[IPOIB_IP6_ADDR_LEN])
{
    uint8_t low[3];

    memcpy(low, addr + 13, 3); /* addr and group may be the same buffer */
    memset(group, 0, IPOIB_IP6_ADDR_LEN);
    group[0] = 0xff;
    group[1] = 0x02;
    group[11] = 0x01;
    group[12] = 0xff;
    memcpy(group + 13, low, 3);
}

/* ff02::1. */
void ipoib_ip6_all_nodes(uint8_t group[IPOIB_IP6_ADDR_LEN])
{
    memset(group, 0, IPOIB_IP6_ADDR_LEN);
    group[0] = 0xff;
    group[1] = 0x02;
    group[15] = 0x01;
}

/* ff, 1|scope, 60 1b, P_Key, group bytes 6..15. */
void ipoib_ip6_mcast_mgid(uint16_t pkey, uint8_t scope, const uint8_t group[IPOIB_IP6_ADDR_LEN],
                          uint8_t mgid[IPOIB_GID_LEN])
{
    mgid[0] = 0xff;
    mgid[1] = (uint8_t)(0x10 | (scope & 0x0f)); /* flags 1: transient */
    mgid[2] = 0x60;
    mgid[3] = 0x1b; /* IPv6 signature */
    be16_put(mgid + 4, (uint16_t)(pkey | 0x8000));
    memcpy(mgid + 6, group + 6, 10);
}

/* Sixteen zero bytes. */
bool ipoib_ip6_is_unspecified(const uint8_t addr[IPOIB_IP6_ADDR_LEN])
{
    static const uint8_t zero[IPOIB_IP6_ADDR_LEN];
    return memcmp(addr, zero, IPOIB_IP6_ADDR_LEN) == 0;
}

/* The first byte is ff. */
bool ipoib_ip6_is_multicast(const uint8_t addr[IPOIB_IP6_ADDR_LEN])
{
    return addr[0] == 0xff;
}

/* The first 10 bits are 1111 1110 10. */
bool ipoib_ip6_is_linklocal(const uint8_t addr[IPOIB_IP6_ADDR_LEN])
{
    return addr[0] == 0xfe && (addr[1] & 0xc0) == 0x80;
}

/* ff02:0:0:0:0:1:ff00::/104. */
bool ipoib_ip6_is_solicited_node(const uint8_t group[IPOIB_IP6_ADDR_LEN])
{
    static const uint8_t head[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff};
    return memcmp(group, head, sizeof(head)) == 0;
}

/* Whole bytes first, then the bits of the last partial byte. */
bool ipoib_ip6_prefix_match(const uint8_t a[IPOIB_IP6_ADDR_LEN],
                            const uint8_t b[IPOIB_IP6_ADDR_LEN], unsigned prefix_len)
{
    unsigned bytes, bits;

    if (prefix_len > 128)
        prefix_len = 128;
    bytes = prefix_len / 8;
    bits = prefix_len % 8;
    if (memcmp(a, b, bytes) != 0)
        return false;
    if (bits == 0)
        return true;
    return ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

/* inet_ntop, which writes RFC 5952's form. */
const char *ipoib_ip6_str(const uint8_t addr[IPOIB_IP6_ADDR_LEN], char buf[46])
{
    if (!inet_ntop(AF_INET6, addr, buf, 46))
        strcpy(buf, "?");
    return buf;
}

/*
 * ipoib_arp.c - parse and build IPoIB ARP messages.
 *
 * Written by hand: no packaged library here knows ARP with 20-byte hardware
 * addresses (lwIP's etharp is Ethernet-only and Debian's build fixes
 * NETIF_MAX_HWADDR_LEN at 6).
 */
#include "ipoib_arp.h"

#include <string.h>

#define ARP_PTYPE_IPV4 0x0800

/* Check the fixed part, then read the four addresses. */
enum ipoib_arp_parse_result ipoib_arp_parse(const uint8_t *buf, size_t len, struct ipoib_arp *arp)
{
    if (len < IPOIB_ARP_LEN)
        return IPOIB_ARP_SHORT;
    if (be16_get(buf) != IPOIB_ARP_HTYPE)
        return IPOIB_ARP_BAD_HTYPE;
    if (be16_get(buf + 2) != ARP_PTYPE_IPV4)
        return IPOIB_ARP_BAD_PTYPE;
    if (buf[4] != IPOIB_LLADDR_LEN)
        return IPOIB_ARP_BAD_HLEN;
    if (buf[5] != 4)
        return IPOIB_ARP_BAD_PLEN;
    arp->op = be16_get(buf + 6);
    if (arp->op != IPOIB_ARP_OP_REQUEST && arp->op != IPOIB_ARP_OP_REPLY)
        return IPOIB_ARP_BAD_OP;
    ipoib_lladdr_unpack(buf + 8, &arp->sha);
    arp->spa = be32_get(buf + 28);
    ipoib_lladdr_unpack(buf + 32, &arp->tha);
    arp->tpa = be32_get(buf + 52);
    return IPOIB_ARP_OK;
}

/* The fixed part, then sender and target addresses. */
void ipoib_arp_build(const struct ipoib_arp *arp, uint8_t out[IPOIB_ARP_LEN])
{
    be16_put(out, IPOIB_ARP_HTYPE);
    be16_put(out + 2, ARP_PTYPE_IPV4);
    out[4] = IPOIB_LLADDR_LEN;
    out[5] = 4;
    be16_put(out + 6, arp->op);
    ipoib_lladdr_pack(&arp->sha, out + 8);
    be32_put(out + 28, arp->spa);
    ipoib_lladdr_pack(&arp->tha, out + 32);
    be32_put(out + 52, arp->tpa);
}

/* Names for logs: the reason as one word. */
const char *ipoib_arp_parse_result_name(enum ipoib_arp_parse_result r)
{
    static const char *const names[] = {
        [IPOIB_ARP_OK] = "ok",           [IPOIB_ARP_SHORT] = "short",
        [IPOIB_ARP_BAD_HTYPE] = "htype", [IPOIB_ARP_BAD_PTYPE] = "ptype",
        [IPOIB_ARP_BAD_HLEN] = "hlen",   [IPOIB_ARP_BAD_PLEN] = "plen",
        [IPOIB_ARP_BAD_OP] = "op",
    };

    if ((unsigned)r >= sizeof(names) / sizeof(names[0]) || !names[r])
        return "?";
    return names[r];
}

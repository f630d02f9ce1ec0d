/*
 * ipoib_wire.c - IPoIB datagram-mode wire formats: link addresses, GIDs,
 * multicast GIDs and the encapsulation header (RFC 4391).
 */
#include "ipoib_wire.h"

#include <string.h>

/* Write a into out[20]: flags, 24-bit QPN, GID. */
void ipoib_lladdr_pack(const struct ipoib_lladdr *a, uint8_t out[IPOIB_LLADDR_LEN])
{
    out[0] = a->flags;
    be_put(out + 1, a->qpn & IPOIB_QPN_MASK, 3);
    memcpy(out + 4, a->gid, IPOIB_GID_LEN);
}

/* Read in[20] into *a. */
void ipoib_lladdr_unpack(const uint8_t in[IPOIB_LLADDR_LEN], struct ipoib_lladdr *a)
{
    a->flags = in[0];
    a->qpn = (uint32_t)be_get(in + 1, 3);
    memcpy(a->gid, in + 4, IPOIB_GID_LEN);
}

/* True if a and b have the same QPN and GID. */
bool ipoib_lladdr_equal(const struct ipoib_lladdr *a, const struct ipoib_lladdr *b)
{
    return a->qpn == b->qpn && memcmp(a->gid, b->gid, IPOIB_GID_LEN) == 0;
}

/* gid = prefix:guid, network order. */
void ipoib_gid_make(uint64_t prefix, uint64_t guid, uint8_t gid[IPOIB_GID_LEN])
{
    be_put(gid, prefix, 8);
    be_put(gid + 8, guid, 8);
}

/* The low 64 bits of gid, host order. */
uint64_t ipoib_gid_guid(const uint8_t gid[IPOIB_GID_LEN])
{
    return be_get(gid + 8, 8);
}

/* ff12:401b:<pkey>:0:0:0 followed by the 4 bytes in tail. */
static void ipv4_mgid(uint16_t pkey, const uint8_t tail[4], uint8_t mgid[IPOIB_GID_LEN])
{
    memset(mgid, 0, IPOIB_GID_LEN);
    mgid[0] = 0xff;
    mgid[1] = 0x12; /* flags 1 (transient), scope 2 (link-local) */
    mgid[2] = 0x40;
    mgid[3] = 0x1b; /* IPv4 signature */
    be_put(mgid + 4, (uint16_t)(pkey | 0x8000), 2);
    memcpy(mgid + 12, tail, 4);
}

/* The broadcast group of partition pkey (full-member bit forced, as Linux does). */
void ipoib_bcast_mgid(uint16_t pkey, uint8_t mgid[IPOIB_GID_LEN])
{
    static const uint8_t all_ones[4] = {0xff, 0xff, 0xff, 0xff};
    ipv4_mgid(pkey, all_ones, mgid);
}

/* The group of IPv4 multicast address ip: its low 28 bits after the signature. */
void ipoib_ipv4_mcast_mgid(uint16_t pkey, uint32_t ip, uint8_t mgid[IPOIB_GID_LEN])
{
    uint8_t tail[4];
    be_put(tail, ip & 0x0FFFFFFFu, 4);
    ipv4_mgid(pkey, tail, mgid);
}

/* ethertype, then two reserved zero bytes. */
void ipoib_encap_write(uint16_t ethertype, uint8_t out[IPOIB_ENCAP_LEN])
{
    be_put(out, ethertype, 2);
    out[2] = 0;
    out[3] = 0;
}

/* The ethertype of payload, or -1 when it cannot hold the header. */
int ipoib_encap_read(const uint8_t *payload, size_t len)
{
    if (len < IPOIB_ENCAP_LEN)
        return -1;
    return (int)be_get(payload, 2);
}

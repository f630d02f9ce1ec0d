/*
 * mad.h - what every MAD user shares: the size, the address a MAD came from
 * or goes to, the verdict of an agent that handled one, the MAD status codes
 * and big-endian field access for the few bytes libibmad has no field for.
 *
 * Everything else of a MAD's layout is libibmad's (mad_get_field /
 * mad_set_field with IB_*_F): this header holds only what libibmad lacks.
 */
#ifndef PZ_MAD_H
#define PZ_MAD_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A MAD is IB_MAD_SIZE (256) bytes: libibmad's constant, used everywhere
 * (<infiniband/mad.h>).  This header does not include libibmad's: board.h
 * includes this one, and code that includes board.h next to net-snmp's
 * headers would see libibmad's xdump() clash with net-snmp's.
 */

/*
 * Where a MAD came from (rx) or goes (tx), as a switch's port-0 agent sees
 * it: the ingress/egress port, LID routing, the LRH and BTH/DETH fields.
 */
struct mad_addr {
    uint8_t port;    /* rx: ingress port; tx: egress port (DR) - ignored if lid_routed */
    bool lid_routed; /* tx: route by DLID through the LFT; rx: LRH had real LIDs */
    uint16_t slid;
    uint16_t dlid;
    uint8_t sl;
    uint32_t src_qp;
    uint32_t dst_qp;
    uint32_t qkey;
    uint16_t pkey;
};

/* What the caller must do after an agent (SMA, PMA, CC) handled or made a MAD. */
enum mad_verdict {
    MAD_DROP = 0, /* nothing to transmit */
    MAD_SEND = 1, /* transmit out[] as the out address says */
};

/* MAD status codes (IBA 13.4.7, Table 112): the Status field of a response. */
#define MAD_STATUS_OK 0x0000
#define MAD_STATUS_BUSY 0x0001
#define MAD_STATUS_REDIRECT 0x0002
#define MAD_STATUS_BAD_VERSION 0x0004     /* class version not supported */
#define MAD_STATUS_BAD_METHOD 0x0008      /* method not supported */
#define MAD_STATUS_BAD_METHOD_ATTR 0x000C /* method/attribute combination not supported */
#define MAD_STATUS_BAD_FIELD 0x001C       /* an attribute or modifier field is invalid */

/* The well-known Q_Key of QP1 (GSI): IBA 9.6.1.1. */
#define MAD_GSI_QKEY 0x80010000u

/* Write v as n (1..8) big-endian bytes at p: the fields of odd widths (24-bit QPNs, 48-bit times).
 */
static inline void mad_put_be(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Read the n (1..8) big-endian bytes at p. */
static inline uint64_t mad_get_be(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Read a big-endian 16-bit value at p. */
static inline uint16_t mad_be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* Write v big-endian at p. */
static inline void mad_put_be16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Read a big-endian 32-bit value at p. */
static inline uint32_t mad_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Write v big-endian at p. */
static inline void mad_put_be32(uint8_t *p, uint32_t v)
{
    mad_put_be16(p, (uint16_t)(v >> 16));
    mad_put_be16(p + 2, (uint16_t)v);
}

/* Read a big-endian 64-bit value at p. */
static inline uint64_t mad_be64(const uint8_t *p)
{
    return (uint64_t)mad_be32(p) << 32 | mad_be32(p + 4);
}

/* Write v big-endian at p. */
static inline void mad_put_be64(uint8_t *p, uint64_t v)
{
    mad_put_be32(p, (uint32_t)(v >> 32));
    mad_put_be32(p + 4, (uint32_t)v);
}

#endif

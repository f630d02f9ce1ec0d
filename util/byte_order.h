/*
 * byte_order.h - big-endian access to bytes in a buffer: the wire fields
 * libibmad has no field for (MADs), and the other wire formats (the
 * port-0 echo, iperf's, SNMP's transport, the ibsim protocol).  Header
 * only, no dependencies: every folder may include it.
 */
#ifndef PZ_BYTE_ORDER_H
#define PZ_BYTE_ORDER_H

#include <stdint.h>

/* Write v as n (1..8) big-endian bytes at p: the fields of odd widths (24-bit QPNs, 48-bit times).
 */
static inline void be_put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Read the n (1..8) big-endian bytes at p. */
static inline uint64_t be_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Read a big-endian 16-bit value at p. */
static inline uint16_t be16_get(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/* Write v big-endian at p. */
static inline void be16_put(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Read a big-endian 32-bit value at p. */
static inline uint32_t be32_get(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Write v big-endian at p. */
static inline void be32_put(uint8_t *p, uint32_t v)
{
    be16_put(p, (uint16_t)(v >> 16));
    be16_put(p + 2, (uint16_t)v);
}

/* Read a big-endian 64-bit value at p. */
static inline uint64_t be64_get(const uint8_t *p)
{
    return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

/* Write v big-endian at p. */
static inline void be64_put(uint8_t *p, uint64_t v)
{
    be32_put(p, (uint32_t)(v >> 32));
    be32_put(p + 4, (uint32_t)v);
}

/* Write the n 16-bit values of v big-endian at p (2n bytes): a P_Key or MFT block. */
static inline void be16_put_array(uint8_t *p, const uint16_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        be16_put(p + 2 * i, v[i]);
}

/* Read n big-endian 16-bit values at p (2n bytes) into v. */
static inline void be16_get_array(const uint8_t *p, uint16_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        v[i] = be16_get(p + 2 * i);
}

#endif

/*
 * attr_util.h - small helpers shared by the SMA attribute tests
 * (test_sma_attrs.c, test_sma_switch.c, test_sma_port_info.c,
 * test_sma_tables.c).  Header-only: every helper is static inline.
 */
#ifndef PZ_TEST_ATTR_UTIL_H
#define PZ_TEST_ATTR_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <infiniband/mad.h>

#include "pzt.h"

/* MAD status values the SMA answers with. */
#define ST_OK 0x00
#define ST_BAD_VERSION 0x04
#define ST_BAD_METHOD 0x08
#define ST_BAD_ATTR 0x0C
#define ST_BAD_FIELD 0x1C

/* Send one LID-routed SMP (method, attribute, modifier, data) from in_port/slid. */
static inline void au_request(struct pzt_node *n, unsigned in_port, uint16_t slid, unsigned method,
                              unsigned attr_id, uint32_t attr_mod, uint64_t mkey,
                              const uint8_t *data, struct pzt_result *r)
{
    uint8_t mad[PZT_MAD];

    pzt_lid_smp(mad, method, attr_id, attr_mod, mkey, n->tid++);
    if (data)
        memcpy(mad + IB_SMP_DATA_OFFS, data, PZT_DATA);
    pzt_process(n, in_port, slid, mad, r);
}

/* Check a LID-routed GetResp: method 0x81, status, echoed AttrID and AttrMod. */
static inline void au_check_resp(const struct pzt_result *r, unsigned status, unsigned attr_id,
                                 uint32_t attr_mod)
{
    uint8_t *mad = (uint8_t *)r->mad;

    assert_int_equal(r->verdict, MAD_SEND);
    assert_int_equal(mad_get_field(mad, 0, IB_MAD_METHOD_F), IB_MAD_METHOD_GET);
    assert_int_equal(mad_get_field(mad, 0, IB_MAD_RESPONSE_F), 1);
    assert_int_equal(r->status, status);
    assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRID_F), attr_id);
    assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRMOD_F), attr_mod);
}

/* Get, expecting status; the data lands in resp (64 bytes). */
static inline void au_get_expect(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod,
                                 unsigned status, uint8_t *resp)
{
    uint8_t buf[PZT_DATA];

    assert_int_equal(pzt_get(n, attr_id, attr_mod, resp ? resp : buf), (int)status);
}

/* Set, expecting status; the response data lands in resp (64 bytes). */
static inline void au_set_expect(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod,
                                 const uint8_t *data, unsigned status, uint8_t *resp)
{
    uint8_t buf[PZT_DATA];

    assert_int_equal(pzt_set(n, attr_id, attr_mod, data, resp ? resp : buf), (int)status);
}

/* Get, expecting ST_OK and the 64 data bytes want. */
static inline void au_get_equals(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod,
                                 const uint8_t *want)
{
    uint8_t r[PZT_DATA];

    au_get_expect(n, attr_id, attr_mod, ST_OK, r);
    assert_memory_equal(r, want, PZT_DATA);
}

/* Set data, expecting ST_OK and a response that reads data back. */
static inline void au_set_echoes(struct pzt_node *n, unsigned attr_id, uint32_t attr_mod,
                                 const uint8_t *data)
{
    uint8_t r[PZT_DATA];

    au_set_expect(n, attr_id, attr_mod, data, ST_OK, r);
    assert_memory_equal(r, data, PZT_DATA);
}

/*
 * libibmad describes P_KeyTable and MulticastForwardingTable blocks only as
 * whole arrays (no per-entry field), so their 16-bit big-endian entries are
 * read and written with these two helpers.
 */
static inline unsigned au_be16(const uint8_t *d, unsigned i)
{
    return (unsigned)d[2 * i] << 8 | d[2 * i + 1];
}

/* Store 16-bit entry i of a block (see au_be16). */
static inline void au_put_be16(uint8_t *d, unsigned i, unsigned v)
{
    d[2 * i] = (uint8_t)(v >> 8);
    d[2 * i + 1] = (uint8_t)v;
}

/* Whether two 64-byte SMP data areas are equal. */
static inline void au_assert_data_equal(const uint8_t *a, const uint8_t *b)
{
    assert_memory_equal(a, b, PZT_DATA);
}

#endif /* PZ_TEST_ATTR_UTIL_H */

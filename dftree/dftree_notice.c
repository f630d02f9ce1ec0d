/*
 * dftree_notice.c - the repath and fast-lane notices (dftree_notice.h):
 * build, answer, take apart.
 */
#include "dftree_notice.h"

#include <string.h>

#include <infiniband/mad.h>

/* Notice bytes of the vendor part (libibmad has no fields for them). */
#define NTC_TRAP 10        /* DataDetails 0-1: the vendor trap number */
#define NTC_HOT_LID 12     /* DataDetails 2-3: the hot-spot LID */
#define NTC_SWITCH_LID 14  /* DataDetails 4-5: the reporting switch */
#define NTC_SWITCH_PORT 16 /* DataDetails 6: its port */
#define NTC_ISSUER_GID 64  /* IssuerGID (16) */
#define NTC_LEN 80

/* Write v big-endian into n bytes at p. */
static void put_be(uint8_t *p, uint32_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Read n big-endian bytes at p. */
static uint32_t get_be(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;

    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

#define METHOD_REPORT 0x06
#define METHOD_REPORT_RESP 0x86
#define ATTR_NOTICE 0x0002

size_t dftree_notice_build(uint8_t *mad, const struct dftree_notice *n)
{
    uint8_t *ntc = mad + DFTREE_NOTICE_OFFS;

    memset(mad, 0, DFTREE_MAD_SIZE);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, DFTREE_MGMT_CLASS);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, DFTREE_CLASS_VERSION);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, METHOD_REPORT);
    mad_set_field64(mad, 0, IB_MAD_TRID_F, n->tid);
    mad_set_field(mad, 0, IB_MAD_ATTRID_F, ATTR_NOTICE);
    /* IsGeneric 0: libibmad's ProducerType and TrapNumber bits are VendorID and DeviceID. */
    mad_set_field(ntc, 0, IB_NOTICE_IS_GENERIC_F, 0);
    mad_set_field(ntc, 0, IB_NOTICE_TYPE_F, DFTREE_NOTICE_TYPE);
    mad_set_field(ntc, 0, IB_NOTICE_PRODUCER_F, n->vendor_id & 0xFFFFFF);
    mad_set_field(ntc, 0, IB_NOTICE_TRAP_NUMBER_F, n->device_id);
    mad_set_field(ntc, 0, IB_NOTICE_ISSUER_LID_F, n->issuer_lid);
    put_be(ntc + NTC_TRAP, n->trap, 2);
    put_be(ntc + NTC_HOT_LID, n->hot_lid, 2);
    put_be(ntc + NTC_SWITCH_LID, n->switch_lid, 2);
    ntc[NTC_SWITCH_PORT] = n->switch_port;
    memcpy(ntc + NTC_ISSUER_GID, n->issuer_gid, sizeof(n->issuer_gid));
    return DFTREE_MAD_SIZE;
}

void dftree_notice_answer(uint8_t *mad, uint16_t status)
{
    /* libibmad's Method field is the low 7 bits; the Response bit is its own field. */
    mad_set_field(mad, 0, IB_MAD_METHOD_F, METHOD_REPORT);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, 1);
    mad_set_field(mad, 0, IB_MAD_STATUS_F, status);
}

int dftree_notice_parse(const uint8_t *mad, size_t len, struct dftree_notice *n, const char **why)
{
    const uint8_t *ntc = mad + DFTREE_NOTICE_OFFS;
    void *m = (void *)mad; /* libibmad's getters take non-const pointers */

    if (len < DFTREE_NOTICE_OFFS + NTC_LEN) {
        *why = "shorter than a notice";
        return -1;
    }
    if (mad_get_field(m, 0, IB_MAD_BASEVER_F) != 1 ||
        mad_get_field(m, 0, IB_MAD_MGMTCLASS_F) != DFTREE_MGMT_CLASS) {
        *why = "not the dFtree class";
        return -1;
    }
    if (mad_get_field(m, 0, IB_MAD_CLASSVER_F) != DFTREE_CLASS_VERSION) {
        *why = "class version is not 1";
        return -1;
    }
    memset(n, 0, sizeof(*n));
    n->method = (uint8_t)(mad_get_field(m, 0, IB_MAD_METHOD_F) |
                          mad_get_field(m, 0, IB_MAD_RESPONSE_F) << 7);
    if (n->method != METHOD_REPORT && n->method != METHOD_REPORT_RESP) {
        *why = "not a Report or ReportResp";
        return -1;
    }
    if (mad_get_field(m, 0, IB_MAD_ATTRID_F) != ATTR_NOTICE) {
        *why = "not a Notice";
        return -1;
    }
    if (mad_get_field((void *)ntc, 0, IB_NOTICE_IS_GENERIC_F)) {
        *why = "a generic notice";
        return -1;
    }
    n->status = (uint16_t)mad_get_field(m, 0, IB_MAD_STATUS_F);
    n->tid = mad_get_field64(m, 0, IB_MAD_TRID_F);
    n->vendor_id = mad_get_field((void *)ntc, 0, IB_NOTICE_PRODUCER_F);
    n->device_id = (uint16_t)mad_get_field((void *)ntc, 0, IB_NOTICE_TRAP_NUMBER_F);
    n->issuer_lid = (uint16_t)mad_get_field((void *)ntc, 0, IB_NOTICE_ISSUER_LID_F);
    n->trap = (uint16_t)get_be(ntc + NTC_TRAP, 2);
    n->hot_lid = (uint16_t)get_be(ntc + NTC_HOT_LID, 2);
    n->switch_lid = (uint16_t)get_be(ntc + NTC_SWITCH_LID, 2);
    n->switch_port = ntc[NTC_SWITCH_PORT];
    memcpy(n->issuer_gid, ntc + NTC_ISSUER_GID, sizeof(n->issuer_gid));
    return 0;
}

const char *dftree_trap_name(uint16_t trap)
{
    switch (trap) {
    case DFTREE_TRAP_REPATH:
        return "repath";
    case DFTREE_TRAP_FAST_LANE:
        return "fast-lane";
    default:
        return "unknown";
    }
}

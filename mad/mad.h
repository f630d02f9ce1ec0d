/*
 * mad.h - what every MAD user shares: the size, the address a MAD came from
 * or goes to, the verdict of an agent that handled one, the MAD status codes
 * and the TID; big-endian access for the few bytes libibmad has no field for
 * is util/byte_order.h's (included here).
 *
 * Everything else of a MAD's layout is libibmad's (mad_get_field /
 * mad_set_field with IB_*_F): this header holds only what libibmad lacks.
 */
#ifndef PZ_MAD_H
#define PZ_MAD_H

#include <stdbool.h>
#include <stdint.h>

#include "byte_order.h"

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

/* The TransactionID of a MAD (its common header, big-endian at byte 8). */
static inline uint64_t mad_tid(const uint8_t *mad)
{
    return be64_get(mad + 8);
}

#endif

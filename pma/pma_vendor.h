/*
 * pma_vendor.h - wire layouts of portzero's vendor-specific congestion
 * monitor data: the PMA attribute PZ_CongestionMonitor (0xFF30, IBA's
 * vendor range 0xFF00-0xFFFF) and the port record of the hot-spot vendor
 * notice.  Shared by the PMA, the monitor, the tests and pz-hotspot, so the
 * offsets live in one place.  libibmad has no fields for vendor data, hence
 * byte offsets; every multi-byte value is big-endian.  pma/README.md has
 * the same layouts as tables.
 */
#ifndef PZ_PMA_VENDOR_H
#define PZ_PMA_VENDOR_H

#include <stdint.h>

#include "mad.h"

/* The attribute and its layout version (byte 0 of every record). */
#define PZ_ATTR_CONG_MONITOR 0xFF30
#define PZ_CM_LAYOUT_VERSION 1

/*
 * Everything sits in the first 160 of the 192 data bytes: Debian's
 * libumad2sim (ibsim 0.10), which pz-hotspot and the diags use against
 * the emulated fabric, hands a client only the first 224 bytes of a
 * received MAD (its receive buffer is sizeof(struct sim_request), and the
 * umad header takes 64 of it).  Data bytes 160-191 are reserved (zero).
 */
#define PZ_CM_DATA_USED 160

/* Summary: Get/Set with AttributeModifier 0 (offsets in the 192 data bytes). */
#define PZ_CM_VERSION 0        /* u8, 1 */
#define PZ_CM_NUM_PORTS 1      /* u8, N: port records 1..N */
#define PZ_CM_LOW_UTIL 2       /* u8, low-utilisation threshold, percent (Set) */
#define PZ_CM_CLEAR 3          /* u8, clear level, percent of the threshold (Set) */
#define PZ_CM_INTERVAL 4       /* u32, sampling interval, ms (Set) */
#define PZ_CM_THRESHOLD 8      /* u64, congestion threshold, XmitWait ticks/s (Set) */
#define PZ_CM_SAMPLES 16       /* u32, sampling rounds so far (sticks at 2^32-1) */
#define PZ_CM_INVALID 20       /* u32, discarded port samples (sticky) */
#define PZ_CM_EVENTS 24        /* u32, class changes so far (sticky) */
#define PZ_CM_HISTORY 28       /* u8, samples kept per port (Set) */
#define PZ_CM_TICK_NS 30       /* u16, XmitWait tick, ns */
#define PZ_CM_HOTSPOT_MASK 32  /* 32-byte port masks: port p is bit p % 8 */
#define PZ_CM_LOW_UTIL_MASK 64 /* of byte 31 - p / 8 (IBA PortMask order) */
#define PZ_CM_CONGESTED_MASK 96
#define PZ_CM_CA_MASK 128 /* ports whose peer is a CA */
#define PZ_CM_MASK_BYTES 32

/* Port record: Get with AttributeModifier p = 1..N. */
#define PZ_CMP_VERSION 0      /* u8, 1 */
#define PZ_CMP_PORT 1         /* u8, p */
#define PZ_CMP_CLASS 2        /* u8, enum cong_port_class */
#define PZ_CMP_PEER 3         /* u8, enum cong_peer */
#define PZ_CMP_FLAGS 4        /* u8, PZ_CMP_F_* */
#define PZ_CMP_HIST_COUNT 5   /* u8, history entries that follow (<= PZ_CMP_HIST_MAX) */
#define PZ_CMP_UTIL 6         /* u16, utilisation, per mille of the link rate */
#define PZ_CMP_CONGESTION 8   /* u64, XmitWait ticks/s */
#define PZ_CMP_BANDWIDTH 16   /* u64, transmitted bytes/s */
#define PZ_CMP_LINK_RATE 24   /* u64, link data rate, bits/s (0: link down) */
#define PZ_CMP_SAMPLE_TIME 32 /* u64, board time of the newest sample, ns (0: none yet) */
#define PZ_CMP_SINCE 40       /* u64, board time of the last class change, ns */
#define PZ_CMP_CHANGES 48     /* u32, class changes */
#define PZ_CMP_INVALID 52     /* u32, discarded samples */
#define PZ_CMP_NOW 56         /* u64, board time of this answer, ns */
#define PZ_CMP_HIST 64        /* PZ_CMP_HIST_MAX entries, newest first */
#define PZ_CMP_HIST_ENTRY 32
#define PZ_CMP_HIST_MAX 3

#define PZ_CMP_F_VALID 0x01   /* at least one complete interval measured */
#define PZ_CMP_F_LINK_UP 0x02 /* link up with a known rate */

/* One history entry (offsets inside the entry). */
#define PZ_CMH_TIME 0       /* u64, board time, ns */
#define PZ_CMH_CONGESTION 8 /* u64, ticks/s */
#define PZ_CMH_BANDWIDTH 16 /* u64, bytes/s */
#define PZ_CMH_UTIL 24      /* u16, per mille */
#define PZ_CMH_CLASS 26     /* u8, class after this sample */

/*
 * Port record of a hot-spot vendor notice (cong_event_notice()); the SMA
 * puts it at DataDetails byte 4, after the vendor trap number (bytes 0-1)
 * and the switch's LIDADDR (bytes 2-3).  Offsets inside the record.
 */
#define PZ_CMN_PORT 0       /* u8 */
#define PZ_CMN_CLASS 1      /* u8, class after the change */
#define PZ_CMN_PREV_CLASS 2 /* u8, class before it */
#define PZ_CMN_PEER 3       /* u8 */
#define PZ_CMN_CONGESTION 4 /* u64, ticks/s */
#define PZ_CMN_BANDWIDTH 12 /* u64, bytes/s */
#define PZ_CMN_UTIL 20      /* u16, per mille */
#define PZ_CMN_LINK_RATE 24 /* u64, bits/s */
#define PZ_CMN_TIME 32      /* u64, board time of the sample, ns */
#define PZ_CMN_CHANGES 40   /* u32 */
#define PZ_CMN_INTERVAL 44  /* u32, sampling interval, ms */
#define PZ_CMN_LEN 50

/* Set port's bit in a 32-byte IBA-order port mask. */
static inline void pz_mask_set(uint8_t *mask, unsigned port)
{
    mask[PZ_CM_MASK_BYTES - 1 - port / 8] |= (uint8_t)(1u << (port % 8));
}

/* Whether port's bit is set in a 32-byte IBA-order port mask. */
static inline int pz_mask_test(const uint8_t *mask, unsigned port)
{
    return (mask[PZ_CM_MASK_BYTES - 1 - port / 8] >> (port % 8)) & 1;
}

#endif /* PZ_PMA_VENDOR_H */

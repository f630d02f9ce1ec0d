/*
 * dftree_notice.h - the dFtree repath notices: what pz-dftree (the manager)
 * sends to a contributor's host so that the host moves its flows to a
 * hot-spot onto the slow lane (repath) or back onto the fast lane.
 *
 * A vendor Notice (IBA 14.2.5.1, IsGeneric 0) in a MAD of the vendor class
 * 0x0A (IBA's vendor range 1, no OUI), method Report (0x06), attribute
 * Notice (0x0002), modifier 0, class version 1; the Notice lies at MAD byte
 * 64, as the GS classes' data (dftree/README.md has the table).  The host
 * answers ReportResp (0x86) with the same TID, status 0 (done, or nothing to
 * move) or 0x1C (a field it refuses: another trap number, a hot-spot LID
 * that is not a unicast LID of an end port); it drops (no answer) a notice
 * of another vendor or device or from an issuer it does not know.
 *
 * Pure: no I/O; fields through libibmad's Notice fields where it has them.
 */
#ifndef PZ_DFTREE_NOTICE_H
#define PZ_DFTREE_NOTICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DFTREE_MAD_SIZE 256
#define DFTREE_MGMT_CLASS 0x0A /* vendor range 1 (0x09-0x0F): no OUI */
#define DFTREE_CLASS_VERSION 1
#define DFTREE_NOTICE_OFFS 64     /* the Notice in the MAD */
#define DFTREE_NOTICE_TYPE 4      /* informational */
#define DFTREE_VENDOR_ID 0x0002C9 /* portzero's switches' NodeInfo.VendorID */
#define DFTREE_DEVICE_ID 0x7A70   /* portzero's NodeInfo.DeviceID ("pz") */

/* Vendor trap numbers (DataDetails bytes 0-1); the switches' own are 0x0001/0x0002. */
#define DFTREE_TRAP_REPATH 0x0101    /* flows to the hot-spot LID: to the slow lane */
#define DFTREE_TRAP_FAST_LANE 0x0102 /* flows to the hot-spot LID: back to the fast lane */

/* MAD status a host answers a notice it refuses with (IBA: invalid attribute value). */
#define DFTREE_STATUS_INVALID 0x001C

/* A decoded repath notice. */
struct dftree_notice {
    uint8_t method;  /* 0x06 Report, 0x86 ReportResp */
    uint16_t status; /* MAD status (an answer's) */
    uint64_t tid;
    uint32_t vendor_id; /* 24 bits */
    uint16_t device_id;
    uint16_t issuer_lid; /* the manager's port LID */
    uint16_t trap;       /* DFTREE_TRAP_* */
    uint16_t hot_lid;    /* the hot-spot's LID */
    uint16_t switch_lid; /* the switch that reported it (0: unknown) */
    uint8_t switch_port; /* its port facing the hot-spot */
    uint8_t issuer_gid[16];
};

/*
 * Build a repath (DFTREE_TRAP_REPATH) or fast-lane (DFTREE_TRAP_FAST_LANE)
 * Report into mad (DFTREE_MAD_SIZE bytes) from n (method, status ignored).
 * Returns DFTREE_MAD_SIZE.
 */
size_t dftree_notice_build(uint8_t *mad, const struct dftree_notice *n);

/* Turn the Report in mad into its ReportResp with status (in place). */
void dftree_notice_answer(uint8_t *mad, uint16_t status);

/*
 * Take apart a MAD of len bytes as a repath notice or its answer.  Returns
 * 0 and fills *n, or -1 with the reason in *why (not this class, version,
 * method or attribute, a generic notice, too short).  Vendor, device and
 * trap number are returned, not checked: the receiver decides.
 */
int dftree_notice_parse(const uint8_t *mad, size_t len, struct dftree_notice *n, const char **why);

/* The name of a trap number: "repath", "fast-lane" or "unknown". */
const char *dftree_trap_name(uint16_t trap);

#endif

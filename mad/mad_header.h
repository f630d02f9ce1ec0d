/*
 * mad_header.h - the header of a MAD this side sends: the common MAD header
 * (IBA 13.4.2) and a directed-route SMP's fields (14.2.1.2), written with
 * libibmad's fields, on a zeroed IB_MAD_SIZE buffer.
 */
#ifndef PZ_MAD_HEADER_H
#define PZ_MAD_HEADER_H

#include <stdint.h>

/*
 * Zero mad (IB_MAD_SIZE bytes) and write BaseVersion 1, the class, its
 * version, the method (0x80 set: a response, e.g. 0x81 GetResp), the TID,
 * the attribute ID and modifier.
 */
void mad_header_init(uint8_t *mad, unsigned mgmt_class, unsigned class_version, unsigned method,
                     uint64_t tid, unsigned attr_id, uint32_t attr_mod);

/*
 * A directed-route SMP's route: HopCount, HopPointer, DrSLID, DrDLID and
 * InitialPath[1..hop_cnt] from path[1..hop_cnt] (path may be NULL: all 0).
 */
void mad_dr_init(uint8_t *mad, unsigned hop_cnt, unsigned hop_ptr, uint16_t drslid, uint16_t drdlid,
                 const uint8_t *path);

#endif /* PZ_MAD_HEADER_H */

/*
 * mad_header.c - the headers of the MADs this side sends (see mad_header.h).
 */
#include "mad_header.h"

#include <string.h>

#include <infiniband/mad.h>

void mad_header_init(uint8_t *mad, unsigned mgmt_class, unsigned class_version, unsigned method,
                     uint64_t tid, unsigned attr_id, uint32_t attr_mod)
{
    memset(mad, 0, IB_MAD_SIZE);
    mad_set_field(mad, 0, IB_MAD_BASEVER_F, 1);
    mad_set_field(mad, 0, IB_MAD_MGMTCLASS_F, mgmt_class);
    mad_set_field(mad, 0, IB_MAD_CLASSVER_F, class_version);
    mad_set_field(mad, 0, IB_MAD_METHOD_F, method & 0x7F);
    mad_set_field(mad, 0, IB_MAD_RESPONSE_F, method >> 7);
    mad_set_field64(mad, 0, IB_MAD_TRID_F, tid);
    mad_set_field(mad, 0, IB_MAD_ATTRID_F, attr_id);
    mad_set_field(mad, 0, IB_MAD_ATTRMOD_F, attr_mod);
}

/*
 * InitialPath is written byte by byte: libibmad describes it only as one
 * 64-byte array (IB_DRSMP_PATH_F), and a caller's path may be shorter.
 */
void mad_dr_init(uint8_t *mad, unsigned hop_cnt, unsigned hop_ptr, uint16_t drslid, uint16_t drdlid,
                 const uint8_t *path)
{
    uint8_t initial[64] = {0};

    mad_set_field(mad, 0, IB_DRSMP_HOPCNT_F, hop_cnt);
    mad_set_field(mad, 0, IB_DRSMP_HOPPTR_F, hop_ptr);
    mad_set_field(mad, 0, IB_DRSMP_DRSLID_F, drslid);
    mad_set_field(mad, 0, IB_DRSMP_DRDLID_F, drdlid);
    for (unsigned i = 1; path && i <= hop_cnt && i < sizeof(initial); i++)
        initial[i] = path[i];
    mad_set_array(mad, 0, IB_DRSMP_PATH_F, initial);
}

/*
 * sma_switch.c - SwitchInfo, LinearForwardingTable, MulticastForwardingTable.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "sma_internal.h"

#define SMA_MLID_BASE 0xC000
#define SMA_MFT_TOP_NONE 0xBFFF

/* SwitchInfo Get. */
uint16_t sma_switch_info_get(struct sma *sma, struct sma_req *req)
{
    const struct board_identity *id = sma->board->id;
    uint8_t *d = req->out;

    if (req->attr_mod != 0)
        return MAD_STATUS_BAD_FIELD;
    mad_set_field(d, 0, IB_SW_LINEAR_FDB_CAP_F, id->lft_cap);
    mad_set_field(d, 0, IB_SW_RANDOM_FDB_CAP_F, 0);
    mad_set_field(d, 0, IB_SW_MCAST_FDB_CAP_F, id->mft_cap);
    mad_set_field(d, 0, IB_SW_LINEAR_FDB_TOP_F, sma->lft_top);
    mad_set_field(d, 0, IB_SW_DEF_PORT_F, sma->default_port);
    mad_set_field(d, 0, IB_SW_DEF_MCAST_PRIM_F, sma->default_mcast_primary);
    mad_set_field(d, 0, IB_SW_DEF_MCAST_NOT_PRIM_F, sma->default_mcast_not_primary);
    mad_set_field(d, 0, IB_SW_LIFE_TIME_F, sma->life_time);
    mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, sma->port_state_change);
    mad_set_field(d, 0, IB_SW_OPT_SLTOVL_MAPPING_F, id->optimized_sl2vl);
    mad_set_field(d, 0, IB_SW_LIDS_PER_PORT_F, 0);
    mad_set_field(d, 0, IB_SW_PARTITION_ENFORCE_CAP_F, id->partition_enforcement_cap);
    mad_set_field(d, 0, IB_SW_PARTITION_ENF_INB_F, id->enforcement_caps);
    mad_set_field(d, 0, IB_SW_PARTITION_ENF_OUTB_F, id->enforcement_caps);
    mad_set_field(d, 0, IB_SW_FILTER_RAW_INB_F, id->enforcement_caps);
    mad_set_field(d, 0, IB_SW_FILTER_RAW_OUTB_F, id->enforcement_caps);
    mad_set_field(d, 0, IB_SW_ENHANCED_PORT0_F, id->enhanced_port0);
    mad_set_field(d, 0, IB_SW_MCAST_FDB_TOP_F, sma->mft_top);
    return MAD_STATUS_OK;
}

/* Whether a default-port field names a port of this switch (or none, 0xFF). */
static bool sma_default_port_ok(const struct sma *sma, unsigned port)
{
    return port <= sma->num_ports || port == 0xFF;
}

/* Whether v is an acceptable MulticastFDBTop. */
static bool sma_mft_top_ok(const struct sma *sma, unsigned v)
{
    return v == 0 || v == SMA_MFT_TOP_NONE ||
           (v >= SMA_MLID_BASE && v < SMA_MLID_BASE + (unsigned)sma->board->id->mft_cap);
}

/* SwitchInfo Set: LinearFDBTop, default ports, LifeTimeValue, PortStateChange
 * (write 1 to clear), MulticastFDBTop.  Everything else is read-only. */
uint16_t sma_switch_info_set(struct sma *sma, struct sma_req *req)
{
    uint8_t *in = (uint8_t *)req->in;
    unsigned lft_top = mad_get_field(in, 0, IB_SW_LINEAR_FDB_TOP_F);
    unsigned def = mad_get_field(in, 0, IB_SW_DEF_PORT_F);
    unsigned mprim = mad_get_field(in, 0, IB_SW_DEF_MCAST_PRIM_F);
    unsigned mnot = mad_get_field(in, 0, IB_SW_DEF_MCAST_NOT_PRIM_F);
    unsigned mft_top = mad_get_field(in, 0, IB_SW_MCAST_FDB_TOP_F);

    if (req->attr_mod != 0)
        return MAD_STATUS_BAD_FIELD;
    if (lft_top >= sma->board->id->lft_cap || !sma_default_port_ok(sma, def) ||
        !sma_default_port_ok(sma, mprim) || !sma_default_port_ok(sma, mnot) ||
        !sma_mft_top_ok(sma, mft_top)) {
        sma_switch_info_get(sma, req);
        return MAD_STATUS_BAD_FIELD;
    }
    sma->lft_top = (uint16_t)lft_top;
    board_set_lft_top(sma->board, sma->lft_top);
    sma->default_port = (uint8_t)def;
    sma->default_mcast_primary = (uint8_t)mprim;
    sma->default_mcast_not_primary = (uint8_t)mnot;
    sma->life_time = (uint8_t)mad_get_field(in, 0, IB_SW_LIFE_TIME_F);
    if (mad_get_field(in, 0, IB_SW_STATE_CHANGE_F))
        sma->port_state_change = false;
    sma->mft_top = (uint16_t)mft_top;
    return sma_switch_info_get(sma, req);
}

/* Whether block is a LinearForwardingTable block within LinearFDBCap. */
static bool sma_lft_block_ok(const struct sma *sma, uint32_t block)
{
    /* 64-bit arithmetic: a modifier near 2^32 must not wrap to block 0. */
    return ((uint64_t)block + 1) * BOARD_LFT_BLOCK <= sma->board->id->lft_cap;
}

/* LinearForwardingTable Get: 64 egress ports of one block. */
uint16_t sma_lft_get(struct sma *sma, struct sma_req *req)
{
    uint8_t entries[BOARD_LFT_BLOCK];

    if (!sma_lft_block_ok(sma, req->attr_mod) || board_lft_get(sma->board, req->attr_mod, entries))
        return MAD_STATUS_BAD_FIELD;
    mad_set_array(req->out, 0, IB_LINEAR_FORW_TBL_F, entries);
    return MAD_STATUS_OK;
}

/* LinearForwardingTable Set. */
uint16_t sma_lft_set(struct sma *sma, struct sma_req *req)
{
    uint8_t entries[BOARD_LFT_BLOCK];

    if (!sma_lft_block_ok(sma, req->attr_mod))
        return MAD_STATUS_BAD_FIELD;
    mad_get_array((void *)req->in, 0, IB_LINEAR_FORW_TBL_F, entries);
    if (board_lft_set(sma->board, req->attr_mod, entries))
        return MAD_STATUS_BAD_FIELD;
    return sma_lft_get(sma, req);
}

/* Split a MulticastForwardingTable modifier; false if it is out of range. */
static bool sma_mft_mod(const struct sma *sma, uint32_t mod, unsigned *block, unsigned *pos)
{
    unsigned positions = (sma->num_ports + 1 + 15) / 16;

    *block = mod & 0x1FF;
    *pos = mod >> 28;
    return (mod & 0x0FFFFE00u) == 0 && *pos < positions &&
           (*block + 1) * BOARD_MFT_BLOCK <= sma->board->id->mft_cap;
}

/*
 * MulticastForwardingTable Get: 32 port masks.  libibmad has the block only
 * as one 64-byte field (IB_MULTICAST_FORW_TBL_F), so the 16-bit big-endian
 * masks are converted here.
 */
uint16_t sma_mft_get(struct sma *sma, struct sma_req *req)
{
    uint16_t masks[BOARD_MFT_BLOCK];
    unsigned block, pos;

    if (!sma_mft_mod(sma, req->attr_mod, &block, &pos) ||
        board_mft_get(sma->board, block, pos, masks))
        return MAD_STATUS_BAD_FIELD;
    be16_put_array(req->out, masks, BOARD_MFT_BLOCK);
    return MAD_STATUS_OK;
}

/* MulticastForwardingTable Set. */
uint16_t sma_mft_set(struct sma *sma, struct sma_req *req)
{
    uint16_t masks[BOARD_MFT_BLOCK];
    unsigned block, pos;

    if (!sma_mft_mod(sma, req->attr_mod, &block, &pos))
        return MAD_STATUS_BAD_FIELD;
    be16_get_array(req->in, masks, BOARD_MFT_BLOCK);
    if (board_mft_set(sma->board, block, pos, masks))
        return MAD_STATUS_BAD_FIELD;
    return sma_mft_get(sma, req);
}

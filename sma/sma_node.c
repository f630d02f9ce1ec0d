/*
 * sma_node.c - NodeInfo, NodeDescription and GUIDInfo.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "sma_internal.h"

#define SMA_GUIDS_PER_BLOCK 8

/* libibmad's fields for the 8 GUIDs of a GUIDInfo block. */
static const enum MAD_FIELDS sma_guid_f[SMA_GUIDS_PER_BLOCK] = {
    IB_GI_GUID0_F, IB_GI_GUID1_F, IB_GI_GUID2_F, IB_GI_GUID3_F,
    IB_GI_GUID4_F, IB_GI_GUID5_F, IB_GI_GUID6_F, IB_GI_GUID7_F,
};

/* The port GUID an SMP entering on in_port reports (switch: port 0's). */
static uint64_t sma_port_guid(const struct sma *sma, unsigned in_port)
{
    const struct board_identity *id = sma->board->id;

    if (sma->is_switch)
        return id->port_guid[0];
    return id->port_guid[in_port >= 1 && in_port <= sma->num_ports ? in_port : 1];
}

/* NodeInfo Get: identity of the node; LocalPortNum is the ingress port. */
uint16_t sma_node_info_get(struct sma *sma, struct sma_req *req)
{
    const struct board_identity *id = sma->board->id;
    uint8_t *d = req->out;

    if (req->attr_mod != 0)
        return MAD_STATUS_BAD_FIELD;
    mad_set_field(d, 0, IB_NODE_BASE_VERS_F, 1);
    mad_set_field(d, 0, IB_NODE_CLASS_VERS_F, 1);
    mad_set_field(d, 0, IB_NODE_TYPE_F, id->node_type);
    mad_set_field(d, 0, IB_NODE_NPORTS_F, id->num_ports);
    mad_set_field64(d, 0, IB_NODE_SYSTEM_GUID_F, sma->system_image_guid);
    mad_set_field64(d, 0, IB_NODE_GUID_F, id->node_guid);
    mad_set_field64(d, 0, IB_NODE_PORT_GUID_F, sma_port_guid(sma, req->in_port));
    mad_set_field(d, 0, IB_NODE_PARTITION_CAP_F, id->partition_cap);
    mad_set_field(d, 0, IB_NODE_DEVID_F, id->device_id);
    mad_set_field(d, 0, IB_NODE_REVISION_F, id->revision);
    mad_set_field(d, 0, IB_NODE_LOCAL_PORT_F, req->in_port);
    mad_set_field(d, 0, IB_NODE_VENDORID_F, id->vendor_id & 0xFFFFFF);
    return MAD_STATUS_OK;
}

/* NodeDescription Get: the 64-byte description. */
uint16_t sma_node_desc_get(struct sma *sma, struct sma_req *req)
{
    if (req->attr_mod != 0)
        return MAD_STATUS_BAD_FIELD;
    memcpy(req->out, sma->node_desc, sizeof(sma->node_desc));
    return MAD_STATUS_OK;
}

/* NodeDescription Set, allowed because CapabilityMask2 advertises it. */
uint16_t sma_node_desc_set(struct sma *sma, struct sma_req *req)
{
    if (!(req->ep->capmask2 & SMA_CAP2_SET_NODE_DESC))
        return MAD_STATUS_BAD_METHOD_ATTR;
    if (req->attr_mod != 0)
        return MAD_STATUS_BAD_FIELD;
    memcpy(sma->node_desc, req->in, sizeof(sma->node_desc));
    return sma_node_desc_get(sma, req);
}

unsigned sma_guid_cap(const struct sma *sma)
{
    unsigned cap = sma->board->id->guid_cap;

    if (cap == 0)
        cap = 1;
    return cap > SMA_MAX_GUIDS ? SMA_MAX_GUIDS : cap;
}

/* Whether GUIDInfo block exists for an end port of cap GUIDs. */
static bool sma_guid_block_ok(unsigned cap, unsigned block)
{
    return block < (cap + SMA_GUIDS_PER_BLOCK - 1) / SMA_GUIDS_PER_BLOCK;
}

/* GUIDInfo Get: block of 8 GUIDs; GUID 0 is the port GUID. */
uint16_t sma_guid_info_get(struct sma *sma, struct sma_req *req)
{
    unsigned cap = sma_guid_cap(sma), block = req->attr_mod;

    if (!sma_guid_block_ok(cap, block))
        return MAD_STATUS_BAD_FIELD;
    for (unsigned i = 0; i < SMA_GUIDS_PER_BLOCK; i++) {
        unsigned idx = block * SMA_GUIDS_PER_BLOCK + i;
        uint64_t guid = 0;

        if (idx == 0)
            guid = sma_port_guid(sma, req->in_port);
        else if (idx < cap)
            guid = req->ep->alias_guid[idx];
        mad_set_field64(req->out, 0, sma_guid_f[i], guid);
    }
    return MAD_STATUS_OK;
}

/* GUIDInfo Set: alias GUIDs (entry 0, the port GUID, is read-only). */
uint16_t sma_guid_info_set(struct sma *sma, struct sma_req *req)
{
    unsigned cap = sma_guid_cap(sma), block = req->attr_mod;

    if (!sma_guid_block_ok(cap, block))
        return MAD_STATUS_BAD_FIELD;
    for (unsigned i = 0; i < SMA_GUIDS_PER_BLOCK; i++) {
        unsigned idx = block * SMA_GUIDS_PER_BLOCK + i;

        if (idx > 0 && idx < cap)
            req->ep->alias_guid[idx] = mad_get_field64((void *)req->in, 0, sma_guid_f[i]);
    }
    return sma_guid_info_get(sma, req);
}

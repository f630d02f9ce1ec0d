/*
 * sma_mlnx.c - MlnxExtPortInfo (vendor SMP attribute 0xFF90), as Mellanox
 * devices answer it.
 *
 * OpenSM (with its fdr10 option, on by default) reads this attribute from
 * every port of a node whose DeviceID it knows as a Mellanox FDR10 device
 * (is_mlnx_ext_port_info_supported() in osm_subnet.c), logs ERR 3111 for
 * each port that answers an error, and sets StateChangeEnable and
 * LinkSpeedEnabled = FDR10 where LinkSpeedSupported has FDR10.  The layout is
 * OpenSM's ib_mlnx_ext_port_info_t; libibmad names its fields
 * IB_MLNX_EXT_PORT_*_F.
 *
 * Nodes whose VendorID is Mellanox's (0x02C9) answer it; others answer
 * 0x0C, like any unsupported attribute.  A port supports FDR10 when its
 * LinkSpeedExtSupported has FDR (FDR10 is the FDR-generation signalling at
 * QDR-era lane rates); switch port 0 has no link and supports none.
 * LinkSpeedEnabled starts as LinkSpeedSupported (as on hardware) and takes
 * any subset of it; another value is rejected with 0x1C and the port left as
 * it was.  LinkSpeedActive is 0: the emulated links train at the IBA speeds
 * PortInfo reports, never at FDR10.  The AttributeModifier is the port
 * number (0 on a CA: the port the SMP arrived on), any other bit is 0x1C.
 */
#include <string.h>

#include <infiniband/mad.h>

#include "sma_internal.h"

#define SMA_MLNX_VENDOR_ID 0x0002c9u
#define SMA_MLNX_FDR10 0x01u /* LinkSpeed* bit: FDR10 */
#define SMA_MLNX_PORT_MASK 0xFFu
#define SMA_SPEED_EXT_FDR 0x01u /* LinkSpeedExtSupported bit: FDR */

/* Whether this node is a Mellanox device (answers the attribute). */
static bool sma_mlnx_vendor(const struct sma *sma)
{
    return sma->board->id->vendor_id == SMA_MLNX_VENDOR_ID;
}

/* The port the SMP selects; returns false for a bad modifier or port. */
static bool sma_mlnx_port(const struct sma *sma, const struct sma_req *req, unsigned *port)
{
    unsigned p = req->attr_mod & SMA_MLNX_PORT_MASK;

    if (req->attr_mod & ~SMA_MLNX_PORT_MASK)
        return false;
    if (!sma->is_switch && p == 0)
        p = req->in_port;
    *port = p;
    return p <= sma->num_ports && (sma->is_switch || p >= 1);
}

/* LinkSpeedSupported of port p: FDR10 on an FDR-capable physical port. */
static unsigned sma_mlnx_supported(const struct sma *sma, unsigned p)
{
    if (sma->is_switch && p == 0)
        return 0;
    return (sma->board->id->speed_ext_supported & SMA_SPEED_EXT_FDR) ? SMA_MLNX_FDR10 : 0;
}

/* Fill the response with port p's fields; returns 0 (success). */
static uint16_t sma_mlnx_fill(struct sma *sma, struct sma_req *req, unsigned p)
{
    const struct sma_port *sp = &sma->ports[p];
    unsigned supported = sma_mlnx_supported(sma, p);

    memset(req->out, 0, SMA_DATA_SIZE);
    mad_set_field(req->out, 0, IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, sp->mlnx_state_change_enable);
    mad_set_field(req->out, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, supported);
    mad_set_field(req->out, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F,
                  supported & ~sp->mlnx_speed_disabled);
    mad_set_field(req->out, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, 0);
    return MAD_STATUS_OK;
}

uint16_t sma_mlnx_ext_port_info_get(struct sma *sma, struct sma_req *req)
{
    unsigned p;

    if (!sma_mlnx_vendor(sma))
        return MAD_STATUS_BAD_METHOD_ATTR;
    if (!sma_mlnx_port(sma, req, &p)) {
        memset(req->out, 0, SMA_DATA_SIZE);
        return MAD_STATUS_BAD_FIELD;
    }
    return sma_mlnx_fill(sma, req, p);
}

uint16_t sma_mlnx_ext_port_info_set(struct sma *sma, struct sma_req *req)
{
    unsigned p, supported, enabled, sce;

    if (!sma_mlnx_vendor(sma))
        return MAD_STATUS_BAD_METHOD_ATTR;
    if (!sma_mlnx_port(sma, req, &p)) {
        memset(req->out, 0, SMA_DATA_SIZE);
        return MAD_STATUS_BAD_FIELD;
    }
    supported = sma_mlnx_supported(sma, p);
    enabled = mad_get_field((void *)req->in, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F);
    sce = mad_get_field((void *)req->in, 0, IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F);
    if (enabled & ~supported) {
        sma_mlnx_fill(sma, req, p);
        return MAD_STATUS_BAD_FIELD;
    }
    sma->ports[p].mlnx_state_change_enable = (uint8_t)(sce & 0x01);
    sma->ports[p].mlnx_speed_disabled = (uint8_t)(supported & ~enabled);
    return sma_mlnx_fill(sma, req, p);
}

/*
 * pma_attrs.c - the counter attributes that are a plain array of equally wide
 * counters: PortRcvErrorDetails, PortXmitDiscardDetails, PortOpRcvCounters,
 * PortFlowCtlCounters, the per-VL and per-SL counters and the congestion
 * counters.
 *
 * All share one layout: OpCode or reserved in data byte 0, PortSelect in
 * byte 1, CounterSelect in bytes 2-3 (bit i resets counter i), counters from
 * byte 4 on.  Values saturate at their field width; a Set resets the selected
 * counters (of this attribute only) and answers with the values after it.
 */
#include <infiniband/mad.h>

#include "pma_internal.h"

/* One array attribute: counters first_ctr.. go to fields first_field.. */
struct pma_block_attr {
    uint16_t attr_id;
    enum MAD_FIELDS first_field; /* libibmad fields of the counters are consecutive */
    uint8_t count;
    uint8_t width;
    uint16_t first_ctr;
    bool switch_only;
    bool opcode; /* data byte 0 is an OpCode the response echoes */
};

static const struct pma_block_attr pma_block_attrs[] = {
    {IB_GSI_PORT_RCV_ERROR_DETAILS, IB_PC_RCV_LOCAL_PHY_ERR_F, 6, 16, PMA_CTR(local_phy_errors),
     false, false},
    {IB_GSI_PORT_XMIT_DISCARD_DETAILS, IB_PC_XMT_INACT_DISC_F, 4, 16, PMA_CTR(inactive_discards),
     false, false},
    {IB_GSI_PORT_PORT_OP_RCV_COUNTERS, IB_PC_PORT_OP_RCV_PKTS_F, 2, 32, PMA_CTR(op_rcv_pkts), false,
     true},
    {IB_GSI_PORT_PORT_FLOW_CTL_COUNTERS, IB_PC_PORT_XMIT_FLOW_PKTS_F, 2, 32,
     PMA_CTR(xmit_flow_pkts), false, false},
    {IB_GSI_PORT_PORT_VL_OP_PACKETS, IB_PC_PORT_VL_OP_PACKETS0_F, 16, 16, PMA_CTR(vl_op_packets),
     false, true},
    {IB_GSI_PORT_PORT_VL_OP_DATA, IB_PC_PORT_VL_OP_DATA0_F, 16, 32, PMA_CTR(vl_op_data), false,
     true},
    {IB_GSI_PORT_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS, IB_PC_PORT_VL_XMIT_FLOW_CTL_UPDATE_ERRORS0_F,
     16, 2, PMA_CTR(vl_xmit_flow_ctl_update_errors), false, false},
    {IB_GSI_PORT_PORT_VL_XMIT_WAIT_COUNTERS, IB_PC_PORT_VL_XMIT_WAIT0_F, 16, 16,
     PMA_CTR(vl_xmit_wait), false, false},
    {IB_GSI_SW_PORT_VL_CONGESTION, IB_PC_SW_PORT_VL_CONGESTION0_F, 16, 16,
     PMA_CTR(sw_port_vl_congestion), true, false},
    {IB_GSI_PORT_RCV_CON_CTRL, IB_PC_RCV_CON_CTRL_PKT_RCV_FECN_F, 2, 32, PMA_CTR(pkt_rcv_fecn),
     false, false},
    {IB_GSI_PORT_SL_RCV_FECN, IB_PC_SL_RCV_FECN0_F, 16, 32, PMA_CTR(rcv_fecn_sl), false, false},
    {IB_GSI_PORT_SL_RCV_BECN, IB_PC_SL_RCV_BECN0_F, 16, 32, PMA_CTR(rcv_becn_sl), false, false},
    {IB_GSI_PORT_XMIT_CON_CTRL, IB_PC_XMIT_CON_CTRL_TIME_CONG_F, 1, 32, PMA_CTR(xmit_time_cong),
     false, false},
    {IB_GSI_PORT_VL_XMIT_TIME_CONG, IB_PC_VL_XMIT_TIME_CONG0_F, 15, 32, PMA_CTR(vl_xmit_time_cong),
     false, false},
    {IB_GSI_PORT_XMIT_DATA_SL, IB_PC_XMT_DATA_SL0_F, 16, 32, PMA_CTR(xmit_data_sl), false, false},
    {IB_GSI_PORT_RCV_DATA_SL, IB_PC_RCV_DATA_SL0_F, 16, 32, PMA_CTR(rcv_data_sl), false, false},
};

/* The descriptor of attr_id on this node, or NULL. */
static const struct pma_block_attr *pma_find_block(const struct pma *pma, unsigned attr_id)
{
    for (size_t i = 0; i < sizeof(pma_block_attrs) / sizeof(pma_block_attrs[0]); i++) {
        const struct pma_block_attr *b = &pma_block_attrs[i];

        if (b->attr_id == attr_id)
            return b->switch_only && !pma->is_switch ? NULL : b;
    }
    return NULL;
}

bool pma_block_attr_known(const struct pma *pma, unsigned attr_id)
{
    return pma_find_block(pma, attr_id) != NULL;
}

/*
 * Echo data bytes 0-3 (OpCode or reserved, PortSelect, CounterSelect) of the
 * request; returns the PortSelect.  libibmad names no OpCode field for these
 * attributes, so byte 0 is copied as is.
 */
static unsigned pma_block_echo(const struct pma_block_attr *b, const struct pma_req *req)
{
    void *in = (void *)req->in;
    unsigned ps = mad_get_field(in, 0, IB_PC_PORT_SELECT_F);

    if (b->opcode)
        req->out[0] = req->in[0];
    mad_set_field(req->out, 0, IB_PC_PORT_SELECT_F, ps);
    mad_set_field(req->out, 0, IB_PC_COUNTER_SELECT_F,
                  mad_get_field(in, 0, IB_PC_COUNTER_SELECT_F));
    return ps;
}

/* Fill the counters of b for port_select. */
static void pma_block_put(const struct pma *pma, const struct pma_block_attr *b,
                          unsigned port_select, uint8_t *data)
{
    for (unsigned i = 0; i < b->count; i++) {
        uint64_t v = pma_view_value(pma, port_select, PMA_VIEW_ATTR, b->first_ctr + i);

        mad_set_field(data, 0, (enum MAD_FIELDS)(b->first_field + i),
                      (uint32_t)gmp_saturate(v, b->width));
    }
}

uint16_t pma_block_get(struct pma *pma, struct pma_req *req)
{
    const struct pma_block_attr *b = pma_find_block(pma, req->attr_id);
    unsigned ps = pma_block_echo(b, req);
    uint16_t status = pma_check_port_select(pma, ps);

    if (status)
        return status;
    pma_refresh(pma, ps);
    pma_block_put(pma, b, ps, req->out);
    return MAD_STATUS_OK;
}

uint16_t pma_block_set(struct pma *pma, struct pma_req *req)
{
    const struct pma_block_attr *b = pma_find_block(pma, req->attr_id);
    void *in = (void *)req->in;
    unsigned ps = mad_get_field(in, 0, IB_PC_PORT_SELECT_F);
    unsigned select = mad_get_field(in, 0, IB_PC_COUNTER_SELECT_F);
    bool any = false;

    if (pma_check_port_select(pma, ps))
        return MAD_STATUS_BAD_FIELD;
    pma_refresh(pma, ps);
    for (unsigned i = 0; i < b->count; i++) {
        if (select >> i & 1) {
            pma_view_reset(pma, ps, PMA_VIEW_ATTR, b->first_ctr + i);
            any = true;
        }
    }
    if (any)
        pma->stats.counter_resets++;
    return pma_block_get(pma, req);
}

/*
 * cc_settings.c - the congestion settings a congestion manager programs:
 * SwitchCongestionSetting and SwitchPortCongestionSetting on a switch,
 * CACongestionSetting and CongestionControlTable on a CA.
 *
 * The agent stores them for the datapath (cc_get_switch_setting() and
 * friends); a Set is validated whole before anything is applied.
 */
#include <infiniband/mad.h>

#include "cc_internal.h"

/* The attribute data of a CC MAD (offset 64). */
static uint8_t *cc_data(uint8_t *mad)
{
    return mad + GMP_DATA_OFFS;
}

/* Same, read-only, for requests. */
static void *cc_in_data(const struct cc_req *req)
{
    return (void *)(req->in + GMP_DATA_OFFS);
}

uint16_t cc_switch_setting_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *d = cc_data(req->out);
    const struct cc_switch_setting *s = &cc->sw;

    mad_set_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F, s->control_map);
    mad_set_array(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F, (void *)s->victim_mask);
    mad_set_array(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CREDIT_MASK_F, (void *)s->credit_mask);
    mad_set_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F, s->threshold);
    mad_set_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F, s->packet_size);
    mad_set_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F, s->cs_threshold);
    mad_set_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F, s->cs_return_delay);
    mad_set_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F, s->marking_rate);
    return MAD_STATUS_OK;
}

uint16_t cc_switch_setting_set(struct cc_agent *cc, struct cc_req *req)
{
    void *d = cc_in_data(req);
    struct cc_switch_setting *s = &cc->sw;
    uint32_t map = mad_get_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CONTROL_MAP_F);

    s->control_map = map;
    if (map & CC_CTRL_VICTIM_MASK)
        mad_get_array(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_VICTIM_MASK_F, s->victim_mask);
    if (map & CC_CTRL_CREDIT_MASK)
        mad_get_array(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CREDIT_MASK_F, s->credit_mask);
    if (map & CC_CTRL_THRESHOLD) {
        s->threshold = (uint8_t)mad_get_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_THRESHOLD_F);
        s->packet_size =
            (uint8_t)mad_get_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_PACKET_SIZE_F);
    }
    if (map & CC_CTRL_CS) {
        s->cs_threshold =
            (uint8_t)mad_get_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CS_THRESHOLD_F);
        s->cs_return_delay =
            (uint16_t)mad_get_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_CS_RETURN_DELAY_F);
    }
    if (map & CC_CTRL_MARKING_RATE)
        s->marking_rate =
            (uint16_t)mad_get_field(d, 0, IB_CC_SWITCH_CONGESTION_SETTING_MARKING_RATE_F);
    return cc_switch_setting_get(cc, req);
}

/* Number of SwitchPortCongestionSetting blocks: ports 0..N, 32 per block. */
static unsigned cc_port_blocks(const struct cc_agent *cc)
{
    return cc->num_ports / CC_PORTS_PER_BLOCK + 1;
}

uint16_t cc_port_setting_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *d = cc_data(req->out);
    unsigned block = req->attr_mod;

    if (block >= cc_port_blocks(cc))
        return MAD_STATUS_BAD_FIELD;
    for (unsigned i = 0; i < CC_PORTS_PER_BLOCK; i++) {
        unsigned port = block * CC_PORTS_PER_BLOCK + i;
        const struct cc_port_setting *p = &cc->ports[port];
        uint8_t *e = d + 4 * i;

        if (port > cc->num_ports)
            break;
        mad_set_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_VALID_F, p->valid);
        mad_set_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONTROL_TYPE_F,
                      p->control_type);
        mad_set_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_THRESHOLD_F, p->threshold);
        mad_set_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_PACKET_SIZE_F,
                      p->packet_size);
        mad_set_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONG_PARM_MARKING_RATE_F,
                      p->cong_parm);
    }
    return MAD_STATUS_OK;
}

uint16_t cc_port_setting_set(struct cc_agent *cc, struct cc_req *req)
{
    const uint8_t *d = req->in + GMP_DATA_OFFS;
    unsigned block = req->attr_mod;

    if (block >= cc_port_blocks(cc))
        return MAD_STATUS_BAD_FIELD;
    for (unsigned i = 0; i < CC_PORTS_PER_BLOCK; i++) {
        unsigned port = block * CC_PORTS_PER_BLOCK + i;
        struct cc_port_setting *p = &cc->ports[port];
        void *e = (void *)(d + 4 * i);

        if (port > cc->num_ports)
            break; /* elements past the last port are ignored */
        p->valid = mad_get_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_VALID_F);
        p->control_type = (uint8_t)mad_get_field(
            e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONTROL_TYPE_F);
        p->threshold =
            (uint8_t)mad_get_field(e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_THRESHOLD_F);
        p->packet_size = (uint8_t)mad_get_field(
            e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_PACKET_SIZE_F);
        p->cong_parm = (uint16_t)mad_get_field(
            e, 0, IB_CC_SWITCH_PORT_CONGESTION_SETTING_ELEMENT_CONG_PARM_MARKING_RATE_F);
    }
    return cc_port_setting_get(cc, req);
}

/* CACongestionSetting: Port_Control, Control_Map, then 16 entries of 8 bytes. */
#define CC_CA_ENTRY_OFFS 4
#define CC_CA_ENTRY_SIZE 8

uint16_t cc_ca_setting_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *d = cc_data(req->out);

    mad_set_field(d, 0, IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F, cc->ca_port_control);
    mad_set_field(d, 0, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F, cc->ca_control_map);
    for (unsigned sl = 0; sl < CC_CA_SLS; sl++) {
        uint8_t *e = d + CC_CA_ENTRY_OFFS + CC_CA_ENTRY_SIZE * sl;

        mad_set_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F, cc->ca[sl].ccti_timer);
        mad_set_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_CCTI_INCREASE_F, cc->ca[sl].ccti_increase);
        mad_set_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_TRIGGER_THRESHOLD_F,
                      cc->ca[sl].trigger_threshold);
        mad_set_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F, cc->ca[sl].ccti_min);
    }
    return MAD_STATUS_OK;
}

/* Applies Port_Control, and the entries of the SLs whose Control_Map bit is set. */
uint16_t cc_ca_setting_set(struct cc_agent *cc, struct cc_req *req)
{
    const uint8_t *d = req->in + GMP_DATA_OFFS;
    unsigned map = mad_get_field((void *)d, 0, IB_CC_CA_CONGESTION_SETTING_CONTROL_MAP_F);

    cc->ca_port_control =
        (uint16_t)mad_get_field((void *)d, 0, IB_CC_CA_CONGESTION_SETTING_PORT_CONTROL_F);
    cc->ca_control_map = (uint16_t)map;
    for (unsigned sl = 0; sl < CC_CA_SLS; sl++) {
        void *e = (void *)(d + CC_CA_ENTRY_OFFS + CC_CA_ENTRY_SIZE * sl);
        struct cc_ca_entry *c = &cc->ca[sl];

        if (!(map >> sl & 1))
            continue;
        c->ccti_timer = (uint16_t)mad_get_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_CCTI_TIMER_F);
        c->ccti_increase = (uint8_t)mad_get_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_CCTI_INCREASE_F);
        c->trigger_threshold =
            (uint8_t)mad_get_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_TRIGGER_THRESHOLD_F);
        c->ccti_min = (uint8_t)mad_get_field(e, 0, IB_CC_CA_CONGESTION_ENTRY_CCTI_MIN_F);
    }
    return cc_ca_setting_get(cc, req);
}

/* CongestionControlTable: CCTI_Limit, then 64 two-byte entries from data byte 4. */
#define CC_CCT_ENTRY_OFFS 4

uint16_t cc_cct_get(struct cc_agent *cc, struct cc_req *req)
{
    uint8_t *d = cc_data(req->out);
    unsigned block = req->attr_mod;

    if (block >= CC_CCT_BLOCKS)
        return MAD_STATUS_BAD_FIELD;
    mad_set_field(d, 0, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F, cc->ccti_limit);
    for (unsigned j = 0; j < CC_CCT_PER_BLOCK; j++) {
        uint16_t v = cc->cct[block * CC_CCT_PER_BLOCK + j];
        uint8_t *e = d + CC_CCT_ENTRY_OFFS + 2 * j;

        mad_set_field(e, 0, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F, v >> 14);
        mad_set_field(e, 0, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F, v & 0x3FFF);
    }
    return MAD_STATUS_OK;
}

uint16_t cc_cct_set(struct cc_agent *cc, struct cc_req *req)
{
    const uint8_t *d = req->in + GMP_DATA_OFFS;
    unsigned block = req->attr_mod;
    unsigned limit = mad_get_field((void *)d, 0, IB_CC_CONGESTION_CONTROL_TABLE_CCTI_LIMIT_F);

    if (block >= CC_CCT_BLOCKS || limit >= CC_CCT_ENTRIES)
        return MAD_STATUS_BAD_FIELD;
    cc->ccti_limit = (uint16_t)limit;
    for (unsigned j = 0; j < CC_CCT_PER_BLOCK; j++) {
        void *e = (void *)(d + CC_CCT_ENTRY_OFFS + 2 * j);
        unsigned shift = mad_get_field(e, 0, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_SHIFT_F);
        unsigned mult = mad_get_field(e, 0, IB_CC_CONGESTION_CONTROL_TABLE_ENTRY_CCT_MULTIPLIER_F);

        cc->cct[block * CC_CCT_PER_BLOCK + j] = (uint16_t)(shift << 14 | mult);
    }
    return cc_cct_get(cc, req);
}

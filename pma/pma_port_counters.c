/*
 * pma_port_counters.c - PortCounters (0x12) and PortCountersExtended (0x1D).
 *
 * PortCounters shows each counter saturated at its field width (sticky at
 * all-ones, never wrapping); PortCountersExtended shows 64-bit values.  Each
 * has its own baselines.  A PortCounters reset of a data counter
 * (CounterSelect bits 12-15) also resets the same counter of the extended
 * view, as on hardware whose 32-bit data counters are the low words of the
 * 64-bit ones, so `perfquery -R` clears both; error counters, XmitWait and
 * QP1Dropped (OpenSM's CounterSelect 0x0FFF reset) stay separate, and a
 * PortCountersExtended reset never touches PortCounters.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "pma_internal.h"

/* libibmad's IB_PC_QP1_DROP_F sits on VL15Dropped (bytes 22-23); see below. */
#define PMA_FIELD_QP1_DROPPED_HAND IB_NO_FIELD
#define PMA_PC_QP1_DROPPED_OFFS 20

/* One counter of a view: where it goes, how wide it is, which select bit resets it. */
struct pma_view_entry {
    enum MAD_FIELDS field; /* IB_NO_FIELD: hand-packed (QP1Dropped) */
    uint8_t width;
    uint8_t sel; /* bit of CounterSelect | CounterSelect2 << 16 */
    uint16_t ctr;
    bool data; /* PortCounters data counter: a reset also clears the extended view */
};

/* PortCounters: CounterSelect bits 0-15, CounterSelect2 bit 0 XmitWait, bit 1 QP1Dropped. */
static const struct pma_view_entry pma_pc_entries[] = {
    {IB_PC_ERR_SYM_F, 16, 0, PMA_CTR(symbol_errors), false},
    {IB_PC_LINK_RECOVERS_F, 8, 1, PMA_CTR(link_error_recovery), false},
    {IB_PC_LINK_DOWNED_F, 8, 2, PMA_CTR(link_downed), false},
    {IB_PC_ERR_RCV_F, 16, 3, PMA_CTR(rcv_errors), false},
    {IB_PC_ERR_PHYSRCV_F, 16, 4, PMA_CTR(rcv_remote_phys_errors), false},
    {IB_PC_ERR_SWITCH_REL_F, 16, 5, PMA_CTR(rcv_switch_relay_errors), false},
    {IB_PC_XMT_DISCARDS_F, 16, 6, PMA_CTR(xmit_discards), false},
    {IB_PC_ERR_XMTCONSTR_F, 8, 7, PMA_CTR(xmit_constraint_errors), false},
    {IB_PC_ERR_RCVCONSTR_F, 8, 8, PMA_CTR(rcv_constraint_errors), false},
    {IB_PC_ERR_LOCALINTEG_F, 4, 9, PMA_CTR(local_link_integrity_errors), false},
    {IB_PC_ERR_EXCESS_OVR_F, 4, 10, PMA_CTR(excessive_buffer_overrun_errors), false},
    {IB_PC_VL15_DROPPED_F, 16, 11, PMA_CTR(vl15_dropped), false},
    {IB_PC_XMT_BYTES_F, 32, 12, PMA_CTR(xmit_data), true},
    {IB_PC_RCV_BYTES_F, 32, 13, PMA_CTR(rcv_data), true},
    {IB_PC_XMT_PKTS_F, 32, 14, PMA_CTR(xmit_pkts), true},
    {IB_PC_RCV_PKTS_F, 32, 15, PMA_CTR(rcv_pkts), true},
    {IB_PC_XMT_WAIT_F, 32, 16, PMA_CTR(xmit_wait), false},
    {PMA_FIELD_QP1_DROPPED_HAND, 16, 17, PMA_CTR(qp1_dropped), false},
};

/*
 * PortCountersExtended: CounterSelect bits 0-7 the data counters,
 * CounterSelect2 bits 0-13 the IB 1.3 additional counters.
 */
static const struct pma_view_entry pma_pce_entries[] = {
    {IB_PC_EXT_XMT_BYTES_F, 64, 0, PMA_CTR(xmit_data), false},
    {IB_PC_EXT_RCV_BYTES_F, 64, 1, PMA_CTR(rcv_data), false},
    {IB_PC_EXT_XMT_PKTS_F, 64, 2, PMA_CTR(xmit_pkts), false},
    {IB_PC_EXT_RCV_PKTS_F, 64, 3, PMA_CTR(rcv_pkts), false},
    {IB_PC_EXT_XMT_UPKTS_F, 64, 4, PMA_CTR(unicast_xmit_pkts), false},
    {IB_PC_EXT_RCV_UPKTS_F, 64, 5, PMA_CTR(unicast_rcv_pkts), false},
    {IB_PC_EXT_XMT_MPKTS_F, 64, 6, PMA_CTR(multicast_xmit_pkts), false},
    {IB_PC_EXT_RCV_MPKTS_F, 64, 7, PMA_CTR(multicast_rcv_pkts), false},
    {IB_PC_EXT_ERR_SYM_F, 64, 16, PMA_CTR(symbol_errors), false},
    {IB_PC_EXT_LINK_RECOVERS_F, 64, 17, PMA_CTR(link_error_recovery), false},
    {IB_PC_EXT_LINK_DOWNED_F, 64, 18, PMA_CTR(link_downed), false},
    {IB_PC_EXT_ERR_RCV_F, 64, 19, PMA_CTR(rcv_errors), false},
    {IB_PC_EXT_ERR_PHYSRCV_F, 64, 20, PMA_CTR(rcv_remote_phys_errors), false},
    {IB_PC_EXT_ERR_SWITCH_REL_F, 64, 21, PMA_CTR(rcv_switch_relay_errors), false},
    {IB_PC_EXT_XMT_DISCARDS_F, 64, 22, PMA_CTR(xmit_discards), false},
    {IB_PC_EXT_ERR_XMTCONSTR_F, 64, 23, PMA_CTR(xmit_constraint_errors), false},
    {IB_PC_EXT_ERR_RCVCONSTR_F, 64, 24, PMA_CTR(rcv_constraint_errors), false},
    {IB_PC_EXT_ERR_LOCALINTEG_F, 64, 25, PMA_CTR(local_link_integrity_errors), false},
    {IB_PC_EXT_ERR_EXCESS_OVR_F, 64, 26, PMA_CTR(excessive_buffer_overrun_errors), false},
    {IB_PC_EXT_VL15_DROPPED_F, 64, 27, PMA_CTR(vl15_dropped), false},
    {IB_PC_EXT_XMT_WAIT_F, 64, 28, PMA_CTR(xmit_wait), false},
    {IB_PC_EXT_QP1_DROP_F, 64, 29, PMA_CTR(qp1_dropped), false},
};

#define PMA_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Write PortCounters.QP1Dropped (data bytes 20-21, big-endian).  Hand-packed:
 * libibmad 44's IB_PC_QP1_DROP_F is declared at bit offset 160 without the
 * BITSOFFS conversion its neighbours use, so it reads and writes bytes 22-23,
 * which hold VL15Dropped.
 */
static void pma_put_qp1_dropped(uint8_t *data, uint64_t v)
{
    data[PMA_PC_QP1_DROPPED_OFFS] = (uint8_t)(v >> 8);
    data[PMA_PC_QP1_DROPPED_OFFS + 1] = (uint8_t)v;
}

/* Write one view entry's value (saturated to its width) into data. */
static void pma_put_entry(uint8_t *data, const struct pma_view_entry *e, uint64_t v)
{
    v = gmp_saturate(v, e->width);
    if (e->field == PMA_FIELD_QP1_DROPPED_HAND)
        pma_put_qp1_dropped(data, v);
    else if (e->width == 64)
        mad_set_field64(data, 0, e->field, v);
    else
        mad_set_field(data, 0, e->field, (uint32_t)v);
}

/* Fill data with every entry of a view for port_select. */
static void pma_put_view(const struct pma *pma, uint8_t *data, unsigned port_select,
                         enum pma_view view, const struct pma_view_entry *entries, size_t n)
{
    for (size_t i = 0; i < n; i++)
        pma_put_entry(data, &entries[i], pma_view_value(pma, port_select, view, entries[i].ctr));
}

/*
 * Reset the entries of view whose select bit is set; a data entry of
 * PortCounters also resets the extended view.  Returns whether anything was
 * selected.
 */
static bool pma_reset_view(struct pma *pma, unsigned port_select, enum pma_view view,
                           const struct pma_view_entry *entries, size_t n, uint64_t select)
{
    bool any = false;

    for (size_t i = 0; i < n; i++) {
        if (!(select >> entries[i].sel & 1))
            continue;
        pma_view_reset(pma, port_select, view, entries[i].ctr);
        if (entries[i].data)
            pma_view_reset(pma, port_select, PMA_VIEW_PCE, entries[i].ctr);
        any = true;
    }
    return any;
}

/* One of the two attributes: its select fields, its view, its counters. */
struct pma_pc_attr {
    enum MAD_FIELDS port_select, counter_select, counter_select2;
    enum pma_view view;
    const struct pma_view_entry *entries;
    size_t num_entries;
};

/* PortCounters: select fields, view, counters. */
static const struct pma_pc_attr pma_pc_attr = {IB_PC_PORT_SELECT_F,     IB_PC_COUNTER_SELECT_F,
                                               IB_PC_COUNTER_SELECT2_F, PMA_VIEW_PC,
                                               pma_pc_entries,          PMA_NELEM(pma_pc_entries)};

/* PortCountersExtended: select fields, view, counters. */
static const struct pma_pc_attr pma_pce_attr = {
    IB_PC_EXT_PORT_SELECT_F, IB_PC_EXT_COUNTER_SELECT_F, IB_PC_EXT_COUNTER_SELECT2_F, PMA_VIEW_PCE,
    pma_pce_entries,         PMA_NELEM(pma_pce_entries)};

/* Echo PortSelect, CounterSelect and CounterSelect2 of request req; returns PortSelect. */
static unsigned pma_pc_echo(const struct pma_pc_attr *a, const struct pma_req *req)
{
    void *in = (void *)req->in;
    unsigned ps = mad_get_field(in, 0, a->port_select);

    mad_set_field(req->out, 0, a->port_select, ps);
    mad_set_field(req->out, 0, a->counter_select, mad_get_field(in, 0, a->counter_select));
    mad_set_field(req->out, 0, a->counter_select2, mad_get_field(in, 0, a->counter_select2));
    return ps;
}

/* Answer a Get of attribute a; returns the MAD status. */
static uint16_t pma_pc_attr_get(const struct pma_pc_attr *a, struct pma *pma, struct pma_req *req)
{
    unsigned ps = pma_pc_echo(a, req);
    uint16_t status = pma_check_port_select(pma, ps);

    if (status)
        return status;
    pma_refresh(pma, ps);
    pma_put_view(pma, req->out, ps, a->view, a->entries, a->num_entries);
    return MAD_STATUS_OK;
}

/* Answer a Set of attribute a: reset the selected counters, then answer as a Get. */
static uint16_t pma_pc_attr_set(const struct pma_pc_attr *a, struct pma *pma, struct pma_req *req)
{
    void *in = (void *)req->in;
    unsigned ps = mad_get_field(in, 0, a->port_select);
    uint64_t select = mad_get_field(in, 0, a->counter_select) |
                      (uint64_t)mad_get_field(in, 0, a->counter_select2) << 16;

    if (pma_check_port_select(pma, ps))
        return MAD_STATUS_BAD_FIELD;
    pma_refresh(pma, ps);
    if (pma_reset_view(pma, ps, a->view, a->entries, a->num_entries, select))
        pma->stats.counter_resets++;
    return pma_pc_attr_get(a, pma, req);
}

uint16_t pma_pc_get(struct pma *pma, struct pma_req *req)
{
    return pma_pc_attr_get(&pma_pc_attr, pma, req);
}

uint16_t pma_pc_set(struct pma *pma, struct pma_req *req)
{
    return pma_pc_attr_set(&pma_pc_attr, pma, req);
}

uint16_t pma_pce_get(struct pma *pma, struct pma_req *req)
{
    return pma_pc_attr_get(&pma_pce_attr, pma, req);
}

uint16_t pma_pce_set(struct pma *pma, struct pma_req *req)
{
    return pma_pc_attr_set(&pma_pce_attr, pma, req);
}

int pma_clear_counters(struct pma *pma, unsigned port_select)
{
    if (pma_check_port_select(pma, port_select))
        return -EINVAL;
    pma_refresh(pma, port_select);
    /* Every select bit: CounterSelect 0xFFFF and CounterSelect2 0xFFFF. */
    pma_reset_view(pma, port_select, PMA_VIEW_PC, pma_pc_entries, PMA_NELEM(pma_pc_entries),
                   0xFFFFFFFFull);
    pma_reset_view(pma, port_select, PMA_VIEW_PCE, pma_pce_entries, PMA_NELEM(pma_pce_entries),
                   0xFFFFFFFFull);
    pma->stats.counter_resets++;
    return 0;
}

int pma_port_counters_since_reset(struct pma *pma, unsigned port, struct pma_counters *c)
{
    uint64_t v[PMA_NCTR];

    if (port > pma->num_ports || pma_check_port_select(pma, port))
        return -EINVAL;
    pma_refresh(pma, port);
    memset(v, 0, sizeof(v));
    for (size_t i = 0; i < PMA_NELEM(pma_pce_entries); i++)
        v[pma_pce_entries[i].ctr] = pma_view_value(pma, port, PMA_VIEW_PCE, pma_pce_entries[i].ctr);
    for (size_t i = 0; i < PMA_NELEM(pma_pc_entries); i++)
        if (!pma_pc_entries[i].data)
            v[pma_pc_entries[i].ctr] =
                pma_view_value(pma, port, PMA_VIEW_PC, pma_pc_entries[i].ctr);
    memcpy(&c->total, v, sizeof(c->total));
    return 0;
}

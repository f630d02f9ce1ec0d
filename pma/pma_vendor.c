/*
 * pma_vendor.c - the vendor-specific PMA attribute PZ_CongestionMonitor
 * (0xFF30): the congestion monitor's state for a performance manager.
 *
 * Get with AttributeModifier 0 answers the summary, with 1..N that port's
 * record; Set with modifier 0 changes the monitor's tunables.  The layout is
 * in pma_vendor.h and pma/README.md.  libibmad has no fields for vendor
 * attributes, so the data is packed by hand, big-endian at fixed offsets.
 * Served only while a monitor is attached (pma_set_cong_monitor()); without
 * one the attribute is unknown (0x0C).
 */
#include <string.h>

#include "cong_monitor.h"
#include "pma_internal.h"
#include "pma_vendor.h"

/* XmitWait counts ticks of 1 us here (PortSamplesControl.Tick 249, pma_samples.c). */
#define PZ_CM_XMIT_WAIT_TICK_NS 1000

_Static_assert(PZ_CM_CA_MASK + PZ_CM_MASK_BYTES <= PZ_CM_DATA_USED, "summary too long");
_Static_assert(PZ_CMP_HIST + PZ_CMP_HIST_MAX * PZ_CMP_HIST_ENTRY <= PZ_CM_DATA_USED,
               "port record too long");

void pma_set_cong_monitor(struct pma *pma, struct cong_monitor *m)
{
    pma->cong = m;
}

/* v clamped to 32 bits (sticky counters in the summary). */
static uint32_t pma_vendor_u32(uint64_t v)
{
    return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* Fill the summary into out. */
static void pma_vendor_summary(const struct pma *pma, uint8_t *out)
{
    const struct cong_monitor *m = pma->cong;
    struct cong_monitor_config cfg;
    struct cong_monitor_stats st;
    unsigned n = cong_monitor_num_ports(m);

    cong_monitor_get_config(m, &cfg);
    cong_monitor_get_stats(m, &st);
    out[PZ_CM_VERSION] = PZ_CM_LAYOUT_VERSION;
    out[PZ_CM_NUM_PORTS] = (uint8_t)n;
    out[PZ_CM_LOW_UTIL] = cfg.low_util_percent;
    out[PZ_CM_CLEAR] = cfg.clear_percent;
    be_put(out + PZ_CM_INTERVAL, cfg.interval_ms, 4);
    be_put(out + PZ_CM_THRESHOLD, cfg.threshold_ticks, 8);
    be_put(out + PZ_CM_SAMPLES, pma_vendor_u32(st.samples), 4);
    be_put(out + PZ_CM_INVALID, pma_vendor_u32(st.invalid), 4);
    be_put(out + PZ_CM_EVENTS, pma_vendor_u32(st.events), 4);
    out[PZ_CM_HISTORY] = cfg.history;
    be_put(out + PZ_CM_TICK_NS, PZ_CM_XMIT_WAIT_TICK_NS, 2);
    for (unsigned p = 1; p <= n; p++) {
        struct cong_port_view v;

        cong_monitor_port(m, p, &v);
        if (v.cls == CONG_PORT_HOTSPOT)
            pz_mask_set(out + PZ_CM_HOTSPOT_MASK, p);
        else if (v.cls == CONG_PORT_LOW_UTIL)
            pz_mask_set(out + PZ_CM_LOW_UTIL_MASK, p);
        else if (v.cls == CONG_PORT_CONGESTED)
            pz_mask_set(out + PZ_CM_CONGESTED_MASK, p);
        if (v.peer == CONG_PEER_CA)
            pz_mask_set(out + PZ_CM_CA_MASK, p);
    }
}

/* Fill port's record into out. */
static void pma_vendor_port(const struct pma *pma, unsigned port, uint8_t *out)
{
    struct cong_sample hist[PZ_CMP_HIST_MAX];
    struct cong_port_view v;
    unsigned n;

    cong_monitor_port(pma->cong, port, &v);
    n = cong_monitor_history(pma->cong, port, hist, PZ_CMP_HIST_MAX);
    out[PZ_CMP_VERSION] = PZ_CM_LAYOUT_VERSION;
    out[PZ_CMP_PORT] = (uint8_t)port;
    out[PZ_CMP_CLASS] = v.cls;
    out[PZ_CMP_PEER] = v.peer;
    out[PZ_CMP_FLAGS] =
        (uint8_t)((v.valid ? PZ_CMP_F_VALID : 0) | (v.link_bps ? PZ_CMP_F_LINK_UP : 0));
    out[PZ_CMP_HIST_COUNT] = (uint8_t)n;
    be_put(out + PZ_CMP_UTIL, v.last.util_permille, 2);
    be_put(out + PZ_CMP_CONGESTION, v.last.congestion, 8);
    be_put(out + PZ_CMP_BANDWIDTH, v.last.bandwidth, 8);
    be_put(out + PZ_CMP_LINK_RATE, v.link_bps, 8);
    be_put(out + PZ_CMP_SAMPLE_TIME, v.last.time_ns, 8);
    be_put(out + PZ_CMP_SINCE, v.since_ns, 8);
    be_put(out + PZ_CMP_CHANGES, v.changes, 4);
    be_put(out + PZ_CMP_INVALID, v.invalid, 4);
    be_put(out + PZ_CMP_NOW, board_now_ns(pma->board), 8);
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = out + PZ_CMP_HIST + i * PZ_CMP_HIST_ENTRY;

        be_put(e + PZ_CMH_TIME, hist[i].time_ns, 8);
        be_put(e + PZ_CMH_CONGESTION, hist[i].congestion, 8);
        be_put(e + PZ_CMH_BANDWIDTH, hist[i].bandwidth, 8);
        be_put(e + PZ_CMH_UTIL, hist[i].util_permille, 2);
        e[PZ_CMH_CLASS] = hist[i].cls;
    }
}

uint16_t pma_vendor_get(struct pma *pma, struct pma_req *req)
{
    if (req->attr_mod == 0) {
        pma_vendor_summary(pma, req->out);
        return MAD_STATUS_OK;
    }
    if (req->attr_mod > cong_monitor_num_ports(pma->cong))
        return MAD_STATUS_BAD_FIELD;
    pma_vendor_port(pma, req->attr_mod, req->out);
    return MAD_STATUS_OK;
}

uint16_t pma_vendor_set(struct pma *pma, struct pma_req *req)
{
    const uint8_t *in = req->in;
    struct cong_monitor_config cfg;

    /* Only the summary's tunables can be set; port records are read-only. */
    if (req->attr_mod != 0 || in[PZ_CM_VERSION] != PZ_CM_LAYOUT_VERSION)
        return MAD_STATUS_BAD_FIELD;
    cong_monitor_get_config(pma->cong, &cfg);
    cfg.interval_ms = (uint32_t)be_get(in + PZ_CM_INTERVAL, 4);
    cfg.threshold_ticks = be_get(in + PZ_CM_THRESHOLD, 8);
    cfg.low_util_percent = in[PZ_CM_LOW_UTIL];
    cfg.clear_percent = in[PZ_CM_CLEAR];
    cfg.history = in[PZ_CM_HISTORY];
    /*
     * A rejected value (or no memory for a longer history, which the class
     * has no status for) leaves the monitor as it was: answered 0x1C.
     */
    if (cong_monitor_set_config(pma->cong, &cfg) != 0)
        return MAD_STATUS_BAD_FIELD;
    pma_vendor_summary(pma, req->out);
    return MAD_STATUS_OK;
}

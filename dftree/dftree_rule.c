/*
 * dftree_rule.c - the contributor rule and link data rates (dftree_rule.h).
 */
#include "dftree_rule.h"

#define NS 1000000000ull

/* Lanes of a LinkWidthActive value (1x, 4x, 8x, 12x, 2x), 0 if unknown. */
static unsigned dt_lanes(unsigned width)
{
    switch (width) {
    case 1:
        return 1;
    case 2:
        return 4;
    case 4:
        return 8;
    case 8:
        return 12;
    case 16:
        return 2;
    default:
        return 0;
    }
}

/* Data rate of one lane in Mb/s (after line coding), 0 if unknown. */
static uint64_t dt_lane_mbps(unsigned speed, unsigned ext)
{
    switch (ext) { /* an extended speed wins over the base one */
    case 1:
        return 13636; /* FDR: 14.0625 Gbaud, 64b/66b */
    case 2:
        return 25000; /* EDR: 25.78125 Gbaud, 64b/66b */
    case 4:
        return 50000; /* HDR */
    case 8:
        return 100000; /* NDR */
    default:
        break;
    }
    switch (speed) {
    case 1:
        return 2000; /* SDR: 2.5 Gbaud, 8b/10b */
    case 2:
        return 4000; /* DDR */
    case 4:
        return 8000; /* QDR */
    default:
        return 0;
    }
}

uint64_t dt_link_data_bps(unsigned width_active, unsigned speed_active, unsigned ext_active)
{
    return (uint64_t)dt_lanes(width_active) * dt_lane_mbps(speed_active, ext_active) * 1000000u;
}

void dt_rule_apply(const struct dt_rule *r, const struct dt_reading *a, const struct dt_reading *b,
                   uint64_t link_bps, struct dt_figures *out)
{
    uint64_t dt = b->at_ns - a->at_ns, util;

    *out = (struct dt_figures){.why = "no measurement"};
    if (b->at_ns <= a->at_ns || b->xmit_words < a->xmit_words || b->xmit_wait < a->xmit_wait ||
        !link_bps) {
        out->why =
            link_bps ? "no valid interval (time or counters went back)" : "link rate unknown";
        return;
    }
    out->valid = true;
    /* PortXmitWait ticks per second: the PMA's tick is the monitor's (PortSamplesControl.Tick). */
    out->congestion =
        (uint64_t)((double)(b->xmit_wait - a->xmit_wait) * (double)NS / (double)dt + 0.5);
    out->bandwidth =
        (uint64_t)((double)(b->xmit_words - a->xmit_words) * 4.0 * (double)NS / (double)dt + 0.5);
    util = (uint64_t)((double)out->bandwidth * 8.0 * 1000.0 / (double)link_bps + 0.5);
    out->util_permille = util > 1000 ? 1000 : (unsigned)util;
    if (out->congestion < r->threshold)
        out->why = "congestion below the threshold";
    else if (out->util_permille >= r->low_util_pct * 10)
        out->why = "utilisation not low (a congested sender, not a contributor)";
    else {
        out->contributor = true;
        out->why = "congested with low utilisation";
    }
}

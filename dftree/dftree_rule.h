/*
 * dftree_rule.h - the dFtree paper's contributor rule, pure: from two
 * counter readings of an end node's port, its congestion (XmitWait ticks
 * per second) and utilisation; a contributor to a hot-spot is an end node
 * whose congestion is at or above the threshold while its utilisation is
 * below the low-utilisation level.  The threshold, the level and the tick
 * come from the reporting switch's congestion monitor (PZ_CongestionMonitor
 * 0xFF30 summary), the readings from the end nodes' PMAs
 * (PortCountersExtended: PortXmitData, PortXmitWait).
 */
#ifndef PZ_DFTREE_RULE_H
#define PZ_DFTREE_RULE_H

#include <stdbool.h>
#include <stdint.h>

/* The switch monitor's settings the rule uses. */
struct dt_rule {
    uint64_t threshold;    /* congestion threshold, XmitWait ticks/s (> 0) */
    unsigned low_util_pct; /* low-utilisation level, percent (1..100) */
};

/* One counter reading of a port: 64-bit PortXmitData (words), PortXmitWait, when (ns). */
struct dt_reading {
    uint64_t xmit_words;
    uint64_t xmit_wait;
    uint64_t at_ns;
};

/* What the rule found for one port. */
struct dt_figures {
    bool valid;             /* the readings make a measurement */
    uint64_t congestion;    /* XmitWait ticks/s */
    uint64_t bandwidth;     /* bytes/s */
    unsigned util_permille; /* of link_bps, capped at 1000 */
    bool contributor;
    const char *why; /* the decision in words */
};

/*
 * Apply the rule to the readings a (earlier) and b of a port whose link
 * carries link_bps of data (PortXmitWait in the monitor's tick, 1 us on
 * portzero and pzfabric).  Invalid when no time passed, a counter went back, or the link
 * rate is unknown.
 */
void dt_rule_apply(const struct dt_rule *r, const struct dt_reading *a, const struct dt_reading *b,
                   uint64_t link_bps, struct dt_figures *out);

/*
 * The data rate of a link in bits/s from PortInfo's LinkWidthActive,
 * LinkSpeedActive and LinkSpeedExtActive (IBA encodings); 0 if unknown.
 */
uint64_t dt_link_data_bps(unsigned width_active, unsigned speed_active, unsigned ext_active);

#endif /* PZ_DFTREE_RULE_H */

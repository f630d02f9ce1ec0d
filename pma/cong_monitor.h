/*
 * cong_monitor.h - the switch's local congestion monitor (dFtree).
 *
 * Every interval the monitor reads two counters of every external port,
 * PortXmitWait (ticks of 1 us with data to send and nothing sent) and
 * PortXmitData (4-byte words), and derives per port:
 *   Congestion  = dXmitWait / interval            (ticks per second)
 *   Bandwidth   = dXmitData * 4 / interval        (bytes per second)
 *   Utilisation = Bandwidth / link data rate      (from PortInfo width, speed)
 * It classifies each port with the dFtree rules (see enum cong_port_class),
 * with hysteresis, keeps a short history, and queues an event for every
 * change of class.  A library: no I/O, no mutable globals; counters come
 * through a reader callback (normally the PMA's 64-bit software counters),
 * time and link rates through the board.
 */
#ifndef PZ_CONG_MONITOR_H
#define PZ_CONG_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"

#define CONG_INTERVAL_MIN_MS 100
#define CONG_INTERVAL_DEFAULT_MS 1000
#define CONG_THRESHOLD_DEFAULT 100000 /* ticks per second */
#define CONG_LOW_UTIL_DEFAULT 50      /* percent */
#define CONG_CLEAR_DEFAULT 50         /* percent of the threshold */
#define CONG_HISTORY_MAX 64
#define CONG_HISTORY_DEFAULT 16
#define CONG_EVENT_QUEUE 64 /* events kept until popped; a full queue drops the oldest */

/*
 * Hysteresis between LOW_UTIL and CONGESTED: a congested switch-facing port
 * moves to LOW_UTIL only when its utilisation falls below low_util_percent
 * minus this margin, and back to CONGESTED only at low_util_percent plus it
 * (per mille, i.e. 10 percentage points).
 */
#define CONG_UTIL_MARGIN_PERMILLE 100

/*
 * Vendor notice trap numbers (DataDetails bytes 0-1 of a non-generic Notice
 * the agent sends through sma_send_vendor_notice()): hot-spot onset and
 * clear are distinct notices, so neither replaces the other in a queue.
 */
#define CONG_TRAP_HOTSPOT_ONSET 0x0001
#define CONG_TRAP_HOTSPOT_CLEAR 0x0002

/*
 * Size of the port record cong_event_notice() writes (it follows the trap
 * number and LIDADDR in the Notice's DataDetails; layout in pma/README.md).
 */
#define CONG_NOTICE_DETAILS_LEN 50

/* What is at the other end of a port's cable, as far as the agent knows. */
enum cong_peer {
    CONG_PEER_UNKNOWN = 0, /* never a hot-spot: treated as a switch-to-switch link */
    CONG_PEER_CA = 1,
    CONG_PEER_SWITCH = 2,
};

/* The dFtree class of a port. */
enum cong_port_class {
    CONG_PORT_NORMAL = 0,    /* congestion below the threshold, or no link */
    CONG_PORT_HOTSPOT = 1,   /* faces a CA, congestion at/above the threshold: endpoint hot-spot */
    CONG_PORT_LOW_UTIL = 2,  /* faces a switch, congested and utilisation below the
                                low-utilisation threshold: blocked from downstream
                                (contributor/victim evidence) */
    CONG_PORT_CONGESTED = 3, /* faces a switch, congested at or above fair share */
};

/* Tunables; cong_monitor_default_config() fills the defaults above. */
struct cong_monitor_config {
    uint32_t interval_ms;     /* sampling interval, >= CONG_INTERVAL_MIN_MS */
    uint64_t threshold_ticks; /* congestion threshold, ticks per second, > 0 */
    uint8_t low_util_percent; /* utilisation threshold, 1..100 */
    uint8_t clear_percent;    /* a congested port clears below this % of the threshold, 1..100 */
    uint8_t history;          /* samples kept per port, 1..CONG_HISTORY_MAX */
};

/*
 * Read port's counters as monotonic 64-bit values (xmit_wait in ticks,
 * xmit_data in 4-byte words).  Returns 0, or a negative errno (the sample
 * of that port is skipped).  A value smaller than the previous one (a
 * reset) or a value stuck at 2^32-1 or 2^64-1 on two reads in a row (a
 * saturating counter) makes that port's sample invalid: the port keeps its
 * class and measures again from the new value.
 */
typedef int (*cong_read_fn)(void *arg, unsigned port, uint64_t *xmit_wait, uint64_t *xmit_data);

/* One sample of one port. */
struct cong_sample {
    uint64_t time_ns;       /* board time of the sample */
    uint64_t congestion;    /* ticks per second */
    uint64_t bandwidth;     /* bytes per second */
    uint32_t util_permille; /* 0..1000 (capped) */
    uint8_t cls;            /* enum cong_port_class after this sample */
};

/* The state of one port. */
struct cong_port_view {
    uint8_t cls;             /* enum cong_port_class */
    uint8_t peer;            /* enum cong_peer */
    bool valid;              /* at least one complete interval measured */
    uint64_t link_bps;       /* link data rate, bits per second (0: link down) */
    struct cong_sample last; /* the newest sample */
    uint64_t since_ns;       /* board time of the last class change */
    uint32_t changes;        /* class changes so far */
    uint32_t invalid;        /* samples discarded (counter reset, saturation, read error) */
};

/* A class change of a port. */
struct cong_event {
    unsigned port;
    uint8_t from; /* enum cong_port_class */
    uint8_t to;
    struct cong_sample sample; /* the sample that caused it */
};

/* Counters of the monitor itself. */
struct cong_monitor_stats {
    uint64_t samples;        /* sampling rounds (all ports at once count as one) */
    uint64_t invalid;        /* port samples discarded, all causes */
    uint64_t counter_resets; /* ... because a counter went backwards */
    uint64_t saturations;    /* ... because a counter stuck at 2^32-1 or 2^64-1 */
    uint64_t read_errors;    /* ... because the reader failed */
    uint64_t events;         /* class changes queued */
    uint64_t events_dropped; /* oldest events dropped from a full queue */
};

struct cong_monitor;

/* Fill *cfg with the defaults. */
void cong_monitor_default_config(struct cong_monitor_config *cfg);

/* Whether *cfg is acceptable; returns 0 or -EINVAL. */
int cong_monitor_config_check(const struct cong_monitor_config *cfg);

/*
 * Create a monitor of board's external ports (board must outlive it),
 * reading counters through read(arg, ...).  Returns NULL on a bad config
 * or OOM.  Ports start CONG_PEER_UNKNOWN and CONG_PORT_NORMAL.
 */
struct cong_monitor *cong_monitor_create(const struct board *board, cong_read_fn read, void *arg,
                                         const struct cong_monitor_config *cfg);

/* Destroy a monitor. */
void cong_monitor_destroy(struct cong_monitor *m);

/* Change the tunables (takes effect from the next sample); returns 0 or -EINVAL. */
int cong_monitor_set_config(struct cong_monitor *m, const struct cong_monitor_config *cfg);

/* The current tunables. */
void cong_monitor_get_config(const struct cong_monitor *m, struct cong_monitor_config *cfg);

/* Say what a port faces; returns 0 or -EINVAL. */
int cong_monitor_set_peer(struct cong_monitor *m, unsigned port, enum cong_peer peer);

/* Board time at which cong_monitor_poll() next has a sample to take. */
uint64_t cong_monitor_next_deadline(const struct cong_monitor *m);

/* Take a sample of every port if one is due; returns the number of events queued. */
unsigned cong_monitor_poll(struct cong_monitor *m);

/* Pop the oldest queued event into *ev; returns false when there is none. */
bool cong_monitor_next_event(struct cong_monitor *m, struct cong_event *ev);

/* The state of port; returns 0 or -EINVAL. */
int cong_monitor_port(const struct cong_monitor *m, unsigned port, struct cong_port_view *v);

/*
 * Copy up to max samples of port, newest first, into out; returns how many
 * (0 for a bad port).
 */
unsigned cong_monitor_history(const struct cong_monitor *m, unsigned port, struct cong_sample *out,
                              unsigned max);

/* Samples taken so far (all ports at once count as one). */
uint64_t cong_monitor_samples(const struct cong_monitor *m);

/* Number of external ports monitored (ports 1..n). */
unsigned cong_monitor_num_ports(const struct cong_monitor *m);

/* A snapshot of the monitor's own counters. */
void cong_monitor_get_stats(const struct cong_monitor *m, struct cong_monitor_stats *st);

/*
 * The standard reader: pma is a struct pma *; reads the PMA's monotonic
 * 64-bit software counters (pma_port_counters64()).  Returns 0 or -EINVAL.
 */
int cong_monitor_read_pma(void *pma, unsigned port, uint64_t *xmit_wait, uint64_t *xmit_data);

/*
 * Whether an event calls for a vendor notice: returns CONG_TRAP_HOTSPOT_ONSET
 * (into HOTSPOT), CONG_TRAP_HOTSPOT_CLEAR (out of HOTSPOT) or 0 (no notice),
 * and for a notice fills details[0..CONG_NOTICE_DETAILS_LEN-1] with the
 * port record (big-endian, layout in pma/README.md).
 */
unsigned cong_event_notice(const struct cong_monitor *m, const struct cong_event *ev,
                           uint8_t details[CONG_NOTICE_DETAILS_LEN]);

/* A name for a class ("normal", "hot-spot", "low-util", "congested"). */
const char *cong_port_class_name(enum cong_port_class cls);

#endif /* PZ_CONG_MONITOR_H */

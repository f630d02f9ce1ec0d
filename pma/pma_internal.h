/*
 * pma_internal.h - state and helpers shared by the PMA's source files.
 * Not part of the library's interface.
 */
#ifndef PZ_PMA_INTERNAL_H
#define PZ_PMA_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gmp.h"
#include "pma.h"

/* Performance management attribute IDs libibmad's enum GSI_ATTR_ID lacks. */
#define PMA_ATTR_PORT_SAMPLES_RESULT_EXT 0x001E

/* PMA ClassPortInfo.CapabilityMask / CapabilityMask2 bits (IBA 16.1.3.1). */
#define PMA_CAP_ALL_PORT_SELECT 0x0100
#define PMA_CAP_EXT_WIDTH 0x0200
#define PMA_CAP_XMIT_WAIT 0x1000
#define PMA_CAP_QP1_DROP 0x8000
#define PMA_CAP2_ADDL_PORT_COUNTERS_EXT 0x0002

/*
 * ClassPortInfo.RespTimeValue: 4.096 us * 2^12 = 16.8 ms, room for an
 * AllPortSelect query that reads 255 ports from a remote ASIC.
 */
#define PMA_RESP_TIME_VALUE 12

/*
 * The counters the PMA keeps: one per uint64_t of struct
 * board_port_counters, indexed by PMA_CTR(field).
 */
#define PMA_NCTR (sizeof(struct board_port_counters) / sizeof(uint64_t))
#define PMA_CTR(field) (offsetof(struct board_port_counters, field) / sizeof(uint64_t))

/* Hardware counters are read at least this often (pma_next_deadline). */
#define PMA_POLL_INTERVAL_NS 1000000000ull

/*
 * Views: sets of counters with their own reset baselines.  PortCounters and
 * PortCountersExtended each have one; every other counter attribute owns its
 * counters alone, so they share the third.
 */
enum pma_view {
    PMA_VIEW_PC,
    PMA_VIEW_PCE,
    PMA_VIEW_ATTR,
    PMA_NVIEWS,
};

/* PMA state of one port. */
struct pma_port {
    bool present; /* has hardware counters */
    /*
     * Last raw hardware value and 64-bit software counters (PMA_NCTR each),
     * or NULL until the port's counters are first read.  With 64-bit
     * hardware counters (pzfabric's) the software counter is the hardware
     * counter: both point at one array, allocated at the first read (a
     * fabric's CA ports are seldom read), which halves the PMA's memory.
     */
    uint64_t *hw_last;
    uint64_t *total;
    /*
     * Per view: total at the view's last reset, or NULL while the view was
     * never reset (every baseline 0): most ports are never reset, and the
     * three tables would be 60 % of a fabric's PMA memory.
     */
    uint64_t *base[PMA_NVIEWS];
};

/* PortSamplesControl.SampleStatus values. */
enum pma_sample_status {
    PMA_SAMPLE_DONE = 0,
    PMA_SAMPLE_STARTED = 1, /* SampleStart timer running */
    PMA_SAMPLE_RUNNING = 2,
};

#define PMA_SAMPLE_COUNTERS 15

/* The sampling engine (PortSamplesControl/PortSamplesResult[Extended]). */
struct pma_sampler {
    uint8_t status; /* enum pma_sample_status */
    uint8_t port_select;
    uint16_t tag;
    uint32_t sample_start;    /* ticks, as set */
    uint32_t sample_interval; /* ticks, as set */
    uint16_t select[PMA_SAMPLE_COUNTERS];
    uint64_t start_ns; /* board time sampling begins */
    uint64_t end_ns;   /* board time sampling ends */
    uint64_t begin[PMA_SAMPLE_COUNTERS];
    uint64_t result[PMA_SAMPLE_COUNTERS];
};

struct pma {
    const struct board *board;
    bool is_switch;
    unsigned num_ports;
    uint64_t hw_mask; /* hardware counters count modulo hw_mask + 1 */
    uint64_t last_poll_ns;
    struct pma_port *ports; /* num_ports + 1 */
    struct pma_sampler sampler;
    struct pma_stats stats;
    struct cong_monitor *cong; /* served as PZ_CongestionMonitor; NULL: none */
};

/* One GMP being answered by an attribute handler. */
struct pma_req {
    uint8_t method;
    uint16_t attr_id;
    uint32_t attr_mod; /* 0 except for attributes that take a modifier */
    const uint8_t *in; /* request data, 192 bytes */
    uint8_t *out;      /* response data, 192 bytes, zeroed */
};

/*
 * An attribute handler: fills req->out, returns a MAD status.  The
 * handlers below are declared with this type, one line per attribute.
 */
typedef uint16_t pma_attr_fn(struct pma *pma, struct pma_req *req);

/*
 * pma_counters.c: hardware reads, software counters, views.  A port_select is
 * a port number or PMA_ALL_PORTS (every port with counters).
 */

/* Mark the ports with counters and start their software counters at the hardware's. */
void pma_counters_init(struct pma *pma);

/* Read the hardware counters of the selected port(s) and accumulate the deltas. */
void pma_refresh(struct pma *pma, unsigned port_select);

/* Same for every port. */
void pma_refresh_all(struct pma *pma);

/* Status 0 if port_select names ports with counters here, else 0x1C. */
uint16_t pma_check_port_select(const struct pma *pma, unsigned port_select);

/* Counter ctr of view since its last reset, summed (saturating) over the selection. */
uint64_t pma_view_value(const struct pma *pma, unsigned port_select, enum pma_view view,
                        size_t ctr);

/* Counter ctr since creation (never reset), summed (saturating) over the selection. */
uint64_t pma_total_value(const struct pma *pma, unsigned port_select, size_t ctr);

/* Reset counter ctr of view on the selected port(s). */
void pma_view_reset(struct pma *pma, unsigned port_select, enum pma_view view, size_t ctr);

/* Free the views' baselines (pma_destroy). */
void pma_counters_free(struct pma *pma);

/* pma_port_counters.c: PortCounters and PortCountersExtended Get/Set handlers. */
pma_attr_fn pma_pc_get, pma_pc_set;
pma_attr_fn pma_pce_get, pma_pce_set;

/* pma_attrs.c: whether attr_id is one of the array counter attributes on this node. */
bool pma_block_attr_known(const struct pma *pma, unsigned attr_id);

/* pma_attrs.c: Get/Set handlers of the array counter attributes. */
pma_attr_fn pma_block_get, pma_block_set;

/* pma_samples.c: power-on state of the sampling engine (Done, mandatory selects). */
void pma_sampler_init(struct pma *pma);

/* pma_samples.c: take the snapshots whose time has come by now. */
void pma_sampler_advance(struct pma *pma, uint64_t now);

/* pma_samples.c: board time of the next snapshot; UINT64_MAX if none. */
uint64_t pma_sampler_deadline(const struct pma *pma);

/* pma_samples.c: PortSamplesControl, PortSamplesResult, PortSamplesResultExtended. */
pma_attr_fn pma_psc_get, pma_psc_set;
pma_attr_fn pma_psr_get;
pma_attr_fn pma_psr_ext_get;

/* pma_vendor.c: PZ_CongestionMonitor (0xFF30) Get/Set, while a monitor is attached. */
pma_attr_fn pma_vendor_get, pma_vendor_set;

#endif /* PZ_PMA_INTERNAL_H */

/*
 * dftree_sa.h - what pz-dftree asks the SA and the PMAs: the fabric's end
 * ports and switches (NodeRecords), their link rates (PortInfoRecords), the
 * end port behind a switch port (LinkRecord), the InformInfo subscription
 * for portzero's hot-spot notices and whether the SA still holds it
 * (InformInfoRecord), a switch's congestion monitor (PZ_CongestionMonitor
 * 0xFF30) and an end port's PortCountersExtended.
 */
#ifndef PZ_DFTREE_SA_H
#define PZ_DFTREE_SA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dftree_rule.h"
#include "dftree_umad.h"

#define DT_DESC_LEN 64

/* An end port (a CA's port with a LID) or a switch (its port 0). */
struct dt_node {
    uint16_t lid;
    uint8_t port; /* the CA's port; 0 for a switch */
    bool is_switch;
    uint64_t guid;     /* port GUID */
    uint64_t link_bps; /* CA port: data rate of its link (0: unknown) */
    char desc[DT_DESC_LEN + 1];
};

/* The fabric as the SA describes it. */
struct dt_fabric {
    struct dt_node *nodes;
    size_t count;
};

/* A switch's congestion monitor settings and hot-spot ports (its 0xFF30 summary). */
struct dt_monitor {
    unsigned num_ports;
    unsigned interval_ms;
    struct dt_rule rule;
    uint8_t hot_mask[32];
};

/* One port record of a switch's monitor (0xFF30, modifier = port). */
struct dt_port_record {
    unsigned cls;        /* 0 normal, 1 hot-spot, 2 low-util, 3 congested */
    uint64_t congestion; /* ticks/s */
    unsigned util_permille;
    uint64_t bandwidth; /* bytes/s */
};

/* The subscription pz-dftree asks for. */
struct dt_subscription {
    uint32_t vendor_id;
    uint16_t device_id;
    uint16_t lid_begin, lid_end; /* issuers: 0xFFFF = every port */
    bool subscribe;              /* false: unsubscribe */
};

/* Read NodeRecords and PortInfoRecords into *f (replacing it); 0 or -1 (reason in *why). */
int dt_sa_read_fabric(struct dt_port *p, struct dt_fabric *f, const char **why);
/* Free what dt_sa_read_fabric() read (f is empty after it). */
void dt_fabric_free(struct dt_fabric *f);
/* The end port or switch with LID lid, or NULL. */
const struct dt_node *dt_fabric_by_lid(const struct dt_fabric *f, uint16_t lid);

/*
 * The LID of the end port cabled to (switch_lid, port) (LinkRecord); 0 and
 * *why when the SA has no such link.
 */
uint16_t dt_sa_peer_lid(struct dt_port *p, uint16_t switch_lid, unsigned port, const char **why);

/* Set InformInfo; returns 0, the SA's MAD status (> 0), or -1 (no answer). */
int dt_sa_inform(struct dt_port *p, const struct dt_subscription *s);

/* Whether the SA holds a subscription of this port (InformInfoRecords): 1, 0, or -1 (no answer). */
int dt_sa_subscribed(struct dt_port *p);

/* A switch's monitor summary; 0, the MAD status (> 0), or -1 (no answer). */
int dt_pma_monitor(struct dt_port *p, uint16_t lid, struct dt_monitor *m);
/* One port record of a switch's monitor; 0, the MAD status, or -1. */
int dt_pma_port_record(struct dt_port *p, uint16_t lid, unsigned port, struct dt_port_record *r);

/* An end port's PortXmitData and PortXmitWait (PortCountersExtended); 0, status or -1. */
int dt_pma_counters(struct dt_port *p, uint16_t lid, unsigned port, struct dt_reading *r);

#endif /* PZ_DFTREE_SA_H */

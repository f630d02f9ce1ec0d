/*
 * dftree_umad.h - pz-dftree's MAD port: one umad port with three agents
 * (SubnAdm with RMPP and the Report method, PerfMgt, the dFtree vendor
 * class), requests that wait for their answer (the umad layer times them
 * out and retries), and the SA's Reports: a Report that arrives while a
 * request waits (or while the daemon waits for one) is answered with a
 * ReportResp at once and its Notice queued for the caller.
 *
 * It attaches like the diags: the kernel's umad on hardware, libumad2sim
 * (and libpzumad2sim) against pzfabric.
 */
#ifndef PZ_DFTREE_UMAD_H
#define PZ_DFTREE_UMAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DT_MAD_SIZE 256
#define DT_NOTICE_LEN 80
#define DT_REPORTS_MAX 64

/* A Notice the SA forwarded (SubnAdmReport), as received. */
struct dt_report {
    uint8_t notice[DT_NOTICE_LEN];
    uint16_t from_lid; /* the SA's */
};

/* Which agent a request goes through. */
enum dt_agent { DT_AGENT_SA, DT_AGENT_PMA, DT_AGENT_VENDOR, DT_AGENTS };

struct dt_port {
    int fd;
    int agents[DT_AGENTS];
    uint16_t lid, sm_lid;
    uint8_t sm_sl;
    uint64_t port_guid, gid_prefix;
    int timeout_ms, retries;
    uint32_t next_tid;
    void *buf; /* umad receive buffer */
    int buf_len;
    struct dt_report reports[DT_REPORTS_MAX];
    unsigned rep_head, rep_count;
    uint64_t sent, received, reports_answered, reports_lost;
};

/*
 * Open umad port (ca, port; NULL/0: the first) and register the agents.
 * Returns 0, or -1 with a message in err.
 */
int dt_port_open(struct dt_port *p, const char *ca, int port, int timeout_ms, int retries,
                 char *err, size_t err_len);
/* Close the port and free its buffer. */
void dt_port_close(struct dt_port *p);

/* Re-read the port's LID and SM LID (an SM restart may move them); returns 0 or -1. */
int dt_port_refresh(struct dt_port *p, const char *ca, int port);

/*
 * Send the request in req (DT_MAD_SIZE bytes; its TID is set here) to
 * dlid through agent a and wait for the answer; *answer points to it (in
 * p's buffer, valid until the next call), *len its length.  Returns 0,
 * -ETIMEDOUT (no answer after the retries) or -EIO.
 */
int dt_rpc(struct dt_port *p, enum dt_agent a, uint16_t dlid, uint8_t *req, const uint8_t **answer,
           int *len);

/*
 * Wait at most timeout_ms for an SA Report; returns 1 with the oldest
 * queued one in *r, 0 when none came, -1 on a receive error.
 */
int dt_next_report(struct dt_port *p, int timeout_ms, struct dt_report *r);

#endif /* PZ_DFTREE_UMAD_H */
